import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import { chromium, type Browser } from 'playwright-core';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { client, type Client } from '../helpers/http.ts';
import { makeSheet } from '../helpers/sheets.ts';

/**
 * An update request in a real browser: the recipient opens the link of the message (read from
 * the outbox, parsed with mailparser), changes a cell on the page and submits; the API then
 * reads the new value. Skipped when no chromium is found (SHEETD_CHROMIUM names another binary).
 */
const CHROMIUM = process.env.SHEETD_CHROMIUM || ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => fs.existsSync(p));

let t: TestServer;
let api: Client;
let browser: Browser | undefined;

before(async () => {
  if (!CHROMIUM) return;
  t = await startTestServer({ SHEETD_JOB_POLL_MS: '30' });
  api = client(t.base, t.adminToken);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
});

after(async () => {
  await browser?.close();
  await t?.close();
});

async function firstMail(dir: string) {
  for (let i = 0; i < 300; i++) {
    const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.eml')) : [];
    if (files.length > 0) return simpleParser(fs.readFileSync(path.join(dir, files[0]!)));
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail('no message in the outbox');
}

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
