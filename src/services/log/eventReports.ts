import type { Store } from '../../store/db.ts';
import { lastEventPos, listEvents, sequenceEvents } from '../../store/events.ts';
import { orgOwnerAdmin } from '../../store/users.ts';
import { apiError } from '../../errors.ts';
import type { Actor } from '../platform/context.ts';

/**
 * Get Events (spec 4.3): the organization's change log as a stream. A stream position is an
 * opaque string naming the last event returned (its commit-ordered position, so a reader
 * never passes an event that commits later); `since` starts a backfill (rounded down to the
 * hour, as the service's resolution is an hour).
 */
export interface EventQuery {
  since?: number;
  to?: number;
  streamPosition?: string;
  maxCount: number;
}

const HOUR = 3_600_000;

export function encodePosition(pos: number): string {
  return 'sp' + pos.toString(36);
}

export function decodePosition(pos: string): number {
  const m = /^sp([0-9a-z]{1,11})$/.exec(pos);
  if (!m) throw apiError(1018, pos, 'streamPosition');
  return parseInt(m[1]!, 36);
}

export async function readEvents(store: Store, actor: Actor, q: EventQuery) {
  if (!actor.user.admin) throw apiError(1004);
  if (q.since === undefined && q.streamPosition === undefined) throw apiError(1228, 'since', 'streamPosition');
  if (q.since !== undefined && q.streamPosition !== undefined) throw apiError(1227, 'since', 'streamPosition');
  const afterPos = q.streamPosition !== undefined ? decodePosition(q.streamPosition) : undefined;
  const since = q.since !== undefined ? q.since - (q.since % HOUR) : undefined;
  // the caller's own writes are committed: position them now, so they are in this read
  await sequenceEvents(store);
  const db = store.db;
  const rows = await listEvents(db, actor.org.id, { afterPos, since, to: q.to, limit: q.maxCount + 1 });
  const more = rows.length > q.maxCount;
  const page = more ? rows.slice(0, q.maxCount) : rows;
  const last = page.length > 0 ? page[page.length - 1]!.pos! : afterPos ?? (await lastEventPos(db, actor.org.id));
  // events without a user (the system's: jobs, automation, signed links) are answered as the
  // system admin who owns the organization's
  const systemUserId = page.some((e) => e.user_id === null || e.request_user_id === null) ? (await orgOwnerAdmin(db, actor.org.id))?.id : undefined;
  return { events: page, moreAvailable: more, nextStreamPosition: encodePosition(last), systemUserId };
}

/** The sources the public service gives events, the only values its SDKs read (Java and C# as enums). */
const PUBLIC_SOURCES = new Set(['WEB_APP', 'MOBILE_IOS', 'MOBILE_ANDROID', 'API_INTEGRATED_APP', 'API_UNDEFINED_APP', 'UNKNOWN']);

/**
 * An event's `source` as Get Events gives it, and the finer origin sheetd recorded when that is
 * not one of the public values (Get Events shows it as additionalDetails.origin): pages a person
 * fills in outside the app (an update request's form, a proof review) are WEB_APP; what no person
 * did through a client (automation, the server's own setup, the command line) is UNKNOWN. Events
 * recorded before raw tokens and OAuth apps were told apart say API: a raw token's.
 */
export function publicSource(stored: string): { source: string; origin?: string } {
  if (PUBLIC_SOURCES.has(stored)) return { source: stored };
  if (stored === 'API') return { source: 'API_UNDEFINED_APP' };
  if (stored === 'UPDATE_REQUEST' || stored === 'PROOF_REVIEW') return { source: 'WEB_APP', origin: stored };
  return { source: 'UNKNOWN', origin: stored };
}
