import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startSuiteServer, type TestServer } from '../helpers/server.ts';
import { CHROMIUM, launchChromium } from '../helpers/chromium.ts';
import { client, type Client } from '../helpers/http.ts';
import { makeSheet } from '../helpers/sheets.ts';
import { cellAt, givePassword, gridHeaders, openSheet, settled, signInPage } from '../helpers/webapp.ts';

/**
 * Moving rows and columns in the sheet page as a person does, with the mouse (a row by its grip,
 * a column by its header) and through the column menu; the order is read back through the API.
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
  await givePassword(t, 'admin@example.com');
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1300, height: 750 } })).newPage();
  await signInPage(page, t, 'admin@example.com');
});

after(async () => {
  await browser?.close();
  await t?.close();
});

interface SheetRows { rows: Array<{ id: number; parentId?: number; cells: Array<{ columnId: number; value?: unknown }> }>; columns: Array<{ id: number; title: string; index: number }> }

async function sheet(id: number): Promise<SheetRows> {
  const r = await api.get(`/sheets/${id}`);
  assert.equal(r.status, 200, r.text);
  return r.body as SheetRows;
}

async function eventually(id: number, check: (s: SheetRows) => boolean, what: string): Promise<SheetRows> {
  let s: SheetRows | undefined;
  for (let i = 0; i < 150; i++) {
    s = await sheet(id);
    if (check(s)) return s;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`${what}: ${JSON.stringify(s)}`);
}

/** Presses the mouse on `from`'s centre, moves in steps to `to`'s centre and lets go. */
async function drag(from: { x: number; y: number }, to: { x: number; y: number }): Promise<void> {
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  await page.mouse.move(from.x + (to.x - from.x) / 3, from.y + (to.y - from.y) / 3, { steps: 5 });
  await page.mouse.move(to.x, to.y, { steps: 10 });
  await page.waitForTimeout(50);
  await page.mouse.up();
}

async function centre(locator: ReturnType<Page['locator']>): Promise<{ x: number; y: number }> {
  const b = await locator.boundingBox();
  assert.ok(b, 'the element is on screen');
  return { x: b.x + b.width / 2, y: b.y + b.height / 2 };
}

test('a row dragged by its grip moves there (as a sibling, or as the first child of the row above), saved with Update Rows', { skip }, async () => {
  const s = await makeSheet(api, 'Drag rows', [{ title: 'Task', type: 'TEXT_NUMBER', primary: true }, { title: 'Note', type: 'TEXT_NUMBER' }]);
  const added = await api.post(`/sheets/${s.id}/rows`, ['A', 'B', 'C', 'D'].map((v) => ({ toBottom: true, cells: [{ columnId: s.col.Task!.id, value: v }] })));
  assert.equal(added.status, 200, added.text);
  const idOf = Object.fromEntries((added.body.result as Array<{ id: number; cells: Array<{ value: string }> }>).map((r) => [r.cells[0]!.value, r.id]));
  const child = await api.post(`/sheets/${s.id}/rows`, [{ parentId: idOf.C, cells: [{ columnId: s.col.Task!.id, value: 'C1' }] }]);
  assert.equal(child.status, 200, child.text);
  await openSheet(page, t, s.id);
  const names = (x: SheetRows) => x.rows.map((r) => String(r.cells.find((c) => c.columnId === s.col.Task!.id)?.value ?? ''));
  const grip = (rowIndex: number) => page.locator(`[role="row"][aria-rowindex="${rowIndex}"] [data-drag-row]`);
  // rows: A(2) B(3) C(4) C1(5) D(6); D dropped on A goes right after A
  await drag(await centre(grip(6)), await centre(cellAt(page, 2, 3)));
  let back = await eventually(s.id, (x) => names(x).join() === 'A,D,B,C,C1', 'D moved after A');
  assert.equal(back.rows.find((r) => r.id === idOf.D)!.parentId, undefined, 'still at the top level');
  await settled(page);
  await cellAt(page, 3, 2).filter({ hasText: 'D' }).waitFor();
  // rows: A(2) D(3) B(4) C(5) C1(6); A dropped on C, above C's child, becomes C's first child
  await drag(await centre(grip(2)), await centre(cellAt(page, 5, 3)));
  back = await eventually(s.id, (x) => names(x).join() === 'D,B,C,A,C1', 'A moved under C');
  assert.equal(back.rows.find((r) => r.id === idOf.A)!.parentId, idOf.C);
  await settled(page);
  await page.locator('[role="row"][aria-rowindex="5"][aria-level="2"]').first().waitFor();
  // the grid shows the sheet's order
  for (const [i, name] of ['D', 'B', 'C', 'A', 'C1'].entries()) assert.match(await cellAt(page, i + 2, 2).innerText(), new RegExp(`^[▾▸\\s]*${name}\\s*$`));
});

test('a column dragged by its header moves there, saved with Update Column; the column menu moves it too', { skip }, async () => {
  const s = await makeSheet(api, 'Drag columns', [{ title: 'Main', type: 'TEXT_NUMBER', primary: true }, { title: 'One', type: 'TEXT_NUMBER' }, { title: 'Two', type: 'TEXT_NUMBER' }, { title: 'Three', type: 'TEXT_NUMBER' }]);
  await api.post(`/sheets/${s.id}/rows`, [{ toBottom: true, cells: [{ columnId: s.col.Main!.id, value: 'm' }, { columnId: s.col.One!.id, value: 1 }, { columnId: s.col.Two!.id, value: 2 }, { columnId: s.col.Three!.id, value: 3 }] }]);
  await openSheet(page, t, s.id);
  const titles = async () => (await sheet(s.id)).columns.sort((a, b) => a.index - b.index).map((c) => c.title).join();
  const header = (title: string) => page.locator('[role="columnheader"]', { hasText: title }).first();
  // Three dropped on One: before it
  await drag(await centre(header('Three')), await centre(header('One')));
  await eventually(s.id, (x) => x.columns.sort((a, b) => a.index - b.index).map((c) => c.title).join() === 'Main,Three,One,Two', 'Three moved before One');
  await settled(page);
  await page.waitForFunction(() => [...(globalThis as unknown as { document: { querySelectorAll(s: string): Array<{ textContent: string | null }> } }).document.querySelectorAll('[role="columnheader"]')].map((e) => (e.textContent ?? '').trim()).filter(Boolean).join() === 'Main,Three,One,Two');
  assert.deepEqual(await gridHeaders(page), ['Main', 'Three', 'One', 'Two']);
  // the cells moved with their column
  assert.equal((await cellAt(page, 2, 3).innerText()).trim(), '3');
  // Three dropped on Two (to its right): after it
  await drag(await centre(header('Three')), await centre(header('Two')));
  await eventually(s.id, (x) => x.columns.sort((a, b) => a.index - b.index).map((c) => c.title).join() === 'Main,One,Two,Three', 'Three moved after Two');
  await settled(page);
  // no column menu opened by the drags
  assert.equal(await page.getByRole('dialog').count(), 0);
  // the column menu: One moved right
  await cellAt(page, 2, 3).click();
  await page.locator('[role="row"][aria-rowindex="2"] [aria-colindex="3"][aria-selected="true"]').waitFor();
  await page.getByRole('button', { name: 'Column…' }).click();
  await page.getByRole('dialog').getByRole('menuitem', { name: 'Move right' }).click();
  await eventually(s.id, (x) => x.columns.sort((a, b) => a.index - b.index).map((c) => c.title).join() === 'Main,Two,One,Three', 'One moved right by the menu');
  await settled(page);
  await page.waitForFunction(() => [...(globalThis as unknown as { document: { querySelectorAll(s: string): Array<{ textContent: string | null }> } }).document.querySelectorAll('[role="columnheader"]')].map((e) => (e.textContent ?? '').trim()).filter(Boolean).join() === 'Main,Two,One,Three');
  // and back left
  await cellAt(page, 2, 4).click();
  await page.locator('[role="row"][aria-rowindex="2"] [aria-colindex="4"][aria-selected="true"]').waitFor();
  await page.getByRole('button', { name: 'Column…' }).click();
  await page.getByRole('dialog').getByRole('menuitem', { name: 'Move left' }).click();
  await eventually(s.id, (x) => x.columns.sort((a, b) => a.index - b.index).map((c) => c.title).join() === 'Main,One,Two,Three', 'One moved left by the menu');
  void titles;
});
