import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startSuiteServer, type TestServer } from '../helpers/server.ts';
import { assertError, client, type Client } from '../helpers/http.ts';
import { makeSheet } from '../helpers/sheets.ts';
import { tokenFor } from '../helpers/tokens.ts';
import { startReceiver, type Receiver } from '../helpers/webhookReceiver.ts';
import { spawnServer } from '../helpers/process.ts';
import { closeAll } from '../helpers/setup.ts';

// Test mode through HTTP: reset, snapshots, clock, faults, journal, outbox, webhook deliveries.
let t: TestServer;
let api: Client;
let rx: Receiver;
before(async () => {
  rx = await startReceiver();
  t = await startSuiteServer({
    SHEETD_TEST_MODE: 'true', SHEETD_WEBHOOK_CA_FILE: rx.caFile, SHEETD_WEBHOOK_PORTS: String(rx.port),
    SHEETD_WEBHOOK_BATCH_MS: '20', SHEETD_JOB_POLL_MS: '50',
  });
  api = client(t.base, t.adminToken);
});
after(async () => {
  await closeAll(() => t?.close(), () => rx?.close());
});

const T = '/sheetd/test';

describe('reset and snapshots', () => {
  test('reset goes back to the bootstrapped organization with the same admin token', async () => {
    await makeSheet(api, 'to be gone', [{ title: 'A', type: 'TEXT_NUMBER', primary: true }]);
    assert.equal((await api.post('/users', { email: 'u1@example.com' })).status, 200);
    const sheetsBefore = (await api.get('/sheets')).body.totalCount;
    assert.ok(sheetsBefore >= 1);
    const r = await api.post(`${T}/reset`);
    assert.equal(r.status, 200, r.text);
    assert.equal((await api.get('/sheets')).body.totalCount, 0);
    const users = (await api.get('/users')).body;
    assert.deepEqual(users.data.map((u: { email: string }) => u.email), [t.config.adminEmail]);
  });

  test('save, list, restore and delete a snapshot', async () => {
    await api.post(`${T}/reset`);
    const s = await makeSheet(api, 'kept', [{ title: 'A', type: 'TEXT_NUMBER', primary: true }]);
    const saved = await api.post(`${T}/snapshots`, { name: 'one-sheet' });
    assert.equal(saved.status, 200, saved.text);
    assert.equal(saved.body.result.name, 'one-sheet');
    await makeSheet(api, 'later', [{ title: 'A', type: 'TEXT_NUMBER', primary: true }]);
    assert.equal((await api.get('/sheets')).body.totalCount, 2);
    assert.deepEqual((await api.get(`${T}/snapshots`)).body.data.map((x: { name: string }) => x.name), ['one-sheet']);
    assert.equal((await api.post(`${T}/snapshots/one-sheet/restore`)).status, 200);
    const sheets = (await api.get('/sheets')).body.data;
    assert.deepEqual(sheets.map((x: { id: number }) => x.id), [s.id]);
    // the restored sheet reads from the database, not from a cached model
    assert.equal((await api.get(`/sheets/${s.id}`)).body.name, 'kept');
    assert.equal((await api.del(`${T}/snapshots/one-sheet`)).status, 200);
    assertError(await api.post(`${T}/snapshots/one-sheet/restore`), 404, 1006);
    assertError(await api.del(`${T}/snapshots/one-sheet`), 404, 1006);
  });

  test('a snapshot is a file in the data directory: it brings back attachments with their files, and a later start on that directory still has it', async () => {
    await api.post(`${T}/reset`);
    const s = await makeSheet(api, 'with a file', [{ title: 'A', type: 'TEXT_NUMBER', primary: true }]);
    const up = await api.call('POST', `/sheets/${s.id}/attachments`, { raw: 'the contents', headers: { 'content-type': 'text/plain', 'content-disposition': 'attachment; filename="notes.txt"' } });
    assert.equal(up.status, 200, up.text);
    const attachmentId = up.body.result.id as number;
    assert.equal((await api.post(`${T}/snapshots`, { name: 'with-file' })).status, 200);
    assert.equal((await api.del(`/sheets/${s.id}/attachments/${attachmentId}`)).status, 200);
    // the deletion's jobs run: test mode keeps the blob for the snapshot
    assert.equal((await api.post(`${T}/clock/advance`, { by: 'PT1M' })).status, 200);
    assert.equal((await api.post(`${T}/snapshots/with-file/restore`)).status, 200);
    const got = await api.get(`/sheets/${s.id}/attachments/${attachmentId}`);
    assert.equal(got.status, 200, got.text);
    assert.equal(await (await fetch(got.body.url)).text(), 'the contents');

    const second = await spawnServer({ SHEETD_DATA_DIR: t.dataDir, SHEETD_TEST_MODE: 'true', ...(t.config.databaseUrl ? { DATABASE_URL: t.config.databaseUrl } : {}) });
    try {
      const a2 = client(second.base, t.adminToken);
      assert.ok((await a2.get(`${T}/snapshots`)).body.data.some((x: { name: string }) => x.name === 'with-file'));
      await a2.post(`${T}/reset`);
      assert.equal((await a2.post(`${T}/snapshots/with-file/restore`)).status, 200);
      assert.deepEqual((await a2.get('/sheets')).body.data.map((x: { name: string }) => x.name), ['with a file']);
    } finally {
      await second.close();
    }
    assert.equal((await api.del(`${T}/snapshots/with-file`)).status, 200);
  });

  test('bad snapshot names and non-admins are refused', async () => {
    assertError(await api.post(`${T}/snapshots`, {}), 400, 1012);
    assertError(await api.post(`${T}/snapshots`, { name: 'a b/c' }), 400, 1031);
    assertError(await api.post(`${T}/snapshots`), 400, 1024);
    const u = await api.post('/users', { email: 'plain@example.com' });
    const tok = await tokenFor(t, 'plain@example.com');
    assert.equal(u.status, 200);
    assertError(await api.post(`${T}/reset`, undefined, { token: tok }), 403, 1004);
    assertError(await api.get(`${T}/journal`, { token: tok }), 403, 1004);
    assertError(await api.post(`${T}/reset`, undefined, { token: null }), 401, 1001);
  });
});

describe('clock', () => {
  test('set, read, advance and give back the real time; createdAt follows', async () => {
    await api.post(`${T}/reset`);
    const running = await api.put(`${T}/clock`, { now: '2020-05-05T00:00:00Z' });
    assert.equal(running.body.result.frozen, false, 'the clock runs on by default');
    assert.ok(Math.abs(Date.parse(running.body.result.now) - Date.parse('2020-05-05T00:00:00Z')) < 5000);
    const set = await api.put(`${T}/clock`, { now: '2030-01-02T03:04:05.000Z', frozen: true });
    assert.equal(set.status, 200, set.text);
    assert.equal(set.body.result.now, '2030-01-02T03:04:05.000Z');
    assert.equal(set.body.result.frozen, true);
    const s = await makeSheet(api, 'dated', [{ title: 'A', type: 'TEXT_NUMBER', primary: true }]);
    assert.equal((await api.get(`/sheets/${s.id}`)).body.createdAt, '2030-01-02T03:04:05Z');
    const adv = await api.post(`${T}/clock/advance`, { by: 'P1DT2H' });
    assert.equal(adv.body.result.now, '2030-01-03T05:04:05.000Z');
    assert.equal((await api.post(`${T}/clock/advance`, { ms: 1000 })).body.result.now, '2030-01-03T05:04:06.000Z');
    assert.equal((await api.get(`${T}/clock`)).body.now, '2030-01-03T05:04:06.000Z');
    const real = await api.put(`${T}/clock`, { real: true });
    assert.equal(real.body.result.frozen, false);
    assert.ok(Math.abs(Date.parse(real.body.result.now) - Date.now()) < 5000);
  });

  test('advancing past a token expiry makes it 401/1003', async () => {
    await api.post(`${T}/reset`);
    const now = Date.now();
    const tok = await tokenFor(t, t.config.adminEmail, { name: 'short', expiresAt: now + 3_600_000 });
    assert.equal((await api.get('/users/me', { token: tok })).status, 200);
    await api.post(`${T}/clock/advance`, { by: 'PT2H' });
    assertError(await api.get('/users/me', { token: tok }), 401, 1003);
    // reset gives back the real time
    await api.post(`${T}/reset`);
    assert.equal((await api.get(`${T}/clock`)).body.frozen, false);
  });

  test('bad clock bodies answer catalogued errors', async () => {
    assertError(await api.put(`${T}/clock`, { now: 'tomorrow' }), 400, 1031);
    assertError(await api.put(`${T}/clock`, {}), 400, 1012);
    assertError(await api.put(`${T}/clock`, { now: 1, speed: 2 }), 400, 1032);
    assertError(await api.post(`${T}/clock/advance`, { by: 'PT' }), 400, 1031);
    assertError(await api.post(`${T}/clock/advance`, { ms: -5 }), 400, 1031);
    assertError(await api.post(`${T}/clock/advance`, { ms: 1, by: 'PT1S' }), 400, 1012);
    assertError(await api.post(`${T}/clock/advance`, [1]), 400, 1008);
  });

  test('advancing runs the webhook retry that came due before it answers', async () => {
    await api.post(`${T}/reset`);
    const s = await makeSheet(api, 'hooked', [{ title: 'A', type: 'TEXT_NUMBER', primary: true }]);
    const h = await api.post('/webhooks', { name: 'h', callbackUrl: rx.url, scope: 'sheet', scopeObjectId: s.id, events: ['*.*'], version: 1 });
    const id = h.body.result.id as number;
    let calls = 0;
    rx.answer = () => (++calls === 1 ? 500 : 200);
    assert.equal((await api.put(`/webhooks/${id}`, { enabled: true })).body.result.status, 'ENABLED');
    await api.post(`/sheets/${s.id}/rows`, [{ toBottom: true, cells: [{ columnId: s.col.A!.id, value: 'x' }] }]);
    await rx.waitFor(() => rx.callbacks(id).length === 1, 15_000, 'the first (failing) callback');
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(rx.callbacks(id).length, 1, 'the retry waits 30 s of the clock');
    const adv = await api.post(`${T}/clock/advance`, { by: 'PT31S' });
    assert.equal(adv.status, 200);
    assert.equal(rx.callbacks(id).length, 2, 'the retry ran before the advance answered');
    const d = await api.get(`${T}/webhookdeliveries?webhookId=${id}`);
    const events = d.body.data.filter((x: { kind: string }) => x.kind === 'EVENTS');
    assert.equal(events.length, 1);
    assert.equal(events[0].state, 'DELIVERED');
    assert.deepEqual(events[0].attempts.map((a: { statusCode: number }) => a.statusCode), [500, 200]);
    rx.answer = () => 200;
  });
});

describe('faults', () => {
  test('the next N matching requests answer the fault, then requests pass again', async () => {
    await api.post(`${T}/reset`);
    const f = await api.post(`${T}/faults`, { method: 'GET', path: '/sheets', count: 2, status: 429, retryAfter: 3 });
    assert.equal(f.status, 200, f.text);
    assert.equal(f.body.result.errorCode, 4003);
    assert.equal((await api.get(`${T}/faults`)).body.data.length, 1);
    const a = await api.get('/sheets');
    assertError(a, 429, 4003);
    assert.equal(a.headers.get('retry-after'), '3');
    assert.equal((await api.get('/users/me')).status, 200, 'another path is not hit');
    assertError(await api.get('/sheets'), 429, 4003);
    assert.equal((await api.get('/sheets')).status, 200);
    assert.equal((await api.get(`${T}/faults`)).body.data.length, 0);
  });

  test('500/4000, 4004 and 503 with globs; latency; clearing', async () => {
    await api.post(`${T}/faults`, { path: '/sheets/*', status: 500 });
    assertError(await api.get('/sheets/123'), 500, 4000);
    await api.post(`${T}/faults`, { method: 'POST', path: '/sheets/*/rows', errorCode: 4004 });
    const c = await api.post('/sheets/77/rows', [{ cells: [] }]);
    assertError(c, 500, 4004);
    assert.match(c.body.message, /77/);
    // where the path names no sheet, the code's other message: an unexpected error, retry
    await api.post(`${T}/faults`, { method: 'GET', path: '/users/me', errorCode: 4004 });
    const u = await api.get('/users/me');
    assertError(u, 500, 4004);
    assert.match(u.body.message, /unexpected error.*retry/i);
    assert.doesNotMatch(u.body.message, /sheetId/);
    await api.post(`${T}/faults`, { path: '/**', status: 503 });
    assertError(await api.get('/users/me'), 503, 4001);
    await api.post(`${T}/faults`, { path: '/users/me', latencyMs: 300 });
    const started = Date.now();
    assert.equal((await api.get('/users/me')).status, 200);
    assert.ok(Date.now() - started >= 290);
    await api.post(`${T}/faults`, { path: '/users/me', status: 500, count: 5 });
    const listed = (await api.get(`${T}/faults`)).body.data;
    assert.equal(listed.length, 1);
    assert.equal((await api.del(`${T}/faults/${listed[0].id}`)).status, 200);
    assertError(await api.del(`${T}/faults/${listed[0].id}`), 404, 1006);
    await api.post(`${T}/faults`, { path: '/users/me', status: 500, count: 5 });
    assert.equal((await api.del(`${T}/faults`)).status, 200);
    assert.equal((await api.get('/users/me')).status, 200);
  });

  test('bad faults are refused', async () => {
    assertError(await api.post(`${T}/faults`, { status: 500 }), 400, 1012);
    assertError(await api.post(`${T}/faults`, { path: 'sheets', status: 500 }), 400, 1031);
    assertError(await api.post(`${T}/faults`, { path: '/sheets', status: 200 }), 400, 1031);
    assertError(await api.post(`${T}/faults`, { path: '/sheets', errorCode: 9999 }), 400, 1031);
    assertError(await api.post(`${T}/faults`, { path: '/sheets' }), 400, 1012);
    assertError(await api.post(`${T}/faults`, { path: '/sheets', status: 500, colour: 'red' }), 400, 1032);
    assertError(await api.post(`${T}/faults`, { path: '/sheets', method: 'BREW', status: 500 }), 400, 1031);
    assert.equal((await api.get(`${T}/faults`)).body.data.length, 0);
  });
});

describe('journal and outbox', () => {
  test('records requests with the token masked, filters and pages, and is cleared on reset', async () => {
    await api.post(`${T}/reset`);
    await api.post('/sheets', { name: 'journaled', columns: [{ title: 'A', type: 'TEXT_NUMBER', primary: true }] });
    await api.get('/sheets/999999');
    await api.get('/users/me?include=groups');
    const all = await api.get(`${T}/journal`);
    assert.equal(all.status, 200);
    assert.equal(all.body.totalCount, 3);
    const post = all.body.data[0];
    assert.equal(post.method, 'POST');
    assert.equal(post.path, '/sheets');
    assert.equal(post.status, 200);
    assert.equal(JSON.parse(post.body).name, 'journaled');
    assert.ok(!JSON.stringify(all.body).includes(t.adminToken), 'the token never appears');
    assert.match(post.headers.authorization, /^Bearer \*\*\*\*/);
    const missing = all.body.data[1];
    assert.equal(missing.status, 404);
    assert.equal(missing.errorCode, 1006);
    assert.deepEqual(all.body.data[2].query, { include: 'groups' });
    assert.equal((await api.get(`${T}/journal?method=post`)).body.totalCount, 1);
    assert.equal((await api.get(`${T}/journal?status=404`)).body.totalCount, 1);
    assert.equal((await api.get(`${T}/journal?path=/sheets/*`)).body.totalCount, 1);
    const page = await api.get(`${T}/journal?pageSize=2&page=2`);
    assert.equal(page.body.data.length, 1);
    assertError(await api.get(`${T}/journal?status=abc`), 400, 1018);
    // bodies are kept up to 64 KB
    await api.post('/sheets', { name: 'x'.repeat(70_000), columns: [] });
    const big = (await api.get(`${T}/journal?method=POST&status=400`)).body.data[0];
    assert.equal(big.bodyTruncated, true);
    assert.equal(big.body.length, 64 * 1024);
    await api.post(`${T}/reset`);
    assert.equal((await api.get(`${T}/journal`)).body.totalCount, 0);
  });

  test('a sent mail is readable from the outbox', async () => {
    await api.post(`${T}/reset`);
    const s = await makeSheet(api, 'mailed', [{ title: 'A', type: 'TEXT_NUMBER', primary: true }]);
    const r = await api.post(`/sheets/${s.id}/shares?sendEmail=true`, [{ email: 'friend@example.com', accessLevel: 'VIEWER', message: 'have a look' }]);
    assert.equal(r.status, 200, r.text);
    let mails: Array<{ to: string[]; subject: string; text: string }> = [];
    for (let i = 0; i < 100 && mails.length === 0; i++) {
      mails = (await api.get(`${T}/outbox`)).body.data;
      if (mails.length === 0) await new Promise((res) => setTimeout(res, 50));
    }
    assert.equal(mails.length, 1);
    assert.deepEqual(mails[0]!.to, ['friend@example.com']);
    assert.match(mails[0]!.text, /have a look/);
    await api.post(`${T}/reset`);
    assert.equal((await api.get(`${T}/outbox`)).body.totalCount, 0);
  });
});

describe('seed and the OpenAPI document', () => {
  test('POST seed answers ids by key; a bad fixture changes nothing', async () => {
    await api.post(`${T}/reset`);
    const r = await api.post(`${T}/seed`, {
      users: [{ key: 'bo', email: 'bo@example.com' }],
      sheets: [{ key: 's', name: 'S', columns: [{ title: 'A', type: 'TEXT_NUMBER', primary: true }], rows: [{ key: 'x', cells: { A: 1 } }] }],
      shares: [{ sheet: 's', user: 'bo', accessLevel: 'VIEWER' }],
    });
    assert.equal(r.status, 200, r.text);
    const sheet = (await api.get(`/sheets/${r.body.result.sheets.s.id}`)).body;
    assert.equal(sheet.rows[0].id, r.body.result.sheets.s.rows.x);
    assert.equal(sheet.rows[0].cells[0].value, 1);
    assert.equal((await api.get(`/users/${r.body.result.users.bo}`)).body.email, 'bo@example.com');
    assertError(await api.post(`${T}/seed`, { planets: [] }), 400, 1032);
    const dup = await api.post(`${T}/seed`, { users: [{ email: 'new@example.com' }, { email: 'bo@example.com' }] });
    assert.equal(dup.status >= 400, true);
    assert.equal(dup.body.detail.step, 'users[1]');
    assert.equal((await api.get('/users')).body.totalCount, 2, 'the first user of the failed seed is gone');
  });

  test('the controls are in the OpenAPI document when test mode is on', async () => {
    const doc = (await api.get('/openapi.json')).body;
    const routes = t.server.app.routeTable.filter((x) => x.url.startsWith('/2.0/sheetd/test'));
    assert.ok(routes.length >= 17);
    for (const x of routes) {
      const p = x.url.slice(4).replace(/:(\w+)/g, '{$1}');
      assert.match(doc.paths[p]?.[x.method.toLowerCase()]?.summary ?? '', /\(test mode\)/, `${x.method} ${p}`);
    }
  });

  test('SHEETD_TEST_SEED loads a fixture at start and saves it as the snapshot "seed"', async () => {
    const fs = await import('node:fs');
    const os = await import('node:os');
    const path = await import('node:path');
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'seed-')), 'f.json');
    fs.writeFileSync(file, JSON.stringify({ sheets: [{ name: 'At start', columns: [{ title: 'A', type: 'TEXT_NUMBER', primary: true }] }] }));
    const t2 = await startSuiteServer({ SHEETD_TEST_MODE: 'true', SHEETD_TEST_SEED: file });
    try {
      const a2 = client(t2.base, t2.adminToken);
      assert.deepEqual((await a2.get('/sheets')).body.data.map((x: { name: string }) => x.name), ['At start']);
      await a2.post(`${T}/reset`);
      assert.equal((await a2.get('/sheets')).body.totalCount, 0);
      assert.equal((await a2.post(`${T}/snapshots/seed/restore`)).status, 200);
      assert.equal((await a2.get('/sheets')).body.totalCount, 1);
    } finally {
      await t2.close();
    }
  });
});
