import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { serverForFile } from '../helpers/setup.ts';

// A sheet of more rows than one SQL statement takes bound parameters (SQLite 32,766): what reads
// or writes something for each of its rows does so in parts. Copying such a sheet with its
// attachments and discussions answered 500 ("too many SQL variables").
const s = serverForFile();

const ROWS = 40_000;

describe('a sheet of 40,000 rows', () => {
  test('is copied whole with include=all: rows, attachments and discussions of its first and last rows', async () => {
    const lines = ['Name'];
    for (let i = 0; i < ROWS; i++) lines.push(`many ${i}`);
    const imported = await s.api.call('POST', '/sheets/import?sheetName=Many%20rows&headerRowIndex=0', { raw: lines.join('\n') + '\n', headers: { 'content-type': 'text/csv', 'content-disposition': 'attachment' } });
    assert.equal(imported.status, 200, JSON.stringify(imported.body));
    const sheetId = imported.body.result.id as number;
    const first = (await s.api.get(`/sheets/${sheetId}?rowNumbers=1&columnIds=`)).body.rows[0].id as number;
    const last = (await s.api.get(`/sheets/${sheetId}?rowNumbers=${ROWS}&columnIds=`)).body.rows[0].id as number;
    for (const [rowId, tag] of [[first, 'first'], [last, 'last']] as const) {
      assert.equal((await s.api.post(`/sheets/${sheetId}/rows/${rowId}/attachments`, { attachmentType: 'LINK', url: `https://example.org/${tag}`, name: `${tag} link` })).status, 200);
      assert.equal((await s.api.post(`/sheets/${sheetId}/rows/${rowId}/discussions`, { comment: { text: `about the ${tag} row` } })).status, 200);
    }

    const copied = await s.api.post(`/sheets/${sheetId}/copy?include=all`, { destinationType: 'home', newName: 'Many rows copy' });
    assert.equal(copied.status, 200, JSON.stringify(copied.body));
    const copyId = copied.body.result.id as number;
    const copy = await s.api.get(`/sheets/${copyId}?rowNumbers=1,${ROWS}&include=attachments,discussions`);
    assert.equal(copy.status, 200, JSON.stringify(copy.body));
    assert.equal(copy.body.totalRowCount, ROWS);
    const rows = copy.body.rows as Array<{ id: number; cells: Array<{ value?: string }>; attachments?: Array<{ name: string }>; discussions?: Array<{ title: string }> }>;
    assert.deepEqual(rows.map((r) => r.cells[0]!.value), ['many 0', `many ${ROWS - 1}`]);
    assert.deepEqual(rows.map((r) => r.attachments?.map((a) => a.name)), [['first link'], ['last link']]);
    assert.deepEqual(rows.map((r) => r.discussions?.map((d) => d.title)), [['about the first row'], ['about the last row']]);
    // the source keeps its own
    const source = await s.api.get(`/sheets/${sheetId}/attachments`);
    assert.deepEqual((source.body.data as Array<{ name: string }>).map((a) => a.name).sort(), ['first link', 'last link']);
  });
});
