import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import smartsheet from 'smartsheet';
import { startSuiteServer, type TestServer } from '../helpers/server.ts';
import { assertError, client, type Client, allEvents } from '../helpers/http.ts';
import { tokenFor } from '../helpers/tokens.ts';

let t: TestServer;
let api: Client;
const ids: Record<string, number> = {};
const tokens: Record<string, string> = {};


const tokenOf = (email: string) => tokenFor(t, email);

async function groupState() {
  const all = (await api.get('/groups?includeAll=true')).body.data as Array<{ id: number }>;
  return Promise.all(all.map(async (g) => (await api.get(`/groups/${g.id}`)).body));
}

before(async () => {
  t = await startSuiteServer();
  api = client(t.base, t.adminToken);
  for (const [key, body] of Object.entries({
    ga: { email: 'ga@example.org', firstName: 'Group', lastName: 'Admin', licensedSheetCreator: true, groupAdmin: true },
    ga2: { email: 'ga2@example.org', licensedSheetCreator: true, groupAdmin: true },
    plain: { email: 'plain@example.org', firstName: 'Plain' },
    m1: { email: 'm1@example.org', firstName: 'Em', lastName: 'One' },
    m2: { email: 'm2@example.org' },
    off: { email: 'off@example.org' },
  })) {
    const res = await api.post('/users', body);
    assert.equal(res.status, 200);
    ids[key] = res.body.result.id;
    tokens[key] = await tokenOf(body.email);
  }
  assert.equal((await api.post(`/users/${ids.off}/deactivate`)).status, 200);
});
after(() => t.close());

describe('groups', () => {
  test('a group admin creates a group with members; everyone in the organization can read it', async () => {
    const res = await api.post('/groups', { name: 'Engineering', description: 'builders', members: [{ email: 'm1@example.org' }, { email: 'M2@example.org' }] }, { token: tokens.ga });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const g = res.body.result;
    assert.equal(g.name, 'Engineering');
    assert.equal(g.owner, 'ga@example.org');
    assert.equal(g.ownerId, ids.ga);
    assert.match(g.createdAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    assert.deepEqual(g.members.map((m: { email: string }) => m.email), ['m1@example.org', 'm2@example.org']);
    ids.eng = g.id;
    const read = await api.get(`/groups/${g.id}`, { token: tokens.plain });
    assert.equal(read.status, 200);
    assert.deepEqual(read.body.members[0], { id: ids.m1, email: 'm1@example.org', firstName: 'Em', lastName: 'One', name: 'Em One' });
    const list = await api.get('/groups', { token: tokens.plain });
    assert.equal(list.body.totalCount, 1);
    assert.equal('members' in list.body.data[0], false);
    const rows = await t.server.store.db.selectFrom('group_members').select('user_id').where('group_id', '=', g.id).execute();
    assert.deepEqual(rows.map((r) => Number(r.user_id)).sort(), [ids.m1, ids.m2].sort());
  });
  test('refused creations change nothing', async () => {
    const before = await groupState();
    assertError(await api.post('/groups', { name: 'Nope' }, { token: tokens.plain }), 403, 1104);
    assertError(await api.post('/groups', { name: 'engineering' }), 400, 1103);
    assertError(await api.post('/groups', { description: 'no name' }), 400, 1012);
    assertError(await api.post('/groups', { name: 'Outsiders', members: [{ email: 'stranger@elsewhere.org' }] }), 400, 1105);
    assertError(await api.post('/groups', { name: 'Sleepy', members: [{ email: 'off@example.org' }] }), 400, 1290);
    assertError(await api.post('/groups', { name: 'Bad', members: [{ email: 'not an address' }] }), 400, 1156);
    assertError(await api.post('/groups', { name: 'Typed', members: 'm1@example.org' }), 400, 1031);
    assert.deepEqual(await groupState(), before);
  });
  test('paging walks every group once', async () => {
    for (const n of ['Alpha', 'Beta', 'Gamma', 'Delta']) assert.equal((await api.post('/groups', { name: n })).status, 200);
    const seen: string[] = [];
    for (let page = 1; page <= 3; page++) {
      const res = await api.get(`/groups?pageSize=2&page=${page}`);
      assert.equal(res.body.totalCount, 5);
      assert.equal(res.body.totalPages, 3);
      seen.push(...res.body.data.map((g: { name: string }) => g.name));
    }
    assert.deepEqual(seen, ['Alpha', 'Beta', 'Delta', 'Engineering', 'Gamma']);
  });
  test('update: rename, describe, transfer ownership; owner and admins only', async () => {
    const before = (await api.get(`/groups/${ids.eng}`)).body;
    assertError(await api.put(`/groups/${ids.eng}`, { name: 'Mine' }, { token: tokens.ga2 }), 403, 1004);
    assertError(await api.put(`/groups/${ids.eng}`, { name: 'Mine' }, { token: tokens.plain }), 403, 1104);
    assertError(await api.put(`/groups/${ids.eng}`, { name: 'alpha' }, { token: tokens.ga }), 400, 1103);
    assertError(await api.put(`/groups/${ids.eng}`, { ownerId: ids.plain }, { token: tokens.ga }), 400, 1107);
    assertError(await api.put(`/groups/${ids.eng}`, { ownerId: 1234567890123 }, { token: tokens.ga }), 400, 1031);
    assertError(await api.put('/groups/1234567890123', { name: 'Ghost' }), 404, 1106);
    assert.deepEqual((await api.get(`/groups/${ids.eng}`)).body, before);
    const res = await api.put(`/groups/${ids.eng}`, { name: 'Engineers', description: 'makers', ownerId: ids.ga2 }, { token: tokens.ga });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.result.name, 'Engineers');
    assert.equal(res.body.result.description, 'makers');
    assert.equal(res.body.result.ownerId, ids.ga2);
    assert.equal(res.body.result.owner, 'ga2@example.org');
    // the former owner no longer manages it
    assertError(await api.put(`/groups/${ids.eng}`, { name: 'Back' }, { token: tokens.ga }), 403, 1004);
    const actions = (await allEvents<{ objectId: number; action: string }>(api)).filter((e) => e.objectId === ids.eng).map((e) => e.action);
    for (const a of ['CREATE', 'ADD_MEMBER', 'RENAME', 'TRANSFER_OWNERSHIP']) assert.ok(actions.includes(a), a);
  });
  test('members: add (single and bulk), remove', async () => {
    const one = await api.post(`/groups/${ids.eng}/members`, { email: 'plain@example.org' }, { token: tokens.ga2 });
    assert.equal(one.status, 200, JSON.stringify(one.body));
    assert.equal(one.body.result.id, ids.plain);
    assertError(await api.post(`/groups/${ids.eng}/members`, { email: 'plain@example.org' }, { token: tokens.ga2 }), 400, 1129);
    const bulk = await api.post(`/groups/${ids.eng}/members`, [{ email: 'plain@example.org' }, { email: 'ga@example.org' }], { token: tokens.ga2 });
    assert.equal(bulk.status, 200);
    assert.deepEqual(bulk.body.result.map((m: { id: number }) => m.id), [ids.ga]);
    const before = (await api.get(`/groups/${ids.eng}`)).body.members;
    assertError(await api.post(`/groups/${ids.eng}/members`, [{ email: 'm1@example.org' }, { email: 'nobody@example.org' }], { token: tokens.ga2 }), 400, 1105);
    assertError(await api.post(`/groups/${ids.eng}/members`, [{ email: 'off@example.org' }], { token: tokens.ga2 }), 400, 1290);
    assertError(await api.post(`/groups/${ids.eng}/members`, [{ email: 'm1@example.org' }], { token: tokens.plain }), 403, 1104);
    assertError(await api.del(`/groups/${ids.eng}/members/${ids.off}`, { token: tokens.ga2 }), 404, 1006);
    assert.deepEqual((await api.get(`/groups/${ids.eng}`)).body.members, before);
    assert.equal((await api.del(`/groups/${ids.eng}/members/${ids.plain}`, { token: tokens.ga2 })).status, 200);
    const after = (await api.get(`/groups/${ids.eng}`)).body.members.map((m: { id: number }) => m.id);
    assert.equal(after.includes(ids.plain), false);
    assert.equal(after.length, before.length - 1);
  });
  test('delete: owner or admin; members go with it', async () => {
    assertError(await api.del(`/groups/${ids.eng}`, { token: tokens.ga }), 403, 1004);
    assert.equal((await api.del(`/groups/${ids.eng}`)).status, 200);
    assertError(await api.get(`/groups/${ids.eng}`), 404, 1106);
    const rows = await t.server.store.db.selectFrom('group_members').select('user_id').where('group_id', '=', ids.eng!).execute();
    assert.equal(rows.length, 0);
    assertError(await api.del(`/groups/${ids.eng}`), 404, 1106);
  });
  test('delete: the shares made to the group go with it, each recorded as REMOVE_SHARE; other shares stay', async () => {
    const g = (await api.post('/groups', { name: 'sharing group', members: [{ email: 'm2@example.org' }] })).body.result.id as number;
    const sheet = (await api.post('/sheets', { name: 'shared with a group', columns: [{ title: 'A', type: 'TEXT_NUMBER', primary: true }] })).body.result.id as number;
    const ws = (await api.post('/workspaces', { name: 'group workspace' })).body.result.id as number;
    for (const path of [`/sheets/${sheet}/shares`, `/workspaces/${ws}/shares`]) {
      const r = await api.post(path, [{ groupId: g, accessLevel: 'EDITOR' }, { email: 'm1@example.org', accessLevel: 'VIEWER' }]);
      assert.equal(r.status, 200, r.text);
    }
    assert.equal((await api.get(`/sheets/${sheet}`, { token: tokens.m2 })).status, 200);
    const shareOf = async (path: string) => ((await api.get(path)).body.data as Array<{ id: string; groupId?: number; email?: string }>);
    const groupShares = [...(await shareOf(`/sheets/${sheet}/shares`)), ...(await shareOf(`/workspaces/${ws}/shares`))].filter((x) => x.groupId === g).map((x) => x.id);
    assert.equal(groupShares.length, 2);
    assert.equal((await api.del(`/groups/${g}`)).status, 200);
    for (const path of [`/sheets/${sheet}/shares`, `/workspaces/${ws}/shares`]) {
      const left = await shareOf(path);
      assert.deepEqual(left.filter((x) => x.groupId !== undefined), [], path);
      assert.ok(left.some((x) => x.email === 'm1@example.org'), path);
    }
    assertError(await api.get(`/sheets/${sheet}`, { token: tokens.m2 }), 404, 1006);
    const removed = (await allEvents<{ objectId: number; objectType: string; action: string; additionalDetails?: { shareId?: string } }>(api)).filter((e) => e.action === 'REMOVE_SHARE');
    assert.deepEqual(
      removed.filter((e) => groupShares.includes(e.additionalDetails?.shareId ?? '')).map((e) => `${e.objectType} ${e.objectId}`).sort(),
      [`SHEET ${sheet}`, `WORKSPACE ${ws}`].sort(),
    );
  });
  test('through the SDK', async () => {
    const c = smartsheet.createClient({ accessToken: t.adminToken, baseUrl: t.base + '/', logLevel: 'error' });
    const created = await c.groups.createGroup({ body: { name: 'Sdk group', members: [{ email: 'm1@example.org' }] } });
    const gid = created.result.id as number;
    const got = await c.groups.getGroup({ groupId: gid });
    assert.equal(got.members?.length, 1);
    await c.groups.addGroupMembers({ groupId: gid, body: [{ email: 'm2@example.org' }] });
    await c.groups.removeGroupMember({ groupId: gid, userId: ids.m1! });
    const after = await c.groups.getGroup({ groupId: gid });
    assert.deepEqual(after.members?.map((m: { email?: string }) => m.email), ['m2@example.org']);
    const listed = await c.groups.listGroups({});
    assert.ok(listed.data.some((g: { id?: number }) => g.id === gid));
    await c.groups.deleteGroup({ groupId: gid });
    await assert.rejects(c.groups.getGroup({ groupId: gid }), (e: { errorCode?: number }) => e.errorCode === 1106);
  });
});
