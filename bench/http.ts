import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { loadConfig } from '../src/config.ts';
import { startServer } from '../src/server.ts';

const DURATION = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 10;

async function measure(url: string, headers: Record<string, string>): Promise<number> {
  const r = await autocannon({ url, headers, connections: CONNECTIONS, duration: DURATION });
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${url}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  return r.requests.average;
}

/**
 * GET /2.0/users/me through the whole stack (auth against the database, rate limiting on with
 * the limit raised) beside a bare Fastify route that returns a similar body, in the same run.
 */
export async function benchHttp(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetd-bench-'));
  const server = await startServer(loadConfig({ PORT: '0', SHEETD_DATA_DIR: dataDir, SHEETD_RATE_LIMIT: String(1e12), SHEETD_LOG_LEVEL: 'silent' }), { logger: false });
  const token = fs.readFileSync(path.join(dataDir, 'admin-token'), 'utf8').trim();
  const me = await (await fetch(server.url + '/2.0/users/me', { headers: { authorization: `Bearer ${token}` } })).json();

  const bare = Fastify({ logger: false });
  bare.get('/bare', async () => me);
  await bare.listen({ port: 0, host: '127.0.0.1' });
  const bareUrl = `http://127.0.0.1:${(bare.server.address() as { port: number }).port}/bare`;

  try {
    // warm both up (the JIT needs a few seconds of each), then measure one after the other
    const meUrl = server.url + '/2.0/users/me';
    const auth = { authorization: `Bearer ${token}` };
    await measure(bareUrl, {});
    await measure(meUrl, auth);
    const bareRps = await measure(bareUrl, {});
    const meRps = await measure(meUrl, auth);
    console.log(`GET /2.0/users/me (auth + rate limit, SQLite): ${meRps.toFixed(0)} req/s`);
    console.log(`bare Fastify route, same body:                 ${bareRps.toFixed(0)} req/s`);
    console.log(`ratio: ${(meRps / bareRps).toFixed(2)} (goal: at least 0.5)`);
  } finally {
    await bare.close();
    await server.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchHttp();
