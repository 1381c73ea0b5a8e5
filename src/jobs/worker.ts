import os from 'node:os';
import type pg from 'pg';
import type pino from 'pino';
import { clock } from '../clock.ts';
import { randomString } from '../ids.ts';
import { newReadEpoch, type Store } from '../store/db.ts';
import { sequenceEvents } from '../store/events.ts';
import { claimJobs, completeJob, failJob, onEnqueue, type JobRow } from '../store/jobs.ts';

/**
 * Durable jobs: work that must follow a commit (webhook deliveries, mail, automation, cleanup).
 *
 *     // at start, once per type, on the worker's handlers:
 *     handlers.register('mail', async (payload, job) => { ... }, { leaseMs: 60_000 });
 *     // in a service, inside the transaction of the change:
 *     await enqueue(tx, 'mail', { to, subject }, { key: `share-mail:${shareId}` });
 *
 * A worker runs in every sheetd process (server.ts). It claims due jobs (store/jobs.ts), runs
 * the type's handler, removes the job when the handler resolves and, when it throws, tries
 * again after an exponential backoff with jitter, keeping the job as dead after its last
 * attempt. A claim is a lease: when its process dies (kill -9), the job is due again when the
 * lease ends, so a job runs at least once and handlers must be idempotent. Workers wake every
 * poll interval, when this process enqueues, and on PostgreSQL when any process commits a job
 * (LISTEN sheetd_jobs). On PostgreSQL every wake-up also positions new change-log events
 * (store/events.ts), so they wait little for a reader. `onTick` runs on every wake-up in both
 * databases: server.ts gives it the search index's catch-up (services/log/searchIndex.ts).
 */
export interface JobInfo {
  id: number;
  type: string;
  /** 1 on the first run. */
  attempt: number;
  maxAttempts: number;
}

export type JobHandler = (payload: unknown, job: JobInfo) => Promise<void>;

export interface HandlerOptions {
  /** How long a claim holds the job: a run must finish within it. Default 60 s. */
  leaseMs?: number;
  /** Backoff before the second attempt, doubling after each failure up to maxBackoffMs. Default 1 s. */
  backoffMs?: number;
  /** Default 1 hour. */
  maxBackoffMs?: number;
}

interface Handler {
  fn: JobHandler;
  leaseMs: number;
  backoffMs: number;
  maxBackoffMs: number;
}

/**
 * The handlers one worker runs, by job type. Each server has its own: a handler closes over its
 * server's blob store and mailer, and two servers in one process (tests, an embedded test
 * server) must not run each other's jobs with the wrong ones.
 */
export class JobHandlers {
  private readonly byType = new Map<string, Handler>();

  /** A later registration of the same type replaces the earlier one. */
  register(type: string, fn: JobHandler, opts: HandlerOptions = {}): this {
    this.byType.set(type, { fn, leaseMs: opts.leaseMs ?? 60_000, backoffMs: opts.backoffMs ?? 1000, maxBackoffMs: opts.maxBackoffMs ?? 3_600_000 });
    return this;
  }

  get(type: string): Handler | undefined {
    return this.byType.get(type);
  }

  types(): string[] {
    return [...this.byType.keys()];
  }
}

/** The wait before the next attempt: exponential in the attempts so far, between half and all of it (jitter). */
export function backoffDelay(h: Pick<Handler, 'backoffMs' | 'maxBackoffMs'>, attempts: number, random = Math.random()): number {
  const full = Math.min(h.maxBackoffMs, h.backoffMs * 2 ** Math.min(attempts - 1, 40));
  return Math.round(full / 2 + (full / 2) * random);
}

export interface WorkerOptions {
  /** The job types this worker claims, and what it runs for each. */
  handlers: JobHandlers;
  pollMs: number;
  /** Jobs run at once by this process. Default 4. */
  concurrency?: number;
  /** PostgreSQL: LISTEN for jobs committed by any process. */
  databaseUrl?: string | undefined;
  logger?: pino.Logger | false;
  /** How long stop() waits for running jobs (their leases run out if it gives up). Default 10 s. */
  stopGraceMs?: number;
  /**
   * Work that follows the change log as a whole rather than a job (the search index): run on
   * every wake-up, before jobs are claimed; a failure is logged and tried at the next one.
   */
  onTick?: () => Promise<unknown>;
  /** Called as each job starts; what it returns is called once the job has finished (its commits done). */
  aroundJob?: () => () => void;
}

export interface JobWorker {
  readonly id: string;
  /** Resolves when the worker hears other processes' commits (PostgreSQL: LISTEN is set up). */
  readonly listening: Promise<void>;
  /** Claims due jobs now instead of at the next poll. */
  wake(): void;
  /**
   * Runs every job due now (clock.now()) and those they enqueue, and resolves when they have
   * run (test mode's clock advance). Gives up after `limitMs` of work or 1,000 rounds.
   */
  runDue(limitMs?: number): Promise<void>;
  stop(): Promise<void>;
}

const LISTEN_CHANNEL = 'sheetd_jobs';

export function startWorker(store: Store, opts: WorkerOptions): JobWorker {
  const { handlers } = opts;
  const id = `${os.hostname()}:${process.pid}:${randomString(6)}`;
  const pollMs = Math.max(10, opts.pollMs);
  const concurrency = opts.concurrency ?? 4;
  const log = opts.logger || undefined;
  const running = new Set<Promise<void>>();
  let stopped = false;
  let ticking = false;
  let again = false;
  let timer: NodeJS.Timeout | undefined;
  let listener: pg.Client | undefined;

  const schedule = (ms: number) => {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(tick, ms);
    timer.unref();
  };

  async function run(job: JobRow, h: Handler): Promise<void> {
    const finished = opts.aroundJob?.();
    try {
      await h.fn(JSON.parse(job.payload) as unknown, { id: job.id, type: job.type, attempt: job.attempts, maxAttempts: job.max_attempts });
      await completeJob(store.db, job);
    } catch (err) {
      const now = clock.now();
      const dead = job.attempts >= job.max_attempts;
      const error = (err instanceof Error ? err.message : String(err)).slice(0, 2000);
      log?.warn({ err, jobId: job.id, type: job.type, attempt: job.attempts, dead }, dead ? 'job failed for the last time; kept as dead' : 'job failed; it will be retried');
      await failJob(store.db, job, { error, runAt: now + backoffDelay(h, job.attempts), dead, now }).catch((e: unknown) => log?.error({ err: e, jobId: job.id }, 'could not record a job failure; its lease will run out'));
    } finally {
      finished?.();
    }
  }

  async function tick(): Promise<void> {
    if (stopped) return;
    if (ticking) {
      again = true;
      return;
    }
    ticking = true;
    again = false;
    // the wake-up's stamped reads see what other processes committed before it
    newReadEpoch();
    try {
      // SQLite: readers position events themselves; a background write here could fail the
      // write transaction of another process sharing the file (SQLITE_BUSY on its snapshot)
      if (store.dialect === 'postgres') await sequenceEvents(store);
      if (opts.onTick) await opts.onTick().catch((err: unknown) => { if (!stopped) log?.error({ err }, 'job worker: a change-log follower failed; trying again at the next wake-up'); });
      while (!stopped && running.size < concurrency) {
        const types = handlers.types();
        if (types.length === 0) break;
        const leaseMs = Math.max(...types.map((t) => handlers.get(t)!.leaseMs));
        const jobs = await claimJobs(store, { worker: id, types, limit: concurrency - running.size, leaseMs, now: clock.now() });
        if (jobs.length === 0) break;
        for (const job of jobs) {
          const p = run(job, handlers.get(job.type)!).finally(() => {
            running.delete(p);
            wake();
          });
          running.add(p);
        }
      }
    } catch (err) {
      if (!stopped) log?.error({ err }, 'job worker: claiming failed; trying again at the next poll');
    } finally {
      ticking = false;
      schedule(again ? 0 : pollMs);
    }
  }

  function wake(): void {
    if (!stopped) schedule(0);
  }

  async function listen(url: string): Promise<void> {
    if (stopped) return;
    const { default: pg } = await import('pg');
    if (stopped) return;
    const c = new pg.Client({ connectionString: url });
    let failed = false;
    const fail = (err: unknown) => {
      // polling goes on without it; listen again after a poll interval
      if (failed) return;
      failed = true;
      if (listener === c) listener = undefined;
      if (!stopped) log?.warn({ err }, 'job worker: the LISTEN connection failed; connecting again');
      c.end().catch(() => {});
      setTimeout(() => void listen(url), pollMs).unref();
    };
    c.on('notification', wake);
    c.on('error', fail);
    try {
      await c.connect();
      await c.query(`LISTEN ${LISTEN_CHANNEL}`);
    } catch (err) {
      return fail(err);
    }
    if (stopped) await c.end().catch(() => {});
    else listener = c;
  }

  async function runDue(limitMs = 30_000): Promise<void> {
    // real elapsed time: the clock may be frozen
    const until = performance.now() + limitMs;
    for (let round = 0; round < 1000 && !stopped && performance.now() < until; round++) {
      while (ticking) await new Promise((r) => setTimeout(r, 2));
      await tick();
      if (running.size === 0) return;
      await Promise.allSettled([...running]);
    }
  }

  const offEnqueue = onEnqueue(wake);
  const listening = store.dialect === 'postgres' && opts.databaseUrl ? listen(opts.databaseUrl) : Promise.resolve();
  schedule(0);

  return {
    id,
    listening,
    wake,
    runDue,
    async stop() {
      if (stopped) return;
      stopped = true;
      clearTimeout(timer);
      offEnqueue();
      await listener?.end().catch(() => {});
      listener = undefined;
      // a tick in progress ends at its next await; running jobs get a grace period
      let grace: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled([...running]),
        new Promise((r) => (grace = setTimeout(r, opts.stopGraceMs ?? 10_000))),
      ]);
      clearTimeout(grace);
      while (ticking) await new Promise((r) => setTimeout(r, 5));
    },
  };
}
