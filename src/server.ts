import type { FastifyInstance } from 'fastify';
import { registerFollowers } from './services/follow.ts';
import pino from 'pino';
import type { Config } from './config.ts';
import { createBlobStore, type BlobStore } from './blobs/index.ts';
import { moveImageBytesToBlobs } from './services/images.ts';
import { looseDataDirMode, openStore, type Store } from './store/db.ts';
import { ensureBootstrap, type BootstrapResult } from './services/bootstrap.ts';
import { buildApp } from './http/app.ts';
import { createRateLimiter, type RateLimiter } from './http/ratelimit.ts';
import { JobHandlers, startWorker, type JobHandler } from './jobs/worker.ts';
import { createMailer, mailJobHandler } from './mail/index.ts';
import { deleteBlobsHandler } from './services/blobs.ts';
import { DELETE_BLOBS_JOB } from './services/attachments.ts';
import { registerThreadHooks } from './services/discussions.ts';
import { startInvalidation } from './jobs/invalidation.ts';
import { forgetOlder, onSheetWrite } from './services/sheetModel.ts';
import { createCallbackSender } from './callbacks/index.ts';
import { pumpLeaseMs, webhookPumpHandler } from './services/webhookDelivery.ts';
import { WEBHOOK_PUMP_JOB, webhookBatch } from './store/webhooks.ts';
import { randomString } from './ids.ts';
import { registerAutomation, runChanges, runDigest, runTimer, AUTOMATION_DIGEST_JOB, AUTOMATION_JOB, type AutomationDeps } from './services/automationRuns.ts';
import { AUTOMATION_TIMER_JOB } from './services/automation.ts';
import { rowsMailBody } from './http/present/emails.ts';
import { userLookup } from './http/routes/sheetData.ts';

export interface RunningServer {
  app: FastifyInstance;
  store: Store;
  blobs: BlobStore;
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
  const blobs = await createBlobStore(config.blobs, config.dataDir);
  const moved = await moveImageBytesToBlobs(store.db, blobs);
  if (moved > 0 && logger) logger.info({ images: moved }, 'moved cell images from the database onto the blob store');
  registerFollowers();
  registerThreadHooks();
  registerAutomation();
  const limiter = createRateLimiter(config.redisUrl, `${config.redisPrefix}rl:`);
  const callbacks = createCallbackSender(config.webhooks);
  webhookBatch.ms = config.webhooks.batchMs;
  const app = await buildApp({ store, blobs, config, limiter, callbacks }, { logger: logger || false });
  // close() ends the idle keep-alive connections once. A response still streaming then (an
  // image from the blob store) finishes later, and its connection would hold close() open for
  // the whole keep-alive timeout (72 s): end idle connections again as each response finishes.
  let closing: Promise<void> | null = null;
  app.addHook('onResponse', async () => {
    if (closing !== null) app.server.closeIdleConnections();
  });
  const address = await app.listen({ host: config.host, port: config.port });
  const ro = { include: new Set<string>(), exclude: new Set<string>(), numericDates: false, level: 0, accessApiLevel: 0 };
  const automation: AutomationDeps = {
    store,
    settings: { enabled: config.automation },
    render: async (m, db) => rowsMailBody(m, { ro, level: m.level, users: await userLookup(db, m.rows), permalinkBase: config.publicUrl }),
    publicUrl: () => config.publicUrl,
  };
  const handlers = new JobHandlers()
    .register(DELETE_BLOBS_JOB, deleteBlobsHandler(store.db, blobs))
    .register('mail', mailJobHandler(createMailer(config.mail, config.dataDir), blobs) as JobHandler, { leaseMs: 120_000 })
    .register(WEBHOOK_PUMP_JOB, webhookPumpHandler(store, callbacks, config.webhooks, `pump:${randomString(12)}`, logger || undefined), {
      leaseMs: pumpLeaseMs(config.webhooks), backoffMs: 250, maxBackoffMs: pumpLeaseMs(config.webhooks),
    })
    .register(AUTOMATION_JOB, (p) => runChanges(automation, p), { leaseMs: 120_000 })
    .register(AUTOMATION_TIMER_JOB, (p) => runTimer(automation, p), { leaseMs: 120_000 })
    .register(AUTOMATION_DIGEST_JOB, (p) => runDigest(automation, p), { leaseMs: 120_000 });
  const worker = startWorker(store, { handlers, pollMs: config.jobPollMs, databaseUrl: config.databaseUrl, logger });
  const invalidation = startInvalidation(config.redisUrl, config.redisPrefix, { forgetOlder, onSheetWrite }, logger);
  const port = (app.server.address() as { port: number }).port;
  const scheme = address.startsWith('https') ? 'https' : 'http';
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = `${scheme}://${host}:${port}`;
  if (config.publicUrl === '') config.publicUrl = url;
  return {
    app,
    store,
    blobs,
    limiter,
    bootstrap,
    url,
    close() {
      closing ??= (async () => {
        await app.close();
        await worker.stop();
        callbacks.close();
        await invalidation.close();
        await limiter.close();
        await store.close();
        await blobs.close();
      })();
      return closing;
    },
  };
}
