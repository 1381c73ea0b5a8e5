import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { serverForFile } from '../helpers/setup.ts';
import { TASK_POINTS, taskPointsSheet } from '../helpers/sights.ts';
import { client, createdSince, listedIds, type Client } from '../helpers/http.ts';
import { assertError, makeSheet, makeUser } from '../helpers/sheets.ts';
import { pngBytes } from '../helpers/images.ts';

// Dashboards (sights): defined through the sheetd extension (/sheetd/sights), read, renamed,
// copied, moved, published, shared and deleted through the public paths; what the widgets show
// is read live from sheets and reports, and only from those the caller can see.
const s = serverForFile();

const columns = TASK_POINTS;
const sheetWithRows = taskPointsSheet;

async function reportOf(api: Client, sheetId: number, name: string): Promise<number> {
  const r = await api.post('/sheetd/reports', { name, scope: { sheets: [{ id: sheetId }] }, columns: [{ title: 'Task', primary: true }, { title: 'Points', type: 'TEXT_NUMBER' }] });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.result.id;
}

type Widget = { id: number; type: string; title?: string; viewMode?: number; contents: Record<string, unknown> };
const widgetOf = (sight: { widgets: Widget[] }, type: string) => sight.widgets.find((w) => w.type === type)!;

/** A dashboard with one widget of every type, over a sheet and a report of the admin's. */
async function fullDashboard(tag: string) {
  const sh = await sheetWithRows(s.api, `${tag} data`, [[`${tag} alpha`, 5], [`${tag} beta`, 7]]);
  const reportId = await reportOf(s.api, sh.id, `${tag} report`);
  const widgets = [
    { type: 'TITLE', xPosition: 0, yPosition: 0, width: 12, height: 1, contents: { htmlContent: `<p>${tag} heading</p>` } },
    { type: 'RICHTEXT', title: 'Notes', xPosition: 0, yPosition: 1, width: 6, height: 2, viewMode: 2, contents: { htmlContent: `<p>${tag} notes<script>alert(1)</script><img src=x onerror=alert(2)></p>` } },
    { type: 'METRIC', title: 'Points', xPosition: 6, yPosition: 1, width: 6, height: 2, contents: { sheetId: sh.id, cellData: [{ rowId: sh.rowIds[0], columnId: sh.col.Points!.id, label: 'Alpha points' }, { rowId: sh.rowIds[1], columnId: sh.col.Task!.id }] } },
    { type: 'GRIDGANTT', xPosition: 0, yPosition: 3, width: 12, height: 4, contents: { reportId } },
    { type: 'SHORTCUTLIST', xPosition: 0, yPosition: 7, width: 4, height: 2, contents: { shortcutData: [{ label: 'The sheet', hyperlink: { sheetId: sh.id } }, { hyperlink: { reportId } }, { label: 'Docs', hyperlink: { url: 'https://example.com/docs' } }] } },
    { type: 'WEBCONTENT', xPosition: 4, yPosition: 7, width: 4, height: 2, contents: { url: 'https://example.com/embed' } },
    { type: 'IMAGE', xPosition: 8, yPosition: 7, width: 4, height: 2, contents: { fileName: 'logo.png', fit: 'FILL' } },
    { type: 'CHART', xPosition: 0, yPosition: 9, width: 6, height: 3, contents: { sheetId: sh.id, selectionRanges: [{ sourceColumnId1: sh.col.Task!.id, sourceColumnId2: sh.col.Points!.id, sourceRowId1: sh.rowIds[0], sourceRowId2: sh.rowIds[1] }], series: [{ seriesType: 'BAR', title: 'Points' }] } },
    { type: 'SHORTCUT', xPosition: 6, yPosition: 9, width: 3, height: 1, contents: { shortcutData: [{ hyperlink: { url: 'https://example.com/one' } }] } },
    { type: 'SHORTCUTICON', xPosition: 9, yPosition: 9, width: 3, height: 1, contents: { shortcutData: [{ label: 'Report', hyperlink: { reportId } }] } },
  ];
  const created = await s.api.post('/sheetd/sights', { name: `${tag} dashboard`, widgets });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  return { sheet: sh, reportId, sight: created.body.result as { id: number; name: string; widgets: Widget[] } };
}

describe('defining dashboards (sheetd extension)', () => {
  test('create answers the definition; Get Dashboard shows every widget with live contents', async () => {
    const f = await fullDashboard('d1');
    assert.equal(f.sight.widgets.length, 10);
    assert.ok(f.sight.widgets.every((w) => typeof w.id === 'number'));
    const got = await s.api.get(`/sights/${f.sight.id}?level=2`);
    assert.equal(got.status, 200, JSON.stringify(got.body));
    const d = got.body;
    assert.equal(d.name, 'd1 dashboard');
    assert.equal(d.accessLevel, 'OWNER');
    assert.equal(d.columnCount, 12);
    assert.match(d.permalink, /\/sights\//);
    assert.deepEqual(d.widgets.map((w: Widget) => w.type), ['TITLE', 'RICHTEXT', 'METRIC', 'GRIDGANTT', 'SHORTCUTLIST', 'WEBCONTENT', 'IMAGE', 'CHART', 'SHORTCUT', 'SHORTCUTICON']);
    // rich text keeps its text and loses scripts and event handlers
    const rich = widgetOf(d, 'RICHTEXT').contents.htmlContent as string;
    assert.match(rich, /d1 notes/);
    assert.doesNotMatch(rich, /script|onerror|<img/);
    assert.equal(widgetOf(d, 'RICHTEXT').viewMode, 2);
    // METRIC: the cells as they are now
    const metric = widgetOf(d, 'METRIC').contents as { cellData: Array<{ label: string; cell: { value: unknown }; objectValue: unknown }>; columns: Array<{ title: string }> };
    assert.deepEqual(metric.cellData.map((c) => [c.label, c.cell.value]), [['Alpha points', 5], ['Task', 'd1 beta']]);
    assert.deepEqual(metric.columns.map((c) => c.title).sort(), ['Points', 'Task']);
    // GRIDGANTT: the report's rows as HTML
    const grid = widgetOf(d, 'GRIDGANTT').contents.htmlContent as string;
    assert.match(grid, /<th>Task<\/th>/);
    assert.match(grid, /d1 alpha/);
    // shortcuts: links to what the caller can see carry their permalink, a report's label its name
    const items = widgetOf(d, 'SHORTCUTLIST').contents.shortcutData as Array<{ label: string; hyperlink: { url: string; sheetId?: number; reportId?: number } }>;
    assert.deepEqual(items.map((i) => i.label), ['The sheet', 'd1 report', 'Docs']);
    assert.match(items[0]!.hyperlink.url, /\/sheets\//);
    assert.equal(items[0]!.hyperlink.sheetId, f.sheet.id);
    assert.equal(items[2]!.hyperlink.url, 'https://example.com/docs');
    assert.equal(widgetOf(d, 'WEBCONTENT').contents.url, 'https://example.com/embed');
    assert.equal(widgetOf(d, 'CHART').contents.sheetId, f.sheet.id);
    // level below 2: no viewMode
    const low = await s.api.get(`/sights/${f.sight.id}`);
    assert.equal(widgetOf(low.body, 'RICHTEXT').viewMode, undefined);
  });

  test('contents.type is the contents type the SDKs read: SHORTCUT for every shortcut widget, METRIC for metrics; the widget\'s own type otherwise', async () => {
    const f = await fullDashboard('ct');
    // the Java, C# and Python SDKs pick the contents' class by contents.type and read SHORTCUTLIST,
    // SHORTCUTICON and SHEETSUMMARY contents as nothing
    const want: Record<string, string> = {
      TITLE: 'TITLE', RICHTEXT: 'RICHTEXT', METRIC: 'METRIC', GRIDGANTT: 'GRIDGANTT', SHORTCUTLIST: 'SHORTCUT', WEBCONTENT: 'WEBCONTENT',
      IMAGE: 'IMAGE', CHART: 'CHART', SHORTCUT: 'SHORTCUT', SHORTCUTICON: 'SHORTCUT',
    };
    for (const level of [0, 4]) {
      const d = (await s.api.get(`/sights/${f.sight.id}?level=${level}`)).body;
      assert.deepEqual(Object.fromEntries(d.widgets.map((w: Widget) => [w.type, w.contents.type])), want, `level ${level}`);
      // the shortcut items are still there, with their links
      assert.equal((widgetOf(d, 'SHORTCUTLIST').contents.shortcutData as unknown[]).length, 3);
      assert.equal((widgetOf(d, 'SHORTCUTICON').contents.shortcutData as Array<{ label: string }>)[0]!.label, 'Report');
    }
  });

  test('cells and report rows are read live: a changed cell shows at the next Get Dashboard', async () => {
    const f = await fullDashboard('d2');
    const upd = await s.api.put(`/sheets/${f.sheet.id}/rows`, [{ id: f.sheet.rowIds[0], cells: [{ columnId: f.sheet.col.Points!.id, value: 42 }, { columnId: f.sheet.col.Task!.id, value: 'd2 changed' }] }]);
    assert.equal(upd.status, 200, JSON.stringify(upd.body));
    const d = (await s.api.get(`/sights/${f.sight.id}`)).body;
    const metric = widgetOf(d, 'METRIC').contents as { cellData: Array<{ cell: { value: unknown } }> };
    assert.equal(metric.cellData[0]!.cell.value, 42);
    assert.match(widgetOf(d, 'GRIDGANTT').contents.htmlContent as string, /d2 changed/);
  });

  test('PUT /sheetd/sights replaces the widgets; widgets naming their id keep it and go up a version', async () => {
    const f = await fullDashboard('d3');
    const title = widgetOf(f.sight, 'TITLE');
    const res = await s.api.put(`/sheetd/sights/${f.sight.id}`, { widgets: [{ id: title.id, type: 'TITLE', width: 12, contents: { htmlContent: '<p>new</p>' } }, { type: 'WEBCONTENT', yPosition: 1, contents: { url: 'https://example.com/x' } }], backgroundColor: '#E6F5FE' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const d = (await s.api.get(`/sights/${f.sight.id}`)).body;
    assert.equal(d.widgets.length, 2);
    assert.equal(d.widgets[0].id, title.id);
    assert.equal(d.widgets[0].version, 2);
    assert.equal(d.widgets[0].contents.htmlContent, '<p>new</p>');
    assert.equal(d.backgroundColor, '#E6F5FE');
  });

  test('bad definitions get their catalogued error and change nothing', async () => {
    const sh = await sheetWithRows(s.api, 'd4 data', [['x', 1]]);
    const before = await listedIds(s.api, '/sights');
    assertError(await s.api.post('/sheetd/sights', { widgets: [] }), 400, 1012);
    assertError(await s.api.post('/sheetd/sights', { name: 'bad', widgets: [{ type: 'NOPE', contents: {} }] }), 400, 1031);
    assertError(await s.api.post('/sheetd/sights', { name: 'bad', widgets: [{ type: 'TITLE' }] }), 400, 1012);
    assertError(await s.api.post('/sheetd/sights', { name: 'bad', widgets: [{ type: 'TITLE', xPosition: 10, width: 4, contents: { htmlContent: 'x' } }] }), 400, 1031);
    assertError(await s.api.post('/sheetd/sights', { name: 'bad', widgets: [{ type: 'WEBCONTENT', contents: { url: 'javascript:alert(1)' } }] }), 400, 1031);
    assertError(await s.api.post('/sheetd/sights', { name: 'bad', widgets: [{ type: 'METRIC', contents: { sheetId: sh.id, cellData: [{ rowId: 12345, columnId: sh.col.Task!.id }] } }] }), 400, 1031);
    assertError(await s.api.post('/sheetd/sights', { name: 'bad', widgets: [{ type: 'SHORTCUT', contents: { shortcutData: [{ hyperlink: { sheetId: sh.id, url: 'https://example.com' } }] } }] }), 400, 1112);
    assertError(await s.api.post('/sheetd/sights', { name: 'bad', widgets: [{ type: 'SHORTCUT', contents: { shortcutData: [{ hyperlink: {} }] } }] }), 400, 1117);
    assertError(await s.api.post('/sheetd/sights', { name: 'bad', widgets: 'x' }), 400, 1031);
    // a sheet the writer cannot see
    const other = await makeUser(s.t, s.api, 'd4.other@example.com');
    assertError(await s.api.post('/sheetd/sights', { name: 'bad', widgets: [{ type: 'METRIC', contents: { sheetId: sh.id, cellData: [{ rowId: sh.rowIds[0], columnId: sh.col.Task!.id }] } }] }, { token: other.token }), 404, 1006);
    assert.deepEqual(await createdSince(s.api, '/sights', before, ['bad']), []);
  });
});

describe('dashboard operations', () => {
  test('list, rename, copy, move into a folder, delete', async () => {
    const f = await fullDashboard('o1');
    const list = await s.api.get('/sights?includeAll=true');
    const mine = list.body.data.find((x: { id: number }) => x.id === f.sight.id);
    assert.deepEqual(Object.keys(mine).sort(), ['accessLevel', 'createdAt', 'id', 'modifiedAt', 'name', 'permalink']);
    const renamed = await s.api.put(`/sights/${f.sight.id}`, { name: 'o1 renamed' });
    assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
    assert.equal(renamed.body.result.name, 'o1 renamed');
    assertError(await s.api.put(`/sights/${f.sight.id}`, { name: '' }), 400, 1012);

    const copy = await s.api.post(`/sights/${f.sight.id}/copy`, { destinationType: 'home', newName: 'o1 copy' });
    assert.equal(copy.status, 200, JSON.stringify(copy.body));
    assert.equal(copy.body.result.name, 'o1 copy');
    assert.notEqual(copy.body.result.id, f.sight.id);
    const copied = (await s.api.get(`/sights/${copy.body.result.id}?include=source`)).body;
    assert.equal(copied.widgets.length, 10);
    assert.deepEqual(copied.source, { id: f.sight.id, type: 'sight' });

    const folder = (await s.api.post('/home/folders', { name: 'o1 folder' })).body.result.id;
    const moved = await s.api.post(`/sights/${f.sight.id}/move`, { destinationType: 'folder', destinationId: folder });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    const inFolder = (await s.api.get(`/folders/${folder}`)).body;
    assert.deepEqual(inFolder.sights.map((x: { id: number }) => x.id), [f.sight.id]);
    const home = (await s.api.get('/home')).body;
    assert.ok(home.sights.some((x: { id: number }) => x.id === copy.body.result.id));
    assert.ok(!home.sights.some((x: { id: number }) => x.id === f.sight.id));
    const children = (await s.api.get(`/folders/${folder}/children?childrenResourceTypes=sights`)).body;
    assert.deepEqual(children.data.map((x: { id: number; resourceType: string }) => [x.id, x.resourceType]), [[f.sight.id, 'sight']]);

    assertError(await s.api.post(`/sights/${f.sight.id}/move`, { destinationType: 'folder' }), 400, 1012);
    assert.equal((await s.api.del(`/sights/${f.sight.id}`)).status, 200);
    assertError(await s.api.get(`/sights/${f.sight.id}`), 404, 1006);
    assert.deepEqual((await s.api.get(`/folders/${folder}`)).body.sights, []);
  });

  test('favorites of type sight', async () => {
    const f = await fullDashboard('o2');
    const add = await s.api.post('/favorites', [{ type: 'sight', objectId: f.sight.id }]);
    assert.equal(add.status, 200, JSON.stringify(add.body));
    const favs = (await s.api.get('/favorites?include=name')).body.data;
    assert.ok(favs.some((x: { type: string; objectId: number }) => x.type === 'sight' && x.objectId === f.sight.id));
    assert.equal((await s.api.get('/home')).body.sights.find((x: { id: number }) => x.id === f.sight.id).favorite, true);
    assertError(await s.api.post('/favorites', [{ type: 'sight', objectId: 999999 }]), 404, 1006);
  });

  test('dashboards in workspaces: listed, copied with the workspace (pointing at the copied sheet), deleted with it', async () => {
    const ws = (await s.api.post('/workspaces', { name: 'o3 ws' })).body.result.id;
    const sh = (await s.api.post(`/workspaces/${ws}/sheets`, { name: 'o3 sheet', columns })).body.result;
    const taskCol = sh.columns.find((c: { title: string }) => c.title === 'Task').id;
    const rows = (await s.api.post(`/sheets/${sh.id}/rows`, [{ toBottom: true, cells: [{ columnId: taskCol, value: 'o3 row' }] }])).body.result;
    const created = await s.api.post('/sheetd/sights', { name: 'o3 dash', destinationType: 'workspace', destinationId: ws, widgets: [{ type: 'METRIC', contents: { sheetId: sh.id, cellData: [{ rowId: rows[0].id, columnId: taskCol }] } }] });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const id = created.body.result.id;
    assert.deepEqual(created.body.result.location, { destinationType: 'workspace', destinationId: ws });
    const wsBody = (await s.api.get(`/workspaces/${ws}`)).body;
    assert.deepEqual(wsBody.sights.map((x: { id: number }) => x.id), [id]);
    assert.deepEqual((await s.api.get(`/sights/${id}`)).body.workspace, { id: ws, name: 'o3 ws' });

    const copy = await s.api.post(`/workspaces/${ws}/copy?include=data`, { newName: 'o3 ws copy' });
    assert.equal(copy.status, 200, JSON.stringify(copy.body));
    const wsCopy = (await s.api.get(`/workspaces/${copy.body.result.id}`)).body;
    assert.equal(wsCopy.sights.length, 1);
    const sheetCopy = wsCopy.sheets[0].id;
    const dashCopy = (await s.api.get(`/sights/${wsCopy.sights[0].id}`)).body;
    const metric = dashCopy.widgets[0].contents;
    assert.equal(metric.sheetId, sheetCopy);
    assert.equal(metric.cellData[0].cell.value, 'o3 row');

    assert.equal((await s.api.del(`/workspaces/${ws}`)).status, 200);
    assertError(await s.api.get(`/sights/${id}`), 404, 1006);
  });
});

describe('access, shares and scopes', () => {
  test('shares as sheet shares; a viewer sees only what it can see; EDITOR is 1166; non-owners cannot delete', async () => {
    const f = await fullDashboard('a1');
    const u = await makeUser(s.t, s.api, 'a1.viewer@example.com');
    const them = client(s.t.base, u.token);
    assertError(await them.get(`/sights/${f.sight.id}`), 404, 1006);
    assertError(await s.api.post(`/sights/${f.sight.id}/shares`, { email: 'a1.viewer@example.com', accessLevel: 'EDITOR' }), 400, 1166);
    const shared = await s.api.post(`/sights/${f.sight.id}/shares`, { email: 'a1.viewer@example.com', accessLevel: 'VIEWER' });
    assert.equal(shared.status, 200, JSON.stringify(shared.body));
    const shareId = shared.body.result.id;
    const list = (await s.api.get(`/sights/${f.sight.id}/shares`)).body;
    assert.deepEqual(list.data.map((x: { accessLevel: string }) => x.accessLevel), ['OWNER', 'VIEWER']);
    assert.equal((await s.api.get(`/sights/${f.sight.id}/shares/${shareId}`)).body.email, 'a1.viewer@example.com');

    const d = (await them.get(`/sights/${f.sight.id}`)).body;
    assert.equal(d.accessLevel, 'VIEWER');
    // the sheet and report are not shared to them: no cells, no rows, no links to them
    const metric = widgetOf(d, 'METRIC').contents as { cellData: Array<{ cell?: unknown }>; columns?: unknown };
    assert.ok(metric.cellData.every((c) => c.cell === undefined));
    assert.equal(metric.columns, undefined);
    assert.equal(widgetOf(d, 'GRIDGANTT').contents.htmlContent, undefined);
    const items = widgetOf(d, 'SHORTCUTLIST').contents.shortcutData as Array<{ label: string }>;
    assert.deepEqual(items.map((i) => i.label), ['Docs']);
    assert.ok((await them.get('/sights')).body.data.some((x: { id: number }) => x.id === f.sight.id));
    assert.ok((await them.get('/home')).body.sights.some((x: { id: number }) => x.id === f.sight.id));

    assertError(await them.put(`/sights/${f.sight.id}`, { name: 'theirs' }), 403, 1004);
    assertError(await them.del(`/sights/${f.sight.id}`), 403, 1004);
    assertError(await them.put(`/sights/${f.sight.id}/publish`, { readOnlyFullEnabled: true }), 403, 1004);

    const up = await s.api.put(`/sights/${f.sight.id}/shares/${shareId}`, { accessLevel: 'ADMIN' });
    assert.equal(up.status, 200, JSON.stringify(up.body));
    assertError(await s.api.put(`/sights/${f.sight.id}/shares/${shareId}`, { accessLevel: 'EDITOR' }), 400, 1166);
    assert.equal((await them.put(`/sights/${f.sight.id}`, { name: 'a1 by admin' })).status, 200);
    assertError(await them.del(`/sights/${f.sight.id}`), 403, 1004);

    // the asset form
    const asset = await s.api.get(`/shares?assetType=sight&assetId=${f.sight.id}`);
    assert.equal(asset.status, 200, JSON.stringify(asset.body));
    assert.equal(asset.body.items.length, 2);
    assert.equal((await s.api.del(`/sights/${f.sight.id}/shares/${shareId}`)).status, 200);
    assertError(await them.get(`/sights/${f.sight.id}`), 404, 1006);
  });

  test('scopes: READ_SIGHTS reads; writing needs ADMIN_SIGHTS, CREATE_SIGHTS, DELETE_SIGHTS, SHARE_SIGHTS', async () => {
    const f = await fullDashboard('a2');
    const u = await makeUser(s.t, s.api, 'a2.scoped@example.com');
    const ro = await makeUser(s.t, s.api, 'a2.reader@example.com', ['READ_SIGHTS']);
    assert.equal((await s.api.post(`/sights/${f.sight.id}/shares`, { email: 'a2.reader@example.com', accessLevel: 'ADMIN' })).status, 200);
    const reader = client(s.t.base, ro.token);
    assert.equal((await reader.get(`/sights/${f.sight.id}`)).status, 200);
    assert.equal((await reader.get(`/sights/${f.sight.id}/publish`)).status, 200);
    assert.equal((await reader.get(`/sights/${f.sight.id}/shares`)).status, 200);
    assert.equal((await reader.get(`/shares?assetType=sight&assetId=${f.sight.id}`)).status, 200);
    assertError(await reader.get(`/shares?assetType=sheet&assetId=${f.sheet.id}`), 403, 1004);
    assertError(await reader.put(`/sights/${f.sight.id}`, { name: 'x' }), 403, 1004);
    assertError(await reader.post(`/sights/${f.sight.id}/copy`, { destinationType: 'home' }), 403, 1004);
    assertError(await reader.post('/sheetd/sights', { name: 'x' }), 403, 1004);
    assertError(await reader.post(`/sights/${f.sight.id}/shares`, { email: 'a2.scoped@example.com', accessLevel: 'VIEWER' }), 403, 1004);
    const sheetsOnly = await makeUser(s.t, s.api, 'a2.sheets@example.com', ['READ_SHEETS']);
    assertError(await client(s.t.base, sheetsOnly.token).get('/sights'), 403, 1004);
    assert.ok(u.id > 0);
  });
});

describe('publishing', () => {
  test('publish: the URL serves a read-only page until unpublished', async () => {
    const f = await fullDashboard('p1');
    assert.deepEqual((await s.api.get(`/sights/${f.sight.id}/publish`)).body, { readOnlyFullEnabled: false });
    assertError(await s.api.put(`/sights/${f.sight.id}/publish`, {}), 400, 1012);
    assertError(await s.api.put(`/sights/${f.sight.id}/publish`, { readOnlyFullEnabled: true, readOnlyFullAccessibleBy: 'WORLD' }), 400, 1031);
    const on = await s.api.put(`/sights/${f.sight.id}/publish`, { readOnlyFullEnabled: true });
    assert.equal(on.status, 200, JSON.stringify(on.body));
    assert.equal(on.body.result.readOnlyFullEnabled, true);
    assert.equal(on.body.result.readOnlyFullAccessibleBy, 'ALL');
    const url = on.body.result.readOnlyFullUrl as string;
    assert.match(url, /\/published\/sights\/[A-Za-z0-9_-]+$/);
    assert.deepEqual((await s.api.get(`/sights/${f.sight.id}/publish`)).body, on.body.result);

    const pageUrl = s.t.server.url + new URL(url).pathname;
    const res = await fetch(pageUrl);
    assert.equal(res.status, 200);
    const html = await res.text();
    assert.match(html, /p1 dashboard/);
    assert.match(html, /p1 heading/);
    assert.match(html, /p1 notes/);
    assert.match(html, /Alpha points/);
    assert.match(html, /<dd>5<\/dd>/);
    assert.match(html, /p1 alpha/);
    assert.doesNotMatch(html, /<script>alert/);

    // a cell changed since shows on the page
    await s.api.put(`/sheets/${f.sheet.id}/rows`, [{ id: f.sheet.rowIds[0], cells: [{ columnId: f.sheet.col.Points!.id, value: 99 }] }]);
    assert.match(await (await fetch(pageUrl)).text(), /<dd>99<\/dd>/);

    // the organization only: a visitor without a session is sent to sign in
    const org = await s.api.put(`/sights/${f.sight.id}/publish`, { readOnlyFullEnabled: true, readOnlyFullAccessibleBy: 'ORG' });
    assert.equal(org.body.result.readOnlyFullUrl, url);
    const redirect = await fetch(pageUrl, { redirect: 'manual' });
    assert.equal(redirect.status, 302);
    assert.match(redirect.headers.get('location') ?? '', /^\/login\?next=/);

    const off = await s.api.put(`/sights/${f.sight.id}/publish`, { readOnlyFullEnabled: false });
    assert.deepEqual(off.body.result, { readOnlyFullEnabled: false });
    const gone = await fetch(pageUrl);
    assert.equal(gone.status, 404);
    assert.match(await gone.text(), /not published/);
    assert.equal((await fetch(`${s.t.server.url}/published/sights/nonsense-token-123`)).status, 404);
  });
});

describe('dashboards elsewhere', () => {
  test('a cell hyperlink to a dashboard (or report) names it and links to it; search finds dashboards by name', async () => {
    const f = await fullDashboard('x1');
    const sh = await sheetWithRows(s.api, 'x1 links', [['row', 1]]);
    const res = await s.api.put(`/sheets/${sh.id}/rows`, [{ id: sh.rowIds[0], cells: [{ columnId: sh.col.Task!.id, value: null, hyperlink: { sightId: f.sight.id } }, { columnId: sh.col.Points!.id, value: null, hyperlink: { reportId: f.reportId } }] }]);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const row = (await s.api.get(`/sheets/${sh.id}/rows/${sh.rowIds[0]}`)).body;
    const task = row.cells.find((c: { columnId: number }) => c.columnId === sh.col.Task!.id);
    assert.equal(task.value, 'x1 dashboard');
    assert.equal(task.hyperlink.sightId, f.sight.id);
    assert.match(task.hyperlink.url, /\/sights\//);
    assert.equal(row.cells.find((c: { columnId: number }) => c.columnId === sh.col.Points!.id).value, 'x1 report');
    const other = await makeUser(s.t, s.api, 'x1.other@example.com');
    const theirs = await makeSheet(client(s.t.base, other.token), 'x1 theirs', columns);
    const r = (await client(s.t.base, other.token).post(`/sheets/${theirs.id}/rows`, [{ toBottom: true, cells: [{ columnId: theirs.col.Task!.id, value: null, hyperlink: { sightId: f.sight.id } }] }]));
    assertError(r, 404, 1114);

    const found = (await s.api.get('/search?query=x1%20dashboard&scopes=sightNames')).body;
    assert.deepEqual(found.results.map((x: { objectType: string; objectId: number }) => [x.objectType, x.objectId]), [['sight', f.sight.id]]);
  });

  test('a folder copy copies its dashboards; a widget on a sheet copied with it points at the copy', async () => {
    const folder = (await s.api.post('/home/folders', { name: 'x2 folder' })).body.result.id;
    const sh = (await s.api.post(`/folders/${folder}/sheets`, { name: 'x2 sheet', columns })).body.result;
    const created = await s.api.post('/sheetd/sights', { name: 'x2 dash', destinationType: 'folder', destinationId: folder, widgets: [{ type: 'SHORTCUT', contents: { shortcutData: [{ hyperlink: { sheetId: sh.id } }] } }] });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const copy = await s.api.post(`/folders/${folder}/copy`, { destinationType: 'home', newName: 'x2 folder copy' });
    assert.equal(copy.status, 200, JSON.stringify(copy.body));
    const copied = (await s.api.get(`/folders/${copy.body.result.id}`)).body;
    assert.equal(copied.sights.length, 1);
    assert.notEqual(copied.sights[0].id, created.body.result.id);
    const d = (await s.api.get(`/sights/${copied.sights[0].id}`)).body;
    assert.equal(d.widgets[0].contents.shortcutData[0].hyperlink.sheetId, copied.sheets[0].id);
    assert.equal(d.widgets[0].contents.shortcutData[0].label, 'x2 sheet');
    assert.equal((await s.api.del(`/folders/${folder}`)).status, 200);
    assertError(await s.api.get(`/sights/${created.body.result.id}`), 404, 1006);
  });
});

describe('sheet summary fields in METRIC widgets', () => {
  test('summary fields are read live; below level 4 the widget is a SHEETSUMMARY widget', async () => {
    const sh = await sheetWithRows(s.api, 'm1 data', [['m1', 1]]);
    const fields = await s.api.post(`/sheets/${sh.id}/summary/fields`, [{ title: 'Budget', type: 'TEXT_NUMBER', objectValue: 1200 }]);
    assert.equal(fields.status, 200, JSON.stringify(fields.body));
    const fieldId = fields.body.result[0].id;
    assertError(await s.api.post('/sheetd/sights', { name: 'm1 bad', widgets: [{ type: 'METRIC', contents: { sheetId: sh.id, cellData: [{ dataSource: 'SUMMARY_FIELD', profileField: { id: 777 } }] } }] }), 400, 1031);
    const created = await s.api.post('/sheetd/sights', { name: 'm1 dash', widgets: [{ type: 'SHEETSUMMARY', contents: { sheetId: sh.id, cellData: [{ dataSource: 'SUMMARY_FIELD', profileField: { id: fieldId } }, { rowId: sh.rowIds[0], columnId: sh.col.Points!.id }] } }] });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const id = created.body.result.id;
    const at4 = (await s.api.get(`/sights/${id}?level=4`)).body.widgets[0];
    assert.equal(at4.type, 'METRIC');
    assert.equal(at4.contents.type, 'METRIC');
    const [field, cell] = at4.contents.cellData;
    assert.equal(field.dataSource, 'SUMMARY_FIELD');
    assert.equal(field.label, 'Budget');
    assert.equal(field.profileField.id, fieldId);
    assert.equal(field.profileField.objectValue, 1200);
    assert.equal(cell.dataSource, 'CELL');
    assert.equal(cell.cell.value, 1);
    const below = (await s.api.get(`/sights/${id}`)).body.widgets[0];
    assert.equal(below.type, 'SHEETSUMMARY');
    // its contents are the SDKs' cell link contents (METRIC): they read SHEETSUMMARY contents as nothing
    assert.equal(below.contents.type, 'METRIC');
    assert.deepEqual(below.contents.cellData.map((d: { dataSource: string }) => d.dataSource), ['SUMMARY_FIELD', 'CELL']);
    assert.equal((await s.api.put(`/sheets/${sh.id}/summary/fields`, [{ id: fieldId, objectValue: 1500 }])).status, 200);
    assert.equal((await s.api.get(`/sights/${id}?level=4`)).body.widgets[0].contents.cellData[0].profileField.objectValue, 1500);
  });
});

describe('images of IMAGE widgets', () => {
  test('upload an image, name it in a widget, read it through the API and on the published page', async () => {
    const created = (await s.api.post('/sheetd/sights', { name: 'i1 dash' })).body.result;
    const png = pngBytes(3, 2);
    const up = await s.api.call('POST', `/sheetd/sights/${created.id}/images`, { raw: png, headers: { 'content-type': 'image/png', 'content-disposition': 'attachment; filename="logo.png"' } });
    assert.equal(up.status, 200, up.text);
    const img = up.body.result;
    assert.equal(img.fileName, 'logo.png');
    assert.deepEqual([img.width, img.height, img.mimeType], [3, 2, 'image/png']);
    assertError(await s.api.call('POST', `/sheetd/sights/${created.id}/images`, { raw: 'not an image', headers: { 'content-type': 'image/png' } }), 400, 1091);
    assertError(await s.api.put(`/sheetd/sights/${created.id}`, { widgets: [{ type: 'IMAGE', contents: { privateId: 'nope' } }] }), 400, 1031);
    const put = await s.api.put(`/sheetd/sights/${created.id}`, { widgets: [{ type: 'IMAGE', contents: { privateId: img.privateId, fileName: 'logo.png' } }] });
    assert.equal(put.status, 200, put.text);
    assert.equal((await s.api.get(`/sights/${created.id}`)).body.widgets[0].contents.privateId, img.privateId);
    const got = await fetch(`${s.t.base}/sheetd/sights/${created.id}/images/${img.privateId}`, { headers: { authorization: `Bearer ${s.t.adminToken}` } });
    assert.equal(got.status, 200);
    assert.equal(got.headers.get('content-type'), 'image/png');
    assert.deepEqual(Buffer.from(await got.arrayBuffer()), png);
    assertError(await s.api.get(`/sheetd/sights/${created.id}/images/other`), 404, 1006);

    const pub = (await s.api.put(`/sights/${created.id}/publish`, { readOnlyFullEnabled: true })).body.result;
    const path = new URL(pub.readOnlyFullUrl).pathname;
    const html = await (await fetch(s.t.server.url + path)).text();
    const src = /<img class="widget-image" src="([^"]+)" alt="logo.png">/.exec(html)?.[1];
    assert.ok(src, html);
    const served = await fetch(s.t.server.url + src);
    assert.equal(served.status, 200);
    assert.deepEqual(Buffer.from(await served.arrayBuffer()), png);
    // a copy shows the same image
    const copy = (await s.api.post(`/sights/${created.id}/copy`, { destinationType: 'home', newName: 'i1 copy' })).body.result;
    assert.equal((await fetch(`${s.t.base}/sheetd/sights/${copy.id}/images/${img.privateId}`, { headers: { authorization: `Bearer ${s.t.adminToken}` } })).status, 200);
    await s.api.put(`/sights/${created.id}/publish`, { readOnlyFullEnabled: false });
    assert.equal((await fetch(s.t.server.url + src)).status, 404);
  });
});

describe('events', () => {
  test('dashboard changes are DASHBOARD events', async () => {
    const f = await fullDashboard('e1');
    const evs = (await s.api.get('/events?since=2000-01-01T00:00:00Z&maxCount=10000')).body;
    let data = evs.data as Array<{ objectType: string; action: string; objectId: number }>;
    let next = evs;
    while (next.moreAvailable) {
      next = (await s.api.get(`/events?streamPosition=${next.nextStreamPosition}&maxCount=10000`)).body;
      data = data.concat(next.data);
    }
    assert.ok(data.some((e) => e.objectType === 'DASHBOARD' && e.action === 'CREATE' && e.objectId === f.sight.id));
  });
});
