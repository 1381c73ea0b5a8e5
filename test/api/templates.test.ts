import { test } from 'node:test';
import assert from 'node:assert/strict';
import smartsheet from 'smartsheet';
import { serverForFile } from '../helpers/setup.ts';
import { assertError, makeSheet, makeUser } from '../helpers/sheets.ts';
import { createdSince, listedIds } from '../helpers/http.ts';

// Templates: the public ones sheetd ships, Save as Template (sheetd extension), List Templates,
// and Create Sheet (home, folder, workspace) from a template with include options.
const s = serverForFile();

type Tpl = { id: number; name: string; description?: string; type: string; accessLevel: string; blank?: boolean; categories?: string[]; tags?: string[]; locale?: string };

async function publicByName(): Promise<Record<string, Tpl>> {
  const res = await s.api.get('/templates/public');
  assert.equal(res.status, 200, res.text);
  return Object.fromEntries((res.body.data as Tpl[]).map((t) => [t.name, t]));
}

const getSheet = async (id: number, q = '') => {
  const r = await s.api.get(`/sheets/${id}${q}`);
  assert.equal(r.status, 200, r.text);
  return r.body as { name: string; columns: Array<{ id: number; title: string; type: string; options?: string[]; primary?: boolean }>; rows: Array<{ id: number; cells: Array<{ columnId: number; value?: unknown; linkInFromCell?: unknown }>; discussions?: unknown[]; attachments?: unknown[] }>; source?: { id: number; type: string } };
};

test('List Public Templates: blank sheet, project plan, task list and issue tracker, paged', async () => {
  const res = await s.api.get('/templates/public');
  assert.equal(res.status, 200);
  assert.equal(res.body.totalCount, 4);
  assert.equal(res.body.pageNumber, 1);
  const byName = await publicByName();
  assert.deepEqual(Object.keys(byName).sort(), ['Blank Sheet', 'Issue Tracker', 'Project Plan', 'Task List']);
  const plan = byName['Project Plan']!;
  assert.equal(plan.type, 'sheet');
  assert.equal(plan.accessLevel, 'VIEWER');
  assert.equal(plan.blank, false);
  assert.equal(plan.locale, 'en_US');
  assert.ok(plan.description && plan.description.length > 0);
  assert.ok(Number.isSafeInteger(plan.id) && plan.id >= 2 ** 40);
  const page2 = await s.api.get('/templates/public?pageSize=3&page=2');
  assert.equal(page2.body.data.length, 1);
  // the same ids on every server: clients may keep them
  assert.equal(byName['Task List']!.id, 8510718851534753);
});

test('Create Sheet from a public template in home, a folder and a workspace; include=data brings the sample rows', async () => {
  const { 'Project Plan': plan, 'Issue Tracker': issues } = await publicByName();
  const bare = await s.api.post('/sheets', { name: 'From plan', fromId: plan!.id });
  assert.equal(bare.status, 200, bare.text);
  const sheet = await getSheet(bare.body.result.id, '?include=source');
  assert.equal(sheet.name, 'From plan');
  assert.deepEqual(sheet.columns.map((c) => c.title), ['Task Name', 'Assigned To', 'Start', 'Finish', 'Duration', 'Predecessors', 'Status', '% Complete', 'Comments']);
  assert.equal(sheet.columns.find((c) => c.title === 'Start')!.type, 'ABSTRACT_DATETIME');
  assert.deepEqual(sheet.columns.find((c) => c.title === 'Status')!.options, ['Not Started', 'In Progress', 'Complete', 'On Hold']);
  assert.equal(sheet.rows.length, 0);
  assert.deepEqual(sheet.source, { id: plan!.id, type: 'template' });

  const folder = (await s.api.post('/home/folders', { name: 'Tpl folder' })).body.result.id as number;
  const inFolder = await s.api.post(`/folders/${folder}/sheets?include=data`, { name: 'Plan with data', fromId: plan!.id });
  assert.equal(inFolder.status, 200, inFolder.text);
  const withData = await getSheet(inFolder.body.result.id);
  assert.equal(withData.rows.length, 6);
  const startCol = withData.columns.find((c) => c.title === 'Start')!.id;
  const nameCol = withData.columns.find((c) => c.title === 'Task Name')!.id;
  assert.equal(withData.rows[0]!.cells.find((c) => c.columnId === nameCol)!.value, 'Kick-off');
  // a project date as project sheets give them (the day's start of work), not a bare day
  assert.equal(withData.rows[0]!.cells.find((c) => c.columnId === startCol)!.value, '2026-01-05T08:00:00');
  const listed = (await s.api.get(`/folders/${folder}`)).body.sheets as Array<{ id: number }>;
  assert.ok(listed.some((x) => x.id === inFolder.body.result.id));

  const ws = (await s.api.post('/workspaces', { name: 'Tpl ws' })).body.result.id as number;
  const inWs = await s.api.post(`/workspaces/${ws}/sheets?include=data,attachments,discussions,cellLinks,forms`, { name: 'Issues', fromId: issues!.id });
  assert.equal(inWs.status, 200, inWs.text);
  const tracker = await getSheet(inWs.body.result.id);
  assert.equal(tracker.rows.length, 2);
  assert.ok(((await s.api.get(`/workspaces/${ws}`)).body.sheets as Array<{ id: number }>).some((x) => x.id === inWs.body.result.id));
});

test('Save as Template keeps what include names; List Templates shows it; a sheet made from it gets that', async () => {
  const src = await makeSheet(s.api, 'Weekly report', [{ title: 'Item', type: 'TEXT_NUMBER', primary: true }, { title: 'Owner', type: 'TEXT_NUMBER' }]);
  const other = await makeSheet(s.api, 'Link source', [{ title: 'Name', type: 'TEXT_NUMBER', primary: true }]);
  const otherRow = (await s.api.post(`/sheets/${other.id}/rows`, [{ toBottom: true, cells: [{ columnId: other.col.Name!.id, value: 'linked value' }] }])).body.result[0].id as number;
  const rows = (await s.api.post(`/sheets/${src.id}/rows`, [
    { toBottom: true, cells: [{ columnId: src.col.Item!.id, value: 'Budget' }, { columnId: src.col.Owner!.id, value: 'Ann' }] },
    { toBottom: true, cells: [{ columnId: src.col.Item!.id, value: 'Hiring' }] },
  ])).body.result as Array<{ id: number }>;
  const linked = await s.api.put(`/sheets/${src.id}/rows`, [{ id: rows[1]!.id, cells: [{ columnId: src.col.Owner!.id, value: null, linkInFromCell: { sheetId: other.id, rowId: otherRow, columnId: other.col.Name!.id } }] }]);
  assert.equal(linked.status, 200, linked.text);
  assert.equal((await s.api.post(`/sheets/${src.id}/rows/${rows[0]!.id}/discussions`, { comment: { text: 'Check the numbers' } })).status, 200);
  assert.equal((await s.api.post(`/sheets/${src.id}/rows/${rows[0]!.id}/attachments`, { attachmentType: 'LINK', url: 'https://example.com/budget', name: 'Budget doc' })).status, 200);

  const saved = await s.api.post(`/sheetd/sheets/${src.id}/template?include=data,attachments,discussions,cellLinks`, { name: 'Weekly template', description: 'Every Monday' });
  assert.equal(saved.status, 200, saved.text);
  const tpl = saved.body.result as Tpl;
  assert.equal(tpl.name, 'Weekly template');
  assert.equal(tpl.description, 'Every Monday');
  assert.equal(tpl.accessLevel, 'OWNER');
  const mine = (await s.api.get('/templates')).body.data as Tpl[];
  assert.deepEqual(mine.find((t) => t.id === tpl.id), { id: tpl.id, name: 'Weekly template', type: 'sheet', accessLevel: 'OWNER', description: 'Every Monday' });
  assert.ok(!((await s.api.get('/sheets')).body.data as Array<{ id: number }>).some((x) => x.id === tpl.id), 'a template is not a sheet of List Sheets');
  assert.ok(!((await s.api.get('/templates/public')).body.data as Tpl[]).some((t) => t.id === tpl.id));

  const full = await s.api.post('/sheets?include=data,attachments,discussions,cellLinks', { name: 'This week', fromId: tpl.id });
  assert.equal(full.status, 200, full.text);
  const week = await getSheet(full.body.result.id, '?include=discussions,attachments,source');
  assert.deepEqual(week.source, { id: tpl.id, type: 'template' });
  assert.equal(week.rows.length, 2);
  const item = week.columns.find((c) => c.title === 'Item')!.id;
  const owner = week.columns.find((c) => c.title === 'Owner')!.id;
  assert.deepEqual(week.rows.map((r) => r.cells.find((c) => c.columnId === item)?.value), ['Budget', 'Hiring']);
  assert.equal((week.rows[0]!.discussions ?? []).length, 1);
  assert.equal((week.rows[0]!.attachments ?? []).length, 1);
  assert.ok(week.rows[1]!.cells.find((c) => c.columnId === owner)!.linkInFromCell, 'include=cellLinks keeps the link in');

  const bare = await s.api.post('/sheets', { name: 'Structure only', fromId: tpl.id });
  const structure = await getSheet(bare.body.result.id);
  assert.deepEqual(structure.columns.map((c) => c.title), ['Item', 'Owner']);
  assert.equal(structure.rows.length, 0);

  const noLinks = await s.api.post('/sheets?include=data', { name: 'Data only', fromId: tpl.id });
  const dataOnly = await getSheet(noLinks.body.result.id, '?include=discussions');
  assert.equal(dataOnly.rows.length, 2);
  assert.equal((dataOnly.rows[0]!.discussions ?? []).length, 0);
  assert.equal(dataOnly.rows[1]!.cells.find((c) => c.columnId === dataOnly.columns.find((x) => x.title === 'Owner')!.id)?.linkInFromCell, undefined);

  // a template saved without data holds none to give
  const empty = (await s.api.post(`/sheetd/sheets/${src.id}/template`, { name: 'Empty template' })).body.result as Tpl;
  assert.equal(empty.description, undefined);
  const fromEmpty = await s.api.post('/sheets?include=data', { name: 'From empty', fromId: empty.id });
  assert.equal((await getSheet(fromEmpty.body.result.id)).rows.length, 0);
});

test('templates: errors change nothing; another user sees neither the template nor can use it', async () => {
  const src = await makeSheet(s.api, 'Private source', [{ title: 'A', type: 'TEXT_NUMBER', primary: true }]);
  const tpl = (await s.api.post(`/sheetd/sheets/${src.id}/template`, { name: 'Private template' })).body.result as Tpl;
  const u = await makeUser(s.t, s.api, 'tpl-other@example.com');
  assert.deepEqual((await s.api.get('/templates', { token: u.token })).body.data, []);
  assertError(await s.api.post('/sheets', { name: 'x', fromId: tpl.id }, { token: u.token }), 404, 1033);
  assertError(await s.api.post('/sheets', { name: 'x', fromId: 123456789 }), 404, 1033);
  assertError(await s.api.post('/sheets', { fromId: tpl.id }), 400, 1012);
  assertError(await s.api.post(`/sheetd/sheets/${src.id}/template`, { name: 'x' }, { token: u.token }), 404, 1006);
  const before = await listedIds(s.api, '/templates');
  assertError(await s.api.post(`/sheetd/sheets/${src.id}/template`, {}), 400, 1012);
  assertError(await s.api.post(`/sheetd/sheets/${src.id}/template`, { name: 'x', description: 5 }), 400, 1031);
  assertError(await s.api.post(`/sheetd/sheets/${src.id}/template?include=shares`, { name: 'x' }), 400, 1018);
  assertError(await s.api.post('/sheetd/sheets/123456789/template', { name: 'x' }), 404, 1006);
  assert.deepEqual(await createdSince(s.api, '/templates', before, ['x']), []);
});

test('smartsheet SDK: sheets.createSheetFromExisting from public and user templates, in home, folder and workspace', async () => {
  const c = smartsheet.createClient({ accessToken: s.t.adminToken, baseUrl: `${s.t.base}/`, logLevel: 'error' });
  const { 'Task List': tasks } = await publicByName();
  const home = await c.sheets.createSheetFromExisting({ body: { name: 'SDK tasks', fromId: tasks!.id }, queryParameters: { include: 'data' } });
  assert.equal(home.resultCode, 0);
  assert.equal((await getSheet(home.result.id)).rows.length, 3);
  const folder = (await s.api.post('/home/folders', { name: 'SDK tpl folder' })).body.result.id as number;
  const inFolder = await c.sheets.createSheetFromExisting({ folderId: folder, body: { name: 'SDK tasks in folder', fromId: tasks!.id } });
  assert.ok(((await s.api.get(`/folders/${folder}`)).body.sheets as Array<{ id: number }>).some((x) => x.id === inFolder.result.id));
  const src = await makeSheet(s.api, 'SDK source', [{ title: 'A', type: 'TEXT_NUMBER', primary: true }]);
  await s.api.post(`/sheets/${src.id}/rows`, [{ toBottom: true, cells: [{ columnId: src.col.A!.id, value: 'one' }] }]);
  const tpl = (await s.api.post(`/sheetd/sheets/${src.id}/template?include=data`, { name: 'SDK template' })).body.result as Tpl;
  const ws = (await s.api.post('/workspaces', { name: 'SDK tpl ws' })).body.result.id as number;
  const inWs = await c.sheets.createSheetFromExisting({ workspaceId: ws, body: { name: 'SDK from mine', fromId: tpl.id }, queryParameters: { include: 'data' } });
  const made = await c.sheets.getSheet({ id: inWs.result.id });
  assert.equal(made.rows.length, 1);
  assert.equal(made.rows[0]!.cells[0]!.value, 'one');
});

test('the standard templates: globalTemplate BLANK_SHEET, TASK_LIST, PROJECT_SHEET; the Blank Sheet has the public id; each serves as fromId in home, a folder and a workspace', async () => {
  const list = (await s.api.get('/templates/public')).body.data as Array<Tpl & { globalTemplate?: string }>;
  const byKind = Object.fromEntries(list.filter((t) => t.globalTemplate).map((t) => [t.globalTemplate!, t]));
  assert.deepEqual(Object.keys(byKind).sort(), ['BLANK_SHEET', 'PROJECT_SHEET', 'TASK_LIST']);
  assert.equal(byKind.BLANK_SHEET!.id, 7881304550205316);
  assert.equal(byKind.BLANK_SHEET!.blank, true);
  assert.equal(byKind.PROJECT_SHEET!.blank, false);

  const folder = (await s.api.post('/home/folders', { name: 'Std folder' })).body.result.id as number;
  const ws = (await s.api.post('/workspaces', { name: 'Std ws' })).body.result.id as number;
  for (const [kind, t] of Object.entries(byKind)) {
    for (const [where, path] of [['home', '/sheets'], ['folder', `/folders/${folder}/sheets`], ['workspace', `/workspaces/${ws}/sheets`]] as const) {
      const res = await s.api.post(path, { name: `${kind} in ${where}`, fromId: t.id });
      assert.equal(res.status, 200, `${kind} in ${where}: ${res.text}`);
      const sheet = await getSheet(res.body.result.id, '?include=source') as Awaited<ReturnType<typeof getSheet>> & { dependenciesEnabled: boolean; projectSettings?: unknown };
      assert.deepEqual(sheet.source, { id: t.id, type: 'template' });
      assert.equal(sheet.dependenciesEnabled, kind === 'PROJECT_SHEET', `${kind} dependenciesEnabled`);
    }
  }
  const blank = await getSheet((await s.api.post('/sheets', { name: 'Blank', fromId: 7881304550205316 })).body.result.id);
  assert.deepEqual(blank.columns.map((c) => [c.title, c.type, c.primary === true]), [['Primary Column', 'TEXT_NUMBER', true], ...[2, 3, 4, 5, 6].map((n) => [`Column${n}`, 'TEXT_NUMBER', false])]);
  assert.equal(blank.rows.length, 0);

  // the project sheet: start, end, duration and predecessor columns, dependencies enabled, a working week
  const projRes = await s.api.post('/sheets?include=data', { name: 'Project', fromId: byKind.PROJECT_SHEET!.id });
  const proj = await getSheet(projRes.body.result.id) as Awaited<ReturnType<typeof getSheet>> & { dependenciesEnabled: boolean; projectSettings?: { workingDays: string[]; lengthOfDay: number } };
  const types = Object.fromEntries(proj.columns.map((c) => [c.title, c.type]));
  assert.deepEqual([types.Start, types.Finish, types.Duration, types.Predecessors], ['ABSTRACT_DATETIME', 'ABSTRACT_DATETIME', 'DURATION', 'PREDECESSOR']);
  assert.equal(proj.dependenciesEnabled, true);
  assert.deepEqual(proj.projectSettings?.workingDays, ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY']);
  // its project columns take values; a sheet without dependencies still refuses such columns
  const col = Object.fromEntries(proj.columns.map((c) => [c.title, c.id]));
  const put = await s.api.put(`/sheets/${projRes.body.result.id}/rows`, [{ id: proj.rows[1]!.id, cells: [{ columnId: col.Duration, value: '3d' }, { columnId: col.Predecessors, value: '1FS' }] }]);
  assert.equal(put.status, 200, put.text);
  const added = await s.api.post(`/sheets/${projRes.body.result.id}/columns`, [{ title: 'Baseline', type: 'ABSTRACT_DATETIME', index: 9 }]);
  assert.equal(added.status, 200, added.text);
  const plain = await makeSheet(s.api, 'Not a project', [{ title: 'A', type: 'TEXT_NUMBER', primary: true }]);
  assertError(await s.api.post(`/sheets/${plain.id}/columns`, [{ title: 'Baseline', type: 'ABSTRACT_DATETIME', index: 1 }]), 400, 1142);
});
