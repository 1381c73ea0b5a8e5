import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import type { TestServer } from './server.ts';
import { setPassword } from '../../src/services/identity/sessions.ts';
import type { EventAuthor } from '../../src/services/log/events.ts';

/** Helpers of the web app's browser tests: sign in, read the grid through its ARIA roles, screenshots. */

export const WEB_PASSWORD = 'a web app test password';

export async function givePassword(t: TestServer, email: string): Promise<void> {
  const author: EventAuthor = { orgId: t.server.bootstrap.orgId, userId: null, requestUserId: null, accessTokenName: null, source: 'TEST' };
  await setPassword(t.server.store, author, email, WEB_PASSWORD);
}

/** Signs in on the sign-in page and lands on `next`. */
export async function signInPage(page: Page, t: TestServer, email: string, next = '/'): Promise<void> {
  await page.goto(`${t.url}/login?next=${encodeURIComponent(next)}`);
  await page.getByLabel('Email address').fill(email);
  await page.getByLabel('Password').fill(WEB_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((u) => u.pathname === next.split('?')[0]);
}

/** Opens a sheet page and waits for the grid's first cells (of a sheet without rows, its headers). */
export async function openSheet(page: Page, t: TestServer, sheetId: number, opts: { empty?: boolean } = {}): Promise<void> {
  await page.goto(`${t.url}/sheets/${sheetId}`);
  await page.locator('body[data-sheet-ready="true"]').waitFor({ timeout: 30_000 });
  await page.locator(opts.empty ? '[role="columnheader"]' : '[role="gridcell"]').first().waitFor({ timeout: 30_000 });
}

/**
 * The rendered rows as text, read as a person with a screen reader would: the role=row elements
 * grouped by aria-rowindex (the grid's panes each hold part of a row), cells ordered by
 * aria-colindex. The row number (aria-colindex 1) is left out. Header row: aria-rowindex 1.
 */
export async function gridRows(page: Page): Promise<Map<number, string[]>> {
  const cells = await page.locator('[role="treegrid"] [role="gridcell"], [role="grid"] [role="gridcell"]').evaluateAll((els) =>
    els.map((e) => ({
      row: Number(e.closest('[role="row"]')?.getAttribute('aria-rowindex')),
      col: Number(e.getAttribute('aria-colindex')),
      text: (e.textContent ?? '').replace(/ƒ/g, '').trim(),
    })),
  );
  const rows = new Map<number, Array<{ col: number; text: string }>>();
  for (const c of cells) {
    if (!rows.has(c.row)) rows.set(c.row, []);
    rows.get(c.row)!.push(c);
  }
  const out = new Map<number, string[]>();
  for (const [r, list] of [...rows].sort((a, b) => a[0] - b[0])) {
    const texts: string[] = [];
    for (const c of list) texts[c.col - 2] = c.text;
    out.set(r, [...texts].map((x) => x ?? ''));
  }
  return out;
}

/** The column headers' titles, in aria-colindex order (the row number header left out). */
export async function gridHeaders(page: Page): Promise<string[]> {
  const hs = await page.locator('[role="columnheader"]').evaluateAll((els) => els.map((e) => ({ col: Number(e.getAttribute('aria-colindex')), text: (e.textContent ?? '').trim() })));
  return hs.filter((x) => x.col > 1).sort((a, b) => a.col - b.col).map((x) => x.text);
}

/** The grid cell (its element) of a row (aria-rowindex, 2 for the first data row) and column (aria-colindex, 2 for the first column). */
export function cellAt(page: Page, rowIndex: number, colIndex: number) {
  return page.locator(`[role="row"][aria-rowindex="${rowIndex}"] [role="gridcell"][aria-colindex="${colIndex}"]`);
}

/** Waits until the page has no edit on its way to the server. */
export async function settled(page: Page): Promise<void> {
  await page.waitForFunction(() => (globalThis as unknown as { sheetd?: { page?: { actions: { pending: number } } } }).sheetd?.page?.actions.pending === 0, undefined, { timeout: 30_000 });
}

/** With SHEETD_SCREENSHOTS=1, saves a screenshot to docs/screenshots/<name>.png (the user guide's pictures). */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (process.env.SHEETD_SCREENSHOTS !== '1') return;
  const dir = path.resolve(import.meta.dirname, '../../docs/screenshots');
  fs.mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, `${name}.png`) });
}

export function assertRow(rows: Map<number, string[]>, index: number, want: string[]): void {
  const got = rows.get(index);
  assert.ok(got, `no row ${index} rendered (rows: ${[...rows.keys()].join(', ')})`);
  assert.deepEqual(got.slice(0, want.length), want, `row ${index}`);
}

/** Reads until `ok` holds of what was read (a page's write has landed), every 100 ms for 10 s; fails naming `what` and the last read. */
export async function eventually<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string): Promise<T> {
  let v: T | undefined;
  for (let i = 0; i < 100; i++) {
    v = await read();
    if (ok(v)) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`${what}: ${JSON.stringify(v)}`);
}

/** What the tests read of a canvas in the page (the test's TypeScript has no DOM types). */
interface CanvasLike { width: number; height: number; getContext(kind: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: ArrayLike<number> } } }

/** Coloured (not white, not transparent) pixels on the page's chart canvas, once Chart.js drew it. */
export async function drawnPixels(page: Page): Promise<number> {
  const canvas = page.locator('canvas[role="img"]');
  await canvas.waitFor();
  const handle = await canvas.elementHandle();
  const n = await page.waitForFunction((c) => {
    const el = c as unknown as CanvasLike;
    if (el.width === 0 || el.height === 0) return false;
    const px = el.getContext('2d').getImageData(0, 0, el.width, el.height).data;
    let k = 0;
    for (let i = 0; i < px.length; i += 4) if (px[i + 3]! > 0 && (px[i]! < 240 || px[i + 1]! < 240 || px[i + 2]! < 240)) k++;
    return k > 500 ? k : false;
  }, handle);
  return (await n.jsonValue()) as number;
}
