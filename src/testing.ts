import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from './config.ts';
import { startServer } from './server.ts';

/**
 * An in-process sheetd in test mode for JavaScript tests (docs/testing.md):
 *
 *     import { startTestServer } from 'sheetd/testing';
 *     const s = await startTestServer();
 *     const client = smartsheet.createClient({ accessToken: s.token, baseUrl: s.baseUrl });
 *     ...
 *     await s.reset();   // between tests
 *     await s.close();   // after all
 *
 * It runs on a temporary SQLite data directory (removed by close()) on a free port of 127.0.0.1.
 * The clock is per process: two test servers in one process share it.
 */
export interface TestServerOptions {
  /** Extra environment settings (SHEETD_RATE_LIMIT, SHEETD_WEBHOOK_*, ...). */
  env?: Record<string, string>;
  /** A fixture to load at start (as seed()). */
  seed?: unknown;
}

export interface TestClock {
  /** The server's time (epoch ms). */
  now(): Promise<number>;
  /** Sets the time; it runs on from there unless frozen: true. */
  set(at: Date | number | string, opts?: { frozen?: boolean }): Promise<void>;
  /** Moves the time forward (ms, or an ISO 8601 duration like "PT1H") and waits for the jobs that came due. */
  advance(by: number | string): Promise<void>;
  /** Back to the real time. */
  real(): Promise<void>;
}

export interface RunningTestServer {
  /** http://127.0.0.1:PORT/2.0 (plain HTTP clients) */
  url: string;
  /** http://127.0.0.1:PORT/2.0/ (the smartsheet SDK's baseUrl) */
  baseUrl: string;
  /** The system admin's API token. */
  token: string;
  dataDir: string;
  /** Back to the freshly bootstrapped organization (same token); journal, faults, outbox and clock too. */
  reset(): Promise<void>;
  /** Loads a fixture; answers the ids it created by the fixture's keys. */
  seed(fixture: unknown): Promise<Record<string, unknown>>;
  clock: TestClock;
  /** Calls a test-mode control: control('POST', '/faults', {...}) is POST /2.0/sheetd/test/faults. */
  control(method: string, controlPath: string, body?: unknown): Promise<unknown>;
  close(): Promise<void>;
}

export async function startTestServer(opts: TestServerOptions = {}): Promise<RunningTestServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetd-testing-'));
  const config = loadConfig({ HOST: '127.0.0.1', PORT: '0', SHEETD_DATA_DIR: dataDir, SHEETD_LOG_LEVEL: 'silent', SHEETD_JOB_POLL_MS: '100', ...opts.env, SHEETD_TEST_MODE: 'true' });
  const server = await startServer(config, { logger: false });
  const token = fs.readFileSync(path.join(dataDir, 'admin-token'), 'utf8').trim();
  const url = `${server.url}/2.0`;
  const control = async (method: string, controlPath: string, body?: unknown): Promise<unknown> => {
    const res = await fetch(`${url}/sheetd/test${controlPath}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    const parsed = text === '' ? undefined : JSON.parse(text) as Record<string, unknown>;
    if (!res.ok) throw Object.assign(new Error(`${method} /sheetd/test${controlPath}: ${res.status} ${text}`), { statusCode: res.status, body: parsed });
    return parsed;
  };
  const result = (r: unknown) => (r as { result: unknown }).result;
  const s: RunningTestServer = {
    url,
    baseUrl: `${url}/`,
    token,
    dataDir,
    reset: async () => { await control('POST', '/reset'); },
    seed: async (fixture) => result(await control('POST', '/seed', fixture)) as Record<string, unknown>,
    clock: {
      now: async () => ((await control('GET', '/clock')) as { nowMs: number }).nowMs,
      set: async (at, o = {}) => {
        const now = at instanceof Date ? at.toISOString() : at;
        await control('PUT', '/clock', { now, frozen: o.frozen === true });
      },
      advance: async (by) => { await control('POST', '/clock/advance', typeof by === 'number' ? { ms: by } : { by }); },
      real: async () => { await control('PUT', '/clock', { real: true }); },
    },
    control,
    async close() {
      await server.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  if (opts.seed !== undefined) await s.seed(opts.seed);
  return s;
}
