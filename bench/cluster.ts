import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { benchPgAdminUrl } from './stores.ts';

/**
 * `npm run bench -- cluster`: reads and writes per second through HAProxy with 1, 2 and 3 sheetd
 * processes (scripts/cluster) on one PostgreSQL and Redis. Needs BENCH_DATABASE_URL (a PostgreSQL
 * URL whose user may create databases; default SHEETD_TEST_DATABASE_URL), BENCH_REDIS_URL
 * (default SHEETD_TEST_REDIS_URL) and haproxy. Each size gets a fresh database.
 *
 * Reads: GET /2.0/sheets/{id} of a 100-row sheet. Writes: POST /2.0/sheets/{id}/rows (one row)
 * spread over 20 sheets (writes to one sheet queue behind its lock, whatever the process count).
 * The figures say how the processes share the machine's cores: on a machine with fewer cores
 * than processes plus PostgreSQL, more processes cannot go faster.
 */
const SCRIPT = path.resolve(import.meta.dirname, '../scripts/cluster');
const run = promisify(execFile);
const DURATION = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 20;
const SHEETS = 20;

async function measure(opts: autocannon.Options): Promise<number> {
  const r = await autocannon({ connections: CONNECTIONS, duration: DURATION, ...opts });
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${opts.url}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  return r.requests.average;
}

async function freshDatabase(adminUrl: string, name: string): Promise<string> {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await c.query(`CREATE DATABASE ${name}`);
  await c.end();
  const u = new URL(adminUrl);
  u.pathname = '/' + name;
  return u.toString();
}

async function api(base: string, token: string, method: string, p: string, body?: unknown): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const res = await fetch(base + p, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  if (res.status !== 200) throw new Error(`${method} ${p}: ${res.status} ${await res.text()}`);
  return res.json();
}

export async function benchCluster(): Promise<void> {
  const adminUrl = benchPgAdminUrl();
  const redisUrl = process.env.BENCH_REDIS_URL || process.env.SHEETD_TEST_REDIS_URL;
  if (!adminUrl || !redisUrl) {
    console.log('skipped: set BENCH_DATABASE_URL (PostgreSQL) and BENCH_REDIS_URL');
    return;
  }
  const port = Number(process.env.BENCH_CLUSTER_PORT ?? 18780);
  const figures: Array<[number, number, number]> = [];
  for (const n of [1, 2, 3]) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetd-bench-cluster-'));
    const databaseUrl = await freshDatabase(adminUrl, 'sheetd_bench_cluster');
    const env = { ...process.env, DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, PORT: String(port), SHEETD_CLUSTER_DIR: dir, SHEETD_REDIS_PREFIX: `sheetd-bench-${n}:`, SHEETD_RATE_LIMIT: String(1e12), SHEETD_LOG_LEVEL: 'warn' };
    await run(SCRIPT, ['start', String(n)], { env });
    try {
      const base = `http://127.0.0.1:${port}/2.0`;
      const token = fs.readFileSync(path.join(dir, 'data', 'admin-token'), 'utf8').trim();
      const sheets: Array<{ id: number; col: number }> = [];
      for (let i = 0; i < SHEETS; i++) {
        const s = (await api(base, token, 'POST', '/sheets', { name: `bench ${i}`, columns: [{ title: 'Name', type: 'TEXT_NUMBER', primary: true }, { title: 'N', type: 'TEXT_NUMBER' }] })).result;
        sheets.push({ id: s.id, col: s.columns[0].id });
      }
      const first = sheets[0]!;
      await api(base, token, 'POST', `/sheets/${first.id}/rows`, Array.from({ length: 100 }, (_, i) => ({ toBottom: true, cells: [{ columnId: first.col, value: `row ${i}` }] })));
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      const readOpts: autocannon.Options = { url: `${base}/sheets/${first.id}`, headers };
      let k = 0;
      const writeOpts: autocannon.Options = {
        url: base,
        headers,
        requests: [{
          method: 'POST',
          setupRequest: (req) => {
            const s = sheets[k++ % sheets.length]!;
            return { ...req, path: `/2.0/sheets/${s.id}/rows`, body: JSON.stringify([{ toBottom: true, cells: [{ columnId: s.col, value: `w${k}` }] }]) };
          },
        }],
      };
      // a short warm-up of each (the JIT, the caches), then the measured runs
      await autocannon({ ...readOpts, connections: CONNECTIONS, duration: 2 });
      await autocannon({ ...writeOpts, connections: CONNECTIONS, duration: 2 });
      const reads = await measure(readOpts);
      const writes = await measure(writeOpts);
      figures.push([n, reads, writes]);
      console.log(`${n} process${n > 1 ? 'es' : ''}: reads ${reads.toFixed(0)} req/s (GET a 100-row sheet), writes ${writes.toFixed(0)} req/s (add a row, 20 sheets)`);
    } finally {
      await run(SCRIPT, ['stop'], { env });
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
  const [, r1, w1] = figures[0]!;
  console.log(`scaling from 1 process: ${figures.map(([n, r, w]) => `${n}: reads x${(r / r1).toFixed(2)}, writes x${(w / w1).toFixed(2)}`).join('; ')} (${os.availableParallelism()} cores; goal: no loss from the balancer, gains where cores allow)`);
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  await c.query('DROP DATABASE IF EXISTS sheetd_bench_cluster WITH (FORCE)');
  await c.end();
}

if (import.meta.url === `file://${process.argv[1]}`) await benchCluster();
