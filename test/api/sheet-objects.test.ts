import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import smartsheet from 'smartsheet';
import { startSuiteServer, type TestServer } from '../helpers/server.ts';
import { client, type Client, type Res } from '../helpers/http.ts';

// Sheets as objects (list, create in home/folder/workspace, from template or sheet, update,
// delete, copy, move, version), templates, over raw HTTP and through the official SDK.
let t: TestServer;
let api: Client;

type Body = Res['body'];
type Call = (o?: object) => Promise<Body>;
function sdk(): Record<string, Record<string, Call>> {
  return smartsheet.createClient({ accessToken: t.adminToken, baseUrl: t.base + '/', logLevel: 'error' }) as unknown as Record<string, Record<string, Call>>;
}

function assertError(res: { status: number; body: unknown }, status: number, code: number) {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.equal((res.body as { errorCode: number }).errorCode, code, JSON.stringify(res.body));
}

const COLS = [{ title: 'Task', type: 'TEXT_NUMBER', primary: true }, { title: 'Status', type: 'PICKLIST', options: ['Open', 'Done'] }];

async function listed(id: number, query = '') {
  return (await api.get(`/sheets?includeAll=true${query}`)).body.data.find((x: { id: number }) => x.id === id);
}

before(async () => {
  t = await startSuiteServer();
  api = client(t.base, t.adminToken);
});
after(() => t.close());

describe('raw HTTP', () => {
  test('create in home from columns; List Sheets shows the abbreviated sheet', async () => {
    const r = await api.post('/sheets', { name: 'Home sheet', columns: COLS });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const s = r.body.result;
    assert.equal(s.accessLevel, 'OWNER');
    assert.equal(s.columns.length, 2);
    assert.equal(s.permalink, `${t.config.publicUrl}/sheets/${s.id.toString(36)}`);
    const l = await listed(s.id);
    assert.deepEqual(Object.keys(l).sort(), ['accessLevel', 'createdAt', 'id', 'modifiedAt', 'name', 'permalink']);
    assert.match(l.createdAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    const v = await listed(s.id, '&include=sheetVersion&numericDates=true');
    assert.equal(v.version, 1);
    assert.equal(typeof v.createdAt, 'number');
    assert.equal((await api.get(`/sheets/${s.id}/version`)).body.version, 1);
  });

  test('1054 without columns or fromId, 1033 for an unknown fromId, and nothing is created', async () => {
    // named, not counted: against a cluster, files running beside this one add sheets
    const name = `Nothing ${Math.random().toString(36).slice(2)}`;
    assertError(await api.post('/sheets', { name }), 400, 1054);
    assertError(await api.post('/sheets', { name, fromId: 1234567890123 }), 404, 1033);
    assertError(await api.post('/sheets', { columns: COLS }), 400, 1012);
    const all = (await api.get('/sheets?includeAll=true')).body.data as Array<{ name?: string }>;
    assert.ok(all.length > 0);
    assert.deepEqual(all.filter((x) => x.name === name || !x.name), [], 'no sheet was created');
  });

  test('create from a sheet or template (fromId), with include=data', async () => {
    const src = (await api.post('/sheets', { name: 'Source', columns: COLS })).body.result;
    const rows = await api.post(`/sheets/${src.id}/rows`, [{ toBottom: true, cells: [{ columnId: src.columns[0].id, value: 'row 1' }] }]);
    assert.equal(rows.status, 200, JSON.stringify(rows.body));
    const plain = await api.post('/sheets', { name: 'From sheet', fromId: src.id });
    assert.equal(plain.status, 200, JSON.stringify(plain.body));
    const withData = await api.post('/sheets?include=data', { name: 'From sheet with data', fromId: src.id });
    const db = t.server.store.db;
    const count = async (id: number) => (await db.selectFrom('rows').select('id').where('sheet_id', '=', id).execute()).length;
    assert.equal(await count(plain.body.result.id), 0);
    assert.equal(await count(withData.body.result.id), 1);
    const l = await listed(plain.body.result.id, '&include=source');
    assert.deepEqual(l.source, { id: src.id, type: 'sheet' });

    // a sheet saved as a template (the web app does this; here the store marks it)
    await db.updateTable('sheets').set({ is_template: 1 }).where('id', '=', src.id).execute();
    const templates = (await api.get('/templates')).body;
    assert.deepEqual(templates.data.map((x: { id: number }) => x.id), [src.id]);
    assert.equal(templates.data[0].type, 'sheet');
    assert.equal((await listed(src.id)), undefined, 'templates are not sheets in List Sheets');
    const fromTemplate = await api.post('/sheets', { name: 'From template', fromId: src.id });
    assert.deepEqual((await listed(fromTemplate.body.result.id, '&include=source')).source, { id: src.id, type: 'template' });
    const pub = await api.get('/templates/public');
    assert.equal(pub.status, 200);
    // the public templates sheetd ships (test/api/templates.test.ts)
    assert.equal(pub.body.totalCount, 4);
  });

  test('modifiedSince filters List Sheets', async () => {
    const s = (await api.post('/sheets', { name: 'Recent', columns: COLS })).body.result;
    const future = new Date(Date.now() + 3600_000).toISOString().replace(/\.\d+Z$/, 'Z');
    const all = (await api.get('/sheets?includeAll=true&modifiedSince=2000-01-01T00:00:00Z')).body;
    assert.ok(all.data.some((x: { id: number }) => x.id === s.id));
    assert.equal((await api.get(`/sheets?modifiedSince=${future}`)).body.totalCount, 0);
    assertError(await api.get('/sheets?modifiedSince=yesterday'), 400, 1018);
  });

  test('Update Sheet: name, userSettings, projectSettings; bad values change nothing', async () => {
    // a project sheet (the Project Plan template: dependencies enabled) has project settings
    const made = await api.post('/sheets', { name: 'Before', fromId: 5816286846604928 });
    assert.equal(made.status, 200, made.text);
    const s = made.body.result;
    const r = await api.put(`/sheets/${s.id}`, { name: 'After', userSettings: { criticalPathEnabled: true }, projectSettings: { workingDays: ['MONDAY', 'TUESDAY'], nonWorkingDays: ['2030-01-01'], lengthOfDay: 6 } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.result.name, 'After');
    assert.deepEqual(r.body.result.userSettings, { criticalPathEnabled: true, displaySummaryTasks: true });
    assert.deepEqual(r.body.result.projectSettings, { workingDays: ['MONDAY', 'TUESDAY'], nonWorkingDays: ['2030-01-01'], lengthOfDay: 6 });
    assert.equal((await api.get(`/sheets/${s.id}/version`)).body.version, 2);
    for (const bad of [{ name: '' }, { name: 'x', projectSettings: { lengthOfDay: 30 } }, { userSettings: { criticalPathEnabled: 'yes' } }, { projectSettings: { workingDays: ['FUNDAY'] } }]) {
      const res = await api.put(`/sheets/${s.id}`, bad);
      assert.equal(res.status, 400, JSON.stringify(bad));
    }
    assert.equal((await listed(s.id)).name, 'After');
    assert.equal((await api.get(`/sheets/${s.id}/version`)).body.version, 2);
  });

  test('copy with include=data: cell and column formulas work on the copy\'s own cells', async () => {
    const s = (await api.post('/sheets', { name: 'Formulas to copy', columns: [{ title: 'A', type: 'TEXT_NUMBER', primary: true }, { title: 'B', type: 'TEXT_NUMBER' }, { title: 'C', type: 'TEXT_NUMBER', formula: '=[A]@row + 1' }] })).body.result;
    const [a, b] = s.columns;
    const added = await api.post(`/sheets/${s.id}/rows`, [
      { toBottom: true, cells: [{ columnId: a.id, value: 2 }, { columnId: b.id, formula: '=A1 * 3' }] },
      { toBottom: true, cells: [{ columnId: a.id, value: 5 }, { columnId: b.id, formula: '=SUM(A:A)' }] },
    ]);
    assert.equal(added.status, 200, JSON.stringify(added.body));
    const copy = await api.post(`/sheets/${s.id}/copy?include=data`, { destinationType: 'home', newName: 'Formulas copied' });
    assert.equal(copy.status, 200, JSON.stringify(copy.body));
    const shown = async (id: number) => (await api.get(`/sheets/${id}`)).body.rows.map((r: { cells: Array<{ value?: unknown; formula?: string }> }) => r.cells.map((c) => [c.value ?? null, c.formula ?? null]));
    const expected = [[[2, null], [6, '=[A]1 * 3'], [3, '=[A]@row + 1']], [[5, null], [7, '=SUM([A]:[A])'], [6, '=[A]@row + 1']]];
    assert.deepEqual(await shown(copy.body.result.id), expected);
    // the copy's formulas read the copy: a change there moves its results, not the source's
    const copied = (await api.get(`/sheets/${copy.body.result.id}`)).body;
    const colA = copied.columns[0].id;
    const upd = await api.put(`/sheets/${copied.id}/rows`, [{ id: copied.rows[0].id, cells: [{ columnId: colA, value: 10 }] }]);
    assert.equal(upd.status, 200, JSON.stringify(upd.body));
    const after = await shown(copied.id);
    assert.deepEqual([after[0][1][0], after[0][2][0], after[1][1][0]], [30, 11, 15]);
    assert.deepEqual(await shown(s.id), expected);
  });

  test('copy: include=data copies rows, shares only with include=shares; move keeps the sheet and its shares', async () => {
    const s = (await api.post('/sheets', { name: 'Copied', columns: COLS })).body.result;
    await api.post(`/sheets/${s.id}/rows`, [{ toBottom: true, cells: [{ columnId: s.columns[0].id, value: 'a' }, { columnId: s.columns[1].id, value: 'Open' }] }]);
    await api.post(`/sheets/${s.id}/shares`, { email: 'watcher@example.org', accessLevel: 'VIEWER' });
    const folder = (await api.post('/home/folders', { name: 'Copies' })).body.result;
    const full = await api.post(`/sheets/${s.id}/copy?include=data,shares`, { destinationType: 'folder', destinationId: folder.id, newName: 'Full copy' });
    assert.equal(full.status, 200, JSON.stringify(full.body));
    assert.equal(full.body.result.name, 'Full copy');
    assert.equal(full.body.result.accessLevel, 'OWNER');
    const bare = await api.post(`/sheets/${s.id}/copy`, { destinationType: 'home' });
    assert.equal(bare.body.result.name, 'Copied');
    const db = t.server.store.db;
    const rows = async (id: number) => db.selectFrom('rows').selectAll().where('sheet_id', '=', id).execute();
    const copiedRows = await rows(full.body.result.id);
    assert.equal(copiedRows.length, 1);
    const cols = await db.selectFrom('columns').selectAll().where('sheet_id', '=', full.body.result.id).orderBy('position').execute();
    assert.deepEqual(JSON.parse(copiedRows[0]!.cells), { [cols[0]!.id]: { v: 'a' }, [cols[1]!.id]: { v: 'Open' } });
    assert.equal((await rows(bare.body.result.id)).length, 0);
    const emails = async (id: number) => (await api.get(`/sheets/${id}/shares`)).body.data.map((x: { email: string }) => x.email).sort();
    assert.deepEqual(await emails(full.body.result.id), [t.config.adminEmail, 'watcher@example.org']);
    assert.deepEqual(await emails(bare.body.result.id), [t.config.adminEmail]);
    assert.deepEqual((await api.get(`/folders/${folder.id}`)).body.sheets.map((x: { name: string }) => x.name), ['Full copy']);
    assertError(await api.post(`/sheets/${s.id}/copy`, { destinationType: 'folder' }), 400, 1012);

    const ws = (await api.post('/workspaces', { name: 'Moved into' })).body.result;
    const m = await api.post(`/sheets/${s.id}/move`, { destinationType: 'workspace', destinationId: ws.id });
    assert.equal(m.status, 200, JSON.stringify(m.body));
    assert.equal(m.body.result.id, s.id);
    assert.deepEqual((await api.get(`/workspaces/${ws.id}`)).body.sheets.map((x: { id: number }) => x.id), [s.id]);
    assert.deepEqual(await emails(s.id), [t.config.adminEmail, 'watcher@example.org']);
    assertError(await api.post(`/sheets/${s.id}/move`, { destinationType: 'home', newName: 'nope' }), 400, 1032);
    assert.deepEqual((await api.get(`/workspaces/${ws.id}`)).body.sheets.map((x: { id: number }) => x.id), [s.id]);
  });

  test('Delete Sheet removes it with its rows', async () => {
    const s = (await api.post('/sheets', { name: 'Gone', columns: COLS })).body.result;
    await api.post(`/sheets/${s.id}/rows`, [{ toBottom: true, cells: [{ columnId: s.columns[0].id, value: 'x' }] }]);
    assert.equal((await api.del(`/sheets/${s.id}`)).status, 200);
    assertError(await api.get(`/sheets/${s.id}/version`), 404, 1006);
    assertError(await api.del(`/sheets/${s.id}`), 404, 1006);
    assert.equal((await t.server.store.db.selectFrom('rows').select('id').where('sheet_id', '=', s.id).execute()).length, 0);
  });
});

describe('official SDK', () => {
  test('create in home, folder and workspace; list, version, update, copy, move, delete', async () => {
    const c = sdk();
    const ws = await c.workspaces!.createWorkspace!({ body: { name: 'SDK WS' } });
    assert.equal(ws.message, 'SUCCESS');
    const folder = await c.workspaces!.createFolder!({ workspaceId: ws.result.id, body: { name: 'SDK folder' } });
    const sub = await c.folders!.createChildFolder!({ folderId: folder.result.id, body: { name: 'SDK sub' } });
    assert.equal(sub.result.name, 'SDK sub');
    const home = await c.sheets!.createSheet!({ body: { name: 'SDK home', columns: COLS } });
    const inFolder = await c.sheets!.createSheetInFolder!({ folderId: folder.result.id, body: { name: 'SDK in folder', columns: COLS } });
    const inWs = await c.sheets!.createSheetInWorkspace!({ workspaceId: ws.result.id, body: { name: 'SDK in ws', columns: COLS } });
    const fromExisting = await c.sheets!.createSheetFromExisting!({ workspaceId: ws.result.id, body: { name: 'SDK from', fromId: home.result.id } });
    assert.equal(fromExisting.message, 'SUCCESS');
    assert.equal(inWs.result.accessLevel, 'OWNER');

    const list = await c.sheets!.listSheets!({ queryParameters: { includeAll: true } });
    const ids = list.data.map((x: { id: number }) => x.id);
    for (const id of [home.result.id, inFolder.result.id, inWs.result.id, fromExisting.result.id]) assert.ok(ids.includes(id));
    assert.equal((await c.sheets!.getSheetVersion!({ sheetId: home.result.id })).version, 1);

    const upd = await c.sheets!.updateSheet!({ sheetId: home.result.id, body: { name: 'SDK renamed' } });
    assert.equal(upd.result.name, 'SDK renamed');
    const copy = await c.sheets!.copySheet!({ sheetId: home.result.id, body: { destinationType: 'folder', destinationId: sub.result.id, newName: 'SDK copy' }, queryParameters: { include: 'data' } });
    assert.equal(copy.result.name, 'SDK copy');
    const moved = await c.sheets!.moveSheet!({ sheetId: inFolder.result.id, body: { destinationType: 'home', destinationId: null } });
    assert.equal(moved.result.id, inFolder.result.id);

    const fcopy = await c.folders!.copyFolder!({ folderId: folder.result.id, body: { destinationType: 'home', newName: 'SDK folder copy' }, queryParameters: { include: 'data' } });
    assert.equal(fcopy.result.name, 'SDK folder copy');
    const fmove = await c.folders!.moveFolder!({ folderId: fcopy.result.id, body: { destinationType: 'workspace', destinationId: ws.result.id } });
    assert.equal(fmove.message, 'SUCCESS');
    assert.equal((await c.folders!.updateFolder!({ folderId: fcopy.result.id, body: { name: 'SDK renamed folder' } })).result.name, 'SDK renamed folder');
    const wcopy = await c.workspaces!.copyWorkspace!({ workspaceId: ws.result.id, body: { newName: 'SDK WS copy' } });
    assert.equal(wcopy.result.name, 'SDK WS copy');
    assert.equal((await c.workspaces!.updateWorkspace!({ workspaceId: wcopy.result.id, body: { name: 'SDK WS copy 2' } })).result.name, 'SDK WS copy 2');

    assert.equal((await c.sheets!.deleteSheet!({ sheetId: moved.result.id })).message, 'SUCCESS');
    assert.equal((await c.folders!.deleteFolder!({ folderId: fcopy.result.id })).message, 'SUCCESS');
    assert.equal((await c.workspaces!.deleteWorkspace!({ workspaceId: wcopy.result.id })).message, 'SUCCESS');
    assert.equal((await c.workspaces!.deleteWorkspace!({ workspaceId: ws.result.id })).message, 'SUCCESS');
    await assert.rejects(c.sheets!.getSheetVersion!({ sheetId: inWs.result.id }), (e: { statusCode?: number; errorCode?: number }) => {
      assert.equal(e.statusCode, 404);
      assert.equal(e.errorCode, 1006);
      return true;
    });
  });

  test('the SDK sees catalogued errors (1054, 1258)', async () => {
    const c = sdk();
    await assert.rejects(c.sheets!.createSheet!({ body: { name: 'x' } }), (e: { errorCode?: number }) => e.errorCode === 1054);
    const f = await c.home!.createFolder!({ body: { name: 'SDK home folder' } });
    const g = await c.folders!.createChildFolder!({ folderId: f.result.id, body: { name: 'child' } });
    await assert.rejects(c.folders!.moveFolder!({ folderId: f.result.id, body: { destinationType: 'folder', destinationId: g.result.id } }), (e: { errorCode?: number }) => e.errorCode === 1258);
    const homeFolders = await c.home!.listFolders!({});
    assert.ok(homeFolders.data.some((x: { id: number }) => x.id === f.result.id));
  });
});
