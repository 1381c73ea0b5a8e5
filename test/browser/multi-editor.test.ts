import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startSuiteServer, type TestServer } from '../helpers/server.ts';
import { CHROMIUM, launchChromium } from '../helpers/chromium.ts';
import { client, type Client } from '../helpers/http.ts';
import { makeSheet } from '../helpers/sheets.ts';
import { cellAt, eventually, givePassword, openSheet, screenshot, settled, signInPage } from '../helpers/webapp.ts';

/**
 * The multi-select editor (MULTI_PICKLIST's check boxes) as a person meets it: opened on a cell
 * at the bottom-right corner of the grid it is drawn inside the window (its OK button can be
 * clicked); with the keyboard alone its options are checked (Tab, Shift+Tab, the arrows, Space)
 * and saved with Enter, or left with Escape (nothing saved, the focus back on the cell). Every
 * result is read back through the API.
 */
const skip = CHROMIUM ? false : 'no chromium on this machine';
const OPTIONS = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta', 'iota', 'kappa', 'lambda', 'mu', 'nu', 'xi', 'omicron', 'pi'];
const WIDTH = 1100;
const HEIGHT = 640;
let t: TestServer;
let api: Client;
let browser: Browser;
let page: Page;
let sheet: Awaited<ReturnType<typeof makeSheet>>;
let rowIds: number[];

before(async () => {
  if (!CHROMIUM) return;
  t = await startSuiteServer();
  api = client(t.base, t.adminToken);
  await givePassword(t, 'admin@example.com');
  // more columns and rows than the window shows: the last column and row are at the grid's edges
  const columns: Array<Record<string, unknown>> = [{ title: 'Task', type: 'TEXT_NUMBER', primary: true }];
  for (let i = 1; i <= 7; i++) columns.push({ title: `Note ${i}`, type: 'TEXT_NUMBER' });
  columns.push({ title: 'Tags', type: 'MULTI_PICKLIST', options: OPTIONS });
  sheet = await makeSheet(api, 'Tagged tasks', columns);
  const rows = Array.from({ length: 40 }, (_, i) => ({ toBottom: true, cells: [{ columnId: sheet.col.Task!.id, value: `task ${i + 1}` }] }));
  rows[0]!.cells.push({ columnId: sheet.col.Tags!.id, objectValue: { objectType: 'MULTI_PICKLIST', values: ['beta'] } } as never);
  const add = await api.post(`/sheets/${sheet.id}/rows`, rows);
  assert.equal(add.status, 200, add.text);
  rowIds = (add.body.result as Array<{ id: number }>).map((r) => r.id);
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: WIDTH, height: HEIGHT } })).newPage();
  await signInPage(page, t, 'admin@example.com');
});

after(async () => {
  await browser?.close();
  await t?.close();
});

async function tags(rowId: number): Promise<unknown> {
  const r = await api.get(`/sheets/${sheet.id}/rows/${rowId}?include=objectValue&level=2`);
  assert.equal(r.status, 200, r.text);
  const c = (r.body.cells as Array<{ columnId: number; objectValue?: { values?: unknown } }>).find((x) => x.columnId === sheet.col.Tags!.id);
  return c?.objectValue?.values ?? null;
}

/** What has the keyboard focus: "role|name" (a check box or a field: its label's text). */
async function focused(): Promise<string> {
  return String(await page.evaluate(`(() => {
    const e = document.activeElement;
    if (!e || e === document.body) return 'body|';
    const role = e.getAttribute('role') || (e.tagName === 'INPUT' ? e.type : e.tagName.toLowerCase());
    const label = e.labels && e.labels[0] ? e.labels[0].textContent : '';
    const name = e.getAttribute('aria-label') || label || (e.textContent || '').trim().slice(0, 80);
    return role + '|' + name;
  })()`));
}

async function press(key: string, want: string): Promise<void> {
  await page.keyboard.press(key);
  await focusOn(want);
}

async function focusOn(want: string | RegExp): Promise<void> {
  let f = '';
  for (let i = 0; i < 40; i++) {
    f = await focused();
    if (typeof want === 'string' ? f === want : want.test(f)) return;
    await page.waitForTimeout(25);
  }
  assert.fail(`the focus is on ${f}, not ${want}`);
}

/** The box of an element, in the window's coordinates. */
async function box(sel: ReturnType<Page['locator']>) {
  return sel.evaluate((e) => {
    const r = e.getBoundingClientRect();
    return { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
  });
}

test('the multi-select editor of the bottom-right cell is drawn inside the window: its last option and OK are clicked', { skip }, async () => {
  await openSheet(page, t, sheet.id);
  await cellAt(page, 2, 2).click();
  await page.locator('[role="row"][aria-rowindex="2"] [role="gridcell"][aria-colindex="2"][aria-selected="true"]').waitFor();
  // Ctrl+End: the last row's last column, the grid scrolled to its bottom-right corner
  await page.keyboard.press('Control+End');
  const last = cellAt(page, rowIds.length + 1, 10);
  await page.locator(`[role="row"][aria-rowindex="${rowIds.length + 1}"] [role="gridcell"][aria-colindex="10"][aria-selected="true"]`).waitFor();
  const cell = await box(last);
  assert.ok(cell.bottom > HEIGHT - 80 && cell.right > WIDTH - 120, `the cell is at the window's bottom-right corner: ${JSON.stringify(cell)}`);
  await page.keyboard.press('Enter');
  const ok = page.locator('.sd-editor').getByRole('button', { name: 'OK' });
  await ok.waitFor();
  await page.waitForTimeout(200);
  await screenshot(page, 'multi-editor-bottom-right');
  // the whole editor and its OK button are inside the window
  const editor = await box(page.locator('.sd-editor .sd-multi'));
  const b = await box(ok);
  for (const r of [editor, b]) assert.ok(r.left >= 0 && r.top >= 0 && r.right <= WIDTH && r.bottom <= HEIGHT, `inside the window (${WIDTH}×${HEIGHT}): ${JSON.stringify(r)}`);
  // what is drawn at the button's middle is the button (nothing covers or clips it)
  const hit = await page.evaluate(`document.elementFromPoint(${(b.left + b.right) / 2}, ${(b.top + b.bottom) / 2})?.textContent`);
  assert.equal(hit, 'OK');
  // the last option too (the list scrolls to it)
  await page.getByLabel('pi', { exact: true }).check();
  await page.getByLabel('alpha', { exact: true }).check();
  await page.mouse.click((b.left + b.right) / 2, (b.top + b.bottom) / 2);
  await page.locator('.sd-editor').waitFor({ state: 'detached' });
  await settled(page);
  assert.deepEqual(await eventually(() => tags(rowIds.at(-1)!), (v) => Array.isArray(v), 'saved'), ['alpha', 'pi']);
});

test('the multi-select editor with the keyboard alone: Tab, Shift+Tab and the arrows move, Space checks, Enter saves', { skip }, async () => {
  await openSheet(page, t, sheet.id);
  await cellAt(page, 3, 2).click();
  await page.locator('[role="row"][aria-rowindex="3"] [role="gridcell"][aria-colindex="2"][aria-selected="true"]').waitFor();
  await page.keyboard.press('End');
  await page.locator('[role="row"][aria-rowindex="3"] [role="gridcell"][aria-colindex="10"][aria-selected="true"]').waitFor();
  await page.keyboard.press('Enter');
  await page.locator('.sd-editor .sd-multi').waitFor();
  // the first option has the focus
  await focusOn('checkbox|alpha');
  await page.keyboard.press(' ');
  await press('Tab', 'checkbox|beta');
  await press('Tab', 'checkbox|gamma');
  await press('Shift+Tab', 'checkbox|beta');
  await press('ArrowDown', 'checkbox|gamma');
  await press('ArrowDown', 'checkbox|delta');
  await press('ArrowUp', 'checkbox|gamma');
  await page.keyboard.press(' ');
  // Tab goes on past the options to the buttons, and round to the first option
  for (let i = 0; i < OPTIONS.length - 3; i++) await page.keyboard.press('Tab');
  await press('Tab', 'button|OK');
  await press('Tab', 'button|Cancel');
  await press('Tab', 'checkbox|alpha');
  await press('Shift+Tab', 'button|Cancel');
  await press('Shift+Tab', 'button|OK');
  await press('Shift+Tab', `checkbox|${OPTIONS.at(-1)}`);
  assert.equal(await page.locator('.sd-editor').count(), 1, 'the editor is still open');
  // Enter saves the two checked options
  await page.keyboard.press('Enter');
  await page.locator('.sd-editor').waitFor({ state: 'detached' });
  await settled(page);
  assert.deepEqual(await eventually(() => tags(rowIds[1]!), (v) => Array.isArray(v), 'saved'), ['alpha', 'gamma']);
  // the focus is back in the grid, a row down (as Enter in a text cell goes)
  await page.locator('[role="row"][aria-rowindex="4"] [role="gridcell"][aria-colindex="10"][aria-selected="true"]').waitFor();
  await focusOn(/^gridcell\|/);
});

test('the multi-select editor: Escape leaves it unsaved and gives the focus back to the cell', { skip }, async () => {
  await openSheet(page, t, sheet.id);
  await cellAt(page, 2, 2).click();
  await page.locator('[role="row"][aria-rowindex="2"] [role="gridcell"][aria-colindex="2"][aria-selected="true"]').waitFor();
  await page.keyboard.press('End');
  const selected = page.locator('[role="row"][aria-rowindex="2"] [role="gridcell"][aria-colindex="10"][aria-selected="true"]');
  await selected.waitFor();
  await page.keyboard.press('Enter');
  await page.locator('.sd-editor .sd-multi').waitFor();
  await focusOn('checkbox|alpha');
  await page.keyboard.press(' ');
  await press('Tab', 'checkbox|beta');
  await page.keyboard.press(' ');
  assert.equal(await page.getByLabel('alpha', { exact: true }).isChecked(), true);
  assert.equal(await page.getByLabel('beta', { exact: true }).isChecked(), false);
  await page.keyboard.press('Escape');
  await page.locator('.sd-editor').waitFor({ state: 'detached' });
  // the focus is on the cell the editor was opened on
  let f = '';
  for (let i = 0; i < 40 && !/^gridcell\|/.test(f); i++) {
    await page.waitForTimeout(25);
    f = await focused();
  }
  assert.match(f, /^gridcell\|/);
  assert.equal(await page.evaluate('document.activeElement.dataset.columnId'), String(sheet.col.Tags!.id));
  assert.equal(await page.evaluate('document.activeElement.dataset.rowId'), String(rowIds[0]));
  await settled(page);
  assert.deepEqual(await tags(rowIds[0]!), ['beta']);
  // the arrows go on from there
  await page.keyboard.press('ArrowDown');
  await page.locator('[role="row"][aria-rowindex="3"] [role="gridcell"][aria-colindex="10"][aria-selected="true"]').waitFor();
});
