import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import smartsheet from 'smartsheet';
import { startSuiteServer, type TestServer } from '../helpers/server.ts';
import { client } from '../helpers/http.ts';
import { makeSheet } from '../helpers/sheets.ts';
import { hmac, startReceiver, type Receiver } from '../helpers/webhookReceiver.ts';
import { closeAll } from '../helpers/setup.ts';

// The official JavaScript SDK's webhook methods, unchanged but for the base URL.
let t: TestServer;
let rx: Receiver;
before(async () => {
  rx = await startReceiver();
  t = await startSuiteServer({ SHEETD_WEBHOOK_CA_FILE: rx.caFile, SHEETD_WEBHOOK_PORTS: String(rx.port), SHEETD_WEBHOOK_BATCH_MS: '20', SHEETD_JOB_POLL_MS: '50' });
});
after(async () => {
  await closeAll(() => t?.close(), () => rx?.close());
});

test('create, list, get, enable, reset the secret and delete through the SDK; callbacks follow', async () => {
  const api = client(t.base, t.adminToken);
  const s = await makeSheet(api, 'sdk hooks', [{ title: 'Name', type: 'TEXT_NUMBER', primary: true }]);
  const sdk = smartsheet.createClient({ accessToken: t.adminToken, baseUrl: t.base + '/', logLevel: 'error' });
  const created = await sdk.webhooks.createWebhook({ body: { name: 'sdk', callbackUrl: rx.url, scope: 'sheet' as never, scopeObjectId: s.id, events: ['*.*'], version: 1 } }); // the SDK types scope as its enum WebhookScope
  const id = created.result.id as number;
  assert.equal(created.result.status, 'NEW_NOT_VERIFIED');
  const list = await sdk.webhooks.listWebhooks({});
  assert.ok(list.data.some((h) => h.id === id));
  assert.equal((await sdk.webhooks.getWebhook({ webhookId: id })).name, 'sdk');
  const enabled = await sdk.webhooks.updateWebhook({ webhookId: id, body: { enabled: true } });
  assert.equal(enabled.result.status, 'ENABLED');
  assert.equal(rx.verifications(id).length, 1);
  const reset = await sdk.webhooks.resetSharedSecret({ webhookId: id });
  const secret = reset.result.sharedSecret as string;
  assert.equal(typeof secret, 'string');
  await sdk.sheets.addRows({ sheetId: s.id, body: [{ toBottom: true, cells: [{ columnId: s.col.Name!.id, value: 'via sdk' }] }] });
  await rx.waitFor(() => rx.callbacks(id).length > 0, 15_000, 'a callback');
  const cb = rx.callbacks(id)[0]!;
  assert.equal(cb.headers['smartsheet-hmac-sha256'], hmac(secret, cb.body));
  assert.equal((cb.json.events as Array<{ objectType: string }>)[0]!.objectType, 'row');
  await sdk.webhooks.deleteWebhook({ webhookId: id });
  await assert.rejects(sdk.webhooks.getWebhook({ webhookId: id }), (e: { statusCode?: number; errorCode?: number }) => e.statusCode === 404 && e.errorCode === 1006);
});
