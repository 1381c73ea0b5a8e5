import { execFile, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import { createPgDatabase } from '../test/helpers/server.ts';
import { benchPgAdminUrl } from './stores.ts';

const WARM = 16_000;
const MEASURED = 3_000;
const here = import.meta.dirname;

/**
 * GET /2.0/users/me in machine instructions the server executes per request, beside a bare
 * Fastify route answering the same body: a figure that does not move with the machine's load
 * (the req/s of the http suite drift by a fifth within seconds on a shared machine). Each server
 * runs in a process of its own under valgrind's callgrind, instrumentation off while it starts
 * and warms up (WARM requests), on for MEASURED requests from this process (autocannon, 10
 * connections). Counted: everything but V8's optimizing compiler and its garbage collector,
 * whose share depends on timing; both runs repeat within about 1%. With BENCH_DATABASE_URL (or
 * SHEETD_TEST_DATABASE_URL) set, sheetd on a fresh PostgreSQL database too (its own process's
 * instructions; the database's are not counted; requests arriving together share one token
 * query, and how many do depends on timing, so that figure moves by a sixth between runs).
 * Needs valgrind (Debian's package); without it the suite says so and measures nothing.
 */
export async function benchInstructions(): Promise<void> {
  if (spawnSync('valgrind', ['--version']).status !== 0) {
    console.log('instructions: not measured (needs valgrind: apt-get install valgrind)');
    return;
  }
  // BENCH_CALLGRIND_DIR keeps the profiles (me, bare and me-pg.callgrind) for callgrind_annotate
  const kept = process.env.BENCH_CALLGRIND_DIR;
  if (kept) fs.mkdirSync(kept, { recursive: true });
  const dir = kept || fs.mkdtempSync(path.join(os.tmpdir(), 'sheetd-bench-cg-'));
  try {
    // the bare route answers what /users/me answers; both run at once (one core each)
    const [me, bare] = await Promise.all([
      measure(dir, 'me', undefined),
      (async () => {
        const body = await sampleBody();
        return measure(dir, 'bare', body);
      })(),
    ]);
    console.log(`GET /2.0/users/me (SQLite): ${fmt(me.counted)} instructions a request (compiler ${fmt(me.compiler)}, GC ${fmt(me.gc)} beside)`);
    console.log(`bare Fastify route, same body: ${fmt(bare.counted)} (compiler ${fmt(bare.compiler)}, GC ${fmt(bare.gc)} beside)`);
    console.log(`bare / users/me (SQLite): ${(bare.counted / me.counted).toFixed(2)}`);
    // PostgreSQL: sheetd's own instructions (the database's process is not counted)
    const adminUrl = benchPgAdminUrl();
    if (adminUrl) {
      const pg = await createPgDatabase(adminUrl);
      try {
        const mePg = await measure(dir, 'me-pg', undefined, pg.url);
        console.log(`GET /2.0/users/me (PostgreSQL, sheetd's process): ${fmt(mePg.counted)} (compiler ${fmt(mePg.compiler)}, GC ${fmt(mePg.gc)} beside)`);
        console.log(`bare / users/me (PostgreSQL): ${(bare.counted / mePg.counted).toFixed(2)}`);
      } finally {
        await pg.drop();
      }
    }
  } finally {
    if (!kept) fs.rmSync(dir, { recursive: true, force: true });
  }
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

/** The body /users/me answers on a new server (run natively, briefly). */
async function sampleBody(): Promise<string> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(here, 'instructions-server.ts')], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const { url, token } = await firstLine(child.stdout);
    return await (await fetch(url, { headers: { authorization: `Bearer ${token}` } })).text();
  } finally {
    child.kill('SIGINT');
  }
}

async function firstLine(stream: NodeJS.ReadableStream): Promise<{ url: string; token: string }> {
  const rl = readline.createInterface({ input: stream });
  for await (const line of rl) {
    rl.close();
    return JSON.parse(line) as { url: string; token: string };
  }
  throw new Error('the server ended before it printed its address');
}

async function measure(dir: string, name: string, bareBody: string | undefined, databaseUrl?: string): Promise<{ counted: number; compiler: number; gc: number }> {
  const out = path.join(dir, `${name}.callgrind`);
  const child = spawn('valgrind', ['--tool=callgrind', '--instr-atstart=no', '--smc-check=all-non-file', `--callgrind-out-file=${out}`, process.execPath, '--import', 'tsx', path.join(here, 'instructions-server.ts')], {
    env: { ...process.env, ...(bareBody === undefined ? {} : { BENCH_BARE: bareBody }), ...(databaseUrl === undefined ? {} : { BENCH_INSTRUCTIONS_DATABASE_URL: databaseUrl }) },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    const { url, token } = await firstLine(child.stdout);
    const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
    const run = async (amount: number) => {
      const r = await autocannon({ url, headers, connections: 10, amount, timeout: 60 });
      if (r.non2xx > 0 || r.errors > 0) throw new Error(`${name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
    };
    await run(WARM);
    await promisify(execFile)('callgrind_control', ['-i', 'on', String(child.pid)]);
    await run(MEASURED);
    await promisify(execFile)('callgrind_control', ['-i', 'off', String(child.pid)]);
  } finally {
    child.kill('SIGINT');
    await exited;
  }
  const { stdout } = await promisify(execFile)('callgrind_annotate', ['--threshold=100', out], { maxBuffer: 1 << 28 });
  let total = 0;
  let compiler = 0;
  let gc = 0;
  for (const line of stdout.split('\n')) {
    const m = /^\s*([\d,]+) \(\s*[\d.]+%\)\s+(.*)$/.exec(line);
    if (!m) continue;
    const n = Number(m[1]!.replaceAll(',', ''));
    const fn = m[2]!;
    if (fn.includes('PROGRAM TOTALS')) continue;
    total += n;
    if (/compiler::|maglev|Maglev|turboshaft|Turboshaft|Zone::|OptimizedCompilationJob/.test(fn)) compiler += n;
    else if (/Heap::|Scaveng|MarkCompact|Sweeper|Evacuat|Marking|GCTracer|MemoryChunk|heap::|MinorMC|RememberedSet|SlotSet/.test(fn)) gc += n;
  }
  return { counted: (total - compiler - gc) / MEASURED, compiler: compiler / MEASURED, gc: gc / MEASURED };
}

if (import.meta.url === `file://${process.argv[1]}`) await benchInstructions();
