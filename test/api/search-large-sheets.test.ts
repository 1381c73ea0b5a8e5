import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { serverForFile } from '../helpers/setup.ts';
import { notInCluster, TEST_PG_URL } from '../helpers/server.ts';

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

describe('PostgreSQL: the index\'s statistics follow large writes', () => {
  // The planner reads the index through the statistics of the last ANALYZE; taken while the
  // table was small, they made it read every doc of the searched sheets (store/searchIndex.ts
  // refreshDocStatistics). Counted: ANALYZE commands only (autovacuum's are counted apart).
  const skip = notInCluster('the cluster\'s database holds every test file\'s docs: an import of 3,000 rows is less than a tenth of them') || (TEST_PG_URL ? false : 'SQLite\'s full-text match needs no statistics');
  test('a catch-up that wrote more docs than a tenth of those counted analyzes the table', { skip }, async () => {
    const store = s.t.server.store;
    const stats = async () => {
      const r = await sql<{ analyzes: number; counted: number }>`select s.analyze_count as analyzes, c.reltuples as counted from pg_stat_user_tables s join pg_class c on c.oid = s.relid where s.relid = cast('search_docs' as regclass)`.execute(store.db);
      return { analyzes: Number(r.rows[0]!.analyzes), counted: Number(r.rows[0]!.counted) };
    };
    const before = await stats();
    const lines = ['Name'];
    for (let i = 0; i < 3000; i++) lines.push(`lsqstat${i} pika`);
    const res = await s.api.call('POST', '/sheets/import?sheetName=Statistics&headerRowIndex=0', { raw: lines.join('\n') + '\n', headers: { 'content-type': 'text/csv', 'content-disposition': 'attachment' } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    // a search catches the index up first (and waits for a catch-up under way)
    assert.equal((await search('lsqstat2999')).totalCount, 1);
    const after = await stats();
    assert.ok(after.analyzes > before.analyzes, `analyze_count ${before.analyzes} -> ${after.analyzes}`);
    assert.ok(after.counted >= before.counted + 3000, `reltuples ${before.counted} -> ${after.counted}`);
  });
});
