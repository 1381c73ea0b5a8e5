import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect } from 'kysely';
import { migrationProvider } from '../../src/store/migrations/index.ts';
import { openStore } from '../../src/store/db.ts';

test('SQLite: a database from before 0008 keeps its rows when the rows table is rebuilt around a unique id index', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetd-rows-migration-'));
  try {
    const file = path.join(dataDir, 'sheetd.db');
    const sqlite = new Database(file);
    sqlite.pragma('foreign_keys = ON');
    const old = new Kysely<unknown>({ dialect: new SqliteDialect({ database: sqlite }) });
    const { error } = await new Migrator({ db: old, provider: migrationProvider('sqlite') }).migrateTo('0007_views');
    assert.equal(error, undefined);
    sqlite.prepare('insert into sheets (id, org_id, owner_id, name, created_at, modified_at) values (?, 1, 1, ?, 0, 0)').run(77, 'S');
    const ins = sqlite.prepare('insert into rows (id, sheet_id, parent_id, sort_key, cells, cell_meta, created_at, created_by, modified_at, modified_by) values (?, 77, ?, ?, ?, ?, 5, 9, 6, 9)');
    ins.run(9_000_000_000_000_001, null, 2, '{"1":{"v":"b"}}', '{"1":[6,9]}');
    ins.run(12, null, 1, '{"1":{"v":"a"}}', '{}');
    ins.run(3_000_000_000_000_003, 12, 1.5, '{}', '{}');
    const before = sqlite.prepare('select * from rows order by sort_key').all();
    await old.destroy();

    const store = await openStore({ dataDir });
    try {
      const after = await store.db.selectFrom('rows').selectAll().orderBy('sort_key').execute();
      assert.deepEqual(after, before);
      // ids stay unique, and rows still go with their sheet
      await assert.rejects(store.db.insertInto('rows').values({ id: 12, sheet_id: 77, parent_id: null, sort_key: 9, expanded: 1, locked: 0, format: null, cells: '{}', cell_meta: '{}', created_at: 0, created_by: null, modified_at: 0, modified_by: null }).execute(), /UNIQUE/);
      await store.db.deleteFrom('sheets').where('id', '=', 77).execute();
      assert.equal((await store.db.selectFrom('rows').selectAll().execute()).length, 0);
    } finally {
      await store.close();
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
