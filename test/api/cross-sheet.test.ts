import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import smartsheet from 'smartsheet';
import { serverForFile } from '../helpers/setup.ts';
import { client } from '../helpers/http.ts';
import { assertError, cellOf, makeSheet, makeUser } from '../helpers/sheets.ts';

const s0 = serverForFile();

type Row = { id: number; rowNumber: number; cells: Array<{ columnId: number; value?: unknown; displayValue?: string; formula?: string; linkInFromCell?: Record<string, unknown>; linksOutToCells?: Array<Record<string, unknown>> }> };

async function rowsOf(id: number, query = ''): Promise<Row[]> {
  const res = await s0.api.get(`/sheets/${id}${query}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.rows as Row[];
}

async function versionOf(id: number): Promise<number> {
  const res = await s0.api.get(`/sheets/${id}/version`);
  return res.body.version as number;
}

/** A source sheet "Prices" (Item, Price) with three rows, and a target sheet. */
async function twoSheets(tag: string) {
  const src = await makeSheet(s0.api, `Prices ${tag}`, [
    { title: 'Item', type: 'TEXT_NUMBER', primary: true },
    { title: 'Price', type: 'TEXT_NUMBER' },
    { title: 'Due', type: 'DATE' },
  ]);
  const add = await s0.api.post(`/sheets/${src.id}/rows`, [
    { toBottom: true, cells: [{ columnId: src.col.Item!.id, value: 'apple' }, { columnId: src.col.Price!.id, value: 3 }] },
    { toBottom: true, cells: [{ columnId: src.col.Item!.id, value: 'pear' }, { columnId: src.col.Price!.id, value: 5 }] },
    { toBottom: true, cells: [{ columnId: src.col.Item!.id, value: 'plum' }, { columnId: src.col.Price!.id, value: 7 }, { columnId: src.col.Due!.id, value: '2026-03-04' }] },
  ]);
  assert.equal(add.status, 200, JSON.stringify(add.body));
  const srcRows = add.body.result as Row[];
  const dst = await makeSheet(s0.api, `Orders ${tag}`, [
    { title: 'Name', type: 'TEXT_NUMBER', primary: true },
    { title: 'Total', type: 'TEXT_NUMBER' },
    { title: 'When', type: 'TEXT_NUMBER' },
  ]);
  const dstAdd = await s0.api.post(`/sheets/${dst.id}/rows`, [{ toBottom: true, cells: [{ columnId: dst.col.Name!.id, value: 'one' }] }, { toBottom: true, cells: [{ columnId: dst.col.Name!.id, value: 'two' }] }]);
  assert.equal(dstAdd.status, 200, JSON.stringify(dstAdd.body));
  return { src, srcRows, dst, dstRows: dstAdd.body.result as Row[] };
}

describe('cross-sheet references', () => {
  test('create, list and get; {Name} in a formula reads the range and follows the source', async () => {
    const { src, srcRows, dst, dstRows } = await twoSheets('x1');
    const create = await s0.api.post(`/sheets/${dst.id}/crosssheetreferences`, { name: 'Price Range', sourceSheetId: src.id, startColumnId: src.col.Price!.id, endColumnId: src.col.Price!.id });
    assert.equal(create.status, 200, JSON.stringify(create.body));
    assert.equal(create.body.resultCode, 0);
    const ref = create.body.result;
    assert.equal(typeof ref.id, 'number');
    assert.deepEqual({ ...ref, id: 0 }, { id: 0, name: 'Price Range', sourceSheetId: src.id, startColumnId: src.col.Price!.id, endColumnId: src.col.Price!.id, status: 'OK' });

    const list = await s0.api.get(`/sheets/${dst.id}/crosssheetreferences`);
    assert.equal(list.status, 200);
    assert.equal(list.body.totalCount, 1);
    assert.deepEqual(list.body.data[0], ref);
    const one = await s0.api.get(`/sheets/${dst.id}/crosssheetreferences/${ref.id}`);
    assert.deepEqual(one.body, ref);
    assertError(await s0.api.get(`/sheets/${dst.id}/crosssheetreferences/12345`), 404, 1006);

    const set = await s0.api.put(`/sheets/${dst.id}/rows`, [
      { id: dstRows[0]!.id, cells: [{ columnId: dst.col.Total!.id, formula: '=SUM({Price Range})' }] },
      { id: dstRows[1]!.id, cells: [{ columnId: dst.col.Total!.id, formula: '=COUNTIF({price range}, >4)' }] },
    ]);
    assert.equal(set.status, 200, JSON.stringify(set.body));
    let rows = await rowsOf(dst.id);
    assert.equal(cellOf(rows[0]!, dst.col.Total!.id).value, 15);
    assert.equal(cellOf(rows[0]!, dst.col.Total!.id).formula, '=SUM({Price Range})');
    assert.equal(cellOf(rows[1]!, dst.col.Total!.id).value, 2);

    // the source changes: the referencing sheet follows, with a new version of its own
    const before = await versionOf(dst.id);
    const upd = await s0.api.put(`/sheets/${src.id}/rows`, { id: srcRows[0]!.id, cells: [{ columnId: src.col.Price!.id, value: 30 }] });
    assert.equal(upd.status, 200, JSON.stringify(upd.body));
    rows = await rowsOf(dst.id);
    assert.equal(cellOf(rows[0]!, dst.col.Total!.id).value, 42);
    assert.equal(cellOf(rows[1]!, dst.col.Total!.id).value, 3);
    assert.ok((await versionOf(dst.id)) > before);

    // rows added to the source are inside a whole-column reference
    await s0.api.post(`/sheets/${src.id}/rows`, { toBottom: true, cells: [{ columnId: src.col.Price!.id, value: 100 }] });
    rows = await rowsOf(dst.id);
    assert.equal(cellOf(rows[0]!, dst.col.Total!.id).value, 142);
  });

  test('a row range; deleting a bounding row breaks the reference (#REF, status BROKEN)', async () => {
    const { src, srcRows, dst, dstRows } = await twoSheets('x2');
    const create = await s0.api.post(`/sheets/${dst.id}/crosssheetreferences`, { sourceSheetId: src.id, startRowId: srcRows[0]!.id, endRowId: srcRows[1]!.id, startColumnId: src.col.Price!.id, endColumnId: src.col.Price!.id });
    assert.equal(create.status, 200, JSON.stringify(create.body));
    // the name is made up from the source's name when none is given
    assert.equal(create.body.result.name, `Prices x2 Range 1`);
    await s0.api.put(`/sheets/${dst.id}/rows`, { id: dstRows[0]!.id, cells: [{ columnId: dst.col.Total!.id, formula: '=SUM({Prices x2 Range 1})' }] });
    let rows = await rowsOf(dst.id);
    assert.equal(cellOf(rows[0]!, dst.col.Total!.id).value, 8);
    const del = await s0.api.del(`/sheets/${src.id}/rows?ids=${srcRows[1]!.id}`);
    assert.equal(del.status, 200);
    rows = await rowsOf(dst.id);
    assert.equal(cellOf(rows[0]!, dst.col.Total!.id).value, '#REF');
    const one = await s0.api.get(`/sheets/${dst.id}/crosssheetreferences/${create.body.result.id}`);
    assert.equal(one.body.status, 'BROKEN');
  });

  test('a formula naming a reference that does not exist yet shows #INVALID REF until it is created', async () => {
    const { src, dst, dstRows } = await twoSheets('x3');
    await s0.api.put(`/sheets/${dst.id}/rows`, { id: dstRows[0]!.id, cells: [{ columnId: dst.col.Total!.id, formula: '=SUM({Later})' }] });
    let rows = await rowsOf(dst.id);
    assert.equal(cellOf(rows[0]!, dst.col.Total!.id).value, '#INVALID REF');
    const create = await s0.api.post(`/sheets/${dst.id}/crosssheetreferences`, { name: 'Later', sourceSheetId: src.id, startColumnId: src.col.Price!.id, endColumnId: src.col.Price!.id });
    assert.equal(create.status, 200);
    rows = await rowsOf(dst.id);
    assert.equal(cellOf(rows[0]!, dst.col.Total!.id).value, 15);
  });

  test('bad requests are refused and create nothing', async () => {
    const { src, srcRows, dst } = await twoSheets('x4');
    const url = `/sheets/${dst.id}/crosssheetreferences`;
    const cols = { startColumnId: src.col.Price!.id, endColumnId: src.col.Price!.id };
    assertError(await s0.api.post(url, { name: 'a', ...cols }), 400, 1012);
    assertError(await s0.api.post(url, { name: 'a', sourceSheetId: src.id }), 400, 1012);
    assertError(await s0.api.post(url, { name: 'a', sourceSheetId: src.id, startColumnId: src.col.Price!.id }), 400, 1012);
    assertError(await s0.api.post(url, { name: 'a', sourceSheetId: src.id, startRowId: srcRows[0]!.id }), 400, 1012);
    assertError(await s0.api.post(url, { name: 'a', sourceSheetId: 'x', ...cols }), 400, 1031);
    assertError(await s0.api.post(url, { name: 'a', sourceSheetId: 999, ...cols }), 404, 1006);
    assertError(await s0.api.post(url, { name: 'a', sourceSheetId: src.id, startColumnId: 1, endColumnId: 2 }), 404, 1006);
    assertError(await s0.api.post(url, { name: 'a', sourceSheetId: dst.id, ...cols }), 400, 1031);
    assertError(await s0.api.post(url, { name: 'a{b}', sourceSheetId: src.id, ...cols }), 400, 1031);
    assertError(await s0.api.post(url, { id: 5, name: 'a', sourceSheetId: src.id, ...cols }), 400, 1032);
    assert.equal((await s0.api.post(url, { name: 'Dup', sourceSheetId: src.id, ...cols })).status, 200);
    assertError(await s0.api.post(url, { name: 'dup', sourceSheetId: src.id, ...cols }), 400, 1129);
    const list = await s0.api.get(url);
    assert.deepEqual(list.body.data.map((r: { name: string }) => r.name), ['Dup']);
  });

  test('access: the caller edits the referencing sheet and can see the source', async () => {
    const { src, dst } = await twoSheets('x5');
    const u = await makeUser(s0.t, s0.api, 'xref-user@example.com');
    const as = client(s0.t.base, u.token);
    const body = { name: 'R', sourceSheetId: src.id, startColumnId: src.col.Price!.id, endColumnId: src.col.Price!.id };
    // no access to the referencing sheet: not revealed
    assertError(await as.post(`/sheets/${dst.id}/crosssheetreferences`, body), 404, 1006);
    assertError(await as.get(`/sheets/${dst.id}/crosssheetreferences`), 404, 1006);
    await s0.api.post(`/sheets/${dst.id}/shares`, { email: 'xref-user@example.com', accessLevel: 'VIEWER' });
    assertError(await as.post(`/sheets/${dst.id}/crosssheetreferences`, body), 403, 1004);
    assert.equal((await as.get(`/sheets/${dst.id}/crosssheetreferences`)).status, 200);
    const share = (await s0.api.get(`/sheets/${dst.id}/shares`)).body.data.find((x: { email?: string }) => x.email === 'xref-user@example.com');
    assert.equal((await s0.api.put(`/sheets/${dst.id}/shares/${share.id}`, { accessLevel: 'EDITOR' })).status, 200);
    // editor of the target, no access to the source
    assertError(await as.post(`/sheets/${dst.id}/crosssheetreferences`, body), 404, 1006);
    await s0.api.post(`/sheets/${src.id}/shares`, { email: 'xref-user@example.com', accessLevel: 'VIEWER' });
    assert.equal((await as.post(`/sheets/${dst.id}/crosssheetreferences`, body)).status, 200);
  });
});

describe('cell links', () => {
  test('linkInFromCell shows the source value, follows it, and the source lists linksOutToCells', async () => {
    const { src, srcRows, dst, dstRows } = await twoSheets('l1');
    const link = { sheetId: src.id, rowId: srcRows[1]!.id, columnId: src.col.Price!.id };
    const res = await s0.api.put(`/sheets/${dst.id}/rows`, { id: dstRows[0]!.id, cells: [{ columnId: dst.col.Total!.id, value: null, linkInFromCell: link }] });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const cell = cellOf(res.body.result, dst.col.Total!.id);
    assert.equal(cell.value, 5);
    assert.deepEqual(cell.linkInFromCell, { ...link, sheetName: 'Prices l1', status: 'OK' });

    const srcRead = await rowsOf(src.id);
    assert.deepEqual(cellOf(srcRead[1]!, src.col.Price!.id).linksOutToCells, [{ sheetId: dst.id, rowId: dstRows[0]!.id, columnId: dst.col.Total!.id, sheetName: 'Orders l1', status: 'OK' }]);
    assert.equal(cellOf(srcRead[0]!, src.col.Price!.id).linksOutToCells, undefined);
    // the details can be left out on both sides
    const brief = await rowsOf(src.id, '?exclude=linksOutToCellsDetails');
    assert.deepEqual(cellOf(brief[1]!, src.col.Price!.id).linksOutToCells, [{ sheetId: dst.id, sheetName: 'Orders l1' }]);
    const briefIn = await rowsOf(dst.id, '?exclude=linkInFromCellDetails');
    assert.deepEqual(cellOf(briefIn[0]!, dst.col.Total!.id).linkInFromCell, { sheetId: src.id, sheetName: 'Prices l1' });
    assert.equal(cellOf(briefIn[0]!, dst.col.Total!.id).value, 5);
    const oneRow = await s0.api.get(`/sheets/${src.id}/rows/${srcRows[1]!.id}`);
    assert.equal((cellOf(oneRow.body, src.col.Price!.id).linksOutToCells as unknown[]).length, 1);

    // the source changes: the linked cell follows, and its history shows the previous value
    const upd = await s0.api.put(`/sheets/${src.id}/rows`, { id: srcRows[1]!.id, cells: [{ columnId: src.col.Price!.id, value: 55 }] });
    assert.equal(upd.status, 200);
    let rows = await rowsOf(dst.id);
    assert.equal(cellOf(rows[0]!, dst.col.Total!.id).value, 55);
    const hist = await s0.api.get(`/sheets/${dst.id}/rows/${dstRows[0]!.id}/columns/${dst.col.Total!.id}/history`);
    assert.equal(hist.status, 200);
    assert.deepEqual(hist.body.data.map((h: { value?: unknown }) => h.value), [55, 5]);

    // a formula over the linked cell recomputes too
    await s0.api.put(`/sheets/${dst.id}/rows`, { id: dstRows[1]!.id, cells: [{ columnId: dst.col.Total!.id, formula: '=Total1 * 2' }] });
    await s0.api.put(`/sheets/${src.id}/rows`, { id: srcRows[1]!.id, cells: [{ columnId: src.col.Price!.id, value: 6 }] });
    rows = await rowsOf(dst.id);
    assert.equal(cellOf(rows[0]!, dst.col.Total!.id).value, 6);
    assert.equal(cellOf(rows[1]!, dst.col.Total!.id).value, 12);

    // writing a value into the linked cell ends the link
    await s0.api.put(`/sheets/${dst.id}/rows`, { id: dstRows[0]!.id, cells: [{ columnId: dst.col.Total!.id, value: 1 }] });
    rows = await rowsOf(dst.id);
    assert.equal(cellOf(rows[0]!, dst.col.Total!.id).linkInFromCell, undefined);
    assert.equal(cellOf((await rowsOf(src.id))[1]!, src.col.Price!.id).linksOutToCells, undefined);
    await s0.api.put(`/sheets/${src.id}/rows`, { id: srcRows[1]!.id, cells: [{ columnId: src.col.Price!.id, value: 9 }] });
    assert.equal(cellOf((await rowsOf(dst.id))[0]!, dst.col.Total!.id).value, 1);
  });

  test('values are read for the target column type; a deleted source row leaves the link BROKEN with its last value', async () => {
    const { src, srcRows, dst, dstRows } = await twoSheets('l2');
    const link = { sheetId: src.id, rowId: srcRows[2]!.id, columnId: src.col.Due!.id };
    const res = await s0.api.put(`/sheets/${dst.id}/rows`, { id: dstRows[0]!.id, cells: [{ columnId: dst.col.When!.id, value: null, linkInFromCell: link }] });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(typeof cellOf(res.body.result, dst.col.When!.id).value, 'string');
    await s0.api.del(`/sheets/${src.id}/rows?ids=${srcRows[2]!.id}`);
    const rows = await rowsOf(dst.id);
    const cell = cellOf(rows[0]!, dst.col.When!.id);
    assert.equal((cell.linkInFromCell as { status: string }).status, 'BROKEN');
    assert.equal(cell.value, cellOf(res.body.result, dst.col.When!.id).value);
  });

  test('link rules: own sheet, value with link, links with values in one row, new rows, unknown or hidden sources', async () => {
    const { src, srcRows, dst, dstRows } = await twoSheets('l3');
    const url = `/sheets/${dst.id}/rows`;
    const link = { sheetId: src.id, rowId: srcRows[0]!.id, columnId: src.col.Price!.id };
    const total = dst.col.Total!.id;
    const v0 = await versionOf(dst.id);
    assertError(await s0.api.put(url, { id: dstRows[0]!.id, cells: [{ columnId: total, value: null, linkInFromCell: { sheetId: dst.id, rowId: dstRows[1]!.id, columnId: total } }] }), 400, 1116);
    assertError(await s0.api.put(url, { id: dstRows[0]!.id, cells: [{ columnId: total, value: 5, linkInFromCell: link }] }), 400, 1110);
    assertError(await s0.api.put(url, { id: dstRows[0]!.id, cells: [{ columnId: total, value: null, linkInFromCell: link, hyperlink: { url: 'https://example.com' } }] }), 400, 1109);
    assertError(await s0.api.put(url, { id: dstRows[0]!.id, cells: [{ columnId: total, value: null, linkInFromCell: link }, { columnId: dst.col.Name!.id, value: 'x' }] }), 400, 1115);
    assertError(await s0.api.post(url, { cells: [{ columnId: total, value: null, linkInFromCell: link }] }), 400, 1032);
    assertError(await s0.api.put(url, { id: dstRows[0]!.id, cells: [{ columnId: total, value: null, linkInFromCell: { ...link, rowId: 1 } }] }), 404, 1006);
    assertError(await s0.api.put(url, { id: dstRows[0]!.id, cells: [{ columnId: total, value: null, linkInFromCell: { ...link, sheetId: 1 } }] }), 404, 1006);
    assertError(await s0.api.put(url, { id: dstRows[0]!.id, cells: [{ columnId: total, value: null, linkInFromCell: { ...link, columnId: 'x' } }] }), 400, 1031);
    // a user who edits the target but cannot see the source
    const u = await makeUser(s0.t, s0.api, 'link-user@example.com');
    await s0.api.post(`/sheets/${dst.id}/shares`, { email: 'link-user@example.com', accessLevel: 'EDITOR' });
    assertError(await client(s0.t.base, u.token).put(url, { id: dstRows[0]!.id, cells: [{ columnId: total, value: null, linkInFromCell: link }] }), 404, 1006);
    assert.equal(await versionOf(dst.id), v0);
    assert.equal(cellOf((await rowsOf(src.id))[0]!, src.col.Price!.id).linksOutToCells, undefined);
    // with allowPartialSuccess the failing row is reported and the others apply
    const partial = await s0.api.put(`${url}?allowPartialSuccess=true`, [
      { id: dstRows[0]!.id, cells: [{ columnId: total, value: null, linkInFromCell: { ...link, rowId: 1 } }] },
      { id: dstRows[1]!.id, cells: [{ columnId: total, value: null, linkInFromCell: link }] },
    ]);
    assert.equal(partial.status, 200, JSON.stringify(partial.body));
    assert.equal(partial.body.resultCode, 3);
    assert.equal(partial.body.failedItems[0].error.errorCode, 1006);
    assert.equal(cellOf((await rowsOf(dst.id))[1]!, total).value, 3);
  });

  test('links in a chain follow through every sheet', async () => {
    const a = await twoSheets('c1');
    const c = await makeSheet(s0.api, 'Chain end', [{ title: 'P', type: 'TEXT_NUMBER', primary: true }, { title: 'Q', type: 'TEXT_NUMBER' }]);
    const cRow = (await s0.api.post(`/sheets/${c.id}/rows`, { cells: [{ columnId: c.col.P!.id, value: 'x' }] })).body.result;
    await s0.api.put(`/sheets/${a.dst.id}/rows`, { id: a.dstRows[0]!.id, cells: [{ columnId: a.dst.col.Total!.id, value: null, linkInFromCell: { sheetId: a.src.id, rowId: a.srcRows[0]!.id, columnId: a.src.col.Price!.id } }] });
    const r = await s0.api.put(`/sheets/${c.id}/rows`, { id: cRow.id, cells: [{ columnId: c.col.Q!.id, value: null, linkInFromCell: { sheetId: a.dst.id, rowId: a.dstRows[0]!.id, columnId: a.dst.col.Total!.id } }] });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(cellOf(r.body.result, c.col.Q!.id).value, 3);
    await s0.api.put(`/sheets/${a.src.id}/rows`, { id: a.srcRows[0]!.id, cells: [{ columnId: a.src.col.Price!.id, value: 77 }] });
    assert.equal(cellOf((await rowsOf(c.id))[0]!, c.col.Q!.id).value, 77);
  });
});

describe('deleted sources', () => {
  test('deleting the source sheet breaks links (last value kept) and references (#REF)', async () => {
    const { src, srcRows, dst, dstRows } = await twoSheets('d1');
    await s0.api.post(`/sheets/${dst.id}/crosssheetreferences`, { name: 'P', sourceSheetId: src.id, startColumnId: src.col.Price!.id, endColumnId: src.col.Price!.id });
    await s0.api.put(`/sheets/${dst.id}/rows`, [
      { id: dstRows[0]!.id, cells: [{ columnId: dst.col.Total!.id, value: null, linkInFromCell: { sheetId: src.id, rowId: srcRows[0]!.id, columnId: src.col.Price!.id } }] },
      { id: dstRows[1]!.id, cells: [{ columnId: dst.col.Total!.id, formula: '=SUM({P})' }] },
    ]);
    let rows = await rowsOf(dst.id);
    assert.equal(cellOf(rows[0]!, dst.col.Total!.id).value, 3);
    assert.equal(cellOf(rows[1]!, dst.col.Total!.id).value, 15);
    assert.equal((await s0.api.del(`/sheets/${src.id}`)).status, 200);
    rows = await rowsOf(dst.id);
    assert.equal((cellOf(rows[0]!, dst.col.Total!.id).linkInFromCell as { status: string }).status, 'BROKEN');
    assert.equal(cellOf(rows[0]!, dst.col.Total!.id).value, 3);
    assert.equal(cellOf(rows[1]!, dst.col.Total!.id).value, '#REF');
    const refs = await s0.api.get(`/sheets/${dst.id}?include=crossSheetReferences`);
    assert.equal(refs.body.crossSheetReferences[0].status, 'BROKEN');
  });

  test('deleting a workspace that holds the source does the same', async () => {
    const ws = await s0.api.post('/workspaces', { name: 'xs-ws' });
    assert.equal(ws.status, 200, JSON.stringify(ws.body));
    const src = await s0.api.post(`/workspaces/${ws.body.result.id}/sheets`, { name: 'ws source', columns: [{ title: 'A', type: 'TEXT_NUMBER', primary: true }] });
    assert.equal(src.status, 200, JSON.stringify(src.body));
    const srcId = src.body.result.id as number;
    const colA = src.body.result.columns[0].id as number;
    const srcRow = (await s0.api.post(`/sheets/${srcId}/rows`, { cells: [{ columnId: colA, value: 'v' }] })).body.result;
    const { dst, dstRows } = await twoSheets('d2');
    await s0.api.put(`/sheets/${dst.id}/rows`, { id: dstRows[0]!.id, cells: [{ columnId: dst.col.Total!.id, value: null, linkInFromCell: { sheetId: srcId, rowId: srcRow.id, columnId: colA } }] });
    assert.equal(cellOf((await rowsOf(dst.id))[0]!, dst.col.Total!.id).value, 'v');
    assert.equal((await s0.api.del(`/workspaces/${ws.body.result.id}`)).status, 200);
    const cell = cellOf((await rowsOf(dst.id))[0]!, dst.col.Total!.id);
    assert.equal((cell.linkInFromCell as { status: string }).status, 'BROKEN');
    assert.equal(cell.value, 'v');
  });
});

describe('the same through the official SDK', () => {
  test('crossSheetReferences and a cell link', async () => {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the SDK's typings demand fields clients leave out
    const sdk: any = smartsheet.createClient({ accessToken: s0.t.adminToken, baseUrl: `${s0.t.base}/`, logLevel: 'error' });
    const { src, srcRows, dst, dstRows } = await twoSheets('sdk');
    const created = await sdk.sheets.createCrossSheetReference({ sheetId: dst.id, body: { name: 'SDK Ref', sourceSheetId: src.id, startColumnId: src.col.Price!.id, endColumnId: src.col.Price!.id } });
    assert.equal(created.result.name, 'SDK Ref');
    const listed = await sdk.sheets.listCrossSheetReferences({ sheetId: dst.id });
    assert.equal(listed.data.length, 1);
    const one = await sdk.sheets.getCrossSheetReference({ sheetId: dst.id, crossSheetReferenceId: created.result.id });
    assert.equal(one.sourceSheetId, src.id);
    await sdk.sheets.updateRow({ sheetId: dst.id, body: [{ id: dstRows[0]!.id, cells: [{ columnId: dst.col.Total!.id, value: null, linkInFromCell: { sheetId: src.id, rowId: srcRows[2]!.id, columnId: src.col.Price!.id } }] }] });
    const sheet = await sdk.sheets.getSheet({ id: dst.id });
    assert.equal(sheet.rows[0].cells.find((c: { columnId: number }) => c.columnId === dst.col.Total!.id).value, 7);
  });
});
