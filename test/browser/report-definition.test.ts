import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startSuiteServer, type TestServer } from '../helpers/server.ts';
import { CHROMIUM, launchChromium } from '../helpers/chromium.ts';
import { client, type Client } from '../helpers/http.ts';
import { makeSheet, makeUser } from '../helpers/sheets.ts';
import { addTaskPointsRows } from '../helpers/sights.ts';
import { eventually, givePassword, gridHeaders, gridRows, screenshot, signInPage } from '../helpers/webapp.ts';

/**
 * Defining reports in Chromium: New report on Home (name, source sheets, columns) made with the
 * keyboard, read back through the extension (GET /sheetd/reports/{id}) and Get Report; Edit
 * report… on the report page adds a filter, and the page shows the filtered rows; it keeps the
 * columns it keeps as the definition has them (types, widths, columns it does not offer) and
 * adds columns with their sheets' types; a sort chosen there orders the rows. A refusal of
 * the server is shown in the dialog in words. One browser for the file.
 */
const skip = CHROMIUM ? false : 'no chromium on this machine';
let t: TestServer;
let api: Client;
let browser: Browser;
let page: Page;
let a: Awaited<ReturnType<typeof makeSheet>>;
let b: Awaited<ReturnType<typeof makeSheet>>;
let reportId: number;

before(async () => {
  if (!CHROMIUM) return;
  t = await startSuiteServer();
  api = client(t.base, t.adminToken);
  a = await makeSheet(api, 'Ledger A', [{ title: 'Task', type: 'TEXT_NUMBER', primary: true }, { title: 'Points', type: 'TEXT_NUMBER' }]);
  b = await makeSheet(api, 'Ledger B', [{ title: 'Task', type: 'TEXT_NUMBER', primary: true }, { title: ' points ', type: 'TEXT_NUMBER' }, { title: 'Notes', type: 'TEXT_NUMBER' }]);
  // the second sheet's points column is spelt differently: the report matches it by title all the same
  b.col.Points = b.columns.find((c) => c.title.trim().toLowerCase() === 'points')!;
  await addTaskPointsRows(api, a, [['Alpha', 3], ['Beta', 5]]);
  await addTaskPointsRows(api, b, [['Gamma', 8], ['Delta', 2]]);
  await givePassword(t, 'admin@example.com');
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1200, height: 800 } })).newPage();
  await signInPage(page, t, 'admin@example.com');
});

after(async () => {
  await browser?.close();
  await t?.close();
});

const activeId = () => page.evaluate(() => (globalThis as unknown as { document: { activeElement: { id: string } | null } }).document.activeElement?.id ?? '');

/** Presses Tab until the element with this id has the focus (at most 12 times): it is in the Tab order. */
async function tabTo(id: string): Promise<void> {
  for (let i = 0; i < 12; i++) {
    if (await activeId() === id) return;
    await page.keyboard.press('Tab');
  }
  assert.equal(await activeId(), id, `Tab reaches #${id}`);
}

/** The report's rows through Get Report: each row's cells in the report's column order, as text. */
async function reportRows(id: number): Promise<{ titles: string[]; rows: string[] }> {
  const r = await api.get(`/reports/${id}`);
  assert.equal(r.status, 200, r.text);
  const cols = r.body.columns as Array<{ virtualId: number; title: string }>;
  const rows = (r.body.rows as Array<{ cells: Array<{ virtualColumnId: number; value?: unknown }> }>).map((row) =>
    cols.map((c) => String(row.cells.find((x) => x.virtualColumnId === c.virtualId)?.value ?? '')).join(' | '));
  return { titles: cols.map((c) => c.title), rows };
}

test('New report on Home: name, two source sheets and two of their columns, with the keyboard; the report page opens on its rows', { skip }, async () => {
  await page.goto(`${t.url}/`);
  const open = page.getByRole('button', { name: 'New report' });
  await open.focus();
  await page.keyboard.press('Enter');
  const dlg = page.getByRole('dialog', { name: 'New report' });
  await dlg.waitFor();
  assert.equal(await activeId(), 'rep-name', 'the name field has the focus');
  await page.keyboard.type('Both ledgers');
  await tabTo(`rep-sheet-${a.id}`);
  await page.keyboard.press('Space');
  await tabTo(`rep-sheet-${b.id}`);
  await page.keyboard.press('Space');
  // the columns of both sheets, once each (the API matches titles ignoring case and spaces)
  await dlg.getByLabel('Notes').waitFor({ state: 'attached' });
  await tabTo('rep-all-columns');
  assert.equal(await dlg.getByLabel('All columns').isChecked(), true, 'All columns by default');
  await page.keyboard.press('Space');
  assert.deepEqual(await dlg.locator('#rep-columns label').allInnerTexts(), ['Task', 'Points', 'Notes']);
  await tabTo('rep-col-0');
  await page.keyboard.press('Space');
  await tabTo('rep-col-1');
  await page.keyboard.press('Space');
  await screenshot(page, 'report-new');
  // Enter in the name field creates the report
  await dlg.getByLabel('Report name').focus();
  await page.keyboard.press('Enter');
  await page.waitForURL(/\/reports\/\d+$/);
  reportId = Number(new URL(page.url()).pathname.split('/').pop());
  await page.locator('body[data-sheet-ready="true"]').waitFor();
  await page.locator('[role="gridcell"]').first().waitFor();
  assert.equal(await page.getByRole('heading', { level: 1 }).innerText(), 'Both ledgers');
  assert.deepEqual(await gridHeaders(page), ['Task', 'Points']);
  assert.deepEqual([...(await gridRows(page)).values()].map((r) => r.join(' | ')), ['Alpha | 3', 'Beta | 5', 'Gamma | 8', 'Delta | 2']);

  const def = await api.get(`/sheetd/reports/${reportId}`);
  assert.equal(def.status, 200, def.text);
  assert.equal(def.body.name, 'Both ledgers');
  assert.deepEqual(def.body.scope.sheets.map((s: { id: number }) => s.id).sort(), [a.id, b.id].sort());
  assert.deepEqual(def.body.columns.map((c: { title: string }) => c.title), ['Task', 'Points']);
  assert.equal(def.body.filters, undefined);
  assert.deepEqual(def.body.location, { destinationType: 'home', destinationId: null });
  assert.deepEqual(await reportRows(reportId), { titles: ['Task', 'Points'], rows: ['Alpha | 3', 'Beta | 5', 'Gamma | 8', 'Delta | 2'] });
});

test('Edit report… on the report page: pre-filled from the definition; a filter added there filters the rows shown and the report', { skip }, async () => {
  assert.ok(reportId, 'the report of the test before');
  await page.goto(`${t.url}/reports/${reportId}`);
  await page.locator('[role="gridcell"]').first().waitFor();
  const edit = page.getByRole('button', { name: 'Edit report…' });
  await edit.focus();
  await page.keyboard.press('Enter');
  const dlg = page.getByRole('dialog', { name: 'Edit report Both ledgers' });
  await dlg.waitFor();
  await dlg.getByLabel('Notes').waitFor({ state: 'attached' });
  assert.equal(await dlg.getByLabel('Report name').inputValue(), 'Both ledgers');
  assert.equal(await dlg.getByLabel('Ledger A').isChecked(), true);
  assert.equal(await dlg.getByLabel('Ledger B').isChecked(), true);
  assert.equal(await dlg.getByLabel('All columns').isChecked(), false);
  assert.deepEqual(await Promise.all(['Task', 'Points', 'Notes'].map((c) => dlg.getByLabel(c, { exact: true }).isChecked())), [true, true, false]);
  // the filter: Task contains "ta", chosen with the keyboard
  await tabTo('rep-filter-column');
  await page.keyboard.press('ArrowDown');
  assert.equal(await dlg.getByLabel('Column', { exact: true }).inputValue(), 'Task');
  await tabTo('rep-filter-op');
  await dlg.getByLabel('Condition').selectOption({ label: 'contains' });
  await tabTo('rep-filter-value');
  await page.keyboard.type('ta');
  await screenshot(page, 'report-edit');
  await page.keyboard.press('Enter');
  await dlg.waitFor({ state: 'detached' });
  assert.equal(await activeId(), '', 'the focus is back on the button (it has no id)');
  assert.equal(await page.evaluate(() => (globalThis as unknown as { document: { activeElement: { textContent: string } } }).document.activeElement.textContent), 'Edit report…');
  await eventually(async () => [...(await gridRows(page)).values()].map((r) => r.join(' | ')), (rows) => rows.join() === 'Beta | 5,Delta | 2', 'the page shows the filtered rows');
  await page.getByText('2 rows from its sheets.').waitFor();

  const def = await api.get(`/sheetd/reports/${reportId}`);
  assert.equal(def.status, 200, def.text);
  assert.deepEqual(def.body.filters, { operator: 'AND', criteria: [{ column: { title: 'Task' }, operator: 'CONTAINS', values: ['ta'] }], nestedCriteria: [] });
  assert.deepEqual(def.body.columns.map((c: { title: string }) => c.title), ['Task', 'Points'], 'columns unchanged');
  assert.deepEqual(await reportRows(reportId), { titles: ['Task', 'Points'], rows: ['Beta | 5', 'Delta | 2'] });
});

test('a refusal of the server is shown in the dialog, which stays open; Escape cancels it and creates nothing', { skip }, async () => {
  const gone = await makeSheet(api, 'Ledger gone', [{ title: 'Task', type: 'TEXT_NUMBER', primary: true }]);
  await page.goto(`${t.url}/`);
  await page.getByRole('button', { name: 'New report' }).click();
  const dlg = page.getByRole('dialog', { name: 'New report' });
  await dlg.waitFor();
  await dlg.getByLabel('Report name').fill('Never made');
  // the dialog reads a chosen sheet's columns: the sheet goes only once they are read (else the
  // dialog, finding no columns, would refuse by itself before asking the server)
  const columnsRead = page.waitForResponse((r) => r.url().includes(`/sheets/${gone.id}/columns`));
  await dlg.getByLabel('Ledger gone').check();
  await columnsRead;
  // the sheet is deleted while the dialog is open: the server refuses the report (404/1006)
  assert.equal((await api.del(`/sheets/${gone.id}`)).status, 200);
  const before = (await api.get('/reports')).body.data.length as number;
  await dlg.getByRole('button', { name: 'Create' }).click();
  await dlg.getByRole('alert').filter({ hasText: 'Not Found' }).waitFor();
  assert.equal(await dlg.isVisible(), true);
  // nothing given a name: said in words before anything is sent
  await dlg.getByLabel('Report name').fill('');
  await dlg.getByRole('button', { name: 'Create' }).click();
  await dlg.getByRole('alert').filter({ hasText: 'Give the report a name.' }).waitFor();
  assert.equal(await activeId(), 'rep-name');
  await page.keyboard.press('Escape');
  await dlg.waitFor({ state: 'detached' });
  assert.equal(new URL(page.url()).pathname, '/');
  assert.equal((await api.get('/reports')).body.data.length, before, 'no report made');
});

test('New report inside a workspace shown on Home goes into it; with many sheets a search box narrows the list', { skip }, async () => {
  const ws = await api.post('/workspaces', { name: 'Projects' });
  assert.equal(ws.status, 200, ws.text);
  const wsId = ws.body.result.id as number;
  const made: number[] = [];
  for (let i = 1; i <= 8; i++) {
    const s = await api.post(`/workspaces/${wsId}/sheets`, { name: `Project ${i}`, columns: [{ title: 'Task', type: 'TEXT_NUMBER', primary: true }, { title: `Only in ${i}`, type: 'TEXT_NUMBER' }] });
    assert.equal(s.status, 200, s.text);
    made.push(s.body.result.id as number);
  }
  await page.goto(`${t.url}/`);
  await page.getByRole('link', { name: 'Projects' }).click();
  await page.getByRole('heading', { level: 2, name: 'Projects' }).waitFor();
  await page.getByRole('button', { name: 'New report' }).click();
  const dlg = page.getByRole('dialog', { name: 'New report' });
  await dlg.waitFor();
  await page.keyboard.type('Project seven');
  await page.keyboard.press('Tab');
  assert.equal(await activeId(), 'rep-sheet-search', 'the search box comes after the name');
  await page.keyboard.type('ject 7');
  assert.deepEqual(await dlg.locator('#rep-sheets li:visible label').allInnerTexts(), ['Project 7']);
  await page.keyboard.press('Enter');
  assert.equal(await dlg.isVisible(), true, 'Enter in the search box does not create the report');
  await page.keyboard.press('Tab');
  assert.equal(await activeId(), `rep-sheet-${made[6]}`, 'Tab goes to the one sheet found');
  await page.keyboard.press('Space');
  await dlg.getByLabel('Only in 7').waitFor({ state: 'attached' });
  await screenshot(page, 'report-new-search');
  await dlg.getByRole('button', { name: 'Create' }).click();
  await page.waitForURL(/\/reports\/\d+$/);
  const id = Number(new URL(page.url()).pathname.split('/').pop());
  const def = await api.get(`/sheetd/reports/${id}`);
  assert.equal(def.status, 200, def.text);
  assert.deepEqual(def.body.location, { destinationType: 'workspace', destinationId: wsId });
  assert.deepEqual(def.body.scope.sheets, [{ id: made[6] }]);
  // All columns: every title of the chosen sheet
  assert.deepEqual(def.body.columns.map((c: { title: string }) => c.title), ['Task', 'Only in 7']);
  const inWs = await api.get(`/workspaces/${wsId}`);
  assert.deepEqual((inWs.body.reports as Array<{ id: number }>).map((r) => r.id), [id]);
});

test('Edit report… is offered to those who may change the report (ADMIN or OWNER), not to an EDITOR', { skip }, async () => {
  assert.ok(reportId, 'the report of the first test');
  await makeUser(t, api, 'ed@example.com');
  assert.equal((await api.post(`/reports/${reportId}/shares`, { email: 'ed@example.com', accessLevel: 'EDITOR' })).status, 200);
  await givePassword(t, 'ed@example.com');
  const other = await (await browser.newContext({ viewport: { width: 1200, height: 800 } })).newPage();
  try {
    await signInPage(other, t, 'ed@example.com', `/reports/${reportId}`);
    await other.locator('body[data-sheet-ready="true"]').waitFor();
    assert.equal(await other.getByRole('heading', { level: 1 }).innerText(), 'Both ledgers');
    assert.equal(await other.getByRole('button', { name: 'Edit report…' }).count(), 0);
  } finally {
    await other.context().close();
  }
  // the owner is offered it on the same page
  await page.goto(`${t.url}/reports/${reportId}`);
  await page.getByRole('button', { name: 'Edit report…' }).waitFor();
});

/** Opens Edit report… on the report's page with the keyboard; answers the dialog once its columns are listed. */
async function openEdit(id: number, name: string, columnShown: string) {
  await page.goto(`${t.url}/reports/${id}`);
  await page.locator('body[data-sheet-ready="true"]').waitFor();
  await page.getByRole('button', { name: 'Edit report…' }).focus();
  await page.keyboard.press('Enter');
  const dlg = page.getByRole('dialog', { name: `Edit report ${name}` });
  await dlg.waitFor();
  await dlg.getByLabel(columnShown, { exact: true }).waitFor({ state: 'attached' });
  return dlg;
}

/** The definition's columns through the extension, without their virtual ids, and the ids by title. */
async function definitionColumns(id: number): Promise<{ refs: Array<Record<string, unknown>>; ids: Map<string, number>; body: Record<string, unknown> }> {
  const def = await api.get(`/sheetd/reports/${id}`);
  assert.equal(def.status, 200, def.text);
  const cols = def.body.columns as Array<Record<string, unknown> & { virtualId: number; title: string; type: string }>;
  return {
    refs: cols.map(({ virtualId: _id, ...ref }) => ref),
    ids: new Map(cols.map((c) => [`${c.title} ${c.type}`, c.virtualId])),
    body: def.body as Record<string, unknown>,
  };
}

test('Edit report… keeps each kept column as the definition has it (type, width, the sheet name, primary and system columns); columns added go with their sheets\' types', { skip }, async () => {
  const statusCols = [{ title: 'Task', type: 'TEXT_NUMBER', primary: true }, { title: 'Status', type: 'PICKLIST', options: ['Open', 'Done'] }, { title: 'Due', type: 'DATE' }, { title: 'Notes', type: 'TEXT_NUMBER' }];
  const ta = await makeSheet(api, 'Tracker A', statusCols);
  const tb = await makeSheet(api, 'Tracker B', [{ title: 'Task', type: 'TEXT_NUMBER', primary: true }, { title: 'status', type: 'TEXT_NUMBER' }]);
  const r1 = await api.post(`/sheets/${ta.id}/rows`, [{ toBottom: true, cells: [
    { columnId: ta.col.Task!.id, value: 'Paint' }, { columnId: ta.col.Status!.id, value: 'Open' }, { columnId: ta.col.Due!.id, value: '2030-05-01' }, { columnId: ta.col.Notes!.id, value: 'blue' }] }]);
  assert.equal(r1.status, 200, r1.text);
  const r2 = await api.post(`/sheets/${tb.id}/rows`, [{ toBottom: true, cells: [{ columnId: tb.col.Task!.id, value: 'Sand' }, { columnId: tb.col.status!.id, value: 'waiting' }] }]);
  assert.equal(r2.status, 200, r2.text);
  const made = await api.post('/sheetd/reports', {
    name: 'Typed', scope: { sheets: [{ id: ta.id }] },
    columns: [{ sheetNameColumn: true, width: 90 }, { title: 'Task', primary: true }, { title: 'Status', type: 'PICKLIST', width: 140 }, { title: 'Due', type: 'DATE', hidden: true }, { systemColumnType: 'MODIFIED_DATE' }],
  });
  assert.equal(made.status, 200, made.text);
  const id = made.body.result.id as number;
  const before = await definitionColumns(id);

  // untick Due, tick Notes, and Tracker B with its Text/Number "status" beside the Dropdown one
  let dlg = await openEdit(id, 'Typed', 'Notes');
  assert.deepEqual(await dlg.locator('#rep-columns label').allInnerTexts(), ['Task', 'Status', 'Due', 'Notes']);
  assert.deepEqual(await Promise.all(['Task', 'Status', 'Due', 'Notes'].map((c) => dlg.getByLabel(c, { exact: true }).isChecked())), [false, true, true, false]);
  await dlg.getByLabel('Due', { exact: true }).focus();
  await page.keyboard.press('Space');
  await page.keyboard.press('Tab');
  assert.equal(await activeId(), 'rep-col-3');
  await page.keyboard.press('Space');
  await dlg.getByLabel('Tracker B').focus();
  await page.keyboard.press('Space');
  await dlg.getByLabel('status (Text/Number)').waitFor({ state: 'attached' });
  assert.deepEqual(await dlg.locator('#rep-columns label').allInnerTexts(), ['Task', 'Status (Dropdown)', 'Due', 'Notes', 'status (Text/Number)']);
  await dlg.getByLabel('status (Text/Number)').focus();
  await page.keyboard.press('Space');
  await dlg.getByRole('button', { name: 'Save' }).focus();
  await page.keyboard.press('Enter');
  await dlg.waitFor({ state: 'detached' });

  const after1 = await definitionColumns(id);
  assert.deepEqual(after1.refs, [
    { title: 'Sheet Name', type: 'TEXT_NUMBER', sheetNameColumn: true, width: 90 },
    { title: 'Task', type: 'TEXT_NUMBER', primary: true },
    { title: 'Status', type: 'PICKLIST', width: 140 },
    { title: 'MODIFIED_DATE', type: 'DATETIME', systemColumnType: 'MODIFIED_DATE' },
    { title: 'Notes', type: 'TEXT_NUMBER' },
    { title: 'status', type: 'TEXT_NUMBER' },
  ]);
  for (const k of ['Sheet Name TEXT_NUMBER', 'Task TEXT_NUMBER', 'Status PICKLIST', 'MODIFIED_DATE DATETIME']) assert.equal(after1.ids.get(k), before.ids.get(k), `${k} keeps its virtual id`);
  // each column shows its sheets' cells: the Dropdown Status of Tracker A, the Text/Number status of Tracker B
  const rows1 = await reportRows(id);
  assert.deepEqual(rows1.titles, ['Sheet Name', 'Task', 'Status', 'MODIFIED_DATE', 'Notes', 'status']);
  assert.deepEqual(rows1.rows, ['Tracker A | Paint | Open |  | blue | ', 'Tracker B | Sand |  |  |  | waiting']);

  // Due ticked again comes back as a date column (its cells shown), after the others
  dlg = await openEdit(id, 'Typed', 'Notes');
  assert.deepEqual(await Promise.all(['Status (Dropdown)', 'Due', 'Notes', 'status (Text/Number)'].map((c) => dlg.getByLabel(c, { exact: true }).isChecked())), [true, false, true, true]);
  await dlg.getByLabel('Due', { exact: true }).focus();
  await page.keyboard.press('Space');
  await dlg.getByLabel('Notes', { exact: true }).focus();
  await page.keyboard.press('Space');
  await dlg.getByRole('button', { name: 'Save' }).click();
  await dlg.waitFor({ state: 'detached' });
  const after2 = await definitionColumns(id);
  assert.deepEqual(after2.refs.slice(2), [
    { title: 'Status', type: 'PICKLIST', width: 140 },
    { title: 'MODIFIED_DATE', type: 'DATETIME', systemColumnType: 'MODIFIED_DATE' },
    { title: 'status', type: 'TEXT_NUMBER' },
    { title: 'Due', type: 'DATE' },
  ]);
  assert.equal(after2.ids.get('status TEXT_NUMBER'), after1.ids.get('status TEXT_NUMBER'));
  assert.deepEqual((await reportRows(id)).rows, ['Tracker A | Paint | Open |  |  | 2030-05-01', 'Tracker B | Sand |  |  | waiting | ']);
});

test('a sort chosen in the dialog (Sort by, Order) orders the report\'s rows; Edit report… shows it, changes it and takes it off', { skip }, async () => {
  await page.goto(`${t.url}/`);
  await page.getByRole('button', { name: 'New report' }).click();
  let dlg = page.getByRole('dialog', { name: 'New report' });
  await dlg.waitFor();
  await dlg.getByLabel('Report name').fill('Sorted ledgers');
  await dlg.getByLabel('Ledger A').check();
  await dlg.getByLabel('Ledger B').check();
  await dlg.getByLabel('Notes').waitFor({ state: 'attached' });
  assert.equal(await dlg.getByLabel('Order').isDisabled(), true, 'no order without a column');
  // Sort by Points, Descending, with the keyboard: the fields come after the filter's
  await dlg.getByLabel('Value').focus();
  await page.keyboard.press('Tab');
  assert.equal(await activeId(), 'rep-sort-column');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  assert.equal(await dlg.getByLabel('Sort by').inputValue(), 'Points');
  await page.keyboard.press('Tab');
  assert.equal(await activeId(), 'rep-sort-dir');
  await page.keyboard.press('ArrowDown');
  assert.equal(await dlg.getByLabel('Order').inputValue(), 'DESCENDING');
  await screenshot(page, 'report-sort');
  await dlg.getByLabel('Report name').focus();
  await page.keyboard.press('Enter');
  await page.waitForURL(/\/reports\/\d+$/);
  const id = Number(new URL(page.url()).pathname.split('/').pop());
  await page.locator('[role="gridcell"]').first().waitFor();
  assert.deepEqual([...(await gridRows(page)).values()].map((r) => r.join(' | ')), ['Gamma | 8 | ', 'Beta | 5 | ', 'Alpha | 3 | ', 'Delta | 2 | ']);
  let def = await definitionColumns(id);
  assert.deepEqual(def.body.sortingCriteria, [{ column: { title: 'Points' }, sortingDirection: 'DESCENDING' }]);
  assert.deepEqual((await reportRows(id)).rows, ['Gamma | 8 | ', 'Beta | 5 | ', 'Alpha | 3 | ', 'Delta | 2 | ']);

  // Edit: shown as chosen; Task ascending instead
  dlg = await openEdit(id, 'Sorted ledgers', 'Notes');
  assert.equal(await dlg.getByLabel('Sort by').inputValue(), 'Points');
  assert.equal(await dlg.getByLabel('Order').inputValue(), 'DESCENDING');
  await dlg.getByLabel('Sort by').selectOption({ label: 'Task' });
  await dlg.getByLabel('Order').selectOption({ label: 'Ascending' });
  await dlg.getByRole('button', { name: 'Save' }).click();
  await dlg.waitFor({ state: 'detached' });
  await eventually(async () => [...(await gridRows(page)).values()].map((r) => r[0]), (rows) => rows.join() === 'Alpha,Beta,Delta,Gamma', 'the page shows the rows by Task');
  def = await definitionColumns(id);
  assert.deepEqual(def.body.sortingCriteria, [{ column: { title: 'Task' }, sortingDirection: 'ASCENDING' }]);
  assert.deepEqual((await reportRows(id)).rows.map((r) => r.split(' | ')[0]), ['Alpha', 'Beta', 'Delta', 'Gamma']);

  // Edit: (no sort) takes it off: the sheets' order again
  dlg = await openEdit(id, 'Sorted ledgers', 'Notes');
  assert.equal(await dlg.getByLabel('Sort by').inputValue(), 'Task');
  await dlg.getByLabel('Sort by').selectOption({ label: '(no sort)' });
  assert.equal(await dlg.getByLabel('Order').isDisabled(), true);
  await dlg.getByRole('button', { name: 'Save' }).click();
  await dlg.waitFor({ state: 'detached' });
  def = await definitionColumns(id);
  assert.equal(def.body.sortingCriteria, undefined);
  assert.deepEqual((await reportRows(id)).rows.map((r) => r.split(' | ')[0]), ['Alpha', 'Beta', 'Gamma', 'Delta']);
});
