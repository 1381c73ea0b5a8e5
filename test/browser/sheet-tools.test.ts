import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startSuiteServer, type TestServer } from '../helpers/server.ts';
import { CHROMIUM, launchChromium } from '../helpers/chromium.ts';
import { client, type Client } from '../helpers/http.ts';
import { makeSheet } from '../helpers/sheets.ts';
import { cellAt, givePassword, gridHeaders, gridRows, openSheet, screenshot, settled, signInPage } from '../helpers/webapp.ts';

/**
 * The sheet page's tools driven as a person does, each result read through the API, the
 * clipboard or the grid: copy of a range, the sheet's saved filters and the ad-hoc filter on a
 * column's values, a column's type and options, saved column widths, a column formula.
 */
const skip = CHROMIUM ? false : 'no chromium on this machine';
let t: TestServer;
let api: Client;
let browser: Browser;
let ctx: BrowserContext;
let page: Page;

before(async () => {
  if (!CHROMIUM) return;
  t = await startSuiteServer();
  api = client(t.base, t.adminToken);
  await givePassword(t, 'admin@example.com');
  browser = await launchChromium();
  ctx = await browser.newContext({ viewport: { width: 1300, height: 750 } });
  await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.url });
  page = await ctx.newPage();
  await signInPage(page, t, 'admin@example.com');
});

after(async () => {
  await browser?.close();
  await t?.close();
});

async function focus(rowIndex: number, colIndex: number): Promise<void> {
  await cellAt(page, rowIndex, colIndex).click();
  await page.locator(`[role="row"][aria-rowindex="${rowIndex}"] [role="gridcell"][aria-colindex="${colIndex}"][aria-selected="true"]`).waitFor();
}

/** The primary column's shown text of every rendered row, top to bottom. */
async function shownNames(): Promise<string[]> {
  return [...(await gridRows(page)).values()].map((r) => r[0]!.replace(/^[▾▸]/, ''));
}

async function waitNames(want: string[]): Promise<void> {
  let got: string[] = [];
  for (let i = 0; i < 100; i++) {
    got = await shownNames();
    if (got.join('|') === want.join('|')) return;
    await page.waitForTimeout(50);
  }
  assert.deepEqual(got, want);
}

test('Ctrl+C copies the selected range as tab-separated text', { skip }, async () => {
  const s = await makeSheet(api, 'Copy', [{ title: 'A', type: 'TEXT_NUMBER', primary: true }, { title: 'B', type: 'TEXT_NUMBER' }, { title: 'C', type: 'TEXT_NUMBER' }]);
  await api.post(`/sheets/${s.id}/rows`, [
    { toBottom: true, cells: [{ columnId: s.col.A!.id, value: 'a1' }, { columnId: s.col.B!.id, value: 'b1' }, { columnId: s.col.C!.id, value: 'c1' }] },
    { toBottom: true, cells: [{ columnId: s.col.A!.id, value: 'a2' }, { columnId: s.col.B!.id, value: 'with\ttab' }, { columnId: s.col.C!.id, value: 7 }] },
    { toBottom: true, cells: [{ columnId: s.col.A!.id, value: 'a3' }, { columnId: s.col.B!.id, value: 'b3' }, { columnId: s.col.C!.id, value: 'c3' }] },
  ]);
  await openSheet(page, t, s.id);
  await page.evaluate('navigator.clipboard.writeText("nothing yet")');
  // B1..C2 (both in the scrolling part of the grid), selected by a click and a shift-click
  await focus(2, 3);
  await cellAt(page, 3, 4).click({ modifiers: ['Shift'] });
  await page.keyboard.press('Control+c');
  let text = '';
  for (let i = 0; i < 50 && !text.includes('c1'); i++) {
    text = String(await page.evaluate('navigator.clipboard.readText()'));
    if (!text.includes('c1')) await page.waitForTimeout(50);
  }
  assert.equal(text, 'b1\tc1\n"with\ttab"\t7');
});

test('the sheet\'s saved filters: choosing one applies it (for the person, kept for the next visit) and shows only its rows; No filter shows them all', { skip }, async () => {
  const s = await makeSheet(api, 'Saved filters', [{ title: 'Task', type: 'TEXT_NUMBER', primary: true }, { title: 'Status', type: 'PICKLIST', options: ['Open', 'Done'] }]);
  await api.post(`/sheets/${s.id}/rows`, [['One', 'Open'], ['Two', 'Done'], ['Three', 'Open'], ['Four', 'Done']].map(([task, status]) => ({ toBottom: true, cells: [{ columnId: s.col.Task!.id, value: task }, { columnId: s.col.Status!.id, value: status }] })));
  const f = await api.post(`/sheetd/sheets/${s.id}/filters`, { name: 'Open ones', filterType: 'SHARED', query: { operator: 'AND', criteria: [{ columnId: s.col.Status!.id, operator: 'EQUAL', values: ['Open'] }] } });
  assert.equal(f.status, 200, f.text);
  const filterId = f.body.result.id as number;
  /** The rows the API shows through the person's applied filter (Get Sheet with include=filters), and whether that filter is applied. */
  const apiView = async () => {
    const r = await api.get(`/sheets/${s.id}?include=filters`);
    assert.equal(r.status, 200, r.text);
    return {
      applied: (r.body.filters as Array<{ id: number; applied: boolean }>).find((x) => x.id === filterId)!.applied,
      shown: (r.body.rows as Array<{ filteredOut?: boolean; cells: Array<{ columnId: number; value?: unknown }> }>).filter((x) => !x.filteredOut).map((x) => String(x.cells.find((c) => c.columnId === s.col.Task!.id)?.value)),
    };
  };
  assert.deepEqual(await apiView(), { applied: false, shown: ['One', 'Two', 'Three', 'Four'] });
  await openSheet(page, t, s.id);
  await waitNames(['One', 'Two', 'Three', 'Four']);
  const select = page.getByRole('combobox', { name: 'Sheet filter' });
  assert.deepEqual(await select.locator('option').allInnerTexts(), ['No filter', 'Open ones']);
  await select.selectOption({ label: 'Open ones' });
  await page.locator('revo-grid[aria-rowcount="3"]').waitFor();
  await settled(page);
  const view = await apiView();
  assert.deepEqual(view, { applied: true, shown: ['One', 'Three'] });
  await waitNames(view.shown);
  // an edit while filtered goes to the row shown
  await focus(3, 2);
  await page.keyboard.type('Three!');
  await page.keyboard.press('Enter');
  await page.locator('.sd-editor').waitFor({ state: 'detached' });
  await settled(page);
  const back = (await api.get(`/sheets/${s.id}`)).body.rows as Array<{ cells: Array<{ columnId: number; value?: unknown }> }>;
  assert.deepEqual(back.map((r) => r.cells.find((c) => c.columnId === s.col.Task!.id)?.value), ['One', 'Two', 'Three!', 'Four']);
  // the next visit opens with the filter applied
  await openSheet(page, t, s.id);
  await waitNames(['One', 'Three!']);
  assert.equal(await select.inputValue(), String(filterId));
  // a row made through the API that the filter shows appears after the page reads the sheet again (a row inserted here)
  await api.post(`/sheets/${s.id}/rows`, [{ toBottom: true, cells: [{ columnId: s.col.Task!.id, value: 'Five' }, { columnId: s.col.Status!.id, value: 'Open' }] }]);
  await focus(2, 2);
  await page.getByRole('button', { name: 'Insert below' }).click();
  await settled(page);
  // Five is Open, so it shows; the inserted row is blank, which the filter hides, but one's own new row stays shown (and focused)
  await waitNames(['One', '', 'Three!', 'Five']);
  await page.locator('[role="row"][aria-rowindex="3"] [aria-colindex="2"][aria-selected="true"]').waitFor();
  await select.selectOption({ label: 'No filter' });
  await page.locator('revo-grid[aria-rowcount="7"]').waitFor();
  await settled(page);
  assert.equal((await apiView()).applied, false);
  await waitNames(['One', '', 'Two', 'Three!', 'Four', 'Five']);
});

test('the ad-hoc filter on a column\'s values hides the rows whose value is unticked, in this page only', { skip }, async () => {
  const s = await makeSheet(api, 'Ad hoc', [{ title: 'Task', type: 'TEXT_NUMBER', primary: true }, { title: 'Owner', type: 'TEXT_NUMBER' }]);
  await api.post(`/sheets/${s.id}/rows`, [['One', 'ann'], ['Two', 'bo'], ['Three', ''], ['Four', 'ann']].map(([task, owner]) => ({ toBottom: true, cells: [{ columnId: s.col.Task!.id, value: task }, ...(owner ? [{ columnId: s.col.Owner!.id, value: owner }] : [])] })));
  await openSheet(page, t, s.id);
  await focus(2, 3);
  await page.getByRole('button', { name: 'Filter by value…' }).click();
  const dlg = page.getByRole('dialog');
  // every distinct value, ticked
  assert.deepEqual(await dlg.locator('label').allInnerTexts(), ['(blank)', 'ann', 'bo']);
  await dlg.getByLabel('ann').uncheck();
  await dlg.getByRole('button', { name: 'Apply filter' }).click();
  await page.locator('revo-grid[aria-rowcount="3"]').waitFor();
  await waitNames(['Two', 'Three']);
  // the sheet is unchanged: the filter is the page's own
  assert.equal(((await api.get(`/sheets/${s.id}`)).body.rows as unknown[]).length, 4);
  // only blanks
  await focus(2, 3);
  await page.getByRole('button', { name: 'Filter by value…' }).click();
  assert.equal(await dlg.getByLabel('ann').isChecked(), false, 'the dialog shows the filter applied');
  await dlg.getByLabel('bo').uncheck();
  await dlg.getByRole('button', { name: 'Apply filter' }).click();
  await page.locator('revo-grid[aria-rowcount="2"]').waitFor();
  await waitNames(['Three']);
  await page.getByRole('button', { name: 'Clear column filter' }).click();
  await page.locator('revo-grid[aria-rowcount="5"]').waitFor();
  await waitNames(['One', 'Two', 'Three', 'Four']);
  assert.equal(await page.getByRole('button', { name: 'Clear column filter' }).isVisible(), false);
});

/** The grid's row count (header row included), as aria-rowcount says. */
async function waitRowCount(want: number): Promise<void> {
  await page.locator(`revo-grid[aria-rowcount="${want}"]`).waitFor({ timeout: 10_000 }).catch(async () => {
    assert.equal(await page.locator('revo-grid').getAttribute('aria-rowcount'), String(want));
  });
}

test('the ad-hoc filter on a column of more values than it lists: the search reaches every value, and unticking one hides only its rows (keyboard only)', { skip }, async () => {
  const s = await makeSheet(api, 'Many values', [{ title: 'Task', type: 'TEXT_NUMBER', primary: true }, { title: 'Number', type: 'TEXT_NUMBER' }]);
  // 650 distinct numbers, 613 in three rows, and two rows without a number: 651 distinct values
  const numbers = [...Array.from({ length: 650 }, (_, i) => i + 1), 613, 613, null, null];
  const rows = numbers.map((n, i) => ({ toBottom: true, cells: [{ columnId: s.col.Task!.id, value: `t${i}` }, ...(n === null ? [] : [{ columnId: s.col.Number!.id, value: n }])] }));
  // Add Rows takes up to 500 rows a request
  for (let i = 0; i < rows.length; i += 400) {
    const add = await api.post(`/sheets/${s.id}/rows`, rows.slice(i, i + 400));
    assert.equal(add.status, 200, JSON.stringify(add.body));
  }
  await openSheet(page, t, s.id);
  await waitRowCount(655);
  await focus(2, 3);
  await page.getByRole('button', { name: 'Filter by value…' }).focus();
  await page.keyboard.press('Enter');
  const dlg = page.getByRole('dialog', { name: 'Filter by Number' });
  const search = dlg.getByRole('searchbox', { name: 'Search the values' });
  assert.ok(await search.evaluate((e) => e === e.ownerDocument.activeElement), 'the search box has the focus');
  // numbers by size, the blank first; the list bounded, the note says so
  const labels = await dlg.locator('.filter-values label').allInnerTexts();
  assert.deepEqual(labels.slice(0, 5), ['(blank)', '1', '2', '3', '4']);
  assert.ok(labels.length < 651 && !labels.includes('613'), `a bounded list (${labels.length} values) without 613`);
  assert.equal(await dlg.getByRole('status').innerText(), `Showing ${labels.length} of 651 values; type to narrow.`);
  await screenshot(page, 'grid-column-filter');
  // the search finds a value beyond the list; Tab past Tick all and Untick all to it, Space unticks it, Enter applies
  await page.keyboard.type('613');
  await dlg.getByText('1 matching value.').waitFor();
  assert.deepEqual(await dlg.locator('.filter-values label').allInnerTexts(), ['613']);
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  assert.ok(await dlg.getByLabel('613', { exact: true }).evaluate((e) => e === e.ownerDocument.activeElement), 'Tab reaches the value');
  await page.keyboard.press('Space');
  assert.equal(await dlg.getByLabel('613', { exact: true }).isChecked(), false);
  await page.keyboard.press('Enter');
  await dlg.waitFor({ state: 'detached' });
  // the three rows of 613 are hidden, every other row (listed or not) shown
  await waitRowCount(652);
  assert.equal(await page.getByRole('button', { name: 'Clear column filter' }).isVisible(), true);
  // Escape cancels: a value unticked and then Escape changes nothing
  await page.getByRole('button', { name: 'Filter by value…' }).focus();
  await page.keyboard.press('Enter');
  await dlg.waitFor();
  assert.match(await dlg.getByRole('status').innerText(), /Unticked \(hidden\): 1\.$/);
  await page.keyboard.type('640');
  await dlg.getByText('1 matching value.').waitFor();
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Space');
  await page.keyboard.press('Escape');
  await dlg.waitFor({ state: 'detached' });
  await page.waitForTimeout(200);
  await waitRowCount(652);
  // the dialog shows the filter applied; unticking the blank (listed) hides the two rows without a number too
  await page.getByRole('button', { name: 'Filter by value…' }).focus();
  await page.keyboard.press('Enter');
  await dlg.waitFor();
  await search.fill('613');
  assert.equal(await dlg.getByLabel('613', { exact: true }).isChecked(), false);
  await search.fill('');
  assert.equal(await dlg.getByLabel('(blank)').isChecked(), true);
  await dlg.getByLabel('(blank)').uncheck();
  await dlg.getByRole('button', { name: 'Apply filter' }).click();
  await waitRowCount(650);
  // Untick all acts on every value that matches the search: 64, 164, ..., 564 and 640..649
  await page.getByRole('button', { name: 'Filter by value…' }).focus();
  await page.keyboard.press('Enter');
  await dlg.waitFor();
  await page.keyboard.type('64');
  await dlg.getByText(/^16 matching values\./).waitFor();
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Enter');
  assert.equal(await dlg.getByRole('status').innerText(), '16 matching values. Unticked (hidden): 18.');
  assert.equal(await dlg.locator('.filter-values input:checked').count(), 0);
  await dlg.getByRole('button', { name: 'Apply filter' }).click();
  await waitRowCount(650 - 16);
  await page.getByRole('button', { name: 'Clear column filter' }).click();
  await waitRowCount(655);
});

test('a column\'s type and options changed through its menu', { skip }, async () => {
  const s = await makeSheet(api, 'Retype', [{ title: 'Task', type: 'TEXT_NUMBER', primary: true }, { title: 'State', type: 'TEXT_NUMBER' }]);
  await api.post(`/sheets/${s.id}/rows`, [{ toBottom: true, cells: [{ columnId: s.col.Task!.id, value: 'x' }, { columnId: s.col.State!.id, value: 'Open' }] }]);
  await openSheet(page, t, s.id);
  await focus(2, 3);
  await page.getByRole('button', { name: 'Column…' }).click();
  await page.getByRole('dialog').getByRole('menuitem', { name: 'Type and options' }).click();
  const dlg = page.getByRole('dialog');
  await dlg.getByLabel('Type').selectOption('PICKLIST');
  await dlg.getByLabel(/Options/).fill('Open, Closed, Waiting');
  await dlg.getByRole('button', { name: 'Save' }).click();
  await settled(page);
  let col = (await api.get(`/sheets/${s.id}/columns/${s.col.State!.id}`)).body as { type: string; options?: string[] };
  for (let i = 0; i < 50 && col.type !== 'PICKLIST'; i++) {
    await page.waitForTimeout(100);
    col = (await api.get(`/sheets/${s.id}/columns/${s.col.State!.id}`)).body;
  }
  assert.equal(col.type, 'PICKLIST');
  assert.deepEqual(col.options, ['Open', 'Closed', 'Waiting']);
  // the header says so, and the cell's editor offers the new options
  await page.locator('[role="columnheader"][title="State (Dropdown)"]').waitFor();
  await focus(2, 3);
  await page.keyboard.press('Enter');
  await page.locator('.sd-editor input[list]').waitFor();
  assert.deepEqual(await page.locator('.sd-editor datalist option').evaluateAll((os) => os.map((o) => o.getAttribute('value'))), ['Open', 'Closed', 'Waiting']);
  await page.keyboard.press('Escape');
  await page.locator('.sd-editor').waitFor({ state: 'detached' });
  // the menu opens on the current type and options; back to text
  await page.getByRole('button', { name: 'Column…' }).click();
  await page.getByRole('dialog').getByRole('menuitem', { name: 'Type and options' }).click();
  assert.equal(await dlg.getByLabel('Type').inputValue(), 'PICKLIST');
  // the types by the names people know, not the API's
  assert.equal(await dlg.getByLabel('Type').locator('option:checked').innerText(), 'Dropdown');
  assert.deepEqual(await dlg.getByLabel('Type').locator('option').allInnerTexts(),
    ['Text/Number', 'Date', 'Dropdown', 'Multi-select dropdown', 'Contact', 'Multiple contacts', 'Checkbox']);
  assert.equal(await dlg.getByLabel(/Options/).inputValue(), 'Open, Closed, Waiting');
  await dlg.getByLabel('Type').selectOption('TEXT_NUMBER');
  await dlg.getByLabel(/Options/).fill('');
  await dlg.getByRole('button', { name: 'Save' }).click();
  await settled(page);
  for (let i = 0; i < 50 && col.type !== 'TEXT_NUMBER'; i++) {
    await page.waitForTimeout(100);
    col = (await api.get(`/sheets/${s.id}/columns/${s.col.State!.id}`)).body;
  }
  assert.equal(col.type, 'TEXT_NUMBER');
  assert.equal(((await api.get(`/sheets/${s.id}`)).body.rows[0].cells as Array<{ columnId: number; value?: unknown }>).find((c) => c.columnId === s.col.State!.id)?.value, 'Open', 'the value kept');
});

test('a column\'s width set by dragging its edge is saved: the API has it and a reload keeps it', { skip }, async () => {
  const s = await makeSheet(api, 'Widths', [{ title: 'Task', type: 'TEXT_NUMBER', primary: true }, { title: 'Wide', type: 'TEXT_NUMBER' }, { title: 'Next', type: 'TEXT_NUMBER' }]);
  await api.post(`/sheets/${s.id}/rows`, [{ toBottom: true, cells: [{ columnId: s.col.Task!.id, value: 'x' }] }]);
  await openSheet(page, t, s.id);
  const header = page.locator(`[role="columnheader"][data-column-id="${s.col.Wide!.id}"]`);
  const before = (await header.boundingBox())!;
  assert.ok(Math.abs(before.width - 150) <= 2, `starts at the default width: ${before.width}`);
  // the header's right edge, dragged 90 px to the right
  const edge = header.locator('.resizable-r');
  const e = (await edge.boundingBox())!;
  await page.mouse.move(e.x + e.width / 2, e.y + e.height / 2);
  await page.mouse.down();
  await page.mouse.move(e.x + e.width / 2 + 45, e.y + e.height / 2, { steps: 5 });
  await page.mouse.move(e.x + e.width / 2 + 90, e.y + e.height / 2, { steps: 5 });
  await page.mouse.up();
  await settled(page);
  let width = 0;
  for (let i = 0; i < 50 && Math.abs(width - 240) > 3; i++) {
    width = ((await api.get(`/sheets/${s.id}/columns/${s.col.Wide!.id}`)).body as { width: number }).width;
    if (Math.abs(width - 240) > 3) await page.waitForTimeout(100);
  }
  assert.ok(Math.abs(width - 240) <= 3, `the API's width: ${width}`);
  // a reload draws the column at its saved width; the other column keeps the default
  await openSheet(page, t, s.id);
  assert.ok(Math.abs((await header.boundingBox())!.width - width) <= 1, 'the saved width drawn');
  assert.ok(Math.abs((await page.locator(`[role="columnheader"][data-column-id="${s.col.Next!.id}"]`).boundingBox())!.width - 150) <= 2);
  // without a mouse: the column menu's Width…
  await focus(2, 4);
  await page.getByRole('button', { name: 'Column…' }).click();
  await page.getByRole('dialog').getByRole('menuitem', { name: 'Width…' }).click();
  assert.equal(await page.getByRole('dialog').getByLabel('Width in pixels').inputValue(), '150');
  await page.getByRole('dialog').getByLabel('Width in pixels').fill('95');
  await page.keyboard.press('Enter');
  // drawn at the new width once the page has the server's answer
  const next = page.locator(`[role="columnheader"][data-column-id="${s.col.Next!.id}"]`);
  for (let i = 0; i < 100 && Math.abs(((await next.boundingBox())?.width ?? 0) - 95) > 1; i++) await page.waitForTimeout(50);
  assert.ok(Math.abs((await next.boundingBox())!.width - 95) <= 1, 'drawn at the width typed');
  assert.equal(((await api.get(`/sheets/${s.id}/columns/${s.col.Next!.id}`)).body as { width: number }).width, 95);
});

test('a column formula is shown as such: in its header, the edit bar and the column menu; its cells take no edit', { skip }, async () => {
  const s = await makeSheet(api, 'Column formula', [{ title: 'Item', type: 'TEXT_NUMBER', primary: true }, { title: 'Qty', type: 'TEXT_NUMBER' }, { title: 'Double', type: 'TEXT_NUMBER', formula: '=[Qty]@row * 2' }]);
  await api.post(`/sheets/${s.id}/rows`, [{ toBottom: true, cells: [{ columnId: s.col.Item!.id, value: 'a' }, { columnId: s.col.Qty!.id, value: 4 }] }]);
  const formula = ((await api.get(`/sheets/${s.id}/columns/${s.col.Double!.id}`)).body as { formula: string }).formula;
  assert.match(formula, /^=\[Qty\]@row \* 2$/);
  await openSheet(page, t, s.id);
  assert.deepEqual(await gridHeaders(page), ['Item', 'Qty', 'Double']);
  // the header: marked, its description names the formula
  const header = page.locator(`[role="columnheader"][data-column-id="${s.col.Double!.id}"]`);
  assert.equal(await header.getAttribute('aria-description'), `column formula ${formula}`);
  assert.ok(await header.locator('.sd-colfx').isVisible(), 'a visible mark in the header');
  // the cell shows the value; the edit bar the column's formula, read-only
  await cellAt(page, 2, 4).filter({ hasText: '8' }).waitFor();
  await focus(2, 4);
  assert.equal(await page.locator('#edit-bar').inputValue(), formula);
  assert.equal(await page.locator('#edit-bar').getAttribute('readonly'), '');
  assert.match((await page.locator('.edit-where').innerText()), /Double/);
  assert.equal(await cellAt(page, 2, 4).getAttribute('aria-readonly'), 'true');
  await page.keyboard.type('5');
  assert.equal(await page.locator('.sd-editor').count(), 0, 'no editor opens');
  // the column menu's title names it
  await page.getByRole('button', { name: 'Column…' }).click();
  await page.getByRole('dialog').getByRole('heading', { name: `Double · Text/Number · column formula ${formula}` }).waitFor();
  await screenshot(page, 'grid-column-menu');
  await page.keyboard.press('Escape');
  await page.getByRole('dialog').waitFor({ state: 'detached' });
  // a change of Qty shows in the formula's column
  await focus(2, 3);
  await page.keyboard.type('10');
  await page.keyboard.press('Enter');
  await page.locator('.sd-editor').waitFor({ state: 'detached' });
  await cellAt(page, 2, 4).filter({ hasText: /^\s*20\s*ƒ\s*$/ }).waitFor();
});

test('an edit redraws what follows from it: a conditional format turning on and off, a check box, a formula in another row', { skip }, async () => {
  const s = await makeSheet(api, 'Redraw', [{ title: 'Name', type: 'TEXT_NUMBER', primary: true }, { title: 'Points', type: 'TEXT_NUMBER' }, { title: 'Done', type: 'CHECKBOX' }]);
  await api.post(`/sheets/${s.id}/rows`, [
    { toBottom: true, cells: [{ columnId: s.col.Name!.id, value: 'one' }, { columnId: s.col.Points!.id, value: 1 }] },
    { toBottom: true, cells: [{ columnId: s.col.Name!.id, formula: '=SUM(Points:Points)' }] },
  ]);
  // Points over 4: italic, text colour 23 (#EA352E)
  const put = await api.put(`/sheetd/sheets/${s.id}/conditionalformats`, { rules: [{ format: ',,,1,,,,,23,,,,,,,,', columnIds: [s.col.Points!.id], query: { criteria: [{ columnId: s.col.Points!.id, operator: 'GREATER_THAN', values: ['4'] }] } }] });
  assert.equal(put.status, 200, put.text);
  await openSheet(page, t, s.id);
  const style = () => cellAt(page, 2, 3).evaluate((e) => {
    const cs = (globalThis as unknown as { getComputedStyle(x: unknown): { fontStyle: string; color: string } }).getComputedStyle(e);
    return `${cs.fontStyle} ${cs.color}`;
  });
  const waitStyle = async (want: string) => {
    let got = '';
    for (let i = 0; i < 100 && (got = await style()) !== want; i++) await page.waitForTimeout(50);
    assert.equal(got, want);
  };
  const waitText = async (r: number, c: number, want: RegExp) => {
    let got = '';
    for (let i = 0; i < 100 && !want.test(got = (await cellAt(page, r, c).innerText()).trim()); i++) await page.waitForTimeout(50);
    assert.match(got, want);
  };
  assert.equal(await style(), 'normal rgb(0, 0, 0)');
  await waitText(3, 2, /^1\s*ƒ?$/);
  // type a number into the rule's cell and save it with Enter: drawn, with the look the rule gives
  // and the formula's row showing the new sum
  const typeAndSave = async (text: string, look: string) => {
    await focus(2, 3);
    await page.keyboard.type(text);
    await page.keyboard.press('Enter');
    await page.locator('.sd-editor').waitFor({ state: 'detached' });
    await settled(page);
    await waitText(2, 3, new RegExp(`^${text}$`));
    await waitStyle(look);
    await waitText(3, 2, new RegExp(`^${text}\\s*ƒ?$`));
  };
  // 9: the rule applies (the answer's look, drawn); 3: it no longer applies
  await typeAndSave('9', 'italic rgb(234, 53, 46)');
  await typeAndSave('3', 'normal rgb(0, 0, 0)');
  // a check box toggled twice with Space: drawn each time
  await focus(2, 4);
  await page.keyboard.press(' ');
  await waitText(2, 4, /^☑/);
  await settled(page);
  await page.keyboard.press(' ');
  await waitText(2, 4, /^☐/);
  await settled(page);
  const back = (await api.get(`/sheets/${s.id}`)).body.rows as Array<{ cells: Array<{ columnId: number; value?: unknown }> }>;
  assert.equal(back[0]!.cells.find((c) => c.columnId === s.col.Points!.id)?.value, 3);
  assert.equal(back[0]!.cells.find((c) => c.columnId === s.col.Done!.id)?.value, false);
});

test('a cell\'s link: drawn as a link opening in a new tab; added, kept through a typed value, removed and undone with the keyboard (Ctrl+K); an address the page may not open drawn as text', { skip }, async () => {
  const s = await makeSheet(api, 'Links', [{ title: 'Task', type: 'TEXT_NUMBER', primary: true }, { title: 'Ref', type: 'TEXT_NUMBER' }]);
  const Ref = s.col.Ref!.id;
  const add = await api.post(`/sheets/${s.id}/rows`, [
    { toBottom: true, cells: [{ columnId: s.col.Task!.id, value: 'one' }, { columnId: Ref, value: 'Example', hyperlink: { url: 'https://example.com/' } }] },
    { toBottom: true, cells: [{ columnId: s.col.Task!.id, value: 'two' }, { columnId: Ref, value: 'Trap', hyperlink: { url: 'javascript:alert(1)' } }] },
    { toBottom: true, cells: [{ columnId: s.col.Task!.id, value: 'three' }, { columnId: Ref, value: 'Plain' }] },
  ]);
  assert.equal(add.status, 200, add.text);
  const refOf = async (i: number) => ((await api.get(`/sheets/${s.id}`)).body.rows[i].cells as Array<{ columnId: number; value?: unknown; hyperlink?: { url?: string } }>).find((c) => c.columnId === Ref)!;
  const until = async (i: number, check: (c: { value?: unknown; hyperlink?: { url?: string } }) => boolean, what: string) => {
    let c = await refOf(i);
    for (let n = 0; n < 100 && !check(c); n++) {
      await page.waitForTimeout(100);
      c = await refOf(i);
    }
    assert.ok(check(c), `${what}: ${JSON.stringify(c)}`);
  };
  await openSheet(page, t, s.id);
  const link = (row: number) => cellAt(page, row, 3).locator('a.sd-link');
  assert.equal(await link(2).getAttribute('href'), 'https://example.com/');
  assert.equal(await link(2).getAttribute('target'), '_blank');
  assert.equal((await link(2).textContent())?.trim(), 'Example');
  assert.equal(await link(3).count(), 0, 'a javascript: address is not drawn as a link');
  assert.match((await cellAt(page, 3, 3).textContent()) ?? '', /Trap/);

  // keyboard alone: Ctrl+K on the plain cell, an address without its scheme, Tab, the text, Enter
  await focus(4, 3);
  await page.keyboard.press('Control+k');
  const dlg = page.getByRole('dialog', { name: 'Add a link' });
  await dlg.waitFor();
  assert.equal(await page.evaluate('document.activeElement?.id'), 'link-url');
  // not an address: said in words, nothing sent
  await page.keyboard.type('not an address');
  await page.keyboard.press('Enter');
  await dlg.getByRole('alert').filter({ hasText: 'Type a web address' }).waitFor();
  await page.keyboard.press('Control+a');
  await page.keyboard.type('example.org/docs');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Control+a');
  await page.keyboard.type('Docs');
  await page.keyboard.press('Enter');
  await until(2, (c) => c.hyperlink?.url === 'https://example.org/docs' && c.value === 'Docs', 'the link added');
  await link(4).filter({ hasText: 'Docs' }).waitFor();
  assert.equal(await page.evaluate('document.activeElement?.closest(\'[role="gridcell"]\')?.getAttribute(\'aria-selected\')'), 'true', 'the focus back on the cell');
  await screenshot(page, 'grid-links');

  // a value typed over a link keeps the link (the server keeps it, and so does the grid)
  await focus(2, 3);
  await page.keyboard.type('Example site');
  await page.keyboard.press('Enter');
  await until(0, (c) => c.value === 'Example site', 'typed over the link');
  assert.equal((await refOf(0)).hyperlink?.url, 'https://example.com/');
  await link(2).filter({ hasText: 'Example site' }).waitFor();

  // the link taken away (the text stays), then undone
  await focus(4, 3);
  await page.keyboard.press('Control+k');
  const edit = page.getByRole('dialog', { name: 'Link' });
  await edit.getByRole('link', { name: 'Open the link' }).waitFor();
  await edit.getByRole('button', { name: 'Remove link' }).focus();
  await page.keyboard.press('Enter');
  await until(2, (c) => c.hyperlink === undefined && c.value === 'Docs', 'the link removed');
  await link(4).waitFor({ state: 'detached' });
  await page.keyboard.press('Control+z');
  await until(2, (c) => c.hyperlink?.url === 'https://example.org/docs' && c.value === 'Docs', 'the removal undone');
  await link(4).waitFor();
});
