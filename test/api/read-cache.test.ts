import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { serverForFile } from '../helpers/setup.ts';
import { assertError } from '../helpers/http.ts';
import { makeUser } from '../helpers/sheets.ts';
import { completeResponses, parseRawResponses, rawConnect } from '../helpers/raw.ts';

// On SQLite, the reads of every request (the token and its user; for Get Current User the
// alternate emails and profile image) are kept until the database may have changed. These tests
// change the database behind the server's back, as another process would (the sheetd CLI, an
// operator's sqlite3), and through the API, and expect the very next request to see it.
const s = serverForFile();

/** Runs one SQL statement on a connection of its own: another process, for the server. */
async function elsewhere(sql: string, params: unknown[]): Promise<void> {
  if (s.t.config.databaseUrl) {
    const c = new pg.Client({ connectionString: s.t.config.databaseUrl });
    await c.connect();
    try {
      await c.query(sql.replace(/\?/g, (() => { let i = 0; return () => `$${++i}`; })()), params);
    } finally {
      await c.end();
    }
    return;
  }
  const db = new Database(path.join(s.t.dataDir, 'sheetd.db'));
  try {
    db.pragma('busy_timeout = 5000');
    db.prepare(sql).run(...params);
  } finally {
    db.close();
  }
}

let n = 0;
async function freshUser() {
  const email = `cache${++n}.${Date.now()}@example.com`;
  const u = await makeUser(s.t, s.api, email);
  return { ...u, email };
}

describe('reads kept between requests follow every change', () => {
  test('a token revoked, or a user renamed, by another process is seen by the next request', async () => {
    const u = await freshUser();
    for (let i = 0; i < 3; i++) assert.equal((await s.api.get('/users/me', { token: u.token })).status, 200);
    await elsewhere('update users set first_name = ? where id = ?', ['Renamed', u.id]);
    assert.equal((await s.api.get('/users/me', { token: u.token })).body.firstName, 'Renamed');
    await elsewhere('update api_tokens set revoked_at = ? where user_id = ?', [Date.now(), u.id]);
    assertError(await s.api.get('/users/me', { token: u.token }), 401, 1002);
  });

  test('requests sent together on many connections, and pipelined on one, all see what another process committed before', async () => {
    const u = await freshUser();
    for (let i = 0; i < 3; i++) assert.equal((await s.api.get('/users/me', { token: u.token })).status, 200);
    for (const name of ['Together', 'Again']) {
      await elsewhere('update users set first_name = ? where id = ?', [name, u.id]);
      const all = await Promise.all(Array.from({ length: 12 }, () => s.api.get('/users/me', { token: u.token })));
      assert.deepEqual(all.map((r) => r.body.firstName), new Array(12).fill(name));
    }
    // three requests in one write on one connection (read at once, answered in turn), after a
    // change behind the server's back; then two more after another change
    const c = await rawConnect(s.t.base);
    let text = '';
    c.socket.on('data', (b: Buffer) => (text += b.toString('latin1')));
    const request = (close: boolean) => `GET /2.0/users/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${u.token}\r\n${close ? 'Connection: close\r\n' : ''}\r\n`;
    await elsewhere('update users set first_name = ? where id = ?', ['Piped', u.id]);
    c.write(request(false).repeat(3));
    while (completeResponses(text) < 3) await new Promise((r) => c.socket.once('data', r));
    await elsewhere('update users set first_name = ? where id = ?', ['Piped twice', u.id]);
    c.write(request(false) + request(true));
    const responses = parseRawResponses(await c.closed);
    assert.deepEqual(responses.map((r) => (r.body as { firstName: string }).firstName), ['Piped', 'Piped', 'Piped', 'Piped twice', 'Piped twice']);
  });

  test('a user deactivated and reactivated through the API is seen by the next request', async () => {
    const u = await freshUser();
    assert.equal((await s.api.get('/users/me', { token: u.token })).status, 200);
    assert.equal((await s.api.post(`/users/${u.id}/deactivate`)).status, 200);
    assertError(await s.api.get('/users/me', { token: u.token }), 401, 1002);
    assert.equal((await s.api.post(`/users/${u.id}/reactivate`)).status, 200);
    assert.equal((await s.api.get('/users/me', { token: u.token })).status, 200);
  });

  test('alternate emails added and removed show in Get Current User at once', async () => {
    const u = await freshUser();
    assert.deepEqual((await s.api.get('/users/me', { token: u.token })).body.alternateEmails ?? [], []);
    const added = await s.api.post(`/users/${u.id}/alternateemails`, [{ email: `alt.${u.email}` }]);
    assert.equal(added.status, 200, JSON.stringify(added.body));
    const me = (await s.api.get('/users/me', { token: u.token })).body;
    assert.deepEqual(me.alternateEmails.map((a: { email: string }) => a.email), [`alt.${u.email}`]);
    await elsewhere('delete from alternate_emails where user_id = ?', [u.id]);
    assert.deepEqual((await s.api.get('/users/me', { token: u.token })).body.alternateEmails ?? [], []);
  });
});
