import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import smartsheet from 'smartsheet';
import { startSuiteServer, type TestServer } from '../helpers/server.ts';
import { client, type Client, type Res } from '../helpers/http.ts';
import { createToken } from '../../src/services/identity/tokens.ts';
import { findUserByEmail } from '../../src/store/users.ts';
import type { EventAuthor } from '../../src/services/log/events.ts';

let t: TestServer;
let api: Client;

function assertError(res: Res, status: number, code: number) {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.equal(res.body.errorCode, code, JSON.stringify(res.body));
}

async function tokenOf(email: string, scopes?: Parameters<typeof createToken>[3]['scopes']): Promise<string> {
  const db = t.server.store.db;
  const u = await findUserByEmail(db, email);
  assert.ok(u, email);
  const author: EventAuthor = { orgId: u.org_id, userId: null, requestUserId: null, accessTokenName: null, source: 'TEST' };
  return (await createToken(db, author, u.id, { name: 'test', ...(scopes ? { scopes } : {}) })).raw;
}

before(async () => {
  t = await startSuiteServer();
  api = client(t.base, t.adminToken);
  for (const [email, firstName, lastName] of [['ada@example.org', 'Ada', 'King'], ['bo@example.org', null, null], ['cy@example.org', 'Cy', null], ['gone@example.org', 'Gone', null]]) {
    assert.equal((await api.post('/users', { email, firstName, lastName })).status, 200);
  }
  const gone = (await api.get('/users?email=gone@example.org')).body.data[0].id;
  assert.equal((await api.del(`/users/${gone}`)).status, 200);
});
after(() => t.close());

test('a user\'s contacts are the other members of the organization', async () => {
  const tok = await tokenOf('ada@example.org');
  const res = await api.get('/contacts', { token: tok });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const emails = res.body.data.map((c: { email: string }) => c.email);
  assert.deepEqual(emails, [t.config.adminEmail, 'bo@example.org', 'cy@example.org'].sort());
  assert.equal(res.body.totalCount, 3);
  const bo = res.body.data.find((c: { email: string }) => c.email === 'bo@example.org');
  assert.equal(typeof bo.id, 'string');
  assert.equal(bo.name, 'bo@example.org');
  const one = await api.get(`/contacts/${bo.id}`, { token: tok });
  assert.deepEqual(one.body, bo);
  // the caller is not their own contact; removed users are nobody's
  const self = (await api.get('/contacts?includeAll=true')).body.data.map((c: { email: string }) => c.email);
  assert.ok(self.includes('ada@example.org'));
  assert.ok(!self.includes(t.config.adminEmail));
  assert.ok(!self.includes('gone@example.org'));
});

test('paging, modifiedSince, unknown ids and scope', async () => {
  const page = await api.get('/contacts?pageSize=2&page=2');
  assert.equal(page.body.pageNumber, 2);
  assert.equal(page.body.totalPages, 2);
  assert.equal(page.body.data.length, 1);
  const future = await api.get('/contacts?modifiedSince=2999-01-01T00:00:00Z');
  assert.equal(future.body.totalCount, 0);
  assertError(await api.get('/contacts?modifiedSince=soon'), 400, 1018);
  assertError(await api.get('/contacts/bm9ib2R5QGV4YW1wbGUub3Jn'), 404, 1006);
  assertError(await api.get('/contacts/!!!'), 404, 1006);
  const narrow = await tokenOf('cy@example.org', ['READ_SHEETS']);
  assertError(await api.get('/contacts', { token: narrow }), 403, 1004);
  const ok = await tokenOf('cy@example.org', ['READ_CONTACTS']);
  assert.equal((await api.get('/contacts', { token: ok })).status, 200);
});

test('through the SDK', async () => {
  const c = smartsheet.createClient({ accessToken: t.adminToken, baseUrl: t.base + '/', logLevel: 'error' });
  const list = await c.contacts.listContacts({} as Parameters<typeof c.contacts.listContacts>[0], () => undefined);
  const first = (list as unknown as { data: Array<{ id: string; email: string }> }).data[0]!;
  const one = await c.contacts.getContact({ id: first.id } as Parameters<typeof c.contacts.getContact>[0], () => undefined);
  assert.equal((one as unknown as { email: string }).email, first.email);
});
