import { sql, type Insertable, type Selectable } from 'kysely';
import { insertMany, onPostgres, PG_STATEMENT_BYTES, type Queryable, type Store } from './db.ts';
import type { EventTable } from './schema.ts';
import { eventIds } from '../ids.ts';

/** One event as a write gives it to the change log; its id and its record are made here. */
export type NewEvent = Omit<Insertable<EventTable>, 'seq' | 'pos' | 'event_id' | 'n' | 'batch'>;

/** An event as the log's readers see it: runs expanded, each event with its own position. */
export type LogEvent = Selectable<EventTable>;

/**
 * The most events one record holds. A reader of a page that reaches into a run parses the run's
 * ids (5,000: about 90 KB); an import of 100,000 rows makes 20 records.
 */
const RUN_MAX = 5000;
/** An event id of a run is its record's first 20 characters and 4 base-36 digits of its index. */
const RUN_ID_HEAD = 20;
const RUN_ID_DIGITS = 4;

/**
 * Appends events to the change log, the consecutive events of the write that share everything
 * but their object id and details (an add of 500 rows: 500 ROW CREATE events of one sheet) as
 * one record, a run: `n` events, their object ids and details in `batch`, and `pos` the last of
 * the n stream positions they take (migration 0028). A run's events are positioned, read and
 * paged one by one as before (expandEvents); what is saved is the log's writing, 500 records
 * and their five indexes' entries (on PostgreSQL positioned again by the sequencer) for each
 * add of 500 rows.
 *
 * On PostgreSQL the records wait for the sequencer to position them (sequenceEvents). On SQLite
 * they are positioned here, after every position given so far: its writers are serial (every
 * transaction begins immediate, taking the write lock, in this process and in any other on the
 * file), so positions given in a transaction's order are its commit order. Outside a
 * transaction the read of the last position and the insert go in one of their own.
 */
export async function appendEvents(db: Queryable, events: readonly NewEvent[], now: number): Promise<void> {
  if (events.length === 0) return;
  if (!onPostgres(db) && !db.isTransaction) {
    await db.transaction().execute((tx) => appendEvents(tx, events, now));
    return;
  }
  const records = eventRecords(events, now);
  if (onPostgres(db)) {
    await insertMany(db, 'events', records, undefined, { pgStatementBytes: PG_STATEMENT_BYTES, hold: true });
    return;
  }
  const r = await db.selectFrom('events').select((eb) => eb.fn.max('pos').as('m')).executeTakeFirst();
  let last = Number(r?.m ?? 0);
  for (const rec of records) rec.pos = last += rec.n!;
  // multi-row statements compiled once per shape
  await insertMany(db, 'events', records);
}

/** The fields every event of a run shares: all but its object and details (and the record's own). */
const RUN_FIELDS = [
  'org_id', 'object_type', 'action', 'user_id', 'request_user_id', 'access_token_name', 'source', 'event_ts',
  'sheet_id', 'workspace_id', 'change_agent',
] as const;
type RunFields = Pick<NewEvent, (typeof RUN_FIELDS)[number]>;

function sameRun(a: NewEvent, b: NewEvent): boolean {
  for (const f of RUN_FIELDS) if ((a[f] ?? null) !== (b[f] ?? null)) return false;
  return true;
}

/** The run's shared fields of its first event, an absent one null. */
function runFields(first: NewEvent): RunFields {
  const out: Record<string, unknown> = {};
  for (const f of RUN_FIELDS) out[f] = first[f] ?? null;
  return out as RunFields;
}

/** The records of `events`: runs of consecutive events that share all but their object and details. */
function eventRecords(events: readonly NewEvent[], now: number): Array<Insertable<EventTable>> {
  const starts: number[] = [];
  for (let i = 0; i < events.length; i++) {
    const start = starts.length > 0 ? starts[starts.length - 1]! : -1;
    if (start < 0 || i - start >= RUN_MAX || !sameRun(events[start]!, events[i]!)) starts.push(i);
  }
  const ids = eventIds(starts.length, now);
  const records: Array<Insertable<EventTable>> = new Array(starts.length);
  for (let k = 0; k < starts.length; k++) {
    const from = starts[k]!;
    const to = k + 1 < starts.length ? starts[k + 1]! : events.length;
    const first = events[from]!;
    const n = to - from;
    // every record has the same keys in the same order (one statement shape)
    records[k] = {
      event_id: n === 1 ? ids[k]! : runEventId(ids[k]!, 0),
      ...runFields(first),
      object_id: first.object_id,
      additional_details: first.additional_details,
      n,
      batch: n === 1 ? null : runBatch(events, from, to),
      pos: null,
    };
  }
  return records;
}

/**
 * A run's `batch`: its events' object ids, `[id, ...]` when all share the record's details
 * (the common case: a write's rows name the same columns), else `{"ids":[...],"details":[json
 * text, ...],"of":[index into details, ...]}`.
 */
function runBatch(events: readonly NewEvent[], from: number, to: number): string {
  const ids = new Array<number>(to - from);
  const details = events[from]!.additional_details;
  let same = true;
  for (let i = from; i < to; i++) {
    const e = events[i]!;
    ids[i - from] = e.object_id;
    if (e.additional_details !== details) same = false;
  }
  if (same) return JSON.stringify(ids);
  const distinct: string[] = [];
  const index = new Map<string, number>();
  const of = new Array<number>(to - from);
  for (let i = from; i < to; i++) {
    const d = events[i]!.additional_details;
    let k = index.get(d);
    if (k === undefined) index.set(d, (k = distinct.push(d) - 1));
    of[i - from] = k;
  }
  return JSON.stringify({ ids, details: distinct, of });
}

function runEventId(recordId: string, i: number): string {
  return recordId.slice(0, RUN_ID_HEAD) + i.toString(36).padStart(RUN_ID_DIGITS, '0');
}

interface ParsedRun {
  ids: number[];
  details?: string[];
  of?: number[];
}

/** The fields of a record the expansion reads; a reader may select fewer of the others. */
type RecordLike = { pos: number | null; n: number; batch: string | null; object_id: number; event_id?: string; additional_details?: string };

/**
 * A page of the log's events from its records (ordered by pos): runs expanded into their events,
 * each with its own position, id, object id and details; events at or before `afterPos` left out
 * (a reader that stopped inside a run goes on from there); at most `limit` events. Every record
 * read holds at least one event after `afterPos`, so reading `limit` records gives a full page
 * when the log has one.
 */
export function expandEvents<R extends RecordLike>(records: readonly R[], afterPos: number | undefined, limit: number): R[] {
  const out: R[] = [];
  for (const r of records) {
    if (out.length >= limit) break;
    if (r.n <= 1 || r.batch === null) {
      out.push(r);
      continue;
    }
    const run = JSON.parse(r.batch) as number[] | ParsedRun;
    const ids = Array.isArray(run) ? run : run.ids;
    const last = Number(r.pos);
    const first = last - r.n + 1;
    for (let i = afterPos !== undefined && afterPos >= first ? afterPos - first + 1 : 0; i < r.n && out.length < limit; i++) {
      const e = { ...r, pos: first + i, object_id: ids[i]!, n: 1, batch: null };
      if (r.event_id !== undefined) e.event_id = runEventId(r.event_id, i);
      if (!Array.isArray(run) && run.details !== undefined && run.of !== undefined && r.additional_details !== undefined) e.additional_details = run.details[run.of[i]!]!;
      out.push(e);
    }
  }
  return out;
}

/** Records positioned per sequencer transaction. */
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
 * (appendEvents): the sequencer positions only those an older sheetd left without one. A record
 * of a run takes the last of its n positions (the running sum of n). Returns how many records it
 * positioned.
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
        update events set pos = q.pos
        from (
          select seq, (select coalesce(max(pos), 0) from events) + sum(n) over (order by seq) as pos
          from events where pos is null order by seq limit ${sql.lit(SEQUENCE_BATCH)}
        ) as q
        where events.seq = q.seq`.execute(tx);
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
): Promise<LogEvent[]> {
  let sel = db.selectFrom('events').selectAll().where('org_id', '=', orgId);
  // events the sequencer has not reached yet come in a later read, at their own position
  sel = q.afterPos !== undefined ? sel.where('pos', '>', q.afterPos) : sel.where('pos', 'is not', null);
  // a run's events share their time
  if (q.since !== undefined) sel = sel.where('event_ts', '>=', q.since);
  if (q.to !== undefined) sel = sel.where('event_ts', '<=', q.to);
  return expandEvents(await sel.orderBy('pos').limit(q.limit).execute(), q.afterPos, q.limit);
}

export async function lastEventPos(db: Queryable, orgId: number): Promise<number> {
  const r = await db.selectFrom('events').select((eb) => eb.fn.max('pos').as('m')).where('org_id', '=', orgId).executeTakeFirst();
  return Number(r?.m ?? 0);
}

/** Positioned events after `afterPos`, every organization and sheet (the live change feed of a process). */
export async function eventsAfter(db: Queryable, afterPos: number, limit: number): Promise<LogEvent[]> {
  return expandEvents(await db.selectFrom('events').selectAll().where('pos', '>', afterPos).orderBy('pos').limit(limit).execute(), afterPos, limit);
}

/** A sheet's positioned events after `afterPos` (webhook callbacks, a change stream's catch-up). */
export async function sheetEventsAfter(db: Queryable, sheetId: number, afterPos: number, limit: number): Promise<LogEvent[]> {
  const records = await db.selectFrom('events').selectAll()
    .where('sheet_id', '=', sheetId).where('pos', '>', afterPos)
    .orderBy('pos').limit(limit).execute();
  return expandEvents(records, afterPos, limit);
}

/** The highest stream position given so far (0 for an empty log). */
export async function maxEventPos(db: Queryable): Promise<number> {
  const r = await db.selectFrom('events').select((eb) => eb.fn.max('pos').as('m')).executeTakeFirst();
  return Number(r?.m ?? 0);
}

/** How many of a sheet's events lie after `afterPos`, counting no further than `cap`. */
export async function countSheetEventsAfter(db: Queryable, sheetId: number, afterPos: number, cap: number): Promise<number> {
  const rows = await db.selectFrom('events').select(['pos', 'n']).where('sheet_id', '=', sheetId).where('pos', '>', afterPos).orderBy('pos').limit(cap).execute();
  let count = 0;
  // a run reaching back to or before afterPos counts only its events after it
  for (const r of rows) if ((count += Math.min(r.n, Number(r.pos) - afterPos)) >= cap) return cap;
  return count;
}
