/**
 * A separate process running a job worker on the database its environment names, for the job
 * tests: JOB_CHILD=hang claims and never finishes (to be killed); JOB_CHILD=record records each
 * run of a `test.record` job in the table test_job_runs. Prints `ready`, then `running <id>`
 * for each job it starts.
 */
import { sql } from 'kysely';
import { openStore } from '../../src/store/db.ts';
import { JobHandlers, startWorker } from '../../src/jobs/worker.ts';

const databaseUrl = process.env.DATABASE_URL || undefined;
const store = await openStore({ databaseUrl, dataDir: process.env.SHEETD_DATA_DIR! });
const leaseMs = Number(process.env.JOB_LEASE_MS || 60_000);
const handlers = new JobHandlers();
if (process.env.JOB_CHILD === 'hang') {
  handlers.register('test.hang', async (_p, job) => {
    process.stdout.write(`running ${job.id}\n`);
    await new Promise(() => {});
  }, { leaseMs });
} else {
  handlers.register('test.record', async (p, job) => {
    process.stdout.write(`running ${job.id}\n`);
    await sql`insert into test_job_runs (job_key, worker) values (${(p as { key: string }).key}, ${process.pid})`.execute(store.db);
    await new Promise((r) => setTimeout(r, 20));
  }, { leaseMs });
}
const worker = startWorker(store, { handlers, pollMs: Number(process.env.JOB_POLL_MS || 50), databaseUrl, logger: false });
// the worker's timers do not hold a process open (a server's listening socket does)
const alive = setInterval(() => {}, 1 << 30);
process.on('SIGTERM', () => {
  clearInterval(alive);
  void worker.stop().then(() => store.close()).then(() => process.exit(0));
});
await worker.listening;
process.stdout.write('ready\n');
