import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { loadConfig } from '../../src/config.ts';
import { startServer } from '../../src/server.ts';

// A database from before migration 0022 (its data, no search index) gets the index built from
// that data at the first start after the migration. SQLite: the file is rolled back by hand.
test('the first start after migration 0022 indexes the data already there', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetd-search-migration-'));
  const config = () => loadConfig({ HOST: '127.0.0.1', PORT: '0', SHEETD_DATA_DIR: dataDir, SHEETD_LOG_LEVEL: 'silent' });
  try {
    let server = await startServer(config(), { logger: false });
    const token = fs.readFileSync(path.join(dataDir, 'admin-token'), 'utf8').trim();
    const call = async (method: string, p: string, body?: unknown) => {
      const res = await fetch(`${server.url}/2.0${p}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the test reads what it posted
      return { status: res.status, body: (await res.json()) as Record<string, any> };
    };
    const sheet = (await call('POST', '/sheets', { name: 'Old ledger', columns: [{ title: 'A', type: 'TEXT_NUMBER', primary: true }] })).body.result;
    const rows = await call('POST', `/sheets/${sheet.id}/rows`, [{ toBottom: true, cells: [{ columnId: sheet.columns[0].id, value: 'archived walrus' }] }]);
    assert.equal(rows.status, 200);
    await server.close();

    // as before 0022: no index tables, the migration and those after it not applied (they add
    // indexes, drop some, 0028 adds the change log's columns of runs and 0030 the password
    // links' table, dropped here too)
    const raw = new Database(path.join(dataDir, 'sheetd.db'));
    raw.exec("drop table search_fts; drop table search_docs; drop table search_index_state; alter table events drop column n; alter table events drop column batch; drop table password_links; delete from kysely_migration where name >= '0022_search_index'");
    raw.close();

    server = await startServer(config(), { logger: false });
    const found = await call('GET', '/search?query=walrus');
    assert.equal(found.status, 200);
    assert.deepEqual(found.body.results.map((x: { objectType: string; objectId: number }) => [x.objectType, x.objectId]), [['row', rows.body.result[0].id]]);
    const named = await call('GET', '/search?query=ledger');
    assert.deepEqual(named.body.results.map((x: { objectType: string; objectId: number }) => [x.objectType, x.objectId]), [['sheet', sheet.id]]);
    await server.close();
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
