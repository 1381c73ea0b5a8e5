import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import { chromium, type Browser } from 'playwright-core';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { client, type Client } from '../helpers/http.ts';
import { makeSheet } from '../helpers/sheets.ts';
import { pngBytes } from '../helpers/images.ts';

/**
 * A proof review in a real browser: the reviewer opens the link of the message (read from the
 * outbox), sees the proof's image drawn in the page (the pages' Content-Security-Policy lets it
 * load) and approves; the API then lists the action as APPROVED. Skipped when no chromium is
 * found (SHEETD_CHROMIUM names another binary).
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

test('the reviewer opens the emailed link, sees the image and approves', { skip: CHROMIUM ? false : 'no chromium on this machine' }, async () => {
  const s = await makeSheet(api, 'Browser proofs', [{ title: 'Task', type: 'TEXT_NUMBER', primary: true }]);
  const add = await api.post(`/sheets/${s.id}/rows`, { toBottom: true, cells: [{ columnId: s.col.Task!.id, value: 'Banner' }] });
  const rowId = add.body.result.id as number;
  const up = await api.call('POST', `/sheets/${s.id}/rows/${rowId}/proofs`, { raw: pngBytes(8, 6, 4), headers: { 'content-type': 'image/png', 'content-disposition': 'attachment; filename="banner.png"' } });
  assert.equal(up.status, 200, JSON.stringify(up.body));
  const proofId = up.body.result.id as number;
  const req = await api.post(`/sheets/${s.id}/proofs/${proofId}/requests`, { sendTo: [{ email: 'reviewer@example.org' }] });
  assert.equal(req.status, 200, JSON.stringify(req.body));
  const mail = await firstMail(path.join(t.dataDir, 'outbox'));
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
