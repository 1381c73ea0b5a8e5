import { sql, type Insertable } from 'kysely';
import { insertMany, onPostgres, PG_STATEMENT_BYTES, type Queryable, type Store } from './db.ts';
import type { EventTable } from './schema.ts';

/**
 * Appends events to the change log. On PostgreSQL they wait for the sequencer to position them
 * (sequenceEvents). On SQLite they are positioned here, after every position given so far: its
 * writers are serial (every transaction begins immediate, taking the write lock, in this process
 * and in any other on the file), so positions given in a transaction's order are its commit
 * order. The sequencer's later UPDATE of each event through the log's indexes (and its commit)
 * was about a tenth of the SQL of an add of 500 rows. Outside a transaction the read of the last
 * position and the insert go in one of their own.
 */
export async function appendEvents(db: Queryable, rows: Insertable<EventTable>[]): Promise<void> {
  if (rows.length === 0) return;
  if (onPostgres(db)) {
    await insertMany(db, 'events', rows, undefined, { pgStatementBytes: PG_STATEMENT_BYTES });
    return;
  }
  if (!db.isTransaction) {
    await db.transaction().execute((tx) => appendEvents(tx, rows));
    return;
  }
  const r = await db.selectFrom('events').select((eb) => eb.fn.max('pos').as('m')).executeTakeFirst();
  const last = Number(r?.m ?? 0);
  // multi-row statements compiled once per shape (a write of 500 rows appends 500 events)
  await insertMany(db, 'events', rows.map((e, i) => ({ ...e, pos: last + 1 + i })));
}

/** Events positioned per sequencer transaction: a write of 500 rows fits in one. */
const SEQUENCE_BATCH = 5000;
/** pg_advisory_xact_lock key of the sequencer ('sheetdsq' in ASCII). */
const SEQUENCER_LOCK = 0x73686565_74647371n;

/**
 * Gives committed events their stream position (`pos`), in commit order.
 *
 * `seq` is taken at insert: on PostgreSQL a transaction holding seq 5 can commit after one
 * holding seq 6, so a reader paging by seq could pass 5 before it existed. The sequencer only
 * sees committed events and numbers them after every position given so far, one sequencer at
 * a time (an advisory lock held until its commit; SQLite writers are serial anyway): a position
 * is never given below one a reader may have seen. Within a batch it follows seq, which agrees
 * with commit order wherever order is observable: writes to one sheet take its lock before
 * they append events, and a transaction that starts after another committed takes higher seqs.
 *
 * Called before the change log is read (GET /events) and, on PostgreSQL, by the job worker on
 * every tick, so few events wait for it. On SQLite events are positioned as they are appended
 * (appendEvents): the sequencer positions only those an older sheetd left without one. Returns how many events it positioned.
 */
export async function sequenceEvents(store: Store): Promise<number> {
  let total = 0;
  while (true) {
    // nothing waiting (the common case): no write transaction, no lock
    const waiting = await store.db.selectFrom('events').select('seq').where('pos', 'is', null).limit(1).executeTakeFirst();
    if (!waiting) return total;
    const n = await store.db.transaction().execute(async (tx) => {
      if (store.dialect === 'postgres') await sql`select pg_advisory_xact_lock(${sql.lit(SEQUENCER_LOCK)})`.execute(tx);
      // a statement after the lock: its snapshot holds every position the last sequencer gave
      const r = await sql`
        update events set pos = n.pos
        from (
          select seq, (select coalesce(max(pos), 0) from events) + row_number() over (order by seq) as pos
          from events where pos is null order by seq limit ${sql.lit(SEQUENCE_BATCH)}
        ) as n
        where events.seq = n.seq`.execute(tx);
      return Number(r.numAffectedRows ?? 0n);
    });
    total += n;
    if (n < SEQUENCE_BATCH) return total;
  }
}

export async function listEvents(
  db: Queryable,
  orgId: number,
  q: { afterPos?: number; since?: number; to?: number; limit: number },
) {
  let sel = db.selectFrom('events').selectAll().where('org_id', '=', orgId);
  // events the sequencer has not reached yet come in a later read, at their own position
  sel = q.afterPos !== undefined ? sel.where('pos', '>', q.afterPos) : sel.where('pos', 'is not', null);
  if (q.since !== undefined) sel = sel.where('event_ts', '>=', q.since);
  if (q.to !== undefined) sel = sel.where('event_ts', '<=', q.to);
  return sel.orderBy('pos').limit(q.limit).execute();
}

export async function lastEventPos(db: Queryable, orgId: number): Promise<number> {
  const r = await db.selectFrom('events').select((eb) => eb.fn.max('pos').as('m')).where('org_id', '=', orgId).executeTakeFirst();
  return Number(r?.m ?? 0);
}

/** Positioned events after `afterPos`, every organization and sheet (the live change feed of a process). */
export async function eventsAfter(db: Queryable, afterPos: number, limit: number) {
  return db.selectFrom('events').selectAll().where('pos', '>', afterPos).orderBy('pos').limit(limit).execute();
}

/** The highest stream position given so far (0 for an empty log). */
export async function maxEventPos(db: Queryable): Promise<number> {
  const r = await db.selectFrom('events').select((eb) => eb.fn.max('pos').as('m')).executeTakeFirst();
  return Number(r?.m ?? 0);
}

/** How many of a sheet's events lie after `afterPos`, counting no further than `cap`. */
export async function countSheetEventsAfter(db: Queryable, sheetId: number, afterPos: number, cap: number): Promise<number> {
  const rows = await db.selectFrom('events').select('pos').where('sheet_id', '=', sheetId).where('pos', '>', afterPos).orderBy('pos').limit(cap).execute();
  return rows.length;
}
