import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import smartsheet from 'smartsheet';
import { getLeafFolder, getLeafFolderPath } from 'smartsheet/dist/lib/folders/helpers.js';
import { getLeafSheet, getLeafSheetPath } from 'smartsheet/dist/lib/sheets/helpers.js';
import { serverForFile } from '../helpers/setup.ts';
import { assertError, makeSheet, makeUser } from '../helpers/sheets.ts';

// The operations the current official SDK calls that the reference does not list, through the
// SDK itself (unchanged but for the base URL).
const s = serverForFile();

// The SDK's option types ask for more than a client sends; these calls send what clients send.
type Sdk = ReturnType<typeof smartsheet.createClient>;
type Method = 'listContents' | 'getFolderMetadata' | 'getFolderChildren' | 'getFolderPath' | 'getWorkspaceMetadata' | 'getWorkspaceChildren' | 'getSheetPath' | 'resetSharedSecret';
type Loose = Record<Method, (o: Record<string, unknown>) => Promise<any>>; // eslint-disable-line @typescript-eslint/no-explicit-any
function sdk(accessToken: string): { raw: Sdk; folders: Loose; workspaces: Loose; sheets: Loose; home: Loose; webhooks: Loose } {
  const raw = smartsheet.createClient({ accessToken, baseUrl: s.t.base + '/', logLevel: 'error' });
  const loose = (x: unknown) => x as Loose;
  return { raw, folders: loose(raw.folders), workspaces: loose(raw.workspaces), sheets: loose(raw.sheets), home: loose(raw.home), webhooks: loose(raw.webhooks) };
}

const col = [{ title: 'A', type: 'TEXT_NUMBER', primary: true }];

/** A workspace with folders Outer > Inner, sheets at its top, in Outer and in Inner, and a template. */
async function layout(tag: string) {
  const ws = (await s.api.post('/workspaces', { name: `${tag} WS` })).body.result;
  const outer = (await s.api.post(`/workspaces/${ws.id}/folders`, { name: `${tag} Outer` })).body.result;
  const inner = (await s.api.post(`/folders/${outer.id}/folders`, { name: `${tag} Inner` })).body.result;
  const top = (await s.api.post(`/workspaces/${ws.id}/sheets`, { name: `${tag} Top`, columns: col })).body.result;
  const inOuter = (await s.api.post(`/folders/${outer.id}/sheets`, { name: `${tag} In Outer`, columns: col })).body.result;
  const inInner = (await s.api.post(`/folders/${inner.id}/sheets`, { name: `${tag} In Inner`, columns: col })).body.result;
  const tpl = (await s.api.post(`/workspaces/${ws.id}/sheets`, { name: `${tag} Template`, columns: col })).body.result;
  await s.t.server.store.db.updateTable('sheets').set({ is_template: 1 }).where('id', '=', tpl.id).execute();
  return { ws, outer, inner, top, inOuter, inInner, tpl };
}

describe('home', () => {
  test('home.listContents (GET /home) answers the Home object: sheets, folders, workspaces', async () => {
    const sh = await makeSheet(s.api, 'Home sheet', col);
    const f = (await s.api.post('/home/folders', { name: 'Home folder' })).body.result;
    await s.api.post(`/folders/${f.id}/sheets`, { name: 'Nested', columns: col });
    const ws = (await s.api.post('/workspaces', { name: 'Home WS' })).body.result;
    const home = await sdk(s.t.adminToken).home.listContents({});
    assert.ok(home.sheets.some((x: { id: number }) => x.id === sh.id));
    const folder = home.folders.find((x: { id: number }) => x.id === f.id);
    assert.deepEqual(folder.sheets.map((x: { name: string }) => x.name), ['Nested']);
    assert.ok(home.workspaces.some((x: { id: number; accessLevel: string }) => x.id === ws.id && x.accessLevel === 'OWNER'));
    // the same answer as the reference's GET /folders/personal
    assert.deepEqual((await s.api.get('/home')).body, (await s.api.get('/folders/personal')).body);
  });
});

describe('folders', () => {
  test('getFolderMetadata: the folder alone, with its dates', async () => {
    const l = await layout('Meta');
    const m = await sdk(s.t.adminToken).folders.getFolderMetadata({ folderId: l.outer.id });
    assert.deepEqual(Object.keys(m).sort(), ['createdAt', 'id', 'modifiedAt', 'name', 'permalink']);
    assert.equal(m.id, l.outer.id);
    assert.equal(m.name, 'Meta Outer');
    assert.match(m.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const n = await sdk(s.t.adminToken).folders.getFolderMetadata({ folderId: l.outer.id, queryParameters: { numericDates: true } });
    assert.equal(typeof n.createdAt, 'number');
  });

  test('getFolderChildren: folders, then sheets, each with resourceType; childrenResourceTypes filters', async () => {
    const l = await layout('Kids');
    const c = sdk(s.t.adminToken);
    const all = await c.folders.getFolderChildren({ folderId: l.outer.id });
    assert.deepEqual(all.data.map((x: { id: number; resourceType: string }) => [x.resourceType, x.id]), [['folder', l.inner.id], ['sheet', l.inOuter.id]]);
    assert.equal(all.lastKey, undefined);
    for (const x of all.data) {
      assert.equal(x.accessLevel, 'OWNER');
      assert.equal(typeof x.permalink, 'string');
      assert.equal(typeof x.createdAt, 'string');
      assert.equal(typeof x.modifiedAt, 'string');
    }
    const onlySheets = await c.folders.getFolderChildren({ folderId: l.outer.id, queryParameters: { childrenResourceTypes: 'sheets' } });
    assert.deepEqual(onlySheets.data.map((x: { id: number }) => x.id), [l.inOuter.id]);
    const reports = await c.folders.getFolderChildren({ folderId: l.outer.id, queryParameters: { childrenResourceTypes: 'reports, sights' } });
    assert.deepEqual(reports.data, []);
  });

  test('getFolderChildren pages by lastKey: every child once, lastKey absent on the last page', async () => {
    const f = (await s.api.post('/home/folders', { name: 'Many' })).body.result;
    const made: number[] = [];
    for (let i = 0; i < 5; i++) made.push((await s.api.post(`/folders/${f.id}/sheets`, { name: `Many ${i}`, columns: col })).body.result.id);
    const c = sdk(s.t.adminToken);
    const seen: number[] = [];
    let lastKey: string | undefined;
    let pages = 0;
    do {
      const page = await c.folders.getFolderChildren({ folderId: f.id, queryParameters: { maxItems: 2, ...(lastKey ? { lastKey } : {}) } });
      assert.ok(page.data.length <= 2);
      seen.push(...page.data.map((x: { id: number }) => x.id));
      lastKey = page.lastKey;
      pages++;
    } while (lastKey);
    assert.equal(pages, 3);
    assert.deepEqual(seen, made);
  });

  test('getFolderPath: the workspace, then each folder down to the one asked for', async () => {
    const l = await layout('Path');
    const p = await sdk(s.t.adminToken).folders.getFolderPath({ folderId: l.inner.id });
    assert.equal(p.id, l.ws.id);
    assert.equal(p.accessLevel, 'OWNER');
    assert.equal(getLeafFolder(p).id, l.inner.id);
    assert.equal(getLeafFolderPath(p), '/Path WS/Path Outer/Path Inner');
    // a home folder's path starts at the outermost home folder
    const top = (await s.api.post('/home/folders', { name: 'Top' })).body.result;
    const sub = (await s.api.post(`/folders/${top.id}/folders`, { name: 'Sub' })).body.result;
    assert.equal(getLeafFolderPath(await sdk(s.t.adminToken).folders.getFolderPath({ folderId: sub.id })), '/Top/Sub');
  });

  test('children, metadata and path of a folder the caller cannot see are 1006; bad parameters are 1018', async () => {
    const f = (await s.api.post('/home/folders', { name: 'Private' })).body.result;
    const other = await makeUser(s.t, s.api, 'folder.outsider@example.org');
    for (const op of ['getFolderMetadata', 'getFolderChildren', 'getFolderPath'] as const) {
      await assert.rejects(sdk(other.token).folders[op]({ folderId: f.id }), (e: { statusCode: number; errorCode: number }) => e.statusCode === 404 && e.errorCode === 1006, op);
    }
    assertError(await s.api.get(`/folders/${f.id}/children?childrenResourceTypes=sheets,dashboards`), 400, 1018);
    assertError(await s.api.get(`/folders/${f.id}/children?lastKey=not-a-key`), 400, 1018);
    assertError(await s.api.get(`/folders/${f.id}/children?maxItems=0`), 400, 1229);
    assertError(await s.api.get(`/folders/${f.id}/children?maxItems=1001`), 400, 1229);
    // parameter names in any case of their values
    assert.equal((await s.api.get(`/folders/${f.id}/children?childrenResourceTypes=Sheets,FOLDERS`)).status, 200);
  });
});

describe('workspaces', () => {
  test('getWorkspaceMetadata and getWorkspaceChildren (templates too), at the caller\'s level', async () => {
    const l = await layout('WsKids');
    const viewer = await makeUser(s.t, s.api, 'ws.viewer@example.org');
    await s.api.post(`/workspaces/${l.ws.id}/shares`, { email: 'ws.viewer@example.org', accessLevel: 'VIEWER' });
    const c = sdk(viewer.token);
    const m = await c.workspaces.getWorkspaceMetadata({ workspaceId: l.ws.id });
    assert.equal(m.id, l.ws.id);
    assert.equal(m.name, 'WsKids WS');
    assert.equal(m.accessLevel, 'VIEWER');
    assert.equal(typeof m.createdAt, 'string');
    const kids = await c.workspaces.getWorkspaceChildren({ workspaceId: l.ws.id });
    assert.deepEqual(kids.data.map((x: { resourceType: string; id: number }) => [x.resourceType, x.id]), [['folder', l.outer.id], ['sheet', l.top.id], ['template', l.tpl.id]]);
    assert.ok(kids.data.every((x: { accessLevel: string }) => x.accessLevel === 'VIEWER'));
    const folders = await c.workspaces.getWorkspaceChildren({ workspaceId: l.ws.id, queryParameters: { childrenResourceTypes: 'folders' } });
    assert.deepEqual(folders.data.map((x: { id: number }) => x.id), [l.outer.id]);
    const stranger = await makeUser(s.t, s.api, 'ws.stranger@example.org');
    await assert.rejects(sdk(stranger.token).workspaces.getWorkspaceChildren({ workspaceId: l.ws.id }), (e: { errorCode: number }) => e.errorCode === 1006);
    await assert.rejects(sdk(stranger.token).workspaces.getWorkspaceMetadata({ workspaceId: l.ws.id }), (e: { errorCode: number }) => e.errorCode === 1006);
  });

  test('include=source,ownerInfo on children adds them to sheets', async () => {
    const l = await layout('Inc');
    const kids = await sdk(s.t.adminToken).workspaces.getWorkspaceChildren({ workspaceId: l.ws.id, queryParameters: { include: 'ownerInfo', childrenResourceTypes: 'sheets' } });
    const me = (await s.api.get('/users/me')).body;
    assert.equal(kids.data[0].ownerId, me.id);
    assert.equal(kids.data[0].owner, me.email);
  });

  test('include=ownerInfo through the SDK: owner (address) and ownerId on Home contents, folder children and List Sheets, Reports and Dashboards', async () => {
    const email = 'sdk.owner-info@example.org';
    const u = await makeUser(s.t, s.api, email);
    const f = (await s.api.post('/home/folders', { name: 'OI folder' }, { token: u.token })).body.result;
    const sh = (await s.api.post(`/folders/${f.id}/sheets`, { name: 'OI sheet', columns: col }, { token: u.token })).body.result;
    const report = (await s.api.post('/sheetd/reports', { name: 'OI report', destinationType: 'folder', destinationId: f.id, scope: { sheets: [{ id: sh.id }] }, columns: [{ title: 'A', type: 'TEXT_NUMBER' }] }, { token: u.token })).body.result;
    const sight = (await s.api.post('/sheetd/sights', { name: 'OI dash' }, { token: u.token })).body.result;
    const c = sdk(u.token);
    const owned = (x: { ownerId?: number; owner?: string } | undefined) => [x?.ownerId, x?.owner];
    const include = { queryParameters: { include: 'ownerInfo', includeAll: true } };
    const home = await c.home.listContents(include);
    const folder = home.folders.find((x: { id: number }) => x.id === f.id);
    assert.deepEqual(owned(folder.sheets[0]), [u.id, email]);
    assert.deepEqual(owned(home.sights.find((x: { id: number }) => x.id === sight.id)), [u.id, email]);
    const kids = await c.folders.getFolderChildren({ folderId: f.id, queryParameters: { include: 'ownerInfo' } });
    assert.deepEqual(kids.data.map((x: { resourceType: string; ownerId?: number; owner?: string }) => [x.resourceType, ...owned(x)]), [['sheet', u.id, email], ['report', u.id, email]]);
    const sheets = await c.raw.sheets.listSheets(include as never);
    assert.deepEqual(owned(sheets.data.find((x: { id: number }) => x.id === sh.id)), [u.id, email]);
    const reports = await c.raw.reports.listReports(include as never);
    assert.deepEqual(owned(reports.data.find((x: { id: number }) => x.id === report.id) as never), [u.id, email]);
    const sights = await c.raw.sights.listSights(include as never);
    assert.deepEqual(owned(sights.data.find((x: { id: number }) => x.id === sight.id) as never), [u.id, email]);
  });
});

describe('sheets', () => {
  test('getSheetPath: workspace, folders, then the sheet as the leaf', async () => {
    const l = await layout('SPath');
    const c = sdk(s.t.adminToken);
    const deep = await c.sheets.getSheetPath({ sheetId: l.inInner.id });
    // the node of each container holds the next one in `folders`; the sheet's own folder holds it in `sheets`
    assert.deepEqual([deep.id, deep.folders[0].id, deep.folders[0].folders[0].id], [l.ws.id, l.outer.id, l.inner.id]);
    assert.equal(deep.folders[0].folders[0].sheets[0].id, l.inInner.id);
    // (the SDK's getLeafSheetPath leaves out the name of the folder that holds the sheet)
    assert.equal(getLeafSheetPath(deep), '/SPath WS/SPath Outer/SPath In Inner');
    const leaf = getLeafSheet(deep)!;
    assert.equal(leaf.id, l.inInner.id);
    assert.equal(leaf.accessLevel, 'OWNER');
    assert.equal(typeof leaf.createdAt, 'string');
    const top = await c.sheets.getSheetPath({ sheetId: l.top.id });
    assert.equal(top.id, l.ws.id);
    assert.equal(getLeafSheet(top)!.id, l.top.id);
  });

  test('a sheet shared alone shows no container the caller cannot see', async () => {
    const l = await layout('Shared');
    const u = await makeUser(s.t, s.api, 'sheet.only@example.org');
    await s.api.post(`/sheets/${l.inInner.id}/shares`, { email: 'sheet.only@example.org', accessLevel: 'EDITOR' });
    const p = await sdk(u.token).sheets.getSheetPath({ sheetId: l.inInner.id });
    assert.deepEqual(Object.keys(p).sort(), ['accessLevel', 'createdAt', 'id', 'modifiedAt', 'name', 'permalink']);
    assert.equal(p.id, l.inInner.id);
    assert.equal(p.accessLevel, 'EDITOR');
    const stranger = await makeUser(s.t, s.api, 'sheet.stranger@example.org');
    await assert.rejects(sdk(stranger.token).sheets.getSheetPath({ sheetId: l.inInner.id }), (e: { errorCode: number }) => e.errorCode === 1006);
  });
});

test('webhooks.resetSharedSecret reaches the route: 404/1006 while no webhook exists', async () => {
  await assert.rejects(sdk(s.t.adminToken).webhooks.resetSharedSecret({ webhookId: 2 ** 41 }), (e: { statusCode: number; errorCode: number }) => e.statusCode === 404 && e.errorCode === 1006);
});
