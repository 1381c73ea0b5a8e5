import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startSuiteServer, type TestServer } from '../helpers/server.ts';
import { CHROMIUM, launchChromium } from '../helpers/chromium.ts';
import { client, type Client } from '../helpers/http.ts';
import { makeSheet } from '../helpers/sheets.ts';
import { drawnPixels } from '../helpers/webapp.ts';
import { setPassword } from '../../src/services/identity/sessions.ts';
import type { EventAuthor } from '../../src/services/log/events.ts';

/**
 * A dashboard with a chart, in Chromium: made through the API (a sheet of sales by region, a
 * dashboard with a title, a metric and a column chart of that sheet), opened on the signed-in
 * dashboard page and on its published page. On both the chart is drawn (its canvas has coloured
 * pixels) and its figures are readable as a table (the chart's text alternative), with the
 * sheet's values. Skipped when no chromium is found.
 */
const PASSWORD = 'a dashboard test password';
let t: TestServer;
let api: Client;
let browser: Browser | undefined;
let sightId: number;
let publishedUrl: string;

before(async () => {
  if (!CHROMIUM) return;
  t = await startSuiteServer();
  api = client(t.base, t.adminToken);
  const author: EventAuthor = { orgId: t.server.bootstrap.orgId, userId: null, requestUserId: null, accessTokenName: null, source: 'TEST' };
  await setPassword(t.server.store, author, 'admin@example.com', PASSWORD);
  const s = await makeSheet(api, 'Sales', [
    { title: 'Region', type: 'TEXT_NUMBER', primary: true },
    { title: 'Sales', type: 'TEXT_NUMBER' },
    { title: 'Note', type: 'TEXT_NUMBER' },
  ]);
  const region = s.col.Region!.id;
  const sales = s.col.Sales!.id;
  const rows = await api.post(`/sheets/${s.id}/rows`, [['North', 120], ['South', 80], ['East', 45]].map(([r, v]) => ({ toBottom: true, cells: [{ columnId: region, value: r }, { columnId: sales, value: v }] })));
  assert.equal(rows.status, 200, rows.text);
  const firstRow = rows.body.result[0].id as number;
  const made = await api.post('/sheetd/sights', {
    name: 'Sales board',
    columnCount: 12,
    widgets: [
      { type: 'TITLE', xPosition: 0, yPosition: 0, width: 12, height: 1, contents: { htmlContent: '<p>Quarterly sales</p>' } },
      { type: 'METRIC', title: 'North', xPosition: 0, yPosition: 1, width: 4, height: 2, contents: { sheetId: s.id, cellData: [{ rowId: firstRow, columnId: sales, label: 'North sales' }] } },
      {
        type: 'CHART', title: 'Sales by region', xPosition: 4, yPosition: 1, width: 8, height: 5,
        contents: { sheetId: s.id, selectionRanges: [{ sourceColumnId1: region, sourceColumnId2: sales }], series: [{ seriesType: 'COLUMN', title: 'Sales' }], legend: { location: 'BOTTOM' }, axes: [{ location: 'LEFT', title: 'Units' }] },
      },
    ],
  });
  assert.equal(made.status, 200, made.text);
  sightId = made.body.result.id;
  const pub = await api.put(`/sights/${sightId}/publish`, { readOnlyFullEnabled: true });
  assert.equal(pub.status, 200, pub.text);
  publishedUrl = pub.body.result.readOnlyFullUrl;
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await t?.close();
});

/** What the tests read of an element in the page (the test's TypeScript has no DOM types). */
interface ElementLike { textContent: string | null; querySelectorAll(sel: string): ArrayLike<ElementLike> }

/** The chart's text alternative: the table's rows as text, header first. */
async function chartTableRows(page: Page): Promise<string[][]> {
  const table = page.getByRole('table', { name: 'Data of the chart Sales by region' });
  await table.waitFor({ state: 'attached' });
  return table.locator('tr').evaluateAll((trs) => trs.map((tr) => Array.from((tr as unknown as ElementLike).querySelectorAll('th, td')).map((c) => (c.textContent ?? '').trim())));
}

async function screenshot(page: Page, name: string): Promise<void> {
  if (process.env.SHEETD_SCREENSHOTS !== '1') return;
  const dir = path.resolve(import.meta.dirname, '../../docs/screenshots');
  fs.mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, `${name}.png`) });
}

const WANT = [['Region', 'Sales'], ['North', '120'], ['South', '80'], ['East', '45']];

test('the signed-in dashboard page shows the widgets and draws the chart from the sheet', { skip: CHROMIUM ? false : 'no chromium on this machine' }, async () => {
  const page = await browser!.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(`${t.url}/login?next=${encodeURIComponent(`/dashboards/${sightId}`)}`);
  await page.getByLabel('Email address').fill('admin@example.com');
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Sales board', level: 1 }).waitFor();
  assert.match(await page.locator('.widget-title').innerText(), /Quarterly sales/);
  const metric = page.getByRole('listitem', { name: 'North' });
  assert.match(await metric.innerText(), /North sales\s*120/);

  const chart = page.getByRole('img', { name: /^Column chart: Sales by region\. 3 Region; series Sales/ });
  await chart.waitFor();
  assert.ok((await drawnPixels(page)) > 500, 'the chart is drawn');
  assert.deepEqual(await chartTableRows(page), WANT);
  // the table shows on request
  await page.getByRole('button', { name: 'Show the data' }).click();
  await page.getByRole('table', { name: 'Data of the chart Sales by region' }).waitFor({ state: 'visible' });
  await page.getByRole('button', { name: 'Hide the data' }).click();
  await screenshot(page, 'dashboard');
  await page.close();
});

test('the published dashboard page draws the chart for a visitor without a session', { skip: CHROMIUM ? false : 'no chromium on this machine' }, async () => {
  const ctx = await browser!.newContext({ viewport: { width: 1100, height: 800 } });
  const page = await ctx.newPage();
  const errors: string[] = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  await page.goto(publishedUrl);
  await page.getByRole('heading', { name: 'Sales board', level: 1 }).waitFor();
  await page.getByRole('img', { name: /^Column chart: Sales by region\./ }).waitFor();
  assert.ok((await drawnPixels(page)) > 500, 'the chart is drawn');
  assert.deepEqual(await chartTableRows(page), WANT);
  assert.deepEqual(errors, [], 'no errors (e.g. the Content-Security-Policy refusing the script)');
  await screenshot(page, 'dashboard-published');
  await ctx.close();
});
