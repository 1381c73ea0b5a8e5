import type { Insertable } from 'kysely';
import { insertMany, type Queryable } from './db.ts';
import type { EventTable } from './schema.ts';

export async function appendEvents(db: Queryable, rows: Insertable<EventTable>[]): Promise<void> {
  if (rows.length === 0) return;
  // multi-row statements compiled once per shape (a write of 500 rows appends 500 events)
  await insertMany(db, 'events', rows);
}

export async function listEvents(
  db: Queryable,
  orgId: number,
  q: { afterSeq?: number; since?: number; to?: number; limit: number },
) {
  let sel = db.selectFrom('events').selectAll().where('org_id', '=', orgId);
  if (q.afterSeq !== undefined) sel = sel.where('seq', '>', q.afterSeq);
  if (q.since !== undefined) sel = sel.where('event_ts', '>=', q.since);
  if (q.to !== undefined) sel = sel.where('event_ts', '<=', q.to);
  return sel.orderBy('seq').limit(q.limit).execute();
}

export async function lastEventSeq(db: Queryable, orgId: number): Promise<number> {
  const r = await db.selectFrom('events').select((eb) => eb.fn.max('seq').as('m')).where('org_id', '=', orgId).executeTakeFirst();
  return Number(r?.m ?? 0);
}
