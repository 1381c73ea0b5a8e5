import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { Kysely, Migrator, PostgresDialect, SqliteDialect } from 'kysely';
import { migrationProvider } from '../../src/store/migrations/index.ts';
import type { Dialect } from '../../src/store/db.ts';
import { createPgDatabase, startSuiteServer, TEST_PG_URL } from '../helpers/server.ts';
import { pngBytes } from '../helpers/images.ts';

/** The migration before 0010 (whichever it is), where images kept their bytes in the table. */
async function lastBefore0010(d: Dialect): Promise<string> {
  const names = Object.keys(await migrationProvider(d).getMigrations()).sort();
  return names.filter((n) => n < '0010').at(-1)!;
}

/** Images of a database from before 0010: one shown by a sheet and its copy (same id, same bytes), one other. */
const A = pngBytes(4, 3, 1);
const B = pngBytes(2, 2, 200);

async function oldDatabase(db: Kysely<unknown>, d: Dialect): Promise<void> {
  const { error } = await new Migrator({ db, provider: migrationProvider(d) }).migrateTo(await lastBefore0010(d));
  assert.equal(error, undefined);
  const q = db as unknown as Kysely<Record<string, Record<string, unknown>>>;
  for (const id of [77, 78]) await q.insertInto('sheets').values({ id, org_id: 1, owner_id: 1, name: `S${id}`, created_at: 0, modified_at: 0 }).execute();
  const image = (sheet_id: number, id: string, bytes: Buffer) => ({ id, sheet_id, bytes, mime_type: 'image/png', width: 1, height: 1, file_name: 'x.png', created_at: 0, created_by: null });
  await q.insertInto('images').values([image(77, 'imageA', A), image(78, 'imageA', A), image(77, 'imageB', B)]).execute();
  const far = Date.now() + 3_600_000;
  await q.insertInto('image_urls').values([
    { token: 'tokenAinTheCopy12345', sheet_id: 78, image_id: 'imageA', expires_at: far },
    { token: 'tokenBinTheSheet1234', sheet_id: 77, image_id: 'imageB', expires_at: far },
  ]).execute();
}

async function upgradeAndCheck(d: Dialect, dataDir: string, databaseUrl = ''): Promise<void> {
  // '' keeps the SQLite database of dataDir even when the suite runs on PostgreSQL
  const t = await startSuiteServer({ SHEETD_DATA_DIR: dataDir }, { databaseUrl });
  try {
    for (const [token, bytes] of [['tokenAinTheCopy12345', A], ['tokenBinTheSheet1234', B]] as const) {
      const got = await fetch(`${t.base}/imageurls/${token}`);
      assert.equal(got.status, 200, d);
      assert.equal(got.headers.get('content-type'), 'image/png');
      assert.deepEqual(Buffer.from(await got.arrayBuffer()), bytes);
    }
    const rows = await t.server.store.db.selectFrom('images').selectAll().orderBy('sheet_id').orderBy('id').execute();
    assert.equal(rows.length, 3);
    for (const r of rows) {
      assert.equal(r.bytes, null);
      assert.match(r.blob_key ?? '', /^[0-9a-f]{32}$/);
    }
    const [a77, b77, a78] = rows;
    assert.equal(a77!.blob_key, a78!.blob_key, 'the copy shares the blob');
    assert.notEqual(a77!.blob_key, b77!.blob_key);
    assert.equal(a77!.size, A.length);
    // the bytes are files of the data directory now
    const file = (key: string) => path.join(dataDir, 'blobs', key.slice(0, 2), key.slice(2, 4), key);
    assert.deepEqual(fs.readFileSync(file(a77!.blob_key!)), A);
    assert.deepEqual(fs.readFileSync(file(b77!.blob_key!)), B);
  } finally {
    await t.close();
  }
  // a second start has nothing left to move and serves the same
  const again = await startSuiteServer({ SHEETD_DATA_DIR: dataDir }, { databaseUrl });
  try {
    const got = await fetch(`${again.base}/imageurls/tokenBinTheSheet1234`);
    assert.equal(got.status, 200);
    assert.deepEqual(Buffer.from(await got.arrayBuffer()), B);
  } finally {
    await again.close();
  }
}

test('SQLite: images stored in the database before 0010 move onto the blob store at start', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetd-images-migration-'));
  try {
    const sqlite = new Database(path.join(dataDir, 'sheetd.db'));
    sqlite.pragma('foreign_keys = ON');
    const old = new Kysely<unknown>({ dialect: new SqliteDialect({ database: sqlite }) });
    await oldDatabase(old, 'sqlite');
    await old.destroy();
    await upgradeAndCheck('sqlite', dataDir);
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test('PostgreSQL: images stored in the database before 0010 move onto the blob store at start', { skip: TEST_PG_URL === undefined && 'SHEETD_TEST_DATABASE_URL not set' }, async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetd-images-migration-'));
  const created = await createPgDatabase(TEST_PG_URL!);
  try {
    const old = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: created.url, max: 1 }) }) });
    await oldDatabase(old, 'postgres');
    await old.destroy();
    await upgradeAndCheck('postgres', dataDir, created.url);
  } finally {
    await created.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
