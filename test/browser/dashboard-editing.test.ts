import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startSuiteServer, type TestServer } from '../helpers/server.ts';
import { CHROMIUM, launchChromium } from '../helpers/chromium.ts';
import { client, type Client } from '../helpers/http.ts';
import { makeSheet } from '../helpers/sheets.ts';
import { dashboardWidgets } from '../helpers/sights.ts';
import { drawnPixels, givePassword, screenshot, signInPage } from '../helpers/webapp.ts';

/**
 * Making and editing a dashboard in Chromium, by keyboard where a person would type: New
 * dashboard on the home page, then on its page Edit dashboard, Add widget (a title, a chart of a
 * sheet, a metric of a cell), Save; the widgets are read back with Get Dashboard and the chart is
 * drawn. Then a widget is moved and another removed, and Get Dashboard shows that. Skipped when
 * no chromium is found.
 */
let t: TestServer;
let api: Client;
let browser: Browser | undefined;
let sheetId: number;
let regionCol: number;
let salesCol: number;
let northRow: number;

before(async () => {
  if (!CHROMIUM) return;
  t = await startSuiteServer();
  api = client(t.base, t.adminToken);
  await givePassword(t, 'admin@example.com');
  const s = await makeSheet(api, 'Sales', [
    { title: 'Region', type: 'TEXT_NUMBER', primary: true },
    { title: 'Sales', type: 'TEXT_NUMBER' },
    { title: 'Note', type: 'TEXT_NUMBER' },
  ]);
  sheetId = s.id;
  regionCol = s.col.Region!.id;
  salesCol = s.col.Sales!.id;
  const rows = await api.post(`/sheets/${s.id}/rows`, [['North', 120], ['South', 80], ['East', 45]].map(([r, v]) => ({ toBottom: true, cells: [{ columnId: regionCol, value: r }, { columnId: salesCol, value: v }] })));
  assert.equal(rows.status, 200, rows.text);
  northRow = rows.body.result[0].id as number;
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await t?.close();
});


interface WidgetOut { id: number; type: string; title?: string; yPosition: number; xPosition: number; width: number; height: number; contents: Record<string, unknown> }

const widgetsOf = (id: number) => dashboardWidgets<WidgetOut>(api, id);

/** Opens Add widget and chooses the kind (by keyboard: the select, then Enter). */
async function addWidget(page: Page, kind: string): Promise<void> {
  await page.getByRole('button', { name: 'Add widget' }).click();
  const dlg = page.getByRole('dialog', { name: 'Add widget' });
  await dlg.getByLabel('Widget').selectOption({ label: kind });
  await dlg.getByLabel('Widget').press('Enter');
  await dlg.waitFor({ state: 'detached' });
}

test('a dashboard is made on the home page and its widgets added, moved and removed on its page', { skip: CHROMIUM ? false : 'no chromium on this machine' }, async () => {
  const page = await browser!.newPage({ viewport: { width: 1280, height: 900 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await signInPage(page, t, 'admin@example.com', '/');

  // New dashboard: its name, Enter, and its page opens
  await page.getByRole('button', { name: 'New dashboard' }).click();
  const nameBox = page.getByRole('dialog', { name: 'New dashboard' }).getByLabel('Dashboard name');
  await nameBox.fill('Sales board');
  await nameBox.press('Enter');
  await page.waitForURL(/\/dashboards\/\d+$/);
  const sightId = Number(new URL(page.url()).pathname.split('/').pop());
  await page.getByRole('heading', { name: 'Sales board', level: 1 }).waitFor();
  assert.deepEqual(await widgetsOf(sightId), [], 'a new dashboard has no widgets');
  const list = await api.get('/sights');
  assert.ok((list.body.data as Array<{ id: number; name: string }>).some((s) => s.id === sightId && s.name === 'Sales board'), 'the dashboard is listed');

  await page.getByRole('button', { name: 'Edit dashboard' }).click();

  // a title
  await addWidget(page, 'Title or text');
  const textDlg = page.getByRole('dialog', { name: 'Add a title or text' });
  await textDlg.getByLabel('Kind').selectOption({ label: 'Title' });
  await textDlg.getByLabel('Text').fill('Quarterly <sales>');
  await textDlg.getByLabel('Text').press('Enter');
  await textDlg.waitFor({ state: 'detached' });

  // a chart: the sheet, then its columns and type
  await addWidget(page, 'Chart of a sheet');
  const sheetDlg = page.getByRole('dialog', { name: 'Add a chart: its sheet' });
  await sheetDlg.getByLabel('Sheet').selectOption({ label: 'Sales' });
  await sheetDlg.getByLabel('Sheet').press('Enter');
  const chartDlg = page.getByRole('dialog', { name: 'Add a chart of Sales' });
  await chartDlg.getByLabel('Chart title').fill('Sales by region');
  await chartDlg.getByLabel('Label column (names the categories)').selectOption({ label: 'Region' });
  // no number column: the dialog says so and stays
  await chartDlg.getByRole('button', { name: 'Add' }).click();
  assert.match(await chartDlg.getByRole('alert').innerText(), /at least one number column/);
  await chartDlg.getByRole('checkbox', { name: 'Sales' }).check();
  await chartDlg.getByLabel('Chart type').selectOption({ label: 'Bar' });
  await screenshot(page, 'dashboard-add-chart');
  await chartDlg.getByLabel('Chart type').press('Enter');
  await chartDlg.waitFor({ state: 'detached' });

  // a metric of North's sales
  await addWidget(page, 'Metric (a cell of a sheet)');
  const mSheet = page.getByRole('dialog', { name: 'Add a metric: its sheet' });
  await mSheet.getByLabel('Sheet').press('Enter');
  const metricDlg = page.getByRole('dialog', { name: 'Add a metric of Sales' });
  await metricDlg.getByLabel('Widget title').fill('North');
  await metricDlg.getByLabel('Row').selectOption({ label: '1. North' });
  await metricDlg.getByLabel('Column', { exact: true }).selectOption({ label: 'Sales' });
  await metricDlg.getByLabel(/^Label/).fill('North sales');
  await metricDlg.getByLabel(/^Label/).press('Enter');
  await metricDlg.waitFor({ state: 'detached' });

  const editList = page.getByRole('list', { name: 'Widgets, in order' });
  assert.deepEqual(await editList.locator('.widget-edit-name').allInnerTexts(), ['Title: Quarterly <sales>', 'Chart: Sales by region', 'Metric: North']);
  await screenshot(page, 'dashboard-editing');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByRole('button', { name: 'Edit dashboard' }).waitFor();

  let ws = await widgetsOf(sightId);
  assert.deepEqual(ws.map((w) => w.type), ['TITLE', 'CHART', 'METRIC']);
  assert.equal(ws[0]!.contents.htmlContent, '<p>Quarterly &lt;sales&gt;</p>');
  assert.equal(ws[1]!.title, 'Sales by region');
  assert.equal(ws[1]!.contents.sheetId, sheetId);
  assert.deepEqual(ws[1]!.contents.includedColumnIds, [regionCol, salesCol]);
  assert.deepEqual((ws[1]!.contents.series as Array<{ seriesType: string }>).map((s) => s.seriesType), ['BAR']);
  const cellData = ws[2]!.contents.cellData as Array<{ rowId: number; columnId: number; label: string }>;
  assert.deepEqual([cellData[0]!.rowId, cellData[0]!.columnId, cellData[0]!.label], [northRow, salesCol, 'North sales']);
  // stacked top to bottom, inside the grid
  assert.ok(ws[0]!.yPosition < ws[1]!.yPosition && ws[1]!.yPosition < ws[2]!.yPosition);

  // the page draws them
  assert.match(await page.locator('.widget-title').innerText(), /Quarterly <sales>/);
  await page.getByRole('img', { name: /^Bar chart: Sales by region\. 3 Region; series Sales/ }).waitFor();
  assert.ok((await drawnPixels(page)) > 500, 'the chart is drawn');
  assert.match(await page.getByRole('listitem', { name: 'North' }).innerText(), /North sales\s*120/);
  await screenshot(page, 'dashboard-edited');

  // move the metric up (above the chart), remove the title, save
  const ids = ws.map((w) => w.id);
  await page.getByRole('button', { name: 'Edit dashboard' }).click();
  await page.getByRole('button', { name: 'Move up Metric: North' }).click();
  // focus stays on the moved widget's button
  assert.equal(await page.evaluate(() => (globalThis as unknown as { document: { activeElement: { getAttribute(n: string): string | null } } }).document.activeElement.getAttribute('aria-label')), 'Move up Metric: North');
  await page.getByRole('button', { name: 'Remove Title: Quarterly <sales>' }).click();
  assert.deepEqual(await editList.locator('.widget-edit-name').allInnerTexts(), ['Metric: North', 'Chart: Sales by region']);
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByRole('button', { name: 'Edit dashboard' }).waitFor();
  ws = await widgetsOf(sightId);
  assert.deepEqual(ws.map((w) => [w.id, w.type]), [[ids[2], 'METRIC'], [ids[1], 'CHART']], 'the widgets keep their ids, in their new order');
  assert.equal(await page.locator('.widget-title').count(), 0);

  // Cancel (or Escape) leaves without saving
  await page.getByRole('button', { name: 'Edit dashboard' }).click();
  await page.getByRole('button', { name: 'Remove Chart: Sales by region' }).click();
  await page.keyboard.press('Escape');
  await page.getByRole('button', { name: 'Edit dashboard' }).waitFor();
  assert.equal((await widgetsOf(sightId)).length, 2, 'nothing saved');
  assert.deepEqual(errors, []);
  await page.close();
});

test('a server refusal on save is shown in words and the editor stays', { skip: CHROMIUM ? false : 'no chromium on this machine' }, async () => {
  const made = await api.post('/sheetd/sights', { name: 'Doomed board', widgets: [{ type: 'TITLE', xPosition: 0, yPosition: 0, width: 12, height: 1, contents: { htmlContent: '<p>Hello</p>' } }] });
  assert.equal(made.status, 200, made.text);
  const id = made.body.result.id as number;
  const page = await browser!.newPage({ viewport: { width: 1280, height: 800 } });
  await signInPage(page, t, 'admin@example.com', `/dashboards/${id}`);
  await page.getByRole('button', { name: 'Edit dashboard' }).click();
  await page.getByRole('button', { name: 'Remove Title: Hello' }).click();
  // the dashboard goes away meanwhile
  assert.equal((await api.del(`/sights/${id}`)).status, 200);
  await page.getByRole('button', { name: 'Save' }).click();
  const alert = page.locator('.toast-error[role="alert"]');
  await alert.waitFor();
  assert.match(await alert.innerText(), /^The dashboard was not saved: \S/);
  assert.ok(await page.getByRole('button', { name: 'Save' }).isEnabled());
  await page.close();
});

test('saving keeps the widgets written through the API as they were, but for their moves', { skip: CHROMIUM ? false : 'no chromium on this machine' }, async () => {
  const defs = [
    { type: 'TITLE', xPosition: 0, yPosition: 0, width: 12, height: 1, contents: { htmlContent: '<p>Board</p>', backgroundColor: '#E6F5FE' } },
    { type: 'METRIC', title: 'North', xPosition: 0, yPosition: 1, width: 4, height: 2, contents: { sheetId, cellData: [{ rowId: northRow, columnId: salesCol, label: 'North sales' }], hyperlink: { interactionType: 'SMARTSHEET_ITEM', sheetId } } },
    { type: 'SHORTCUTLIST', title: 'Links', xPosition: 4, yPosition: 1, width: 8, height: 2, contents: { shortcutData: [{ label: 'Plan', hyperlink: { sheetId } }, { label: 'Wiki', hyperlink: { url: 'https://example.com/wiki' } }] } },
  ];
  const made = await api.post('/sheetd/sights', { name: 'Kept board', widgets: defs });
  assert.equal(made.status, 200, made.text);
  const id = made.body.result.id as number;
  const before = await widgetsOf(id);
  const page = await browser!.newPage({ viewport: { width: 1280, height: 800 } });
  await signInPage(page, t, 'admin@example.com', `/dashboards/${id}`);
  await page.getByRole('button', { name: 'Edit dashboard' }).click();
  // the title goes below the metric, taking its place on the grid
  await page.getByRole('button', { name: 'Move down Title: Board' }).press('Enter');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByRole('button', { name: 'Edit dashboard' }).waitFor();
  const after = await widgetsOf(id);
  const strip = (w: WidgetOut) => ({ ...w, version: 0, xPosition: 0, yPosition: 0, width: 0, height: 0 });
  assert.deepEqual(after.map((w) => w.id), [before[1]!.id, before[0]!.id, before[2]!.id], 'by position: the metric, then the title (left) and the links');
  assert.deepEqual(after.map(strip), [before[1]!, before[0]!, before[2]!].map(strip), 'contents, titles and links unchanged');
  const slot = (w: WidgetOut) => [w.xPosition, w.yPosition, w.width, w.height];
  assert.deepEqual(slot(after[0]!), slot(before[0]!), 'the metric took the title\'s place');
  assert.deepEqual(slot(after[1]!), slot(before[1]!), 'the title took the metric\'s place');
  assert.deepEqual(slot(after[2]!), slot(before[2]!), 'the links stay');
  await page.close();
});

test('New dashboard in a folder shown on Home makes it in that folder', { skip: CHROMIUM ? false : 'no chromium on this machine' }, async () => {
  const folder = await api.post('/home/folders', { name: 'Boards' });
  assert.equal(folder.status, 200, folder.text);
  const folderId = folder.body.result.id as number;
  const page = await browser!.newPage({ viewport: { width: 1280, height: 800 } });
  await signInPage(page, t, 'admin@example.com', '/');
  await page.getByRole('link', { name: 'Boards' }).click();
  await page.getByRole('navigation', { name: 'Location' }).getByText('Boards').waitFor();
  await page.getByRole('button', { name: 'New dashboard' }).click();
  const nameBox = page.getByRole('dialog', { name: 'New dashboard' }).getByLabel('Dashboard name');
  await nameBox.fill('Folder board');
  await nameBox.press('Enter');
  await page.waitForURL(/\/dashboards\/\d+$/);
  const id = Number(new URL(page.url()).pathname.split('/').pop());
  const inside = (await api.get(`/folders/${folderId}`)).body as { sights?: Array<{ id: number; name: string }> };
  assert.deepEqual((inside.sights ?? []).map((s) => [s.id, s.name]), [[id, 'Folder board']]);
  // Escape cancels the name dialog: nothing made
  await page.goto(`${t.url}/`);
  await page.getByRole('button', { name: 'New dashboard' }).click();
  await page.getByRole('dialog', { name: 'New dashboard' }).getByLabel('Dashboard name').fill('Never');
  await page.keyboard.press('Escape');
  await page.getByRole('dialog', { name: 'New dashboard' }).waitFor({ state: 'detached' });
  const all = (await api.get('/sights')).body.data as Array<{ name: string }>;
  assert.ok(!all.some((s) => s.name === 'Never'));
  await page.close();
});

test('a report widget: Add widget, Report, its table shown on the page and its report in Get Dashboard', { skip: CHROMIUM ? false : 'no chromium on this machine' }, async () => {
  const rep = await api.post('/sheetd/reports', { name: 'Sales report', scope: { sheets: [{ id: sheetId }] }, columns: [{ title: 'Region', primary: true }, { title: 'Sales', type: 'TEXT_NUMBER' }] });
  assert.equal(rep.status, 200, rep.text);
  const reportId = rep.body.result.id as number;
  const made = await api.post('/sheetd/sights', { name: 'Report board', widgets: [] });
  assert.equal(made.status, 200, made.text);
  const id = made.body.result.id as number;
  const page = await browser!.newPage({ viewport: { width: 1280, height: 800 } });
  await signInPage(page, t, 'admin@example.com', `/dashboards/${id}`);
  await page.getByRole('button', { name: 'Edit dashboard' }).click();
  await addWidget(page, 'Report (its rows, as a table)');
  const dlg = page.getByRole('dialog', { name: 'Add a report' });
  await dlg.getByLabel('Report', { exact: true }).selectOption({ label: 'Sales report' });
  await dlg.getByLabel(/^Widget title/).press('Enter');
  await dlg.waitFor({ state: 'detached' });
  assert.deepEqual(await page.getByRole('list', { name: 'Widgets, in order' }).locator('.widget-edit-name').allInnerTexts(), ['Report: Sales report']);
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByRole('button', { name: 'Edit dashboard' }).waitFor();
  const ws = await widgetsOf(id);
  assert.deepEqual(ws.map((w) => [w.type, w.title, w.contents.reportId, w.width]), [['GRIDGANTT', 'Sales report', reportId, 12]]);
  // the page shows the report's rows (the server's table of it)
  const table = page.locator('.widget-body table');
  await table.waitFor();
  const text = await table.innerText();
  for (const region of ['North', 'South', 'East']) assert.ok(text.includes(region), `${region} in ${text}`);
  await screenshot(page, 'dashboard-report-widget');
  await page.close();
});
