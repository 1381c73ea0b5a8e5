import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createPgDatabase, TEST_PG_URL, TEST_REDIS_URL } from './server.ts';
import { freePort } from './process.ts';
import { randomString } from '../../src/ids.ts';
import type { Receiver } from './webhookReceiver.ts';

const SCRIPT = path.resolve(import.meta.dirname, '../../scripts/cluster');
const run = promisify(execFile);

function haproxyInstalled(): boolean {
  try {
    execFileSync('haproxy', ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Why the cluster tests cannot run here, or false: they need PostgreSQL, Redis and HAProxy. */
export const clusterSkip: string | false =
  !TEST_PG_URL ? 'SHEETD_TEST_DATABASE_URL not set'
  : !TEST_REDIS_URL ? 'SHEETD_TEST_REDIS_URL not set'
  : !haproxyInstalled() ? 'haproxy is not installed'
  : false;

export interface Cluster {
  /** http://127.0.0.1:PORT, the load balancer */
  url: string;
  /** the load balancer's /2.0 */
  base: string;
  /** /2.0 of process i (1..n), bypassing the load balancer */
  processBase(i: number): string;
  adminToken: string;
  dir: string;
  databaseUrl: string;
  /** SIGKILL process i; resolves once it is gone */
  kill(i: number): Promise<void>;
  /** starts process i again (after kill) */
  restart(i: number): Promise<void>;
  /** the pid of process i */
  pid(i: number): number;
  stop(): Promise<void>;
}

/** The processes' logs in a cluster directory (empty when none were written). */
function logsOf(dir: string): string[] {
  try {
    return fs.readdirSync(path.join(dir, 'logs')).map((f) => fs.readFileSync(path.join(dir, 'logs', f), 'utf8'));
  } catch {
    return [];
  }
}

/** Settings for a cluster whose webhooks call `rx`, with short timeouts, retries and batches. */
export function webhookClusterEnv(rx: Receiver): Record<string, string> {
  return {
    SHEETD_RATE_LIMIT: '100000',
    SHEETD_JOB_POLL_MS: '100',
    SHEETD_WEBHOOK_CA_FILE: rx.caFile,
    SHEETD_WEBHOOK_PORTS: String(rx.port),
    SHEETD_WEBHOOK_TIMEOUT_MS: '1000',
    SHEETD_WEBHOOK_RETRY_MS: '100,100,100,100,100',
    SHEETD_WEBHOOK_BATCH_MS: '20',
  };
}

/**
 * `scripts/cluster start n` on a fresh PostgreSQL database, the test Redis (under a prefix of
 * its own) and a free port, with the given extra environment for every process.
 */
export async function startCluster(n: number, env: Record<string, string> = {}): Promise<Cluster> {
  // freePort only finds ports free now: another test file's server may take one before the
  // processes and HAProxy bind theirs. Such a start fails with "Address already in use" and is
  // tried again on other ports; any other failure is the test's.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startClusterOnce(n, env);
    } catch (e) {
      if (!(e instanceof PortTaken) || attempt === 3) throw e instanceof PortTaken ? e.cause : e;
    }
  }
}

class PortTaken extends Error {}

async function startClusterOnce(n: number, env: Record<string, string>): Promise<Cluster> {
  const db = await createPgDatabase(TEST_PG_URL!);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetd-cluster-'));
  // the processes take PORT+1..PORT+n: a port whose neighbours are free too
  const port = await freePort(n);
  const fullEnv = {
    ...process.env,
    DATABASE_URL: db.url,
    REDIS_URL: TEST_REDIS_URL!,
    SHEETD_REDIS_PREFIX: `sheetd-cluster-${randomString(8)}:`,
    SHEETD_CLUSTER_DIR: dir,
    PORT: String(port),
    SHEETD_LOG_LEVEL: 'warn',
    ...env,
  };
  const script = (...args: string[]) => run(SCRIPT, args, { env: fullEnv, timeout: 180_000 });
  try {
    await script('start', String(n));
  } catch (e) {
    const said = [String((e as { stderr?: unknown }).stderr ?? ''), ...logsOf(dir)].join('\n');
    await script('stop').catch(() => undefined);
    await db.drop();
    fs.rmSync(dir, { recursive: true, force: true });
    if (/Address already in use|EADDRINUSE/.test(said)) throw new PortTaken('a port was taken', { cause: e });
    throw e;
  }
  const url = `http://127.0.0.1:${port}`;
  const pid = (i: number) => Number(fs.readFileSync(path.join(dir, `sheetd${i}.pid`), 'utf8').trim());
  return {
    url,
    base: url + '/2.0',
    processBase: (i) => `http://127.0.0.1:${port + i}/2.0`,
    adminToken: fs.readFileSync(path.join(dir, 'data', 'admin-token'), 'utf8').trim(),
    dir,
    databaseUrl: db.url,
    pid,
    async kill(i) {
      const p = pid(i);
      process.kill(p, 'SIGKILL');
      for (let k = 0; k < 100; k++) {
        try {
          process.kill(p, 0);
        } catch {
          return;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async restart(i) {
      await script('start-one', String(i));
    },
    async stop() {
      await script('stop');
      await db.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
