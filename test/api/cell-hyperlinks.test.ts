import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { serverForFile } from '../helpers/setup.ts';
import { client } from '../helpers/http.ts';
import { assertError, cellOf, makeSheet, makeUser } from '../helpers/sheets.ts';
import { pngBytes } from '../helpers/images.ts';

const s0 = serverForFile();

const COLUMNS = [
  { title: 'Name', type: 'TEXT_NUMBER', primary: true },
  { title: 'Link', type: 'TEXT_NUMBER' },
  { title: 'Pic', type: 'TEXT_NUMBER' },
];

async function fixture(name: string) {
  const s = await makeSheet(s0.api, name, COLUMNS);
  const add = await s0.api.post(`/sheets/${s.id}/rows`, [{ toBottom: true, cells: [{ columnId: s.col.Name!.id, value: 'a' }] }, { toBottom: true, cells: [{ columnId: s.col.Name!.id, value: 'b' }] }]);
  assert.equal(add.status, 200, JSON.stringify(add.body));
  return { ...s, rows: add.body.result as Array<{ id: number }> };
}

async function versionOf(id: number): Promise<number> {
  return (await s0.api.get(`/sheets/${id}/version`)).body.version as number;
}

describe('hyperlinks', () => {
  test('a URL hyperlink: the value is the URL unless a text is given', async () => {
    const s = await fixture('h1');
    const res = await s0.api.put(`/sheets/${s.id}/rows`, [
      { id: s.rows[0]!.id, cells: [{ columnId: s.col.Link!.id, value: null, hyperlink: { url: 'https://example.org/a' } }] },
      { id: s.rows[1]!.id, cells: [{ columnId: s.col.Link!.id, value: 'Example', hyperlink: { url: 'https://example.org/b' } }] },
    ]);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const rows = (await s0.api.get(`/sheets/${s.id}`)).body.rows;
    assert.deepEqual(cellOf(rows[0], s.col.Link!.id).hyperlink, { url: 'https://example.org/a' });
    assert.equal(cellOf(rows[0], s.col.Link!.id).value, 'https://example.org/a');
    assert.equal(cellOf(rows[1], s.col.Link!.id).value, 'Example');
    // hyperlink: null removes the link, keeps the text
    await s0.api.put(`/sheets/${s.id}/rows`, { id: s.rows[1]!.id, cells: [{ columnId: s.col.Link!.id, value: 'Example', hyperlink: null }] });
    const after = (await s0.api.get(`/sheets/${s.id}/rows/${s.rows[1]!.id}`)).body;
    assert.equal(cellOf(after, s.col.Link!.id).hyperlink, undefined);
    assert.equal(cellOf(after, s.col.Link!.id).value, 'Example');
  });

  test('a sheet hyperlink shows the sheet name; a sheet that does not exist or cannot be seen is 1114', async () => {
    const s = await fixture('h2');
    const target = await makeSheet(s0.api, 'Target Sheet', [{ title: 'A', type: 'TEXT_NUMBER', primary: true }]);
    const res = await s0.api.put(`/sheets/${s.id}/rows`, { id: s.rows[0]!.id, cells: [{ columnId: s.col.Link!.id, value: null, hyperlink: { sheetId: target.id } }] });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const cell = cellOf(res.body.result, s.col.Link!.id);
    assert.equal(cell.value, 'Target Sheet');
    assert.equal((cell.hyperlink as { sheetId: number }).sheetId, target.id);
    // the hyperlink carries the target's permalink as url, in the write's answer and on reads
    const permalink = (await s0.api.get(`/sheets/${target.id}`)).body.permalink as string;
    assert.equal((cell.hyperlink as { url?: string }).url, permalink);
    const read = await s0.api.get(`/sheets/${s.id}/rows/${s.rows[0]!.id}`);
    assert.deepEqual(cellOf(read.body, s.col.Link!.id).hyperlink, { sheetId: target.id, url: permalink });
    const whole = await s0.api.get(`/sheets/${s.id}`);
    assert.deepEqual(cellOf(whole.body.rows[0], s.col.Link!.id).hyperlink, { sheetId: target.id, url: permalink });

    const v0 = await versionOf(s.id);
    assertError(await s0.api.put(`/sheets/${s.id}/rows`, { id: s.rows[1]!.id, cells: [{ columnId: s.col.Link!.id, value: null, hyperlink: { sheetId: 4242 } }] }), 404, 1114);
    assertError(await s0.api.put(`/sheets/${s.id}/rows`, { id: s.rows[1]!.id, cells: [{ columnId: s.col.Link!.id, value: null, hyperlink: { reportId: 4242 } }] }), 404, 1114);
    // a user who edits this sheet but cannot see the target
    const u = await makeUser(s0.t, s0.api, 'hyper@example.com');
    await s0.api.post(`/sheets/${s.id}/shares`, { email: 'hyper@example.com', accessLevel: 'EDITOR' });
    assertError(await client(s0.t.base, u.token).put(`/sheets/${s.id}/rows`, { id: s.rows[1]!.id, cells: [{ columnId: s.col.Link!.id, value: null, hyperlink: { sheetId: target.id } }] }), 404, 1114);
    assert.equal(await versionOf(s.id), v0);
  });

  test('hyperlink rules: 1111, 1112, 1113, 1117, 1109', async () => {
    const s = await fixture('h3');
    const put = (cell: Record<string, unknown>) => s0.api.put(`/sheets/${s.id}/rows`, { id: s.rows[0]!.id, cells: [{ columnId: s.col.Link!.id, ...cell }] });
    const v0 = await versionOf(s.id);
    assertError(await put({ value: null, hyperlink: { sheetId: s.id, reportId: 1 } }), 400, 1111);
    assertError(await put({ value: null, hyperlink: { sheetId: s.id, url: 'https://x.org' } }), 400, 1112);
    assertError(await put({ value: 5, hyperlink: { url: 'https://x.org' } }), 400, 1113);
    assertError(await put({ value: 'x', hyperlink: {} }), 400, 1117);
    assertError(await put({ value: null, hyperlink: { url: 'https://x.org' }, linkInFromCell: { sheetId: 1, rowId: 1, columnId: 1 } }), 400, 1109);
    assert.equal(await versionOf(s.id), v0);
  });
});

describe('images named by id in Update Rows', () => {
  test('an image of the sheet can be shown in another cell (its stored size); an unknown id is 1006', async () => {
    const s = await fixture('i1');
    const up = await s0.api.call('POST', `/sheets/${s.id}/rows/${s.rows[0]!.id}/columns/${s.col.Pic!.id}/cellimages`, { raw: pngBytes(5, 3), headers: { 'content-type': 'image/png' } });
    assert.equal(up.status, 200, JSON.stringify(up.body));
    const img = cellOf(up.body.result, s.col.Pic!.id).image as { id: string };
    const res = await s0.api.put(`/sheets/${s.id}/rows`, { id: s.rows[1]!.id, cells: [{ columnId: s.col.Pic!.id, image: { id: img.id, width: 999, altText: 'again' } }] });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(cellOf(res.body.result, s.col.Pic!.id).image, { id: img.id, width: 5, height: 3, altText: 'again' });
    const v0 = await versionOf(s.id);
    assertError(await s0.api.put(`/sheets/${s.id}/rows`, { id: s.rows[1]!.id, cells: [{ columnId: s.col.Pic!.id, image: { id: 'no-such-image' } }] }), 404, 1006);
    // an image of another sheet is not this sheet's
    const other = await fixture('i2');
    assertError(await s0.api.put(`/sheets/${other.id}/rows`, { id: other.rows[0]!.id, cells: [{ columnId: other.col.Pic!.id, image: { id: img.id } }] }), 404, 1006);
    assert.equal(await versionOf(s.id), v0);
  });
});
