import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startSuiteServer, type TestServer } from '../helpers/server.ts';
import { CHROMIUM, launchChromium } from '../helpers/chromium.ts';
import { client, type Client } from '../helpers/http.ts';
import { makeSheet, makeUser } from '../helpers/sheets.ts';
import { addTaskPointsRows } from '../helpers/sights.ts';
import { cellAt, eventually, givePassword, gridHeaders, gridRows, screenshot, settled, signInPage } from '../helpers/webapp.ts';

/**
 * The report page in Chromium: a report over two sheets (the person's own, and one shared to
 * them to view only) opens as a grid of its rows, read through the grid's ARIA roles. An edit
 * of a row of the person's sheet goes to that sheet (read back through the API); a row of the
 * view-only sheet is not edited. One browser for the file.
 */
const skip = CHROMIUM ? false : 'no chromium on this machine';
let t: TestServer;
let api: Client;
let browser: Browser;
let page: Page;
let mine: Awaited<ReturnType<typeof makeSheet>>;
let theirs: Awaited<ReturnType<typeof makeSheet>>;
let reportId: number;

const COLUMNS = [{ title: 'Task', type: 'TEXT_NUMBER', primary: true }, { title: 'Points', type: 'TEXT_NUMBER' }];

before(async () => {
  if (!CHROMIUM) return;
  t = await startSuiteServer();
  api = client(t.base, t.adminToken);
  const bob = await makeUser(t, api, 'bob@example.com');
  const bobApi = client(t.base, bob.token);
  mine = await makeSheet(api, 'Plan A', COLUMNS);
  await addTaskPointsRows(api, mine, [['Alpha', 3], ['Beta', 5]]);
  theirs = await makeSheet(bobApi, 'Plan B', COLUMNS);
  await addTaskPointsRows(bobApi, theirs, [['Gamma', 8]]);
  assert.equal((await bobApi.post(`/sheets/${theirs.id}/shares`, { email: 'admin@example.com', accessLevel: 'VIEWER' })).status, 200);
  const rep = await api.post('/sheetd/reports', { name: 'All plans', scope: { sheets: [{ id: mine.id }, { id: theirs.id }] }, columns: [{ sheetNameColumn: true }, { title: 'Task', primary: true }, { title: 'Points', type: 'TEXT_NUMBER' }] });
  assert.equal(rep.status, 200, rep.text);
  reportId = rep.body.result.id;
  await givePassword(t, 'admin@example.com');
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1200, height: 700 } })).newPage();
  await signInPage(page, t, 'admin@example.com');
});

after(async () => {
  await browser?.close();
  await t?.close();
});

async function points(sheetId: number, pointsCol: number): Promise<unknown[]> {
  const s = await api.get(`/sheets/${sheetId}`);
  assert.equal(s.status, 200, s.text);
  return (s.body.rows as Array<{ cells: Array<{ columnId: number; value?: unknown }> }>).map((r) => r.cells.find((c) => c.columnId === pointsCol)?.value);
}

test('a report opens as a grid of its sources\' rows; an edit goes to the source sheet, a view-only sheet\'s row is left alone', { skip }, async () => {
  await page.goto(`${t.url}/reports/${reportId}`);
  await page.locator('body[data-sheet-ready="true"]').waitFor();
  await page.locator('[role="gridcell"]').first().waitFor();
  assert.equal(await page.getByRole('heading', { level: 1 }).innerText(), 'All plans');
  const headers = await gridHeaders(page);
  // the primary column is frozen at the start, as on a sheet
  assert.deepEqual(headers, ['Task', 'Sheet Name', 'Points']);
  const rows = [...(await gridRows(page)).values()].map((r) => r.join(' | '));
  // rows come sheet by sheet (sheets by name), each sheet's rows in order
  assert.deepEqual(rows, ['Alpha | Plan A | 3', 'Beta | Plan A | 5', 'Gamma | Plan B | 8']);

  // an edit of Alpha's points (row 2 of the grid, column 3) lands in Plan A
  await cellAt(page, 2, 4).click();
  await page.locator('[role="row"][aria-rowindex="2"] [role="gridcell"][aria-colindex="4"][aria-selected="true"]').waitFor();
  await page.keyboard.type('13');
  await page.waitForFunction(() => (globalThis as unknown as { document: { querySelector(s: string): { value: string } | null } }).document.querySelector('.sd-editor input')?.value === '13');
  await page.keyboard.press('Enter');
  await page.locator('.sd-editor').waitFor({ state: 'detached' });
  await settled(page);
  await eventually(async () => (await points(mine.id, mine.col.Points!.id)).join(), (v) => v === '13,5', 'Plan A has the new points');
  await cellAt(page, 2, 4).filter({ hasText: /^\s*13\s*$/ }).waitFor();

  // Gamma's sheet is shared to view only: its cells are read-only and typing opens no editor
  await cellAt(page, 4, 4).click();
  await page.locator('[role="row"][aria-rowindex="4"] [role="gridcell"][aria-colindex="4"][aria-selected="true"]').waitFor();
  assert.equal(await cellAt(page, 4, 4).getAttribute('aria-readonly'), 'true');
  await page.keyboard.type('99');
  await page.keyboard.press('Enter');
  assert.equal(await page.locator('.sd-editor').count(), 0, 'no editor on a view-only row');
  await settled(page);
  assert.deepEqual(await points(theirs.id, theirs.col.Points!.id), [8]);
  assert.equal((await cellAt(page, 4, 4).innerText()).trim(), '8');
  await screenshot(page, 'report');
});

test('a report over a sheet shared as EDITOR and one shared as VIEWER: editors only on the first one\'s rows', { skip }, async () => {
  const carolApi = client(t.base, (await makeUser(t, api, 'carol@example.com')).token);
  const editable = await makeSheet(carolApi, 'Shared to edit', COLUMNS);
  await addTaskPointsRows(carolApi, editable, [['Edit me', 1]]);
  const viewOnly = await makeSheet(carolApi, 'Shared to view', COLUMNS);
  await addTaskPointsRows(carolApi, viewOnly, [['Look only', 2]]);
  assert.equal((await carolApi.post(`/sheets/${editable.id}/shares`, { email: 'admin@example.com', accessLevel: 'EDITOR' })).status, 200);
  assert.equal((await carolApi.post(`/sheets/${viewOnly.id}/shares`, { email: 'admin@example.com', accessLevel: 'VIEWER' })).status, 200);
  const rep = await api.post('/sheetd/reports', { name: 'Shared plans', scope: { sheets: [{ id: editable.id }, { id: viewOnly.id }] }, columns: [{ title: 'Task', primary: true }, { title: 'Points', type: 'TEXT_NUMBER' }] });
  assert.equal(rep.status, 200, rep.text);
  await page.goto(`${t.url}/reports/${rep.body.result.id}`);
  await page.locator('body[data-sheet-ready="true"]').waitFor();
  await page.locator('[role="gridcell"]').first().waitFor();
  assert.deepEqual([...(await gridRows(page)).values()].map((r) => r.join(' | ')), ['Edit me | 1', 'Look only | 2']);
  // every cell of the view-only sheet's row is read-only, every cell of the other's is not
  for (const col of [2, 3]) {
    assert.equal(await cellAt(page, 2, col).getAttribute('aria-readonly'), null, `row of the EDITOR sheet, column ${col}`);
    assert.equal(await cellAt(page, 3, col).getAttribute('aria-readonly'), 'true', `row of the VIEWER sheet, column ${col}`);
  }
  const selected = (r: number, c: number) => page.locator(`[role="row"][aria-rowindex="${r}"] [role="gridcell"][aria-colindex="${c}"][aria-selected="true"]`).waitFor();
  // no way into an editor on the view-only row: typing, Enter, F2, a double click
  await cellAt(page, 3, 3).click();
  await selected(3, 3);
  await page.keyboard.type('5');
  await page.keyboard.press('F2');
  await page.keyboard.press('Enter');
  await cellAt(page, 3, 3).dblclick();
  await cellAt(page, 3, 2).click();
  await selected(3, 2);
  await page.keyboard.press('Enter');
  assert.equal(await page.locator('.sd-editor').count(), 0, 'no editor offered');
  // Delete changes nothing there either
  await cellAt(page, 3, 3).click();
  await selected(3, 3);
  await page.keyboard.press('Delete');
  await settled(page);
  assert.deepEqual(await points(viewOnly.id, viewOnly.col.Points!.id), [2]);
  // the EDITOR sheet's row takes an edit, which lands in that sheet
  await cellAt(page, 2, 3).click();
  await selected(2, 3);
  await page.keyboard.press('F2');
  await page.locator('.sd-editor input').waitFor();
  await page.locator('.sd-editor input').fill('21');
  await page.keyboard.press('Enter');
  await page.locator('.sd-editor').waitFor({ state: 'detached' });
  await settled(page);
  await eventually(async () => (await points(editable.id, editable.col.Points!.id)).join(), (v) => v === '21', 'the EDITOR sheet has the new points');
  assert.deepEqual(await points(viewOnly.id, viewOnly.col.Points!.id), [2]);
  assert.equal((await cellAt(page, 3, 3).innerText()).trim(), '2');
});

test('a refusal of a row\'s sheet names the report\'s column by its title, not the sheet\'s id for it', { skip }, async () => {
  const s = await makeSheet(api, 'Staged', [{ title: 'Task', type: 'TEXT_NUMBER', primary: true }, { title: 'Stage', type: 'PICKLIST', options: ['Open', 'Done'], validation: true }]);
  assert.equal((await api.post(`/sheets/${s.id}/rows`, [{ toBottom: true, cells: [{ columnId: s.col.Task!.id, value: 'Only' }, { columnId: s.col.Stage!.id, value: 'Open' }] }])).status, 200);
  const rep = await api.post('/sheetd/reports', { name: 'Stages', scope: { sheets: [{ id: s.id }] }, columns: [{ title: 'Task', primary: true }, { title: 'Stage', type: 'PICKLIST' }] });
  assert.equal(rep.status, 200, rep.text);
  await page.goto(`${t.url}/reports/${rep.body.result.id}`);
  await page.locator('body[data-sheet-ready="true"]').waitFor();
  await page.locator('[role="gridcell"]').first().waitFor();
  assert.deepEqual(await gridHeaders(page), ['Task', 'Stage']);
  await cellAt(page, 2, 3).click();
  await page.locator('[role="row"][aria-rowindex="2"] [role="gridcell"][aria-colindex="3"][aria-selected="true"]').waitFor();
  await page.keyboard.press('Enter');
  const pick = page.locator('.sd-editor input[list]');
  await pick.waitFor();
  await pick.fill('Nope');
  await page.keyboard.press('Enter');
  const alert = page.getByRole('alert');
  await alert.filter({ hasText: /Stage/ }).waitFor();
  const said = (await alert.textContent()) ?? '';
  assert.match(said, /column “Stage”/);
  assert.doesNotMatch(said, new RegExp(String(s.col.Stage!.id)));
  await settled(page);
  const back = await api.get(`/sheets/${s.id}`);
  assert.equal(back.body.rows[0].cells.find((c: { columnId: number }) => c.columnId === s.col.Stage!.id)?.value, 'Open', 'nothing was written');
});
