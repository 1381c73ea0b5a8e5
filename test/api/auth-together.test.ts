import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
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

test('one kept-alive connection sending different tokens: each request acts as the token it sends, and a revoked one is refused', async () => {
  // the server keeps a connection's last Authorization header with its token's hash: a
  // connection (or a proxy's connection to sheetd) that changes tokens must not keep the last one
  const tag = randomString(6).toLowerCase();
  const people: Array<{ id: number; token: string }> = [];
  for (const name of ['a', 'b']) {
    const res = await api.post('/users', { email: `together.conn.${name}.${tag}@corp.example` });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    people.push({ id: res.body.result.id as number, token: await tokenFor(t, res.body.result.email as string) });
  }
  const [a, b] = people as [{ id: number; token: string }, { id: number; token: string }];
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const sockets = new Set<unknown>();
  const ask = (method: string, path: string, authorization: string) =>
    new Promise<{ status: number; body: { id?: number; errorCode?: number } }>((resolve, reject) => {
      const req = http.request(`${t.base}${path}`, { method, agent, headers: { authorization } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
      });
      req.on('socket', (s) => sockets.add(s));
      req.on('error', reject);
      req.end();
    });
  try {
    const steps: Array<[string, number]> = [
      [`Bearer ${a.token}`, a.id],
      [`Bearer ${b.token}`, b.id],
      [`Bearer ${a.token}`, a.id],
      [`bearer  ${b.token} `, b.id],
    ];
    for (const [authorization, id] of steps) {
      const me = await ask('GET', '/users/me', authorization);
      assert.equal(me.status, 200, JSON.stringify(me.body));
      assert.equal(me.body.id, id);
    }
    const unknown = await ask('GET', '/users/me', `Bearer ${a.token}x`);
    assert.equal(unknown.status, 401);
    assert.equal(unknown.body.errorCode, 1002);
    const malformed = await ask('GET', '/users/me', `Basic ${a.token}`);
    assert.equal(malformed.status, 401);
    assert.equal(malformed.body.errorCode, 1001);
    assert.equal((await ask('GET', '/users/me', `Bearer ${a.token}`)).body.id, a.id);
    assert.equal((await ask('DELETE', '/token', `Bearer ${a.token}`)).status, 200);
    const revoked = await ask('GET', '/users/me', `Bearer ${a.token}`);
    assert.equal(revoked.status, 401);
    assert.equal(revoked.body.errorCode, 1002);
    assert.equal((await ask('GET', '/users/me', `Bearer ${b.token}`)).body.id, b.id);
    // every request went over the one connection
    assert.equal(sockets.size, 1);
  } finally {
    agent.destroy();
  }
});
