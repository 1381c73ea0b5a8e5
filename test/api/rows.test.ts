import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { serverForFile } from '../helpers/setup.ts';
import { allEvents, client } from '../helpers/http.ts';
import { assertError, cellOf, makeSheet, makeUser } from '../helpers/sheets.ts';
import { spawnServer } from '../helpers/process.ts';
import { notInCluster } from '../helpers/server.ts';

const s0 = serverForFile();

const COLUMNS = [
  { title: 'Task', type: 'TEXT_NUMBER', primary: true },
  { title: 'Done', type: 'CHECKBOX' },
  { title: 'Due', type: 'DATE' },
  { title: 'Status', type: 'PICKLIST', options: ['Open', 'Closed'] },
];

async function sheetState(id: number) {
  const res = await s0.api.get(`/sheets/${id}`);
  assert.equal(res.status, 200);
  return res.body as { version: number; totalRowCount: number; rows: Array<{ id: number; rowNumber: number; parentId?: number; siblingId?: number; cells: Array<{ columnId: number; value?: unknown }> }> };
}

function names(s: Awaited<ReturnType<typeof sheetState>>, taskCol: number) {
  return s.rows.map((r) => cellOf(r, taskCol).value);
}

describe('add rows', () => {
  test('500 rows added and then updated in one request each keep every text exactly, in their order', async () => {
    // on PostgreSQL both go in one statement with one array per column: texts with the array
    // syntax's own characters must come back as written
    const s = await makeSheet(s0.api, 'bulk texts', COLUMNS);
    const task = s.col.Task!.id;
    const tricky = ['a "quoted" word', 'back\\slash \\" and \\\\', '{braces, commas}', 'NULL', 'null', '', ' ', 'é ü 漢字 🙂', "it's", 'tab\there', 'line\nbreak', '{"v":1}', '0.1', '-0', 'NaN'];
    const textOf = (i: number, round: string) => `${round}${i} ${tricky[i % tricky.length]}`;
    const since = new Date(Date.now() - 60_000).toISOString();
    const added = await s0.api.post(`/sheets/${s.id}/rows`, Array.from({ length: 500 }, (_, i) => ({ toBottom: true, cells: [{ columnId: task, value: textOf(i, 'a') }, { columnId: s.col.Done!.id, value: i % 2 === 0 }] })));
    assert.equal(added.status, 200, JSON.stringify(added.body).slice(0, 300));
    const ids = (added.body.result as Array<{ id: number }>).map((r) => r.id);
    // the change log has their events in the rows' order
    const made = new Set(ids);
    const created = (await allEvents<{ objectType: string; action: string; objectId: number }>(s0.api, since)).filter((e) => e.objectType === 'ROW' && e.action === 'CREATE' && made.has(e.objectId));
    assert.deepEqual(created.map((e) => e.objectId), ids);
    let state = await sheetState(s.id);
    assert.deepEqual(names(state, task), ids.map((_, i) => textOf(i, 'a')));
    const updated = await s0.api.put(`/sheets/${s.id}/rows`, ids.map((id, i) => ({ id, cells: [{ columnId: task, value: textOf(i, 'u') }] })));
    assert.equal(updated.status, 200, JSON.stringify(updated.body).slice(0, 300));
    state = await sheetState(s.id);
    assert.deepEqual(names(state, task), ids.map((_, i) => textOf(i, 'u')));
    assert.deepEqual(state.rows.map((r) => cellOf(r, s.col.Done!.id).value), ids.map((_, i) => i % 2 === 0));
    // moved in one request: the new order is stored
    const moved = await s0.api.put(`/sheets/${s.id}/rows`, ids.slice(0, 100).map((id) => ({ id, toBottom: true })));
    assert.equal(moved.status, 200, JSON.stringify(moved.body).slice(0, 300));
    state = await sheetState(s.id);
    assert.deepEqual(state.rows.map((r) => r.id), [...ids.slice(100), ...ids.slice(0, 100)]);
  });

  test('a single Row gives a single result, an array an array; version goes up by one per change', async () => {
    const s = await makeSheet(s0.api, 'add', COLUMNS);
    const one = await s0.api.post(`/sheets/${s.id}/rows`, { toBottom: true, cells: [{ columnId: s.col.Task!.id, value: 'first' }] });
    assert.equal(one.status, 200);
    assert.equal(one.body.message, 'SUCCESS');
    assert.equal(one.body.resultCode, 0);
    assert.equal(Array.isArray(one.body.result), false);
    assert.equal(one.body.result.rowNumber, 1);
    assert.equal(one.body.version, 2);
    const many = await s0.api.post(`/sheets/${s.id}/rows`, [
      { toBottom: true, cells: [{ columnId: s.col.Task!.id, value: 'second' }, { columnId: s.col.Done!.id, value: true }] },
      { toBottom: true, cells: [{ columnId: s.col.Task!.id, value: 3 }, { columnId: s.col.Due!.id, value: '2025-02-03' }] },
    ]);
    assert.equal(many.status, 200, JSON.stringify(many.body));
    assert.equal(many.body.version, 3);
    assert.deepEqual(many.body.result.map((r: { rowNumber: number }) => r.rowNumber), [2, 3]);
    const state = await sheetState(s.id);
    assert.equal(state.version, 3);
    assert.equal(state.totalRowCount, 3);
    assert.deepEqual(names(state, s.col.Task!.id), ['first', 'second', 3]);
    assert.equal(cellOf(state.rows[1]!, s.col.Done!.id).value, true);
    assert.equal(cellOf(state.rows[2]!, s.col.Due!.id).value, '2025-02-03');
    assert.equal(cellOf(state.rows[2]!, s.col.Task!.id).displayValue, '3');
  });

  test('location: toTop, parentId (first child), parentId+toBottom, siblingId, above', async () => {
    const s = await makeSheet(s0.api, 'loc', COLUMNS);
    const task = s.col.Task!.id;
    const add = async (loc: Record<string, unknown>, name: string) => {
      const r = await s0.api.post(`/sheets/${s.id}/rows`, { ...loc, cells: [{ columnId: task, value: name }] });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body.result.id as number;
    };
    const a = await add({ toBottom: true }, 'A');
    await add({ toTop: true }, 'top');
    await add({ parentId: a }, 'A.1');
    await add({ parentId: a, toBottom: true }, 'A.2');
    await add({ siblingId: a }, 'afterA');
    await add({ siblingId: a, above: true }, 'beforeA');
    const state = await sheetState(s.id);
    assert.deepEqual(names(state, task), ['top', 'beforeA', 'A', 'A.1', 'A.2', 'afterA']);
    assert.deepEqual(state.rows.map((r) => r.rowNumber), [1, 2, 3, 4, 5, 6]);
    assert.equal(state.rows[3]!.parentId, a);
    assert.equal(state.rows[4]!.parentId, a);
    assert.equal(state.rows[4]!.siblingId, state.rows[3]!.id);
  });

  test('rows of one request must share one location (1123); bad parent/sibling ids (1063/1064); bad combinations (1062)', async () => {
    const s = await makeSheet(s0.api, 'badloc', COLUMNS);
    const task = s.col.Task!.id;
    const before = (await sheetState(s.id)).version;
    assertError(await s0.api.post(`/sheets/${s.id}/rows`, [{ toTop: true, cells: [] }, { toBottom: true, cells: [] }]), 400, 1123);
    assertError(await s0.api.post(`/sheets/${s.id}/rows`, { parentId: 12345, cells: [{ columnId: task, value: 'x' }] }), 400, 1063);
    assertError(await s0.api.post(`/sheets/${s.id}/rows`, { siblingId: 12345, cells: [{ columnId: task, value: 'x' }] }), 400, 1064);
    assertError(await s0.api.post(`/sheets/${s.id}/rows`, { toTop: true, toBottom: true, cells: [] }), 400, 1062);
    const after = await sheetState(s.id);
    assert.equal(after.version, before);
    assert.equal(after.totalRowCount, 0);
  });

  test('a child of a row with no data is refused (1185)', async () => {
    const s = await makeSheet(s0.api, 'empty-parent', COLUMNS);
    const empty = await s0.api.post(`/sheets/${s.id}/rows`, { cells: [] });
    assert.equal(empty.status, 200);
    assertError(await s0.api.post(`/sheets/${s.id}/rows`, { parentId: empty.body.result.id, cells: [{ columnId: s.col.Task!.id, value: 'kid' }] }), 400, 1185);
  });

  test('bad cells make the whole request fail and change nothing (atomic by default)', async () => {
    const s = await makeSheet(s0.api, 'atomic', COLUMNS);
    const task = s.col.Task!.id;
    const res = await s0.api.post(`/sheets/${s.id}/rows`, [
      { cells: [{ columnId: task, value: 'good' }] },
      { cells: [{ columnId: 999, value: 'bad column' }] },
    ]);
    assertError(res, 400, 1036);
    assertError(await s0.api.post(`/sheets/${s.id}/rows`, { cells: [{ columnId: task, value: 'a' }, { columnId: task, value: 'b' }] }), 400, 1037);
    assertError(await s0.api.post(`/sheets/${s.id}/rows`, { cells: [{ columnId: task, value: { no: 1 } }] }), 400, 1038);
    assertError(await s0.api.post(`/sheets/${s.id}/rows`, { cells: [{ columnId: s.col.Done!.id, value: 'maybe' }] }), 400, 1042);
    const state = await sheetState(s.id);
    assert.equal(state.totalRowCount, 0);
    assert.equal(state.version, 1);
  });

  test('allowPartialSuccess applies valid rows and lists each failure with its index (resultCode 3)', async () => {
    const s = await makeSheet(s0.api, 'partial', COLUMNS);
    const task = s.col.Task!.id;
    const res = await s0.api.post(`/sheets/${s.id}/rows?allowPartialSuccess=true`, [
      { cells: [{ columnId: task, value: 'ok1' }] },
      { cells: [{ columnId: 42, value: 'bad' }] },
      { cells: [{ columnId: task, value: 'ok2' }] },
    ]);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.message, 'PARTIAL_SUCCESS');
    assert.equal(res.body.resultCode, 3);
    assert.equal(res.body.result.length, 2);
    assert.equal(res.body.failedItems.length, 1);
    assert.equal(res.body.failedItems[0].index, 1);
    assert.equal(res.body.failedItems[0].error.errorCode, 1036);
    assert.deepEqual(names(await sheetState(s.id), task), ['ok1', 'ok2']);
  });

  test('more than 500 rows in one request is refused', async () => {
    const s = await makeSheet(s0.api, 'limit', COLUMNS);
    const rows = Array.from({ length: 501 }, (_, i) => ({ cells: [{ columnId: s.col.Task!.id, value: i }] }));
    assertError(await s0.api.post(`/sheets/${s.id}/rows`, rows), 400, 1061);
    const ok = await s0.api.post(`/sheets/${s.id}/rows`, rows.slice(0, 500));
    assert.equal(ok.status, 200);
    assert.equal((await sheetState(s.id)).totalRowCount, 500);
  });

  test('values over 4,000 characters are silently truncated', async () => {
    const s = await makeSheet(s0.api, 'trunc', COLUMNS);
    const res = await s0.api.post(`/sheets/${s.id}/rows`, { cells: [{ columnId: s.col.Task!.id, value: 'x'.repeat(4500) }] });
    assert.equal(res.status, 200);
    const row = (await sheetState(s.id)).rows[0]!;
    assert.equal((cellOf(row, s.col.Task!.id).value as string).length, 4000);
  });

  test('rows of one request written in different columns and orders keep each value in its own column', async () => {
    const s = await makeSheet(s0.api, 'shapes', COLUMNS);
    const { Task, Done, Due, Status } = { Task: s.col.Task!.id, Done: s.col.Done!.id, Due: s.col.Due!.id, Status: s.col.Status!.id };
    // seven shapes (columns, their order, blanks) taking turns over 140 rows: each comes often
    // enough for the server to build its rows from a literal made for its columns (cellsObject)
    const day = (i: number) => `2025-01-${String(1 + (i % 28)).padStart(2, '0')}`;
    const shapes: Array<(i: number) => Array<[number, unknown]>> = [
      (i) => [[Task, `a${i}`], [Done, true], [Due, day(i)], [Status, 'Open']],
      (i) => [[Status, 'Closed'], [Task, `b${i}`]],
      (i) => [[Task, `c${i}`], [Done, i % 2 === 0], [Due, day(i)], [Status, 'Open']],
      () => [[Done, false], [Task, '']],
      (i) => [[Due, day(i)], [Task, i], [Status, 'Closed'], [Done, true]],
      (i) => [[Task, `f${i}`], [Done, true], [Due, day(i + 1)], [Status, 'Open']],
      () => [],
    ];
    const written = Array.from({ length: 140 }, (_, i) => shapes[i % shapes.length]!(i));
    const res = await s0.api.post(`/sheets/${s.id}/rows`, written.map((cells) => ({ toBottom: true, cells: cells.map(([columnId, value]) => ({ columnId, value })) })));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const expect = (cells: Array<[number, unknown]>) => Object.fromEntries([Task, Done, Due, Status].map((c) => {
      const v = cells.find(([id]) => id === c)?.[1];
      return [c, v === '' ? undefined : v];
    }));
    const valuesOf = (row: { cells: Array<{ columnId: number; value?: unknown }> }) => Object.fromEntries(row.cells.map((c) => [c.columnId, c.value]));
    assert.deepEqual(res.body.result.map(valuesOf), written.map(expect));
    assert.deepEqual((await sheetState(s.id)).rows.map(valuesOf), written.map(expect));
    // the rows take later writes to other columns
    const ids = res.body.result.map((r: { id: number }) => r.id) as number[];
    const upd = await s0.api.put(`/sheets/${s.id}/rows`, [{ id: ids[1], cells: [{ columnId: Due, value: '2025-02-01' }] }, { id: ids[6], cells: [{ columnId: Task, value: 'g' }] }]);
    assert.equal(upd.status, 200, JSON.stringify(upd.body));
    written[1]!.push([Due, '2025-02-01']);
    written[6]!.push([Task, 'g']);
    assert.deepEqual((await sheetState(s.id)).rows.map(valuesOf), written.map(expect));
  });
});

describe('update, delete and read rows', () => {
  test('update cells and move rows; unknown row ids are refused; partial success reports rowId', async () => {
    const s = await makeSheet(s0.api, 'upd', COLUMNS);
    const task = s.col.Task!.id;
    const added = await s0.api.post(`/sheets/${s.id}/rows`, ['a', 'b', 'c'].map((v) => ({ toBottom: true, cells: [{ columnId: task, value: v }] })));
    const [a, b, c] = added.body.result.map((r: { id: number }) => r.id) as number[];
    const upd = await s0.api.put(`/sheets/${s.id}/rows`, [{ id: b, cells: [{ columnId: task, value: 'B' }, { columnId: s.col.Status!.id, value: 'Open' }] }]);
    assert.equal(upd.status, 200, JSON.stringify(upd.body));
    assert.equal(cellOf(upd.body.result[0], task).value, 'B');
    const move = await s0.api.put(`/sheets/${s.id}/rows`, { id: c, toTop: true });
    assert.equal(move.status, 200, JSON.stringify(move.body));
    assert.deepEqual(names(await sheetState(s.id), task), ['c', 'a', 'B']);
    const indent = await s0.api.put(`/sheets/${s.id}/rows`, { id: b, parentId: a });
    assert.equal(indent.status, 200, JSON.stringify(indent.body));
    const st = await sheetState(s.id);
    assert.equal(st.rows[2]!.parentId, a);
    const before = st.version;
    assertError(await s0.api.put(`/sheets/${s.id}/rows`, [{ id: a, cells: [{ columnId: task, value: 'nope' }] }, { id: 777, cells: [] }]), 404, 1006);
    assertError(await s0.api.put(`/sheets/${s.id}/rows`, [{ cells: [{ columnId: task, value: 'no id' }] }]), 400, 1012);
    const after = await sheetState(s.id);
    assert.equal(after.version, before);
    assert.deepEqual(names(after, task), ['c', 'a', 'B']);
    const partial = await s0.api.put(`/sheets/${s.id}/rows?allowPartialSuccess=true`, [{ id: a, cells: [{ columnId: task, value: 'A' }] }, { id: c, cells: [{ columnId: s.col.Done!.id, value: 'not a bool' }] }]);
    assert.equal(partial.body.resultCode, 3);
    assert.equal(partial.body.failedItems[0].rowId, c);
    assert.equal(partial.body.failedItems[0].index, 1);
    assert.deepEqual(names(await sheetState(s.id), task), ['c', 'A', 'B']);
  });

  test('delete rows by ids: children go with their parent; ignoreRowsNotFound', async () => {
    const s = await makeSheet(s0.api, 'del', COLUMNS);
    const task = s.col.Task!.id;
    const p = (await s0.api.post(`/sheets/${s.id}/rows`, { cells: [{ columnId: task, value: 'parent' }] })).body.result.id;
    const kid = (await s0.api.post(`/sheets/${s.id}/rows`, { parentId: p, cells: [{ columnId: task, value: 'kid' }] })).body.result.id;
    const other = (await s0.api.post(`/sheets/${s.id}/rows`, { toBottom: true, cells: [{ columnId: task, value: 'other' }] })).body.result.id;
    assertError(await s0.api.del(`/sheets/${s.id}/rows?ids=${p},123`), 404, 1006);
    assert.equal((await sheetState(s.id)).totalRowCount, 3);
    const res = await s0.api.del(`/sheets/${s.id}/rows?ids=${p},123&ignoreRowsNotFound=true`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual([...res.body.result].sort(), [p, kid].sort());
    const st = await sheetState(s.id);
    assert.deepEqual(st.rows.map((r) => r.id), [other]);
    assert.equal(st.rows[0]!.rowNumber, 1);
    assertError(await s0.api.del(`/sheets/${s.id}/rows`), 400, 1009);
  });

  test('Delete Row (DELETE /sheets/{id}/rows/{rowId}, the Java SDK\'s deprecated deleteRow) deletes as Delete Rows with ids=rowId; the Result has no result', async () => {
    const s = await makeSheet(s0.api, 'del one', COLUMNS);
    const task = s.col.Task!.id;
    const p = (await s0.api.post(`/sheets/${s.id}/rows`, { cells: [{ columnId: task, value: 'parent' }] })).body.result.id;
    await s0.api.post(`/sheets/${s.id}/rows`, { parentId: p, cells: [{ columnId: task, value: 'kid' }] });
    const other = (await s0.api.post(`/sheets/${s.id}/rows`, { toBottom: true, cells: [{ columnId: task, value: 'other' }] })).body.result.id;
    const before = await sheetState(s.id);
    // a row not in the sheet, an id that is not one, a reader: refused, nothing deleted
    assertError(await s0.api.del(`/sheets/${s.id}/rows/4503599627370495`), 404, 1006);
    assertError(await s0.api.del(`/sheets/${s.id}/rows/x1`), 404, 1006);
    const reader = await makeUser(s0.t, s0.api, 'delete-row.reader@example.com');
    assert.equal((await s0.api.post(`/sheets/${s.id}/shares`, { email: 'delete-row.reader@example.com', accessLevel: 'VIEWER' })).status, 200);
    assertError(await s0.api.del(`/sheets/${s.id}/rows/${p}`, { token: reader.token }), 403, 1004);
    assert.equal((await sheetState(s.id)).version, before.version);
    // the parent and its child go; the answer is the Result that method reads (result would be one Row)
    const res = await s0.api.del(`/sheets/${s.id}/rows/${p}`);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { message: 'SUCCESS', resultCode: 0, version: before.version + 1 });
    const st = await sheetState(s.id);
    assert.deepEqual(st.rows.map((r) => r.id), [other]);
    assert.equal(st.version, before.version + 1);
    assertError(await s0.api.del(`/sheets/${s.id}/rows/${p}`), 404, 1006);
  });

  test('get row with includes; rowIds and rowNumbers select rows of Get Sheet; paging over rows', async () => {
    const s = await makeSheet(s0.api, 'read', COLUMNS);
    const task = s.col.Task!.id;
    const res = await s0.api.post(`/sheets/${s.id}/rows`, Array.from({ length: 5 }, (_, i) => ({ toBottom: true, cells: [{ columnId: task, value: `r${i + 1}` }] })));
    const ids = res.body.result.map((r: { id: number }) => r.id) as number[];
    const row = await s0.api.get(`/sheets/${s.id}/rows/${ids[2]}?include=columns,writerInfo,rowPermalink`);
    assert.equal(row.status, 200);
    assert.equal(row.body.rowNumber, 3);
    assert.equal(row.body.columns.length, 4);
    assert.equal(row.body.createdBy.email, s0.t.config.adminEmail);
    assert.match(row.body.permalink, /^http/);
    assertError(await s0.api.get(`/sheets/${s.id}/rows/999`), 404, 1006);
    const byIds = await s0.api.get(`/sheets/${s.id}?rowIds=${ids[4]},${ids[0]}`);
    assert.deepEqual(byIds.body.rows.map((r: { id: number }) => r.id), [ids[0], ids[4]]);
    assert.equal(byIds.body.totalRowCount, 5);
    const byNumbers = await s0.api.get(`/sheets/${s.id}?rowNumbers=2,4`);
    assert.deepEqual(byNumbers.body.rows.map((r: { rowNumber: number }) => r.rowNumber), [2, 4]);
    const paged = await s0.api.get(`/sheets/${s.id}?pageSize=2&page=2`);
    assert.deepEqual(paged.body.rows.map((r: { rowNumber: number }) => r.rowNumber), [3, 4]);
    const cols = await s0.api.get(`/sheets/${s.id}?columnIds=${task}`);
    assert.equal(cols.body.columns.length, 1);
    assert.equal(cols.body.rows[0].cells.length, 1);
    const newer = await s0.api.get(`/sheets/${s.id}?ifVersionAfter=${byIds.body.version}`);
    assert.deepEqual(Object.keys(newer.body).sort(), ['id', 'version']);
    // rowsModifiedSince: the rows changed at or after the instant (ISO, or epoch ms with numericDates)
    const since = Date.now() + 1;
    while (Date.now() <= since) await new Promise((r) => setTimeout(r, 2));
    assert.equal((await s0.api.put(`/sheets/${s.id}/rows`, { id: ids[3], cells: [{ columnId: task, value: 'changed' }] })).status, 200);
    const iso = new Date(since).toISOString();
    const changed = await s0.api.get(`/sheets/${s.id}?rowsModifiedSince=${encodeURIComponent(iso)}`);
    assert.deepEqual(changed.body.rows.map((r: { id: number }) => r.id), [ids[3]]);
    const numeric = await s0.api.get(`/sheets/${s.id}?numericDates=true&rowsModifiedSince=${since}`);
    assert.deepEqual(numeric.body.rows.map((r: { id: number }) => r.id), [ids[3]]);
    assert.equal((await s0.api.get(`/sheets/${s.id}?rowsModifiedSince=2000-01-01`)).body.rows.length, 5);
    assertError(await s0.api.get(`/sheets/${s.id}?rowsModifiedSince=yesterday`), 400, 1018);
  });

  test('numericDates writes and reads epoch milliseconds', async () => {
    const s = await makeSheet(s0.api, 'nd', COLUMNS);
    const ms = Date.UTC(2024, 5, 30);
    const res = await s0.api.post(`/sheets/${s.id}/rows?numericDates=true`, { cells: [{ columnId: s.col.Task!.id, value: 'x' }, { columnId: s.col.Due!.id, value: ms }] });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const iso = await s0.api.get(`/sheets/${s.id}`);
    assert.equal(cellOf(iso.body.rows[0], s.col.Due!.id).value, '2024-06-30');
    assert.match(iso.body.rows[0].createdAt, /Z$/);
    const num = await s0.api.get(`/sheets/${s.id}?numericDates=true`);
    assert.equal(cellOf(num.body.rows[0], s.col.Due!.id).value, ms);
    assert.equal(typeof num.body.rows[0].createdAt, 'number');
    assert.equal(typeof num.body.createdAt, 'number');
  });

  test('sort keeps the hierarchy; bad criteria are refused', async () => {
    const s = await makeSheet(s0.api, 'sort', COLUMNS);
    const task = s.col.Task!.id;
    await s0.api.post(`/sheets/${s.id}/rows`, ['b', 'c', 'a'].map((v) => ({ toBottom: true, cells: [{ columnId: task, value: v }] })));
    const res = await s0.api.post(`/sheets/${s.id}/sort`, { sortCriteria: [{ columnId: task, direction: 'DESCENDING' }] });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body.rows.map((r: { cells: Array<{ columnId: number }> }) => cellOf(r, task).value), ['c', 'b', 'a']);
    assert.deepEqual(names(await sheetState(s.id), task), ['c', 'b', 'a']);
    // the answer: the sheet's id, name, version and row count, its rows as Get Sheet presents them
    for (const q of ['', '?include=format,objectValue,writerInfo,rowPermalink&numericDates=true']) {
      const again = await s0.api.post(`/sheets/${s.id}/sort${q}`, { sortCriteria: [{ columnId: task, direction: 'ASCENDING' }] });
      assert.equal(again.status, 200, JSON.stringify(again.body));
      const sheet = await s0.api.get(`/sheets/${s.id}${q}`);
      assert.deepEqual(Object.keys(again.body), ['id', 'name', 'version', 'totalRowCount', 'rows']);
      assert.deepEqual([again.body.id, again.body.name, again.body.version, again.body.totalRowCount], [s.id, sheet.body.name, sheet.body.version, 3]);
      assert.deepEqual(again.body.rows, sheet.body.rows);
    }
    assertError(await s0.api.post(`/sheets/${s.id}/sort`, { sortCriteria: [{ columnId: 1 }] }), 400, 1036);
    assertError(await s0.api.post(`/sheets/${s.id}/sort`, { sortCriteria: [] }), 400, 1012);
  });

  test('an unknown sheet is 404/1006 for every operation', async () => {
    assertError(await s0.api.get('/sheets/123456789'), 404, 1006);
    assertError(await s0.api.post('/sheets/123456789/rows', { cells: [] }), 404, 1006);
    assertError(await s0.api.get('/sheets/notanumber'), 404, 1006);
  });
});

describe('stored order', () => {
  test('a second sheetd process on the same database sees the same rows in the same order after every kind of change', { skip: notInCluster('starts a process of its own (test/cluster reads across processes)') }, async () => {
    const second = await spawnServer({ SHEETD_DATA_DIR: s0.t.dataDir, ...(s0.t.config.databaseUrl ? { DATABASE_URL: s0.t.config.databaseUrl } : {}) });
    try {
      const api2 = client(second.base, s0.t.adminToken);
      const s = await makeSheet(s0.api, 'order', COLUMNS);
      const task = s.col.Task!.id;
      const add = async (loc: Record<string, unknown>, names: string[]) => {
        const r = await s0.api.post(`/sheets/${s.id}/rows`, names.map((n) => ({ ...loc, cells: [{ columnId: task, value: n }] })));
        assert.equal(r.status, 200, JSON.stringify(r.body));
        return r.body.result.map((x: { id: number }) => x.id) as number[];
      };
      const compare = async () => {
        const a = await s0.api.get(`/sheets/${s.id}`);
        const b = await api2.get(`/sheets/${s.id}`);
        assert.equal(b.body.version, a.body.version);
        const shape = (body: { rows: Array<{ id: number; rowNumber: number; parentId?: number; siblingId?: number; cells: Array<{ columnId: number; value?: unknown }> }> }) =>
          body.rows.map((r) => [r.id, r.rowNumber, r.parentId ?? null, r.siblingId ?? null, cellOf(r, task).value]);
        assert.deepEqual(shape(b.body), shape(a.body));
        return shape(a.body);
      };
      const [a, b] = await add({ toBottom: true }, ['a', 'b']);
      await add({ toTop: true }, ['t1', 't2']);
      await compare();
      await add({ siblingId: a, above: true }, ['x1', 'x2', 'x3']);
      await add({ parentId: b }, ['b.1', 'b.2']);
      await add({ parentId: b, toBottom: true }, ['b.3']);
      await add({ siblingId: a }, ['after-a']);
      let rows = await compare();
      assert.deepEqual(rows.map((r) => r[4]), ['t1', 't2', 'x1', 'x2', 'x3', 'a', 'after-a', 'b', 'b.1', 'b.2', 'b.3']);
      assert.equal((await s0.api.put(`/sheets/${s.id}/rows`, { id: b, toTop: true })).status, 200);
      rows = await compare();
      assert.deepEqual(rows.map((r) => r[4]), ['b', 'b.1', 'b.2', 'b.3', 't1', 't2', 'x1', 'x2', 'x3', 'a', 'after-a']);
      assert.equal((await s0.api.post(`/sheets/${s.id}/sort`, { sortCriteria: [{ columnId: task, direction: 'ASCENDING' }] })).status, 200);
      await compare();
      assert.equal((await s0.api.del(`/sheets/${s.id}/rows?ids=${a}`)).status, 200);
      await add({ toTop: true }, ['new-top']);
      rows = await compare();
      assert.equal(rows.length, 11);
    } finally {
      await second.close();
    }
  });
});
