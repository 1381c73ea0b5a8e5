import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import smartsheet from 'smartsheet';
import { serverForFile } from '../helpers/setup.ts';
import { client } from '../helpers/http.ts';
import { assertError, cellOf, makeSheet, makeUser } from '../helpers/sheets.ts';

const s0 = serverForFile();
const X = '/sheetd/sheets';

type Row = { id: number; rowNumber: number; parentId?: number; filteredOut?: boolean; cells: Array<{ columnId: number; value?: unknown; format?: string; conditionalFormat?: string }> };

/** A task sheet: Task (primary), Status (picklist), Points (number), Due (date), Done (checkbox); rows with a parent. */
async function taskSheet(tag: string) {
  const s = await makeSheet(s0.api, `Tasks ${tag}`, [
    { title: 'Task', type: 'TEXT_NUMBER', primary: true },
    { title: 'Status', type: 'PICKLIST', options: ['Open', 'Done'] },
    { title: 'Points', type: 'TEXT_NUMBER' },
    { title: 'Due', type: 'DATE' },
    { title: 'Done', type: 'CHECKBOX' },
  ]);
  const c = s.col;
  const add = await s0.api.post(`/sheets/${s.id}/rows`, [
    { toBottom: true, cells: [{ columnId: c.Task!.id, value: 'Phase 1' }] },
  ]);
  assert.equal(add.status, 200, JSON.stringify(add.body));
  const phase = add.body.result[0].id as number;
  const kids = await s0.api.post(`/sheets/${s.id}/rows`, [
    { parentId: phase, toBottom: true, cells: [{ columnId: c.Task!.id, value: 'Design' }, { columnId: c.Status!.id, value: 'Open' }, { columnId: c.Points!.id, value: 5 }, { columnId: c.Due!.id, value: '2026-01-10' }] },
    { parentId: phase, toBottom: true, cells: [{ columnId: c.Task!.id, value: 'Build' }, { columnId: c.Status!.id, value: 'Done' }, { columnId: c.Points!.id, value: 8 }, { columnId: c.Done!.id, value: true }] },
  ]);
  assert.equal(kids.status, 200, JSON.stringify(kids.body));
  const more = await s0.api.post(`/sheets/${s.id}/rows`, [
    { toBottom: true, cells: [{ columnId: c.Task!.id, value: 'Release' }, { columnId: c.Status!.id, value: 'Open' }, { columnId: c.Points!.id, value: 2 }] },
  ]);
  assert.equal(more.status, 200, JSON.stringify(more.body));
  const ids = { phase, design: kids.body.result[0].id as number, build: kids.body.result[1].id as number, release: more.body.result[0].id as number };
  return { ...s, ids };
}

async function sheetRows(id: number, query: string, api = s0.api): Promise<{ body: Record<string, unknown>; rows: Row[] }> {
  const res = await api.get(`/sheets/${id}${query}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return { body: res.body, rows: res.body.rows as Row[] };
}

describe('sheet filters', () => {
  test('a shared filter applied by its user marks rows filteredOut; exclude=filteredOutRows leaves them out', async () => {
    const s = await taskSheet('f1');
    const before = (await s0.api.get(`/sheets/${s.id}/version`)).body.version as number;
    const create = await s0.api.post(`${X}/${s.id}/filters`, {
      name: 'Open work',
      filterType: 'SHARED',
      query: { operator: 'AND', criteria: [{ columnId: s.col.Status!.id, operator: 'EQUAL', values: ['open'] }], includeParent: false },
      applied: true,
    });
    assert.equal(create.status, 200, JSON.stringify(create.body));
    const f = create.body.result;
    assert.equal(typeof f.id, 'number');
    assert.deepEqual({ ...f, id: 0 }, {
      id: 0, name: 'Open work', filterType: 'SHARED', excludeSelected: false, applied: true,
      query: { operator: 'AND', criteria: [{ columnId: s.col.Status!.id, operator: 'EQUAL', values: ['open'] }], includeParent: false },
    });
    // a shared filter is a change of the sheet
    assert.equal(create.body.version, before + 1);

    const marked = await sheetRows(s.id, '?include=filters');
    const out = Object.fromEntries(marked.rows.map((r) => [r.id, r.filteredOut]));
    assert.deepEqual(out, { [s.ids.phase]: true, [s.ids.design]: false, [s.ids.build]: true, [s.ids.release]: false });
    assert.equal(marked.body.showParentRowsForFilters, false);
    assert.deepEqual(marked.body.filters, [{ id: f.id, name: 'Open work', filterType: 'SHARED', applied: true }]);
    assert.equal(marked.body.totalRowCount, 4);

    const only = await sheetRows(s.id, '?include=filters,filterDefinitions&exclude=filteredOutRows');
    assert.deepEqual(only.rows.map((r) => r.id), [s.ids.design, s.ids.release]);
    assert.equal(only.body.totalRowCount, 2);
    assert.deepEqual((only.body.filters as Array<Record<string, unknown>>)[0]!.query, f.query);

    // without include=filters rows carry no filteredOut and every row is there
    const plain = await sheetRows(s.id, '?exclude=filteredOutRows');
    assert.equal(plain.rows.length, 4);
    assert.ok(plain.rows.every((r) => !('filteredOut' in r)));
    assert.ok(!('filters' in plain.body));
  });

  test('show parent rows, excludeSelected, OR and row-level criteria', async () => {
    const s = await taskSheet('f2');
    const mk = async (name: string, body: Record<string, unknown>) => {
      const res = await s0.api.post(`${X}/${s.id}/filters`, { name, ...body });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.result.id as number;
    };
    const parents = await mk('with parents', { query: { criteria: [{ columnId: s.col.Done!.id, operator: 'IS_CHECKED' }], includeParent: true } });
    const hiddenOf = async (fid: number) => {
      const r = await sheetRows(s.id, `?filterId=${fid}`);
      return r.rows.filter((x) => x.filteredOut === true).map((x) => x.id).sort();
    };
    // Build is checked; its parent shows with it
    assert.deepEqual(await hiddenOf(parents), [s.ids.design, s.ids.release].sort());
    assert.equal((await sheetRows(s.id, `?filterId=${parents}`)).body.showParentRowsForFilters, true);
    const notBig = await mk('not big', { excludeSelected: true, query: { criteria: [{ columnId: s.col.Points!.id, operator: 'GREATER_THAN', values: ['4'] }] } });
    assert.deepEqual(await hiddenOf(notBig), [s.ids.design, s.ids.build].sort());
    const either = await mk('either', { query: { operator: 'OR', criteria: [{ columnId: s.col.Task!.id, operator: 'CONTAINS', values: ['SIGN'] }, { columnId: s.col.Points!.id, operator: 'BETWEEN', values: ['1', '3'] }] } });
    assert.deepEqual(await hiddenOf(either), [s.ids.phase, s.ids.build].sort());
    const blankDue = await mk('no due', { query: { criteria: [{ columnId: s.col.Due!.id, operator: 'IS_BLANK' }, { columnId: s.col.Status!.id, operator: 'IS_ONE_OF', values: ['Done', 'Open'] }] } });
    assert.deepEqual(await hiddenOf(blankDue), [s.ids.phase, s.ids.design].sort());
    const datePast = await mk('past', { query: { criteria: [{ columnId: s.col.Due!.id, operator: 'PAST' }] } });
    assert.deepEqual(await hiddenOf(datePast), [s.ids.phase, s.ids.build, s.ids.release].sort());
    // lock Release: a row-level criterion
    assert.equal((await s0.api.put(`/sheets/${s.id}/rows`, [{ id: s.ids.release, locked: true }])).status, 200);
    const locked = await mk('locked', { query: { criteria: [{ operator: 'IS_LOCKED' }] } });
    assert.deepEqual(await hiddenOf(locked), [s.ids.phase, s.ids.design, s.ids.build].sort());
    // filters follow the data: uncheck Build and the first filter hides it and its parent
    assert.equal((await s0.api.put(`/sheets/${s.id}/rows`, [{ id: s.ids.build, cells: [{ columnId: s.col.Done!.id, value: false }] }])).status, 200);
    assert.deepEqual(await hiddenOf(parents), [s.ids.phase, s.ids.design, s.ids.build, s.ids.release].sort());
  });

  test('personal filters are their owner\'s; shared ones need a sheet admin (1181); filterId that cannot be seen is 1182', async () => {
    const s = await taskSheet('f3');
    const u = await makeUser(s0.t, s0.api, 'filter-viewer@example.com');
    assert.equal((await s0.api.post(`/sheets/${s.id}/shares`, { email: 'filter-viewer@example.com', accessLevel: 'VIEWER' })).status, 200);
    const as = client(s0.t.base, u.token);
    const q = { criteria: [{ columnId: s.col.Status!.id, operator: 'EQUAL', values: ['Done'] }] };
    const version = (await s0.api.get(`/sheets/${s.id}/version`)).body.version as number;

    assertError(await as.post(`${X}/${s.id}/filters`, { name: 'mine', filterType: 'SHARED', query: q }), 403, 1181);
    const mine = await as.post(`${X}/${s.id}/filters`, { name: 'mine', query: q, applied: true });
    assert.equal(mine.status, 200, JSON.stringify(mine.body));
    assert.equal(mine.body.result.filterType, 'PERSONAL');
    // a personal filter changes nothing others see: no new version
    assert.equal(mine.body.version, undefined);
    assert.equal((await s0.api.get(`/sheets/${s.id}/version`)).body.version, version);

    const adminShared = await s0.api.post(`${X}/${s.id}/filters`, { name: 'team', filterType: 'SHARED', query: q });
    assert.equal(adminShared.status, 200);
    const adminPersonal = await s0.api.post(`${X}/${s.id}/filters`, { name: 'mine', query: q });
    assert.equal(adminPersonal.status, 200, 'the same name for another owner is fine');

    // the viewer sees their own and the shared one, not the admin's personal filter
    const list = await as.get(`${X}/${s.id}/filters`);
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.data.map((f: { name: string; applied: boolean }) => [f.name, f.applied]), [['mine', true], ['team', false]]);
    assertError(await as.get(`/sheets/${s.id}?filterId=${adminPersonal.body.result.id}`), 400, 1182);
    assertError(await as.get(`/sheets/${s.id}?filterId=nope`), 400, 1182);
    assertError(await as.get(`${X}/${s.id}/filters/${adminPersonal.body.result.id}`), 400, 1182);
    assertError(await as.put(`${X}/${s.id}/filters/${adminShared.body.result.id}`, { name: 'renamed' }), 403, 1181);
    assertError(await as.del(`${X}/${s.id}/filters/${adminShared.body.result.id}`), 403, 1181);
    // the same reads and delete where the official SDKs call them (/sheets/{id}/filters: the
    // Python SDK's list_filters, get_filter, delete_filter), with the same rules
    const publicList = await as.get(`/sheets/${s.id}/filters`);
    assert.equal(publicList.status, 200, publicList.text);
    assert.deepEqual(publicList.body, list.body);
    const one = await as.get(`/sheets/${s.id}/filters/${mine.body.result.id}`);
    assert.deepEqual(one.body, (await as.get(`${X}/${s.id}/filters/${mine.body.result.id}`)).body);
    assertError(await as.get(`/sheets/${s.id}/filters/${adminPersonal.body.result.id}`), 400, 1182);
    assertError(await as.del(`/sheets/${s.id}/filters/${adminShared.body.result.id}`), 403, 1181);
    assertError(await as.post(`/sheets/${s.id}/filters`, { name: 'x', query: q }), 405, 1010);
    const scratch = await as.post(`${X}/${s.id}/filters`, { name: 'scratch', query: q });
    assert.equal((await as.del(`/sheets/${s.id}/filters/${scratch.body.result.id}`)).status, 200);
    assertError(await as.get(`/sheets/${s.id}/filters/${scratch.body.result.id}`), 400, 1182);

    // the viewer's include=filters uses their own applied filter; the admin has none applied
    const viewerRows = await sheetRows(s.id, '?include=filters', as);
    assert.deepEqual(viewerRows.rows.filter((r) => r.filteredOut).map((r) => r.id).sort(), [s.ids.phase, s.ids.design, s.ids.release].sort());
    const adminRows = await sheetRows(s.id, '?include=filters');
    assert.ok(adminRows.rows.every((r) => r.filteredOut === false));
    assert.ok(!('showParentRowsForFilters' in adminRows.body));

    // applying a shared filter is the viewer's own choice: allowed without admin rights
    const apply = await as.put(`${X}/${s.id}/filters/${adminShared.body.result.id}`, { applied: true });
    assert.equal(apply.status, 200, JSON.stringify(apply.body));
    assert.equal(apply.body.result.applied, true);
    const after = await as.get(`${X}/${s.id}/filters`);
    assert.deepEqual(after.body.data.map((f: { name: string; applied: boolean }) => [f.name, f.applied]), [['mine', false], ['team', true]]);

    // deleting their own personal filter
    assert.equal((await as.del(`${X}/${s.id}/filters/${mine.body.result.id}`)).status, 200);
    assert.deepEqual((await as.get(`${X}/${s.id}/filters`)).body.data.map((f: { name: string }) => f.name), ['team']);
  });

  test('bad definitions: 1183, 1184, 1012, 1031, 1036, 1032, 1006 — nothing is stored', async () => {
    const s = await taskSheet('f4');
    const col = s.col.Points!.id;
    assertError(await s0.api.post(`${X}/${s.id}/filters`, { name: 'x', query: { criteria: [] } }), 400, 1183);
    assertError(await s0.api.post(`${X}/${s.id}/filters`, { name: 'x' }), 400, 1183);
    assertError(await s0.api.post(`${X}/${s.id}/filters`, { query: { criteria: [{ columnId: col, operator: 'IS_BLANK' }] } }), 400, 1012);
    assertError(await s0.api.post(`${X}/${s.id}/filters`, { name: 'x', query: { criteria: [{ columnId: col, operator: 'SOUNDS_LIKE', values: ['a'] }] } }), 400, 1031);
    assertError(await s0.api.post(`${X}/${s.id}/filters`, { name: 'x', query: { criteria: [{ columnId: col, operator: 'EQUAL' }] } }), 400, 1012);
    assertError(await s0.api.post(`${X}/${s.id}/filters`, { name: 'x', query: { criteria: [{ columnId: col, operator: 'BETWEEN', values: ['1'] }] } }), 400, 1031);
    assertError(await s0.api.post(`${X}/${s.id}/filters`, { name: 'x', query: { criteria: [{ operator: 'EQUAL', values: ['1'] }] } }), 400, 1012);
    assertError(await s0.api.post(`${X}/${s.id}/filters`, { name: 'x', query: { criteria: [{ columnId: 123, operator: 'IS_BLANK' }] } }), 400, 1036);
    assertError(await s0.api.post(`${X}/${s.id}/filters`, { name: 'x', query: { operator: 'XOR', criteria: [{ columnId: col, operator: 'IS_BLANK' }] } }), 400, 1031);
    assertError(await s0.api.post(`${X}/${s.id}/filters`, { name: 'x', color: 'red', query: { criteria: [{ columnId: col, operator: 'IS_BLANK' }] } }), 400, 1032);
    assertError(await s0.api.post(`${X}/${s.id}/filters`, { name: 'x', filterType: 'GLOBAL', query: { criteria: [{ columnId: col, operator: 'IS_BLANK' }] } }), 400, 1031);
    assertError(await s0.api.post(`${X}/1/filters`, { name: 'x', query: { criteria: [{ columnId: col, operator: 'IS_BLANK' }] } }), 404, 1006);
    assert.deepEqual((await s0.api.get(`${X}/${s.id}/filters`)).body.data, []);

    const ok = await s0.api.post(`${X}/${s.id}/filters`, { name: 'Big', filterType: 'SHARED', query: { criteria: [{ columnId: col, operator: 'GREATER_THAN', values: ['4'] }] } });
    assert.equal(ok.status, 200);
    assertError(await s0.api.post(`${X}/${s.id}/filters`, { name: ' big ', filterType: 'SHARED', query: { criteria: [{ columnId: col, operator: 'IS_BLANK' }] } }), 400, 1184);
    const other = await s0.api.post(`${X}/${s.id}/filters`, { name: 'Other', filterType: 'SHARED', query: { criteria: [{ columnId: col, operator: 'IS_BLANK' }] } });
    assertError(await s0.api.put(`${X}/${s.id}/filters/${other.body.result.id}`, { name: 'BIG' }), 400, 1184);
    assertError(await s0.api.put(`${X}/${s.id}/filters/${other.body.result.id}`, { query: { criteria: [] } }), 400, 1183);
    assertError(await s0.api.put(`${X}/${s.id}/filters/999`, { name: 'z' }), 400, 1182);
    const still = await s0.api.get(`${X}/${s.id}/filters/${other.body.result.id}`);
    assert.equal(still.body.name, 'Other');
    assert.deepEqual(still.body.query.criteria, [{ columnId: col, operator: 'IS_BLANK' }]);
    // an update replaces the query
    const upd = await s0.api.put(`${X}/${s.id}/filters/${other.body.result.id}`, { query: { criteria: [{ columnId: col, operator: 'LESS_THAN', values: ['3'] }], includeParent: true } });
    assert.equal(upd.status, 200, JSON.stringify(upd.body));
    assert.deepEqual(upd.body.result.query, { operator: 'AND', criteria: [{ columnId: col, operator: 'LESS_THAN', values: ['3'] }], includeParent: true });
  });

  test('List Columns include=filters shows the applied filter on its columns; a deleted column leaves the filters', async () => {
    const s = await taskSheet('f5');
    const f = await s0.api.post(`${X}/${s.id}/filters`, {
      name: 'two', filterType: 'SHARED', applied: true,
      query: { criteria: [{ columnId: s.col.Points!.id, operator: 'GREATER_THAN', values: ['1'] }, { columnId: s.col.Due!.id, operator: 'IS_NOT_BLANK' }] },
    });
    assert.equal(f.status, 200);
    const cols = await s0.api.get(`/sheets/${s.id}/columns?include=filters`);
    assert.equal(cols.status, 200);
    const byId = Object.fromEntries(cols.body.data.map((c: { id: number; filter?: unknown }) => [c.id, c.filter]));
    assert.deepEqual(byId[s.col.Points!.id], { type: 'CUSTOM', excludeSelected: false, criteria: [{ operator: 'GREATER_THAN', values: ['1'] }] });
    assert.deepEqual(byId[s.col.Due!.id], { type: 'CUSTOM', excludeSelected: false, criteria: [{ operator: 'IS_NOT_BLANK' }] });
    assert.equal(byId[s.col.Task!.id], undefined);
    assert.ok((await s0.api.get(`/sheets/${s.id}/columns`)).body.data.every((c: Record<string, unknown>) => !('filter' in c)));

    assert.equal((await s0.api.del(`/sheets/${s.id}/columns/${s.col.Due!.id}`)).status, 200);
    const left = await s0.api.get(`${X}/${s.id}/filters/${f.body.result.id}`);
    assert.deepEqual(left.body.query.criteria, [{ columnId: s.col.Points!.id, operator: 'GREATER_THAN', values: ['1'] }]);
    assert.equal((await s0.api.del(`/sheets/${s.id}/columns/${s.col.Points!.id}`)).status, 200);
    assertError(await s0.api.get(`${X}/${s.id}/filters/${f.body.result.id}`), 400, 1182);
  });

  test('a sheet copy with include=filters keeps the shared filters, on the copied columns', async () => {
    const s = await taskSheet('f6');
    assert.equal((await s0.api.post(`${X}/${s.id}/filters`, { name: 'Shared one', filterType: 'SHARED', query: { criteria: [{ columnId: s.col.Status!.id, operator: 'EQUAL', values: ['Done'] }] } })).status, 200);
    assert.equal((await s0.api.post(`${X}/${s.id}/filters`, { name: 'Personal one', query: { criteria: [{ columnId: s.col.Status!.id, operator: 'IS_BLANK' }] } })).status, 200);
    const withF = await s0.api.post(`/sheets/${s.id}/copy?include=data,filters`, { destinationType: 'home', newName: 'copy f6' });
    assert.equal(withF.status, 200, JSON.stringify(withF.body));
    const copyId = withF.body.result.id as number;
    const copyCols = (await s0.api.get(`/sheets/${copyId}/columns`)).body.data as Array<{ id: number; title: string }>;
    const status = copyCols.find((c) => c.title === 'Status')!.id;
    const list = (await s0.api.get(`${X}/${copyId}/filters`)).body.data;
    assert.deepEqual(list.map((f: { name: string; query: { criteria: unknown } }) => [f.name, f.query.criteria]), [['Shared one', [{ columnId: status, operator: 'EQUAL', values: ['Done'] }]]]);
    const without = await s0.api.post(`/sheets/${s.id}/copy`, { destinationType: 'home', newName: 'copy f6 bare' });
    assert.deepEqual((await s0.api.get(`${X}/${without.body.result.id}/filters`)).body.data, []);
  });

  test('the SDK reads filteredOut and filter definitions', async () => {
    const s = await taskSheet('f7');
    const f = await s0.api.post(`${X}/${s.id}/filters`, { name: 'done', applied: true, query: { criteria: [{ columnId: s.col.Done!.id, operator: 'IS_CHECKED' }] } });
    assert.equal(f.status, 200);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const sdk: any = smartsheet.createClient({ accessToken: s0.t.adminToken, baseUrl: `${s0.t.base}/`, logLevel: 'error' });
    const sheet = await sdk.sheets.getSheet({ id: s.id, queryParameters: { include: 'filters,filterDefinitions' } });
    assert.deepEqual(sheet.rows.filter((r: Row) => !r.filteredOut).map((r: Row) => r.id), [s.ids.build]);
    assert.equal(sheet.filters[0].query.criteria[0].operator, 'IS_CHECKED');
    const one = await sdk.sheets.getSheet({ id: s.id, queryParameters: { filterId: f.body.result.id, exclude: 'filteredOutRows' } });
    assert.deepEqual(one.rows.map((r: Row) => r.id), [s.ids.build]);
  });
});

describe('conditional formatting', () => {
  test('rules give matching cells conditionalFormat with include=format; earlier rules win; cells and rows only', async () => {
    const s = await taskSheet('c1');
    const before = (await s0.api.get(`/sheets/${s.id}/version`)).body.version as number;
    const put = await s0.api.put(`${X}/${s.id}/conditionalformats`, {
      rules: [
        // bold red text on the Points cell of big tasks
        { format: ',,1,,,,,,2,,,,,,,,', columnIds: [s.col.Points!.id], query: { criteria: [{ columnId: s.col.Points!.id, operator: 'GREATER_THAN', values: ['4'] }] } },
        // done rows: whole row struck through, text color 3 (loses to the rule above where both apply)
        { format: ',,,,,1,,,3,,,,,,,,', query: { criteria: [{ columnId: s.col.Status!.id, operator: 'EQUAL', values: ['Done'] }] } },
      ],
    });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assert.equal(put.body.version, before + 1);
    assert.equal(put.body.result.length, 2);
    assert.ok(put.body.result.every((r: { id: unknown }) => typeof r.id === 'number'));

    const { rows } = await sheetRows(s.id, '?include=format');
    const byId = new Map(rows.map((r) => [r.id, r]));
    const cf = (rowId: number, colId: number) => cellOf(byId.get(rowId)!, colId).conditionalFormat;
    assert.equal(cf(s.ids.design, s.col.Points!.id), ',,1,,,,,,2,,,,,,,,');
    assert.equal(cf(s.ids.design, s.col.Task!.id), undefined);
    assert.equal(cf(s.ids.build, s.col.Points!.id), ',,1,,,1,,,2,,,,,,,,');
    assert.equal(cf(s.ids.build, s.col.Task!.id), ',,,,,1,,,3,,,,,,,,');
    // a whole-row rule formats the row's blank cells too
    assert.equal(cf(s.ids.build, s.col.Due!.id), ',,,,,1,,,3,,,,,,,,');
    assert.equal(cf(s.ids.release, s.col.Points!.id), undefined);
    assert.equal(cf(s.ids.phase, s.col.Task!.id), undefined);
    // without include=format nothing shows
    const plain = await sheetRows(s.id, '');
    assert.ok(plain.rows.every((r) => r.cells.every((c) => !('conditionalFormat' in c))));
    // Get Row too
    const one = await s0.api.get(`/sheets/${s.id}/rows/${s.ids.build}?include=format`);
    assert.equal(cellOf(one.body, s.col.Task!.id).conditionalFormat, ',,,,,1,,,3,,,,,,,,');
    // the rules follow the data
    assert.equal((await s0.api.put(`/sheets/${s.id}/rows`, [{ id: s.ids.build, cells: [{ columnId: s.col.Status!.id, value: 'Open' }] }])).status, 200);
    const again = await s0.api.get(`/sheets/${s.id}/rows/${s.ids.build}?include=format`);
    assert.equal(cellOf(again.body, s.col.Task!.id).conditionalFormat, undefined);
    assert.equal(cellOf(again.body, s.col.Points!.id).conditionalFormat, ',,1,,,,,,2,,,,,,,,');
    const list = await s0.api.get(`${X}/${s.id}/conditionalformats`);
    assert.equal(list.body.totalCount, 2);
    assert.deepEqual(list.body.data, put.body.result);
  });

  test('a column a rule uses cannot be deleted or change type (1087); rules need ADMIN; bad rules change nothing', async () => {
    const s = await taskSheet('c2');
    const rule = { format: ',,1,,,,,,,,,,,,,,', columnIds: [s.col.Task!.id], query: { criteria: [{ columnId: s.col.Points!.id, operator: 'IS_NUMBER' }] } };
    assert.equal((await s0.api.put(`${X}/${s.id}/conditionalformats`, { rules: [rule] })).status, 200);
    assertError(await s0.api.del(`/sheets/${s.id}/columns/${s.col.Points!.id}`), 400, 1087);
    assertError(await s0.api.put(`/sheets/${s.id}/columns/${s.col.Points!.id}`, { type: 'DATE' }), 400, 1087);
    // a rename is fine
    assert.equal((await s0.api.put(`/sheets/${s.id}/columns/${s.col.Points!.id}`, { title: 'Score' })).status, 200);
    assert.ok((await s0.api.get(`/sheets/${s.id}/columns/${s.col.Points!.id}`)).body.type === 'TEXT_NUMBER');

    const u = await makeUser(s0.t, s0.api, 'cf-editor@example.com');
    assert.equal((await s0.api.post(`/sheets/${s.id}/shares`, { email: 'cf-editor@example.com', accessLevel: 'EDITOR' })).status, 200);
    assertError(await client(s0.t.base, u.token).put(`${X}/${s.id}/conditionalformats`, { rules: [] }), 403, 1004);

    assertError(await s0.api.put(`${X}/${s.id}/conditionalformats`, { rules: [{ ...rule, format: ',,9,,,,,,,,,,,,,,' }] }), 400, 1031);
    assertError(await s0.api.put(`${X}/${s.id}/conditionalformats`, { rules: [{ query: rule.query }] }), 400, 1012);
    assertError(await s0.api.put(`${X}/${s.id}/conditionalformats`, { rules: [{ ...rule, columnIds: [42] }] }), 400, 1036);
    assertError(await s0.api.put(`${X}/${s.id}/conditionalformats`, { rules: [{ ...rule, query: { criteria: [] } }] }), 400, 1183);
    assertError(await s0.api.put(`${X}/${s.id}/conditionalformats`, {}), 400, 1012);
    const still = await s0.api.get(`${X}/${s.id}/conditionalformats`);
    assert.equal(still.body.totalCount, 1);

    // once no rule uses it, the column can go; a copy keeps the rules on its own columns
    const copy = await s0.api.post(`/sheets/${s.id}/copy`, { destinationType: 'home', newName: 'cf copy' });
    assert.equal(copy.status, 200);
    const copyRules = (await s0.api.get(`${X}/${copy.body.result.id}/conditionalformats`)).body.data;
    const copyCols = (await s0.api.get(`/sheets/${copy.body.result.id}/columns`)).body.data as Array<{ id: number; title: string }>;
    assert.deepEqual(copyRules[0].query.criteria[0].columnId, copyCols.find((c) => c.title === 'Score')!.id);
    assert.equal((await s0.api.put(`${X}/${s.id}/conditionalformats`, { rules: [] })).status, 200);
    assert.equal((await s0.api.del(`/sheets/${s.id}/columns/${s.col.Points!.id}`)).status, 200);
  });
});

describe('filter types', () => {
  test('a shared filter made personal by an admin becomes that admin\'s; others no longer see or apply it', async () => {
    const s = await taskSheet('t1');
    const u = await makeUser(s0.t, s0.api, 'filter-admin2@example.com');
    assert.equal((await s0.api.post(`/sheets/${s.id}/shares`, { email: 'filter-admin2@example.com', accessLevel: 'ADMIN' })).status, 200);
    const other = client(s0.t.base, u.token);
    const shared = await s0.api.post(`${X}/${s.id}/filters`, { name: 'team', filterType: 'SHARED', query: { criteria: [{ columnId: s.col.Points!.id, operator: 'IS_NUMBER' }] }, applied: true });
    assert.equal(shared.status, 200);
    const id = shared.body.result.id as number;
    const made = await other.put(`${X}/${s.id}/filters/${id}`, { filterType: 'PERSONAL', applied: true });
    assert.equal(made.status, 200, JSON.stringify(made.body));
    assert.equal(made.body.result.filterType, 'PERSONAL');
    assert.equal(made.body.result.applied, true);
    assert.deepEqual((await other.get(`${X}/${s.id}/filters`)).body.data.map((f: { id: number }) => f.id), [id]);
    // the creator neither sees it nor has it applied any more
    assert.deepEqual((await s0.api.get(`${X}/${s.id}/filters`)).body.data, []);
    assert.ok((await sheetRows(s.id, '?include=filters')).rows.every((r) => r.filteredOut === false));
  });
});
