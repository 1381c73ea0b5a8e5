import type { FastifyInstance } from 'fastify';
import type pino from 'pino';
import { createLogger } from './logger.ts';
import type { Config } from './config.ts';
import { createBlobStore, type BlobStore } from './blobs/index.ts';
import { moveImageBytesToBlobs } from './services/sheets/images.ts';
import { looseDataDirMode, openStore } from './store/db.ts';
import { ensureBootstrap, type BootstrapResult } from './services/identity/bootstrap.ts';
import { buildApp } from './http/app.ts';
import { createRateLimiter, MemoryRateLimiter, type RateLimiter } from './http/ratelimit.ts';
import { atomically, saveSnapshot, TestMode } from './services/platform/testmode.ts';
import { runSeed, SeedError } from './http/testmode.ts';
import fs from 'node:fs';
import path from 'node:path';
import { JobHandlers, startWorker, type JobHandler } from './jobs/worker.ts';
import { createMailer, mailJobHandler } from './mail/index.ts';
import { deleteBlobsHandler } from './services/platform/blobs.ts';
import { DELETE_BLOBS_JOB } from './services/collaboration/attachments.ts';
import { startInvalidation } from './pubsub/invalidation.ts';
import { forgetAllSheets, forgetOlder } from './services/sheets/sheetCache.ts';
import type { SheetStore } from './services/sheets/sheetWrites.ts';
import { sheetWriteSteps } from './services/sheets/writeSteps.ts';
import { createCallbackSender } from './callbacks/index.ts';
import { pumpLeaseMs, webhookPumpHandler } from './services/outbound/webhookDelivery.ts';
import { WEBHOOK_PUMP_JOB } from './store/webhooks.ts';
import { randomString } from './ids.ts';
import { runChanges, runDigest, runTimer, AUTOMATION_DIGEST_JOB, AUTOMATION_JOB, type AutomationDeps } from './services/outbound/automationRuns.ts';
import { AUTOMATION_TIMER_JOB } from './services/outbound/automation.ts';
import { UPDATE_REQUEST_JOB, runScheduledSend, type UpdateRequestDeps } from './services/collaboration/updateRequests.ts';
import { rowsMailBody } from './render/mailBodies.ts';
import { userLookup } from './services/sheets/sheetReads.ts';
import { catchUpElsewhere, catchUpSearchIndex } from './services/log/searchIndex.ts';
import { startIndexThread, type IndexThread } from './services/log/indexThread.ts';
import { SHEETD_BIN } from './web/paths.ts';
import { eventsRecorded } from './services/log/events.ts';
import { LiveHub } from './services/live/hub.ts';
import { startLiveBus } from './pubsub/liveBus.ts';

export interface RunningServer {
  app: FastifyInstance;
  store: SheetStore;
  blobs: BlobStore;
  limiter: RateLimiter;
  bootstrap: BootstrapResult;
  /** Test mode's state when the operator enabled it. */
  testMode?: TestMode;
  /** e.g. http://127.0.0.1:8080 (the API is at url + '/2.0') */
  url: string;
  close(): Promise<void>;
}

/**
 * Opens the database (applying migrations), bootstraps an empty one, and serves the API.
 * close() stops accepting connections, lets in-flight requests finish, then closes the database.
 */
export async function startServer(config: Config, opts: { logger?: pino.Logger | false } = {}): Promise<RunningServer> {
  const logger = opts.logger === undefined ? createLogger(config.logLevel) : opts.logger;
  const loose = looseDataDirMode(config.dataDir);
  if (loose !== null && logger) {
    logger.warn({ dataDir: config.dataDir, mode: loose.toString(8) }, `the data directory ${config.dataDir} is open to its group or others (mode ${loose.toString(8)}); it holds the database and the admin token: chmod 700 it`);
  }
  const database = await openStore({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    lockTimeoutMs: config.lockTimeoutMs,
    onConnectionError: (err) => { if (logger) logger.warn({ err }, 'an idle database connection failed; it is replaced when next needed'); },
    logger: logger || undefined,
  });
  // other processes drop their older copy of a sheet this one wrote (Redis, when configured)
  const invalidation = await startInvalidation(config.redisUrl, config.redisPrefix, forgetOlder, logger);
  // the search index's thread (started below), told of each sheet write
  const index: { thread: IndexThread | undefined } = { thread: undefined };
  // what the services get: the database and how every sheet write runs, step by step
  const store: SheetStore = {
    ...database,
    writes: sheetWriteSteps({ committed: [async (_store, _actor, sheets) => invalidation.committed(sheets), async () => index.thread?.written()] }),
  };
  const bootstrap = await ensureBootstrap(store, { adminEmail: config.adminEmail, dataDir: config.dataDir });
  if (bootstrap.created && logger) {
    logger.info({ tokenFile: bootstrap.tokenFile }, `created the organization and its admin ${config.adminEmail}; the admin's API token is in ${bootstrap.tokenFile}`);
  }
  const testMode = config.testMode ? new TestMode(store, config.dataDir) : undefined;
  if (testMode) await testMode.takeBaseline();
  const blobs = await createBlobStore(config.blobs, config.dataDir);
  const moved = await moveImageBytesToBlobs(store.db, blobs);
  if (moved > 0 && logger) logger.info({ images: moved }, 'moved cell images from the database onto the blob store');
  // the search index follows the change log, on a thread of its own unless configured off (from
  // when the thread is ready; the catch-up here, before the server listens, needs none)
  index.thread = config.indexThread ? startIndexThread(store, { entry: SHEETD_BIN, databaseUrl: config.databaseUrl, dataDir: config.dataDir, lockTimeoutMs: config.lockTimeoutMs, logger: logger || undefined }) : undefined;
  // after migration 0022 this builds it from the data
  const indexed = await catchUpSearchIndex(store);
  if (indexed === -1 && logger) logger.info('built the search index from the data');
  const limiter = await createRateLimiter(config.redisUrl, `${config.redisPrefix}rl:`);
  const callbacks = createCallbackSender(config.webhooks);
  if (testMode && limiter instanceof MemoryRateLimiter) testMode.onReset.push(() => limiter.reset());
  const liveBus = await startLiveBus(config.redisUrl, config.redisPrefix, logger);
  const live = new LiveHub(store, liveBus, config.live, logger);
  const app = await buildApp({ store, blobs, config, limiter, callbacks, live, ...(testMode ? { testMode } : {}) }, { logger: logger || false });
  // open change streams do not hold close() up: they end, and their clients resume elsewhere
  app.addHook('preClose', async () => live.close());
  // close() ends the idle keep-alive connections once. A response still streaming then (an
  // image from the blob store) finishes later, and its connection would hold close() open for
  // the whole keep-alive timeout (72 s): end idle connections again as each response finishes.
  let closing: Promise<void> | null = null;
  app.addHook('onResponse', (_req, _reply, done) => {
    if (closing !== null) app.server.closeIdleConnections();
    done();
  });
  const address = await app.listen({ host: config.host, port: config.port });
  const ro = { include: new Set<string>(), exclude: new Set<string>(), numericDates: false, level: 0, accessApiLevel: 0 };
  const automation: AutomationDeps = {
    store,
    settings: { enabled: config.automation },
    render: async (m, db) => rowsMailBody(m, { ro, level: m.level, users: await userLookup(db, m.rows), permalinkBase: config.publicUrl }),
    publicUrl: () => config.publicUrl,
  };
  const updateRequests: UpdateRequestDeps = { store, render: automation.render, publicUrl: automation.publicUrl };
  const handlers = new JobHandlers()
    // test mode keeps every blob: a snapshot or the baseline may bring back what refers to it
    .register(DELETE_BLOBS_JOB, testMode ? async () => {} : deleteBlobsHandler(store.db, blobs))
    .register('mail', mailJobHandler(createMailer(config.mail, config.dataDir), blobs) as JobHandler, { leaseMs: 120_000 })
    .register(WEBHOOK_PUMP_JOB, webhookPumpHandler(store, callbacks, config.webhooks, `pump:${randomString(12)}`, logger || undefined), {
      leaseMs: pumpLeaseMs(config.webhooks), backoffMs: 250, maxBackoffMs: pumpLeaseMs(config.webhooks),
    })
    .register(AUTOMATION_JOB, (p) => runChanges(automation, p), { leaseMs: 120_000 })
    .register(AUTOMATION_TIMER_JOB, (p) => runTimer(automation, p), { leaseMs: 120_000 })
    .register(AUTOMATION_DIGEST_JOB, (p) => runDigest(automation, p), { leaseMs: 120_000 })
    .register(UPDATE_REQUEST_JOB, (p) => runScheduledSend(updateRequests, p), { leaseMs: 120_000 });
  // each wake-up catches the index up; with its thread running, by a nudge, which (unlike a
  // request) lets the thread pace itself while writes go on (indexThreadMain.ts)
  const indexTick = async (): Promise<unknown> => {
    if (index.thread !== undefined && catchUpElsewhere(store)) return index.thread.written();
    return catchUpSearchIndex(store);
  };
  const worker = startWorker(store, { handlers, pollMs: config.jobPollMs, databaseUrl: config.databaseUrl, logger, onTick: indexTick,
    aroundJob: () => {
      const before = eventsRecorded();
      return () => { if (eventsRecorded() !== before) live.committed(); };
    },
  });
  if (testMode) testMode.runDue = () => worker.runDue();
  if (testMode && config.testSeedFile !== undefined) {
    // the fixture goes through the API with the admin's token, as POST /2.0/sheetd/test/seed
    const token = fs.readFileSync(path.join(config.dataDir, 'admin-token'), 'utf8').trim();
    const fixture = JSON.parse(fs.readFileSync(config.testSeedFile, 'utf8')) as unknown;
    try {
      testMode.seeded = await atomically(testMode, () => runSeed(app, `Bearer ${token}`, fixture));
      await saveSnapshot(testMode, { name: 'seed' });
    } catch (e) {
      await app.close();
      await worker.stop();
      await index.thread?.stop();
      await store.close();
      throw new Error(`the seed ${config.testSeedFile} failed: ${e instanceof SeedError ? JSON.stringify(e.body) : (e as Error).message}`, { cause: e });
    }
  }
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
    ...(testMode ? { testMode } : {}),
    url,
    close() {
      closing ??= (async () => {
        await app.close();
        await worker.stop();
        await index.thread?.stop();
        callbacks.close();
        await invalidation.close();
        live.close();
        await liveBus.close();
        await limiter.close();
        await store.close();
        // the models of its sheets go with the store (dropping them is always safe: the cache
        // is checked against the database); a server started after it in the same process
        // would otherwise collect them with its own garbage on every large read
        forgetAllSheets();
        await blobs.close();
      })();
      return closing;
    },
  };
}
