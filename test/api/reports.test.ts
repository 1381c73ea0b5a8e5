import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { serverForFile } from '../helpers/setup.ts';
import { client, createdSince, listedIds, type Client } from '../helpers/http.ts';
import { assertError, makeSheet, makeUser } from '../helpers/sheets.ts';
import { tokenFor } from '../helpers/tokens.ts';

// Reports: definitions through the sheetd extension (/sheetd/reports) and Get Report with its
// rows read live from the source sheets the caller can see.
const s = serverForFile();

const columns = [
  { title: 'Task', type: 'TEXT_NUMBER', primary: true },
  { title: 'Status', type: 'PICKLIST', options: ['Open', 'Done'] },
  { title: 'Points', type: 'TEXT_NUMBER' },
];

async function sheetWithRows(api: Client, name: string, rows: Array<[string, string, number]>) {
  const sh = await makeSheet(api, name, columns);
  if (rows.length === 0) return { ...sh, rowIds: [] as number[] };
  const res = await api.post(`/sheets/${sh.id}/rows`, rows.map(([task, status, points]) => ({
    toBottom: true,
    cells: [{ columnId: sh.col.Task!.id, value: task }, { columnId: sh.col.Status!.id, value: status }, { columnId: sh.col.Points!.id, value: points }],
  })));
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return { ...sh, rowIds: (res.body.result as Array<{ id: number }>).map((r) => r.id) };
}

const reportColumns = [{ sheetNameColumn: true }, { title: 'Task', primary: true }, { title: 'status', type: 'PICKLIST' }, { title: 'Points', type: 'TEXT_NUMBER' }];

type ReportRow = { id: number; sheetId: number; cells: Array<{ columnId?: number; virtualColumnId: number; value?: unknown; displayValue?: string }> };

/** The value of the report row's cell in the report column titled `title`. */
function valueIn(report: { columns: Array<{ virtualId: number; title: string }> }, row: ReportRow, title: string): unknown {
  const col = report.columns.find((c) => c.title === title)!;
  return row.cells.find((c) => c.virtualColumnId === col.virtualId)?.value;
}

describe('report definitions', () => {
  test('create, get, update and delete a definition; virtual ids stay with their columns', async () => {
    const a = await sheetWithRows(s.api, 'Def A', [['a1', 'Open', 1]]);
    const created = await s.api.post('/sheetd/reports', { name: 'Def report', scope: { sheets: [{ id: a.id }] }, columns: reportColumns });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const def = created.body.result;
    assert.equal(def.name, 'Def report');
    assert.equal(def.accessLevel, 'OWNER');
    assert.deepEqual(def.scope, { sheets: [{ id: a.id }], workspaces: [] });
    assert.deepEqual(def.location, { destinationType: 'home', destinationId: null });
    assert.deepEqual(def.columns.map((c: { title: string; type: string }) => [c.title, c.type]), [['Sheet Name', 'TEXT_NUMBER'], ['Task', 'TEXT_NUMBER'], ['status', 'PICKLIST'], ['Points', 'TEXT_NUMBER']]);
    const got = await s.api.get(`/sheetd/reports/${def.id}`);
    assert.deepEqual(got.body, def);
    const upd = await s.api.put(`/sheetd/reports/${def.id}`, { name: 'Def report 2', columns: [{ title: 'Points', type: 'TEXT_NUMBER' }, { title: 'Task', primary: true }], sortingCriteria: [{ column: { title: 'Points', type: 'TEXT_NUMBER' }, sortingDirection: 'DESCENDING' }] });
    assert.equal(upd.status, 200, JSON.stringify(upd.body));
    const points = def.columns.find((c: { title: string }) => c.title === 'Points').virtualId;
    const task = def.columns.find((c: { title: string }) => c.title === 'Task').virtualId;
    assert.deepEqual(upd.body.result.columns.map((c: { virtualId: number }) => c.virtualId), [points, task]);
    assert.equal(upd.body.result.name, 'Def report 2');
    assert.deepEqual(upd.body.result.sortingCriteria, [{ column: { title: 'Points', type: 'TEXT_NUMBER' }, sortingDirection: 'DESCENDING' }]);
    assert.equal((await s.api.del(`/sheetd/reports/${def.id}`)).status, 200);
    assertError(await s.api.get(`/sheetd/reports/${def.id}`), 404, 1006);
    assertError(await s.api.get(`/reports/${def.id}`), 404, 1006);
  });

  test('bad definitions are refused with the catalogued error and create nothing', async () => {
    const a = await sheetWithRows(s.api, 'Bad A', []);
    const before = await listedIds(s.api, '/reports');
    assertError(await s.api.post('/sheetd/reports', { scope: { sheets: [a.id] }, columns: reportColumns }), 400, 1012);
    assertError(await s.api.post('/sheetd/reports', { name: 'x', scope: { sheets: [a.id] } }), 400, 1012);
    assertError(await s.api.post('/sheetd/reports', { name: 'x', columns: [{ title: 'A', type: 'NOPE' }] }), 400, 1031);
    assertError(await s.api.post('/sheetd/reports', { name: 'x', columns: [{ type: 'TEXT_NUMBER' }] }), 400, 1012);
    assertError(await s.api.post('/sheetd/reports', { name: 'x', columns: [{ title: 'A' }, { title: 'a' }] }), 400, 1031);
    assertError(await s.api.post('/sheetd/reports', { name: 'x', columns: [{ title: 'A' }], filters: { operator: 'AND', criteria: [{ column: { title: 'A' }, operator: 'FROBS' }] } }), 400, 1031);
    assertError(await s.api.post('/sheetd/reports', { name: 'x', columns: [{ title: 'A' }], filters: { operator: 'AND', criteria: [] } }), 400, 1183);
    assertError(await s.api.post('/sheetd/reports', { name: 'x', columns: [{ title: 'A' }], sortingCriteria: [{ column: { title: 'A' }, sortingDirection: 'UP' }] }), 400, 1031);
    assertError(await s.api.post('/sheetd/reports', { name: 'x', columns: [{ title: 'A' }], scope: { sheets: [{ id: 123456789 }] } }), 404, 1006);
    assertError(await s.api.post('/sheetd/reports', { name: 'x', columns: [{ title: 'A' }], destinationType: 'folder' }), 400, 1012);
    assert.deepEqual(await createdSince(s.api, '/reports', before, ['x']), []);
  });
});

describe('Get Report', () => {
  test('rows come live from the source sheets, each with its sheetId, matched by title and type', async () => {
    const a = await sheetWithRows(s.api, 'Live A', [['a1', 'Open', 3], ['a2', 'Done', 5]]);
    // a sheet whose Status is text: not the report's PICKLIST Status
    const b = await makeSheet(s.api, 'Live B', [{ title: 'Task', type: 'TEXT_NUMBER', primary: true }, { title: 'Status', type: 'TEXT_NUMBER' }]);
    await s.api.post(`/sheets/${b.id}/rows`, [{ cells: [{ columnId: b.col.Task!.id, value: 'b1' }, { columnId: b.col.Status!.id, value: 'Open' }] }]);
    const def = (await s.api.post('/sheetd/reports', { name: 'Live', scope: { sheets: [{ id: a.id }, { id: b.id }] }, columns: reportColumns })).body.result;
    const r = (await s.api.get(`/reports/${def.id}`)).body;
    assert.equal(r.id, def.id);
    assert.equal(r.totalRowCount, 3);
    assert.deepEqual(r.columns.map((c: { virtualId: number; index: number }) => [c.virtualId, c.index]), def.columns.map((c: { virtualId: number }, i: number) => [c.virtualId, i]));
    assert.equal(r.columns[0].sheetNameColumn, true);
    const rows = r.rows as ReportRow[];
    assert.deepEqual(rows.map((x) => [x.sheetId, valueIn(r, x, 'Sheet Name'), valueIn(r, x, 'Task'), valueIn(r, x, 'status')]), [
      [a.id, 'Live A', 'a1', 'Open'], [a.id, 'Live A', 'a2', 'Done'], [b.id, 'Live B', 'b1', undefined],
    ]);
    assert.deepEqual(rows.slice(0, 2).map((x) => x.id), a.rowIds);
    // the report's cell names the source column and the report column
    const statusVid = r.columns.find((c: { title: string }) => c.title === 'status').virtualId;
    assert.equal(rows[0]!.cells.find((c) => c.virtualColumnId === statusVid)!.columnId, a.col.Status!.id);
    // a change to a source shows at once
    await s.api.put(`/sheets/${a.id}/rows`, [{ id: a.rowIds[0], cells: [{ columnId: a.col.Task!.id, value: 'a1 changed' }] }]);
    const again = (await s.api.get(`/reports/${def.id}`)).body;
    assert.equal(valueIn(again, again.rows[0], 'Task'), 'a1 changed');
  });

  test('filters (nested) and sorting criteria', async () => {
    const a = await sheetWithRows(s.api, 'Filt A', [['x1', 'Open', 3], ['x2', 'Done', 5], ['x3', 'Open', 9]]);
    const b = await sheetWithRows(s.api, 'Filt B', [['y1', 'Open', 4], ['y2', 'Done', 1]]);
    const def = (await s.api.post('/sheetd/reports', {
      name: 'Filtered', scope: { sheets: [{ id: a.id }, { id: b.id }] }, columns: reportColumns,
      filters: { operator: 'OR', criteria: [{ column: { title: 'Status', type: 'PICKLIST' }, operator: 'EQUAL', values: ['Open'] }], nestedCriteria: [{ operator: 'AND', criteria: [{ column: { sheetNameColumn: true }, operator: 'EQUAL', values: ['Filt B'] }, { column: { title: 'Points' }, operator: 'LESS_THAN', values: [2] }] }] },
      sortingCriteria: [{ column: { title: 'Points', type: 'TEXT_NUMBER' }, sortingDirection: 'DESCENDING' }],
    })).body.result;
    const r = (await s.api.get(`/reports/${def.id}`)).body;
    assert.deepEqual(r.rows.map((x: ReportRow) => valueIn(r, x, 'Task')), ['x3', 'y1', 'x1', 'y2']);
    assert.equal(r.totalRowCount, 4);
  });

  test('a system column named by its type alone is each sheet\'s column of that type, whatever its title', async () => {
    const sh = await sheetWithRows(s.api, 'sys source', [['sys a', 'Open', 1]]);
    const other = await sheetWithRows(s.api, 'sys other', [['sys b', 'Done', 2]]);
    for (const [id, title] of [[sh.id, 'Modified'], [other.id, 'Last change']] as const) {
      const col = await s.api.post(`/sheets/${id}/columns`, [{ title, type: 'DATETIME', systemColumnType: 'MODIFIED_DATE', index: 3 }]);
      assert.equal(col.status, 200, JSON.stringify(col.body));
    }
    const created = await s.api.post('/sheetd/reports', { name: 'sys report', scope: { sheets: [{ id: sh.id }, { id: other.id }] }, columns: [{ title: 'Task', primary: true }, { systemColumnType: 'MODIFIED_DATE' }] });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const r = (await s.api.get(`/reports/${created.body.result.id}`)).body;
    const col = r.columns.find((c: { systemColumnType?: string }) => c.systemColumnType === 'MODIFIED_DATE');
    assert.ok(col, JSON.stringify(r.columns));
    assert.equal(r.rows.length, 2);
    for (const row of r.rows as ReportRow[]) {
      const v = row.cells.find((c) => c.virtualColumnId === col.virtualId)?.value;
      assert.match(String(v), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/, JSON.stringify(row));
    }
    // a title given with the type still picks that column
    const titled = await s.api.post('/sheetd/reports', { name: 'sys titled', scope: { sheets: [{ id: sh.id }] }, columns: [{ title: 'Task', primary: true }, { systemColumnType: 'MODIFIED_DATE', title: 'modified' }] });
    assert.equal(titled.status, 200, JSON.stringify(titled.body));
    const t = (await s.api.get(`/reports/${titled.body.result.id}`)).body;
    const tcol = t.columns.find((c: { systemColumnType?: string }) => c.systemColumnType === 'MODIFIED_DATE');
    assert.match(String((t.rows[0] as ReportRow).cells.find((c) => c.virtualColumnId === tcol.virtualId)?.value), /^\d{4}-/);
  });

  test('paging: default 100 rows, pageSize at most 10,000', async () => {
    const sh = await makeSheet(s.api, 'Many', columns);
    const rows = Array.from({ length: 130 }, (_, i) => ({ toBottom: true, cells: [{ columnId: sh.col.Task!.id, value: `r${i}` }] }));
    assert.equal((await s.api.post(`/sheets/${sh.id}/rows`, rows)).status, 200);
    const def = (await s.api.post('/sheetd/reports', { name: 'Many', scope: { sheets: [{ id: sh.id }] }, columns: [{ title: 'Task', primary: true }] })).body.result;
    const first = (await s.api.get(`/reports/${def.id}`)).body;
    assert.equal(first.totalRowCount, 130);
    assert.equal(first.rows.length, 100);
    const second = (await s.api.get(`/reports/${def.id}?page=2`)).body;
    assert.deepEqual(second.rows.map((x: ReportRow) => x.cells[0]!.value), Array.from({ length: 30 }, (_, i) => `r${100 + i}`));
    assert.equal((await s.api.get(`/reports/${def.id}?pageSize=10000`)).body.rows.length, 130);
    assertError(await s.api.get(`/reports/${def.id}?pageSize=10001`), 400, 1229);
    assertError(await s.api.get(`/reports/${def.id}?page=0`), 400, 1018);
  });

  test('only rows of sheets the caller can see; the report itself needs a share', async () => {
    const a = await sheetWithRows(s.api, 'Vis A', [['va', 'Open', 1]]);
    const b = await sheetWithRows(s.api, 'Vis B', [['vb', 'Open', 2]]);
    const def = (await s.api.post('/sheetd/reports', { name: 'Visible', scope: { sheets: [{ id: a.id }, { id: b.id }] }, columns: reportColumns })).body.result;
    const u = await makeUser(s.t, s.api, 'report-viewer@example.org');
    const api = client(s.t.base, u.token);
    assertError(await api.get(`/reports/${def.id}`), 404, 1006);
    assert.equal((await s.api.post(`/reports/${def.id}/shares`, { email: 'report-viewer@example.org', accessLevel: 'VIEWER' })).status, 200);
    assert.equal((await api.get(`/reports/${def.id}`)).body.totalRowCount, 0);
    await s.api.post(`/sheets/${b.id}/shares`, { email: 'report-viewer@example.org', accessLevel: 'EDITOR' });
    const r = (await api.get(`/reports/${def.id}?include=scope`)).body;
    assert.equal(r.accessLevel, 'VIEWER');
    assert.deepEqual(r.rows.map((x: ReportRow & { accessLevel: string }) => [x.sheetId, x.accessLevel]), [[b.id, 'EDITOR']]);
    assert.deepEqual(r.scope.sheets.map((x: { id: number }) => x.id), [b.id]);
    // the viewer may not change the definition
    assertError(await api.put(`/sheetd/reports/${def.id}`, { name: 'mine' }), 403, 1004);
    assertError(await api.del(`/sheetd/reports/${def.id}`), 403, 1004);
    assert.ok((await api.get('/reports')).body.data.some((x: { id: number }) => x.id === def.id));
  });

  test('workspace sources take every sheet of the workspace', async () => {
    const ws = (await s.api.post('/workspaces', { name: 'Rep WS' })).body.result;
    const f = (await s.api.post(`/workspaces/${ws.id}/folders`, { name: 'F' })).body.result;
    const top = (await s.api.post(`/workspaces/${ws.id}/sheets`, { name: 'WS top', columns })).body.result;
    const deep = (await s.api.post(`/folders/${f.id}/sheets`, { name: 'WS deep', columns })).body.result;
    for (const id of [top.id, deep.id]) {
      const colId = (await s.api.get(`/sheets/${id}`)).body.columns[0].id;
      await s.api.post(`/sheets/${id}/rows`, [{ cells: [{ columnId: colId, value: `row of ${id}` }] }]);
    }
    const def = (await s.api.post('/sheetd/reports', { name: 'WS report', destinationType: 'workspace', destinationId: ws.id, scope: { workspaces: [{ id: ws.id }] }, columns: [{ sheetNameColumn: true }, { title: 'Task', primary: true }] })).body.result;
    assert.deepEqual(def.location, { destinationType: 'workspace', destinationId: ws.id });
    const r = (await s.api.get(`/reports/${def.id}?include=scope`)).body;
    assert.deepEqual(r.rows.map((x: ReportRow) => x.sheetId).sort(), [top.id, deep.id].sort());
    assert.deepEqual(r.scope.workspaces, [{ id: ws.id, name: 'Rep WS' }]);
    // someone the report is shared to, who cannot see the workspace, sees neither it nor its rows
    await makeUser(s.t, s.api, 'ws-outsider@example.org');
    await s.api.post(`/reports/${def.id}/shares`, { email: 'ws-outsider@example.org', accessLevel: 'VIEWER' });
    const outsider = client(s.t.base, await tokenFor(s.t, 'ws-outsider@example.org'));
    const theirs = (await outsider.get(`/reports/${def.id}?include=scope`)).body;
    assert.deepEqual([theirs.totalRowCount, theirs.scope.workspaces, theirs.scope.sheets], [0, [], []]);
  });

  test('level: multi-picklist columns read as text below level 2, as such at level 3', async () => {
    const sh = await makeSheet(s.api, 'Multi', [{ title: 'Task', type: 'TEXT_NUMBER', primary: true }, { title: 'Tags', type: 'MULTI_PICKLIST', options: ['a', 'b'] }]);
    await s.api.post(`/sheets/${sh.id}/rows?level=2`, [{ cells: [{ columnId: sh.col.Task!.id, value: 't' }, { columnId: sh.col.Tags!.id, objectValue: { objectType: 'MULTI_PICKLIST', values: ['a', 'b'] } }] }]);
    const def = (await s.api.post('/sheetd/reports', { name: 'Multi', scope: { sheets: [{ id: sh.id }] }, columns: [{ title: 'Tags', type: 'MULTI_PICKLIST' }] })).body.result;
    const low = (await s.api.get(`/reports/${def.id}`)).body;
    assert.equal(low.columns[0].type, 'TEXT_NUMBER');
    assert.equal(low.rows[0].cells[0].value, 'a, b');
    const high = (await s.api.get(`/reports/${def.id}?level=3&include=objectValue`)).body;
    assert.equal(high.columns[0].type, 'MULTI_PICKLIST');
    assert.deepEqual(high.rows[0].cells[0].objectValue, { objectType: 'MULTI_PICKLIST', values: ['a', 'b'] });
  });

  test('include=discussions,attachments gives each report row its own', async () => {
    const a = await sheetWithRows(s.api, 'Threads A', [['t1', 'Open', 1], ['t2', 'Open', 2]]);
    const d = (await s.api.post(`/sheets/${a.id}/rows/${a.rowIds[1]}/discussions`, { comment: { text: 'about t2' } })).body.result;
    const at = (await s.api.post(`/sheets/${a.id}/rows/${a.rowIds[0]}/attachments`, { name: 'spec', attachmentType: 'LINK', url: 'https://example.org/spec' })).body.result;
    const def = (await s.api.post('/sheetd/reports', { name: 'Threads', scope: { sheets: [{ id: a.id }] }, columns: [{ title: 'Task', primary: true }] })).body.result;
    const plain = (await s.api.get(`/reports/${def.id}`)).body;
    assert.equal(plain.rows[0].discussions, undefined);
    const r = (await s.api.get(`/reports/${def.id}?include=discussions,attachments`)).body;
    assert.deepEqual(r.rows.map((x: { discussions: Array<{ id: number }> }) => x.discussions.map((y) => y.id)), [[], [d.id]]);
    assert.deepEqual(r.rows.map((x: { attachments: Array<{ id: number }> }) => x.attachments.map((y) => y.id)), [[at.id], []]);
  });
});
