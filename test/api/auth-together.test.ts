import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startSuiteServer, type TestServer } from '../helpers/server.ts';
import { assertError, client, type Client } from '../helpers/http.ts';
import { tokenFor } from '../helpers/tokens.ts';
import { randomString } from '../../src/ids.ts';

// Requests that arrive together are authenticated together (on PostgreSQL their tokens are read
// in one query): each still acts as its own token's user, sees its own alternate addresses, and a
// token revoked or a user deactivated just before is refused, however many requests come with it.

let t: TestServer;
let api: Client;
const users: Array<{ id: number; email: string; token: string; alternate?: string }> = [];

before(async () => {
  t = await startSuiteServer();
  api = client(t.base, t.adminToken);
  const tag = randomString(6).toLowerCase();
  for (let i = 0; i < 6; i++) {
    const email = `together.${tag}.${i}@corp.example`;
    const res = await api.post('/users', { email });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const id = res.body.result.id as number;
    let alternate: string | undefined;
    if (i % 2 === 0) {
      alternate = `together.${tag}.${i}.alt@corp.example`;
      assert.equal((await api.post(`/users/${id}/alternateemails`, [{ email: alternate }])).status, 200);
    }
    users.push({ id, email, token: await tokenFor(t, email), ...(alternate ? { alternate } : {}) });
  }
});
after(() => t.close());

test('many Get Current User at once: each answers its own token\'s user and addresses', async () => {
  const asked = Array.from({ length: 60 }, (_, i) => users[i % users.length]!);
  const answers = await Promise.all(asked.map((u) => api.get('/users/me', { token: u.token })));
  answers.forEach((res, i) => {
    const u = asked[i]!;
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.id, u.id);
    assert.equal(res.body.email, u.email);
    assert.deepEqual((res.body.alternateEmails ?? []).map((a: { email: string }) => a.email), u.alternate ? [u.alternate] : []);
  });
});

test('a token revoked, or a user deactivated, is refused at once among requests that arrive together', async () => {
  const [revoked, deactivated, ...others] = users;
  // DELETE /token revokes the caller's own token
  assert.equal((await api.del('/token', { token: revoked!.token })).status, 200);
  assert.equal((await api.post(`/users/${deactivated!.id}/deactivate`)).status, 200);
  const asked = Array.from({ length: 40 }, (_, i) => users[i % users.length]!);
  const answers = await Promise.all(asked.map((u) => api.get('/users/me', { token: u.token })));
  answers.forEach((res, i) => {
    const u = asked[i]!;
    if (u === revoked || u === deactivated) assertError(res, 401, 1002);
    else {
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.id, u.id);
    }
  });
  assert.ok(others.length > 0);
});

test('one token read again and again, one request at a time: a new alternate address shows, and a revocation refuses, on the next request', async () => {
  // on PostgreSQL the token read is a prepared statement whose plan is kept after a few runs on
  // a connection: its answers still come from the data as it is when the request asks
  const email = `together.alone.${randomString(6).toLowerCase()}@corp.example`;
  const res = await api.post('/users', { email });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const id = res.body.result.id as number;
  const token = await tokenFor(t, email);
  for (let i = 0; i < 12; i++) {
    const me = await api.get('/users/me', { token });
    assert.equal(me.status, 200, JSON.stringify(me.body));
    assert.deepEqual(me.body.alternateEmails ?? [], []);
  }
  const alternate = email.replace('@', '.alt@');
  assert.equal((await api.post(`/users/${id}/alternateemails`, [{ email: alternate }])).status, 200);
  for (let i = 0; i < 3; i++) {
    const me = await api.get('/users/me', { token });
    assert.equal(me.status, 200, JSON.stringify(me.body));
    assert.deepEqual(me.body.alternateEmails.map((a: { email: string }) => a.email), [alternate]);
  }
  assert.equal((await api.del('/token', { token })).status, 200);
  assertError(await api.get('/users/me', { token }), 401, 1002);
});
