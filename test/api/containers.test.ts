import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startSuiteServer, type TestServer } from '../helpers/server.ts';
import { client, createdSince, listedIds, type Client } from '../helpers/http.ts';

// Home, folders and workspaces over raw HTTP: contents, ContainerDestination rules, copy, move
// and delete (what is held goes with it).
let t: TestServer;
let api: Client;

function assertError(res: { status: number; body: unknown }, status: number, code: number) {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.equal((res.body as { errorCode: number }).errorCode, code, JSON.stringify(res.body));
}

const COLS = [{ title: 'Task', type: 'TEXT_NUMBER', primary: true }, { title: 'Done', type: 'CHECKBOX' }];

async function sheetIn(path: string, name: string) {
  const r = await api.post(path, { name, columns: COLS });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.result as { id: number; name: string; columns: Array<{ id: number; title: string }> };
}

async function addRows(sheetId: number, colId: number, values: string[]) {
  const r = await api.post(`/sheets/${sheetId}/rows`, values.map((v) => ({ toBottom: true, cells: [{ columnId: colId, value: v }] })));
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.result as Array<{ id: number }>;
}

async function rowsOf(sheetId: number) {
  return t.server.store.db.selectFrom('rows').selectAll().where('sheet_id', '=', sheetId).orderBy('sort_key').execute();
}

before(async () => {
  t = await startSuiteServer();
  api = client(t.base, t.adminToken);
});
after(() => t.close());

describe('home', () => {
  test('create and list home folders; Get Folder shows its sheets and folders', async () => {
    const f = await api.post('/home/folders', { name: 'Projects' });
    assert.equal(f.status, 200, JSON.stringify(f.body));
    assert.equal(f.body.message, 'SUCCESS');
    const folder = f.body.result;
    assert.equal(folder.name, 'Projects');
    assert.match(folder.permalink, new RegExp(`^${t.config.publicUrl}/folders/`));
    const sub = await api.post(`/folders/${folder.id}/folders`, { name: 'Sub' });
    assert.equal(sub.status, 200);
    const s = await sheetIn(`/folders/${folder.id}/sheets`, 'Plan');

    const list = await api.get('/home/folders');
    assert.equal(list.status, 200);
    assert.ok(list.body.data.some((x: { id: number }) => x.id === folder.id));
    assert.ok(!list.body.data.some((x: { id: number }) => x.id === sub.body.result.id), 'only top-level folders');

    const got = await api.get(`/folders/${folder.id}`);
    assert.equal(got.status, 200);
    assert.equal(got.body.id, folder.id);
    assert.deepEqual(got.body.sheets.map((x: { id: number }) => x.id), [s.id]);
    assert.equal(got.body.sheets[0].accessLevel, 'OWNER');
    assert.deepEqual(got.body.folders.map((x: { name: string }) => x.name), ['Sub']);
    assert.deepEqual(got.body.reports, []);
    assert.deepEqual(got.body.sights, []);

    const subs = await api.get(`/folders/${folder.id}/folders`);
    assert.equal(subs.body.totalCount, 1);

    const personal = await api.get('/folders/personal');
    assert.equal(personal.status, 200);
    const p = personal.body.folders.find((x: { id: number }) => x.id === folder.id);
    assert.ok(p);
    assert.equal(p.sheets[0].id, s.id, 'home contents are nested');
    assert.equal(p.folders[0].name, 'Sub');
  });

  test('a folder name is required and bad input changes nothing', async () => {
    const before = await listedIds(api, '/home/folders');
    assertError(await api.post('/home/folders', {}), 400, 1012);
    assertError(await api.post('/home/folders', { name: 42 }), 400, 1031);
    assertError(await api.post('/home/folders', { name: 'x'.repeat(501) }), 400, 1041);
    assertError(await api.call('POST', '/home/folders', {}), 400, 1024);
    assert.deepEqual(await createdSince(api, '/home/folders', before, ['42', 'x'.repeat(501)]), []);
  });

  test('rename a folder; unknown folders are 1006', async () => {
    const f = (await api.post('/home/folders', { name: 'Old' })).body.result;
    const r = await api.put(`/folders/${f.id}`, { name: 'New' });
    assert.equal(r.status, 200);
    assert.equal(r.body.result.name, 'New');
    assert.equal((await api.get(`/folders/${f.id}`)).body.name, 'New');
    assertError(await api.put(`/folders/${f.id}`, { name: '' }), 400, 1012);
    assert.equal((await api.get(`/folders/${f.id}`)).body.name, 'New');
    assertError(await api.get('/folders/1234567890123'), 404, 1006);
    assertError(await api.get('/folders/abc'), 404, 1006);
  });
});

describe('workspaces', () => {
  test('create, list, get (top level and loadAll), rename', async () => {
    const w = await api.post('/workspaces', { name: 'Team' });
    assert.equal(w.status, 200);
    const ws = w.body.result;
    assert.equal(ws.accessLevel, 'OWNER');
    assert.match(ws.permalink, /\/workspaces\//);
    const f = (await api.post(`/workspaces/${ws.id}/folders`, { name: 'Q1' })).body.result;
    const inner = (await api.post(`/folders/${f.id}/folders`, { name: 'Deep' })).body.result;
    const top = await sheetIn(`/workspaces/${ws.id}/sheets`, 'Top');
    const deep = await sheetIn(`/folders/${inner.id}/sheets`, 'DeepSheet');

    const list = await api.get('/workspaces');
    assert.ok(list.body.data.some((x: { id: number; accessLevel: string }) => x.id === ws.id && x.accessLevel === 'OWNER'));

    const got = (await api.get(`/workspaces/${ws.id}`)).body;
    assert.deepEqual(got.sheets.map((x: { id: number }) => x.id), [top.id]);
    assert.equal(got.folders[0].id, f.id);
    assert.equal(got.folders[0].folders, undefined, 'without loadAll, folders are abbreviated');

    const all = (await api.get(`/workspaces/${ws.id}?loadAll=true`)).body;
    assert.equal(all.folders[0].folders[0].id, inner.id);
    assert.equal(all.folders[0].folders[0].sheets[0].id, deep.id);

    assert.equal((await api.get(`/workspaces/${ws.id}/folders`)).body.totalCount, 1);
    const r = await api.put(`/workspaces/${ws.id}`, { name: 'Team 2' });
    assert.equal(r.body.result.name, 'Team 2');
    assertError(await api.put(`/workspaces/${ws.id}`, { name: null }), 400, 1012);
    assert.equal((await api.get(`/workspaces/${ws.id}`)).body.name, 'Team 2');
  });

  test('deleting a workspace removes its folders, sheets, rows and shares', async () => {
    const ws = (await api.post('/workspaces', { name: 'Doomed' })).body.result;
    const f = (await api.post(`/workspaces/${ws.id}/folders`, { name: 'F' })).body.result;
    const s1 = await sheetIn(`/workspaces/${ws.id}/sheets`, 'S1');
    const s2 = await sheetIn(`/folders/${f.id}/sheets`, 'S2');
    await addRows(s2.id, s2.columns[0]!.id, ['a', 'b']);
    assert.equal((await api.post(`/workspaces/${ws.id}/shares`, { email: 'someone@example.org', accessLevel: 'EDITOR' })).status, 200);
    const d = await api.del(`/workspaces/${ws.id}`);
    assert.equal(d.status, 200);
    assert.equal(d.body.message, 'SUCCESS');
    assertError(await api.get(`/workspaces/${ws.id}`), 404, 1006);
    assertError(await api.get(`/folders/${f.id}`), 404, 1006);
    assertError(await api.get(`/sheets/${s1.id}/version`), 404, 1006);
    assertError(await api.get(`/sheets/${s2.id}/version`), 404, 1006);
    assert.equal((await rowsOf(s2.id)).length, 0);
    const db = t.server.store.db;
    assert.equal((await db.selectFrom('columns').select('id').where('sheet_id', '=', s2.id).execute()).length, 0);
    assert.equal((await db.selectFrom('shares').select('id').where('object_id', '=', ws.id).execute()).length, 0);
  });
});

describe('folders: delete, move, copy', () => {
  test('deleting a folder removes nested folders and their sheets', async () => {
    const a = (await api.post('/home/folders', { name: 'A' })).body.result;
    const b = (await api.post(`/folders/${a.id}/folders`, { name: 'B' })).body.result;
    const s = await sheetIn(`/folders/${b.id}/sheets`, 'InB');
    await addRows(s.id, s.columns[0]!.id, ['x']);
    assert.equal((await api.del(`/folders/${a.id}`)).status, 200);
    assertError(await api.get(`/folders/${b.id}`), 404, 1006);
    assertError(await api.get(`/sheets/${s.id}/version`), 404, 1006);
    assert.equal((await rowsOf(s.id)).length, 0);
    assert.ok(!(await api.get('/sheets?includeAll=true')).body.data.some((x: { id: number }) => x.id === s.id));
  });

  test('ContainerDestination rules', async () => {
    const a = (await api.post('/home/folders', { name: 'Src' })).body.result;
    const ws = (await api.post('/workspaces', { name: 'Dest' })).body.result;
    assertError(await api.post(`/folders/${a.id}/move`, { destinationType: 'home', destinationId: ws.id }), 400, 1031);
    assertError(await api.post(`/folders/${a.id}/move`, { destinationType: 'workspace' }), 400, 1012);
    assertError(await api.post(`/folders/${a.id}/move`, { destinationType: 'folder', destinationId: null }), 400, 1012);
    assertError(await api.post(`/folders/${a.id}/move`, { destinationType: 'garage', destinationId: 1 }), 400, 1031);
    assertError(await api.post(`/folders/${a.id}/move`, { destinationId: ws.id }), 400, 1012);
    assertError(await api.post(`/folders/${a.id}/move`, { destinationType: 'workspace', destinationId: ws.id, newName: 'No' }), 400, 1032);
    assertError(await api.post(`/folders/${a.id}/move`, { destinationType: 'workspace', destinationId: 1234567890123 }), 404, 1006);
    assertError(await api.post(`/folders/${a.id}/copy`, { destinationType: 'home', destinationId: 5 }), 400, 1031);
    // nothing moved
    assert.ok((await api.get('/home/folders?includeAll=true')).body.data.some((x: { id: number }) => x.id === a.id));
    assert.equal((await api.get(`/workspaces/${ws.id}`)).body.folders.length, 0);
  });

  test('moving a folder under itself or a descendant is 1258 and changes nothing; moving into a workspace carries its sheets', async () => {
    const a = (await api.post('/home/folders', { name: 'MoveMe' })).body.result;
    const b = (await api.post(`/folders/${a.id}/folders`, { name: 'Child' })).body.result;
    const s = await sheetIn(`/folders/${b.id}/sheets`, 'Carried');
    assertError(await api.post(`/folders/${a.id}/move`, { destinationType: 'folder', destinationId: b.id }), 400, 1258);
    assertError(await api.post(`/folders/${a.id}/move`, { destinationType: 'folder', destinationId: a.id }), 400, 1258);
    assert.equal((await api.get(`/folders/${a.id}`)).body.folders[0].id, b.id);

    const ws = (await api.post('/workspaces', { name: 'Target' })).body.result;
    const m = await api.post(`/folders/${a.id}/move`, { destinationType: 'workspace', destinationId: ws.id });
    assert.equal(m.status, 200, JSON.stringify(m.body));
    assert.equal(m.body.result.id, a.id);
    assert.ok(!(await api.get('/home/folders?includeAll=true')).body.data.some((x: { id: number }) => x.id === a.id));
    const all = (await api.get(`/workspaces/${ws.id}?loadAll=true`)).body;
    assert.equal(all.folders[0].id, a.id);
    assert.equal(all.folders[0].folders[0].sheets[0].id, s.id);
    const row = await t.server.store.db.selectFrom('sheets').select('workspace_id').where('id', '=', s.id).executeTakeFirstOrThrow();
    assert.equal(row.workspace_id, ws.id);

    const back = await api.post(`/folders/${a.id}/move`, { destinationType: 'home', destinationId: null });
    assert.equal(back.status, 200);
    assert.ok((await api.get('/home/folders?includeAll=true')).body.data.some((x: { id: number }) => x.id === a.id));
  });

  test('copying a folder copies its tree; include=data brings rows (new ids, remapped cells and parents)', async () => {
    const a = (await api.post('/home/folders', { name: 'Orig' })).body.result;
    const b = (await api.post(`/folders/${a.id}/folders`, { name: 'Inner' })).body.result;
    const s = await sheetIn(`/folders/${b.id}/sheets`, 'Data');
    const [r1] = await addRows(s.id, s.columns[0]!.id, ['parent']);
    const child = await api.post(`/sheets/${s.id}/rows`, [{ parentId: r1!.id, cells: [{ columnId: s.columns[0]!.id, value: 'child' }] }]);
    assert.equal(child.status, 200, JSON.stringify(child.body));

    const withData = await api.post(`/folders/${a.id}/copy?include=data`, { destinationType: 'home', newName: 'Copy' });
    assert.equal(withData.status, 200, JSON.stringify(withData.body));
    const copy = withData.body.result;
    assert.equal(copy.name, 'Copy');
    assert.notEqual(copy.id, a.id);
    const inner = (await api.get(`/folders/${copy.id}`)).body.folders[0];
    assert.equal(inner.name, 'Inner');
    assert.notEqual(inner.id, b.id);
    const copiedSheet = (await api.get(`/folders/${inner.id}`)).body.sheets[0];
    assert.equal(copiedSheet.name, 'Data');
    assert.notEqual(copiedSheet.id, s.id);

    const newCols = await t.server.store.db.selectFrom('columns').selectAll().where('sheet_id', '=', copiedSheet.id).orderBy('position').execute();
    assert.deepEqual(newCols.map((c) => c.title), ['Task', 'Done']);
    assert.ok(newCols.every((c) => !s.columns.some((o) => o.id === c.id)), 'columns get new ids');
    const oldRows = await rowsOf(s.id);
    const newRows = await rowsOf(copiedSheet.id);
    assert.equal(newRows.length, 2);
    assert.ok(newRows.every((r) => !oldRows.some((o) => o.id === r.id)), 'rows get new ids');
    const parent = newRows.find((r) => r.parent_id === null)!;
    const kid = newRows.find((r) => r.parent_id !== null)!;
    assert.equal(kid.parent_id, parent.id, 'parent ids follow the copy');
    assert.deepEqual(Object.keys(JSON.parse(parent.cells)), [String(newCols[0]!.id)], 'cells are keyed by the new column ids');
    assert.equal(JSON.parse(parent.cells)[String(newCols[0]!.id)].v, 'parent');

    const noData = await api.post(`/folders/${a.id}/copy`, { destinationType: 'home', newName: 'Bare' });
    const bareInner = (await api.get(`/folders/${noData.body.result.id}`)).body.folders[0];
    const bareSheet = (await api.get(`/folders/${bareInner.id}`)).body.sheets[0];
    assert.equal((await rowsOf(bareSheet.id)).length, 0, 'without include=data no rows are copied');
    assert.equal((await t.server.store.db.selectFrom('columns').select('id').where('sheet_id', '=', bareSheet.id).execute()).length, 2);
    assertError(await api.post(`/folders/${a.id}/copy`, { destinationType: 'folder', destinationId: b.id }), 400, 1258);
  });

  test('a copy of more sheets than the server takes is 1120 with detail.maxSheetCount and copies nothing', async () => {
    const a = (await api.post('/home/folders', { name: 'Huge' })).body.result;
    const me = (await api.get('/users/me')).body;
    const now = Date.now();
    const rows = Array.from({ length: 1001 }, (_, i) => ({
      id: 2 ** 41 + i, org_id: me.account.id, owner_id: me.id, name: `S${i}`, folder_id: a.id, workspace_id: null,
      version: 0, is_template: 0, source: null, settings: '{}', created_at: now, modified_at: now,
    }));
    for (let i = 0; i < rows.length; i += 200) await t.server.store.db.insertInto('sheets').values(rows.slice(i, i + 200)).execute();
    const foldersBefore = await listedIds(api, '/home/folders');
    const r = await api.post(`/folders/${a.id}/copy`, { destinationType: 'home', newName: 'Too many' });
    assertError(r, 400, 1120);
    assert.equal(typeof r.body.detail.maxSheetCount, 'number');
    assert.ok(r.body.detail.maxSheetCount < 1001);
    assert.deepEqual(await createdSince(api, '/home/folders', foldersBefore, ['Too many']), []);
    assert.equal((await api.del(`/folders/${a.id}`)).status, 200);
  });

  test('copying a workspace copies folders and sheets; include=shares copies its shares', async () => {
    const ws = (await api.post('/workspaces', { name: 'Orig WS' })).body.result;
    const f = (await api.post(`/workspaces/${ws.id}/folders`, { name: 'WF' })).body.result;
    await sheetIn(`/folders/${f.id}/sheets`, 'WS sheet');
    await sheetIn(`/workspaces/${ws.id}/sheets`, 'WS top');
    assert.equal((await api.post(`/workspaces/${ws.id}/shares`, { email: 'viewer@example.org', accessLevel: 'VIEWER' })).status, 200);
    assertError(await api.post(`/workspaces/${ws.id}/copy`, {}), 400, 1012);
    const plain = await api.post(`/workspaces/${ws.id}/copy`, { newName: 'Plain copy' });
    assert.equal(plain.status, 200, JSON.stringify(plain.body));
    const withShares = await api.post(`/workspaces/${ws.id}/copy?include=shares`, { newName: 'Shared copy' });
    const got = (await api.get(`/workspaces/${plain.body.result.id}?loadAll=true`)).body;
    assert.equal(got.name, 'Plain copy');
    assert.deepEqual(got.sheets.map((x: { name: string }) => x.name), ['WS top']);
    assert.equal(got.folders[0].sheets[0].name, 'WS sheet');
    const sharesOf = async (id: number) => (await api.get(`/workspaces/${id}/shares`)).body.data.map((s: { email: string }) => s.email).sort();
    assert.deepEqual(await sharesOf(plain.body.result.id), [t.config.adminEmail]);
    assert.deepEqual(await sharesOf(withShares.body.result.id), [t.config.adminEmail, 'viewer@example.org'].sort());
  });
});
