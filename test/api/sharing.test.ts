import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startSuiteServer, type TestServer } from '../helpers/server.ts';
import { client, type Client } from '../helpers/http.ts';
import { createToken } from '../../src/services/identity/tokens.ts';
import { findUserByEmail } from '../../src/store/users.ts';

// Shares of sheets and workspaces over raw HTTP, and the effective access they give.
let t: TestServer;
let admin: Client;

function assertError(res: { status: number; body: unknown }, status: number, code: number) {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.equal((res.body as { errorCode: number }).errorCode, code, JSON.stringify(res.body));
}

/** A new organization member with a raw token. */
async function member(email: string): Promise<{ id: number; api: Client }> {
  const r = await admin.post('/users', { email, firstName: 'M', lastName: email.split('@')[0] });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return { id: r.body.result.id, api: client(t.base, await tokenOf(email)) };
}

async function tokenOf(email: string): Promise<string> {
  const db = t.server.store.db;
  const u = await findUserByEmail(db, email);
  assert.ok(u);
  return (await createToken(db, { orgId: u.org_id, userId: null, requestUserId: null, accessTokenName: null, source: 'TEST' }, u.id, { name: 'test' })).raw;
}

async function newSheet(api: Client, path = '/sheets', name = 'Shared') {
  const r = await api.post(path, { name, columns: [{ title: 'A', type: 'TEXT_NUMBER', primary: true }] });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.result as { id: number };
}

async function shareIds(path: string): Promise<string[]> {
  return (await admin.get(`${path}?includeAll=true`)).body.data.map((s: { id: string }) => s.id);
}

before(async () => {
  t = await startSuiteServer();
  admin = client(t.base, t.adminToken);
});
after(() => t.close());

describe('sheet shares', () => {
  test('list shows the owner; share by email; get, update, delete', async () => {
    const bob = await member('bob@example.org');
    const s = await newSheet(admin);
    const list0 = (await admin.get(`/sheets/${s.id}/shares`)).body;
    assert.equal(list0.totalCount, 1);
    assert.equal(list0.data[0].accessLevel, 'OWNER');
    assert.equal(list0.data[0].email, t.config.adminEmail);
    assert.equal(list0.data[0].scope, 'ITEM');

    assertError(await bob.api.get(`/sheets/${s.id}/version`), 404, 1006);
    const r = await admin.post(`/sheets/${s.id}/shares?sendEmail=true`, { email: 'Bob@Example.org', accessLevel: 'EDITOR' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const sh = r.body.result;
    assert.equal(typeof sh.id, 'string');
    assert.equal(sh.type, 'USER');
    assert.equal(sh.userId, bob.id);
    assert.equal(sh.email, 'bob@example.org');
    assert.equal(sh.accessLevel, 'EDITOR');
    assert.equal(sh.scope, 'ITEM');

    const seen = (await bob.api.get('/sheets')).body.data.find((x: { id: number }) => x.id === s.id);
    assert.equal(seen.accessLevel, 'EDITOR');
    assert.equal((await admin.get(`/sheets/${s.id}/shares/${sh.id}`)).body.accessLevel, 'EDITOR');

    const u = await admin.put(`/sheets/${s.id}/shares/${sh.id}`, { accessLevel: 'VIEWER' });
    assert.equal(u.status, 200);
    assert.equal(u.body.result.accessLevel, 'VIEWER');
    assert.equal((await bob.api.get('/sheets')).body.data.find((x: { id: number }) => x.id === s.id).accessLevel, 'VIEWER');

    assert.equal((await admin.del(`/sheets/${s.id}/shares/${sh.id}`)).status, 200);
    assertError(await admin.get(`/sheets/${s.id}/shares/${sh.id}`), 404, 1027);
    assertError(await bob.api.get(`/sheets/${s.id}/version`), 404, 1006);
  });

  test('1025 for an existing share (single); arrays skip existing ones', async () => {
    await member('carol@example.org');
    const s = await newSheet(admin);
    assert.equal((await admin.post(`/sheets/${s.id}/shares`, { email: 'carol@example.org', accessLevel: 'VIEWER' })).status, 200);
    const before = await shareIds(`/sheets/${s.id}/shares`);
    assertError(await admin.post(`/sheets/${s.id}/shares`, { email: 'carol@example.org', accessLevel: 'EDITOR' }), 400, 1025);
    assertError(await admin.post(`/sheets/${s.id}/shares`, { email: t.config.adminEmail, accessLevel: 'EDITOR' }), 400, 1025);
    assert.deepEqual(await shareIds(`/sheets/${s.id}/shares`), before);
    const arr = await admin.post(`/sheets/${s.id}/shares`, [
      { email: 'carol@example.org', accessLevel: 'EDITOR' },
      { email: 'dave@example.org', accessLevel: 'EDITOR' },
    ]);
    assert.equal(arr.status, 200, JSON.stringify(arr.body));
    assert.ok(Array.isArray(arr.body.result));
    assert.deepEqual(arr.body.result.map((x: { email: string }) => x.email), ['dave@example.org']);
  });

  test('bad share input gets its error and changes nothing', async () => {
    const s = await newSheet(admin);
    const before = await shareIds(`/sheets/${s.id}/shares`);
    assertError(await admin.post(`/sheets/${s.id}/shares`, { accessLevel: 'EDITOR' }), 400, 1012);
    assertError(await admin.post(`/sheets/${s.id}/shares`, { email: 'x@example.org' }), 400, 1012);
    assertError(await admin.post(`/sheets/${s.id}/shares`, { email: 'x@example.org', accessLevel: 'BOSS' }), 400, 1031);
    assertError(await admin.post(`/sheets/${s.id}/shares`, { email: 'not-an-email', accessLevel: 'EDITOR' }), 400, 1156);
    assertError(await admin.post(`/sheets/${s.id}/shares`, { email: 'x@example.org', accessLevel: 'OWNER' }), 403, 1026);
    assertError(await admin.post(`/sheets/${s.id}/shares`, { email: 'x@example.org', accessLevel: 'COMMENTER' }), 400, 1031);
    assertError(await admin.post(`/sheets/${s.id}/shares`, { groupId: 123456789012345, accessLevel: 'EDITOR' }), 404, 1106);
    // one bad item in an array: nothing is shared
    assertError(await admin.post(`/sheets/${s.id}/shares`, [{ email: 'ok@example.org', accessLevel: 'EDITOR' }, { email: 'bad', accessLevel: 'EDITOR' }]), 400, 1156);
    const many = Array.from({ length: 1001 }, (_, i) => ({ email: `u${i}@example.org`, accessLevel: 'VIEWER' }));
    assertError(await admin.post(`/sheets/${s.id}/shares`, many), 400, 1066);
    assert.deepEqual(await shareIds(`/sheets/${s.id}/shares`), before);
    // exactly 1,000 is fine
    const ok = await admin.post(`/sheets/${s.id}/shares`, many.slice(0, 1000));
    assert.equal(ok.status, 200);
    assert.equal(ok.body.result.length, 1000);
  });

  test('an alternate address is refused with 1159', async () => {
    const erin = await member('erin@example.org');
    const alt = await admin.post(`/users/${erin.id}/alternateemails`, [{ email: 'erin.alt@example.org' }]);
    assert.equal(alt.status, 200, JSON.stringify(alt.body));
    const s = await newSheet(admin);
    const before = await shareIds(`/sheets/${s.id}/shares`);
    assertError(await admin.post(`/sheets/${s.id}/shares`, { email: 'erin.alt@example.org', accessLevel: 'EDITOR' }), 400, 1159);
    assert.deepEqual(await shareIds(`/sheets/${s.id}/shares`), before);
  });

  test("1028 the owner's share, 1040 one's own share, 1027 unknown share", async () => {
    const frank = await member('frank@example.org');
    const s = await newSheet(admin);
    const owner = (await admin.get(`/sheets/${s.id}/shares`)).body.data[0];
    assertError(await admin.put(`/sheets/${s.id}/shares/${owner.id}`, { accessLevel: 'VIEWER' }), 400, 1028);
    assertError(await admin.del(`/sheets/${s.id}/shares/${owner.id}`), 400, 1028);
    const f = (await admin.post(`/sheets/${s.id}/shares`, { email: 'frank@example.org', accessLevel: 'ADMIN' })).body.result;
    assertError(await frank.api.put(`/sheets/${s.id}/shares/${f.id}`, { accessLevel: 'VIEWER' }), 400, 1040);
    assert.equal((await admin.get(`/sheets/${s.id}/shares/${f.id}`)).body.accessLevel, 'ADMIN');
    assertError(await admin.put(`/sheets/${s.id}/shares/AAAAAAAAAAAAAAAA`, { accessLevel: 'VIEWER' }), 404, 1027);
    assertError(await admin.put(`/sheets/${s.id}/shares/${f.id}`, {}), 400, 1012);
  });

  test('a sharer grants at most its own level; EDITOR cannot share', async () => {
    const gina = await member('gina@example.org');
    const s = await newSheet(admin);
    await admin.post(`/sheets/${s.id}/shares`, { email: 'gina@example.org', accessLevel: 'EDITOR_SHARE' });
    assertError(await gina.api.post(`/sheets/${s.id}/shares`, { email: 'h1@example.org', accessLevel: 'ADMIN' }), 403, 1004);
    assert.equal((await gina.api.post(`/sheets/${s.id}/shares`, { email: 'h1@example.org', accessLevel: 'EDITOR_SHARE' })).status, 200);
    const ed = await member('hank@example.org');
    await admin.post(`/sheets/${s.id}/shares`, { email: 'hank@example.org', accessLevel: 'EDITOR' });
    assertError(await ed.api.post(`/sheets/${s.id}/shares`, { email: 'h2@example.org', accessLevel: 'VIEWER' }), 403, 1004);
  });

  test('COMMENTER is accepted and shown with accessApiLevel=1, read as VIEWER otherwise', async () => {
    const ivy = await member('ivy@example.org');
    const s = await newSheet(admin);
    const r = await admin.post(`/sheets/${s.id}/shares?accessApiLevel=1`, { email: 'ivy@example.org', accessLevel: 'COMMENTER' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.result.accessLevel, 'COMMENTER');
    assert.equal((await admin.get(`/sheets/${s.id}/shares/${r.body.result.id}`)).body.accessLevel, 'VIEWER');
    const mine = (await ivy.api.get('/sheets?accessApiLevel=1')).body.data.find((x: { id: number }) => x.id === s.id);
    assert.equal(mine.accessLevel, 'COMMENTER');
    assert.equal((await ivy.api.get('/sheets')).body.data.find((x: { id: number }) => x.id === s.id).accessLevel, 'VIEWER');
  });

  test('sharing to an address with no user yet takes effect when the user is added', async () => {
    const s = await newSheet(admin);
    const r = await admin.post(`/sheets/${s.id}/shares`, { email: 'later@example.org', accessLevel: 'EDITOR' });
    assert.equal(r.status, 200);
    assert.equal(r.body.result.userId, undefined);
    assert.equal(r.body.result.email, 'later@example.org');
    const later = await member('later@example.org');
    assert.equal((await later.api.get('/sheets')).body.data.find((x: { id: number }) => x.id === s.id)?.accessLevel, 'EDITOR');
    assert.equal((await admin.get(`/sheets/${s.id}/shares/${r.body.result.id}`)).body.userId, later.id);
  });

  test('ownership transfer: PUT accessLevel OWNER by the owner; the old owner keeps ADMIN', async () => {
    const jay = await member('jay@example.org');
    const kim = await member('kim@example.org');
    const s = await newSheet(jay.api);
    const share = (await jay.api.post(`/sheets/${s.id}/shares`, { email: 'kim@example.org', accessLevel: 'ADMIN' })).body.result;
    assertError(await kim.api.put(`/sheets/${s.id}/shares/${share.id}`, { accessLevel: 'OWNER' }), 400, 1040);
    const r = await jay.api.put(`/sheets/${s.id}/shares/${share.id}`, { accessLevel: 'OWNER' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.result.accessLevel, 'OWNER');
    assert.equal((await kim.api.get('/sheets')).body.data.find((x: { id: number }) => x.id === s.id).accessLevel, 'OWNER');
    assert.equal((await jay.api.get('/sheets')).body.data.find((x: { id: number }) => x.id === s.id).accessLevel, 'ADMIN');
    assert.equal((await kim.api.del(`/sheets/${s.id}`)).status, 200);
  });
});

describe('workspace shares and effective access', () => {
  test('a sheet in a workspace inherits its shares; the strongest grant wins; 1023 on a workspace-level share', async () => {
    const lee = await member('lee@example.org');
    const ws = (await admin.post('/workspaces', { name: 'Shared WS' })).body.result;
    const f = (await admin.post(`/workspaces/${ws.id}/folders`, { name: 'F' })).body.result;
    const s = await newSheet(admin, `/folders/${f.id}/sheets`);
    assertError(await lee.api.get(`/workspaces/${ws.id}`), 404, 1006);
    const wsShare = (await admin.post(`/workspaces/${ws.id}/shares`, { email: 'lee@example.org', accessLevel: 'VIEWER' })).body.result;
    assert.equal(wsShare.accessLevel, 'VIEWER');
    assert.equal((await lee.api.get(`/workspaces/${ws.id}`)).body.accessLevel, 'VIEWER');
    assert.equal((await lee.api.get(`/folders/${f.id}`)).body.sheets[0].accessLevel, 'VIEWER');
    assert.equal((await lee.api.get('/sheets')).body.data.find((x: { id: number }) => x.id === s.id).accessLevel, 'VIEWER');

    // a stronger direct share wins
    await admin.post(`/sheets/${s.id}/shares`, { email: 'lee@example.org', accessLevel: 'EDITOR' });
    assert.equal((await lee.api.get('/sheets')).body.data.find((x: { id: number }) => x.id === s.id).accessLevel, 'EDITOR');
    // and a stronger workspace share wins over it
    await admin.put(`/workspaces/${ws.id}/shares/${wsShare.id}`, { accessLevel: 'ADMIN' });
    assert.equal((await lee.api.get('/sheets')).body.data.find((x: { id: number }) => x.id === s.id).accessLevel, 'ADMIN');

    const plain = (await admin.get(`/sheets/${s.id}/shares`)).body.data;
    assert.ok(plain.every((x: { scope: string }) => x.scope === 'ITEM'));
    const withWs = (await admin.get(`/sheets/${s.id}/shares?include=workspaceShares`)).body.data;
    const inherited = withWs.find((x: { id: string }) => x.id === wsShare.id);
    assert.equal(inherited.scope, 'WORKSPACE');
    assertError(await admin.put(`/sheets/${s.id}/shares/${wsShare.id}`, { accessLevel: 'VIEWER' }), 400, 1023);
    assertError(await admin.del(`/sheets/${s.id}/shares/${wsShare.id}`), 400, 1023);

    assert.equal((await admin.del(`/workspaces/${ws.id}/shares/${wsShare.id}`)).status, 200);
    assert.equal((await lee.api.get('/sheets')).body.data.find((x: { id: number }) => x.id === s.id).accessLevel, 'EDITOR');
    assertError(await lee.api.get(`/workspaces/${ws.id}`), 404, 1006);
  });

  test('group shares reach the group members', async () => {
    const mo = await member('mo@example.org');
    const g = await admin.post('/groups', { name: 'Readers', members: [{ email: 'mo@example.org' }] });
    assert.equal(g.status, 200, JSON.stringify(g.body));
    const s = await newSheet(admin);
    const r = await admin.post(`/sheets/${s.id}/shares`, { groupId: g.body.result.id, accessLevel: 'EDITOR' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.result.type, 'GROUP');
    assert.equal(r.body.result.groupId, g.body.result.id);
    assert.equal(r.body.result.name, 'Readers');
    assertError(await admin.post(`/sheets/${s.id}/shares`, { groupId: g.body.result.id, accessLevel: 'VIEWER' }), 400, 1025);
    assert.equal((await mo.api.get('/sheets')).body.data.find((x: { id: number }) => x.id === s.id).accessLevel, 'EDITOR');

    const ws = (await admin.post('/workspaces', { name: 'Group WS' })).body.result;
    await admin.post(`/workspaces/${ws.id}/shares`, { groupId: g.body.result.id, accessLevel: 'ADMIN' });
    assert.equal((await mo.api.get(`/workspaces/${ws.id}`)).body.accessLevel, 'ADMIN');
    assert.equal((await mo.api.post(`/workspaces/${ws.id}/folders`, { name: 'By member' })).status, 200);
  });
});
