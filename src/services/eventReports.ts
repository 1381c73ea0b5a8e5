import type { Queryable } from '../store/db.ts';
import { lastEventSeq, listEvents } from '../store/events.ts';
import { apiError } from '../errors.ts';
import type { Actor } from './context.ts';

/**
 * Get Events (spec 4.3): the organization's change log as a stream. A stream position is an
 * opaque string naming the last event returned; `since` starts a backfill (rounded down to
 * the hour, as the service's resolution is an hour).
 */
export interface EventQuery {
  since?: number;
  to?: number;
  streamPosition?: string;
  maxCount: number;
}

const HOUR = 3_600_000;

export function encodePosition(seq: number): string {
  return 'sp' + seq.toString(36);
}

export function decodePosition(pos: string): number {
  const m = /^sp([0-9a-z]{1,11})$/.exec(pos);
  if (!m) throw apiError(1018, pos, 'streamPosition');
  return parseInt(m[1]!, 36);
}

export async function readEvents(db: Queryable, actor: Actor, q: EventQuery) {
  if (!actor.user.admin) throw apiError(1004);
  if (q.since === undefined && q.streamPosition === undefined) throw apiError(1228, 'since', 'streamPosition');
  if (q.since !== undefined && q.streamPosition !== undefined) throw apiError(1227, 'since', 'streamPosition');
  const afterSeq = q.streamPosition !== undefined ? decodePosition(q.streamPosition) : undefined;
  const since = q.since !== undefined ? q.since - (q.since % HOUR) : undefined;
  const rows = await listEvents(db, actor.org.id, { afterSeq, since, to: q.to, limit: q.maxCount + 1 });
  const more = rows.length > q.maxCount;
  const page = more ? rows.slice(0, q.maxCount) : rows;
  const last = page.length > 0 ? page[page.length - 1]!.seq : afterSeq ?? (await lastEventSeq(db, actor.org.id));
  return { events: page, moreAvailable: more, nextStreamPosition: encodePosition(last) };
}
