import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { loadConfig } from '../src/config.ts';
import { startServer } from '../src/server.ts';
import { onEachStore } from './stores.ts';
import { recordGoal } from './goals.ts';
import { median } from './stats.ts';

/** Seconds of each round of each route (BENCH_SECONDS), and the rounds, alternating the two routes. */
const DURATION = Number(process.env.BENCH_SECONDS ?? 2);
const ROUNDS = 5;
const CONNECTIONS = 10;
/** Issue 32: /users/me at least 0.7 of the bare route's requests per second. */
const GOAL = 0.7;

async function measure(url: string, headers: Record<string, string>): Promise<number> {
  const r = await autocannon({ url, headers, connections: CONNECTIONS, duration: DURATION });
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${url}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  return r.requests.average;
}

/**
 * GET /2.0/users/me through the whole stack (auth against the database, rate limiting on with
 * the limit raised) beside a bare Fastify route that returns the same body, in the same run:
 * five rounds of each, alternating.
 * On SQLite, and on PostgreSQL too when BENCH_DATABASE_URL (default SHEETD_TEST_DATABASE_URL)
 * is set (a fresh database, dropped after).
 */
async function measureStore(store: string, databaseUrl: string | undefined): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetd-bench-'));
  const server = await startServer(loadConfig({ PORT: '0', SHEETD_DATA_DIR: dataDir, SHEETD_RATE_LIMIT: String(1e12), SHEETD_LOG_LEVEL: 'silent', ...(databaseUrl === undefined ? {} : { DATABASE_URL: databaseUrl }) }), { logger: false });
  const token = fs.readFileSync(path.join(dataDir, 'admin-token'), 'utf8').trim();
  const me = await (await fetch(server.url + '/2.0/users/me', { headers: { authorization: `Bearer ${token}` } })).json();

  const bare = Fastify({ logger: false });
  bare.get('/bare', async () => me);
  await bare.listen({ port: 0, host: '127.0.0.1' });
  const bareUrl = `http://127.0.0.1:${(bare.server.address() as { port: number }).port}/bare`;

  try {
    // warm both up (the JIT needs a few seconds of each), then rounds of one after the other,
    // the first of each pair alternating: this machine's speed drifts by a fifth or more within
    // seconds, so one measurement of each, taken apart, gave ratios 0.1 apart from run to run.
    // The ratio is the median of the rounds' ratios; the req/s printed are medians too.
    const meUrl = server.url + '/2.0/users/me';
    const auth = { authorization: `Bearer ${token}` };
    await measure(bareUrl, {});
    await measure(meUrl, auth);
    const bare: number[] = [];
    const mine: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      if (r % 2 === 0) {
        bare.push(await measure(bareUrl, {}));
        mine.push(await measure(meUrl, auth));
      } else {
        mine.push(await measure(meUrl, auth));
        bare.push(await measure(bareUrl, {}));
      }
    }
    const bareRps = median(bare);
    const meRps = median(mine);
    const ratio = median(mine.map((m, i) => m / bare[i]!));
    console.log(`GET /2.0/users/me (auth + rate limit, ${store}): ${meRps.toFixed(0).padStart(6)} req/s`);
    console.log(`bare Fastify route, same body:${' '.repeat(Math.max(0, store.length - 4))}             ${bareRps.toFixed(0).padStart(6)} req/s`);
    console.log(`ratio: ${ratio.toFixed(2)} (goal: at least ${GOAL})`);
    recordGoal({ key: 'users-me', variant: store, value: ratio.toFixed(2), baseline: `bare route ${bareRps.toFixed(0)} req/s, /users/me ${meRps.toFixed(0)} req/s`, met: ratio >= GOAL });
  } finally {
    await bare.close();
    await server.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function benchHttp(): Promise<void> {
  await onEachStore(measureStore);
}

if (import.meta.url === `file://${process.argv[1]}`) await benchHttp();
