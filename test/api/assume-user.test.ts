import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import smartsheet from 'smartsheet';
import { startSuiteServer, type TestServer } from '../helpers/server.ts';
import { client, type Client, type Res, allEvents } from '../helpers/http.ts';
import { createToken } from '../../src/services/identity/tokens.ts';
import { findUserByEmail } from '../../src/store/users.ts';
import type { EventAuthor } from '../../src/services/log/events.ts';

let t: TestServer;
let api: Client;
let adminId: number;
const ids: Record<string, number> = {};

function assertError(res: Res, status: number, code: number) {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.equal(res.body.errorCode, code, JSON.stringify(res.body));
}

async function tokenOf(email: string, kind: 'RAW' | 'OAUTH' = 'RAW'): Promise<string> {
  const db = t.server.store.db;
  const u = await findUserByEmail(db, email);
  assert.ok(u, email);
  const author: EventAuthor = { orgId: u.org_id, userId: null, requestUserId: null, accessTokenName: null, source: 'TEST' };
  return (await createToken(db, author, u.id, { name: 'test', kind })).raw;
}

const as = (email: string) => ({ headers: { 'assume-user': encodeURIComponent(email) } });

before(async () => {
  t = await startSuiteServer();
  api = client(t.base, t.adminToken);
  adminId = (await api.get('/users/me')).body.id;
  for (const body of [
    { email: 'pat+ops@example.org', firstName: 'Pat', licensedSheetCreator: true, groupAdmin: true },
    { email: 'other.admin@example.org', admin: true },
    { email: 'dormant@example.org' },
    { email: 'member@example.org' },
  ]) {
    const res = await api.post('/users', body);
    assert.equal(res.status, 200);
    ids[body.email] = res.body.result.id;
  }
  assert.equal((await api.post(`/users/${ids['dormant@example.org']}/deactivate`)).status, 200);
});
after(() => t.close());

test('GET /users/me under Assume-User is the assumed user', async () => {
  const res = await api.get('/users/me', as('pat+ops@example.org'));
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.id, ids['pat+ops@example.org']);
  assert.equal(res.body.admin, false);
  // the address is matched without regard to case
  assert.equal((await api.get('/users/me', as('PAT+OPS@Example.org'))).body.id, ids['pat+ops@example.org']);
});

test('the assumed user acts with their own access, not the admin\'s', async () => {
  assertError(await api.post('/users', { email: 'sneak@example.org' }, as('pat+ops@example.org')), 403, 1004);
  assertError(await api.post(`/users/${ids['member@example.org']}/deactivate`, undefined, as('pat+ops@example.org')), 403, 1004);
  assertError(await api.get('/users/sheets', as('pat+ops@example.org')), 403, 1004);
  // nothing was done for the assumed user: no user added, the member still active
  assert.equal((await api.get('/users?email=sneak@example.org')).body.totalCount, 0);
  assert.equal((await api.get(`/users/${ids['member@example.org']}`)).body.status, 'ACTIVE');
  // a non-admin's view of users leaves the admin-only attributes out
  const listed = await api.get('/users?email=member@example.org', as('pat+ops@example.org'));
  assert.equal('status' in listed.body.data[0], false);
});

test('changes record the assumed user as userId and the admin as requestUserId', async () => {
  const res = await api.post('/groups', { name: 'Ops', members: [{ email: 'member@example.org' }] }, as('pat+ops@example.org'));
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.result.ownerId, ids['pat+ops@example.org']);
  const mine = (await allEvents<{ objectId: number; userId: number; requestUserId: number }>(api)).filter((e) => e.objectId === res.body.result.id);
  assert.ok(mine.length >= 2);
  for (const e of mine) {
    assert.equal(e.userId, ids['pat+ops@example.org']);
    assert.equal(e.requestUserId, adminId);
  }
  // without the header both are the admin
  const plain = await api.post('/groups', { name: 'Admins own' });
  const create = (await allEvents<{ objectId: number; action: string; userId: number; requestUserId: number }>(api)).find((e) => e.objectId === plain.body.result.id && e.action === 'CREATE')!;
  assert.equal(create.userId, adminId);
  assert.equal(create.requestUserId, adminId);
});

test('Assume-User that cannot be honoured is 401/1030', async () => {
  assertError(await api.get('/users/me', as('other.admin@example.org')), 401, 1030);
  assertError(await api.get('/users/me', as(t.config.adminEmail)), 401, 1030);
  assertError(await api.get('/users/me', as('nobody@example.org')), 401, 1030);
  assertError(await api.get('/users/me', as('dormant@example.org')), 401, 1030);
  assertError(await api.get('/users/me', { headers: { 'assume-user': '%E0%A4%A' } }), 401, 1030);
  const memberToken = await tokenOf('member@example.org');
  assertError(await api.get('/users/me', { token: memberToken, ...as('pat+ops@example.org') }), 401, 1030);
  const oauth = await tokenOf(t.config.adminEmail, 'OAUTH');
  assertError(await api.get('/users/me', { token: oauth, ...as('pat+ops@example.org') }), 401, 1030);
  // a removed member cannot be assumed either
  assert.equal((await api.del(`/users/${ids['member@example.org']}`)).status, 200);
  assertError(await api.get('/users/me', as('member@example.org')), 401, 1030);
});

test('through the SDK (assumeUser option)', async () => {
  const c = smartsheet.createClient({ accessToken: t.adminToken, baseUrl: t.base + '/', logLevel: 'error' });
  const me = await c.users.getCurrentUser({ assumeUser: 'pat+ops@example.org' } as Parameters<typeof c.users.getCurrentUser>[0]);
  assert.equal(me.email, 'pat+ops@example.org');
  await assert.rejects(c.users.getCurrentUser({ assumeUser: 'other.admin@example.org' } as Parameters<typeof c.users.getCurrentUser>[0]), (e: { errorCode?: number }) => e.errorCode === 1030);
});
