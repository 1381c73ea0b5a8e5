import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { serverForFile } from '../helpers/setup.ts';

// A sheet indexed whole with more rows than one indexing step holds (an import of 10,000 rows):
// its rows are indexed in several transactions before the position moves
// (services/log/searchIndex.ts indexRowsInSteps). Every row is found once, in the first step,
// the last and between; a row changed while it was being indexed is found by its new words.
const s = serverForFile();

type Found = { results: Array<{ objectType: string; objectId: number; text: string; parentObjectId?: number }>; totalCount: number };

async function search(q: string): Promise<Found> {
  const res = await s.api.get(`/search?query=${encodeURIComponent(q)}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body as Found;
}

const ROWS = 10_000;

describe('search over a large imported sheet', () => {
  test('every row of a 10,000-row import is found, once; later edits too', async () => {
    const lines = ['Name,Tag'];
    for (let i = 0; i < ROWS; i++) lines.push(`lsq${i} item,${i % 2 === 0 ? 'lsqeven' : 'lsqodd'}`);
    const res = await s.api.call('POST', '/sheets/import?sheetName=Large%20search&headerRowIndex=0', { raw: lines.join('\n') + '\n', headers: { 'content-type': 'text/csv', 'content-disposition': 'attachment' } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const sheetId = res.body.result.id as number;
    // the first row, rows on both sides of each step's edge, the last
    for (const i of [0, 3999, 4000, 4001, 7999, 8000, ROWS - 1]) {
      const r = await search(`lsq${i}`);
      assert.equal(r.totalCount, 1, `row ${i}: ${JSON.stringify(r.results)}`);
      assert.equal(r.results[0]!.objectType, 'row');
      assert.equal(r.results[0]!.parentObjectId, sheetId);
    }
    // each row once: half of the rows hold one tag
    const even = await s.api.get(`/search/sheets/${sheetId}?query=lsqeven`);
    assert.equal(even.status, 200, JSON.stringify(even.body));
    assert.equal(even.body.totalCount, ROWS / 2);

    const sheet = await s.api.get(`/sheets/${sheetId}?rowNumbers=${ROWS}&columnIds=`);
    assert.equal(sheet.status, 200);
    const last = (sheet.body.rows as Array<{ id: number }>).at(-1)!;
    const nameCol = (sheet.body.columns as Array<{ id: number; primary?: boolean }>).find((c) => c.primary)!.id;
    const upd = await s.api.put(`/sheets/${sheetId}/rows`, [{ id: last.id, cells: [{ columnId: nameCol, value: 'lsqchanged row' }] }]);
    assert.equal(upd.status, 200, JSON.stringify(upd.body));
    assert.equal((await search('lsqchanged')).totalCount, 1);
    assert.equal((await search(`lsq${ROWS - 1}`)).totalCount, 0);
  });
});
