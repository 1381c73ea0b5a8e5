import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import smartsheet from 'smartsheet';
import { startSuiteServer, type TestServer } from '../helpers/server.ts';
import { client, type Client, type Res } from '../helpers/http.ts';
import { createToken } from '../../src/services/identity/tokens.ts';
import { findUserByEmail } from '../../src/store/users.ts';

// Favorites over raw HTTP and the official SDK.
let t: TestServer;
let api: Client;

type Body = Res['body'];
type Call = (o?: object) => Promise<Body>;

function assertError(res: { status: number; body: unknown }, status: number, code: number) {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.equal((res.body as { errorCode: number }).errorCode, code, JSON.stringify(res.body));
}

async function favs(): Promise<string[]> {
  return (await api.get('/favorites?includeAll=true')).body.data.map((f: { type: string; objectId: number }) => `${f.type}:${f.objectId}`).sort();
}

before(async () => {
  t = await startSuiteServer();
  api = client(t.base, t.adminToken);
});
after(() => t.close());

test('add one, add many, list (include=name), is favorite, remove', async () => {
  const s = (await api.post('/sheets', { name: 'Fav sheet', columns: [{ title: 'A', type: 'TEXT_NUMBER', primary: true }] })).body.result;
  const f = (await api.post('/home/folders', { name: 'Fav folder' })).body.result;
  const w = (await api.post('/workspaces', { name: 'Fav ws' })).body.result;

  const one = await api.post('/favorites', { type: 'sheet', objectId: s.id });
  assert.equal(one.status, 200, JSON.stringify(one.body));
  assert.deepEqual(one.body.result, { type: 'sheet', objectId: s.id });
  assertError(await api.post('/favorites', { type: 'sheet', objectId: s.id }), 400, 1129);

  const many = await api.post('/favorites', [{ type: 'sheet', objectId: s.id }, { type: 'folder', objectId: f.id }, { type: 'workspace', objectId: w.id }]);
  assert.equal(many.status, 200);
  assert.deepEqual(many.body.result, [{ type: 'folder', objectId: f.id }, { type: 'workspace', objectId: w.id }]);
  assert.deepEqual(await favs(), [`folder:${f.id}`, `sheet:${s.id}`, `workspace:${w.id}`].sort());

  const named = (await api.get('/favorites?include=name')).body.data;
  assert.equal(named.find((x: { type: string }) => x.type === 'workspace').name, 'Fav ws');
  assert.equal((await api.get(`/favorites/sheet/${s.id}`)).body.objectId, s.id);
  assert.equal((await api.get('/workspaces')).body.data.find((x: { id: number }) => x.id === w.id).favorite, true);

  assert.equal((await api.del(`/favorites/sheet/${s.id}`)).status, 200);
  assertError(await api.get(`/favorites/sheet/${s.id}`), 404, 1006);
  assertError(await api.del(`/favorites/sheet/${s.id}`), 404, 1006);
  assert.equal((await api.del(`/favorites/folder?objectIds=${f.id},12345`)).status, 200);
  assert.deepEqual(await favs(), [`workspace:${w.id}`]);

  // deleting the object removes it from favorites
  await api.del(`/workspaces/${w.id}`);
  assert.deepEqual(await favs(), []);
});

test('bad favorites get their error and change nothing', async () => {
  const s = (await api.post('/sheets', { name: 'Fav 2', columns: [{ title: 'A', type: 'TEXT_NUMBER', primary: true }] })).body.result;
  const before = await favs();
  assertError(await api.post('/favorites', { objectId: s.id }), 400, 1012);
  assertError(await api.post('/favorites', { type: 'sheet' }), 400, 1012);
  assertError(await api.post('/favorites', { type: 'spreadsheet', objectId: s.id }), 400, 1031);
  assertError(await api.post('/favorites', { type: 'sheet', objectId: 'x' }), 400, 1031);
  assertError(await api.post('/favorites', { type: 'sheet', objectId: 1234567890123 }), 404, 1006);
  assertError(await api.post('/favorites', [{ type: 'sheet', objectId: s.id }, { type: 'folder', objectId: 1234567890123 }]), 404, 1006);
  assertError(await api.del('/favorites/sheet'), 400, 1009);
  assertError(await api.del('/favorites/spreadsheet?objectIds=1'), 400, 1018);
  assert.deepEqual(await favs(), before);
});

test('favorites of another user are their own; an object one cannot see cannot be a favorite', async () => {
  const s = (await api.post('/sheets', { name: 'Private', columns: [{ title: 'A', type: 'TEXT_NUMBER', primary: true }] })).body.result;
  await api.post('/favorites', { type: 'sheet', objectId: s.id });
  await api.post('/users', { email: 'other@example.org' });
  const db = t.server.store.db;
  const u = (await findUserByEmail(db, 'other@example.org'))!;
  const other = client(t.base, (await createToken(db, { orgId: u.org_id, userId: null, requestUserId: null, accessTokenName: null, source: 'TEST' }, u.id, { name: 't' })).raw);
  assert.equal((await other.get('/favorites')).body.totalCount, 0);
  assertError(await other.post('/favorites', { type: 'sheet', objectId: s.id }), 404, 1006);
});

test('through the SDK', async () => {
  const c = smartsheet.createClient({ accessToken: t.adminToken, baseUrl: t.base + '/', logLevel: 'error' }) as unknown as Record<string, Record<string, Call>>;
  const f = (await api.post('/home/folders', { name: 'SDK fav' })).body.result;
  const w = (await api.post('/workspaces', { name: 'SDK fav ws' })).body.result;
  const added = await c.favorites!.addFolderToFavorites!({ objectId: f.id });
  assert.equal(added.message, 'SUCCESS');
  await c.favorites!.addMultipleToFavorites!({ body: [{ type: 'workspace', objectId: w.id }] });
  const list = await c.favorites!.listFavorites!({});
  assert.ok(list.data.some((x: { type: string; objectId: number }) => x.type === 'folder' && x.objectId === f.id));
  await c.favorites!.removeFolderFromFavorites!({ favoriteId: f.id });
  await c.favorites!.removeWorkspaceFromFavorites!({ favoriteId: w.id });
  const after = await c.favorites!.listFavorites!({});
  assert.ok(!after.data.some((x: { objectId: number }) => x.objectId === f.id || x.objectId === w.id));
});
