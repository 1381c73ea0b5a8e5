import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import smartsheet from 'smartsheet';
import { serverForFile } from '../helpers/setup.ts';
import { allEvents, client } from '../helpers/http.ts';
import { assertError, cellOf, makeSheet, makeUser } from '../helpers/sheets.ts';
import { pngBytes } from '../helpers/images.ts';

const s0 = serverForFile();

type Field = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function versionOf(id: number): Promise<number> {
  return (await s0.api.get(`/sheets/${id}/version`)).body.version as number;
}

async function fieldsOf(id: number, query = ''): Promise<Field[]> {
  const res = await s0.api.get(`/sheets/${id}/summary${query}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.fields as Field[];
}

async function budgetSheet(tag: string) {
  const sh = await makeSheet(s0.api, `Budget ${tag}`, [
    { title: 'Item', type: 'TEXT_NUMBER', primary: true },
    { title: 'Cost', type: 'TEXT_NUMBER' },
    { title: 'Done', type: 'CHECKBOX' },
  ]);
  const add = await s0.api.post(`/sheets/${sh.id}/rows`, [
    { toBottom: true, cells: [{ columnId: sh.col.Item!.id, value: 'a' }, { columnId: sh.col.Cost!.id, value: 10 }] },
    { toBottom: true, cells: [{ columnId: sh.col.Item!.id, value: 'b' }, { columnId: sh.col.Cost!.id, value: 32 }] },
  ]);
  assert.equal(add.status, 200, JSON.stringify(add.body));
  return { ...sh, rows: add.body.result as Array<{ id: number }> };
}

describe('sheet summary', () => {
  test('add, get, paged fields, update, delete; each bumps the version and records events', async () => {
    const sh = await budgetSheet('crud');
    const v0 = await versionOf(sh.id);
    assert.deepEqual(await fieldsOf(sh.id), []);

    const add = await s0.api.post(`/sheets/${sh.id}/summary/fields`, [
      { title: 'Owner', type: 'CONTACT_LIST', objectValue: { objectType: 'CONTACT', email: 'jane@example.com', name: 'Jane Roe' } },
      { title: 'Status', type: 'PICKLIST', options: ['Open', 'Closed'], objectValue: 'Open' },
      { title: 'Due', type: 'DATE', objectValue: { objectType: 'DATE', value: '2026-12-01' } },
      { title: 'Note', objectValue: 'hello', index: 0 },
    ]);
    assert.equal(add.status, 200, JSON.stringify(add.body));
    assert.equal(add.body.message, 'SUCCESS');
    assert.equal(add.body.resultCode, 0);
    assert.equal(add.body.version, v0 + 1);
    const added = add.body.result as Field[];
    assert.equal(added.length, 4);
    assert.equal(added[0]!.type, 'CONTACT_LIST');
    assert.deepEqual(added[0]!.objectValue, { objectType: 'CONTACT', email: 'jane@example.com', name: 'Jane Roe' });
    assert.equal(added[0]!.displayValue, 'Jane Roe');
    assert.equal(added[1]!.objectValue, 'Open');
    assert.deepEqual(added[1]!.options, ['Open', 'Closed']);
    assert.deepEqual(added[2]!.objectValue, { objectType: 'DATE', value: '2026-12-01' });
    assert.equal(added[3]!.type, 'TEXT_NUMBER');
    assert.equal(added[3]!.locked, false);
    assert.equal(await versionOf(sh.id), v0 + 1);

    // index order: Note went first
    let fields = await fieldsOf(sh.id);
    assert.deepEqual(fields.map((f) => f.title), ['Note', 'Owner', 'Status', 'Due']);
    assert.deepEqual(fields.map((f) => f.index), [0, 1, 2, 3]);
    assert.equal(typeof fields[0]!.createdAt, 'string');
    assert.equal(fields[0]!.createdBy, undefined);
    const withWriter = await fieldsOf(sh.id, '?include=writerInfo&exclude=displayValue');
    assert.equal(withWriter[1]!.createdBy.email, 'admin@example.com');
    assert.equal(withWriter[1]!.modifiedBy.email, 'admin@example.com');
    assert.equal(withWriter[1]!.displayValue, undefined);
    const numeric = await fieldsOf(sh.id, '?numericDates=true');
    assert.deepEqual(numeric[3]!.objectValue, { objectType: 'DATE', value: Date.UTC(2026, 11, 1) });

    const page = await s0.api.get(`/sheets/${sh.id}/summary/fields?pageSize=3&page=2`);
    assert.equal(page.status, 200);
    assert.equal(page.body.totalCount, 4);
    assert.equal(page.body.totalPages, 2);
    assert.equal(page.body.pageNumber, 2);
    assert.deepEqual(page.body.data.map((f: Field) => f.title), ['Due']);
    const all = await s0.api.get(`/sheets/${sh.id}/summary/fields?includeAll=true&pageSize=1`);
    assert.equal(all.body.data.length, 4);

    const byTitle = Object.fromEntries(fields.map((f) => [f.title, f]));
    const upd = await s0.api.put(`/sheets/${sh.id}/summary/fields`, [
      { id: byTitle.Status.id, objectValue: 'Closed' },
      { id: byTitle.Note.id, title: 'Notes', index: 3 },
    ]);
    assert.equal(upd.status, 200, JSON.stringify(upd.body));
    assert.equal(upd.body.version, v0 + 2);
    assert.equal(upd.body.result[0].objectValue, 'Closed');
    fields = await fieldsOf(sh.id);
    assert.deepEqual(fields.map((f) => f.title), ['Owner', 'Status', 'Due', 'Notes']);

    // a type change converts the value as a column's would
    const conv = await s0.api.put(`/sheets/${sh.id}/summary/fields`, [{ id: byTitle.Due.id, type: 'TEXT_NUMBER' }]);
    assert.equal(conv.status, 200, JSON.stringify(conv.body));
    assert.equal(conv.body.result[0].type, 'TEXT_NUMBER');
    assert.equal(conv.body.result[0].objectValue, '2026-12-01');

    const del = await s0.api.del(`/sheets/${sh.id}/summary/fields?ids=${byTitle.Owner.id},${byTitle.Due.id}`);
    assert.equal(del.status, 200, JSON.stringify(del.body));
    assert.deepEqual([...del.body.result].sort(), [byTitle.Owner.id, byTitle.Due.id].sort());
    assert.equal(del.body.version, v0 + 4);
    fields = await fieldsOf(sh.id);
    assert.deepEqual(fields.map((f) => [f.title, f.index]), [['Status', 0], ['Notes', 1]]);

    // unknown ids: 1006 and nothing goes, unless ignoreSummaryFieldsNotFound
    assertError(await s0.api.del(`/sheets/${sh.id}/summary/fields?ids=${byTitle.Status.id},123456`), 404, 1006);
    assert.equal((await fieldsOf(sh.id)).length, 2);
    const ign = await s0.api.del(`/sheets/${sh.id}/summary/fields?ids=${byTitle.Status.id},123456&ignoreSummaryFieldsNotFound=true`);
    assert.equal(ign.status, 200, JSON.stringify(ign.body));
    assert.deepEqual(ign.body.result, [byTitle.Status.id]);
    assert.deepEqual((await fieldsOf(sh.id)).map((f) => f.title), ['Notes']);

    // this sheet's fields' events, read to the end of the change log: against a cluster every
    // test file writes to it, and they can lie past the first page
    const ids = new Set(fields.map((f) => f.id as number).concat(Object.values(byTitle as Record<string, Field>).map((f) => f.id as number)));
    const mine = (await allEvents<{ objectType: string; action: string; objectId: number }>(s0.api)).filter((e) => e.objectType === 'SUMMARY_FIELD' && ids.has(e.objectId));
    const actions = (a: string) => mine.filter((e) => e.action === a).length;
    assert.deepEqual([actions('CREATE'), actions('UPDATE'), actions('DELETE')], [4, 3, 3], JSON.stringify(mine));
  });

  test('Get Sheet with include=summary', async () => {
    const sh = await budgetSheet('get');
    await s0.api.post(`/sheets/${sh.id}/summary/fields`, [{ title: 'Goal', objectValue: 100 }]);
    const res = await s0.api.get(`/sheets/${sh.id}?include=summary`);
    assert.equal(res.status, 200);
    assert.equal(res.body.summary.fields.length, 1);
    assert.equal(res.body.summary.fields[0].objectValue, 100);
    assert.equal(res.body.rows.length, 2);
    const plain = await s0.api.get(`/sheets/${sh.id}`);
    assert.equal(plain.body.summary, undefined);
  });

  test('allowPartialSuccess: valid fields are added or updated, each refused one is a failedItem (index, error); all refused changes nothing', async () => {
    const sh = await budgetSheet('partial');
    await s0.api.post(`/sheets/${sh.id}/summary/fields`, [{ title: 'Total' }]);
    const v = await versionOf(sh.id);
    const add = await s0.api.post(`/sheets/${sh.id}/summary/fields?allowPartialSuccess=true`, [
      { title: 'Owner' }, { title: 'total' }, { title: 'Due', type: 'DATE', symbol: 'RYG' }, { title: 'owner' }, { title: 'Budget', type: 'TEXT_NUMBER', objectValue: 12 },
    ]);
    assert.equal(add.status, 200, JSON.stringify(add.body));
    assert.equal(add.body.message, 'PARTIAL_SUCCESS');
    assert.equal(add.body.resultCode, 3);
    assert.deepEqual(add.body.result.map((f: Field) => f.title), ['Owner', 'Budget']);
    assert.deepEqual(add.body.failedItems.map((f: { index: number; error: { errorCode: number } }) => [f.index, f.error.errorCode]), [[1, 1193], [2, 1198], [3, 1208]]);
    assert.equal(typeof add.body.failedItems[0].error.message, 'string');
    assert.deepEqual((await fieldsOf(sh.id)).map((f) => f.title), ['Total', 'Owner', 'Budget']);

    // renameIfConflict with partial success: the conflict is renamed, not refused
    const renamed = await s0.api.post(`/sheets/${sh.id}/summary/fields?allowPartialSuccess=true&renameIfConflict=true`, [{ title: 'Total' }, { title: 5 }]);
    assert.equal(renamed.body.message, 'PARTIAL_SUCCESS');
    assert.equal(renamed.body.result[0].title, 'Total (1)');
    assert.deepEqual(renamed.body.failedItems.map((f: { index: number }) => f.index), [1]);

    const fields = await fieldsOf(sh.id);
    const owner = fields.find((f) => f.title === 'Owner')!;
    const budget = fields.find((f) => f.title === 'Budget')!;
    const upd = await s0.api.put(`/sheets/${sh.id}/summary/fields?allowPartialSuccess=true`, [
      { id: owner.id, title: 'Lead' }, { id: 42, title: 'Q' }, { id: budget.id, title: 'total' }, { id: budget.id, objectValue: 99 },
    ]);
    assert.equal(upd.status, 200, JSON.stringify(upd.body));
    assert.equal(upd.body.message, 'PARTIAL_SUCCESS');
    assert.deepEqual(upd.body.failedItems.map((f: { index: number; error: { errorCode: number } }) => [f.index, f.error.errorCode]), [[1, 1006], [2, 1193]]);
    assert.deepEqual(upd.body.result.map((f: Field) => f.id), [owner.id, budget.id]);
    const after = await fieldsOf(sh.id);
    assert.equal(after.find((f) => f.id === owner.id)!.title, 'Lead');
    assert.equal(after.find((f) => f.id === budget.id)!.title, 'Budget');

    // every item refused: nothing changes, the refusals are listed
    const v2 = await versionOf(sh.id);
    assert.ok(v2 > v);
    const none = await s0.api.post(`/sheets/${sh.id}/summary/fields?allowPartialSuccess=true`, [{ title: 'Lead' }]);
    assert.equal(none.status, 200, JSON.stringify(none.body));
    assert.deepEqual(none.body.result, []);
    assert.equal(none.body.failedItems[0].error.errorCode, 1193);
    assert.equal(await versionOf(sh.id), v2);
    // without the flag the request stays atomic
    assertError(await s0.api.post(`/sheets/${sh.id}/summary/fields`, [{ title: 'New' }, { title: 'Lead' }]), 400, 1193);
    assert.equal(await versionOf(sh.id), v2);
  });

  test('titles: unique (1193), unique in the request (1208), renameIfConflict; bad input changes nothing', async () => {
    const sh = await budgetSheet('titles');
    await s0.api.post(`/sheets/${sh.id}/summary/fields`, [{ title: 'Total' }]);
    const v = await versionOf(sh.id);
    assertError(await s0.api.post(`/sheets/${sh.id}/summary/fields`, [{ title: 'A' }, { title: 'total' }]), 400, 1193);
    assertError(await s0.api.post(`/sheets/${sh.id}/summary/fields`, [{ title: 'A' }, { title: 'a' }]), 400, 1208);
    assertError(await s0.api.post(`/sheets/${sh.id}/summary/fields`, [{ title: 'A', index: 1 }, { title: 'B', index: 1 }]), 400, 1195);
    assertError(await s0.api.post(`/sheets/${sh.id}/summary/fields`, [{ title: 'A', options: ['x'] }]), 400, 1194);
    assertError(await s0.api.post(`/sheets/${sh.id}/summary/fields`, [{ title: 'A', type: 'PICKLIST', symbol: 'RYG', options: ['x'] }]), 400, 1197);
    assertError(await s0.api.post(`/sheets/${sh.id}/summary/fields`, [{ title: 'A', type: 'DATE', symbol: 'RYG' }]), 400, 1198);
    assertError(await s0.api.post(`/sheets/${sh.id}/summary/fields`, [{ title: 5 }]), 400, 1191);
    assertError(await s0.api.post(`/sheets/${sh.id}/summary/fields`, [{ title: ' ' }]), 400, 1207);
    assertError(await s0.api.post(`/sheets/${sh.id}/summary/fields`, [{ title: 'A', image: { id: 'x' } }]), 400, 1201);
    assertError(await s0.api.post(`/sheets/${sh.id}/summary/fields`, [{ title: 'A', hyperlink: { url: 5 } }]), 400, 1202);
    assertError(await s0.api.post(`/sheets/${sh.id}/summary/fields`, [{ title: 'A', hyperlink: { sheetId: sh.id } }]), 400, 1203);
    assertError(await s0.api.post(`/sheets/${sh.id}/summary/fields`, [{ title: 'A', format: 'nonsense' }]), 400, 1206);
    assertError(await s0.api.post(`/sheets/${sh.id}/summary/fields`, [{ title: 'A', type: 'CHECKBOX', objectValue: 'not a bool' }]), 400, 1042);
    assertError(await s0.api.post(`/sheets/${sh.id}/summary/fields`, { title: 'A' }), 400, 1008);
    assert.equal(await versionOf(sh.id), v);
    assert.deepEqual((await fieldsOf(sh.id)).map((f) => f.title), ['Total']);

    const renamed = await s0.api.post(`/sheets/${sh.id}/summary/fields?renameIfConflict=true`, [{ title: 'Total' }, { title: 'Total (1)x' }]);
    assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
    assert.equal(renamed.body.result[0].title, 'Total (1)');
    const again = await s0.api.post(`/sheets/${sh.id}/summary/fields?renameIfConflict=true`, [{ title: 'Total' }]);
    assert.equal(again.body.result[0].title, 'Total (2)');

    const fields = await fieldsOf(sh.id);
    assertError(await s0.api.put(`/sheets/${sh.id}/summary/fields`, [{ id: fields[0]!.id, title: 'x' }, { id: fields[0]!.id, title: 'y' }]), 400, 1200);
    assertError(await s0.api.put(`/sheets/${sh.id}/summary/fields`, [{ id: fields[0]!.id, options: ['a'] }]), 400, 1196);
    assertError(await s0.api.put(`/sheets/${sh.id}/summary/fields`, [{ id: fields[0]!.id, title: 'Total (1)' }]), 400, 1193);
    assertError(await s0.api.put(`/sheets/${sh.id}/summary/fields`, [{ id: 42, title: 'Q' }]), 404, 1006);
    assertError(await s0.api.put(`/sheets/${sh.id}/summary/fields`, [{ title: 'Q' }]), 400, 1012);
  });

  test('formulas read cells and other fields and follow their inputs; cells read fields with [Title]#', async () => {
    const sh = await budgetSheet('fx');
    const add = await s0.api.post(`/sheets/${sh.id}/summary/fields`, [
      { title: 'Total', formula: '=SUM([Cost]:[Cost])' },
      { title: 'Rate', objectValue: 2 },
      { title: 'Doubled', formula: '=[Total]# * [Rate]#' },
      { title: 'First', formula: '=[Item]1' },
      { title: 'Loop', formula: '=[Loop]# + 1' },
    ]);
    assert.equal(add.status, 200, JSON.stringify(add.body));
    assert.equal(add.body.result[0].objectValue, 42);
    assert.equal(add.body.result[0].formula, '=SUM([Cost]:[Cost])');
    assert.equal(add.body.result[2].objectValue, 84);
    assert.equal(add.body.result[3].objectValue, 'a');
    assert.equal(add.body.result[4].objectValue, '#CIRCULAR REFERENCE');

    // a write to the sheet recomputes them, and bumps nothing more than that write did
    const upd = await s0.api.put(`/sheets/${sh.id}/rows`, [{ id: sh.rows[0]!.id, cells: [{ columnId: sh.col.Cost!.id, value: 20 }, { columnId: sh.col.Item!.id, value: 'z' }] }]);
    assert.equal(upd.status, 200, JSON.stringify(upd.body));
    let fields = Object.fromEntries((await fieldsOf(sh.id)).map((f) => [f.title, f]));
    assert.equal(fields.Total.objectValue, 52);
    assert.equal(fields.Doubled.objectValue, 104);
    assert.equal(fields.First.objectValue, 'z');

    // renaming a column keeps the formula on it
    const col = await s0.api.put(`/sheets/${sh.id}/columns/${sh.col.Cost!.id}`, { title: 'Price' });
    assert.equal(col.status, 200, JSON.stringify(col.body));
    fields = Object.fromEntries((await fieldsOf(sh.id)).map((f) => [f.title, f]));
    assert.equal(fields.Total.formula, '=SUM([Price]:[Price])');

    // a field's value written: formulas reading it follow
    const rate = await s0.api.put(`/sheets/${sh.id}/summary/fields`, [{ id: fields.Rate.id, objectValue: 3 }]);
    assert.equal(rate.status, 200, JSON.stringify(rate.body));
    fields = Object.fromEntries((await fieldsOf(sh.id)).map((f) => [f.title, f]));
    assert.equal(fields.Doubled.objectValue, 156);

    // a cell formula reads a field; it follows the field
    const cell = await s0.api.put(`/sheets/${sh.id}/rows`, [{ id: sh.rows[1]!.id, cells: [{ columnId: sh.col.Item!.id, formula: '=[Rate]# * 10' }] }]);
    assert.equal(cell.status, 200, JSON.stringify(cell.body));
    let row = (await s0.api.get(`/sheets/${sh.id}/rows/${sh.rows[1]!.id}`)).body;
    assert.equal(cellOf(row, sh.col.Item!.id).value, 30);
    assert.equal(cellOf(row, sh.col.Item!.id).formula, '=[Rate]# * 10');
    await s0.api.put(`/sheets/${sh.id}/summary/fields`, [{ id: fields.Rate.id, objectValue: 5 }]);
    row = (await s0.api.get(`/sheets/${sh.id}/rows/${sh.rows[1]!.id}`)).body;
    assert.equal(cellOf(row, sh.col.Item!.id).value, 50);
  });

  test('locked fields: editors edit unlocked values only; definitions are for admins', async () => {
    const sh = await budgetSheet('lock');
    const editor = await makeUser(s0.t, s0.api, 'summary-editor@example.com');
    const share = await s0.api.post(`/sheets/${sh.id}/shares`, [{ email: 'summary-editor@example.com', accessLevel: 'EDITOR' }]);
    assert.equal(share.status, 200, JSON.stringify(share.body));
    const add = await s0.api.post(`/sheets/${sh.id}/summary/fields`, [{ title: 'Open', objectValue: 'x' }, { title: 'Shut', objectValue: 'y', locked: true }]);
    const [open, shut] = add.body.result as Field[];
    assert.equal(shut!.locked, true);
    const ed = client(s0.t.base, editor.token);
    const seen = (await ed.get(`/sheets/${sh.id}/summary`)).body.fields as Field[];
    assert.equal(seen[1]!.lockedForUser, true);
    assert.equal(seen[0]!.lockedForUser, false);
    const ok = await ed.put(`/sheets/${sh.id}/summary/fields`, [{ id: open!.id, objectValue: 'edited' }]);
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assertError(await ed.put(`/sheets/${sh.id}/summary/fields`, [{ id: shut!.id, objectValue: 'no' }]), 403, 1192);
    // a field read and written back with a new value changes no definition
    const back = await ed.put(`/sheets/${sh.id}/summary/fields`, [{ ...seen[0], objectValue: 'again' }]);
    assert.equal(back.status, 200, JSON.stringify(back.body));
    const again = await ed.put(`/sheets/${sh.id}/summary/fields`, [{ id: open!.id, objectValue: 'edited' }]);
    assert.equal(again.status, 200);
    assertError(await ed.put(`/sheets/${sh.id}/summary/fields`, [{ id: open!.id, title: 'Renamed' }]), 403, 1004);
    assertError(await ed.post(`/sheets/${sh.id}/summary/fields`, [{ title: 'New' }]), 403, 1004);
    assertError(await ed.del(`/sheets/${sh.id}/summary/fields?ids=${open!.id}`), 403, 1004);
    const admin = await s0.api.put(`/sheets/${sh.id}/summary/fields`, [{ id: shut!.id, objectValue: 'admin' }]);
    assert.equal(admin.status, 200);
    assert.deepEqual((await fieldsOf(sh.id)).map((f) => f.objectValue), ['edited', 'admin']);
  });

  test('MULTI_PICKLIST fields follow the level parameter like columns', async () => {
    const sh = await budgetSheet('level');
    const add = await s0.api.post(`/sheets/${sh.id}/summary/fields?level=2`, [{ title: 'Tags', type: 'MULTI_PICKLIST', options: ['a', 'b'], objectValue: { objectType: 'MULTI_PICKLIST', values: ['a', 'b'] } }]);
    assert.equal(add.status, 200, JSON.stringify(add.body));
    const new_ = (await fieldsOf(sh.id, '?level=2'))[0]!;
    assert.equal(new_.type, 'MULTI_PICKLIST');
    assert.deepEqual(new_.objectValue, { objectType: 'MULTI_PICKLIST', values: ['a', 'b'] });
    const old = (await fieldsOf(sh.id))[0]!;
    assert.equal(old.type, 'TEXT_NUMBER');
    assert.equal(old.objectValue, 'a, b');
  });

  test('hyperlinks: a URL, or a sheet the caller can see (1204 otherwise), whose name is the value', async () => {
    const sh = await budgetSheet('links');
    const other = await budgetSheet('links target');
    const add = await s0.api.post(`/sheets/${sh.id}/summary/fields`, [
      { title: 'Site', hyperlink: { url: 'https://example.com/x' } },
      { title: 'Other', hyperlink: { sheetId: other.id } },
    ]);
    assert.equal(add.status, 200, JSON.stringify(add.body));
    assert.deepEqual(add.body.result[0].hyperlink, { url: 'https://example.com/x' });
    assert.equal(add.body.result[0].objectValue, 'https://example.com/x');
    assert.equal(add.body.result[1].hyperlink.sheetId, other.id);
    assert.match(add.body.result[1].hyperlink.url, /\/sheets\//);
    assert.equal(add.body.result[1].objectValue, 'Budget links target');
    assertError(await s0.api.post(`/sheets/${sh.id}/summary/fields`, [{ title: 'Nowhere', hyperlink: { sheetId: 424242 } }]), 404, 1204);
  });

  test('formats: include=format shows them', async () => {
    const sh = await budgetSheet('fmt');
    const fmt = ',,1,,,,,,,,,,,,,,';
    const add = await s0.api.post(`/sheets/${sh.id}/summary/fields`, [{ title: 'Bold', objectValue: 'b', format: fmt }]);
    assert.equal(add.status, 200, JSON.stringify(add.body));
    const shown = await fieldsOf(sh.id, '?include=format');
    assert.equal(shown[0]!.format, fmt);
    assert.equal((await fieldsOf(sh.id))[0]!.format, undefined);
  });

  test('Add Image to Summary Field: stored like cell images, served through image URLs', async () => {
    const sh = await budgetSheet('img');
    const add = await s0.api.post(`/sheets/${sh.id}/summary/fields`, [{ title: 'Logo', objectValue: 'text first' }]);
    const field = add.body.result[0] as Field;
    const png = pngBytes(3, 2, 7);
    const up = await s0.api.call('POST', `/sheets/${sh.id}/summary/fields/${field.id}/images?altText=our%20logo`, {
      raw: png, headers: { 'content-type': 'image/png', 'content-disposition': 'attachment; filename="logo.png"' },
    });
    assert.equal(up.status, 200, JSON.stringify(up.body));
    assert.equal(up.body.result.image.width, 3);
    assert.equal(up.body.result.image.height, 2);
    assert.equal(up.body.result.image.altText, 'our logo');
    assert.equal(up.body.result.objectValue, undefined);
    const imageId = up.body.result.image.id as string;
    const fields = await fieldsOf(sh.id, '?exclude=imageAltText');
    assert.deepEqual(fields[0]!.image, { id: imageId, width: 3, height: 2 });
    const urls = await s0.api.post('/imageurls', [{ imageId }]);
    assert.equal(urls.status, 200, JSON.stringify(urls.body));
    const got = await fetch(urls.body.imageUrls[0].url);
    assert.equal(got.status, 200);
    assert.deepEqual(Buffer.from(await got.arrayBuffer()), png);

    assertError(await s0.api.call('POST', `/sheets/${sh.id}/summary/fields/${field.id}/images`, { raw: Buffer.from('not an image'), headers: { 'content-type': 'application/octet-stream' } }), 400, 1091);
    assertError(await s0.api.call('POST', `/sheets/${sh.id}/summary/fields/999/images`, { raw: png, headers: { 'content-type': 'image/png' } }), 404, 1006);
  });
});

describe('sheet summary in copies', () => {
  test('Copy Sheet takes the fields along: values, formulas on the copy\'s columns and rows, images', async () => {
    const sh = await budgetSheet('copy');
    const add = await s0.api.post(`/sheets/${sh.id}/summary/fields`, [
      { title: 'Total', formula: '=SUM([Cost]:[Cost])' },
      { title: 'First', formula: '=[Cost]1' },
      { title: 'Pic', objectValue: 'x' },
    ]);
    assert.equal(add.status, 200, JSON.stringify(add.body));
    const up = await s0.api.call('POST', `/sheets/${sh.id}/summary/fields/${add.body.result[2].id}/images`, { raw: pngBytes(2, 2, 3), headers: { 'content-type': 'image/png' } });
    assert.equal(up.status, 200, JSON.stringify(up.body));
    for (const [include, first] of [['data', 10], ['', '#REF']] as const) {
      const copy = await s0.api.post(`/sheets/${sh.id}/copy${include ? `?include=${include}` : ''}`, { destinationType: 'home', newName: `Copy ${include}` });
      assert.equal(copy.status, 200, JSON.stringify(copy.body));
      const newId = copy.body.result.id as number;
      const fields = await fieldsOf(newId);
      assert.deepEqual(fields.map((f) => f.title), ['Total', 'First', 'Pic']);
      assert.ok(fields.every((f, i) => f.id !== add.body.result[i].id));
      assert.equal(fields[0]!.formula, '=SUM([Cost]:[Cost])');
      assert.equal(fields[1]!.objectValue, first);
      assert.equal(fields[2]!.image.id, up.body.result.image.id);
      const urls = await s0.api.post('/imageurls', [{ imageId: fields[2]!.image.id }]);
      assert.ok(urls.body.imageUrls[0].url, JSON.stringify(urls.body));
      // the copy's formulas read the copy: a write there recomputes them
      const copied = (await s0.api.get(`/sheets/${newId}`)).body;
      const cost = copied.columns.find((c: { title: string }) => c.title === 'Cost').id as number;
      if (include === 'data') {
        assert.equal(fields[1]!.formula, '=[Cost]1');
        const w = await s0.api.put(`/sheets/${newId}/rows`, [{ id: copied.rows[0].id, cells: [{ columnId: cost, value: 100 }] }]);
        assert.equal(w.status, 200, JSON.stringify(w.body));
        const after = await fieldsOf(newId);
        assert.equal(after[0]!.objectValue, 132);
        assert.equal(after[1]!.objectValue, 100);
      } else {
        assert.equal(fields[1]!.formula, '=#REF');
      }
    }
    // the source is unchanged
    assert.equal((await fieldsOf(sh.id))[0]!.objectValue, 42);
  });
});

describe('sheet summary through the official SDK', () => {
  test('add, get, get fields, update, add image, delete', async () => {
    const sh = await budgetSheet('sdk');
    const c = smartsheet.createClient({ accessToken: s0.t.adminToken, baseUrl: s0.t.base + '/', logLevel: 'error' });
    const added = await c.sheets.addSummaryFields({ sheetId: sh.id, body: [{ type: 'TEXT_NUMBER', objectValue: 'Sally Smart', index: 0, title: 'Author' }, { title: 'Sum', formula: '=SUM([Cost]:[Cost])' }] });
    assert.equal(added.message, 'SUCCESS');
    assert.equal(added.result[1].objectValue, 42);
    const summary = await c.sheets.getSummary({ sheetId: sh.id, queryParameters: { include: 'writerInfo' } });
    assert.deepEqual(summary.fields.map((f: Field) => f.title), ['Author', 'Sum']);
    assert.equal(summary.fields[0].createdBy.email, 'admin@example.com');
    const paged = await c.sheets.getSummaryFields({ sheetId: sh.id, queryParameters: { pageSize: 1, page: 2 } });
    assert.equal(paged.totalCount, 2);
    assert.equal(paged.data[0].title, 'Sum');
    const upd = await c.sheets.updateSummaryFields({ sheetId: sh.id, body: [{ id: added.result[0].id, objectValue: 'Accepted' }] });
    assert.equal(upd.result[0].objectValue, 'Accepted');

    const dir = await mkdtemp(join(tmpdir(), 'sheetd-summary-sdk-'));
    try {
      const path = join(dir, 'logo.png');
      await writeFile(path, pngBytes(4, 5, 1));
      const img = await c.sheets.addSummaryFieldImage({ sheetId: sh.id, fieldId: added.result[0].id, path, fileName: 'logo.png', queryParameters: { altText: 'Logo' } });
      assert.equal(img.message, 'SUCCESS');
      assert.deepEqual({ ...img.result.image, id: 'x' }, { id: 'x', width: 4, height: 5, altText: 'Logo' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }

    const del = await c.sheets.deleteSummaryFields({ sheetId: sh.id, queryParameters: { ids: `${added.result[0].id},${added.result[1].id}` } });
    assert.deepEqual([...del.result].sort(), [added.result[0].id, added.result[1].id].sort());
    assert.deepEqual((await c.sheets.getSummary({ sheetId: sh.id })).fields, []);
  });
});
