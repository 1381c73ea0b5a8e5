import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startSuiteServer, type TestServer } from '../helpers/server.ts';
import { CHROMIUM, launchChromium } from '../helpers/chromium.ts';
import { client, type Client } from '../helpers/http.ts';
import { makeSheet, makeUser } from '../helpers/sheets.ts';
import { eventually, givePassword, settled, signInPage } from '../helpers/webapp.ts';

/**
 * The web app with the keyboard alone: after signing in, no click and no fill. From Home to a
 * sheet, an edit, the row panel and a comment, the share dialog and a share, dialogs closed with
 * Escape, and the toolbar's actions reached by Tab and run with Enter or Space. Each result is
 * read back through the API.
 */
const skip = CHROMIUM ? false : 'no chromium on this machine';
let t: TestServer;
let api: Client;
let browser: Browser;
let page: Page;

before(async () => {
  if (!CHROMIUM) return;
  t = await startSuiteServer();
  api = client(t.base, t.adminToken);
  await makeUser(t, api, 'dana@example.com');
  await givePassword(t, 'admin@example.com');
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1300, height: 800 } })).newPage();
  await signInPage(page, t, 'admin@example.com');
});

after(async () => {
  await browser?.close();
  await t?.close();
});

/** What has the keyboard focus: "role|name" (role: the ARIA role or the tag; name: aria-label, else the text, else the placeholder). */
async function focused(): Promise<string> {
  return String(await page.evaluate(`(() => {
    const e = document.activeElement;
    if (!e || e === document.body) return 'body|';
    const role = e.getAttribute('role') || e.tagName.toLowerCase();
    const name = e.getAttribute('aria-label') || (e.textContent || '').trim().slice(0, 80) || e.getAttribute('placeholder') || e.id || '';
    return role + '|' + name;
  })()`));
}

/** Presses Tab (or Shift+Tab) until the focus is on what `want` matches; fails after `max` presses. */
async function tabTo(want: RegExp, opts: { back?: boolean; max?: number } = {}): Promise<void> {
  const seen: string[] = [];
  for (let i = 0; i < (opts.max ?? 60); i++) {
    await page.keyboard.press(opts.back ? 'Shift+Tab' : 'Tab');
    const f = await focused();
    seen.push(f);
    if (want.test(f)) return;
  }
  assert.fail(`Tab never reached ${want}: ${seen.join(' → ')}`);
}

async function waitFocus(want: RegExp): Promise<void> {
  let f = '';
  for (let i = 0; i < 100; i++) {
    f = await focused();
    if (want.test(f)) return;
    await page.waitForTimeout(50);
  }
  assert.fail(`the focus is on ${f}, not ${want}`);
}

test('keyboard only: Home → a sheet, edit a cell, the row panel and a comment, the share dialog and a share', { skip }, async () => {
  const s = await makeSheet(api, 'Keyboard plan', [{ title: 'Task', type: 'TEXT_NUMBER', primary: true }, { title: 'Notes', type: 'TEXT_NUMBER' }]);
  await api.post(`/sheets/${s.id}/rows`, ['first', 'second'].map((v) => ({ toBottom: true, cells: [{ columnId: s.col.Task!.id, value: v }] })));
  const rowIds = ((await api.get(`/sheets/${s.id}`)).body.rows as Array<{ id: number }>).map((r) => r.id);
  await page.goto(`${t.url}/`);
  await page.locator('body[data-home-ready="true"]').waitFor();
  // Home: Tab to the sheet's link, Enter opens it
  await tabTo(/^a\|Keyboard plan$/);
  await page.keyboard.press('Enter');
  await page.waitForURL(`**/sheets/${s.id}`);
  await page.locator('body[data-sheet-ready="true"]').waitFor();
  // Tab into the grid: its first cell has the focus
  await tabTo(/^gridcell\|/);
  await page.locator('[role="row"][aria-rowindex="2"] [role="gridcell"][aria-colindex="2"][aria-selected="true"]').waitFor();
  // edit Notes of the first row: arrow right, type, Enter
  await page.keyboard.press('ArrowRight');
  await page.locator('[role="row"][aria-rowindex="2"] [role="gridcell"][aria-colindex="3"][aria-selected="true"]').waitFor();
  await page.keyboard.type('typed by keys');
  for (let i = 0; i < 100 && (await page.locator('.sd-editor input').inputValue().catch(() => '')) !== 'typed by keys'; i++) await page.waitForTimeout(50);
  await page.keyboard.press('Enter');
  await page.locator('.sd-editor').waitFor({ state: 'detached' });
  await settled(page);
  await eventually(async () => (await api.get(`/sheets/${s.id}`)).body.rows[0].cells.find((c: { columnId: number }) => c.columnId === s.col.Notes!.id)?.value, (v) => v === 'typed by keys', 'the edit saved');
  // back to the first row; the row panel by its shortcut
  await page.keyboard.press('ArrowUp');
  await page.locator('[role="row"][aria-rowindex="2"] [role="gridcell"][aria-colindex="3"][aria-selected="true"]').waitFor();
  await page.keyboard.press('Control+Shift+R');
  await page.locator('aside.row-panel').waitFor();
  await waitFocus(/^complementary\||^aside\|/);
  // Tab to the new comment's field, type, Tab to Comment, Enter
  await tabTo(/^textarea\|New comment on this row$/);
  await page.keyboard.type('Said with the keyboard');
  await tabTo(/^button\|Comment$/);
  await page.keyboard.press('Enter');
  const threads = await eventually(async () => (await api.get(`/sheets/${s.id}/rows/${rowIds[0]}/discussions?include=comments`)).body.data as Array<{ comments: Array<{ text: string }> }>, (d) => d.length === 1, 'the comment saved');
  assert.equal(threads[0]!.comments[0]!.text, 'Said with the keyboard');
  await page.locator('.row-panel .comment-text', { hasText: 'Said with the keyboard' }).waitFor();
  // Escape closes the panel and gives the focus back to the grid's cell
  await page.keyboard.press('Escape');
  await page.locator('aside.row-panel').waitFor({ state: 'detached' });
  await waitFocus(/^gridcell\|/);
  await page.locator('[role="row"][aria-rowindex="2"] [role="gridcell"][aria-colindex="3"][aria-selected="true"]').waitFor();
  // out of the grid backwards to the Share button; Enter opens the dialog with the focus in its form
  await tabTo(/^button\|Share$/, { back: true });
  await page.keyboard.press('Enter');
  const dlg = page.getByRole('dialog');
  await dlg.waitFor();
  await waitFocus(/^input\|name@example\.com or a group$/);
  await page.keyboard.type('dana@example.com');
  // the level: Tab to its list, choose Viewer with the keys (Editor is preselected, Viewer is first)
  await tabTo(/^select\|Access level$/);
  await page.keyboard.press('Home');
  await tabTo(/^button\|Share$/);
  await page.keyboard.press('Enter');
  await dlg.getByRole('status').filter({ hasText: 'Shared with dana@example.com.' }).waitFor();
  const shares = (await api.get(`/sheets/${s.id}/shares`)).body.data as Array<{ email?: string; accessLevel: string }>;
  assert.deepEqual(shares.filter((x) => x.email === 'dana@example.com').map((x) => x.accessLevel), ['VIEWER']);
  // Escape closes the dialog; the focus is back on Share
  await page.keyboard.press('Escape');
  await dlg.waitFor({ state: 'detached' });
  await waitFocus(/^button\|Share$/);
});

test('keyboard only: the toolbar\'s actions are reached by Tab and run with Enter or Space; the column menu and its dialogs close with Escape', { skip }, async () => {
  const s = await makeSheet(api, 'Toolbar keys', [{ title: 'Task', type: 'TEXT_NUMBER', primary: true }, { title: 'Size', type: 'TEXT_NUMBER' }]);
  await api.post(`/sheets/${s.id}/rows`, ['a', 'b'].map((v) => ({ toBottom: true, cells: [{ columnId: s.col.Task!.id, value: v }] })));
  await page.goto(`${t.url}/sheets/${s.id}`);
  await page.locator('body[data-sheet-ready="true"]').waitFor();
  const names = async () => ((await api.get(`/sheets/${s.id}`)).body.rows as Array<{ cells: Array<{ value?: unknown }> }>).map((r) => String(r.cells[0]?.value ?? ''));
  await tabTo(/^gridcell\|/);
  await page.keyboard.press('ArrowDown');
  await page.locator('[role="row"][aria-rowindex="3"] [role="gridcell"][aria-colindex="2"][aria-selected="true"]').waitFor();
  // Shift+Tab on the first column leaves the grid, back through the edit bar to the toolbar
  await tabTo(/^button\|Insert above$/, { back: true });
  await page.keyboard.press('Enter');
  await eventually(names, (n) => n.join() === 'a,,b', 'a row inserted above b');
  // the new row has the focus: type into it
  await waitFocus(/^gridcell\|/);
  await page.locator('[role="row"][aria-rowindex="3"] [role="gridcell"][aria-colindex="2"][aria-selected="true"]').waitFor();
  await page.keyboard.type('new');
  await page.keyboard.press('Enter');
  await page.locator('.sd-editor').waitFor({ state: 'detached' });
  await eventually(names, (n) => n.join() === 'a,new,b', 'typed into the new row');
  // Move down with Space on the toolbar's button
  await page.keyboard.press('ArrowUp');
  await page.locator('[role="row"][aria-rowindex="3"] [role="gridcell"][aria-colindex="2"][aria-selected="true"]').waitFor();
  await tabTo(/^button\|Move down$/, { back: true });
  await page.keyboard.press(' ');
  await eventually(names, (n) => n.join() === 'a,b,new', 'moved down');
  // the column menu: opened with Enter, arrows move in it, Escape closes it and gives the focus back
  await tabTo(/^button\|Column…$/, { back: true });
  await page.keyboard.press('Enter');
  const dlg = page.getByRole('dialog');
  await dlg.waitFor();
  await waitFocus(/^menuitem\|/);
  await page.keyboard.press('ArrowDown');
  await waitFocus(/^menuitem\|Add column right$/);
  await page.keyboard.press('Escape');
  await dlg.waitFor({ state: 'detached' });
  // the focus is back on the menu's button; a dialog opened from the menu: Rename, typed, Enter
  await waitFocus(/^button\|Column…$/);
  await page.keyboard.press('Enter');
  await dlg.waitFor();
  await tabTo(/^menuitem\|Rename$/);
  await page.keyboard.press('Enter');
  await waitFocus(/^input\|/);
  await page.keyboard.press('Control+a');
  await page.keyboard.type('Name');
  await page.keyboard.press('Enter');
  await eventually(async () => ((await api.get(`/sheets/${s.id}`)).body.columns as Array<{ title: string }>)[0]!.title, (v) => v === 'Name', 'renamed');
  // the filter list and Share reached by Tab too
  await tabTo(/^button\|Share$/, { back: true });
  await page.keyboard.press('Enter');
  await dlg.waitFor();
  await page.keyboard.press('Escape');
  await dlg.waitFor({ state: 'detached' });
  await waitFocus(/^button\|Share$/);
});

test('keyboard only: every stop of Tab on a sheet page, round the whole page and back, is named (no unlabelled control, e.g. the grid\'s own header buttons)', { skip }, async () => {
  const s = await makeSheet(api, 'Tab stops', [{ title: 'Task', type: 'TEXT_NUMBER', primary: true }, { title: 'Size', type: 'TEXT_NUMBER' }, { title: 'When', type: 'DATE' }]);
  await api.post(`/sheets/${s.id}/rows`, ['a', 'b'].map((v) => ({ toBottom: true, cells: [{ columnId: s.col.Task!.id, value: v }] })));
  await page.goto(`${t.url}/sheets/${s.id}`);
  await page.locator('body[data-sheet-ready="true"]').waitFor();
  const stops: string[] = [];
  for (let back = 0; back < 2; back++) {
    for (let i = 0; i < 80; i++) {
      await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
      // where the focus settles (the grid hands it on to its focused cell)
      let f = await focused();
      for (let n = 0; n < 20; n++) {
        await page.waitForTimeout(50);
        const again = await focused();
        if (again === f) break;
        f = again;
      }
      if (f === 'body|') break;
      // the grid: one stop, its focused cell (named by its content, which may be empty)
      if (!f.startsWith('gridcell|')) stops.push(f);
    }
  }
  assert.ok(stops.some((f) => f === 'button|Insert above') && stops.some((f) => f === 'button|Share'), stops.join(' → '));
  const unnamed = stops.filter((f) => f.endsWith('|'));
  assert.deepEqual(unnamed, [], `unnamed stops among ${stops.join(' → ')}`);
});

test('keyboard only: with the row panel open, the arrows go on moving in the grid and the panel follows the row', { skip }, async () => {
  const s = await makeSheet(api, 'Panel follows', [{ title: 'Task', type: 'TEXT_NUMBER', primary: true }, { title: 'Notes', type: 'TEXT_NUMBER' }]);
  await api.post(`/sheets/${s.id}/rows`, ['one', 'two', 'three'].map((v) => ({ toBottom: true, cells: [{ columnId: s.col.Task!.id, value: v }] })));
  await page.goto(`${t.url}/sheets/${s.id}`);
  await page.locator('body[data-sheet-ready="true"]').waitFor();
  await tabTo(/^gridcell\|/);
  await page.locator('[role="row"][aria-rowindex="2"] [role="gridcell"][aria-colindex="2"][aria-selected="true"]').waitFor();
  // the panel opened by its shortcut takes the focus; Shift+Tab goes back to the grid, the panel left open
  await page.keyboard.press('Control+Shift+R');
  const panel = page.locator('aside.row-panel');
  await panel.waitFor();
  await waitFocus(/^complementary\||^aside\|/);
  await tabTo(/^gridcell\|/, { back: true });
  await page.locator('[role="row"][aria-rowindex="2"] [role="gridcell"][aria-colindex="2"][aria-selected="true"]').waitFor();
  const inGrid = () => page.evaluate('!!document.activeElement?.closest("revo-grid")');
  for (const [key, index, label] of [['ArrowDown', 3, 'Row 2: two'], ['ArrowDown', 4, 'Row 3: three'], ['ArrowUp', 3, 'Row 2: two']] as const) {
    await page.keyboard.press(key);
    await page.locator(`[role="row"][aria-rowindex="${index}"] [role="gridcell"][aria-colindex="2"][aria-selected="true"]`).waitFor();
    // the panel shows the new row, read to its end (its sections drawn)
    await page.getByRole('complementary', { name: label }).waitFor();
    await page.locator('aside.row-panel .row-panel-body', { hasText: 'Loading…' }).waitFor({ state: 'detached' });
    await page.waitForTimeout(150);
    assert.equal(await panel.count(), 1);
    assert.equal(await inGrid(), true, `after ${key} the focus stays in the grid (on ${await focused()})`);
    await waitFocus(/^gridcell\|/);
  }
});
