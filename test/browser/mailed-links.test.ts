import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { startSuiteServer, type TestServer } from '../helpers/server.ts';
import { CHROMIUM, launchChromium, firstMail } from '../helpers/chromium.ts';
import { client, type Client } from '../helpers/http.ts';
import { makeSheet } from '../helpers/sheets.ts';
import { pngBytes } from '../helpers/images.ts';

/**
 * The pages of mailed links in a real browser: the recipient opens the link of the message
 * (read from the outbox, parsed with mailparser) and acts on the page (an update request's
 * cells, an approval, a proof review, whose image must be drawn: the pages'
 * Content-Security-Policy lets it load); the API then reads the result. Skipped when no
 * chromium is found (SHEETD_CHROMIUM names another binary).
 */

let t: TestServer;
let api: Client;
let browser: Browser | undefined;

before(async () => {
  if (!CHROMIUM) return;
  t = await startSuiteServer({ SHEETD_JOB_POLL_MS: '30' });
  api = client(t.base, t.adminToken);
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await t?.close();
});

test('the recipient opens the emailed link, changes a cell and submits', { skip: CHROMIUM ? false : 'no chromium on this machine' }, async () => {
  const s = await makeSheet(api, 'Browser update', [
    { title: 'Task', type: 'TEXT_NUMBER', primary: true },
    { title: 'Hours', type: 'TEXT_NUMBER' },
    { title: 'Status', type: 'PICKLIST', options: ['New', 'Done'] },
  ]);
  const add = await api.post(`/sheets/${s.id}/rows`, [{ toBottom: true, cells: [{ columnId: s.col.Task!.id, value: 'Paint' }, { columnId: s.col.Hours!.id, value: 3 }] }]);
  const rowId = add.body.result[0].id as number;
  const res = await api.post(`/sheets/${s.id}/updaterequests`, { rowIds: [rowId], columnIds: [s.col.Hours!.id, s.col.Status!.id], sendTo: [{ email: 'painter@example.org' }] });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const mail = await firstMail(path.join(t.dataDir, 'outbox'));
  const link = /Update the rows: (\S+)/.exec(mail.text ?? '')?.[1];
  assert.ok(link, mail.text);

  const page = await browser!.newPage();
  await page.goto(link);
  assert.match((await page.textContent('h1')) ?? '', /Browser update/);
  await page.getByLabel('Hours').fill('5');
  await page.getByLabel('Status').selectOption('Done');
  await page.getByRole('button', { name: 'Submit' }).click();
  await page.getByText('your changes were saved').waitFor();

  const row = await api.get(`/sheets/${s.id}/rows/${rowId}`);
  const cell = (id: number) => row.body.cells.find((c: { columnId: number }) => c.columnId === id)?.value;
  assert.equal(cell(s.col.Hours!.id), 5);
  assert.equal(cell(s.col.Status!.id), 'Done');
  const sent = await api.get(`/sheets/${s.id}/sentupdaterequests`);
  assert.equal(sent.body.data[0].status, 'COMPLETE');
  await page.close();
});

test('the approver opens the emailed approval link and approves', { skip: CHROMIUM ? false : 'no chromium on this machine' }, async () => {
  const s = await makeSheet(api, 'Browser approval', [
    { title: 'Task', type: 'TEXT_NUMBER', primary: true },
    { title: 'Approval', type: 'PICKLIST', options: ['Pending', 'Approved', 'Declined'] },
  ]);
  const outbox = path.join(t.dataDir, 'outbox');
  for (const f of fs.existsSync(outbox) ? fs.readdirSync(outbox) : []) fs.rmSync(path.join(outbox, f));
  const rule = await api.post(`/sheetd/sheets/${s.id}/automationrules`, {
    name: 'Approve', trigger: { type: 'ROWS_ADDED' },
    action: { type: 'APPROVAL_REQUEST_ACTION', recipients: [{ email: 'admin@example.com' }], approvalColumnId: s.col.Approval!.id },
  });
  assert.equal(rule.status, 200, JSON.stringify(rule.body));
  const add = await api.post(`/sheets/${s.id}/rows`, [{ toBottom: true, cells: [{ columnId: s.col.Task!.id, value: 'Buy paint' }] }]);
  const rowId = add.body.result[0].id as number;
  const mail = await firstMail(outbox);
  const link = /Approve: (\S+)/.exec(mail.text ?? '')?.[1];
  assert.ok(link, mail.text);

  const page = await browser!.newPage();
  await page.goto(link);
  assert.match((await page.textContent('body')) ?? '', /Buy paint/);
  await page.getByRole('button', { name: 'Approve' }).click();
  await page.locator('#decision').waitFor();
  assert.match((await page.textContent('#decision')) ?? '', /Approved/);
  const row = await api.get(`/sheets/${s.id}/rows/${rowId}`);
  assert.equal(row.body.cells.find((c: { columnId: number }) => c.columnId === s.col.Approval!.id)?.value, 'Approved');
  await page.close();
});

test('the reviewer opens the emailed link, sees the image and approves', { skip: CHROMIUM ? false : 'no chromium on this machine' }, async () => {
  const s = await makeSheet(api, 'Browser proofs', [{ title: 'Task', type: 'TEXT_NUMBER', primary: true }]);
  const add = await api.post(`/sheets/${s.id}/rows`, { toBottom: true, cells: [{ columnId: s.col.Task!.id, value: 'Banner' }] });
  const rowId = add.body.result.id as number;
  const up = await api.call('POST', `/sheets/${s.id}/rows/${rowId}/proofs`, { raw: pngBytes(8, 6, 4), headers: { 'content-type': 'image/png', 'content-disposition': 'attachment; filename="banner.png"' } });
  assert.equal(up.status, 200, JSON.stringify(up.body));
  const proofId = up.body.result.id as number;
  const outbox = path.join(t.dataDir, 'outbox');
  for (const f of fs.existsSync(outbox) ? fs.readdirSync(outbox) : []) fs.rmSync(path.join(outbox, f));
  const req = await api.post(`/sheets/${s.id}/proofs/${proofId}/requests`, { sendTo: [{ email: 'reviewer@example.org' }] });
  assert.equal(req.status, 200, JSON.stringify(req.body));
  const mail = await firstMail(outbox);
  const link = /Review it \(approve or reject\): (\S+)/.exec(mail.text ?? '')?.[1];
  assert.ok(link, mail.text);

  const page = await browser!.newPage();
  await page.goto(link);
  assert.match((await page.textContent('h1')) ?? '', /Banner/);
  const img = page.getByRole('img', { name: 'banner.png' });
  await img.waitFor();
  // drawn: the browser decoded the served PNG (a blocked or broken image has no natural size)
  type Drawn = { complete: boolean; naturalWidth: number; naturalHeight: number };
  let size: number[] = [];
  for (let i = 0; i < 100 && size[0] !== 8; i++) {
    size = await img.evaluate((el) => { const d = el as unknown as Drawn; return d.complete ? [d.naturalWidth, d.naturalHeight] : []; });
    if (size[0] !== 8) await new Promise((r) => setTimeout(r, 50));
  }
  assert.deepEqual(size, [8, 6]);
  await page.getByRole('button', { name: 'Approve' }).click();
  await page.getByText('You approved this proof').waitFor();
  // the decision made, its button is off; the other still changes it
  assert.equal(await page.getByRole('button', { name: 'Approve' }).isDisabled(), true);
  assert.equal(await page.getByRole('button', { name: 'Request changes' }).isDisabled(), false);

  const actions = await api.get(`/sheets/${s.id}/proofs/${proofId}/requestactions`);
  assert.deepEqual(actions.body.data.map((a: { user: { email: string }; actionStatus: string }) => [a.user.email, a.actionStatus]), [['reviewer@example.org', 'APPROVED']]);
  await page.close();
});
