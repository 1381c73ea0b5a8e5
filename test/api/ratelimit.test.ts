import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, TEST_REDIS_URL, type TestServer } from '../helpers/server.ts';
import { client } from '../helpers/http.ts';
import { createToken } from '../../src/services/identity/tokens.ts';
import { findUserByEmail } from '../../src/store/users.ts';
import { randomString } from '../../src/ids.ts';

async function secondToken(t: TestServer): Promise<string> {
  const u = await findUserByEmail(t.server.store.db, t.config.adminEmail);
  assert.ok(u);
  const tok = await createToken(t.server.store.db, { orgId: u.org_id, userId: null, requestUserId: null, accessTokenName: null, source: 'TEST' }, u.id, { name: 'second' });
  return tok.raw;
}

function assertLimited(res: { status: number; body: { errorCode?: number; message?: string }; headers: Headers }) {
  assert.equal(res.status, 429);
  assert.equal(res.body.errorCode, 4003);
  assert.equal(res.body.message, 'Rate limit exceeded.');
  const retry = Number(res.headers.get('retry-after'));
  assert.ok(Number.isInteger(retry) && retry >= 1 && retry <= 60, String(res.headers.get('retry-after')));
}

describe('rate limit, in-process (limit 5 per minute)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ SHEETD_RATE_LIMIT: '5' });
  });
  after(() => t.close());

  test('the sixth request of a minute is refused with 429/4003 and Retry-After; other tokens are unaffected', async () => {
    const api = client(t.base, t.adminToken);
    // stay clear of a minute boundary so all six land in one window
    const msIntoMinute = Date.now() % 60_000;
    if (msIntoMinute > 55_000) await new Promise((r) => setTimeout(r, 60_000 - msIntoMinute + 50));
    for (let i = 0; i < 5; i++) assert.equal((await api.get('/users/me')).status, 200, `request ${i + 1}`);
    assertLimited(await api.get('/users/me'));
    // refused requests do not change anything and the limit is per token
    const other = await secondToken(t);
    assert.equal((await api.get('/users/me', { token: other })).status, 200);
    // public endpoints are not counted against a token
    assert.equal((await api.get('/serverinfo', { token: null })).status, 200);
  });
});

describe('posting an attachment counts 10 (limit 25 per minute)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ SHEETD_RATE_LIMIT: '25' });
  });
  after(() => t.close());

  test('two attachments and five other requests use up the minute', async () => {
    const api = client(t.base, t.adminToken);
    const sheet = await api.post('/sheets', { name: 'costly', columns: [{ title: 'A', type: 'TEXT_NUMBER', primary: true }] });
    assert.equal(sheet.status, 200);
    const token = await secondToken(t);
    const msIntoMinute = Date.now() % 60_000;
    if (msIntoMinute > 50_000) await new Promise((r) => setTimeout(r, 60_000 - msIntoMinute + 50));
    const attach = () => api.call('POST', `/sheets/${sheet.body.result.id}/attachments`, { token, raw: 'x', headers: { 'content-type': 'text/plain', 'content-disposition': 'attachment; filename="x.txt"' } });
    assert.equal((await attach()).status, 200);
    assert.equal((await attach()).status, 200);
    for (let i = 0; i < 5; i++) assert.equal((await api.get('/users/me', { token })).status, 200, `request ${i + 1}`);
    assertLimited(await api.get('/users/me', { token }));
  });
});

describe('rate limit shared through Redis by two sheetd processes on one database', { skip: !TEST_REDIS_URL && 'SHEETD_TEST_REDIS_URL not set' }, () => {
  let a: TestServer;
  let b: TestServer;
  before(async () => {
    const prefix = `t${randomString(6)}`;
    // one data dir and database for both: the second server reads the first one's admin token
    a = await startTestServer({ SHEETD_RATE_LIMIT: '6', REDIS_URL: `${TEST_REDIS_URL}`, SHEETD_REDIS_PREFIX: prefix });
    b = await startTestServer({ SHEETD_RATE_LIMIT: '6', REDIS_URL: `${TEST_REDIS_URL}`, SHEETD_REDIS_PREFIX: prefix, SHEETD_DATA_DIR: a.dataDir }, { databaseUrl: a.config.databaseUrl ?? '' });
  });
  after(async () => {
    await b.server.close();
    await a.close();
  });

  test('requests through either process draw on one budget per token', async () => {
    const msIntoMinute = Date.now() % 60_000;
    if (msIntoMinute > 55_000) await new Promise((r) => setTimeout(r, 60_000 - msIntoMinute + 50));
    const viaA = client(a.base, a.adminToken);
    const viaB = client(b.base, a.adminToken);
    for (let i = 0; i < 3; i++) assert.equal((await viaA.get('/users/me')).status, 200);
    for (let i = 0; i < 3; i++) assert.equal((await viaB.get('/users/me')).status, 200);
    assertLimited(await viaA.get('/users/me'));
    assertLimited(await viaB.get('/users/me'));
  });
});
