import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.ts';
import { startServer } from '../src/server.ts';
import { median } from './stats.ts';

/**
 * Project scheduling on a large plan (issue 32: "speed where people feel it"). A sheet made from
 * the Project Plan template with ROWS rows: phases of 1 parent and 99 tasks, each task after the one
 * before it (FS), each phase's first task after the previous phase's last, so that the whole plan
 * is one chain. Timed through the HTTP API in the same process (medians of several edits):
 * - a duration written on the first task (every later row's dates move: the whole cascade);
 * - a duration written on the last task (nothing after it moves);
 * - a cell of a column the schedule does not read (Comments: no rescheduling at all);
 * - a Get Sheet with `include=objectValue` right after a write (predecessors' inCriticalPath:
 *   the critical path of the new schedule), against a Get Sheet before any write (the kept body).
 */
const ROWS = Number(process.env.BENCH_SCHEDULE_ROWS ?? 20_000);
const PHASE = 100;
const BATCH = 500;
const EDITS = 5;
const PROJECT_PLAN = 5816286846604928;


export async function benchSchedule(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetd-bench-'));
  const server = await startServer(loadConfig({ PORT: '0', SHEETD_DATA_DIR: dataDir, SHEETD_RATE_LIMIT: String(1e12), SHEETD_LOG_LEVEL: 'silent' }), { logger: false });
  const token = fs.readFileSync(path.join(dataDir, 'admin-token'), 'utf8').trim();
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const call = async (method: string, url: string, body?: unknown): Promise<{ result?: unknown } & Record<string, unknown>> => {
    const r = await fetch(server.url + '/2.0' + url, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const text = await r.text();
    if (!r.ok) throw new Error(`${method} ${url}: ${r.status} ${text.slice(0, 300)}`);
    return JSON.parse(text) as { result?: unknown } & Record<string, unknown>;
  };
  try {
    const made = (await call('POST', '/sheets', { name: 'Big plan', fromId: PROJECT_PLAN })).result as { id: number };
    const sheetId = made.id;
    const sheet = (await call('GET', `/sheets/${sheetId}`)) as { columns: Array<{ id: number; title: string }>; rows: Array<{ id: number }> };
    const col = Object.fromEntries(sheet.columns.map((c) => [c.title, c.id])) as Record<string, number>;
    if (sheet.rows.length > 0) await call('DELETE', `/sheets/${sheetId}/rows?ids=${sheet.rows.map((r) => r.id).join(',')}`);

    // the plan: parents first (one batch), then each phase's tasks as its children
    const t0 = performance.now();
    const parents: number[] = [];
    const phases = Math.ceil(ROWS / PHASE);
    for (let p = 0; p < phases; p += BATCH) {
      const rows = [];
      for (let k = p; k < Math.min(phases, p + BATCH); k++) rows.push({ toBottom: true, cells: [{ columnId: col['Task Name'], value: `Phase ${k + 1}` }] });
      for (const r of (await call('POST', `/sheets/${sheetId}/rows`, rows)).result as Array<{ id: number }>) parents.push(r.id);
    }
    // each phase's tasks in one request (a request's rows share their location, the parent)
    const taskIds: number[] = [];
    for (let k = 0; k < phases; k++) {
      const rows = [];
      for (let j = 1; j < PHASE; j++) rows.push({ parentId: parents[k]!, cells: [{ columnId: col['Task Name'], value: `Task ${k + 1}.${j}` }, { columnId: col.Duration, value: '2d' }] });
      for (const r of (await call('POST', `/sheets/${sheetId}/rows`, rows)).result as Array<{ id: number }>) taskIds.push(r.id);
    }
    // then the chain (a predecessor names a row number the sheet has): phase k's parent is row
    // k*PHASE+1, its tasks the rows after it; the first task of all starts on a date
    const links: unknown[] = [];
    for (let k = 0; k < phases; k++) {
      for (let j = 1; j < PHASE; j++) {
        const rowNumber = k * PHASE + j + 1;
        const before = j === 1 ? (k === 0 ? undefined : rowNumber - 2) : rowNumber - 1;
        const id = taskIds[k * (PHASE - 1) + j - 1]!;
        links.push({ id, cells: [before === undefined ? { columnId: col.Start, value: '2026-01-05' } : { columnId: col.Predecessors, value: `${before}FS` }] });
      }
    }
    for (let i = 0; i < links.length; i += BATCH) await call('PUT', `/sheets/${sheetId}/rows`, links.slice(i, i + BATCH));
    const built = performance.now() - t0;
    const rows = ((await call('GET', `/sheets/${sheetId}`)) as { rows: Array<{ id: number; parentId?: number }> }).rows;
    const leaves = rows.filter((r) => r.parentId !== undefined);
    const first = leaves[0]!.id;
    const last = leaves[leaves.length - 1]!.id;
    console.log(`a plan of ${rows.length} rows (${phases} phases of ${PHASE - 1} tasks in one FS chain) built in ${(built / 1000).toFixed(1)} s`);

    const timed = async (what: string, edit: (n: number) => Promise<unknown>, after?: () => Promise<unknown>): Promise<void> => {
      const edits: number[] = [];
      const reads: number[] = [];
      for (let n = 0; n < EDITS; n++) {
        const a = performance.now();
        await edit(n);
        edits.push(performance.now() - a);
        if (after) {
          const b = performance.now();
          await after();
          reads.push(performance.now() - b);
        }
      }
      console.log(`${what.padEnd(52)} ${median(edits).toFixed(1).padStart(7)} ms${after ? `; the Get Sheet after it ${median(reads).toFixed(1).padStart(7)} ms` : ''}`);
    };
    const duration = (rowId: number) => (n: number) => call('PUT', `/sheets/${sheetId}/rows`, [{ id: rowId, cells: [{ columnId: col.Duration, value: `${2 + (n % 2)}d` }] }]);
    // the body read as bytes: parsing 20,000 rows in the bench's own process is the client's time
    const readWithObjects = async () => {
      const r = await fetch(`${server.url}/2.0/sheets/${sheetId}?include=objectValue`, { headers });
      if (!r.ok) throw new Error(`Get Sheet: ${r.status}`);
      return r.arrayBuffer();
    };
    await readWithObjects();
    await timed('Get Sheet with objectValue, nothing written', () => readWithObjects());
    await timed('duration of the first task (the whole plan moves)', duration(first), readWithObjects);
    await timed('duration of the last task (nothing after it)', duration(last), readWithObjects);
    await timed('a Comments cell (no schedule column)', (n) => call('PUT', `/sheets/${sheetId}/rows`, [{ id: first, cells: [{ columnId: col.Comments, value: `note ${n}` }] }]), readWithObjects);
  } finally {
    await server.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchSchedule();
