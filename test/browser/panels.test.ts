import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startSuiteServer, type TestServer } from '../helpers/server.ts';
import { CHROMIUM, launchChromium } from '../helpers/chromium.ts';
import { client, type Client } from '../helpers/http.ts';
import { makeSheet, makeUser } from '../helpers/sheets.ts';
import { cellAt, givePassword, openSheet, screenshot, signInPage } from '../helpers/webapp.ts';

/**
 * The row panel and the share dialog on the sheet page, in Chromium, driven through their
 * labels and roles; every change is read back through the API. A person comments, replies,
 * edits their comment, attaches a file and a new version of it, and reads the cell's history;
 * then shares the sheet with a second user, who finds it on their Home (the API's and the page)
 * and, as a viewer, is offered no way to attach or comment. One browser for the file.
 */
const skip = CHROMIUM ? false : 'no chromium on this machine';
let t: TestServer;
let api: Client;
let browser: Browser;
let bob: { id: number; token: string };
let sheet: Awaited<ReturnType<typeof makeSheet>>;
let rowId: number;

before(async () => {
  if (!CHROMIUM) return;
  t = await startSuiteServer();
  api = client(t.base, t.adminToken);
  bob = await makeUser(t, api, 'bob@example.com');
  sheet = await makeSheet(api, 'Launch plan', [{ title: 'Task', type: 'TEXT_NUMBER', primary: true }, { title: 'Owner', type: 'TEXT_NUMBER' }]);
  const add = await api.post(`/sheets/${sheet.id}/rows`, [{ toBottom: true, cells: [{ columnId: sheet.col.Task!.id, value: 'Draft' }] }]);
  assert.equal(add.status, 200, add.text);
  rowId = add.body.result[0].id;
  // a second state of the cell, so that it has a history
  assert.equal((await api.put(`/sheets/${sheet.id}/rows`, [{ id: rowId, cells: [{ columnId: sheet.col.Task!.id, value: 'Write the brief' }] }])).status, 200);
  await givePassword(t, 'admin@example.com');
  await givePassword(t, 'bob@example.com');
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await t?.close();
});

async function signedIn(email: string): Promise<{ ctx: BrowserContext; page: Page }> {
  const ctx = await browser.newContext({ viewport: { width: 1400, height: 860 } });
  const page = await ctx.newPage();
  await signInPage(page, t, email);
  return { ctx, page };
}

/** Opens the row panel of the sheet's first row (its Task cell focused). */
async function openPanel(page: Page) {
  await openSheet(page, t, sheet.id);
  await cellAt(page, 2, 2).click();
  await page.locator('[role="row"][aria-rowindex="2"] [role="gridcell"][aria-colindex="2"][aria-selected="true"]').waitFor();
  await page.getByRole('button', { name: 'Row panel' }).click();
  const panel = page.getByRole('complementary', { name: /^Row 1/ });
  await panel.waitFor();
  await panel.locator('.row-panel-section[aria-busy]').waitFor({ state: 'detached' }).catch(() => undefined);
  return panel;
}

async function comments(): Promise<string[][]> {
  const r = await api.get(`/sheets/${sheet.id}/rows/${rowId}/discussions?include=comments`);
  assert.equal(r.status, 200, r.text);
  return (r.body.data as Array<{ comments: Array<{ text: string }> }>).map((d) => d.comments.map((c) => c.text));
}

async function attachments(): Promise<Array<{ id: number; name: string }>> {
  const r = await api.get(`/sheets/${sheet.id}/rows/${rowId}/attachments`);
  assert.equal(r.status, 200, r.text);
  return r.body.data;
}

test('the row panel: comment, reply, edit one\'s comment, attach a file and a new version, the cell\'s history', { skip }, async () => {
  const { ctx, page } = await signedIn('admin@example.com');
  const panel = await openPanel(page);

  // the focused cell's history, newest first
  const history = panel.getByRole('list', { name: 'Cell history, newest first' });
  await history.waitFor();
  const states = await history.getByRole('listitem').allInnerTexts();
  assert.equal(states.length, 2, states.join(' / '));
  assert.match(states[0]!, /^Write the brief/);
  assert.match(states[1]!, /^Draft/);

  // a new conversation, a reply, and an edit of one's own comment
  await panel.getByRole('textbox', { name: 'New comment on this row' }).fill('Who writes the brief?');
  await panel.getByRole('button', { name: 'Comment', exact: true }).click();
  await panel.getByText('Who writes the brief?').waitFor();
  await panel.getByRole('textbox', { name: 'Reply' }).fill('I will, by Friday.');
  await panel.getByRole('button', { name: 'Reply', exact: true }).click();
  await panel.getByText('I will, by Friday.').waitFor();
  assert.deepEqual(await comments(), [['Who writes the brief?', 'I will, by Friday.']]);
  await panel.getByRole('button', { name: 'Edit my comment' }).last().click();
  const edit = panel.getByRole('textbox', { name: 'Edit my comment' });
  await edit.fill('I will, by Thursday.');
  await panel.getByRole('button', { name: 'Save' }).click();
  await panel.getByText('I will, by Thursday.').waitFor();
  assert.deepEqual(await comments(), [['Who writes the brief?', 'I will, by Thursday.']]);

  // a file, then a new version of it
  const chooser = page.waitForEvent('filechooser');
  await panel.getByRole('button', { name: 'Attach a file' }).click();
  await (await chooser).setFiles({ name: 'brief.txt', mimeType: 'text/plain', buffer: Buffer.from('the first brief\n') });
  await panel.getByRole('button', { name: 'Download brief.txt' }).waitFor();
  let files = await attachments();
  assert.deepEqual(files.map((f) => f.name), ['brief.txt']);
  const one = await api.get(`/sheets/${sheet.id}/attachments/${files[0]!.id}`);
  assert.equal(await (await fetch(one.body.url)).text(), 'the first brief\n');

  const chooser2 = page.waitForEvent('filechooser');
  await panel.getByRole('button', { name: 'Attach a new version of brief.txt' }).click();
  await (await chooser2).setFiles({ name: 'brief-v2.txt', mimeType: 'text/plain', buffer: Buffer.from('the second brief\n') });
  await panel.getByRole('button', { name: 'Download brief-v2.txt' }).waitFor();
  files = await attachments();
  assert.deepEqual(files.map((f) => f.name), ['brief-v2.txt']);
  const versions = await api.get(`/sheets/${sheet.id}/attachments/${files[0]!.id}/versions`);
  assert.equal(versions.body.totalCount, 2);
  await panel.getByRole('heading', { name: 'Proof' }).scrollIntoViewIfNeeded();
  await panel.getByText('No proof on this row.').waitFor();
  // the picture shows the panel from its top
  await panel.evaluate((el) => {
    for (let e: { scrollTop: number; parentElement: unknown } | null = el; e; e = e.parentElement as typeof e) e.scrollTop = 0;
  });
  await screenshot(page, 'row-panel');
  await ctx.close();
});

test('the share dialog: share with a user, change and remove a share; the user finds the sheet on their Home and, as a viewer, may not attach or comment', { skip }, async () => {
  const { ctx, page } = await signedIn('admin@example.com');
  await openSheet(page, t, sheet.id);
  await page.getByRole('button', { name: 'Share', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Share “Launch plan”' });
  await dialog.waitFor();
  const list = dialog.getByRole('list', { name: 'People and groups with access' });
  await list.getByText('admin@example.com').waitFor();

  // bob as an editor; an address without an account as a viewer, typed while the list of
  // shares still reloads after bob's (held back here): what is typed meanwhile stays
  await dialog.getByRole('combobox', { name: 'Share with (email address or group)' }).fill('bob@example.com');
  await dialog.getByLabel('Access level', { exact: true }).selectOption('EDITOR');
  let releaseList = () => {};
  const listHeld = new Promise<void>((r) => (releaseList = r));
  await page.route(/\/shares\?/, async (route) => {
    if (route.request().method() === 'GET') await listHeld;
    await route.continue();
  });
  await dialog.getByRole('button', { name: 'Share', exact: true }).click();
  await dialog.getByRole('status').filter({ hasText: 'Shared with bob@example.com.' }).waitFor();
  await dialog.getByRole('combobox', { name: 'Share with (email address or group)' }).fill('carol@example.org');
  releaseList();
  await dialog.getByText('bob@example.com').waitFor();
  await page.unroute(/\/shares\?/);
  await dialog.getByLabel('Access level', { exact: true }).selectOption('VIEWER');
  await dialog.getByRole('button', { name: 'Share', exact: true }).click();
  await dialog.getByRole('status').filter({ hasText: 'Shared with carol@example.org.' }).waitFor();
  const shares = async () => {
    const r = await api.get(`/sheets/${sheet.id}/shares`);
    assert.equal(r.status, 200, r.text);
    return Object.fromEntries((r.body.data as Array<{ email: string; accessLevel: string }>).map((s) => [s.email, s.accessLevel]));
  };
  assert.deepEqual(await shares(), { 'admin@example.com': 'OWNER', 'bob@example.com': 'EDITOR', 'carol@example.org': 'VIEWER' });

  // sharing again with the same person: the catalogue's words, in the dialog
  await dialog.getByRole('combobox', { name: 'Share with (email address or group)' }).fill('bob@example.com');
  await dialog.getByRole('button', { name: 'Share', exact: true }).click();
  const refusal = dialog.getByRole('alert');
  await refusal.waitFor();
  assert.match(await refusal.innerText(), /already/i);
  await screenshot(page, 'share-dialog');

  // bob down to viewer; carol removed
  await dialog.getByRole('combobox', { name: /^Access level of .*bob@example\.com/ }).selectOption('VIEWER');
  await dialog.getByRole('status').filter({ hasText: 'is now Viewer' }).waitFor();
  await dialog.getByRole('button', { name: 'Remove carol@example.org' }).click();
  await dialog.getByRole('status').filter({ hasText: 'carol@example.org no longer has access.' }).waitFor();
  assert.deepEqual(await shares(), { 'admin@example.com': 'OWNER', 'bob@example.com': 'VIEWER' });
  await dialog.getByRole('button', { name: 'Done' }).click();
  await dialog.waitFor({ state: 'detached' });
  await ctx.close();

  // bob: the sheet is on his Home, through the API and on the page
  const home = await client(t.base, bob.token).get('/home');
  assert.equal(home.status, 200, home.text);
  assert.ok((home.body.sheets as Array<{ id: number }>).some((s) => s.id === sheet.id), 'the sheet is in GET /home');
  const asBob = await signedIn('bob@example.com');
  await asBob.page.getByRole('link', { name: 'Launch plan' }).waitFor();
  // as a viewer: the panel reads, and offers no upload, no comment
  const panel = await openPanel(asBob.page);
  await panel.getByText('Who writes the brief?').waitFor();
  await panel.getByRole('button', { name: 'Download brief-v2.txt' }).waitFor();
  assert.equal(await panel.getByRole('button', { name: 'Attach a file' }).count(), 0);
  assert.equal(await panel.getByRole('textbox').count(), 0);
  assert.equal(await panel.getByRole('button', { name: /^Delete/ }).count(), 0);
  await asBob.ctx.close();
});
