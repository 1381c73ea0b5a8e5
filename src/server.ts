import type { FastifyInstance } from 'fastify';
import { registerFollowers } from './services/follow.ts';
import pino from 'pino';
import type { Config } from './config.ts';
import { looseDataDirMode, openStore, type Store } from './store/db.ts';
import { ensureBootstrap, type BootstrapResult } from './services/bootstrap.ts';
import { buildApp } from './http/app.ts';
import { createRateLimiter, type RateLimiter } from './http/ratelimit.ts';

export interface RunningServer {
  app: FastifyInstance;
  store: Store;
  limiter: RateLimiter;
  bootstrap: BootstrapResult;
  /** e.g. http://127.0.0.1:8080 (the API is at url + '/2.0') */
  url: string;
  close(): Promise<void>;
}

/**
 * Opens the database (applying migrations), bootstraps an empty one, and serves the API.
 * close() stops accepting connections, lets in-flight requests finish, then closes the database.
 */
export async function startServer(config: Config, opts: { logger?: pino.Logger | false } = {}): Promise<RunningServer> {
  const logger = opts.logger === undefined ? pino({ level: config.logLevel }) : opts.logger;
  const loose = looseDataDirMode(config.dataDir);
  if (loose !== null && logger) {
    logger.warn({ dataDir: config.dataDir, mode: loose.toString(8) }, `the data directory ${config.dataDir} is open to its group or others (mode ${loose.toString(8)}); it holds the database and the admin token: chmod 700 it`);
  }
  const store = await openStore({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    lockTimeoutMs: config.lockTimeoutMs,
    onConnectionError: (err) => { if (logger) logger.warn({ err }, 'an idle database connection failed; it is replaced when next needed'); },
  });
  const bootstrap = await ensureBootstrap(store, { adminEmail: config.adminEmail, dataDir: config.dataDir });
  if (bootstrap.created && logger) {
    logger.info({ tokenFile: bootstrap.tokenFile }, `created the organization and its admin ${config.adminEmail}; the admin's API token is in ${bootstrap.tokenFile}`);
  }
  registerFollowers();
  const limiter = createRateLimiter(config.redisUrl, `${config.redisPrefix}rl:`);
  const app = await buildApp({ store, config, limiter }, { logger: logger || false });
  const address = await app.listen({ host: config.host, port: config.port });
  const port = (app.server.address() as { port: number }).port;
  const scheme = address.startsWith('https') ? 'https' : 'http';
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = `${scheme}://${host}:${port}`;
  if (config.publicUrl === '') config.publicUrl = url;
  let closing: Promise<void> | null = null;
  return {
    app,
    store,
    limiter,
    bootstrap,
    url,
    close() {
      closing ??= (async () => {
        await app.close();
        await limiter.close();
        await store.close();
      })();
      return closing;
    },
  };
}
