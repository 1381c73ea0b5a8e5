/**
 * The server bench/instructions.ts measures, as a process of its own: sheetd on SQLite in a new
 * data directory (or, with BENCH_BARE set to a JSON body, a bare Fastify route answering it).
 * Prints one line of JSON: the URL to ask and the token to send.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { loadConfig } from '../src/config.ts';
import { startServer } from '../src/server.ts';

if (process.env.BENCH_BARE) {
  const body: unknown = JSON.parse(process.env.BENCH_BARE);
  const bare = Fastify({ logger: false });
  bare.get('/bare', async () => body);
  await bare.listen({ port: 0, host: '127.0.0.1' });
  console.log(JSON.stringify({ url: `http://127.0.0.1:${(bare.server.address() as { port: number }).port}/bare`, token: '' }));
} else {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetd-bench-instr-'));
  process.on('exit', () => fs.rmSync(dataDir, { recursive: true, force: true }));
  // the job worker's poll is a write, which drops the kept reads: once a second in real time is
  // many times a request's time under valgrind, so it would count work a real server seldom does
  const server = await startServer(loadConfig({ PORT: '0', SHEETD_DATA_DIR: dataDir, SHEETD_RATE_LIMIT: String(1e12), SHEETD_LOG_LEVEL: 'silent', SHEETD_JOB_POLL_MS: '600000', ...(process.env.BENCH_INSTRUCTIONS_DATABASE_URL ? { DATABASE_URL: process.env.BENCH_INSTRUCTIONS_DATABASE_URL } : {}) }), { logger: false });
  const token = fs.readFileSync(path.join(dataDir, 'admin-token'), 'utf8').trim();
  console.log(JSON.stringify({ url: server.url + '/2.0/users/me', token }));
}
