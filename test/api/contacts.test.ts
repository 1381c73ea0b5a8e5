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

test('contact cells written with an address and no name take the name of the organization\'s user (the reference\'s best guess); a name given, or a column\'s contact option, comes first', async () => {
  const made = await api.post('/sheets', { name: 'Contact names', columns: [
    { title: 'Task', type: 'TEXT_NUMBER', primary: true },
    { title: 'Owner', type: 'CONTACT_LIST' },
    { title: 'Team', type: 'MULTI_CONTACT_LIST' },
    { title: 'Lead', type: 'CONTACT_LIST', contactOptions: [{ email: 'ada@example.org', name: 'The Countess' }] },
  ] });
  assert.equal(made.status, 200, JSON.stringify(made.body));
  const sheetId = made.body.result.id as number;
  const ids = new Map((made.body.result.columns as Array<{ id: number; title: string }>).map((c) => [c.title, c.id]));
  const col = { Owner: ids.get('Owner')!, Team: ids.get('Team')!, Lead: ids.get('Lead')! };
  const contact = (email: string, name?: string) => ({ objectType: 'CONTACT', email, ...(name ? { name } : {}) });
  const add = await api.post(`/sheets/${sheetId}/rows`, [
    { toBottom: true, cells: [
      { columnId: col.Owner, value: 'Ada@Example.org' },
      { columnId: col.Team, objectValue: { objectType: 'MULTI_CONTACT', values: [contact('cy@example.org'), contact('stranger@elsewhere.net')] } },
      { columnId: col.Lead, value: 'ada@example.org' },
    ] },
    { toBottom: true, cells: [{ columnId: col.Owner, objectValue: contact('ada@example.org', 'A. K.') }] },
    { toBottom: true, cells: [{ columnId: col.Owner, value: 'bo@example.org' }, { columnId: col.Team, objectValue: { objectType: 'MULTI_CONTACT', values: [contact('ada@example.org')] } }] },
  ]);
  assert.equal(add.status, 200, JSON.stringify(add.body));
  const sheet = (await api.get(`/sheets/${sheetId}?include=objectValue&level=2`)).body as { rows: Array<{ cells: Array<{ columnId: number; value?: unknown; displayValue?: string; objectValue?: { name?: string; email?: string; values?: Array<{ email: string; name?: string }> } }> }> };
  const cell = (r: number, c: number) => sheet.rows[r]!.cells.find((x) => x.columnId === c)!;
  assert.equal(String(cell(0, col.Owner).value).toLowerCase(), 'ada@example.org');
  assert.equal(cell(0, col.Owner).displayValue, 'Ada King');
  assert.equal(cell(0, col.Owner).objectValue?.name, 'Ada King');
  assert.deepEqual(cell(0, col.Team).objectValue?.values?.map((v) => [v.email, v.name]), [['cy@example.org', 'Cy'], ['stranger@elsewhere.net', undefined]]);
  assert.equal(cell(0, col.Lead).displayValue, 'The Countess', 'the column\'s contact option');
  assert.equal(cell(1, col.Owner).displayValue, 'A. K.', 'the name given');
  // a user without a name: the address shows
  assert.equal(cell(2, col.Owner).displayValue, 'bo@example.org');
  assert.equal(cell(2, col.Owner).objectValue?.name, undefined);
  assert.deepEqual(cell(2, col.Team).objectValue?.values?.map((v) => v.name), ['Ada King']);
  // an update names them the same way
  const row = (await api.get(`/sheets/${sheetId}`)).body.rows[1].id as number;
  const upd = await api.put(`/sheets/${sheetId}/rows`, [{ id: row, cells: [{ columnId: col.Owner, value: 'cy@example.org' }] }]);
  assert.equal(upd.status, 200, JSON.stringify(upd.body));
  assert.equal((upd.body.result[0].cells as Array<{ columnId: number; displayValue?: string }>).find((c) => c.columnId === col.Owner)?.displayValue, 'Cy');
});
