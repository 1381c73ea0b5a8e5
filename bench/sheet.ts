import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { loadConfig } from '../src/config.ts';
import { startServer } from '../src/server.ts';

/**
 * A 20-column sheet growing to 25,000 rows (500,000 cells) through the API: time to add 500
 * rows, update 500 rows, get the whole sheet and get one row, each beside a baseline measured
 * in the same run (JSON.stringify of the same response object; a raw SQLite insert of the
 * same rows). Goals: whole-sheet read within 2x of its JSON.stringify baseline; add 500 rows
 * under 100 ms at 25,000 rows.
 */
const COLS = 20;
const TARGET = Number(process.env.BENCH_ROWS ?? 25_000);
const BATCH = 500;

function ms(t0: bigint): number {
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

export async function benchSheet(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetd-bench-sheet-'));
  const server = await startServer(loadConfig({ PORT: '0', SHEETD_DATA_DIR: dataDir, SHEETD_RATE_LIMIT: String(1e12), SHEETD_LOG_LEVEL: 'silent', SHEETD_BODY_LIMIT: String(64 * 1024 * 1024) }), { logger: false });
  const token = fs.readFileSync(path.join(dataDir, 'admin-token'), 'utf8').trim();
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const call = async (method: string, p: string, body?: unknown, encoding = 'identity') => {
    const res = await fetch(server.url + '/2.0' + p, { method, headers: { ...headers, 'accept-encoding': encoding }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${method} ${p}: ${res.status} ${text.slice(0, 300)}`);
    return text;
  };
  try {
    const columns = Array.from({ length: COLS }, (_, i) => ({ title: `C${i}`, type: 'TEXT_NUMBER', ...(i === 0 ? { primary: true } : {}) }));
    const created = JSON.parse(await call('POST', '/sheets', { name: 'bench', columns })) as { result: { id: number; columns: Array<{ id: number }> } };
    const sheetId = created.result.id;
    const colIds = created.result.columns.map((c) => c.id);
    const rowsOf = (n: number, base: number) => Array.from({ length: n }, (_, r) => ({ toBottom: true, cells: colIds.map((id, c) => ({ columnId: id, value: c % 2 === 0 ? `r${base + r}c${c}` : base + r + c })) }));

    let lastAdd = 0;
    // ids of the last batch added
    let lastIds: number[] = [];
    for (let n = 0; n < TARGET; n += BATCH) {
      const t0 = process.hrtime.bigint();
      const out = JSON.parse(await call('POST', `/sheets/${sheetId}/rows`, rowsOf(BATCH, n))) as { result: Array<{ id: number }> };
      lastAdd = ms(t0);
      lastIds = out.result.map((r) => r.id);
    }
    // the last 500 rows again (24,500 -> 25,000, the 500,000-cell limit), a few times: median
    const adds: number[] = [lastAdd];
    for (let i = 0; i < 4; i++) {
      await call('DELETE', `/sheets/${sheetId}/rows?ids=${lastIds.join(',')}`);
      const t0 = process.hrtime.bigint();
      const out = JSON.parse(await call('POST', `/sheets/${sheetId}/rows`, rowsOf(BATCH, TARGET + i * BATCH))) as { result: Array<{ id: number }> };
      adds.push(ms(t0));
      lastIds = out.result.map((r) => r.id);
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const updates: number[] = [];
    for (let i = 0; i < 5; i++) {
      const body = lastIds.map((id) => ({ id, cells: colIds.slice(1, 6).map((cid) => ({ columnId: cid, value: `u${i}` })) }));
      const t0 = process.hrtime.bigint();
      await call('PUT', `/sheets/${sheetId}/rows`, body);
      updates.push(ms(t0));
    }
    const gets: number[] = [];
    let sheetText = '';
    for (let i = 0; i < 5; i++) {
      const t0 = process.hrtime.bigint();
      sheetText = await call('GET', `/sheets/${sheetId}`);
      gets.push(ms(t0));
    }
    const gz: number[] = [];
    for (let i = 0; i < 3; i++) {
      const t0 = process.hrtime.bigint();
      await call('GET', `/sheets/${sheetId}`, undefined, 'gzip');
      gz.push(ms(t0));
    }
    const obj = JSON.parse(sheetText) as { rows: unknown[] };
    const stringifies: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t0 = process.hrtime.bigint();
      JSON.stringify(obj);
      stringifies.push(ms(t0));
    }
    const oneRow: number[] = [];
    for (let i = 0; i < 20; i++) {
      const t0 = process.hrtime.bigint();
      await call('GET', `/sheets/${sheetId}/rows/${lastIds[i % lastIds.length]}`);
      oneRow.push(ms(t0));
    }
    // baseline for adds: the same 500 rows inserted with a prepared statement into a bare SQLite table
    const raw = new Database(path.join(dataDir, 'baseline.db'));
    raw.pragma('journal_mode = WAL');
    raw.exec('create table rows (id integer primary key, sheet_id integer, sort_key real, cells text)');
    const ins = raw.prepare('insert into rows (id, sheet_id, sort_key, cells) values (?, ?, ?, ?)');
    const rawBatch = rowsOf(BATCH, 0);
    const rawTimes: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t0 = process.hrtime.bigint();
      raw.transaction(() => {
        rawBatch.forEach((r, k) => ins.run(i * BATCH + k + 1, 1, i * BATCH + k, JSON.stringify(Object.fromEntries(r.cells.map((c) => [c.columnId, { v: c.value }])))));
      })();
      rawTimes.push(ms(t0));
    }
    raw.close();

    const rowCount = obj.rows.length;
    console.log(`sheet: ${COLS} columns x ${rowCount} rows (${COLS * rowCount} cells), SQLite`);
    console.log(`add 500 rows (24,500->25,000): ${median(adds).toFixed(1)} ms (goal < 100 ms)`);
    console.log(`  baseline raw SQLite insert: ${median(rawTimes).toFixed(1)} ms   ratio ${(median(adds) / median(rawTimes)).toFixed(1)}x`);
    console.log(`update 500 rows (5 cells):    ${median(updates).toFixed(1)} ms`);
    console.log(`get whole sheet:              ${median(gets).toFixed(1)} ms (${(sheetText.length / 1e6).toFixed(1)} MB)`);
    console.log(`  baseline JSON.stringify:    ${median(stringifies).toFixed(1)} ms   ratio ${(median(gets) / median(stringifies)).toFixed(2)}x (goal within 2x)`);
    console.log(`get whole sheet, gzip:        ${median(gz).toFixed(1)} ms`);
    console.log(`get one row:                  ${median(oneRow).toFixed(2)} ms`);
  } finally {
    await server.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchSheet();
