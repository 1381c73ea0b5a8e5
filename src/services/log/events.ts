import type { Queryable } from '../../store/db.ts';
import { appendEvents } from '../../store/events.ts';
import { wakeWebhooks } from '../../store/webhooks.ts';
import { clock } from '../../clock.ts';
import type { Actor } from '../platform/context.ts';

/**
 * A change event. Every mutation appends its events in the transaction that makes the change,
 * so the log is the one source for GET /events, webhooks, cell history and cache invalidation.
 */
export interface ChangeEvent {
  objectType: string;
  action: string;
  objectId: number;
  details?: Record<string, unknown>;
  sheetId?: number | null;
  workspaceId?: number | null;
}

/** Who did it, as the event log records it (an actor, or the system / command line). */
export interface EventAuthor {
  orgId: number;
  userId: number | null;
  requestUserId: number | null;
  accessTokenName: string | null;
  source: string;
  /** Smartsheet-Change-Agent of the request, when it sent one. */
  changeAgent?: string | null;
}

export function authorOf(actor: Actor): EventAuthor {
  return {
    orgId: actor.org.id,
    userId: actor.guestEmail !== undefined ? null : actor.user.id,
    requestUserId: actor.guestEmail !== undefined ? null : actor.requestUser.id,
    // the web app's calls carry the session, not an access token
    accessTokenName: actor.source === 'WEB_APP' ? null : actor.tokenName,
    source: actor.source ?? (actor.apiClientId !== null ? 'API_INTEGRATED_APP' : 'API_UNDEFINED_APP'),
    changeAgent: actor.changeAgent ?? null,
  };
}

/**
 * JSON.stringify(details ?? {}), the text kept for the next events with equal details: the row
 * events of one write mostly name the same columns (an add of 500 rows of 20 columns formatted
 * 10,000 long ids). Equal means the same keys in the same order, each value the same primitive
 * or an array of the same primitives; anything else is formatted afresh.
 */
function detailsJson(details: Record<string, unknown> | undefined): string {
  if (details === undefined) return '{}';
  const last = lastDetails;
  if (last !== undefined && sameDetails(last.details, details)) return last.json;
  const json = JSON.stringify(details);
  lastDetails = { details: copyDetails(details), json };
  return json;
}
let lastDetails: { details: Record<string, unknown>; json: string } | undefined;

function isPrimitive(v: unknown): boolean {
  return v === null || (typeof v !== 'object' && typeof v !== 'function');
}

function sameDetails(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (let i = 0; i < ka.length; i++) {
    const k = ka[i]!;
    if (k !== kb[i]) return false;
    const x = a[k];
    const y = b[k];
    if (Array.isArray(x)) {
      if (!Array.isArray(y) || x.length !== y.length) return false;
      for (let j = 0; j < x.length; j++) if (x[j] !== y[j] || !isPrimitive(y[j])) return false;
    } else if (x !== y || !isPrimitive(y)) return false;
  }
  return true;
}

/** The details as compared next time: arrays copied (a caller may change its own later), others only when primitive. */
function copyDetails(d: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(d)) {
    const v = d[k];
    out[k] = Array.isArray(v) ? [...(v as unknown[])] : isPrimitive(v) ? v : NOT_COMPARABLE;
  }
  return out;
}
/** Stands for a value that is neither a primitive nor an array: never equal to the next one. */
const NOT_COMPARABLE = Symbol('not comparable');

/**
 * How many times events were recorded in this process. A request (or job) during which it grew
 * may have committed events: once it has been answered, the change streams read the log
 * (services/live/hub.ts). Counting at both ends of each request, rather than keeping a flag,
 * wakes the streams after every such commit even when requests overlap.
 */
let recorded = 0;
export function eventsRecorded(): number {
  return recorded;
}

/**
 * Records the events in the caller's transaction and wakes the webhooks that watch their sheets.
 * `watched`: for one sheet's events, whether webhooks watch it as the write's lock of the sheet
 * read (false: none, so none is looked for); undefined: looked up.
 */
export async function recordEvents(db: Queryable, author: EventAuthor, events: ChangeEvent[], now = clock.now(), watched?: boolean): Promise<void> {
  if (events.length > 0) recorded++;
  await appendEvents(
    db,
    events.map((e) => ({
      org_id: author.orgId,
      object_type: e.objectType,
      action: e.action,
      object_id: e.objectId,
      user_id: author.userId,
      request_user_id: author.requestUserId,
      access_token_name: author.accessTokenName,
      source: author.source,
      additional_details: detailsJson(e.details),
      event_ts: now,
      sheet_id: e.sheetId ?? null,
      workspace_id: e.workspaceId ?? null,
      change_agent: author.changeAgent ?? null,
    })),
    now,
  );
  // webhooks watching these sheets deliver them after this commit (a run per commit, which waits out the batch window)
  // (`watched` false: the one sheet's write lock read that none does)
  if (watched === false) return;
  const sheetIds = [...new Set(events.map((e) => e.sheetId).filter((id): id is number => typeof id === 'number'))];
  await wakeWebhooks(db, sheetIds, clock.now());
}
