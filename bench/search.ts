import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.ts';
import { startServer } from '../src/server.ts';
import { insertMany } from '../src/store/db.ts';
import { newIds } from '../src/ids.ts';
import { catchUpSearchIndex, requestSearchRebuild } from '../src/services/log/searchIndex.ts';
import { createPgDatabase } from '../test/helpers/server.ts';
import { median } from './stats.ts';
import { benchPgAdminUrl } from './stores.ts';

/**
 * Search over 1,000,000 cells: two sheets of 20 columns × 25,000 rows (the 500,000-cell limit
 * each), written straight into the rows table (the store, not HTTP), then indexed from the
 * data the way the first start after migration 0022 does. Times the build, Search Everything
 * for a word in a few rows, for a word in every row, for a prefix and a phrase, Search Sheet,
 * the catch-up after an Update Rows of 500 rows, and Get Report over both sheets. On SQLite,
 * beside a baseline measured in the same run: the LIKE over the stored cells that search used
 * before the index (what the store asked for, without HTTP or access checks).
 * BENCH_DATABASE_URL=postgres://... (default SHEETD_TEST_DATABASE_URL) runs it on PostgreSQL, in a fresh database made (and dropped)
 * through that URL: a database an earlier suite bootstrapped has no admin-token to read.
 */
const COLS = 20;
const ROWS = Number(process.env.BENCH_ROWS ?? 25_000);
const SHEETS = Number(process.env.BENCH_SHEETS ?? 2);
const BATCH = 500;

function ms(t0: bigint): number {
  return Number(process.hrtime.bigint() - t0) / 1e6;
}


export async function benchSearch(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetd-bench-search-'));
  const adminUrl = benchPgAdminUrl();
  const pg = adminUrl ? await createPgDatabase(adminUrl) : undefined;
  const pgUrl = pg?.url;
  const server = await startServer(loadConfig({
    PORT: '0', SHEETD_DATA_DIR: dataDir, SHEETD_RATE_LIMIT: String(1e12), SHEETD_LOG_LEVEL: 'silent', SHEETD_BODY_LIMIT: String(64 * 1024 * 1024),
    // the worker's background catch-up would take the build's place: keep it out of the figures
    SHEETD_JOB_POLL_MS: String(3_600_000),
    ...(pgUrl ? { DATABASE_URL: pgUrl } : {}),
  }), { logger: false });
  const store = server.store;
  const token = fs.readFileSync(path.join(dataDir, 'admin-token'), 'utf8').trim();
  const call = async (method: string, p: string, body?: unknown) => {
    const send = () => fetch(server.url + '/2.0' + p, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    // a kept-alive connection idle through the build may have been closed by the server just as it is reused
    const res = await send().catch(() => send());
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${method} ${p}: ${res.status} ${text.slice(0, 300)}`);
    return JSON.parse(text) as Record<string, unknown>;
  };
  const timed = async (n: number, f: () => Promise<unknown>) => {
    const out: number[] = [];
    for (let i = 0; i < n; i++) {
      const t0 = process.hrtime.bigint();
      await f();
      out.push(ms(t0));
    }
    return median(out);
  };
  try {
    const sheetIds: number[] = [];
    const rowIdsOf: number[][] = [];
    const colIdsOf: number[][] = [];
    const t0 = process.hrtime.bigint();
    const now = Date.now();
    for (let s = 0; s < SHEETS; s++) {
      const columns = Array.from({ length: COLS }, (_, i) => ({ title: `C${i}`, type: 'TEXT_NUMBER', ...(i === 0 ? { primary: true } : {}) }));
      const created = (await call('POST', '/sheets', { name: `bench search ${s}`, columns })) as { result: { id: number; columns: Array<{ id: number }> } };
      const sheetId = created.result.id;
      sheetIds.push(sheetId);
      const colIds = created.result.columns.map((c) => c.id);
      colIdsOf.push(colIds);
      const rowIds = newIds(ROWS);
      rowIdsOf.push(rowIds);
      await store.db.transaction().execute(async (tx) => {
        for (let n = 0; n < ROWS; n += BATCH) {
          const records = [];
          for (let r = n; r < Math.min(ROWS, n + BATCH); r++) {
            const cells: Record<string, { v: string | number }> = {};
            // every row has "common"; one row in 5,000 has "needle"
            colIds.forEach((id, c) => (cells[id] = { v: c === 0 ? `s${s} row ${r} common` : c === 1 && r % 5000 === 7 ? `a needle here ${r}` : c % 2 === 0 ? `text ${r}-${c}` : r + c }));
            records.push({ id: rowIds[r]!, sheet_id: sheetId, parent_id: null, sort_key: r + 1, expanded: 1, locked: 0, format: null, cells: JSON.stringify(cells), cell_meta: '{}', created_at: now, created_by: null, modified_at: now, modified_by: null });
          }
          await insertMany(tx, 'rows', records);
        }
        await tx.updateTable('sheets').set({ version: sql`version + 1`, modified_at: now }).where('id', '=', sheetId).execute();
      });
    }
    const cells = SHEETS * ROWS * COLS;
    console.log(`${store.dialect}: wrote ${SHEETS} sheets × ${ROWS} rows × ${COLS} columns (${cells.toLocaleString('en')} cells) in ${(ms(t0) / 1000).toFixed(1)} s`);

    await requestSearchRebuild(store);
    const tb = process.hrtime.bigint();
    await catchUpSearchIndex(store);
    const build = ms(tb);
    const docs = Number((await store.db.selectFrom('search_docs').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    console.log(`index built from the data: ${(build / 1000).toFixed(1)} s (${docs.toLocaleString('en')} docs, ${((build * 1000) / cells).toFixed(1)} µs a cell)`);

    let rawNeedle = 0;
    let rawCommon = 0;
    if (store.dialect === 'sqlite') {
      const raw = new Database(path.join(dataDir, 'sheetd.db'), { readonly: true });
      const like = raw.prepare('select count(*) as n from rows where sheet_id in (' + sheetIds.map(() => '?').join(',') + ") and lower(cells) like ? escape '\\'");
      rawNeedle = await timed(5, async () => like.get(...sheetIds, '%needle%'));
      rawCommon = await timed(3, async () => like.get(...sheetIds, '%common%'));
      raw.close();
    }
    const base = (x: number, b: number) => (b > 0 ? `; LIKE before the index ${b.toFixed(0)} ms (${(x / b).toFixed(2)}×)` : '');
    const count = async (p: string) => ((await call('GET', p)) as { totalCount: number }).totalCount.toLocaleString('en');

    const needle = await timed(5, () => call('GET', '/search?query=needle'));
    console.log(`search "needle" (${await count('/search?query=needle')} results): ${needle.toFixed(0)} ms${base(needle, rawNeedle)}`);
    const common = await timed(3, () => call('GET', '/search?query=common&scopes=cellData'));
    console.log(`search "common" in cells (${await count('/search?query=common&scopes=cellData')} results, 100 shown): ${common.toFixed(0)} ms${base(common, rawCommon)}`);
    const prefix = await timed(5, () => call('GET', '/search?query=need'));
    console.log(`search prefix "need" (${await count('/search?query=need')} results): ${prefix.toFixed(0)} ms`);
    const phrase = await timed(5, () => call('GET', `/search?query=${encodeURIComponent('"a needle here"')}`));
    console.log(`search phrase "a needle here" (${await count(`/search?query=${encodeURIComponent('"a needle here"')}`)} results): ${phrase.toFixed(0)} ms`);
    const two = await timed(5, () => call('GET', '/search?query=needle%20common'));
    console.log(`search "needle common" (two words, one in every row): ${two.toFixed(0)} ms`);
    const miss = await timed(5, () => call('GET', '/search?query=nowhere'));
    console.log(`search "nowhere" (no result): ${miss.toFixed(0)} ms`);
    const inSheet = await timed(5, () => call('GET', `/search/sheets/${sheetIds[0]}?query=needle`));
    console.log(`search sheet "needle": ${inSheet.toFixed(0)} ms`);

    // incremental: an Update Rows of 500 rows, then the catch-up that indexes it
    const rows = rowIdsOf[0]!.slice(0, BATCH).map((id, i) => ({ id, cells: [{ columnId: colIdsOf[0]![1]!, value: `changed haystack ${i}` }] }));
    await call('PUT', `/sheets/${sheetIds[0]}/rows`, rows);
    const tc = process.hrtime.bigint();
    await catchUpSearchIndex(store);
    console.log(`catch-up after Update Rows of ${BATCH} rows: ${ms(tc).toFixed(0)} ms; search "haystack" finds ${await count('/search?query=haystack')}`);

    const report = (await call('POST', '/sheetd/reports', { name: 'bench', scope: { sheets: sheetIds.map((id) => ({ id })) }, columns: [{ sheetNameColumn: true }, { title: 'C0', primary: true }, { title: 'C1' }, { title: 'C2' }] })) as { result: { id: number } };
    const filtered = (await call('POST', '/sheetd/reports', { name: 'bench filtered', scope: { sheets: sheetIds.map((id) => ({ id })) }, columns: [{ title: 'C0', primary: true }, { title: 'C1' }], filters: { criteria: [{ column: { title: 'C1' }, operator: 'CONTAINS', values: ['needle'] }] } })) as { result: { id: number } };
    const firstPage = await timed(3, () => call('GET', `/reports/${report.result.id}`));
    const filteredPage = await timed(3, () => call('GET', `/reports/${filtered.result.id}`));
    console.log(`get report over both sheets (first 100 of ${(SHEETS * ROWS).toLocaleString('en')} rows): ${firstPage.toFixed(0)} ms; filtered to the needles: ${filteredPage.toFixed(0)} ms`);
  } finally {
    await server.close();
    await pg?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
