import { sql, type Kysely } from 'kysely';
import { types, type Dialect } from './types.ts';

/**
 * The change log as a queue, and durable jobs.
 *
 * events.pos: the commit-ordered stream position (store/events.ts sequenceEvents). `seq` is
 * taken when a row is inserted, so on PostgreSQL a transaction can commit a lower seq after a
 * reader has passed it; `pos` is given only to committed events, by one sequencer at a time.
 * Events already stored are committed: their position is their seq, so stream positions handed
 * out before this migration stay valid.
 *
 * jobs: work that must follow a commit, written in the same transaction (store/jobs.ts).
 */
export async function up(db: Kysely<unknown>, d: Dialect): Promise<void> {
  const t = types(d);
  await db.schema.alterTable('events').addColumn('pos', t.id).execute();
  await sql`update events set pos = seq`.execute(db);
  await db.schema.createIndex('events_pos').on('events').column('pos').unique().execute();
  await db.schema.createIndex('events_org_pos').on('events').columns(['org_id', 'pos']).execute();
  await db.schema.createIndex('events_unsequenced').on('events').column('seq').where(sql.ref('pos'), 'is', null).execute();

  await db.schema
    .createTable('jobs')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('dedup_key', 'text')
    // due when run_at has passed; a claim moves it to the end of the claim's lease
    .addColumn('run_at', t.ms, (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('max_attempts', 'integer', (c) => c.notNull())
    .addColumn('last_error', 'text')
    .addColumn('locked_by', 'text')
    .addColumn('locked_until', t.ms)
    .addColumn('dead_at', t.ms)
    .addColumn('created_at', t.ms, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('jobs_due').on('jobs').columns(['run_at']).where(sql.ref('dead_at'), 'is', null).execute();
  await db.schema.createIndex('jobs_dedup').on('jobs').column('dedup_key').unique().where(sql.ref('dead_at'), 'is', null).execute();
  if (d === 'postgres') {
    // every process LISTENs on this channel; a notification is delivered only when the
    // enqueuing transaction commits, so a nudged worker finds the job
    await sql`
      create function sheetd_jobs_notify() returns trigger language plpgsql as $$
      begin
        perform pg_notify('sheetd_jobs', '');
        return null;
      end $$`.execute(db);
    await sql`create trigger jobs_notify after insert on jobs for each statement execute function sheetd_jobs_notify()`.execute(db);
  }
}
