import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startSuiteServer, type TestServer } from '../helpers/server.ts';
import { assertError, client, type Client } from '../helpers/http.ts';
import { makeSheet, makeUser } from '../helpers/sheets.ts';
import { hmac, startReceiver, type Receiver } from '../helpers/webhookReceiver.ts';
import { closeAll } from '../helpers/setup.ts';

/**
 * Webhooks over HTTP against a real HTTPS subscriber (self-signed CA trusted through
 * SHEETD_WEBHOOK_CA_FILE): the six operations and their errors, the verification handshake,
 * signed callbacks from the change log, subscopes, retries, scope loss, the delivery log.
 */
let t: TestServer;
let api: Client;
let rx: Receiver;

before(async () => {
  rx = await startReceiver();
  t = await startSuiteServer({
    SHEETD_WEBHOOK_CA_FILE: rx.caFile,
    SHEETD_WEBHOOK_PORTS: `443,8443,${rx.port}`,
    SHEETD_WEBHOOK_RETRY_MS: '50,100,150',
    SHEETD_WEBHOOK_BATCH_MS: '50',
    SHEETD_JOB_POLL_MS: '50',
  });
  api = client(t.base, t.adminToken);
});
after(async () => {
  await closeAll(() => t?.close(), () => rx?.close());
});

const COLS = [{ title: 'Name', type: 'TEXT_NUMBER', primary: true }, { title: 'Status', type: 'TEXT_NUMBER' }, { title: 'Note', type: 'TEXT_NUMBER' }];

function hookBody(sheetId: number, extra: Record<string, unknown> = {}) {
  return { name: 'hook', callbackUrl: rx.url, scope: 'sheet', scopeObjectId: sheetId, events: ['*.*'], version: 1, ...extra };
}

async function enabledHook(as: Client, sheetId: number, extra: Record<string, unknown> = {}) {
  const c = await as.post('/webhooks', hookBody(sheetId, extra));
  assert.equal(c.status, 200, JSON.stringify(c.body));
  const u = await as.put(`/webhooks/${c.body.result.id}`, { enabled: true });
  assert.equal(u.status, 200, JSON.stringify(u.body));
  assert.equal(u.body.result.status, 'ENABLED', JSON.stringify(u.body));
  return u.body.result as { id: number; sharedSecret: string };
}

type Ev = { objectType: string; eventType: string; id?: number; rowId?: number; columnId?: number };
const eventsOf = (hookId: number): Ev[] => rx.callbacks(hookId).flatMap((c) => (c.json.events as Ev[] | undefined) ?? []);

describe('webhook operations', () => {
  it('creates a disabled, unverified webhook and reads it back', async () => {
    const s = await makeSheet(api, 'w-create', COLS);
    const r = await api.post('/webhooks', hookBody(s.id, { name: 'My hook', subscope: { columnIds: [String(s.col.Status!.id)] } }));
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.message, 'SUCCESS');
    const h = r.body.result;
    assert.equal(h.name, 'My hook');
    assert.equal(h.enabled, false);
    assert.equal(h.status, 'NEW_NOT_VERIFIED');
    assert.equal(h.scope, 'sheet');
    assert.equal(h.scopeObjectId, s.id);
    assert.deepEqual(h.events, ['*.*']);
    assert.equal(h.version, 1);
    assert.deepEqual(h.subscope, { columnIds: [s.col.Status!.id] });
    assert.match(h.sharedSecret, /^[a-z0-9]{20,}$/);
    assert.match(h.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const g = await api.get(`/webhooks/${h.id}`);
    assert.deepEqual(g.body, h);
    assert.equal(typeof (await api.get(`/webhooks/${h.id}?numericDates=true`)).body.createdAt, 'number');
    assert.equal(rx.verifications(h.id).length, 0, 'creating does not verify');
  });

  it('refuses bad bodies with the catalogued errors and creates nothing', async () => {
    const s = await makeSheet(api, 'w-bad', COLS);
    const before = (await api.get('/webhooks?includeAll=true')).body.totalCount;
    assertError(await api.post('/webhooks', hookBody(s.id, { callbackUrl: 'http://example.com/hook' })), 400, 1152);
    assertError(await api.post('/webhooks', hookBody(s.id, { callbackUrl: 'ftp://example.com/hook' })), 400, 1152);
    assertError(await api.post('/webhooks', hookBody(s.id, { callbackUrl: 'https://example.com:9999/hook' })), 400, 1031);
    assertError(await api.post('/webhooks', hookBody(s.id, { callbackUrl: 42 })), 400, 1031);
    assertError(await api.post('/webhooks', hookBody(s.id, { events: ['sheet.*'] })), 400, 1031);
    assertError(await api.post('/webhooks', hookBody(s.id, { events: ['*.*', '*.*'] })), 400, 1031);
    assertError(await api.post('/webhooks', hookBody(s.id, { version: 2 })), 400, 1031);
    assertError(await api.post('/webhooks', hookBody(s.id, { scope: 'workspace' })), 400, 1031);
    assertError(await api.post('/webhooks', hookBody(s.id, { scopeObjectId: 'x' })), 400, 1031);
    assertError(await api.post('/webhooks', hookBody(s.id, { enabled: true })), 400, 1032);
    assertError(await api.post('/webhooks', hookBody(s.id, { subscope: { columnIds: [123] } })), 404, 1293);
    assertError(await api.post('/webhooks', hookBody(s.id, { subscope: { columnIds: [] } })), 400, 1031);
    assertError(await api.post('/webhooks', hookBody(123456789012345)), 404, 1151);
    for (const attr of ['name', 'callbackUrl', 'events', 'version', 'scope', 'scopeObjectId']) {
      const b: Record<string, unknown> = hookBody(s.id);
      delete b[attr];
      assertError(await api.post('/webhooks', b), 400, 1012);
    }
    assertError(await api.post('/webhooks', [hookBody(s.id)]), 400, 1008);
    assert.equal((await api.get('/webhooks?includeAll=true')).body.totalCount, before);
  });

  it('lists the caller\'s own webhooks by name then creation, paged', async () => {
    const u = await makeUser(t, api, 'lister@example.com');
    const me = client(t.base, u.token);
    const s = await makeSheet(me, 'w-list', COLS);
    for (const name of ['b', 'a', 'c', 'a']) assert.equal((await me.post('/webhooks', hookBody(s.id, { name }))).status, 200);
    const all = (await me.get('/webhooks?includeAll=true')).body;
    assert.equal(all.totalCount, 4);
    assert.deepEqual(all.data.map((h: { name: string }) => h.name), ['a', 'a', 'b', 'c']);
    assert.ok(all.data[0].createdAt <= all.data[1].createdAt);
    const p2 = (await me.get('/webhooks?pageSize=3&page=2')).body;
    assert.equal(p2.pageNumber, 2);
    assert.equal(p2.totalPages, 2);
    assert.deepEqual(p2.data.map((h: { name: string }) => h.name), ['c']);
    // another user's webhooks are neither listed nor reachable
    const theirs = all.data[0].id;
    assert.ok(!(await api.get('/webhooks?includeAll=true')).body.data.some((h: { id: number }) => h.id === theirs));
    assertError(await api.get(`/webhooks/${theirs}`), 404, 1006);
    assertError(await api.put(`/webhooks/${theirs}`, { name: 'x' }), 404, 1006);
    assertError(await api.del(`/webhooks/${theirs}`), 404, 1006);
    assertError(await api.post(`/webhooks/${theirs}/resetsharedsecret`), 404, 1006);
  });

  it('needs the ADMIN_WEBHOOKS scope', async () => {
    const u = await makeUser(t, api, 'noscope@example.com', ['READ_SHEETS', 'WRITE_SHEETS']);
    const c = client(t.base, u.token);
    assertError(await c.get('/webhooks'), 403, 1004);
    assertError(await c.post('/webhooks', hookBody(1)), 403, 1004);
  });

  it('updates name, callbackUrl, events and version; scope and subscope are fixed', async () => {
    const s = await makeSheet(api, 'w-update', COLS);
    const h = (await api.post('/webhooks', hookBody(s.id))).body.result;
    const r = await api.put(`/webhooks/${h.id}`, { name: 'renamed', callbackUrl: 'https://example.com/other', events: ['*.*'], version: 1 });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.result.name, 'renamed');
    assert.equal(r.body.result.callbackUrl, 'https://example.com/other');
    assert.equal(r.body.result.status, 'NEW_NOT_VERIFIED');
    assertError(await api.put(`/webhooks/${h.id}`, { callbackUrl: 'http://example.com/' }), 400, 1152);
    assertError(await api.put(`/webhooks/${h.id}`, { version: 3 }), 400, 1031);
    assertError(await api.put(`/webhooks/${h.id}`, { enabled: 'yes' }), 400, 1031);
    assertError(await api.put(`/webhooks/${h.id}`, { scopeObjectId: 1234567890123 }), 400, 1032);
    assertError(await api.put(`/webhooks/${h.id}`, { subscope: { columnIds: [s.col.Note!.id] } }), 400, 1032);
    assertError(await api.put(`/webhooks/${h.id}`, { sharedSecret: 'x' }), 400, 1032);
    assertError(await api.put(`/webhooks/${h.id}`, { id: h.id + 1, name: 'x' }), 400, 1029);
    // sent back unchanged, the fixed attributes are accepted (a client that PUTs what it got)
    const same = await api.put(`/webhooks/${h.id}`, { id: h.id, scope: 'sheet', scopeObjectId: s.id, name: 'again' });
    assert.equal(same.status, 200, JSON.stringify(same.body));
    const g = (await api.get(`/webhooks/${h.id}`)).body;
    assert.equal(g.name, 'again');
    assert.equal(g.callbackUrl, 'https://example.com/other');
  });

  it('resets the shared secret at both spellings, and deletes', async () => {
    const s = await makeSheet(api, 'w-secret', COLS);
    const h = (await api.post('/webhooks', hookBody(s.id))).body.result;
    const a = await api.post(`/webhooks/${h.id}/resetsharedsecret`);
    assert.equal(a.status, 200, JSON.stringify(a.body));
    assert.notEqual(a.body.result.sharedSecret, h.sharedSecret);
    const b = await api.post(`/webhooks/${h.id}/resetSharedSecret`);
    assert.notEqual(b.body.result.sharedSecret, a.body.result.sharedSecret);
    assert.equal((await api.get(`/webhooks/${h.id}`)).body.sharedSecret, b.body.result.sharedSecret);
    // also at the top, where the Java SDK reads it
    assert.equal(b.body.sharedSecret, b.body.result.sharedSecret);
    assert.equal((await api.del(`/webhooks/${h.id}`)).status, 200);
    assertError(await api.get(`/webhooks/${h.id}`), 404, 1006);
    assertError(await api.del(`/webhooks/${h.id}`), 404, 1006);
  });
});

describe('verification', () => {
  it('enabling sends the challenge and answers after the subscriber echoed it (header or body)', async () => {
    const s = await makeSheet(api, 'w-verify', COLS);
    for (const mode of ['header', 'body'] as const) {
      rx.verify = mode;
      const h = (await api.post('/webhooks', hookBody(s.id))).body.result;
      const r = await api.put(`/webhooks/${h.id}`, { enabled: true });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(r.body.result.enabled, true);
      assert.equal(r.body.result.status, 'ENABLED');
      const v = rx.verifications(h.id);
      assert.equal(v.length, 1);
      const challenge = v[0]!.headers['smartsheet-hook-challenge'];
      assert.equal(typeof challenge, 'string');
      assert.deepEqual(v[0]!.json, { challenge, webhookId: h.id });
    }
    rx.verify = 'header';
  });

  it('a wrong echo or a failing subscriber leaves it DISABLED_VERIFICATION_FAILED; it can be enabled again', async () => {
    const s = await makeSheet(api, 'w-verify-fail', COLS);
    const h = (await api.post('/webhooks', hookBody(s.id))).body.result;
    for (const mode of ['wrong', 403] as const) {
      rx.verify = mode;
      const r = await api.put(`/webhooks/${h.id}`, { enabled: true });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(r.body.result.enabled, false);
      assert.equal(r.body.result.status, 'DISABLED_VERIFICATION_FAILED');
      assert.equal(typeof r.body.result.disabledDetails, 'string');
    }
    rx.verify = 'header';
    const ok = await api.put(`/webhooks/${h.id}`, { enabled: true });
    assert.equal(ok.body.result.status, 'ENABLED');
    const off = await api.put(`/webhooks/${h.id}`, { enabled: false });
    assert.equal(off.body.result.status, 'DISABLED_BY_OWNER');
    assert.equal(off.body.result.enabled, false);
    const on = await api.put(`/webhooks/${h.id}`, { enabled: true });
    assert.equal(on.body.result.status, 'ENABLED');
    assert.equal(rx.verifications(h.id).length, 4);
  });
});

describe('callbacks', () => {
  it('delivers signed callbacks of the sheet\'s changes, in order, batched', async () => {
    const s = await makeSheet(api, 'w-deliver', COLS);
    const other = await makeSheet(api, 'w-other', COLS);
    const h = await enabledHook(api, s.id);
    const add = await api.post(`/sheets/${s.id}/rows`, [{ toBottom: true, cells: [{ columnId: s.col.Name!.id, value: 'a' }, { columnId: s.col.Status!.id, value: 'new' }] }]);
    assert.equal(add.status, 200);
    const rowId = add.body.result[0].id as number;
    await api.post(`/sheets/${other.id}/rows`, [{ toBottom: true, cells: [{ columnId: other.col.Name!.id, value: 'elsewhere' }] }]);
    await api.put(`/sheets/${s.id}/rows`, [{ id: rowId, cells: [{ columnId: s.col.Note!.id, value: 'n' }] }]);
    await api.del(`/sheets/${s.id}/rows?ids=${rowId}`);
    await rx.waitFor(() => eventsOf(h.id).some((e) => e.objectType === 'row' && e.eventType === 'deleted'), 15_000, 'the row deletion callback');
    for (const c of rx.callbacks(h.id)) {
      assert.equal(c.headers['smartsheet-hmac-sha256'], hmac(h.sharedSecret, c.body), 'signed with the shared secret');
      assert.equal(c.json.webhookId, h.id);
      assert.equal(c.json.scope, 'sheet');
      assert.equal(c.json.scopeObjectId, s.id);
      assert.equal(typeof c.json.nonce, 'string');
      assert.match(String(c.json.timestamp), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      assert.equal(c.json.newWebhookStatus, undefined);
    }
    const nonces = rx.callbacks(h.id).map((c) => c.json.nonce);
    assert.equal(new Set(nonces).size, nonces.length, 'a nonce per callback');
    const evs = eventsOf(h.id).map((e) => `${e.objectType}.${e.eventType}:${e.id ?? e.rowId}${e.columnId ? '/' + e.columnId : ''}`);
    assert.deepEqual(evs, [
      `row.created:${rowId}`, `cell.created:${rowId}/${s.col.Name!.id}`, `cell.created:${rowId}/${s.col.Status!.id}`,
      `row.updated:${rowId}`, `cell.updated:${rowId}/${s.col.Note!.id}`,
      `row.deleted:${rowId}`,
    ]);
    assert.ok(!eventsOf(h.id).some((e) => e.id === other.id));
    // the worker records the attempt after the subscriber answered: the stats may lag the callback
    let g = (await api.get(`/webhooks/${h.id}`)).body;
    for (let i = 0; i < 100 && typeof g.stats?.lastSuccessfulCallback !== 'string'; i++) {
      await new Promise((r) => setTimeout(r, 50));
      g = (await api.get(`/webhooks/${h.id}`)).body;
    }
    assert.equal(typeof g.stats.lastCallbackAttempt, 'string');
    assert.equal(typeof g.stats.lastSuccessfulCallback, 'string');
    assert.equal(g.stats.lastCallbackAttemptRetryCount, 0);
  });

  it('the rows of large writes come each once, in order, in callbacks of at most 1,000 events', async () => {
    const s = await makeSheet(api, 'w-large-writes', COLS);
    const h = await enabledHook(api, s.id);
    // three writes of 400 rows (the change log keeps each write's row events as one record): a
    // callback holds at most 1,000 events, so one read together end inside a write's rows
    const adds = await Promise.all([0, 1, 2].map((w) => api.post(`/sheets/${s.id}/rows`, Array.from({ length: 400 }, (_, i) => ({ toBottom: true, cells: [{ columnId: s.col.Name!.id, value: `w${w}r${i}` }] })))));
    for (const a of adds) assert.equal(a.status, 200, JSON.stringify(a.body).slice(0, 300));
    // the writes commit one after the other (the sheet's lock), in the order of their versions
    const rowIds = [...adds].sort((a, b) => a.body.version - b.body.version).flatMap((a) => (a.body.result as Array<{ id: number }>).map((r) => r.id));
    const created = () => eventsOf(h.id).filter((e) => e.objectType === 'row' && e.eventType === 'created').map((e) => e.id);
    await rx.waitFor(() => created().length >= rowIds.length, 30_000, 'every row\'s callback');
    await new Promise((r) => setTimeout(r, 200));
    assert.deepEqual(created(), rowIds);
    assert.deepEqual(eventsOf(h.id).filter((e) => e.objectType === 'cell').map((e) => e.rowId), rowIds);
    for (const c of rx.callbacks(h.id)) assert.ok((c.json.events as Ev[]).filter((e) => e.objectType === 'row').length <= 1000);
  });

  it('events carry the Smartsheet-Change-Agent of their request (trimmed from the front to 512 characters)', async () => {
    const s = await makeSheet(api, 'w-agent', COLS);
    const h = await enabledHook(api, s.id);
    const row = { toBottom: true, cells: [{ columnId: s.col.Name!.id, value: 'a' }] };
    await api.post(`/sheets/${s.id}/rows`, [row], { headers: { 'Smartsheet-Change-Agent': 'app-1,app-2' } });
    await rx.waitFor(() => eventsOf(h.id).length >= 2, 15_000, 'the first callback');
    const long = 'x'.repeat(100) + ',' + 'y'.repeat(500);
    await api.post(`/sheets/${s.id}/rows`, [row], { headers: { 'Smartsheet-Change-Agent': long } });
    await api.post(`/sheets/${s.id}/rows`, [row]);
    await rx.waitFor(() => eventsOf(h.id).length >= 6, 15_000, 'the other callbacks');
    const agents = eventsOf(h.id).map((e) => (e as { changeAgent?: string }).changeAgent);
    assert.deepEqual(agents, ['app-1,app-2', 'app-1,app-2', long.slice(-512), long.slice(-512), undefined, undefined]);
  });

  it('a subscope passes only events of its columns, and row deletions always', async () => {
    const s = await makeSheet(api, 'w-subscope', COLS);
    const h = await enabledHook(api, s.id, { subscope: { columnIds: [s.col.Status!.id] } });
    const add = await api.post(`/sheets/${s.id}/rows`, [{ toBottom: true, cells: [{ columnId: s.col.Name!.id, value: 'x' }] }, { toBottom: true, cells: [{ columnId: s.col.Status!.id, value: 'y' }] }]);
    const [r1, r2] = add.body.result.map((r: { id: number }) => r.id) as [number, number];
    await api.put(`/sheets/${s.id}/rows`, [{ id: r1, cells: [{ columnId: s.col.Note!.id, value: 'ignored' }] }]);
    await api.put(`/sheets/${s.id}/rows`, [{ id: r1, cells: [{ columnId: s.col.Status!.id, value: 'seen' }] }]);
    await api.del(`/sheets/${s.id}/rows?ids=${r2}`);
    await rx.waitFor(() => eventsOf(h.id).some((e) => e.eventType === 'deleted'), 15_000, 'the row deletion');
    const evs = eventsOf(h.id).map((e) => `${e.objectType}.${e.eventType}:${e.id ?? e.rowId}${e.columnId ? '/' + e.columnId : ''}`);
    assert.deepEqual(evs, [
      `row.created:${r2}`, `cell.created:${r2}/${s.col.Status!.id}`,
      `row.updated:${r1}`, `cell.updated:${r1}/${s.col.Status!.id}`,
      `row.deleted:${r2}`,
    ]);
  });

  it('retries a failing subscriber and then delivers; the delivery log shows each attempt', async () => {
    const s = await makeSheet(api, 'w-retry', COLS);
    const h = await enabledHook(api, s.id);
    let fails = 2;
    rx.answer = (r) => (r.json.webhookId === h.id && fails-- > 0 ? 503 : 200);
    await api.post(`/sheets/${s.id}/rows`, [{ toBottom: true, cells: [{ columnId: s.col.Name!.id, value: 'r' }] }]);
    await rx.waitFor(() => rx.callbacks(h.id).length === 3, 15_000, 'three tries');
    rx.answer = () => 200;
    const bodies = rx.callbacks(h.id).map((c) => c.body);
    assert.equal(new Set(bodies).size, 1, 'a retry sends the same callback');
    await rx.waitFor(() => false, 300).catch(() => {});
    const log = (await api.get(`/sheetd/webhooks/${h.id}/deliveries`)).body;
    const events = log.data.filter((d: { kind: string }) => d.kind === 'EVENTS');
    assert.equal(events.length, 1);
    assert.equal(events[0].state, 'DELIVERED');
    assert.equal(events[0].body, bodies[0]);
    assert.deepEqual(events[0].attempts.map((a: { statusCode: number }) => a.statusCode), [503, 503, 200]);
    for (const a of events[0].attempts) assert.equal(typeof a.latencyMs, 'number');
    assert.equal(log.data.some((d: { kind: string }) => d.kind === 'VERIFICATION'), true);
    const g = (await api.get(`/webhooks/${h.id}`)).body;
    assert.equal(g.status, 'ENABLED');
    assert.equal(g.stats.lastCallbackAttemptRetryCount, 2);
  });

  it('disables the webhook (DISABLED_CALLBACK_FAILED) when retries are spent or the answer is not retried', async () => {
    const s = await makeSheet(api, 'w-fail', COLS);
    const h1 = await enabledHook(api, s.id, { name: 'always 500' });
    const h2 = await enabledHook(api, s.id, { name: 'gone' });
    rx.answer = (r) => (r.json.webhookId === h1.id ? 500 : r.json.webhookId === h2.id ? 410 : 200);
    await api.post(`/sheets/${s.id}/rows`, [{ toBottom: true, cells: [{ columnId: s.col.Name!.id, value: 'f' }] }]);
    const status = async (id: number) => (await api.get(`/webhooks/${id}`)).body;
    await rx.waitFor(() => rx.callbacks(h1.id).length >= 4 && rx.callbacks(h2.id).length >= 1, 15_000, 'the tries');
    const deadline = Date.now() + 10_000;
    while ((await status(h1.id)).status !== 'DISABLED_CALLBACK_FAILED' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    rx.answer = () => 200;
    const g1 = await status(h1.id);
    assert.equal(g1.status, 'DISABLED_CALLBACK_FAILED');
    assert.equal(g1.enabled, false);
    assert.equal(rx.callbacks(h1.id).length, 4, 'the first try and three retries');
    const g2 = await status(h2.id);
    assert.equal(g2.status, 'DISABLED_CALLBACK_FAILED');
    assert.equal(rx.callbacks(h2.id).length, 1, '410 is not retried');
    // disabled: no more callbacks; enabling verifies again
    await api.post(`/sheets/${s.id}/rows`, [{ toBottom: true, cells: [{ columnId: s.col.Name!.id, value: 'g' }] }]);
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(rx.callbacks(h1.id).length, 4);
    const again = await api.put(`/webhooks/${h1.id}`, { enabled: true });
    assert.equal(again.body.result.status, 'ENABLED');
  });

  it('verifies the callback URL again before the 101st callback; a failed verification disables the webhook', async () => {
    const s = await makeSheet(api, 'w-reverify', COLS);
    const h = await enabledHook(api, s.id);
    for (let i = 1; i <= 100; i++) {
      await api.post(`/sheets/${s.id}/rows`, [{ toBottom: true, cells: [{ columnId: s.col.Name!.id, value: i }] }]);
      await rx.waitFor(() => rx.callbacks(h.id).length === i, 15_000, `callback ${i}`);
    }
    assert.equal(rx.verifications(h.id).length, 1, 'no verification within the first 100 callbacks');
    rx.verify = 'wrong';
    await api.post(`/sheets/${s.id}/rows`, [{ toBottom: true, cells: [{ columnId: s.col.Name!.id, value: 101 }] }]);
    await rx.waitFor(() => rx.verifications(h.id).length === 2, 15_000, 'the second verification');
    rx.verify = 'header';
    const deadline = Date.now() + 10_000;
    let g = (await api.get(`/webhooks/${h.id}`)).body;
    while (g.status === 'ENABLED' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      g = (await api.get(`/webhooks/${h.id}`)).body;
    }
    assert.equal(g.status, 'DISABLED_VERIFICATION_FAILED');
    assert.equal(g.enabled, false);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(rx.callbacks(h.id).length, 100, 'the 101st callback is not sent');
  });

  it('replays a delivery as a new callback with the same events', async () => {
    const s = await makeSheet(api, 'w-replay', COLS);
    const h = await enabledHook(api, s.id);
    await api.post(`/sheets/${s.id}/rows`, [{ toBottom: true, cells: [{ columnId: s.col.Name!.id, value: 'p' }] }]);
    await rx.waitFor(() => rx.callbacks(h.id).length === 1, 15_000, 'the callback');
    const log = (await api.get(`/sheetd/webhooks/${h.id}/deliveries`)).body;
    const d = log.data.find((x: { kind: string }) => x.kind === 'EVENTS');
    const r = await api.post(`/sheetd/webhooks/${h.id}/deliveries/${d.id}/replay`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    await rx.waitFor(() => rx.callbacks(h.id).length === 2, 15_000, 'the replay');
    const [first, second] = rx.callbacks(h.id);
    assert.deepEqual(second!.json.events, first!.json.events);
    assert.notEqual(second!.json.nonce, first!.json.nonce);
    assert.equal(second!.headers['smartsheet-hmac-sha256'], hmac(h.sharedSecret, second!.body));
    assertError(await api.post(`/sheetd/webhooks/${h.id}/deliveries/123456789012/replay`), 404, 1006);
    const v = log.data.find((x: { kind: string }) => x.kind === 'VERIFICATION');
    assertError(await api.post(`/sheetd/webhooks/${h.id}/deliveries/${v.id}/replay`), 400, 1031);
  });

  it('signs with the new secret after a reset', async () => {
    const s = await makeSheet(api, 'w-resign', COLS);
    const h = await enabledHook(api, s.id);
    const secret = (await api.post(`/webhooks/${h.id}/resetsharedsecret`)).body.result.sharedSecret as string;
    await api.post(`/sheets/${s.id}/rows`, [{ toBottom: true, cells: [{ columnId: s.col.Name!.id, value: 's' }] }]);
    await rx.waitFor(() => rx.callbacks(h.id).length === 1, 15_000, 'the callback');
    const c = rx.callbacks(h.id)[0]!;
    assert.equal(c.headers['smartsheet-hmac-sha256'], hmac(secret, c.body));
  });

  it('losing access to the sheet disables it (DISABLED_SCOPE_INACCESSIBLE) with a status callback; access back enables it', async () => {
    const s = await makeSheet(api, 'w-scope', COLS);
    const u = await makeUser(t, api, 'scoped@example.com');
    const share = await api.post(`/sheets/${s.id}/shares`, { email: 'scoped@example.com', accessLevel: 'EDITOR' });
    assert.equal(share.status, 200, JSON.stringify(share.body));
    const them = client(t.base, u.token);
    const h = await enabledHook(them, s.id);
    assert.equal((await api.del(`/sheets/${s.id}/shares/${share.body.result.id}`)).status, 200);
    await rx.waitFor(() => rx.callbacks(h.id).some((c) => c.json.newWebhookStatus === 'DISABLED_SCOPE_INACCESSIBLE'), 15_000, 'the status callback');
    const g = (await them.get(`/webhooks/${h.id}`)).body;
    assert.equal(g.status, 'DISABLED_SCOPE_INACCESSIBLE');
    assert.equal(g.enabled, false);
    // changes while the scope is inaccessible are not delivered; the owner cannot enable it
    await api.post(`/sheets/${s.id}/rows`, [{ toBottom: true, cells: [{ columnId: s.col.Name!.id, value: 'hidden' }] }]);
    assertError(await them.put(`/webhooks/${h.id}`, { enabled: true }), 404, 1151);
    await api.post(`/sheets/${s.id}/shares`, { email: 'scoped@example.com', accessLevel: 'VIEWER' });
    await rx.waitFor(() => rx.callbacks(h.id).some((c) => c.json.newWebhookStatus === 'ENABLED'), 15_000, 'the re-enabling callback');
    assert.equal((await them.get(`/webhooks/${h.id}`)).body.status, 'ENABLED');
    assert.equal(eventsOf(h.id).length, 0, 'nothing from while it was disabled');
    await api.post(`/sheets/${s.id}/rows`, [{ toBottom: true, cells: [{ columnId: s.col.Name!.id, value: 'seen' }] }]);
    await rx.waitFor(() => eventsOf(h.id).some((e) => e.objectType === 'row'), 15_000, 'a callback again');
  });

  it('a deleted sheet disables its webhooks', async () => {
    const s = await makeSheet(api, 'w-deleted', COLS);
    const h = await enabledHook(api, s.id);
    assert.equal((await api.del(`/sheets/${s.id}`)).status, 200);
    await rx.waitFor(() => rx.callbacks(h.id).some((c) => c.json.newWebhookStatus === 'DISABLED_SCOPE_INACCESSIBLE'), 15_000, 'the status callback');
    assert.equal((await api.get(`/webhooks/${h.id}`)).body.status, 'DISABLED_SCOPE_INACCESSIBLE');
  });
});

describe('the operator', () => {
  const sheetd = (args: string[]) => new Promise<{ code: number; stderr: string }>((resolve) => {
    const env = { ...process.env, SHEETD_DATA_DIR: t.dataDir, SHEETD_LOG_LEVEL: 'silent', ...(t.config.databaseUrl ? { DATABASE_URL: t.config.databaseUrl } : {}) };
    execFile(process.execPath, [path.resolve(import.meta.dirname, '../../bin/sheetd.js'), ...args], { env, timeout: 60_000 }, (err, _out, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stderr });
    });
  });

  it('disables a webhook (DISABLED_ADMINISTRATIVE: the owner gets 1154) and restores it', async () => {
    const s = await makeSheet(api, 'w-operator', COLS);
    const h = await enabledHook(api, s.id);
    assert.equal((await sheetd(['webhook', 'disable', String(h.id)])).code, 0);
    const g = (await api.get(`/webhooks/${h.id}`)).body;
    assert.equal(g.status, 'DISABLED_ADMINISTRATIVE');
    assert.equal(g.enabled, false);
    await api.post(`/sheets/${s.id}/rows`, [{ toBottom: true, cells: [{ columnId: s.col.Name!.id, value: 'unseen' }] }]);
    assertError(await api.put(`/webhooks/${h.id}`, { enabled: true }), 403, 1154);
    assert.equal((await api.get(`/webhooks/${h.id}`)).body.status, 'DISABLED_ADMINISTRATIVE');
    assert.equal((await sheetd(['webhook', 'restore', String(h.id)])).code, 0);
    assert.equal((await api.get(`/webhooks/${h.id}`)).body.status, 'DISABLED_BY_OWNER');
    assert.equal((await api.put(`/webhooks/${h.id}`, { enabled: true })).body.result.status, 'ENABLED');
    assert.equal(rx.callbacks(h.id).length, 0, 'nothing from while it was disabled');
    const bad = await sheetd(['webhook', 'disable', '123456789012']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /no webhook/);
  });
});
