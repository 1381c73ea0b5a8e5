import { after, before } from 'node:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openStore, type Store } from '../../src/store/db.ts';
import { createPgDatabase, TEST_PG_URL } from './server.ts';

/**
 * One migrated database for the whole test file (no server): SQLite in a temp dir, or a fresh
 * PostgreSQL database when SHEETD_TEST_DATABASE_URL is set. Fields are set before the tests run.
 */
export function storeForFile(): { store: Store; dataDir: string; databaseUrl: string | undefined } {
  const f = { databaseUrl: undefined } as { store: Store; dataDir: string; databaseUrl: string | undefined };
  let drop: (() => Promise<void>) | null = null;
  before(async () => {
    f.dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetd-store-'));
    if (TEST_PG_URL) {
      const db = await createPgDatabase(TEST_PG_URL);
      f.databaseUrl = db.url;
      drop = db.drop;
    }
    f.store = await openStore({ databaseUrl: f.databaseUrl, dataDir: f.dataDir });
  });
  after(async () => {
    await f.store.close();
    if (drop) await drop();
    fs.rmSync(f.dataDir, { recursive: true, force: true });
  });
  return f;
}
