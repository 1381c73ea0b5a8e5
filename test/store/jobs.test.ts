import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { sql } from 'kysely';
import { enqueue } from '../../src/store/jobs.ts';
import { backoffDelay, JobHandlers, startWorker, type JobInfo } from '../../src/jobs/worker.ts';
import { clock } from '../../src/clock.ts';
import { storeForFile } from '../helpers/store.ts';

const f = storeForFile();

/** Waits for `cond` (a generous deadline turns a hang into a failure; no speed is asserted). */
async function until<T>(cond: () => Promise<T | undefined | false>, what: string, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  while (true) {
    const v = await cond();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const jobsOf = (type: string) => f.store.db.selectFrom('jobs').selectAll().where('type', '=', type).execute();

test('a job enqueued in a transaction that rolls back does not exist; one that commits does', async () => {
  await assert.rejects(
    f.store.db.transaction().execute(async (tx) => {
      await enqueue(tx, 'test.tx', { n: 1 });
      throw new Error('rollback');
    }),
    /rollback/,
  );
  assert.deepEqual(await jobsOf('test.tx'), []);
  await f.store.db.transaction().execute((tx) => enqueue(tx, 'test.tx', { n: 2 }));
  const jobs = await jobsOf('test.tx');
  assert.equal(jobs.length, 1);
  assert.deepEqual(JSON.parse(jobs[0]!.payload), { n: 2 });
  assert.equal(jobs[0]!.attempts, 0);
});

test('a key allows one live job: enqueuing it again while it is pending does nothing', async () => {
  await enqueue(f.store.db, 'test.key', { n: 1 }, { key: 'k1' });
  await enqueue(f.store.db, 'test.key', { n: 2 }, { key: 'k1' });
  await enqueue(f.store.db, 'test.key', { n: 3 }, { key: 'k2' });
  const jobs = await jobsOf('test.key');
  assert.deepEqual(jobs.map((j) => JSON.parse(j.payload).n).sort(), [1, 3]);
});

test('the worker runs a committed job once, with its payload, and removes it', async () => {
  const runs: Array<[unknown, JobInfo]> = [];
  const handlers = new JobHandlers().register('test.once', async (p, job) => {
    runs.push([p, job]);
  });
  const worker = startWorker(f.store, { handlers, pollMs: 50, databaseUrl: f.databaseUrl, logger: false });
  try {
    await f.store.db.transaction().execute((tx) => enqueue(tx, 'test.once', { hello: 'world' }));
    await until(async () => (await jobsOf('test.once')).length === 0, 'the job to finish');
    assert.equal(runs.length, 1);
    assert.deepEqual(runs[0]![0], { hello: 'world' });
    assert.equal(runs[0]![1].attempt, 1);
  } finally {
    await worker.stop();
  }
  assert.equal(runs.length, 1);
});

test('a failing job is retried after an exponential backoff with jitter, then kept as dead with its error', async () => {
  const realNow = clock.now;
  let now = 1_000_000;
  clock.now = () => now;
  const calls: number[] = [];
  const handlers = new JobHandlers().register('test.fail', async (_p, job) => {
    calls.push(job.attempt);
    throw new Error(`boom ${job.attempt}`);
  }, { backoffMs: 1000, maxBackoffMs: 3000 });
  const worker = startWorker(f.store, { handlers, pollMs: 20, databaseUrl: f.databaseUrl, logger: false });
  try {
    await enqueue(f.store.db, 'test.fail', {}, { maxAttempts: 4 });
    // after each failure the job is due again between half and all of 1 s, 2 s, 3 s (capped) later
    for (const [attempt, full] of [[1, 1000], [2, 2000], [3, 3000]] as const) {
      const job = await until(async () => (await jobsOf('test.fail')).find((j) => j.attempts === attempt && j.locked_by === null), `failure ${attempt}`);
      assert.equal(job.last_error, `boom ${attempt}`);
      assert.equal(job.dead_at, null);
      const wait = job.run_at - now;
      assert.ok(wait >= full / 2 && wait <= full, `backoff ${wait} after attempt ${attempt}`);
      assert.deepEqual(calls, Array.from({ length: attempt }, (_, i) => i + 1));
      now = job.run_at;
      worker.wake();
    }
    const dead = await until(async () => (await jobsOf('test.fail')).find((j) => j.dead_at !== null), 'the job to die');
    assert.equal(dead.attempts, 4);
    assert.equal(dead.last_error, 'boom 4');
    assert.equal(dead.dead_at, now);
    // a dead job is not run again
    now += 10 * 3_600_000;
    worker.wake();
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(calls, [1, 2, 3, 4]);
  } finally {
    await worker.stop();
    clock.now = realNow;
  }
});

test('backoff doubles per attempt up to its cap, between half and all of it', () => {
  const h = { backoffMs: 100, maxBackoffMs: 1000 };
  assert.deepEqual([1, 2, 3, 4, 5, 60].map((a) => backoffDelay(h, a, 1)), [100, 200, 400, 800, 1000, 1000]);
  assert.deepEqual([1, 2, 3, 4, 5].map((a) => backoffDelay(h, a, 0)), [50, 100, 200, 400, 500]);
});

/** A child process running a job worker (test/helpers/jobChild.ts); `lines` are what it prints. */
function spawnWorker(mode: 'hang' | 'record', env: Record<string, string> = {}) {
  const proc: ChildProcess = spawn(process.execPath, ['--import', 'tsx', path.resolve(import.meta.dirname, '../helpers/jobChild.ts')], {
    env: { ...process.env, JOB_CHILD: mode, SHEETD_DATA_DIR: f.dataDir, ...(f.databaseUrl ? { DATABASE_URL: f.databaseUrl } : {}), ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines: string[] = [];
  readline.createInterface({ input: proc.stdout! }).on('line', (l) => lines.push(l));
  const exited = new Promise<void>((r) => proc.on('exit', () => r()));
  return {
    proc,
    lines,
    ready: () => until(async () => lines.includes('ready'), 'the worker process to start'),
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      await exited;
    },
  };
}

test('a job whose process is killed (kill -9) while running it runs again elsewhere when its lease ends', async () => {
  await enqueue(f.store.db, 'test.hang', { n: 1 });
  const [job] = await jobsOf('test.hang');
  const child = spawnWorker('hang', { JOB_LEASE_MS: '1000' });
  try {
    await until(async () => child.lines.includes(`running ${job!.id}`), 'the child to take the job');
  } finally {
    await child.stop('SIGKILL');
  }
  const held = (await jobsOf('test.hang'))[0]!;
  assert.equal(held.attempts, 1);
  assert.ok(held.locked_by !== null && held.locked_until !== null);
  const runs: JobInfo[] = [];
  const handlers = new JobHandlers().register('test.hang', async (_p, info) => {
    runs.push(info);
  });
  const worker = startWorker(f.store, { handlers, pollMs: 50, databaseUrl: f.databaseUrl, logger: false });
  try {
    await until(async () => (await jobsOf('test.hang')).length === 0, 'the job to run again');
    assert.deepEqual(runs.map((r) => [r.id, r.attempt]), [[job!.id, 2]]);
  } finally {
    await worker.stop();
  }
});

test('two worker processes share the jobs: each runs once (PostgreSQL: woken by the commit, not by polling)', async () => {
  await sql`create table test_job_runs (job_key text not null, worker integer not null)`.execute(f.store.db);
  // PostgreSQL: workers that would not poll for 10 minutes, so only the commit's NOTIFY can wake them
  const env: Record<string, string> = f.databaseUrl ? { JOB_POLL_MS: '600000' } : {};
  const a = spawnWorker('record', env);
  const b = spawnWorker('record', env);
  try {
    await Promise.all([a.ready(), b.ready()]);
    const N = 60;
    await f.store.db.transaction().execute(async (tx) => {
      for (let i = 0; i < N; i++) await enqueue(tx, 'test.record', { key: `k${i}` });
    });
    await until(async () => (await jobsOf('test.record')).length === 0, 'every job to run');
    const runs = (await sql<{ job_key: string; worker: number }>`select job_key, worker from test_job_runs`.execute(f.store.db)).rows;
    assert.deepEqual(runs.map((r) => r.job_key).sort(), Array.from({ length: N }, (_, i) => `k${i}`).sort());
    assert.deepEqual(new Set(runs.map((r) => r.worker)), new Set([a.proc.pid, b.proc.pid]), 'both processes took jobs');
  } finally {
    await Promise.all([a.stop(), b.stop()]);
  }
});
