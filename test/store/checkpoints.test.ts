import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { sql } from 'kysely';
import { loadConfig } from '../../src/config.ts';
import { startServer } from '../../src/server.ts';
import { openStore, WAL_AUTOCHECKPOINT_PAGES, type Queryable } from '../../src/store/db.ts';
import { SAFETY_NET_PAGES } from '../../src/store/checkpoints.ts';
import { client } from '../helpers/http.ts';

/**
 * SQLite's checkpoints (WAL pages copied into the database file and synced) run on a worker
 * thread of the server, not inside the commit that took the WAL past its limit
 * (src/store/checkpoints.ts). SQLite only: PostgreSQL has no such step.
 */

async function autocheckpoint(db: Queryable): Promise<number> {
  const r = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(db);
  return Number(r.rows[0]!.wal_autocheckpoint);
}

/** The rows of a sheet in the database file alone (a copy without its -wal): what a checkpoint put there. */
function rowsInFileAlone(dataDir: string, sheetId: number): number {
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetd-ckpt-copy-'));
  try {
    fs.copyFileSync(path.join(dataDir, 'sheetd.db'), path.join(copy, 'sheetd.db'));
    const db = new Database(path.join(copy, 'sheetd.db'));
    try {
      return (db.prepare('select count(*) as n from rows where sheet_id = ?').get(sheetId) as { n: number }).n;
    } finally {
      db.close();
    }
  } catch {
    // a copy taken while a checkpoint was writing the file: the next look takes another
    return -1;
  } finally {
    fs.rmSync(copy, { recursive: true, force: true });
  }
}

test('a server\'s writes reach the database file from the checkpoint worker, well before the WAL would fill', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetd-ckpt-'));
  const server = await startServer(loadConfig({ PORT: '0', SHEETD_DATA_DIR: dataDir, SHEETD_LOG_LEVEL: 'silent', DATABASE_URL: '' }), { logger: false });
  try {
    // the connection's own checkpoint only as a net, far above what this test writes
    assert.equal(await autocheckpoint(server.store.db), SAFETY_NET_PAGES);
    const token = fs.readFileSync(path.join(dataDir, 'admin-token'), 'utf8').trim();
    const api = client(server.url + '/2.0', token);
    const sheet = await api.post('/sheets', { name: 'checkpoints', columns: [{ title: 'A', type: 'TEXT_NUMBER', primary: true }] });
    assert.equal(sheet.status, 200, sheet.text);
    const { id, columns } = sheet.body.result as { id: number; columns: Array<{ id: number }> };
    for (let i = 0; i < 3; i++) {
      const add = await api.post(`/sheets/${id}/rows`, Array.from({ length: 50 }, (_, k) => ({ toBottom: true, cells: [{ columnId: columns[0]!.id, value: `r${i}-${k}` }] })));
      assert.equal(add.status, 200, add.text);
    }
    // the rows are in the WAL at once; the worker copies them into the file within a few of its ticks
    let seen = -1;
    for (let k = 0; k < 100 && seen !== 150; k++) {
      await new Promise((r) => setTimeout(r, 100));
      seen = rowsInFileAlone(dataDir, id);
    }
    assert.equal(seen, 150, 'the 150 rows in the database file without its WAL');
    assert.ok(server.store.checkpoints !== undefined && (await server.store.checkpoints.count()) >= 1);
  } finally {
    await server.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test('the connection checkpoints itself as before when the worker lets the database go, or was never asked', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetd-ckpt-'));
  const withWorker = await openStore({ dataDir, backgroundCheckpoints: true });
  try {
    assert.ok(withWorker.checkpoints);
    assert.equal(await autocheckpoint(withWorker.db), SAFETY_NET_PAGES);
    await withWorker.checkpoints.close();
    assert.equal(await autocheckpoint(withWorker.db), WAL_AUTOCHECKPOINT_PAGES);
  } finally {
    await withWorker.close();
  }
  const alone = await openStore({ dataDir });
  try {
    assert.equal(alone.checkpoints, undefined);
    assert.equal(await autocheckpoint(alone.db), WAL_AUTOCHECKPOINT_PAGES);
  } finally {
    await alone.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
