import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startSuiteServer, type TestServer } from '../helpers/server.ts';
import { CHROMIUM, launchChromium } from '../helpers/chromium.ts';
import { client, type Client } from '../helpers/http.ts';
import { makeSheet } from '../helpers/sheets.ts';
import { dashboardWidgets } from '../helpers/sights.ts';
import { pngBytes } from '../helpers/images.ts';
import { givePassword, screenshot, signInPage } from '../helpers/webapp.ts';

/**
 * The dashboard editor's Edit… dialog and its newer Add widget kinds, in Chromium by keyboard:
 * a widget's title, text, metric labels, web address, shortcut links and chart type are changed,
 * a widget is resized (a size leaving the grid is refused in words, covered widgets move down),
 * and web content, shortcuts and an image (its file chosen; the rest by keyboard) are added.
 * What was saved is read back with Get Dashboard, and widgets left alone are as they were.
 * Skipped when no chromium is found.
 */
let t: TestServer;
let api: Client;
let browser: Browser | undefined;
let sheetId: number;
let regionCol: number;
let salesCol: number;
let costCol: number;
let northRow: number;
let southRow: number;

before(async () => {
  if (!CHROMIUM) return;
  t = await startSuiteServer();
  api = client(t.base, t.adminToken);
  await givePassword(t, 'admin@example.com');
  const s = await makeSheet(api, 'Sales', [
    { title: 'Region', type: 'TEXT_NUMBER', primary: true },
    { title: 'Sales', type: 'TEXT_NUMBER' },
    { title: 'Cost', type: 'TEXT_NUMBER' },
  ]);
  sheetId = s.id;
  regionCol = s.col.Region!.id;
  salesCol = s.col.Sales!.id;
  costCol = s.col.Cost!.id;
  const rows = await api.post(`/sheets/${s.id}/rows`, [['North', 120, 70], ['South', 80, 50]].map(([r, v, c]) => ({ toBottom: true, cells: [{ columnId: regionCol, value: r }, { columnId: salesCol, value: v }, { columnId: costCol, value: c }] })));
  assert.equal(rows.status, 200, rows.text);
  northRow = rows.body.result[0].id as number;
  southRow = rows.body.result[1].id as number;
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await t?.close();
});

type Obj = Record<string, unknown>;
interface WidgetOut { id: number; type: string; title?: string; showTitle?: boolean; version: number; yPosition: number; xPosition: number; width: number; height: number; contents: Obj }

const widgetsOf = (id: number) => dashboardWidgets<WidgetOut>(api, id);

async function makeBoard(name: string, widgets: Obj[]): Promise<number> {
  const made = await api.post('/sheetd/sights', { name, widgets });
  assert.equal(made.status, 200, made.text);
  return made.body.result.id as number;
}

/** A widget without what a save changes anyway (its version). */
const unversioned = (w: WidgetOut) => ({ ...w, version: 0 });

async function openEditor(page: Page, id: number): Promise<void> {
  await signInPage(page, t, 'admin@example.com', `/dashboards/${id}`);
  await page.getByRole('button', { name: 'Edit dashboard' }).click();
}

/** Add widget, and the kind whose option `kind` names, chosen by keyboard. */
async function chooseWidget(page: Page, kind: RegExp): Promise<void> {
  await page.getByRole('button', { name: 'Add widget' }).click();
  const d = page.getByRole('dialog', { name: 'Add widget' });
  await d.getByLabel('Widget').selectOption({ label: (await d.getByRole('option', { name: kind }).innerText()).trim() });
  await d.getByLabel('Widget').press('Enter');
  await d.waitFor({ state: 'detached' });
}

async function save(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByRole('button', { name: 'Edit dashboard' }).waitFor();
}

test('Edit… changes a widget\'s title, text, labels, address, links and chart type, and keeps the rest', { skip: CHROMIUM ? false : 'no chromium on this machine' }, async () => {
  const id = await makeBoard('Edited board', [
    { type: 'TITLE', xPosition: 0, yPosition: 0, width: 12, height: 1, contents: { htmlContent: '<p>Board <span style="color: #ff0000">red</span></p>', backgroundColor: '#E6F5FE' } },
    { type: 'RICHTEXT', xPosition: 0, yPosition: 1, width: 12, height: 2, contents: { htmlContent: '<p>First line</p><ul><li>Point one</li><li>Point <span style="font-weight: bold">two</span></li></ul>' } },
    { type: 'METRIC', title: 'North', xPosition: 0, yPosition: 3, width: 4, height: 2, contents: { sheetId, cellData: [{ rowId: northRow, columnId: salesCol, label: 'North sales', valueFormat: ',,,,,,,,,,' }, { rowId: southRow, columnId: salesCol }], hyperlink: { interactionType: 'SMARTSHEET_ITEM', sheetId } } },
    { type: 'WEBCONTENT', xPosition: 4, yPosition: 3, width: 8, height: 2, contents: { url: 'https://example.com/a' } },
    { type: 'SHORTCUTLIST', title: 'Links', xPosition: 0, yPosition: 5, width: 12, height: 2, contents: { shortcutData: [{ label: 'Plan', hyperlink: { sheetId } }, { label: 'Wiki', hyperlink: { url: 'https://example.com/wiki' } }] } },
    { type: 'CHART', title: 'Sales chart', xPosition: 0, yPosition: 7, width: 12, height: 5, contents: { sheetId, includedColumnIds: [regionCol, salesCol], series: [{ seriesType: 'COLUMN', color: '#123456' }], legend: { location: 'RIGHT' } } },
  ]);
  const before = await widgetsOf(id);
  const page = await browser!.newPage({ viewport: { width: 1280, height: 900 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await openEditor(page, id);
  const names = await page.getByRole('list', { name: 'Widgets, in order' }).locator('.widget-edit-name').allInnerTexts();
  assert.deepEqual(names, ['Title: Board red', 'Text: First line Point one Point two', 'Metric: North', 'Web content: https://example.com/a', 'Shortcuts: Links', 'Chart: Sales chart']);

  // the text: shown as lines of plain text, written back as escaped paragraphs
  await page.getByRole('button', { name: 'Edit Text: First line Point one Point two' }).click();
  let dlg = page.getByRole('dialog', { name: 'Edit Text: First line Point one Point two' });
  const text = dlg.getByLabel(/^Text/);
  assert.equal(await text.inputValue(), 'First line\nPoint one\nPoint two');
  await screenshot(page, 'dashboard-widget-edit-text');
  await text.fill('One <b> & more\n\nTwo');
  await text.press('Control+Enter');
  await dlg.waitFor({ state: 'detached' });
  // focus comes back to the widget's Edit… button
  assert.equal(await page.evaluate(() => (globalThis as unknown as { document: { activeElement: { getAttribute(n: string): string | null } } }).document.activeElement.getAttribute('aria-label')), 'Edit Text: One <b> & more Two');

  // the metric: its title hidden, one label changed, the filled-in one left
  await page.getByRole('button', { name: 'Edit Metric: North' }).click();
  dlg = page.getByRole('dialog', { name: 'Edit Metric: North' });
  assert.equal(await dlg.getByLabel('Widget title').inputValue(), 'North');
  assert.ok(await dlg.getByLabel('Show the title').isChecked());
  assert.equal(await dlg.getByLabel('Label of item 2 (Sales)').inputValue(), 'Sales', 'the label Get Dashboard filled in');
  await dlg.getByLabel('Show the title').uncheck();
  await dlg.getByLabel('Label of item 1 (Sales)').fill('N. sales');
  await dlg.getByLabel('Label of item 1 (Sales)').press('Enter');
  await dlg.waitFor({ state: 'detached' });

  // the web content: a bad address is refused in words and the dialog stays
  await page.getByRole('button', { name: 'Edit Web content: https://example.com/a' }).click();
  dlg = page.getByRole('dialog', { name: 'Edit Web content: https://example.com/a' });
  await dlg.getByLabel('Web address').fill('example.com/b');
  await dlg.getByLabel('Web address').press('Enter');
  assert.match(await dlg.getByRole('alert').innerText(), /must be a whole address starting with http:\/\/ or https:\/\//);
  await dlg.getByLabel('Web address').fill('https://example.com/b');
  await dlg.getByLabel('Web address').press('Enter');
  await dlg.waitFor({ state: 'detached' });

  // the shortcuts: the web link's label and address; the sheet link's label cleared (it follows the sheet's name)
  await page.getByRole('button', { name: 'Edit Shortcuts: Links' }).click();
  dlg = page.getByRole('dialog', { name: 'Edit Shortcuts: Links' });
  const sheetLink = dlg.getByRole('group', { name: 'Link 1: a sheet' });
  const webLink = dlg.getByRole('group', { name: 'Link 2: a web address' });
  assert.equal(await sheetLink.getByLabel(/^Label/).inputValue(), 'Plan');
  await screenshot(page, 'dashboard-widget-edit-shortcuts');
  assert.equal(await sheetLink.getByLabel('Web address').count(), 0, 'a link to a sheet stays one');
  await sheetLink.getByLabel(/^Label/).fill('');
  await webLink.getByLabel(/^Label/).fill('Handbook');
  await webLink.getByLabel('Web address').fill('javascript:alert(1)');
  await webLink.getByLabel('Web address').press('Enter');
  assert.match(await dlg.getByRole('alert').innerText(), /^Link 2: The web address must be/);
  await webLink.getByLabel('Web address').fill('https://example.com/handbook');
  await webLink.getByLabel('Web address').press('Enter');
  await dlg.waitFor({ state: 'detached' });

  // the chart: the Add dialog's settings, as the chart has them; its type changed
  await page.getByRole('button', { name: 'Edit Chart: Sales chart' }).click();
  dlg = page.getByRole('dialog', { name: 'Edit Chart: Sales chart' });
  assert.equal(await dlg.getByLabel('Label column (names the categories)').inputValue(), String(regionCol));
  assert.ok(await dlg.getByRole('checkbox', { name: 'Sales' }).isChecked());
  assert.ok(!(await dlg.getByRole('checkbox', { name: 'Cost' }).isChecked()));
  assert.equal(await dlg.getByLabel('Chart type').inputValue(), 'COLUMN');
  await dlg.getByLabel('Chart type').selectOption({ label: 'Line' });
  await dlg.getByLabel('Chart type').press('Enter');
  await dlg.waitFor({ state: 'detached' });

  // Escape leaves a dialog without a change
  await page.getByRole('button', { name: 'Edit Title: Board red' }).click();
  dlg = page.getByRole('dialog', { name: 'Edit Title: Board red' });
  await dlg.getByLabel(/^Text/).fill('Never');
  await page.keyboard.press('Escape');
  await dlg.waitFor({ state: 'detached' });

  await save(page);
  const ws = await widgetsOf(id);
  assert.deepEqual(ws.map((w) => w.id), before.map((w) => w.id), 'the same widgets, in the same order');
  assert.deepEqual(unversioned(ws[0]!), unversioned(before[0]!), 'the title left alone is unchanged');
  assert.deepEqual(unversioned(ws[1]!), { ...unversioned(before[1]!), contents: { ...before[1]!.contents, htmlContent: '<p>One &lt;b&gt; &amp; more</p><p>Two</p>' } });
  const cells = before[2]!.contents.cellData as Obj[];
  assert.equal(cells[1]!.label, 'Sales');
  assert.deepEqual(unversioned(ws[2]!), { ...unversioned(before[2]!), showTitle: false, contents: { ...before[2]!.contents, cellData: [{ ...cells[0]!, label: 'N. sales' }, cells[1]] } });
  assert.deepEqual(unversioned(ws[3]!), { ...unversioned(before[3]!), contents: { ...before[3]!.contents, url: 'https://example.com/b' } });
  const links = before[4]!.contents.shortcutData as Obj[];
  assert.deepEqual(unversioned(ws[4]!), { ...unversioned(before[4]!), contents: { ...before[4]!.contents, shortcutData: [{ ...links[0]!, label: 'Sales' }, { ...links[1]!, label: 'Handbook', hyperlink: { url: 'https://example.com/handbook' } }] } }, 'the sheet link shows the sheet\'s name now');
  assert.deepEqual(unversioned(ws[5]!), { ...unversioned(before[5]!), contents: { ...before[5]!.contents, series: [{ seriesType: 'LINE', color: '#123456' }] } }, 'the series keeps its colour');
  // the page draws what was saved
  await page.getByRole('img', { name: /^Line chart: Sales chart/ }).waitFor();
  assert.equal(await page.getByRole('link', { name: 'Handbook' }).getAttribute('href'), 'https://example.com/handbook');
  assert.deepEqual(errors, []);
  await page.close();
});

test('Edit… resizes a widget: a size leaving the grid is refused in words, covered widgets move down', { skip: CHROMIUM ? false : 'no chromium on this machine' }, async () => {
  const id = await makeBoard('Resized board', [
    { type: 'TITLE', xPosition: 0, yPosition: 0, width: 6, height: 1, contents: { htmlContent: '<p>Left</p>' } },
    { type: 'TITLE', xPosition: 6, yPosition: 0, width: 6, height: 1, contents: { htmlContent: '<p>Right</p>' } },
    { type: 'RICHTEXT', xPosition: 0, yPosition: 1, width: 12, height: 2, contents: { htmlContent: '<p>Below</p>' } },
  ]);
  const before = await widgetsOf(id);
  const page = await browser!.newPage({ viewport: { width: 1280, height: 900 } });
  await openEditor(page, id);

  await page.getByRole('button', { name: 'Edit Title: Right' }).click();
  let dlg = page.getByRole('dialog', { name: 'Edit Title: Right' });
  const width = dlg.getByLabel(/^Width/);
  assert.equal(await width.inputValue(), '6');
  assert.match(await dlg.locator('label[for="edit-width"]').innerText(), /starts at column 7 of 12/);
  await width.fill('7');
  await width.press('Enter');
  assert.equal(await dlg.getByRole('alert').innerText(), 'The widget would leave the grid: it starts at column 7 of 12, so it can be at most 6 columns wide.');
  await width.fill('6');
  await dlg.getByLabel(/^Height/).fill('0');
  await dlg.getByLabel(/^Height/).press('Enter');
  assert.equal(await dlg.getByRole('alert').innerText(), 'The height is a whole number of rows from 1 to 1000.');
  await page.keyboard.press('Escape');
  await dlg.waitFor({ state: 'detached' });

  // the left title across the grid and two rows high: the others move down below it
  await page.getByRole('button', { name: 'Edit Title: Left' }).click();
  dlg = page.getByRole('dialog', { name: 'Edit Title: Left' });
  await dlg.getByLabel(/^Width/).fill('12');
  await dlg.getByLabel(/^Height/).fill('2');
  await dlg.getByLabel(/^Height/).press('Enter');
  await dlg.waitFor({ state: 'detached' });
  assert.match(await page.locator('.toast').last().innerText(), /Title: Right, Text: Below moved down to make room/);
  await save(page);

  const ws = await widgetsOf(id);
  const slot = (w: WidgetOut) => [w.xPosition, w.yPosition, w.width, w.height];
  assert.deepEqual(ws.map((w) => w.id), before.map((w) => w.id));
  assert.deepEqual(ws.map(slot), [[0, 0, 12, 2], [6, 2, 6, 1], [0, 3, 12, 2]]);
  const place = (w: WidgetOut) => ({ ...w, version: 0, xPosition: 0, yPosition: 0, width: 0, height: 0 });
  assert.deepEqual(ws.map(place), before.map(place), 'nothing but their places changed');
  await page.close();
});

test('Add widget adds web content and shortcuts to a sheet, a dashboard or a web address', { skip: CHROMIUM ? false : 'no chromium on this machine' }, async () => {
  const otherId = await makeBoard('Other board', []);
  const id = await makeBoard('Linked board', [{ type: 'TITLE', xPosition: 0, yPosition: 0, width: 12, height: 1, contents: { htmlContent: '<p>Links</p>' } }]);
  const before = await widgetsOf(id);
  const page = await browser!.newPage({ viewport: { width: 1280, height: 900 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await openEditor(page, id);
  const addWidget = (kind: RegExp) => chooseWidget(page, kind);

  await addWidget(/^Web content/);
  let dlg = page.getByRole('dialog', { name: 'Add web content' });
  await dlg.getByLabel('Web address').fill('example.com');
  await dlg.getByLabel('Web address').press('Enter');
  assert.match(await dlg.getByRole('alert').innerText(), /must be a whole address/);
  await dlg.getByLabel('Web address').fill('https://example.com/status');
  await dlg.getByLabel('Widget title').fill('Status');
  await dlg.getByLabel('Widget title').press('Enter');
  await dlg.waitFor({ state: 'detached' });

  // a shortcut to a sheet: the web address is not asked for
  await addWidget(/^Shortcut/);
  dlg = page.getByRole('dialog', { name: 'Add a shortcut' });
  await dlg.getByLabel('Link to').selectOption({ label: 'Sales' });
  assert.ok(await dlg.getByLabel('Web address').isHidden());
  await dlg.getByLabel('Link to').press('Enter');
  await dlg.waitFor({ state: 'detached' });

  await addWidget(/^Shortcut/);
  dlg = page.getByRole('dialog', { name: 'Add a shortcut' });
  await dlg.getByLabel('Link to').selectOption({ label: 'Other board' });
  await dlg.getByLabel(/^Label/).fill('See also');
  await dlg.getByLabel(/^Label/).press('Enter');
  await dlg.waitFor({ state: 'detached' });

  await addWidget(/^Shortcut/);
  dlg = page.getByRole('dialog', { name: 'Add a shortcut' });
  assert.equal(await dlg.getByLabel('Link to').inputValue(), 'url', 'a web address first');
  await dlg.getByLabel(/^Label/).fill('Docs');
  await dlg.getByLabel(/^Label/).press('Enter');
  assert.match(await dlg.getByRole('alert').innerText(), /must be a whole address/);
  await dlg.getByLabel('Web address').fill('https://example.com/docs');
  await dlg.getByLabel('Web address').press('Enter');
  await dlg.waitFor({ state: 'detached' });

  assert.deepEqual(await page.getByRole('list', { name: 'Widgets, in order' }).locator('.widget-edit-name').allInnerTexts(), ['Title: Links', 'Web content: Status', 'Shortcut', 'Shortcut: See also', 'Shortcut: Docs']);
  await save(page);
  const ws = await widgetsOf(id);
  assert.deepEqual(unversioned(ws[0]!), unversioned(before[0]!), 'the title is unchanged');
  assert.deepEqual(ws.slice(1).map((w) => [w.type, w.title, w.contents.type]), [['WEBCONTENT', 'Status', 'WEBCONTENT'], ['SHORTCUT', undefined, 'SHORTCUT'], ['SHORTCUT', undefined, 'SHORTCUT'], ['SHORTCUT', undefined, 'SHORTCUT']]);
  assert.equal(ws[1]!.contents.url, 'https://example.com/status');
  assert.ok(ws[1]!.showTitle);
  const item = (w: WidgetOut) => (w.contents.shortcutData as Array<{ label: string; hyperlink: Obj }>)[0]!;
  assert.equal(item(ws[2]!).hyperlink.sheetId, sheetId);
  assert.equal(item(ws[2]!).label, 'Sales', 'without a label, the sheet\'s name');
  assert.equal(item(ws[3]!).hyperlink.sightId, otherId);
  assert.equal(item(ws[3]!).label, 'See also');
  assert.deepEqual([item(ws[4]!).label, item(ws[4]!).hyperlink.url], ['Docs', 'https://example.com/docs']);
  // inside the grid, below one another
  for (const w of ws) assert.ok(w.xPosition + w.width <= 12);
  assert.ok(ws[1]!.yPosition < ws[2]!.yPosition && ws[2]!.yPosition < ws[3]!.yPosition && ws[3]!.yPosition < ws[4]!.yPosition);
  // the page shows the links
  assert.equal(await page.getByRole('link', { name: 'Sales' }).getAttribute('href'), `/sheets/${sheetId}`);
  assert.equal(await page.getByRole('link', { name: 'See also' }).getAttribute('href'), `/dashboards/${otherId}`);
  assert.equal(await page.getByRole('link', { name: 'https://example.com/status' }).getAttribute('href'), 'https://example.com/status');
  assert.deepEqual(errors, []);
  await page.close();
});

test('Add widget adds an image from a file: a missing or refused file is said in the dialog; the picture shows on the page as chosen', { skip: CHROMIUM ? false : 'no chromium on this machine' }, async () => {
  const id = await makeBoard('Picture board', [{ type: 'TITLE', xPosition: 0, yPosition: 0, width: 12, height: 1, contents: { htmlContent: '<p>Pictures</p>' } }]);
  const page = await browser!.newPage({ viewport: { width: 1280, height: 900 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await openEditor(page, id);
  await chooseWidget(page, /^Image/);
  const dlg = page.getByRole('dialog', { name: 'Add an image' });
  await dlg.getByLabel(/^Widget title/).fill('Logo');
  await dlg.getByLabel(/^Widget title/).press('Enter');
  assert.match(await dlg.getByRole('alert').innerText(), /Choose an image file/);
  // a file that only says it is a picture: the server's refusal, in the dialog, which stays open
  await dlg.getByLabel('Image file').setInputFiles({ name: 'notes.png', mimeType: 'image/png', buffer: Buffer.from('not a picture at all') });
  await dlg.getByLabel(/^Widget title/).press('Enter');
  await dlg.getByRole('alert').filter({ hasText: /was not added/ }).waitFor();
  assert.match(await dlg.getByRole('alert').innerText(), /^notes\.png was not added: .+/);
  const png = pngBytes(40, 20, 7);
  await dlg.getByLabel('Image file').setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: png });
  assert.equal(await dlg.getByRole('alert').innerText(), '', 'another file chosen: the refusal of the last one goes');
  await dlg.getByLabel('Fit in the widget').selectOption('FILL');
  await screenshot(page, 'dashboard-add-image');
  await dlg.getByLabel('Fit in the widget').press('Enter');
  await dlg.waitFor({ state: 'detached' });
  assert.deepEqual(await page.getByRole('list', { name: 'Widgets, in order' }).locator('.widget-edit-name').allInnerTexts(), ['Title: Pictures', 'Image: Logo']);
  await save(page);

  const ws = await widgetsOf(id);
  assert.deepEqual(ws.map((w) => w.type), ['TITLE', 'IMAGE']);
  const img = ws[1]!;
  assert.equal(img.title, 'Logo');
  assert.ok(img.yPosition >= 1 && img.xPosition + img.width <= 12, 'below the title, inside the grid');
  assert.deepEqual([img.contents.fileName, img.contents.fit, img.contents.width, img.contents.height], ['logo.png', 'FILL', 40, 20]);
  // the widget names the picture the dialog sent, and only that one was kept
  const served = await fetch(`${t.base}/sheetd/sights/${id}/images/${String(img.contents.privateId)}`, { headers: { authorization: `Bearer ${t.adminToken}` } });
  assert.equal(served.status, 200);
  assert.deepEqual(Buffer.from(await served.arrayBuffer()), png);
  // the page shows it, filling its widget
  const shown = page.getByRole('img', { name: 'logo.png' });
  await shown.waitFor();
  assert.equal(await shown.evaluate((el) => (el as unknown as { naturalWidth: number }).naturalWidth), 40);
  type Styled = { getComputedStyle(el: unknown): { objectFit: string } };
  assert.equal(await shown.evaluate((el) => (globalThis as unknown as Styled).getComputedStyle(el).objectFit), 'cover');
  await screenshot(page, 'dashboard-image-widget');

  // Edit… changes its fit, and nothing else of it
  await page.getByRole('button', { name: 'Edit dashboard' }).click();
  await page.getByRole('button', { name: 'Edit Image: Logo' }).click();
  const edit = page.getByRole('dialog', { name: 'Edit Image: Logo' });
  assert.equal(await edit.getByLabel('Fit in the widget').inputValue(), 'FILL');
  await edit.getByLabel('Fit in the widget').selectOption('FIT');
  await edit.getByLabel('Fit in the widget').press('Enter');
  await edit.waitFor({ state: 'detached' });
  await save(page);
  const after = (await widgetsOf(id))[1]!;
  assert.deepEqual(unversioned(after), unversioned({ ...img, contents: { ...img.contents, fit: 'FIT' } }));
  await page.getByRole('img', { name: 'logo.png' }).waitFor();
  assert.equal(await page.getByRole('img', { name: 'logo.png' }).evaluate((el) => (globalThis as unknown as Styled).getComputedStyle(el).objectFit), 'contain');
  assert.deepEqual(errors, []);
  await page.close();
});

test('Edit… of a shortcut adds a link (a single shortcut becomes a list) and removes links; removing every link is refused in words', { skip: CHROMIUM ? false : 'no chromium on this machine' }, async () => {
  const id = await makeBoard('Shortcut board', [
    { type: 'SHORTCUT', xPosition: 0, yPosition: 0, width: 4, height: 1, contents: { shortcutData: [{ label: 'Wiki', hyperlink: { url: 'https://example.com/wiki' } }] } },
  ]);
  const page = await browser!.newPage({ viewport: { width: 1280, height: 900 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await openEditor(page, id);
  const edit = async (name: string) => {
    await page.getByRole('button', { name: `Edit ${name}` }).click();
    return page.getByRole('dialog', { name: `Edit ${name}` });
  };
  // a second link, to the sheet: the widget becomes a list of two
  let dlg = await edit('Shortcut: Wiki');
  const added = dlg.getByRole('group', { name: 'A new link' });
  assert.equal(await added.getByLabel('Link to').inputValue(), '', 'no new link unless one is chosen');
  assert.equal(await added.getByText('Web address', { exact: true }).isHidden(), true, 'no address asked for (nor its label shown) until a web address is chosen');
  await added.getByLabel('Link to').selectOption({ label: 'Sales' });
  await added.getByLabel(/^Label/).fill('Numbers');
  await added.getByLabel(/^Label/).press('Enter');
  await dlg.waitFor({ state: 'detached' });
  await save(page);
  let ws = await widgetsOf(id);
  assert.deepEqual(ws.map((w) => w.type), ['SHORTCUTLIST']);
  assert.deepEqual((ws[0]!.contents.shortcutData as Array<{ label: string; hyperlink: Obj }>).map((x) => [x.label, x.hyperlink.sheetId ?? x.hyperlink.url]), [['Wiki', 'https://example.com/wiki'], ['Numbers', sheetId]]);
  assert.equal(await page.getByRole('link', { name: 'Numbers' }).getAttribute('href'), `/sheets/${sheetId}`);

  // a new web address is checked like any other
  await page.getByRole('button', { name: 'Edit dashboard' }).click();
  dlg = await edit('Shortcuts: Wiki, Numbers');
  await dlg.getByRole('group', { name: 'A new link' }).getByLabel('Link to').selectOption({ label: 'A web address' });
  await dlg.getByRole('group', { name: 'A new link' }).getByLabel('Web address').fill('not an address');
  await dlg.getByRole('button', { name: 'OK' }).click();
  assert.match(await dlg.getByRole('alert').innerText(), /^The new link: .*whole address/);
  await dlg.getByRole('group', { name: 'A new link' }).getByLabel('Link to').selectOption({ label: 'No new link' });
  // every link removed: refused, the dialog stays
  await dlg.getByRole('checkbox', { name: 'Remove link 1' }).check();
  await dlg.getByRole('checkbox', { name: 'Remove link 2' }).check();
  await dlg.getByRole('button', { name: 'OK' }).click();
  assert.match(await dlg.getByRole('alert').innerText(), /at least one link/);
  // the first removed only
  await dlg.getByRole('checkbox', { name: 'Remove link 2' }).uncheck();
  await dlg.getByRole('button', { name: 'OK' }).click();
  await dlg.waitFor({ state: 'detached' });
  await save(page);
  ws = await widgetsOf(id);
  assert.deepEqual((ws[0]!.contents.shortcutData as Array<{ label: string }>).map((x) => x.label), ['Numbers']);
  assert.equal(await page.getByRole('link', { name: 'Wiki' }).count(), 0);
  assert.deepEqual(errors, []);
  await page.close();
});
