import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { serverForFile } from '../helpers/setup.ts';
import { makeSheet } from '../helpers/sheets.ts';
import { insertCellHistory } from '../../src/store/cellHistory.ts';

// Cell history is kept as one record per row a write overwrote cells of (store/cellHistory.ts,
// migration 0029); databases from before keep one record per cell, and both are read together.
// many reads of cell history (10 each toward the rate limit)
const s0 = serverForFile({ SHEETD_RATE_LIMIT: '100000' });

const COLUMNS = [
  { title: 'A', type: 'TEXT_NUMBER', primary: true },
  { title: 'B', type: 'TEXT_NUMBER' },
  { title: 'C', type: 'TEXT_NUMBER' },
  { title: 'D', type: 'TEXT_NUMBER' },
];

interface Entry { value?: unknown; modifiedAt: number; modifiedBy?: { email: string } }

const pause = () => new Promise((r) => setTimeout(r, 5));

async function history(sheetId: number, rowId: number, columnId: number): Promise<{ text: string; data: Entry[] }> {
  const res = await s0.api.get(`/sheets/${sheetId}/rows/${rowId}/columns/${columnId}/history?include=columnType&numericDates=true&pageSize=1000`);
  assert.equal(res.status, 200, res.text);
  return { text: res.text, data: res.body.data as Entry[] };
}

function db() {
  return s0.t.server.store.db;
}

async function records(sheetId: number) {
  return db().selectFrom('cell_history').selectAll().where('sheet_id', '=', sheetId).orderBy('seq').execute();
}

describe('cell history kept per row', () => {
  test('single-cell, multi-cell and bulk updates: one record per row written, every cell answered newest first, the same as from per-cell records', async () => {
    const s = await makeSheet(s0.api, 'history rows', COLUMNS);
    const c = (t: string) => s.col[t]!.id;
    const added = await s0.api.post(`/sheets/${s.id}/rows`, [0, 1, 2].map((i) => ({ toBottom: true, cells: [{ columnId: c('A'), value: `a${i}` }, { columnId: c('B'), value: `b${i}` }, { columnId: c('C'), value: i }] })));
    assert.equal(added.status, 200, added.text);
    const ids = (added.body.result as Array<{ id: number }>).map((r) => r.id);
    await pause();
    // rows in bulk, two cells each
    const bulk = await s0.api.put(`/sheets/${s.id}/rows`, ids.map((id, i) => ({ id, cells: [{ columnId: c('B'), value: `b${i}'` }, { columnId: c('C'), value: i + 10 }] })));
    assert.equal(bulk.status, 200, bulk.text);
    await pause();
    // one cell of one row
    const one = await s0.api.put(`/sheets/${s.id}/rows`, { id: ids[0], cells: [{ columnId: c('A'), value: "a0'" }] });
    assert.equal(one.status, 200, one.text);
    await pause();
    // cells of three stamps (A of the last write, B of the bulk one, C cleared) and D never written
    const mixed = await s0.api.put(`/sheets/${s.id}/rows`, { id: ids[0], cells: [{ columnId: c('A'), value: "a0''" }, { columnId: c('B'), value: "b0''" }, { columnId: c('C'), value: null }, { columnId: c('D'), value: 'd0' }] });
    assert.equal(mixed.status, 200, mixed.text);
    await pause();
    const again = await s0.api.put(`/sheets/${s.id}/rows`, [{ id: ids[0], cells: [{ columnId: c('C'), value: 'c again' }] }, { id: ids[1], cells: [{ columnId: c('A'), value: "a1'" }, { columnId: c('B'), value: "b1''" }] }]);
    assert.equal(again.status, 200, again.text);

    const values = async (rowId: number, col: string) => (await history(s.id, rowId, c(col))).data.map((e) => e.value ?? null);
    assert.deepEqual(await values(ids[0]!, 'A'), ["a0''", "a0'", 'a0']);
    assert.deepEqual(await values(ids[0]!, 'B'), ["b0''", "b0'", 'b0']);
    assert.deepEqual(await values(ids[0]!, 'C'), ['c again', null, 10, 0]);
    assert.deepEqual(await values(ids[0]!, 'D'), ['d0']);
    assert.deepEqual(await values(ids[1]!, 'A'), ["a1'", 'a1']);
    assert.deepEqual(await values(ids[1]!, 'B'), ["b1''", "b1'", 'b1']);
    assert.deepEqual(await values(ids[1]!, 'C'), [11, 1]);
    assert.deepEqual(await values(ids[2]!, 'B'), ["b2'", 'b2']);
    assert.deepEqual(await values(ids[2]!, 'D'), []);
    const a0 = (await history(s.id, ids[0]!, c('A'))).data;
    const b0 = (await history(s.id, ids[0]!, c('B'))).data;
    const c0 = (await history(s.id, ids[0]!, c('C'))).data;
    // each earlier state keeps the stamp of the write that made it
    const [tAdd, tBulk, tOne, tMixed] = [a0[2]!.modifiedAt, b0[1]!.modifiedAt, a0[1]!.modifiedAt, a0[0]!.modifiedAt];
    assert.ok(tAdd < tBulk && tBulk < tOne && tOne < tMixed, JSON.stringify([tAdd, tBulk, tOne, tMixed]));
    assert.deepEqual(b0.map((e) => e.modifiedAt), [tMixed, tBulk, tAdd]);
    assert.deepEqual(c0.slice(1).map((e) => e.modifiedAt), [tMixed, tBulk, tAdd]);
    for (const e of [...a0, ...b0, ...c0]) assert.equal(e.modifiedBy?.email, s0.t.config.adminEmail);

    // the bulk update: one record per row; a single cell: a record of its own; the mixed write:
    // one record for its three overwritten cells (D was blank and never written)
    const stored = await records(s.id);
    assert.deepEqual(stored.map((r) => (r.column_id === 0 ? 'row' : 'cell')), ['row', 'row', 'row', 'cell', 'row', 'cell', 'row']);
    assert.deepEqual(Object.keys(JSON.parse(stored[4]!.cell) as object), [String(c('A')), String(c('B')), String(c('C'))]);

    // the same history as per-cell records (a database from before migration 0029) reads the same
    const cells = [ids[0], ids[1], ids[2]].flatMap((id) => ['A', 'B', 'C', 'D'].map((col) => [id!, c(col)] as const));
    const before = await Promise.all(cells.map(([id, col]) => history(s.id, id, col)));
    const perCell = stored.flatMap((r) => {
      if (r.column_id !== 0) return [r];
      const row = JSON.parse(r.cell) as Record<string, [unknown, number?, number?, string?]>;
      return Object.entries(row).map(([col, e]) => ({ ...r, column_id: Number(col), cell: JSON.stringify(e[0]), ...(e.length > 1 ? { modified_at: e[1]!, modified_by: e[2]!, modified_by_email: e[3] ?? null } : {}) }));
    });
    assert.equal(perCell.length, 13);
    await db().deleteFrom('cell_history').where('sheet_id', '=', s.id).execute();
    await db().insertInto('cell_history').values(perCell.map(({ seq: _seq, ...r }) => r)).execute();
    assert.ok((await records(s.id)).every((r) => r.column_id !== 0));
    const after = await Promise.all(cells.map(([id, col]) => history(s.id, id, col)));
    assert.deepEqual(after.map((h) => h.text), before.map((h) => h.text));
  });

  test('an upgraded database: per-cell records from before and row records written since read together, newest first', async () => {
    const s = await makeSheet(s0.api, 'history upgraded', COLUMNS);
    const c = (t: string) => s.col[t]!.id;
    const added = await s0.api.post(`/sheets/${s.id}/rows`, { cells: [{ columnId: c('A'), value: 'a' }, { columnId: c('B'), value: 'b' }] });
    assert.equal(added.status, 200, added.text);
    const rowId = added.body.result.id as number;
    const admin = (await db().selectFrom('users').select('id').where('email', '=', s0.t.config.adminEmail).executeTakeFirstOrThrow()).id;
    // what sheetd wrote before migration 0029: one record per cell
    await db().insertInto('cell_history').values([
      { sheet_id: s.id, row_id: rowId, column_id: c('A'), cell: JSON.stringify({ v: 'oldest a' }), modified_at: 1_000_000, modified_by: admin, modified_by_email: null },
      { sheet_id: s.id, row_id: rowId, column_id: c('B'), cell: JSON.stringify({ v: 'old b' }), modified_at: 1_000_000, modified_by: admin, modified_by_email: null },
      { sheet_id: s.id, row_id: rowId, column_id: c('A'), cell: '{}', modified_at: 2_000_000, modified_by: null, modified_by_email: 'outside@example.com' },
    ]).execute();
    await pause();
    const upd = await s0.api.put(`/sheets/${s.id}/rows`, { id: rowId, cells: [{ columnId: c('A'), value: 'a2' }, { columnId: c('B'), value: 'b2' }] });
    assert.equal(upd.status, 200, upd.text);
    await pause();
    assert.equal((await s0.api.put(`/sheets/${s.id}/rows`, { id: rowId, cells: [{ columnId: c('A'), value: 'a3' }] })).status, 200);

    const a = (await history(s.id, rowId, c('A'))).data;
    assert.deepEqual(a.map((e) => e.value ?? null), ['a3', 'a2', 'a', null, 'oldest a']);
    assert.deepEqual(a.slice(3).map((e) => [e.modifiedAt, e.modifiedBy?.email]), [[2_000_000, 'outside@example.com'], [1_000_000, s0.t.config.adminEmail]]);
    const b = (await history(s.id, rowId, c('B'))).data;
    assert.deepEqual(b.map((e) => e.value ?? null), ['b2', 'b', 'old b']);
    assert.equal(b[1]!.modifiedAt, a[2]!.modifiedAt);
    assert.deepEqual((await records(s.id)).map((r) => r.column_id === 0), [false, false, false, true, false]);
  });

  test('stamps of their own in a row record (an author without an account), and a cell named twice by one write kept twice, in order', async () => {
    const s = await makeSheet(s0.api, 'history stamps', COLUMNS);
    const c = (t: string) => s.col[t]!.id;
    const added = await s0.api.post(`/sheets/${s.id}/rows`, { cells: [{ columnId: c('A'), value: 'a' }] });
    const rowId = added.body.result.id as number;
    await db().transaction().execute((tx) => insertCellHistory(tx, s.id, [
      { rowId, columnId: c('A'), before: { v: 'x1' }, at: 10_000, by: 7, email: null },
      { rowId, columnId: c('B'), before: undefined, at: 20_000, by: null, email: 'guest@example.com' },
      { rowId, columnId: c('A'), before: { v: 'x2' }, at: 30_000, by: 7, email: null },
      { rowId, columnId: c('C'), before: { v: 'x3' }, at: 10_000, by: 7, email: null },
    ]));
    const stored = await records(s.id);
    assert.deepEqual(stored.map((r) => r.column_id), [0, 0]);
    const a = (await history(s.id, rowId, c('A'))).data;
    assert.deepEqual(a.map((e) => [e.value ?? null, e.modifiedAt]), [['a', a[0]!.modifiedAt], ['x2', 30_000], ['x1', 10_000]]);
    const b = (await history(s.id, rowId, c('B'))).data;
    assert.deepEqual(b.map((e) => [e.value ?? null, e.modifiedAt, e.modifiedBy?.email]), [[null, 20_000, 'guest@example.com']]);
    const cc = (await history(s.id, rowId, c('C'))).data;
    assert.deepEqual(cc.map((e) => [e.value ?? null, e.modifiedAt]), [['x3', 10_000]]);
  });

  test('deleting a sheet leaves none of its cell history behind', async () => {
    const s = await makeSheet(s0.api, 'history deleted', COLUMNS);
    const c = (t: string) => s.col[t]!.id;
    const added = await s0.api.post(`/sheets/${s.id}/rows`, [0, 1].map((i) => ({ toBottom: true, cells: [{ columnId: c('A'), value: `a${i}` }, { columnId: c('B'), value: `b${i}` }] })));
    const ids = (added.body.result as Array<{ id: number }>).map((r) => r.id);
    assert.equal((await s0.api.put(`/sheets/${s.id}/rows`, ids.map((id) => ({ id, cells: [{ columnId: c('A'), value: 'x' }, { columnId: c('B'), value: 'y' }] })))).status, 200);
    assert.equal((await s0.api.put(`/sheets/${s.id}/rows`, { id: ids[0], cells: [{ columnId: c('A'), value: 'z' }] })).status, 200);
    assert.equal((await records(s.id)).length, 3);
    const del = await s0.api.del(`/sheets/${s.id}`);
    assert.equal(del.status, 200, del.text);
    assert.equal((await records(s.id)).length, 0);
    if (s0.t.config.databaseUrl) {
      // PostgreSQL: no foreign key cascades it (migration 0029); the deletion itself does
      const fks = await sql<{ n: number }>`select count(*)::int as n from pg_constraint where contype = 'f' and conrelid = 'cell_history'::regclass`.execute(db());
      assert.equal(fks.rows[0]!.n, 0);
    }
  });
});
