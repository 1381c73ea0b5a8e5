import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startSuiteServer, type TestServer } from '../helpers/server.ts';
import { client, type Client } from '../helpers/http.ts';
import { makeSheet } from '../helpers/sheets.ts';
import { startReceiver, type Receiver } from '../helpers/webhookReceiver.ts';
import { closeAll } from '../helpers/setup.ts';

/**
 * The operator's limits on callbacks: denied networks (checked on the address connected to),
 * the callback timeout, the largest response read, and TLS trust (a CA the server was not told
 * to trust fails the handshake). Each failure leaves the webhook DISABLED_VERIFICATION_FAILED
 * and names its cause in the delivery log.
 */
let t: TestServer;
let api: Client;
let rx: Receiver;
let untrusted: Receiver;
let v6: Receiver;

before(async () => {
  rx = await startReceiver();
  untrusted = await startReceiver();
  v6 = await startReceiver('::1');
  t = await startSuiteServer({
    SHEETD_WEBHOOK_CA_FILE: rx.caFile,
    SHEETD_WEBHOOK_PORTS: `${rx.port},${untrusted.port},${v6.port}`,
    SHEETD_WEBHOOK_DENY_NETWORKS: '169.254.0.0/16,fe80::/10,::1/128',
    SHEETD_WEBHOOK_TIMEOUT_MS: '500',
    SHEETD_WEBHOOK_MAX_RESPONSE_BYTES: '4096',
  });
  api = client(t.base, t.adminToken);
});
after(async () => {
  await closeAll(() => t?.close(), () => rx?.close(), () => untrusted?.close(), () => v6?.close());
});

async function enableWith(url: string): Promise<{ status: string; error: string }> {
  const s = await makeSheet(api, 'limits', [{ title: 'Name', type: 'TEXT_NUMBER', primary: true }]);
  const h = (await api.post('/webhooks', { name: 'l', callbackUrl: url, scope: 'sheet', scopeObjectId: s.id, events: ['*.*'], version: 1 })).body.result;
  assert.ok(h, 'created');
  const r = await api.put(`/webhooks/${h.id}`, { enabled: true });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const log = (await api.get(`/sheetd/webhooks/${h.id}/deliveries`)).body.data;
  return { status: r.body.result.status, error: String(log[0]?.attempts[0]?.error ?? '') };
}

test('the trusted CA verifies; a subscriber whose CA is not trusted fails the TLS handshake', async () => {
  assert.equal((await enableWith(rx.url)).status, 'ENABLED');
  const bad = await enableWith(untrusted.url);
  assert.equal(bad.status, 'DISABLED_VERIFICATION_FAILED');
  assert.match(bad.error, /certificate/i);
  assert.equal(untrusted.requests.length, 0);
});

test('a denied network is never connected to', async () => {
  const r = await enableWith(v6.url);
  assert.equal(r.status, 'DISABLED_VERIFICATION_FAILED');
  assert.match(r.error, /network/);
  assert.equal(v6.requests.length, 0);
});

test('a subscriber slower than the timeout fails', async () => {
  rx.verify = 'slow';
  const started = Date.now();
  const r = await enableWith(rx.url);
  rx.verify = 'header';
  assert.equal(r.status, 'DISABLED_VERIFICATION_FAILED');
  assert.match(r.error, /within 500 ms/);
  assert.ok(Date.now() - started < 4000);
});

test('a response larger than the cap fails', async () => {
  rx.verify = 'big';
  const r = await enableWith(rx.url);
  rx.verify = 'header';
  assert.equal(r.status, 'DISABLED_VERIFICATION_FAILED');
  assert.match(r.error, /larger than 4096 bytes/);
});
