import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { clusterSkip, startCluster, webhookClusterEnv, type Cluster } from '../helpers/cluster.ts';
import { client, type Client } from '../helpers/http.ts';
import { makeSheet } from '../helpers/sheets.ts';
import { startReceiver, type Receiver } from '../helpers/webhookReceiver.ts';
import { closeAll } from '../helpers/setup.ts';

/**
 * Three processes, three job workers, one queue (PostgreSQL): each webhook callback and each
 * message goes out once per event, whichever process took the request.
 */
let c: Cluster;
let rx: Receiver;
let smtp: SMTPServer;
const mail: Array<{ to: string[]; subject: string }> = [];

before(async () => {
  if (clusterSkip) return;
  rx = await startReceiver();
  smtp = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    onData(stream, session, cb) {
      simpleParser(stream).then((m) => {
        mail.push({ to: session.envelope.rcptTo.map((r) => r.address), subject: m.subject ?? '' });
        cb();
      }, cb);
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const smtpPort = (smtp.server.address() as AddressInfo).port;
  c = await startCluster(3, { ...webhookClusterEnv(rx), SMTP_URL: `smtp://127.0.0.1:${smtpPort}` });
});
after(async () => {
  await closeAll(() => c?.stop(), () => rx?.close(), () => smtp && new Promise<void>((resolve) => smtp.close(() => resolve())));
});

type Ev = { objectType: string; eventType: string; id?: number };
const createdRows = (hookId: number) => rx.callbacks(hookId).flatMap((x) => (x.json.events as Ev[]) ?? []).filter((e) => e.objectType === 'row' && e.eventType === 'created').map((e) => e.id!);

async function hookOn(api: Client, sheetId: number): Promise<number> {
  const h = (await api.post('/webhooks', { name: 'cluster', callbackUrl: rx.url, scope: 'sheet', scopeObjectId: sheetId, events: ['*.*'], version: 1 })).body.result;
  const r = await api.put(`/webhooks/${h.id}`, { enabled: true });
  assert.equal(r.body.result?.status, 'ENABLED', JSON.stringify(r.body));
  return h.id as number;
}

test('webhook callbacks: each row event once, in commit order, with writes on every process', { skip: clusterSkip }, async () => {
  const api = client(c.base, c.adminToken);
  const s = await makeSheet(api, 'hooked', [{ title: 'Name', type: 'TEXT_NUMBER', primary: true }]);
  const hookId = await hookOn(api, s.id);
  const written: number[] = [];
  for (let i = 0; i < 30; i++) {
    const r = await api.post(`/sheets/${s.id}/rows`, [{ toBottom: true, cells: [{ columnId: s.col.Name!.id, value: `r${i}` }] }]);
    assert.equal(r.status, 200, r.text);
    written.push(r.body.result[0].id);
    if (i % 5 === 0) await new Promise((res) => setTimeout(res, 50));
  }
  await rx.waitFor(() => createdRows(hookId).length >= written.length, 30_000, 'every row');
  await new Promise((res) => setTimeout(res, 1500));
  assert.deepEqual(createdRows(hookId), written, 'each row once, in the order written');
});

test('mail: each message once, whichever process queued it', { skip: clusterSkip }, async () => {
  const api = client(c.base, c.adminToken);
  const s = await makeSheet(api, 'mailed', [{ title: 'Name', type: 'TEXT_NUMBER', primary: true }]);
  const add = await api.post(`/sheets/${s.id}/rows`, [{ toBottom: true, cells: [{ columnId: s.col.Name!.id, value: 'x' }] }]);
  assert.equal(add.status, 200, add.text);
  const rowId = add.body.result[0].id as number;
  const subjects: string[] = [];
  for (let i = 0; i < 12; i++) {
    const subject = `cluster mail ${i}`;
    const r = await api.post(`/sheets/${s.id}/rows/emails`, { sendTo: [{ email: `to${i}@example.org` }], rowIds: [rowId], subject, message: 'hello' });
    assert.equal(r.status, 200, r.text);
    subjects.push(subject);
  }
  const deadline = Date.now() + 30_000;
  while (mail.length < subjects.length && Date.now() < deadline) await new Promise((res) => setTimeout(res, 100));
  await new Promise((res) => setTimeout(res, 1500));
  assert.deepEqual(mail.map((m) => m.subject).sort(), [...subjects].sort(), 'each message once');
  for (const m of mail) assert.deepEqual(m.to, [`to${m.subject.split(' ').pop()}@example.org`]);
});
