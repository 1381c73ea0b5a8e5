import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startSuiteServer, TEST_REDIS_URL, type TestServer } from '../helpers/server.ts';
import { client, type Res } from '../helpers/http.ts';
import { createToken } from '../../src/services/identity/tokens.ts';
import { findUserByEmail } from '../../src/store/users.ts';
import { randomString } from '../../src/ids.ts';
import { advanceClock, resetClock, setClock } from '../../src/clock.ts';

/**
 * The rolling limit (GCRA: a token bucket of SHEETD_RATE_LIMIT units a minute, refilled one unit
 * every minute / limit). The in-process clock (src/clock.ts) is frozen and moved by the tests, so
 * that nothing depends on how fast this machine answers; this file runs in a process of its own
 * (test/cluster-excluded.mjs).
 */

async function secondToken(t: TestServer): Promise<string> {
  const u = await findUserByEmail(t.server.store.db, t.config.adminEmail);
  assert.ok(u);
  const tok = await createToken(t.server.store.db, { orgId: u.org_id, userId: null, requestUserId: null, accessTokenName: null, source: 'TEST' }, u.id, { name: 'second' });
  return tok.raw;
}

function assertLimited(res: Res): number {
  assert.equal(res.status, 429, res.text);
  assert.equal(res.body.errorCode, 4003);
  assert.equal(res.body.message, 'Rate limit exceeded.');
  const retry = Number(res.headers.get('retry-after'));
  assert.ok(Number.isInteger(retry) && retry >= 1 && retry <= 60, String(res.headers.get('retry-after')));
  return retry;
}

// a moment half a second before a minute ends: a fixed window would start afresh in 0.5 s
const EDGE = Date.UTC(2031, 0, 1, 9, 0, 59, 500);

const variants: { name: string; env: () => Record<string, string>; skip: string | false }[] = [
  { name: 'in-process', env: () => ({}), skip: false },
  {
    name: 'in Redis',
    env: () => ({ REDIS_URL: `${TEST_REDIS_URL}`, SHEETD_REDIS_PREFIX: `t${randomString(6)}` }),
    skip: !TEST_REDIS_URL && 'SHEETD_TEST_REDIS_URL not set',
  },
];

for (const v of variants) {
  describe(`rolling rate limit, ${v.name}`, { skip: v.skip }, () => {
    afterEach(() => resetClock());

    describe('limit 5 a minute (one request back every 12 s)', () => {
      let t: TestServer;
      before(async () => {
        t = await startSuiteServer({ SHEETD_RATE_LIMIT: '5', ...v.env() });
      });
      after(() => t.close());

      test('the sixth request at once is refused with 429/4003 and Retry-After the seconds until it would pass; other tokens are unaffected', async () => {
        setClock(EDGE, true);
        const token = await secondToken(t);
        const api = client(t.base, token);
        for (let i = 0; i < 5; i++) assert.equal((await api.get('/users/me')).status, 200, `request ${i + 1}`);
        assert.equal(assertLimited(await api.get('/users/me')), 12);
        // crossing the minute's edge gives back nothing more than time does
        advanceClock(1_000);
        assert.equal(assertLimited(await api.get('/users/me')), 11);
        // one second short of being told: still refused, with the one second left
        advanceClock(10_000);
        assert.equal(assertLimited(await api.get('/users/me')), 1);
        advanceClock(1_000);
        assert.equal((await api.get('/users/me')).status, 200);
        assert.equal(assertLimited(await api.get('/users/me')), 12);
        // the limit is per token; public endpoints are not counted
        assert.equal((await api.get('/users/me', { token: t.adminToken })).status, 200);
        assert.equal((await api.get('/serverinfo', { token: null })).status, 200);
        // a rested token has its whole minute again
        advanceClock(60_000);
        for (let i = 0; i < 5; i++) assert.equal((await api.get('/users/me')).status, 200, `after a minute, request ${i + 1}`);
        assertLimited(await api.get('/users/me'));
        // the clock set back an hour (test mode): what was spent "in the future" does not hold the token back
        setClock(EDGE - 3_600_000, true);
        assert.equal((await api.get('/users/me')).status, 200);
      });
    });

    describe('the default limit (300 a minute)', () => {
      let t: TestServer;
      before(async () => {
        t = await startSuiteServer({ ...v.env() });
      });
      after(() => t.close());

      test('a steady 5 requests a second for two minutes is never refused', async () => {
        setClock(EDGE - 30_000, true);
        const api = client(t.base, await secondToken(t));
        const refused: number[] = [];
        for (let i = 0; i < 600; i++) {
          if ((await api.get('/serverinfo')).status !== 200) refused.push(i); // public: not counted, keeps the pace honest
          const r = await api.get('/users/me');
          if (r.status !== 200) refused.push(i);
          advanceClock(200);
        }
        assert.deepEqual(refused, []);
      });

      test('a burst of the whole budget just before a minute ends buys only what time gives back after it', async () => {
        setClock(EDGE, true);
        const api = client(t.base, await secondToken(t));
        const burst = await Promise.all(Array.from({ length: 300 }, () => api.get('/users/me')));
        assert.deepEqual([...new Set(burst.map((r) => r.status))], [200]);
        assertLimited(await api.get('/users/me'));
        // one second later (a new fixed window would have allowed 300 more): 5 pass, the sixth waits
        advanceClock(1_000);
        for (let i = 0; i < 5; i++) assert.equal((await api.get('/users/me')).status, 200, `request ${i + 1}`);
        assert.equal(assertLimited(await api.get('/users/me')), 1);
      });
    });

    describe('costs: posting an attachment counts 10 (limit 25 a minute)', () => {
      let t: TestServer;
      before(async () => {
        t = await startSuiteServer({ SHEETD_RATE_LIMIT: '25', ...v.env() });
      });
      after(() => t.close());

      test('two attachments and five other requests use the budget up; a client that waits as told is never refused twice in a row', async () => {
        setClock(EDGE, true);
        const admin = client(t.base, t.adminToken);
        const sheet = await admin.post('/sheets', { name: 'costly', columns: [{ title: 'A', type: 'TEXT_NUMBER', primary: true }] });
        assert.equal(sheet.status, 200);
        const api = client(t.base, await secondToken(t));
        const attach = () => api.call('POST', `/sheets/${sheet.body.result.id}/attachments`, { raw: 'x', headers: { 'content-type': 'text/plain', 'content-disposition': 'attachment; filename="x.txt"' } });
        assert.equal((await attach()).status, 200);
        assert.equal((await attach()).status, 200);
        for (let i = 0; i < 5; i++) assert.equal((await api.get('/users/me')).status, 200, `request ${i + 1}`);
        // an attachment needs 10 units: 10 × 2.4 s
        assert.equal(assertLimited(await attach()), 24);
        assert.equal(assertLimited(await api.get('/users/me')), 3);

        // a greedy client mixing costs, waiting exactly Retry-After whenever refused
        let passed = 0;
        let refusals = 0;
        let previousRefused = false;
        for (let i = 0; passed < 40; i++) {
          const r = i % 4 === 3 ? await attach() : await api.get('/users/me');
          if (r.status === 429) {
            assert.ok(!previousRefused, `request ${i} refused twice in a row`);
            previousRefused = true;
            refusals++;
            advanceClock(assertLimited(r) * 1000);
            i--; // the same request again
          } else {
            assert.equal(r.status, 200, r.text);
            previousRefused = false;
            passed++;
          }
        }
        assert.ok(refusals > 0, 'the greedy client was held back');
      });
    });
  });
}

describe('rate limit shared through Redis by two sheetd processes on one database', { skip: !TEST_REDIS_URL && 'SHEETD_TEST_REDIS_URL not set' }, () => {
  let a: TestServer;
  let b: TestServer;
  before(async () => {
    const prefix = `t${randomString(6)}`;
    // one data dir and database for both: the second server reads the first one's admin token
    a = await startSuiteServer({ SHEETD_RATE_LIMIT: '6', REDIS_URL: `${TEST_REDIS_URL}`, SHEETD_REDIS_PREFIX: prefix });
    b = await startSuiteServer({ SHEETD_RATE_LIMIT: '6', REDIS_URL: `${TEST_REDIS_URL}`, SHEETD_REDIS_PREFIX: prefix, SHEETD_DATA_DIR: a.dataDir }, { databaseUrl: a.config.databaseUrl ?? '' });
  });
  after(async () => {
    resetClock();
    await b.server.close();
    await a.close();
  });

  test('requests through either process draw on one budget per token', async () => {
    setClock(EDGE, true);
    const viaA = client(a.base, a.adminToken);
    const viaB = client(b.base, a.adminToken);
    for (let i = 0; i < 3; i++) assert.equal((await viaA.get('/users/me')).status, 200);
    for (let i = 0; i < 3; i++) assert.equal((await viaB.get('/users/me')).status, 200);
    assert.equal(assertLimited(await viaA.get('/users/me')), 10);
    advanceClock(10_000);
    assert.equal((await viaB.get('/users/me')).status, 200);
    assert.equal(assertLimited(await viaA.get('/users/me')), 10);
  });
});
