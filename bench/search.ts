import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { loadConfig } from '../src/config.ts';
import { startServer } from '../src/server.ts';

/**
 * Search and reports over 1,000,000 cells: two sheets of 20 columns × 25,000 rows (the
 * 500,000-cell limit each), filled through the API. Times Search Everything for a word in a few
 * rows and for one in every row, Search Sheet, and Get Report (first page, and filtered) over
 * both sheets; beside a baseline measured in the same run: the same LIKE straight on the SQLite
 * file (what the store asks for, without HTTP, access checks or the in-memory check). Goal: a
 * search within 4× of its raw LIKE.
 */
const COLS = 20;
const ROWS = Number(process.env.BENCH_ROWS ?? 25_000);
const SHEETS = Number(process.env.BENCH_SHEETS ?? 2);
const BATCH = 500;

function ms(t0: bigint): number {
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function benchSearch(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetd-bench-search-'));
  const server = await startServer(loadConfig({ PORT: '0', SHEETD_DATA_DIR: dataDir, SHEETD_RATE_LIMIT: String(1e12), SHEETD_LOG_LEVEL: 'silent', SHEETD_BODY_LIMIT: String(64 * 1024 * 1024) }), { logger: false });
  const token = fs.readFileSync(path.join(dataDir, 'admin-token'), 'utf8').trim();
  const call = async (method: string, p: string, body?: unknown) => {
    const res = await fetch(server.url + '/2.0' + p, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
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
    const t0 = process.hrtime.bigint();
    for (let s = 0; s < SHEETS; s++) {
      const columns = Array.from({ length: COLS }, (_, i) => ({ title: `C${i}`, type: 'TEXT_NUMBER', ...(i === 0 ? { primary: true } : {}) }));
      const created = (await call('POST', '/sheets', { name: `bench search ${s}`, columns })) as { result: { id: number; columns: Array<{ id: number }> } };
      sheetIds.push(created.result.id);
      const colIds = created.result.columns.map((c) => c.id);
      for (let n = 0; n < ROWS; n += BATCH) {
        const rows = Array.from({ length: BATCH }, (_, r) => ({
          toBottom: true,
          // every row has "common"; one row in 5,000 has "needle"
          cells: colIds.map((id, c) => ({ columnId: id, value: c === 0 ? `s${s} row ${n + r} common` : c === 1 && (n + r) % 5000 === 7 ? `a needle here ${n + r}` : c % 2 === 0 ? `text ${n + r}-${c}` : n + r + c })),
        }));
        await call('POST', `/sheets/${created.result.id}/rows`, rows);
      }
    }
    console.log(`filled ${SHEETS} sheets × ${ROWS} rows × ${COLS} columns (${(SHEETS * ROWS * COLS).toLocaleString('en')} cells) in ${(ms(t0) / 1000).toFixed(1)} s`);
    const report = (await call('POST', '/sheetd/reports', { name: 'bench', scope: { sheets: sheetIds.map((id) => ({ id })) }, columns: [{ sheetNameColumn: true }, { title: 'C0', primary: true }, { title: 'C1' }, { title: 'C2' }] })) as { result: { id: number } };
    const filtered = (await call('POST', '/sheetd/reports', { name: 'bench filtered', scope: { sheets: sheetIds.map((id) => ({ id })) }, columns: [{ title: 'C0', primary: true }, { title: 'C1' }], filters: { criteria: [{ column: { title: 'C1' }, operator: 'CONTAINS', values: ['needle'] }] } })) as { result: { id: number } };

    const raw = new Database(path.join(dataDir, 'sheetd.db'), { readonly: true });
    const like = raw.prepare("select count(*) as n from rows where sheet_id in (" + sheetIds.map(() => '?').join(',') + ") and lower(cells) like ? escape '\\'");
    const rawNeedle = await timed(5, async () => like.get(...sheetIds, '%needle%'));
    const rawCommon = await timed(3, async () => like.get(...sheetIds, '%common%'));
    raw.close();

    const needle = await timed(5, () => call('GET', '/search?query=needle'));
    const found = (await call('GET', '/search?query=needle')) as { totalCount: number };
    const common = await timed(3, () => call('GET', '/search?query=common&scopes=cellData'));
    const commonCount = ((await call('GET', '/search?query=common&scopes=cellData')) as { totalCount: number }).totalCount;
    const inSheet = await timed(5, () => call('GET', `/search/sheets/${sheetIds[0]}?query=needle`));
    const firstPage = await timed(3, () => call('GET', `/reports/${report.result.id}`));
    const filteredPage = await timed(3, () => call('GET', `/reports/${filtered.result.id}`));
    const ratio = (a: number, b: number) => (b > 0 ? (a / b).toFixed(1) : '-');
    console.log(`search "needle" (${found.totalCount} results): ${needle.toFixed(0)} ms; raw LIKE ${rawNeedle.toFixed(0)} ms (${ratio(needle, rawNeedle)}×, goal within 4×)`);
    console.log(`search "common" in cells (${commonCount.toLocaleString('en')} results, 100 shown): ${common.toFixed(0)} ms; raw LIKE ${rawCommon.toFixed(0)} ms (${ratio(common, rawCommon)}×)`);
    console.log(`search sheet "needle": ${inSheet.toFixed(0)} ms`);
    console.log(`get report over both sheets (first 100 of ${(SHEETS * ROWS).toLocaleString('en')} rows): ${firstPage.toFixed(0)} ms; filtered to the needles: ${filteredPage.toFixed(0)} ms`);
  } finally {
    await server.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
