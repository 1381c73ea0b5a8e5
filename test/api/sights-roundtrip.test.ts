import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { serverForFile } from '../helpers/setup.ts';
import { dashboardWidgets, taskPointsSheet } from '../helpers/sights.ts';
import { client, type Client } from '../helpers/http.ts';
import { assertError, makeUser } from '../helpers/sheets.ts';

// A dashboard read with Get Dashboard and written back with PUT /sheetd/sights as it was read
// (what an editor, the web app's included, does) keeps every widget as it was; and what the
// writer cannot see (a shortcut to a sheet not shared to it, a METRIC of such a sheet, a link
// to it) is kept, not dropped, by a writer who saves the rest.
const s = serverForFile();

const sheetWithRows = taskPointsSheet;

type Widget = { id: number; type: string; version: number; contents: Record<string, unknown> } & Record<string, unknown>;

/** A dashboard over two sheets (one to be shared, one not) and a report, with a widget of each type. */
async function dashboard(tag: string) {
  const open = await sheetWithRows(s.api, `${tag} open`, [[`${tag} alpha`, 5], [`${tag} beta`, 7]]);
  const closed = await sheetWithRows(s.api, `${tag} closed`, [[`${tag} secret`, 9]]);
  const rep = await s.api.post('/sheetd/reports', { name: `${tag} report`, scope: { sheets: [{ id: closed.id }] }, columns: [{ title: 'Task', primary: true }] });
  assert.equal(rep.status, 200, JSON.stringify(rep.body));
  const reportId = rep.body.result.id as number;
  const widgets = [
    { type: 'TITLE', xPosition: 0, yPosition: 0, width: 12, height: 1, contents: { htmlContent: `<p>${tag} heading</p>`, hyperlink: { interactionType: 'SMARTSHEET_ITEM', sheetId: closed.id } } },
    { type: 'RICHTEXT', title: 'Notes', xPosition: 0, yPosition: 1, width: 6, height: 2, viewMode: 2, contents: { htmlContent: `<p>${tag} notes</p>` } },
    { type: 'METRIC', title: 'Open points', xPosition: 6, yPosition: 1, width: 3, height: 2, contents: { sheetId: open.id, cellData: [{ rowId: open.rowIds[0], columnId: open.col.Points!.id, label: 'Alpha' }, { rowId: open.rowIds[1], columnId: open.col.Task!.id }], hyperlink: { interactionType: 'SMARTSHEET_ITEM', sheetId: open.id } } },
    { type: 'METRIC', title: 'Closed points', xPosition: 9, yPosition: 1, width: 3, height: 2, contents: { sheetId: closed.id, cellData: [{ rowId: closed.rowIds[0], columnId: closed.col.Points!.id }] } },
    { type: 'GRIDGANTT', xPosition: 0, yPosition: 3, width: 12, height: 4, contents: { reportId } },
    { type: 'SHORTCUTLIST', xPosition: 0, yPosition: 7, width: 4, height: 2, contents: { shortcutData: [{ label: 'Open', hyperlink: { sheetId: open.id } }, { label: 'Closed', hyperlink: { sheetId: closed.id } }, { hyperlink: { reportId } }, { label: 'Docs', hyperlink: { url: 'https://example.com/docs' } }] } },
    { type: 'WEBCONTENT', xPosition: 4, yPosition: 7, width: 4, height: 2, contents: { url: 'https://example.com/embed' } },
    { type: 'CHART', xPosition: 0, yPosition: 9, width: 6, height: 3, contents: { sheetId: open.id, selectionRanges: [{ sourceColumnId1: open.col.Task!.id, sourceColumnId2: open.col.Points!.id, sourceRowId1: open.rowIds[0], sourceRowId2: open.rowIds[1] }], series: [{ seriesType: 'BAR', title: 'Points' }] } },
    { type: 'SHORTCUT', xPosition: 6, yPosition: 9, width: 3, height: 1, contents: { shortcutData: [{ hyperlink: { url: 'https://example.com/one' } }] } },
    { type: 'SHORTCUTICON', xPosition: 9, yPosition: 9, width: 3, height: 1, contents: { shortcutData: [{ label: 'Report', hyperlink: { reportId } }] } },
  ];
  const created = await s.api.post('/sheetd/sights', { name: `${tag} dashboard`, widgets });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  return { open, closed, reportId, sightId: created.body.result.id as number };
}

/** The widgets without what a write changes by itself (each kept widget's version). */
const unversioned = (widgets: Widget[]) => widgets.map(({ version: _v, ...w }) => w);

const widgetsOf = (api: Client, id: number) => dashboardWidgets<Widget>(api, id);

describe('Get Dashboard written back with PUT /sheetd/sights', () => {
  test('the widgets as read, sent back as they are, change nothing but their versions', async () => {
    const d = await dashboard('rt1');
    const before = await widgetsOf(s.api, d.sightId);
    const put = await s.api.put(`/sheetd/sights/${d.sightId}`, { widgets: before });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    const after = await widgetsOf(s.api, d.sightId);
    assert.deepEqual(unversioned(after), unversioned(before));
    assert.deepEqual(after.map((w) => w.version), before.map((w) => w.version + 1));
    // the stored definition keeps ids, not the links' urls or the values read live
    const def = put.body.result.widgets as Widget[];
    const metric = def.find((w) => w.title === 'Open points')!;
    assert.equal(JSON.stringify(metric.contents).includes('objectValue'), false);
    assert.equal((metric.contents as { columns?: unknown }).columns, undefined);
    assert.deepEqual((metric.contents as { hyperlink: unknown }).hyperlink, { interactionType: 'SMARTSHEET_ITEM', sheetId: d.open.id });
    assert.equal(def.find((w) => w.type === 'GRIDGANTT')!.contents.htmlContent, undefined);
    // labels Get Dashboard filled in (a column's title, an item's name) are not stored as labels:
    // they go on following the column and the item
    assert.deepEqual((metric.contents.cellData as Array<{ label?: string }>).map((c) => c.label), ['Alpha', undefined]);
    const list = def.find((w) => w.type === 'SHORTCUTLIST')!.contents.shortcutData as Array<{ label?: string; hyperlink: Record<string, unknown> }>;
    assert.deepEqual(list.map((i) => i.label), ['Open', 'Closed', undefined, 'Docs']);
    assert.deepEqual(list[2]!.hyperlink, { reportId: d.reportId });
    assert.equal((await s.api.put(`/sheets/${d.open.id}/columns/${d.open.col.Task!.id}`, { title: 'Job' })).status, 200);
    assert.equal((await s.api.put(`/sheetd/reports/${d.reportId}`, { name: 'rt1 renamed' })).status, 200);
    const renamed = await widgetsOf(s.api, d.sightId);
    assert.equal((renamed.find((w) => w.title === 'Open points')!.contents.cellData as Array<{ label: string }>)[1]!.label, 'Job');
    assert.equal((renamed.find((w) => w.type === 'SHORTCUTLIST')!.contents.shortcutData as Array<{ label: string }>)[2]!.label, 'rt1 renamed');
    // a cell read live still follows the sheet after the write
    const cell = await s.api.put(`/sheets/${d.open.id}/rows`, [{ id: d.open.rowIds[0], cells: [{ columnId: d.open.col.Points!.id, value: 11 }] }]);
    assert.equal(cell.status, 200, JSON.stringify(cell.body));
    const live = (await widgetsOf(s.api, d.sightId)).find((w) => w.title === 'Open points')!;
    assert.equal((live.contents.cellData as Array<{ objectValue: unknown }>)[0]!.objectValue, 11);
  });

  test('an ADMIN who cannot see some of what the widgets name saves the rest without dropping it', async () => {
    const d = await dashboard('rt2');
    const u = await makeUser(s.t, s.api, 'rt2.admin@example.com');
    const them = client(s.t.base, u.token);
    assert.equal((await s.api.post(`/sights/${d.sightId}/shares`, { email: 'rt2.admin@example.com', accessLevel: 'ADMIN' })).status, 200);
    assert.equal((await s.api.post(`/sheets/${d.open.id}/shares`, { email: 'rt2.admin@example.com', accessLevel: 'VIEWER' })).status, 200);
    const ownersBefore = await widgetsOf(s.api, d.sightId);
    const theirs = await widgetsOf(them, d.sightId);
    // what they see: the closed sheet's shortcut, the report's and the title's link left out
    const list = theirs.find((w) => w.type === 'SHORTCUTLIST')!;
    assert.deepEqual((list.contents.shortcutData as Array<{ label: string }>).map((i) => i.label), ['Open', 'Docs']);
    assert.equal(theirs.find((w) => w.type === 'TITLE')!.contents.hyperlink, undefined);
    // they change the notes' text and send everything else back as they read it
    const notes = theirs.find((w) => w.type === 'RICHTEXT')!;
    notes.contents = { ...notes.contents, htmlContent: '<p>rt2 new notes</p>' };
    const put = await them.put(`/sheetd/sights/${d.sightId}`, { widgets: theirs });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    const ownersAfter = await widgetsOf(s.api, d.sightId);
    const expected = unversioned(ownersBefore).map((w) => (w.type === 'RICHTEXT' ? { ...w, contents: { ...w.contents, htmlContent: '<p>rt2 new notes</p>' } } : w));
    assert.deepEqual(unversioned(ownersAfter), expected);
    // a shortcut they remove on purpose goes; the hidden ones stay
    const list2 = (await widgetsOf(them, d.sightId)).map((w) => (w.type === 'SHORTCUTLIST' ? { ...w, contents: { ...w.contents, shortcutData: (w.contents.shortcutData as Array<{ label: string }>).filter((i) => i.label !== 'Docs') } } : w));
    assert.equal((await them.put(`/sheetd/sights/${d.sightId}`, { widgets: list2 })).status, 200);
    const items = (await widgetsOf(s.api, d.sightId)).find((w) => w.type === 'SHORTCUTLIST')!.contents.shortcutData as Array<{ label: string }>;
    assert.deepEqual(items.map((i) => i.label), ['Open', 'Closed', 'rt2 report']);
    // a hidden widget's link they remove on purpose (hyperlink: null) goes
    const noLink = (await widgetsOf(them, d.sightId)).map((w) => (w.type === 'TITLE' ? { ...w, contents: { ...w.contents, hyperlink: null } } : w));
    assert.equal((await them.put(`/sheetd/sights/${d.sightId}`, { widgets: noLink })).status, 200);
    assert.equal((await widgetsOf(s.api, d.sightId)).find((w) => w.type === 'TITLE')!.contents.hyperlink, undefined);
    // what they add must still be something they can see
    const added = [...(await widgetsOf(them, d.sightId)), { type: 'METRIC', xPosition: 0, yPosition: 20, width: 3, height: 2, contents: { sheetId: d.closed.id, cellData: [{ rowId: d.closed.rowIds[0], columnId: d.closed.col.Task!.id }] } }];
    assertError(await them.put(`/sheetd/sights/${d.sightId}`, { widgets: added }), 404, 1006);
    // and a kept widget pointed at another hidden sheet is a change they cannot make
    const moved = (await widgetsOf(them, d.sightId)).map((w) => (w.title === 'Open points' ? { ...w, contents: { ...w.contents, sheetId: d.closed.id, cellData: [{ rowId: d.closed.rowIds[0], columnId: d.closed.col.Task!.id }] } } : w));
    assertError(await them.put(`/sheetd/sights/${d.sightId}`, { widgets: moved }), 404, 1006);
  });
});
