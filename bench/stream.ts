import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../test/helpers/process.ts';
import { rssKb } from './proc.ts';

/**
 * Change streams (docs/changes-stream.md), against a `sheetd serve` child process (SQLite, or
 * PostgreSQL with DATABASE_URL; REDIS_URL is passed on when set):
 *
 * - 200 streams open on one sheet and one writer updating a cell 60 times, one write at a time:
 *   the delay from the write's answer (as its client sees it) to its rows-updated event at
 *   every stream. Goal: p99 under 300 ms.
 * - Memory per idle stream: the server's resident size with 2,000 idle streams open against
 *   none (after a round of streams opened and closed, so what every stream shares is counted
 *   once), each the least reading over 8 s once the server is quiet, so that the garbage of
 *   2,000 requests opening streams (given back when V8 sees the process quiet) is not counted
 *   as what holding them costs; the reading 2 s after opening is printed too. Goal: under 50 KB
 *   a stream.
 * - 2,000 idle streams held by one process: all get hello, all get one write's event (its
 *   delay), all get the heartbeat comment (SHEETD_STREAM_HEARTBEAT_MS is 3 s here).
 */
const root = path.resolve(import.meta.dirname, '..');
const STREAMS = Number(process.env.BENCH_STREAMS ?? 200);
const WRITES = Number(process.env.BENCH_WRITES ?? 60);
const IDLE = 2000;
const HEARTBEAT_MS = 3000;
/** How long resident size is watched for its settled (least) reading. */
const SETTLE_MS = 8000;



function request(port: number, method: string, p: string, token: string, body?: unknown): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const req = http.request({ host: '127.0.0.1', port, method, path: p.startsWith('/health') ? p : '/2.0' + p, headers: { authorization: `Bearer ${token}`, ...(data ? { 'content-type': 'application/json', 'content-length': String(data.length) } : {}) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(data);
  });
}

/** A stream read as text: it notes when each awaited marker first shows up, and counts comment lines. */
interface Watcher {
  hello: Promise<void>;
  seen: Map<string, number>;
  comments: number;
  watch(marker: string): void;
  close(): void;
}

function watchStream(port: number, sheetId: number, token: string): Watcher {
  const w: Watcher = { hello: Promise.resolve(), seen: new Map(), comments: 0, watch: () => {}, close: () => {} };
  const wanted = new Set<string>();
  let tail = '';
  let helloDone!: () => void;
  let helloFail!: (e: Error) => void;
  w.hello = new Promise((ok, ko) => { helloDone = ok; helloFail = ko; });
  const req = http.request({ host: '127.0.0.1', port, path: `/2.0/sheetd/sheets/${sheetId}/changes`, headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' }, agent: false }, (res) => {
    if (res.statusCode !== 200) helloFail(new Error(`stream answered ${res.statusCode}`));
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      const now = performance.now();
      const text = tail + chunk;
      if (text.includes('event: hello')) helloDone();
      for (const m of wanted) {
        if (text.includes(m)) {
          w.seen.set(m, now);
          wanted.delete(m);
        }
      }
      w.comments += chunk.split(': keep-alive').length - 1;
      tail = text.slice(-64);
    });
  });
  req.on('error', (e) => helloFail(e));
  req.end();
  w.watch = (m) => wanted.add(m);
  w.close = () => req.destroy();
  return w;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * p))]!;
}

export async function benchStream(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetd-bench-stream-'));
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOST: '127.0.0.1',
    PORT: String(port),
    SHEETD_DATA_DIR: dataDir,
    SHEETD_RATE_LIMIT: String(1e12),
    SHEETD_LOG_LEVEL: 'silent',
    SHEETD_MAX_CONNECTIONS: String(IDLE + 500),
    SHEETD_STREAM_HEARTBEAT_MS: String(HEARTBEAT_MS),
  };
  const child = spawn(process.execPath, [path.join(root, 'bin/sheetd.js'), 'serve'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  const pid = child.pid!;
  const open: Watcher[] = [];
  try {
    for (let i = 0; ; i++) {
      if (await request(port, 'GET', '/health', '').then((r) => r.status === 200, () => false)) break;
      if (i > 300) throw new Error('the server did not start');
      await sleep(100);
    }
    const admin = fs.readFileSync(path.join(dataDir, 'admin-token'), 'utf8').trim();
    const call = async (method: string, p: string, body?: unknown) => {
      const r = await request(port, method, p, admin, body);
      if (r.status !== 200) throw new Error(`${method} ${p}: ${r.status} ${r.text.slice(0, 300)}`);
      return JSON.parse(r.text) as { result: unknown };
    };
    const columns = Array.from({ length: 10 }, (_, i) => ({ title: `C${i}`, type: 'TEXT_NUMBER', ...(i === 0 ? { primary: true } : {}) }));
    const created = (await call('POST', '/sheets', { name: 'stream bench', columns })).result as { id: number; columns: Array<{ id: number }> };
    const sheetId = created.id;
    const col = created.columns[1]!.id;
    const rows = (await call('POST', `/sheets/${sheetId}/rows`, Array.from({ length: 100 }, (_, r) => ({ toBottom: true, cells: created.columns.map((c, i) => ({ columnId: c.id, value: `r${r}c${i}` })) })))).result as Array<{ id: number }>;
    console.log(`server: ${process.env.DATABASE_URL ? 'PostgreSQL' : 'SQLite'}${process.env.REDIS_URL ? ' + Redis' : ''}, one process; sheet of 10 columns x 100 rows`);

    // ---- 200 streams, one writer
    const streams = Array.from({ length: STREAMS }, () => watchStream(port, sheetId, admin));
    open.push(...streams);
    await Promise.all(streams.map((s) => s.hello));
    await sleep(500);
    const delays: number[] = [];
    for (let i = 0; i < WRITES; i++) {
      const marker = `w${i}x${Math.random().toString(36).slice(2, 8)}`;
      for (const s of streams) s.watch(marker);
      await call('PUT', `/sheets/${sheetId}/rows`, [{ id: rows[i % rows.length]!.id, cells: [{ columnId: col, value: marker }] }]);
      const answered = performance.now();
      const deadline = answered + 5000;
      while (streams.some((s) => !s.seen.has(marker)) && performance.now() < deadline) await sleep(2);
      for (const s of streams) delays.push(s.seen.has(marker) ? s.seen.get(marker)! - answered : Infinity);
      await sleep(20);
    }
    delays.sort((a, b) => a - b);
    const lost = delays.filter((d) => d === Infinity).length;
    console.log(`${STREAMS} streams, ${WRITES} writes: write answered -> event at every stream  p50 ${percentile(delays, 0.5).toFixed(1)} ms  p99 ${percentile(delays, 0.99).toFixed(1)} ms (goal < 300)  max ${delays[delays.length - lost - 1]!.toFixed(1)} ms${lost ? `  MISSED ${lost}` : ''}`);
    for (const s of streams) s.close();
    open.length = 0;
    await sleep(1000);

    // ---- memory per idle stream, and 2,000 held
    const warm = Array.from({ length: 200 }, () => watchStream(port, sheetId, admin));
    await Promise.all(warm.map((s) => s.hello));
    for (const s of warm) s.close();
    // resident size once the server has settled (its heap's garbage from opening streams given
    // back, as V8 does when a process goes quiet): the least of readings over a few seconds
    const settledRssKb = async () => {
      let least = rssKb(pid);
      for (let t = 0; t < SETTLE_MS; t += 250) {
        await sleep(250);
        least = Math.min(least, rssKb(pid));
      }
      return least;
    };
    const before = await settledRssKb();
    const idle: Watcher[] = [];
    for (let i = 0; i < IDLE; i += 100) {
      const part = Array.from({ length: Math.min(100, IDLE - i) }, () => watchStream(port, sheetId, admin));
      idle.push(...part);
      open.push(...part);
      await Promise.all(part.map((s) => s.hello));
    }
    await sleep(2000);
    const opening = rssKb(pid);
    const after = await settledRssKb();
    console.log(`memory per idle stream: ${((after - before) / IDLE).toFixed(1)} KB (goal < 50)   resident ${(before / 1024).toFixed(0)} MB -> ${(after / 1024).toFixed(0)} MB with ${IDLE} streams, settled (2 s after opening them: ${(opening / 1024).toFixed(0)} MB, ${((opening - before) / IDLE).toFixed(1)} KB a stream)`);
    const marker = `idle${Math.random().toString(36).slice(2, 8)}`;
    for (const s of idle) s.watch(marker);
    await call('PUT', `/sheets/${sheetId}/rows`, [{ id: rows[0]!.id, cells: [{ columnId: col, value: marker }] }]);
    const answered = performance.now();
    const deadline = answered + 10_000;
    while (idle.some((s) => !s.seen.has(marker)) && performance.now() < deadline) await sleep(5);
    const got = idle.filter((s) => s.seen.has(marker)).map((s) => s.seen.get(marker)! - answered).sort((a, b) => a - b);
    const c0 = idle.map((s) => s.comments);
    await sleep(HEARTBEAT_MS + 1000);
    const beating = idle.filter((s, i) => s.comments > c0[i]!).length;
    console.log(`${IDLE} idle streams held: ${got.length} got one write's event (p50 ${percentile(got, 0.5).toFixed(0)} ms, p99 ${percentile(got, 0.99).toFixed(0)} ms), ${beating} got the next heartbeat; resident ${(rssKb(pid) / 1024).toFixed(0)} MB`);
  } finally {
    for (const s of open) s.close();
    child.kill('SIGTERM');
    await new Promise((ok) => child.once('exit', ok));
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
