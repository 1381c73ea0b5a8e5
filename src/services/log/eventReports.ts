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
  return { events: page, moreAvailable: more, nextStreamPosition: encodePosition(last), systemUserId, orgId: actor.org.id };
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

/** The objectTypes the public service gives events: its SDKs' EventObjectType enums. */
const PUBLIC_OBJECT_TYPES = new Set([
  'ACCESS_TOKEN', 'ACCOUNT', 'ATTACHMENT', 'DASHBOARD', 'DISCUSSION', 'FOLDER', 'FORM', 'GROUP', 'SHEET', 'REPORT',
  'UPDATE_REQUEST', 'USER', 'WORKSPACE',
]);

/** The actions of the public service's events: its SDKs' EventAction enums. */
const PUBLIC_ACTIONS = new Set([
  'CREATE', 'UPDATE', 'LOAD', 'DELETE', 'PURGE', 'RESTORE', 'RENAME', 'ACTIVATE', 'DEACTIVATE', 'EXPORT', 'MOVE',
  'MOVE_ROW', 'COPY_ROW', 'SAVE_AS_NEW', 'SAVE_AS_TEMPLATE', 'ADD_PUBLISH', 'REMOVE_PUBLISH', 'ADD_SHARE',
  'REMOVE_SHARE', 'ADD_SHARE_MEMBER', 'REMOVE_SHARE_MEMBER', 'ADD_WORKSPACE_SHARE', 'REMOVE_WORKSPACE_SHARE',
  'ADD_MEMBER', 'REMOVE_MEMBER', 'TRANSFER_OWNERSHIP', 'CREATE_CELL_LINK', 'REMOVE_SHARES', 'TRANSFER_OWNED_GROUPS',
  'TRANSFER_OWNED_ITEMS', 'DOWNLOAD_SHEET_ACCESS_REPORT', 'DOWNLOAD_USER_LIST', 'DOWNLOAD_LOGIN_HISTORY',
  'DOWNLOAD_PUBLISHED_ITEMS_REPORT', 'UPDATE_MAIN_CONTACT', 'IMPORT_USERS', 'BULK_UPDATE', 'LIST_SHEETS',
  'REQUEST_BACKUP', 'CREATE_RECURRING_BACKUP', 'UPDATE_RECURRING_BACKUP', 'DELETE_RECURRING_BACKUP',
  'REMOVE_FROM_GROUPS', 'SEND_AS_ATTACHMENT', 'SEND_ROW', 'SEND', 'SEND_COMMENT', 'SEND_INVITE', 'DECLINE_INVITE',
  'ACCEPT_INVITE', 'SEND_PASSWORD_RESET', 'REMOVE_FROM_ACCOUNT', 'ADD_TO_ACCOUNT', 'AUTHORIZE', 'REVOKE',
]);

/** Objects of an organization's settings rather than of a sheet or a user. */
const ACCOUNT_OBJECTS = new Set(['WEBHOOK', 'API_CLIENT']);

/** An event's name as Get Events gives it, with sheetd's own when that is finer. */
export interface PublicEventName {
  objectType: string;
  action: string;
  objectId: number;
  /** What sheetd recorded, when the public name is another (additionalDetails.sheetdEvent). */
  recorded?: { objectType: string; action: string; objectId: number };
}

/**
 * An event named in the public service's vocabulary, the only one its SDKs read (Java reads
 * other values as null, C# as the first member of its enum: a row's deletion as ACCESS_TOKEN
 * CREATE). A change to a part of a sheet (a row, column, comment, summary field, proof,
 * automation rule) is an UPDATE of the sheet; a sent update request's is its update request's;
 * a user's favorites are the user's; webhooks and API clients are the account's. An action
 * outside the public list (SORT, UPDATE_SHARE, UPDATE_USER, ADD_ALTERNATE_EMAIL, REPLAY, ...)
 * is an UPDATE of its object. sheetd's own name then goes into additionalDetails.sheetdEvent.
 */
export function publicEventName(e: { object_type: string; action: string; object_id: number; sheet_id: number | null; user_id: number | null }, orgId: number): PublicEventName {
  const recorded = { objectType: e.object_type, action: e.action, objectId: e.object_id };
  if (PUBLIC_OBJECT_TYPES.has(e.object_type)) {
    return PUBLIC_ACTIONS.has(e.action) ? recorded : { objectType: e.object_type, action: 'UPDATE', objectId: e.object_id, recorded };
  }
  const action = (a: string): string => (PUBLIC_ACTIONS.has(a) ? a : 'UPDATE');
  if (e.object_type === 'SENT_UPDATE_REQUEST') return { objectType: 'UPDATE_REQUEST', action: action(e.action), objectId: e.object_id, recorded };
  if (ACCOUNT_OBJECTS.has(e.object_type)) return { objectType: 'ACCOUNT', action: 'UPDATE', objectId: orgId, recorded };
  if (e.sheet_id !== null) return { objectType: 'SHEET', action: 'UPDATE', objectId: e.sheet_id, recorded };
  if (e.object_type === 'FAVORITE' && e.user_id !== null) return { objectType: 'USER', action: 'UPDATE', objectId: e.user_id, recorded };
  return { objectType: 'ACCOUNT', action: 'UPDATE', objectId: orgId, recorded };
}
