import { EventEmitter } from 'node:events';
import { sql } from 'kysely';
import { newId } from '../ids.ts';
import { clock } from '../clock.ts';
import type { Queryable, Store } from './db.ts';
import type { JobTable } from './jobSchema.ts';

export type JobRow = JobTable;

export interface EnqueueOptions {
  /** Not before this time (epoch ms). Default: now. */
  runAt?: number;
  /** Tries before the job is given up (kept as dead). Default 10. */
  maxAttempts?: number;
  /**
   * Deduplication: while a job with this key is pending or running, enqueuing another with the
   * same key does nothing (a dead job does not block it).
   */
  key?: string;
}

export const DEFAULT_MAX_ATTEMPTS = 10;

const enqueued = new EventEmitter();

/** Calls `fn` whenever this process enqueues a job (the worker's in-process wake-up). */
export function onEnqueue(fn: () => void): () => void {
  enqueued.on('job', fn);
  return () => enqueued.off('job', fn);
}

/**
 * Records a job, to run after the transaction `db` commits (never, if it rolls back). Call it
 * inside the transaction of the change the job follows; jobs/worker.ts runs it with the
 * handler registered for `type` (JobHandlers.register), at least once: handlers must be idempotent.
 * `payload` is stored as JSON.
 */
export async function enqueue(db: Queryable, type: string, payload: unknown, opts: EnqueueOptions = {}): Promise<void> {
  const now = clock.now();
  await db
    .insertInto('jobs')
    .values({
      id: newId(),
      type,
      payload: JSON.stringify(payload ?? null),
      dedup_key: opts.key ?? null,
      run_at: opts.runAt ?? now,
      attempts: 0,
      max_attempts: opts.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
      created_at: now,
    })
    .onConflict((oc) => oc.column('dedup_key').where('dead_at', 'is', null).doNothing())
    .execute();
  // SQLite: this process's worker claims on the one connection, so after the commit; other
  // processes (PostgreSQL) hear the NOTIFY of the jobs table's trigger when it commits
  enqueued.emit('job');
}

/**
 * Claims up to `limit` due jobs of the given types for `worker`: each is held until now +
 * leaseMs (run_at moves there, so a job whose holder dies is due again when the lease ends)
 * and its attempts count up. PostgreSQL: rows another worker is claiming are skipped, not
 * waited for; SQLite: the statement runs alone.
 */
export async function claimJobs(store: Store, o: { worker: string; types: readonly string[]; limit: number; leaseMs: number; now: number }): Promise<JobRow[]> {
  if (o.types.length === 0 || o.limit <= 0) return [];
  const until = o.now + o.leaseMs;
  const due = store.db
    .selectFrom('jobs')
    .select('id')
    .where('dead_at', 'is', null)
    .where('run_at', '<=', o.now)
    .where('type', 'in', o.types)
    .orderBy('run_at')
    .limit(o.limit);
  return store.db
    .with((cte) => cte('due').materialized(), () => (store.dialect === 'postgres' ? due.forUpdate().skipLocked() : due))
    .updateTable('jobs')
    .set({ locked_by: o.worker, locked_until: until, run_at: until, attempts: sql<number>`attempts + 1` })
    .where('id', 'in', (eb) => eb.selectFrom('due').select('due.id'))
    .returningAll()
    .execute();
}

/** The job as this claim holds it: a claim that lost its lease (and another worker's) is left alone. */
function held(db: Queryable, job: JobRow) {
  return db.updateTable('jobs').where('id', '=', job.id).where('locked_by', '=', job.locked_by).where('attempts', '=', job.attempts);
}

/** The job succeeded: it is removed. */
export async function completeJob(db: Queryable, job: JobRow): Promise<void> {
  await db.deleteFrom('jobs').where('id', '=', job.id).where('locked_by', '=', job.locked_by).where('attempts', '=', job.attempts).execute();
}

/** The job failed: it is due again at `runAt`, or, given `dead`, kept as dead. */
export async function failJob(db: Queryable, job: JobRow, o: { error: string; runAt: number; dead: boolean; now: number }): Promise<void> {
  await held(db, job)
    .set({ last_error: o.error, locked_by: null, locked_until: null, run_at: o.runAt, dead_at: o.dead ? o.now : null })
    .execute();
}

/** Jobs by state, for /metrics: due (waiting for a worker), scheduled (for later, or running: a claim moves run_at to the end of its lease), dead. */
export async function jobCounts(db: Queryable, now: number): Promise<{ due: number; scheduled: number; dead: number }> {
  const rows = await db
    .selectFrom('jobs')
    .select((eb) => [
      eb.fn.countAll<number>().filterWhere('dead_at', 'is not', null).as('dead'),
      eb.fn.countAll<number>().filterWhere((w) => w.and([w('dead_at', 'is', null), w('run_at', '<=', now)])).as('due'),
      eb.fn.countAll<number>().filterWhere((w) => w.and([w('dead_at', 'is', null), w('run_at', '>', now)])).as('scheduled'),
    ])
    .executeTakeFirstOrThrow();
  return { due: Number(rows.due), scheduled: Number(rows.scheduled), dead: Number(rows.dead) };
}
