import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import smartsheet from 'smartsheet';
import { startSuiteServer, type TestServer } from '../helpers/server.ts';
import { assertError, client, type Client, allEvents } from '../helpers/http.ts';
import { tokenFor } from '../helpers/tokens.ts';
import { newId } from '../../src/ids.ts';

let t: TestServer;
let api: Client;
let adminId: number;


const tokenOf = (email: string) => tokenFor(t, email);

async function addUser(body: Record<string, unknown>): Promise<number> {
  const res = await api.post('/users', body);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.result.id as number;
}

async function insertSheet(ownerId: number, name: string): Promise<number> {
  const id = newId();
  const me = await api.get('/users/me');
  const now = Date.now();
  await t.server.store.db.insertInto('sheets').values({
    id, org_id: me.body.account.id, owner_id: ownerId, name, folder_id: null, workspace_id: null, version: 0, is_template: 0,
    source: null, settings: '{}', created_at: now, modified_at: now,
  }).execute();
  return id;
}

async function userCount(): Promise<number> {
  return (await api.get('/users?includeAll=true')).body.totalCount as number;
}

async function eventsFor(objectId: number) {
  return (await allEvents<{ objectId: number; objectType: string; action: string; userId: number; requestUserId: number }>(api)).filter((e) => e.objectId === objectId);
}

before(async () => {
  t = await startSuiteServer();
  api = client(t.base, t.adminToken);
  adminId = (await api.get('/users/me')).body.id;
});
after(() => t.close());

describe('Add User', () => {
  test('adds a user with names and roles; the answer is the User object', async () => {
    const res = await api.post('/users?sendEmail=true', { email: 'Ann.Lee@Example.org', firstName: 'Ann', lastName: 'Lee', licensedSheetCreator: true, groupAdmin: true, resourceViewer: true });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.message, 'SUCCESS');
    const u = res.body.result;
    assert.equal(u.email, 'ann.lee@example.org');
    assert.equal(u.name, 'Ann Lee');
    assert.deepEqual([u.admin, u.licensedSheetCreator, u.groupAdmin, u.resourceViewer, u.status], [false, true, true, true, 'ACTIVE']);
    const got = await api.get(`/users/${u.id}`);
    assert.equal(got.status, 200);
    assert.equal(got.body.firstName, 'Ann');
    assert.equal(got.body.groupAdmin, true);
    assert.deepEqual(got.body.alternateEmails, []);
    assert.equal(typeof got.body.account.id, 'number');
  });
  test('refusals change nothing', async () => {
    const before = await userCount();
    assertError(await api.post('/users', { email: 'not-an-address' }), 400, 1156);
    assertError(await api.post('/users', { firstName: 'No', lastName: 'Email' }), 400, 1012);
    assertError(await api.post('/users', { email: 'ann.lee@example.org' }), 403, 1016);
    assertError(await api.post('/users', { email: 'ANN.LEE@example.org' }), 403, 1016);
    assertError(await api.post('/users', { email: 'bad.name@example.org', firstName: 'Bob<script>' }), 400, 1329);
    assertError(await api.post('/users', { email: 'bad.name@example.org', lastName: 'Tab\there' }), 400, 1329);
    assertError(await api.post('/users', { email: 'ga@example.org', groupAdmin: true }), 403, 1102);
    assertError(await api.post('/users', { email: 'rv@example.org', resourceViewer: true }), 403, 1097);
    assertError(await api.post('/users', { email: 'typed@example.org', admin: 'yes' }), 400, 1031);
    assertError(await api.post('/users?sendEmail=maybe', { email: 'q@example.org' }), 400, 1018);
    const plain = await tokenOf('ann.lee@example.org');
    assertError(await api.post('/users', { email: 'by.nonadmin@example.org' }, { token: plain }), 403, 1004);
    // no refused address became a user (read by address: against a cluster other files add users)
    const refused = ['not-an-address', 'bad.name@example.org', 'ga@example.org', 'rv@example.org', 'typed@example.org', 'q@example.org', 'by.nonadmin@example.org'];
    assert.equal((await api.get(`/users?email=${refused.join(',')}`)).body.totalCount, 0);
    assert.equal((await api.get('/users?email=ann.lee@example.org')).body.totalCount, 1, 'the existing user is still one');
    if (!process.env.SHEETD_TEST_BASE_URL) assert.equal(await userCount(), before);
  });
});

describe('List and Get User', () => {
  test('email filter (comma-separated), admin-only attributes, sheetCount', async () => {
    const id = await addUser({ email: 'lister@example.org', licensedSheetCreator: true });
    await insertSheet(id, 'Lister sheet 1');
    await insertSheet(id, 'Lister sheet 2');
    const res = await api.get('/users?email=lister@example.org,ann.lee@example.org');
    assert.equal(res.body.totalCount, 2);
    const lister = res.body.data.find((u: { id: number }) => u.id === id);
    assert.equal(lister.sheetCount, 2);
    assert.equal(lister.status, 'ACTIVE');
    const plain = await tokenOf('lister@example.org');
    const asMember = await api.get('/users?email=ann.lee@example.org', { token: plain });
    assert.equal(asMember.status, 200);
    const ann = asMember.body.data[0];
    assert.equal(ann.email, 'ann.lee@example.org');
    for (const k of ['admin', 'groupAdmin', 'licensedSheetCreator', 'resourceViewer', 'sheetCount', 'status']) assert.equal(k in ann, false, k);
    const profile = await api.get(`/users/${ann.id}`, { token: plain });
    assert.equal(profile.status, 200);
    assert.equal('admin' in profile.body, false);
    assert.equal('sheetCount' in profile.body, false);
    const adminView = await api.get(`/users/${id}`);
    assert.equal(adminView.body.sheetCount, 2);
    assert.equal(adminView.body.status, 'ACTIVE');
  });
  test('include=lastLogin shows the last login to admins', async () => {
    const id = await addUser({ email: 'logger@example.org' });
    const at = Date.UTC(2024, 0, 2, 3, 4, 5);
    await t.server.store.db.updateTable('users').set({ last_login: at }).where('id', '=', id).execute();
    const plainList = await api.get('/users?email=logger@example.org');
    assert.equal('lastLogin' in plainList.body.data[0], false);
    for (const inc of ['lastLogin', 'lastLoginTime']) {
      const res = await api.get(`/users?email=logger@example.org&include=${inc}`);
      assert.equal(res.body.data[0].lastLogin, '2024-01-02T03:04:05Z');
    }
    const num = await api.get('/users?email=logger@example.org&include=lastLogin&numericDates=true');
    assert.equal(num.body.data[0].lastLogin, at);
  });
  test('unknown user is 404/1020; a malformed id is 404/1006', async () => {
    assertError(await api.get('/users/1234567890123'), 404, 1020);
    assertError(await api.get('/users/abc'), 404, 1006);
  });
});

describe('Update User', () => {
  test('changes names and roles and records the change', async () => {
    const id = await addUser({ email: 'upd@example.org', firstName: 'Up' });
    const res = await api.put(`/users/${id}`, { firstName: 'Updated', lastName: 'Person', licensedSheetCreator: true, groupAdmin: true, admin: false });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.result.name, 'Updated Person');
    assert.equal(res.body.result.groupAdmin, true);
    assert.equal((await api.get(`/users/${id}`)).body.lastName, 'Person');
    const ev = await eventsFor(id);
    assert.ok(ev.some((e) => e.objectType === 'USER' && e.action === 'UPDATE_USER' && e.userId === adminId && e.requestUserId === adminId));
  });
  test('refusals change nothing', async () => {
    const id = await addUser({ email: 'owner.of.sheets@example.org', licensedSheetCreator: true, groupAdmin: true });
    await insertSheet(id, 'Owned');
    const snapshot = (await api.get(`/users/${id}`)).body;
    assertError(await api.put(`/users/${id}`, { licensedSheetCreator: false, groupAdmin: false }), 403, 1076);
    assertError(await api.put(`/users/${id}`, { licensedSheetCreator: true, groupAdmin: false, firstName: 'X\u0001' }), 400, 1329);
    assertError(await api.put(`/users/${id}`, { resourceViewer: true, licensedSheetCreator: false, groupAdmin: false }), 403, 1097);
    assertError(await api.put(`/users/${adminId}`, { admin: false }), 403, 1049);
    assertError(await api.put(`/users/${id}`, { nickname: 'x' }), 400, 1032);
    assertError(await api.put('/users/1234567890123', { firstName: 'Nobody' }), 404, 1020);
    // a group admin who owns a group stays one
    const tok = await tokenOf('owner.of.sheets@example.org');
    assert.equal((await api.post('/groups', { name: 'Owned group' }, { token: tok })).status, 200);
    assertError(await api.put(`/users/${id}`, { groupAdmin: false }), 403, 1269);
    assertError(await api.put(`/users/${id}`, { firstName: 'Sneaky' }, { token: tok }), 403, 1004);
    assert.deepEqual((await api.get(`/users/${id}`)).body, snapshot);
    assert.equal((await api.get(`/users/${adminId}`)).body.admin, true);
  });
});

describe('Remove User', () => {
  test('refusals change nothing', async () => {
    const id = await addUser({ email: 'leaver@example.org', licensedSheetCreator: true, groupAdmin: true });
    const other = await addUser({ email: 'not.group.admin@example.org' });
    const tok = await tokenOf('leaver@example.org');
    assert.equal((await api.post('/groups', { name: 'Leaver group' }, { token: tok })).status, 200);
    const before = await userCount();
    assertError(await api.del(`/users/${adminId}`), 403, 1047);
    assertError(await api.del('/users/1234567890123'), 404, 1020);
    assertError(await api.del(`/users/${id}`), 400, 1121);
    assertError(await api.del(`/users/${id}?transferTo=1234567890123`), 400, 1019);
    assertError(await api.del(`/users/${id}?transferTo=${other}`), 400, 1107);
    assertError(await api.del(`/users/${id}?transferTo=${id}`), 403, 1021);
    assertError(await api.del(`/users/${other}`, { token: tok }), 403, 1004);
    // nobody was removed (read by address: against a cluster other files add users)
    assert.equal((await api.get('/users?email=leaver@example.org,not.group.admin@example.org')).body.totalCount, 2);
    assert.equal((await api.get(`/users/${adminId}`)).status, 200);
    if (!process.env.SHEETD_TEST_BASE_URL) assert.equal(await userCount(), before);
    assert.equal((await api.get('/users/me', { token: tok })).status, 200);
  });
  test('transfers groups and sheets, revokes access, and can be undone by adding the address again', async () => {
    const id = (await api.get('/users?email=leaver@example.org')).body.data[0].id as number;
    const heir = await addUser({ email: 'heir@example.org', licensedSheetCreator: true, groupAdmin: true });
    const sheet = await insertSheet(id, 'Inherited');
    const keep = await addUser({ email: 'keeper@example.org', licensedSheetCreator: true });
    const kept = await insertSheet(keep, 'Kept');
    const tok = await tokenOf('leaver@example.org');
    // the leaver's report and dashboard go to the heir with the sheets
    const report = await api.post('/sheetd/reports', { name: 'Inherited report', scope: { sheets: [{ id: sheet }] }, columns: [{ sheetNameColumn: true }] }, { token: tok });
    assert.equal(report.status, 200, JSON.stringify(report.body));
    const sight = await api.post('/sheetd/sights', { name: 'Inherited dashboard', widgets: [] }, { token: tok });
    assert.equal(sight.status, 200, JSON.stringify(sight.body));
    const res = await api.del(`/users/${id}?transferTo=${heir}&transferSheets=true&removeFromSharing=true`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.resultCode, 0);
    assert.equal((await api.get('/users?email=leaver@example.org')).body.totalCount, 0);
    assertError(await api.get(`/users/${id}`), 404, 1020);
    assertError(await api.get('/users/me', { token: tok }), 401, 1002);
    const groups = (await api.get('/groups')).body.data as Array<{ name: string; ownerId: number }>;
    assert.equal(groups.find((g) => g.name === 'Leaver group')?.ownerId, heir);
    const owner = await t.server.store.db.selectFrom('sheets').select('owner_id').where('id', '=', sheet).executeTakeFirstOrThrow();
    assert.equal(Number(owner.owner_id), heir);
    const heirTok = await tokenOf('heir@example.org');
    const reports = (await api.get('/reports', { token: heirTok })).body.data as Array<{ id: number; accessLevel: string }>;
    assert.equal(reports.find((r) => r.id === report.body.result.id)?.accessLevel, 'OWNER');
    const sights = (await api.get('/sights', { token: heirTok })).body.data as Array<{ id: number; accessLevel: string }>;
    assert.equal(sights.find((r) => r.id === sight.body.result.id)?.accessLevel, 'OWNER');
    assertError(await api.del(`/users/${id}`), 403, 1022);
    assertError(await api.post(`/users/${id}/deactivate`), 403, 1335);
    assertError(await api.post(`/users/${id}/reactivate`), 403, 1354);
    // removal without transfer keeps the sheets with their owner; re-adding brings the same account back
    assertError(await api.del(`/users/${keep}?transferSheets=true`), 400, 1009);
    assert.equal((await api.del(`/users/${keep}`)).status, 200);
    assertError(await api.post('/users', { email: 'keeper@example.org' }), 403, 1140);
    const back = await api.post('/users', { email: 'keeper@example.org', licensedSheetCreator: true });
    assert.equal(back.status, 200);
    assert.equal(back.body.result.id, keep);
    assert.equal((await api.get(`/users/${keep}`)).body.sheetCount, 1);
    const keptOwner = await t.server.store.db.selectFrom('sheets').select('owner_id').where('id', '=', kept).executeTakeFirstOrThrow();
    assert.equal(Number(keptOwner.owner_id), keep);
    const ev = await eventsFor(id);
    assert.ok(ev.some((e) => e.action === 'REMOVE_FROM_ACCOUNT'));
  });
});

describe('Deactivate and Reactivate User', () => {
  test('a deactivated user cannot use the API until reactivated', async () => {
    const id = await addUser({ email: 'sleeper@example.org' });
    const tok = await tokenOf('sleeper@example.org');
    assertError(await api.post(`/users/${adminId}/deactivate`), 403, 1336);
    assertError(await api.post(`/users/${adminId}/reactivate`), 403, 1355);
    assertError(await api.post('/users/1234567890123/deactivate'), 404, 1020);
    assertError(await api.post(`/users/${adminId}/deactivate`, undefined, { token: tok }), 403, 1004);
    assert.equal((await api.post(`/users/${id}/deactivate`)).status, 200);
    assert.equal((await api.get(`/users/${id}`)).body.status, 'DEACTIVATED');
    assertError(await api.get('/users/me', { token: tok }), 401, 1002);
    assertError(await api.post(`/users/${id}/deactivate`), 403, 1188);
    assert.equal((await api.post(`/users/${id}/reactivate`)).status, 200);
    assert.equal((await api.get(`/users/${id}`)).body.status, 'ACTIVE');
    assert.equal((await api.get('/users/me', { token: tok })).status, 200);
    const actions = (await eventsFor(id)).map((e) => e.action);
    assert.ok(actions.includes('DEACTIVATE') && actions.includes('ACTIVATE'));
  });
});

describe('Get Current User and List Org Sheets', () => {
  test('GET /users/me carries account, locale, time zone, and groups with include=groups', async () => {
    const me = await api.get('/users/me?include=groups');
    assert.equal(me.body.id, adminId);
    assert.equal(me.body.locale, 'en_US');
    assert.equal(typeof me.body.timeZone, 'string');
    assert.equal(typeof me.body.account.name, 'string');
    assert.ok(Array.isArray(me.body.groups));
    const g = await api.post('/groups', { name: 'Me group', description: 'has me', members: [{ email: t.config.adminEmail }] });
    assert.equal(g.status, 200);
    const again = await api.get('/users/me?include=groups');
    assert.deepEqual(again.body.groups.find((x: { id: number }) => x.id === g.body.result.id), { id: g.body.result.id, name: 'Me group', description: 'has me' });
    assert.equal('groups' in (await api.get('/users/me')).body, false);
  });
  test('GET /users/sheets lists sheets of members, for admins, stream-style', async () => {
    const owner = (await api.get('/users?email=lister@example.org')).body.data[0];
    const res = await api.get('/users/sheets');
    assert.equal(res.status, 200);
    const mine = res.body.data.filter((s: { ownerId: number }) => s.ownerId === owner.id);
    assert.deepEqual(mine.map((s: { name: string }) => s.name).sort(), ['Lister sheet 1', 'Lister sheet 2']);
    assert.equal(mine[0].owner, 'lister@example.org');
    assert.equal(res.body.totalCount, -1);
    // a page past any end, also on a database other test files share (a cluster run holds hundreds)
    const past = await api.get('/users/sheets?page=100000&pageSize=10');
    assert.deepEqual(past.body, { pageNumber: 0, pageSize: 0, totalPages: 0, totalCount: 0, data: [] });
    const tok = await tokenOf('lister@example.org');
    assertError(await api.get('/users/sheets', { token: tok }), 403, 1004);
  });
});

describe('through the SDK', () => {
  test('get, update, deactivate, reactivate and remove a user', async () => {
    const c = smartsheet.createClient({ accessToken: t.adminToken, baseUrl: t.base + '/', logLevel: 'error' });
    const id = await addUser({ email: 'sdk.person@example.org', firstName: 'Sdk' });
    const got = await c.users.getUser({ userId: id });
    assert.equal(got.email, 'sdk.person@example.org');
    const body = { firstName: 'Renamed', admin: false, licensedSheetCreator: true } as unknown as Parameters<typeof c.users.updateUser>[0]['body'];
    const upd = (await c.users.updateUser({ userId: id, body })) as unknown as { result: { firstName: string } };
    assert.equal(upd.result.firstName, 'Renamed');
    await c.users.deactivateUser({ userId: id });
    assert.equal(((await c.users.getUser({ userId: id })) as unknown as { status: string }).status, 'DEACTIVATED');
    await c.users.reactivateUser({ userId: id });
    const removed = await c.users.removeUser({ userId: id, queryParameters: { transferTo: adminId, transferSheets: true } });
    assert.equal(removed.resultCode, 0);
    await assert.rejects(c.users.getUser({ userId: id }), (e: { statusCode?: number; errorCode?: number }) => e.statusCode === 404 && e.errorCode === 1020);
  });
});
