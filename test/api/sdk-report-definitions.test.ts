import { test } from 'node:test';
import assert from 'node:assert/strict';
import smartsheet from 'smartsheet';
import { serverForFile } from '../helpers/setup.ts';
import { makeSheet, makeUser } from '../helpers/sheets.ts';
import { assertError } from '../helpers/http.ts';

// Report definitions through the public paths, driven by the official SDK's own methods
// (createReport, get/updateReportDefinition, list/add/removeReportScope, list/add/get/update/
// deleteReportColumn, getReportPath, deleteReport), acting on the same reports as the
// /2.0/sheetd/reports extension.
const s = serverForFile();
const sdk = (token: string) => smartsheet.createClient({ accessToken: token, baseUrl: `${s.t.base}/`, logLevel: 'error' });

type SdkError = { statusCode?: number; errorCode?: number };
const failsWith = (status: number, code: number) => (e: SdkError) => {
  assert.equal(e.statusCode, status, JSON.stringify(e));
  assert.equal(e.errorCode, code, JSON.stringify(e));
  return true;
};

async function place(tag: string) {
  const ws = (await s.api.post('/workspaces', { name: `${tag} ws` })).body.result;
  const folder = (await s.api.post(`/workspaces/${ws.id}/folders`, { name: `${tag} folder` })).body.result;
  const cols = [{ title: 'Task', type: 'TEXT_NUMBER', primary: true }, { title: 'Status', type: 'PICKLIST', options: ['Open', 'Done'] }, { title: 'Due', type: 'DATE' }];
  const a = await makeSheet(s.api, `${tag} A`, cols);
  const b = await makeSheet(s.api, `${tag} B`, cols);
  const rows = (sh: typeof a, list: Array<[string, string, string]>) => s.api.post(`/sheets/${sh.id}/rows`, list.map(([t, st, d]) => ({ toBottom: true, cells: [{ columnId: sh.col.Task!.id, value: t }, { columnId: sh.col.Status!.id, value: st }, { columnId: sh.col.Due!.id, value: d }] })));
  assert.equal((await rows(a, [['a1', 'Open', '2024-03-01'], ['a2', 'Done', '2024-01-01'], ['a3', 'Open', '2023-06-01']])).status, 200);
  assert.equal((await rows(b, [['b1', 'Open', '2024-05-01']])).status, 200);
  return { ws, folder, a, b };
}

const tasksOf = (r: { columns: Array<{ title: string; virtualId?: number }>; rows: Array<{ cells: Array<{ virtualColumnId?: number; value?: unknown }> }> }) => {
  const vid = r.columns.find((c) => c.title === 'Task')!.virtualId;
  return r.rows.map((row) => row.cells.find((c) => c.virtualColumnId === vid)?.value);
};

test('createReport as the SDK sends it: placed in a folder, columns by index, scope, filters; the extension reads the same report', async () => {
  const p = await place('cr');
  const c = sdk(s.t.adminToken);
  const created = await c.reports.createReport({
    body: {
      name: 'Open work',
      destination: { destinationType: 'folder', destinationId: p.folder.id },
      columns: [
        { title: 'Status', type: 'PICKLIST', index: 1 },
        { title: 'Task', type: 'TEXT_NUMBER', primary: true, index: 0 },
        { title: 'Sheet Name', type: 'TEXT_NUMBER', sheetNameColumn: true, index: 2 },
      ],
      scope: [{ assetType: 'SHEET' as never, assetId: p.a.id }, { assetType: 'sheet' as never, assetId: p.b.id }],
      reportDefinition: {
        filters: { operator: 'AND', criteria: [{ column: { title: 'Status', type: 'PICKLIST' }, operator: 'EQUAL', values: ['Open'] }] },
        sortingCriteria: [{ column: { title: 'Due', type: 'DATE' }, sortingDirection: 'ASCENDING' }],
      },
    },
  });
  assert.equal(created.message, 'SUCCESS');
  assert.equal(created.resultCode, 0);
  const r = created.result;
  assert.equal(r.name, 'Open work');
  assert.equal(r.accessLevel, 'OWNER');
  assert.equal(r.isSummaryReport, false);
  assert.match(r.permalink, /reports/);
  assert.deepEqual(r.columns!.map((x) => [x.index, x.title, x.type]), [[0, 'Task', 'TEXT_NUMBER'], [1, 'Status', 'PICKLIST'], [2, 'Sheet Name', 'TEXT_NUMBER']]);
  assert.ok(r.columns!.every((x) => typeof x.virtualId === 'number'));

  const report = await c.reports.getReport({ reportId: r.id });
  assert.deepEqual(tasksOf(report as never), ['a3', 'a1', 'b1']);
  const ext = await s.api.get(`/sheetd/reports/${r.id}`);
  assert.equal(ext.status, 200);
  assert.deepEqual(ext.body.location, { destinationType: 'folder', destinationId: p.folder.id });
  assert.deepEqual(ext.body.scope, { sheets: [{ id: p.a.id }, { id: p.b.id }].sort((x, y) => x.id - y.id), workspaces: [] });
  const folder = await s.api.get(`/folders/${p.folder.id}`);
  assert.deepEqual(folder.body.reports.map((x: { id: number }) => x.id), [r.id]);

  // bad bodies: the catalogued error, and nothing created (the folder holds only the first report)
  await assert.rejects(c.reports.createReport({ body: { name: 'x'.repeat(51), destination: { destinationType: 'folder', destinationId: p.folder.id }, columns: [{ title: 'Task', type: 'TEXT_NUMBER', index: 0 }], scope: [{ assetType: 'sheet' as never, assetId: p.a.id }] } }), failsWith(400, 1041));
  await assert.rejects(c.reports.createReport({ body: { name: 'no scope', destination: { destinationType: 'folder', destinationId: p.folder.id }, columns: [{ title: 'Task', type: 'TEXT_NUMBER', index: 0 }], scope: [] } }), failsWith(400, 1012));
  await assert.rejects(c.reports.createReport({ body: { name: 'bad type', destination: { destinationType: 'folder', destinationId: p.folder.id }, columns: [{ title: 'Task', type: 'TEXT_NUMBER', index: 0 }], scope: [{ assetType: 'report' as never, assetId: p.a.id }] } }), failsWith(400, 1031));
  await assert.rejects(c.reports.createReport({ body: { name: 'unseen', destination: { destinationType: 'folder', destinationId: p.folder.id }, columns: [{ title: 'Task', type: 'TEXT_NUMBER', index: 0 }], scope: [{ assetType: 'sheet' as never, assetId: 123456789 }] } }), failsWith(404, 1006));
  assert.deepEqual((await s.api.get(`/folders/${p.folder.id}`)).body.reports.map((x: { id: number }) => x.id), [r.id]);
});

test('getReportDefinition / updateReportDefinition: root-level parts replaced, DATE and CURRENT_USER values as the SDK sends them', async () => {
  const p = await place('def');
  const c = sdk(s.t.adminToken);
  const { result } = await c.reports.createReport({ body: { name: 'Defs', destination: { destinationType: 'workspace', destinationId: p.ws.id }, columns: [{ title: 'Task', type: 'TEXT_NUMBER', primary: true, index: 0 }], scope: [{ assetType: 'sheet' as never, assetId: p.a.id }] } });
  assert.deepEqual(await c.reports.getReportDefinition({ reportId: result.id }), {});
  const filters = { operator: 'AND', criteria: [{ column: { title: 'Due', type: 'DATE' }, operator: 'GREATER_THAN', values: [{ objectType: 'DATE' as const, value: '2023-12-31' }] }] };
  const grouping = [{ column: { title: 'Status', type: 'PICKLIST' }, sortingDirection: 'ASCENDING', isExpanded: true }];
  const upd = await c.reports.updateReportDefinition({ reportId: result.id, body: { filters, groupingCriteria: grouping } });
  assert.equal(upd.resultCode, 0);
  const def = await c.reports.getReportDefinition({ reportId: result.id });
  assert.deepEqual(def.filters, { ...filters, nestedCriteria: [] });
  assert.deepEqual(def.groupingCriteria, grouping);
  assert.deepEqual(tasksOf(await c.reports.getReport({ reportId: result.id }) as never), ['a1', 'a2']);
  // a part not given stays; null removes one
  await c.reports.updateReportDefinition({ reportId: result.id, body: { sortingCriteria: [{ column: { title: 'Due', type: 'DATE' }, sortingDirection: 'ASCENDING' }] } });
  assert.deepEqual(tasksOf(await c.reports.getReport({ reportId: result.id }) as never), ['a2', 'a1']);
  await c.reports.updateReportDefinition({ reportId: result.id, body: { filters: null as never, groupingCriteria: null as never } });
  const after = await c.reports.getReportDefinition({ reportId: result.id });
  assert.deepEqual(Object.keys(after), ['sortingCriteria']);
  assert.deepEqual(tasksOf(await c.reports.getReport({ reportId: result.id }) as never), ['a3', 'a2', 'a1']);
  // bad input: catalogued errors, nothing changed
  await assert.rejects(c.reports.updateReportDefinition({ reportId: result.id, body: { filters: { operator: 'AND', criteria: [] } } }), failsWith(400, 1183));
  await assert.rejects(c.reports.updateReportDefinition({ reportId: result.id, body: { summarizingCriteria: [{ column: { title: 'Due', type: 'DATE' }, aggregationType: 'MEDIAN' }] } }), failsWith(400, 1031));
  assert.deepEqual(await c.reports.getReportDefinition({ reportId: result.id }), after);
  // CURRENT_USER: the caller's rows only
  const sh = await makeSheet(s.api, 'def people', [{ title: 'Task', type: 'TEXT_NUMBER', primary: true }, { title: 'Owner', type: 'CONTACT_LIST' }]);
  const admin = (await s.api.get('/users/me')).body;
  await s.api.post(`/sheets/${sh.id}/rows`, [{ cells: [{ columnId: sh.col.Task!.id, value: 'mine' }, { columnId: sh.col.Owner!.id, objectValue: { objectType: 'CONTACT', email: admin.email } }] }, { cells: [{ columnId: sh.col.Task!.id, value: 'theirs' }, { columnId: sh.col.Owner!.id, objectValue: { objectType: 'CONTACT', email: 'other@example.org' } }] }]);
  const mine = await c.reports.createReport({ body: { name: 'Mine', destination: { destinationType: 'workspace', destinationId: p.ws.id }, columns: [{ title: 'Task', type: 'TEXT_NUMBER', primary: true, index: 0 }], scope: [{ assetType: 'sheet' as never, assetId: sh.id }], reportDefinition: { filters: { operator: 'AND', criteria: [{ column: { title: 'Owner', type: 'CONTACT_LIST' }, operator: 'EQUAL', values: [{ objectType: 'CURRENT_USER', value: '' }] }] } } } });
  assert.deepEqual(tasksOf(await c.reports.getReport({ reportId: mine.result.id }) as never), ['mine']);
  assert.deepEqual((await c.reports.getReportDefinition({ reportId: mine.result.id })).filters!.criteria![0]!.values, [{ objectType: 'CURRENT_USER', value: '' }]);
});

test('listReportScope / addReportScope / removeReportScope', async () => {
  const p = await place('scope');
  const c = sdk(s.t.adminToken);
  const { result } = await c.reports.createReport({ body: { name: 'Scoped', destination: { destinationType: 'workspace', destinationId: p.ws.id }, columns: [{ title: 'Task', type: 'TEXT_NUMBER', primary: true, index: 0 }], scope: [{ assetType: 'sheet' as never, assetId: p.a.id }] } });
  assert.deepEqual(await c.reports.listReportScope({ reportId: result.id }), { data: [{ assetType: 'sheet', assetId: p.a.id }] });
  const other = (await s.api.post('/workspaces', { name: 'scope other ws' })).body.result;
  const inWs = await makeSheet(s.api, 'scope in ws', [{ title: 'Task', type: 'TEXT_NUMBER', primary: true }]);
  await s.api.post(`/sheets/${inWs.id}/move`, { destinationType: 'workspace', destinationId: other.id });
  await s.api.post(`/sheets/${inWs.id}/rows`, [{ cells: [{ columnId: inWs.col.Task!.id, value: 'w1' }] }]);
  const added = await c.reports.addReportScope({ reportId: result.id, body: [{ assetType: 'sheet' as never, assetId: p.b.id }, { assetType: 'workspace' as never, assetId: other.id }, { assetType: 'sheet' as never, assetId: p.a.id }] });
  assert.equal(added.message, 'SUCCESS');
  const scope = await c.reports.listReportScope({ reportId: result.id });
  assert.deepEqual(new Set(scope.data.map((x) => `${x.assetType}:${x.assetId}`)), new Set([`sheet:${p.a.id}`, `sheet:${p.b.id}`, `workspace:${other.id}`]));
  assert.deepEqual(new Set(tasksOf(await c.reports.getReport({ reportId: result.id }) as never)), new Set(['a1', 'a2', 'a3', 'b1', 'w1']));
  // paged by maxItems / lastKey
  const first = await c.reports.listReportScope({ reportId: result.id, queryParameters: { maxItems: 2 } });
  assert.equal(first.data.length, 2);
  assert.ok(first.lastKey);
  const rest = await c.reports.listReportScope({ reportId: result.id, queryParameters: { maxItems: 2, lastKey: first.lastKey! } });
  assert.equal(rest.data.length, 1);
  assert.equal(rest.lastKey, undefined);
  await c.reports.removeReportScope({ reportId: result.id, body: [{ assetType: 'sheet' as never, assetId: p.a.id }, { assetType: 'workspace' as never, assetId: other.id }] });
  assert.deepEqual(await c.reports.listReportScope({ reportId: result.id }), { data: [{ assetType: 'sheet', assetId: p.b.id }] });
  assert.deepEqual(tasksOf(await c.reports.getReport({ reportId: result.id }) as never), ['b1']);
  // a sheet the caller cannot see: 1006, scope unchanged
  const u = await makeUser(s.t, s.api, 'scope-user@example.org');
  const theirs = await makeSheet((await import('../helpers/http.ts')).client(s.t.base, u.token), 'scope theirs', [{ title: 'Task', type: 'TEXT_NUMBER', primary: true }]);
  await assert.rejects(c.reports.addReportScope({ reportId: result.id, body: [{ assetType: 'sheet' as never, assetId: theirs.id }] }), failsWith(404, 1006));
  assert.deepEqual((await c.reports.listReportScope({ reportId: result.id })).data, [{ assetType: 'sheet', assetId: p.b.id }]);
  // a viewer of the report may read the scope but not change it
  await s.api.post(`/reports/${result.id}/shares`, [{ email: 'scope-user@example.org', accessLevel: 'VIEWER' }]);
  assert.equal((await sdk(u.token).reports.listReportScope({ reportId: result.id })).data.length, 1);
  await assert.rejects(sdk(u.token).reports.addReportScope({ reportId: result.id, body: [{ assetType: 'sheet' as never, assetId: p.a.id }] }), failsWith(403, 1004));
});

test('listReportColumns / addReportColumns / getReportColumn / updateReportColumn / deleteReportColumn', async () => {
  const p = await place('cols');
  const c = sdk(s.t.adminToken);
  const { result } = await c.reports.createReport({ body: { name: 'Cols', destination: { destinationType: 'workspace', destinationId: p.ws.id }, columns: [{ title: 'Task', type: 'TEXT_NUMBER', primary: true, index: 0 }, { title: 'Due', type: 'DATE', index: 1 }], scope: [{ assetType: 'sheet' as never, assetId: p.a.id }] } });
  const listed = await c.reports.listReportColumns({ reportId: result.id });
  assert.deepEqual(listed.data.map((x) => [x.index, x.title, x.type, x.hidden]), [[0, 'Task', 'TEXT_NUMBER', false], [1, 'Due', 'DATE', false]]);
  const added = await c.reports.addReportColumns({ reportId: result.id, body: [{ title: 'Status', type: 'PICKLIST', index: 1 }, { title: 'Sheet name', type: 'TEXT_NUMBER', sheetNameColumn: true, index: 1 }] });
  assert.equal(added.resultCode, 0);
  assert.deepEqual(added.result.map((x) => [x.index, x.title]), [[1, 'Status'], [2, 'Sheet name']]);
  assert.deepEqual((await c.reports.listReportColumns({ reportId: result.id })).data.map((x) => x.title), ['Task', 'Status', 'Sheet name', 'Due']);
  const status = added.result[0]!;
  const one = await c.reports.getReportColumn({ reportId: result.id, columnVirtualId: status.virtualId! });
  assert.deepEqual([one.virtualId, one.index, one.title, one.type], [status.virtualId, 1, 'Status', 'PICKLIST']);
  const report = await c.reports.getReport({ reportId: result.id });
  assert.deepEqual(report.columns.map((x) => x.title), ['Task', 'Status', 'Sheet name', 'Due']);
  const upd = await c.reports.updateReportColumn({ reportId: result.id, columnVirtualId: status.virtualId!, body: { index: 3, hidden: true, width: 222 } });
  assert.deepEqual([upd.result.index, upd.result.hidden, upd.result.width, upd.result.virtualId], [3, true, 222, status.virtualId]);
  assert.deepEqual((await c.reports.listReportColumns({ reportId: result.id })).data.map((x) => [x.title, x.hidden]), [['Task', false], ['Sheet name', false], ['Due', false], ['Status', true]]);
  // the primary column's title is its own; a title-matched column's new title matches other source columns
  const task = listed.data[0]!;
  await c.reports.updateReportColumn({ reportId: result.id, columnVirtualId: task.virtualId!, body: { title: 'What' } });
  assert.deepEqual((await c.reports.getReport({ reportId: result.id })).columns.map((x) => x.title), ['What', 'Sheet name', 'Due', 'Status']);
  // errors: unequal indexes, a column it has, an unknown virtual id; nothing changed
  const before = (await c.reports.listReportColumns({ reportId: result.id })).data;
  await assert.rejects(c.reports.addReportColumns({ reportId: result.id, body: [{ title: 'A', type: 'TEXT_NUMBER', index: 0 }, { title: 'B', type: 'TEXT_NUMBER', index: 1 }] }), failsWith(400, 1031));
  await assert.rejects(c.reports.addReportColumns({ reportId: result.id, body: [{ title: 'due', type: 'DATE', index: 0 }] }), failsWith(400, 1031));
  await assert.rejects(c.reports.getReportColumn({ reportId: result.id, columnVirtualId: 42 }), failsWith(404, 1006));
  await assert.rejects(c.reports.updateReportColumn({ reportId: result.id, columnVirtualId: 42, body: { width: 10 } }), failsWith(404, 1006));
  assert.deepEqual((await c.reports.listReportColumns({ reportId: result.id })).data, before);
  await c.reports.deleteReportColumn({ reportId: result.id, columnVirtualId: status.virtualId! });
  assert.deepEqual((await c.reports.listReportColumns({ reportId: result.id })).data.map((x) => x.title), ['What', 'Sheet name', 'Due']);
  await assert.rejects(c.reports.getReportColumn({ reportId: result.id, columnVirtualId: status.virtualId! }), failsWith(404, 1006));
  // the extension sees the same columns
  assert.deepEqual((await s.api.get(`/sheetd/reports/${result.id}`)).body.columns.map((x: { title: string }) => x.title), ['What', 'Sheet name', 'Due']);
});

test('getReportPath and deleteReport', async () => {
  const p = await place('path');
  const c = sdk(s.t.adminToken);
  const { result } = await c.reports.createReport({ body: { name: 'Deep', destination: { destinationType: 'folder', destinationId: p.folder.id }, columns: [{ title: 'Task', type: 'TEXT_NUMBER', primary: true, index: 0 }], scope: [{ assetType: 'sheet' as never, assetId: p.a.id }] } });
  const path = await c.reports.getReportPath({ reportId: result.id });
  assert.equal(path.id, p.ws.id);
  assert.equal(path.name, 'path ws');
  assert.equal(path.folders![0]!.id, p.folder.id);
  const leaf = path.folders![0]!.reports![0]!;
  assert.deepEqual([leaf.id, leaf.name, leaf.accessLevel], [result.id, 'Deep', 'OWNER']);
  assert.ok(leaf.createdAt && leaf.modifiedAt);
  const deleted = await c.reports.deleteReport({ reportId: result.id });
  assert.equal(deleted.resultCode, 0);
  await assert.rejects(c.reports.getReport({ reportId: result.id }), failsWith(404, 1006));
  assertError(await s.api.get(`/sheetd/reports/${result.id}`), 404, 1006);
  await assert.rejects(c.reports.deleteReport({ reportId: result.id }), failsWith(404, 1006));
});
