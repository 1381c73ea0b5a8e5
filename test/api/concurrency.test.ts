import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { TEST_PG_URL } from '../helpers/server.ts';
import { serverForFile } from '../helpers/setup.ts';
import { assertError, cellOf, makeSheet } from '../helpers/sheets.ts';

// The serialization test runs at the default lock timeout: 30 writers queue on one sheet, and on a
// loaded machine the last of them waits longer than a short timeout would allow. The timeout test
// (PostgreSQL only) gets a server of its own with a short one.
const s0 = serverForFile();
const s1 = TEST_PG_URL ? serverForFile({ SHEETD_LOCK_TIMEOUT_MS: '300' }) : undefined;

test('concurrent updates to one sheet are serialized: none is lost, versions count every change', async () => {
  const s = await makeSheet(s0.api, 'busy', [{ title: 'N', type: 'TEXT_NUMBER', primary: true }, { title: 'V', type: 'TEXT_NUMBER' }]);
  const rows = await s0.api.post(`/sheets/${s.id}/rows`, Array.from({ length: 10 }, (_, i) => ({ toBottom: true, cells: [{ columnId: s.col.N!.id, value: `r${i}` }] })));
  const ids = rows.body.result.map((r: { id: number }) => r.id) as number[];
  const v0 = rows.body.version as number;
  // 30 writers at once: 10 row updates, 10 row adds, 10 more updates
  const writes = [
    ...ids.map((id, i) => s0.api.put(`/sheets/${s.id}/rows`, { id, cells: [{ columnId: s.col.V!.id, value: i }] })),
    ...Array.from({ length: 10 }, (_, i) => s0.api.post(`/sheets/${s.id}/rows`, { toBottom: true, cells: [{ columnId: s.col.N!.id, value: `new${i}` }] })),
    ...ids.map((id, i) => s0.api.put(`/sheets/${s.id}/rows`, { id, cells: [{ columnId: s.col.N!.id, value: `R${i}` }] })),
  ];
  const results = await Promise.all(writes);
  for (const r of results) assert.equal(r.status, 200, JSON.stringify(r.body));
  const versions = results.map((r) => r.body.version as number).sort((a, b) => a - b);
  assert.deepEqual(versions, Array.from({ length: 30 }, (_, i) => v0 + i + 1));
  const sheet = await s0.api.get(`/sheets/${s.id}`);
  assert.equal(sheet.body.version, v0 + 30);
  assert.equal(sheet.body.totalRowCount, 20);
  for (let i = 0; i < 10; i++) {
    const row = sheet.body.rows.find((r: { id: number }) => r.id === ids[i]);
    assert.equal(cellOf(row, s.col.V!.id).value, i);
    assert.equal(cellOf(row, s.col.N!.id).value, `R${i}`);
  }
  assert.deepEqual(sheet.body.rows.map((r: { rowNumber: number }) => r.rowNumber), Array.from({ length: 20 }, (_, i) => i + 1));
});

// With PostgreSQL, writes from any sheetd process wait on the sheet's row lock; one that cannot
// get its turn in time answers 500/4004 and changes nothing.
test('a write that cannot get the sheet in time answers 4004 and changes nothing', { skip: !TEST_PG_URL && 'PostgreSQL only: SQLite runs one writer at a time in one process' }, async () => {
  const s0 = s1!;
  const s = await makeSheet(s0.api, 'locked', [{ title: 'N', type: 'TEXT_NUMBER', primary: true }]);
  const other = new pg.Client({ connectionString: s0.t.config.databaseUrl });
  await other.connect();
  try {
    await other.query('BEGIN');
    await other.query('SELECT id FROM sheets WHERE id = $1 FOR UPDATE', [s.id]);
    const res = await s0.api.post(`/sheets/${s.id}/rows`, { cells: [{ columnId: s.col.N!.id, value: 'blocked' }] });
    assertError(res, 500, 4004);
    assert.match(res.body.message, new RegExp(String(s.id)));
    await other.query('ROLLBACK');
  } finally {
    await other.end();
  }
  const sheet = await s0.api.get(`/sheets/${s.id}`);
  assert.equal(sheet.body.totalRowCount, 0);
  assert.equal(sheet.body.version, 1);
  assert.equal((await s0.api.post(`/sheets/${s.id}/rows`, { cells: [{ columnId: s.col.N!.id, value: 'after' }] })).status, 200);
});
