import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { loadConfig, type Config } from '../../src/config.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
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

export async function startTestServer(env: Record<string, string> = {}, opts: { databaseUrl?: string } = {}): Promise<TestServer> {
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
