import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { loadConfig, type Config } from '../../src/config.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { openStore } from '../../src/store/db.ts';
import { randomString } from '../../src/ids.ts';

/**
 * A real sheetd on an ephemeral port with its own temporary database: SQLite in a temp dir by
 * default, a fresh PostgreSQL database when SHEETD_TEST_DATABASE_URL is set.
 */
export interface TestServer {
  server: RunningServer;
  config: Config;
  /** http://127.0.0.1:PORT */
  url: string;
  /** http://127.0.0.1:PORT/2.0 */
  base: string;
  /** The bootstrap admin's raw token. */
  adminToken: string;
  dataDir: string;
  close(): Promise<void>;
}

export const TEST_PG_URL = process.env.SHEETD_TEST_DATABASE_URL || undefined;
export const TEST_REDIS_URL = process.env.SHEETD_TEST_REDIS_URL || undefined;

/**
 * Cluster mode (scripts/cluster, docs/operations.md): with SHEETD_TEST_BASE_URL set, every test
 * server is that running sheetd (a load balancer in front of several processes) instead of one
 * started in this process. SHEETD_TEST_CLUSTER_DIR names the cluster's directory (the admin token
 * is in its data/admin-token); SHEETD_TEST_CLUSTER_DATABASE_URL is its PostgreSQL, which `server.store`
 * opens so that tests which prepare users or tokens in the store work as before. Test files that
 * need a process of their own (the clock, the job worker, the Fastify app, settings of their own)
 * are left out of a cluster run by scripts/test.mjs, with the reason (test/cluster-excluded.mjs).
 */
export const CLUSTER_BASE_URL = process.env.SHEETD_TEST_BASE_URL?.replace(/\/+$/, '') || undefined;

/** For `test(name, { skip: notInCluster('why') }, ...)`: a test that needs a server of its own. */
export function notInCluster(reason: string): string | false {
  return CLUSTER_BASE_URL ? `not against a cluster: ${reason}` : false;
}

/** Settings a test file may ask for that the cluster of a test run has (or makes no difference). */
const CLUSTER_SETTINGS: Record<string, (value: string) => boolean> = {
  // the cluster of a test run allows 100000 requests a minute and polls jobs every 50 ms
  SHEETD_RATE_LIMIT: (v) => Number(v) >= 1000,
  SHEETD_JOB_POLL_MS: () => true,
};

async function clusterTestServer(env: Record<string, string>): Promise<TestServer> {
  for (const [k, v] of Object.entries(env)) {
    if (!CLUSTER_SETTINGS[k]?.(v)) throw new Error(`cluster mode: this test needs ${k}=${v}, which the cluster does not have (list the file in test/cluster-excluded.mjs)`);
  }
  const dir = process.env.SHEETD_TEST_CLUSTER_DIR;
  const databaseUrl = process.env.SHEETD_TEST_CLUSTER_DATABASE_URL;
  if (!dir || !databaseUrl) throw new Error('cluster mode needs SHEETD_TEST_CLUSTER_DIR and SHEETD_TEST_CLUSTER_DATABASE_URL besides SHEETD_TEST_BASE_URL');
  const adminToken = fs.readFileSync(path.join(dir, 'data', 'admin-token'), 'utf8').trim();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetd-test-'));
  const url = CLUSTER_BASE_URL!;
  const config = loadConfig({ SHEETD_DATA_DIR: dataDir, SHEETD_LOG_LEVEL: 'silent', DATABASE_URL: databaseUrl, SHEETD_PUBLIC_URL: url, ...env });
  const store = await openStore({ databaseUrl, dataDir });
  // only what a black-box test may touch: the store; the rest belongs to processes elsewhere
  let closed = false;
  const closeStore = async () => {
    if (closed) return;
    closed = true;
    await store.close();
  };
  const server = { url, store, close: closeStore } as unknown as RunningServer;
  return {
    server,
    config,
    url,
    base: url + '/2.0',
    adminToken,
    dataDir,
    async close() {
      await closeStore();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Creates an empty PostgreSQL database next to the one the URL names; returns its URL and a dropper. */
export async function createPgDatabase(adminUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `sheetd_t_${randomString(10)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    // test files run in parallel: simultaneous CREATE DATABASE can find template1 busy (55006)
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.query(`CREATE DATABASE ${name}`);
        break;
      } catch (e) {
        if ((e as { code?: string }).code !== '55006' || attempt >= 20) throw e;
        await new Promise((r) => setTimeout(r, 50 + Math.random() * 250));
      }
    }
  } finally {
    await admin.end();
  }
  const u = new URL(adminUrl);
  u.pathname = '/' + name;
  return {
    url: u.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/**
 * A server for this suite (not the public `sheetd/testing` startTestServer): on SQLite, on its own
 * PostgreSQL database with SHEETD_TEST_DATABASE_URL, or a client of the cluster with SHEETD_TEST_BASE_URL.
 */
export async function startSuiteServer(env: Record<string, string> = {}, opts: { databaseUrl?: string } = {}): Promise<TestServer> {
  if (CLUSTER_BASE_URL) return clusterTestServer(env);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetd-test-'));
  let dropDb: (() => Promise<void>) | null = null;
  let databaseUrl = opts.databaseUrl;
  if (databaseUrl === undefined && TEST_PG_URL) {
    const created = await createPgDatabase(TEST_PG_URL);
    databaseUrl = created.url;
    dropDb = created.drop;
  }
  const config = loadConfig({
    HOST: '127.0.0.1',
    PORT: '0',
    SHEETD_DATA_DIR: dataDir,
    SHEETD_LOG_LEVEL: 'silent',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...env,
  });
  const server = await startServer(config, { logger: false });
  const tokenFile = path.join(dataDir, 'admin-token');
  const adminToken = fs.existsSync(tokenFile) ? fs.readFileSync(tokenFile, 'utf8').trim() : '';
  return {
    server,
    config,
    url: server.url,
    base: server.url + '/2.0',
    adminToken,
    dataDir,
    async close() {
      await server.close();
      if (dropDb) await dropDb();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
