import type { CallbackSender } from '../../callbacks/index.ts';
import { clock } from '../../clock.ts';
import { apiError } from '../../errors.ts';
import { newId } from '../../ids.ts';
import { asObject, bodyBool, bodyId, describe, isBadText, type Obj } from '../../engine/input.ts';
import type { Queryable, Store } from '../../store/db.ts';
import { maxEventPos, sequenceEvents } from '../../store/events.ts';
import { listColumns } from '../../store/sheets.ts';
import {
  attemptsOf, countDeliveries, countWebhooks, deleteWebhook, dropPending, findDelivery, findWebhook, insertWebhook,
  listDeliveries, listWebhooks, updateWebhook, webhookById, webhooksOfApp, type AttemptRow, type DeliveryRow, type WebhookOwner, type WebhookRow,
} from '../../store/webhooks.ts';
import type { Actor } from '../platform/context.ts';
import { authorOf, recordEvents, type EventAuthor } from '../log/events.ts';
import { sheetFor } from '../access/permissions.ts';
import { newSharedSecret, queueReplay, verifyCallbackUrl } from './webhookDelivery.ts';

/**
 * Webhooks (spec 4.2, the reference's Webhook Status): a webhook watches one sheet for its
 * owner. Created disabled (NEW_NOT_VERIFIED); enabling runs the verification handshake and
 * answers after it, as the reference's "Creating a Webhook" describes.
 */

const NAME_MAX = 255;
const URL_MAX = 2000;
/** Statuses the owner may enable from (after verification); the others answer an error. */
const ENABLEABLE = new Set(['NEW_NOT_VERIFIED', 'DISABLED_BY_OWNER', 'DISABLED_CALLBACK_FAILED', 'DISABLED_VERIFICATION_FAILED', 'DISABLED_SCOPE_INACCESSIBLE']);
const READ_ONLY = ['id', 'enabled', 'status', 'disabledDetails', 'apiClientId', 'apiClientName', 'sharedSecret', 'createdAt', 'modifiedAt', 'stats'];
const CREATE_ATTRS = new Set(['name', 'callbackUrl', 'events', 'version', 'scope', 'scopeObjectId', 'subscope']);
const UPDATE_ATTRS = new Set(['name', 'callbackUrl', 'events', 'version', 'enabled', 'id', 'scope', 'scopeObjectId', 'subscope']);

/** A page of a list (page past the end: the last page; pageSize null: everything). */
export interface PageRequest {
  page: number;
  pageSize: number | null;
}

function pageWindow(total: number, p: PageRequest): { offset: number; limit: number | null } {
  if (p.pageSize === null) return { offset: 0, limit: null };
  const last = Math.max(1, Math.ceil(total / p.pageSize));
  return { offset: (Math.min(p.page, last) - 1) * p.pageSize, limit: p.pageSize };
}

export interface WebhookServices {
  store: Store;
  callbacks: CallbackSender;
}

function ownerOf(actor: Actor): WebhookOwner {
  return { orgId: actor.org.id, ownerId: actor.user.id, apiClientId: actor.apiClientId };
}

async function ownWebhook(db: Queryable, actor: Actor, id: number): Promise<WebhookRow> {
  const hook = await findWebhook(db, ownerOf(actor), id);
  if (!hook) throw apiError(1006);
  return hook;
}

function required(b: Obj, attr: string): unknown {
  if (b[attr] === undefined || b[attr] === null) throw apiError(1012, attr);
  return b[attr];
}

function webhookName(v: unknown): string {
  if (typeof v !== 'string' || isBadText(v)) throw apiError(1031, describe(v), 'name');
  const s = v.trim();
  if (s === '') throw apiError(1012, 'name');
  if (s.length > NAME_MAX) throw apiError(1041, 'name', NAME_MAX, s.length);
  return s;
}

/** HTTPS only (1152), a URL (1031), on a port the operator allows (1031). */
function callbackUrl(v: unknown, callbacks: CallbackSender): string {
  if (typeof v !== 'string' || isBadText(v) || v.length > URL_MAX) throw apiError(1031, describe(v), 'callbackUrl');
  if (!/^https:\/\//i.test(v.trim())) throw apiError(1152);
  let u: URL;
  try {
    u = new URL(v.trim());
  } catch {
    throw apiError(1031, v, 'callbackUrl');
  }
  if (u.hostname === '' || u.username !== '' || u.password !== '' || !callbacks.portAllowed(u)) throw apiError(1031, v, 'callbackUrl');
  return u.toString();
}

function events(v: unknown): string {
  if (!Array.isArray(v) || v.length !== 1 || v[0] !== '*.*') throw apiError(1031, describe(v), 'events');
  return JSON.stringify(v);
}

function version(v: unknown): number {
  if (v !== 1) throw apiError(1031, describe(v), 'version');
  return 1;
}

/**
 * subscope: { columnIds: [...] } of columns of the sheet (ids as numbers or digit strings, as the
 * reference types them): an id that is not an id 400/1031, a column not in the sheet 404/1293.
 */
async function subscope(db: Queryable, sheetId: number, v: unknown): Promise<string | null> {
  if (v === undefined || v === null) return null;
  const o = asObject(v, 'a Subscope object');
  const extra = Object.keys(o).filter((k) => k !== 'columnIds');
  if (extra.length > 0) throw apiError(1032, extra.join(', '));
  if (o.columnIds === undefined || o.columnIds === null) return null;
  if (!Array.isArray(o.columnIds) || o.columnIds.length === 0) throw apiError(1031, describe(o.columnIds), 'subscope.columnIds');
  const known = new Set((await listColumns(db, sheetId)).map((c) => c.id));
  const ids: number[] = [];
  for (const c of o.columnIds as unknown[]) {
    const id = typeof c === 'string' && /^\d{1,16}$/.test(c.trim()) ? Number(c.trim()) : c;
    if (typeof id !== 'number' || !Number.isSafeInteger(id)) throw apiError(1031, describe(c), 'subscope.columnIds');
    // an id that is not a column of the sheet: the catalogue's code for a subscope (404/1293)
    if (!known.has(id)) throw apiError(1293);
    if (!ids.includes(id)) ids.push(id);
  }
  return JSON.stringify(ids);
}

function unknownAttrs(b: Obj, allowed: Set<string>): void {
  const extra = Object.keys(b).filter((k) => !allowed.has(k));
  if (extra.length > 0) throw apiError(1032, extra.join(', '));
}

export async function readWebhooks(db: Queryable, actor: Actor, p: PageRequest): Promise<{ total: number; rows: WebhookRow[] }> {
  const total = await countWebhooks(db, ownerOf(actor));
  const w = pageWindow(total, p);
  return { total, rows: await listWebhooks(db, ownerOf(actor), { offset: w.offset, limit: w.limit }) };
}

export async function readWebhook(db: Queryable, actor: Actor, id: number): Promise<WebhookRow> {
  return ownWebhook(db, actor, id);
}

/** Create Webhook: disabled, NEW_NOT_VERIFIED, with a new shared secret. The caller must see the sheet (1151). */
export async function createWebhook(s: WebhookServices, actor: Actor, body: unknown): Promise<WebhookRow> {
  const b = asObject(body, 'a Webhook object');
  unknownAttrs(b, CREATE_ATTRS);
  const name = webhookName(required(b, 'name'));
  const url = callbackUrl(required(b, 'callbackUrl'), s.callbacks);
  const ev = events(required(b, 'events'));
  const ver = version(required(b, 'version'));
  const scope = required(b, 'scope');
  if (scope !== 'sheet') throw apiError(1031, describe(scope), 'scope');
  const sheetId = bodyId(required(b, 'scopeObjectId'), 'scopeObjectId');
  return s.store.db.transaction().execute(async (tx) => {
    try {
      await sheetFor(tx, actor, sheetId, 'VIEWER');
    } catch {
      throw apiError(1151);
    }
    const sub = await subscope(tx, sheetId, b.subscope);
    const now = clock.now();
    const id = newId();
    await insertWebhook(tx, {
      id, org_id: actor.org.id, owner_id: actor.user.id, api_client_id: actor.apiClientId, api_client_name: null,
      name, callback_url: url, events: ev, version: ver, scope: 'sheet', scope_object_id: sheetId, subscope: sub,
      enabled: 0, status: 'NEW_NOT_VERIFIED', disabled_details: null, shared_secret: newSharedSecret(),
      created_at: now, modified_at: now, last_attempt_at: null, last_attempt_retry_count: null, last_success_at: null,
      cursor: 0, callbacks_since_verify: 0, pump_by: null, pump_until: null,
    });
    await recordEvents(tx, authorOf(actor), [{ objectType: 'WEBHOOK', action: 'CREATE', objectId: id, details: { name, scopeObjectId: sheetId } }], now);
    return (await findWebhook(tx, ownerOf(actor), id))!;
  });
}

/**
 * Update Webhook: name, callbackUrl, events, version, enabled. scope, scopeObjectId and subscope
 * are fixed at creation (the reference): sent unchanged they are accepted, changed they are 1032.
 * Enabling (or a new callbackUrl while enabled) runs the verification handshake and answers
 * after it, with the webhook ENABLED or DISABLED_VERIFICATION_FAILED. The change itself is
 * committed before the handshake (no transaction is held over the network), the outcome after it.
 */
export async function changeWebhook(s: WebhookServices, actor: Actor, id: number, body: unknown): Promise<WebhookRow> {
  const b = asObject(body, 'a Webhook object');
  const readOnly = Object.keys(b).filter((k) => READ_ONLY.includes(k) && k !== 'id' && k !== 'enabled');
  if (readOnly.length > 0) throw apiError(1032, readOnly.join(', '));
  unknownAttrs(b, UPDATE_ATTRS);
  if (b.enabled !== undefined) bodyBool(b.enabled, 'enabled');
  const verify = await s.store.db.transaction().execute(async (tx) => {
    const hook = await ownWebhook(tx, actor, id);
    if (b.id !== undefined && b.id !== hook.id) throw apiError(1029);
    if (b.scope !== undefined && b.scope !== hook.scope) throw apiError(1032, 'scope');
    if (b.scopeObjectId !== undefined && b.scopeObjectId !== hook.scope_object_id) throw apiError(1032, 'scopeObjectId');
    if (b.subscope !== undefined && (await subscope(tx, hook.scope_object_id, b.subscope)) !== hook.subscope) throw apiError(1032, 'subscope');
    const now = clock.now();
    const patch: Parameters<typeof updateWebhook>[2] = {};
    if (b.name !== undefined) patch.name = webhookName(b.name);
    if (b.callbackUrl !== undefined) patch.callback_url = callbackUrl(b.callbackUrl, s.callbacks);
    if (b.events !== undefined) patch.events = events(b.events);
    if (b.version !== undefined) patch.version = version(b.version);
    let verify = false;
    if (b.enabled === true && hook.status !== 'ENABLED') {
      if (hook.status === 'DISABLED_APP_REVOKED') throw apiError(1153);
      if (!ENABLEABLE.has(hook.status)) throw apiError(1154);
      try {
        await sheetFor(tx, actor, hook.scope_object_id, 'VIEWER');
      } catch {
        throw apiError(1151);
      }
      verify = true;
    } else if (b.enabled === false && hook.enabled === 1) {
      Object.assign(patch, { enabled: 0, status: 'DISABLED_BY_OWNER', disabled_details: null });
      await dropPending(tx, hook.id, now);
    } else if (b.enabled === false && hook.status === 'DISABLED_SCOPE_INACCESSIBLE') {
      // the owner turns it off: it no longer comes back by itself with the sheet
      Object.assign(patch, { status: 'DISABLED_BY_OWNER', disabled_details: null });
    }
    if (hook.enabled === 1 && b.enabled !== false && patch.callback_url !== undefined && patch.callback_url !== hook.callback_url) verify = true;
    if (Object.keys(patch).length > 0) {
      await updateWebhook(tx, hook.id, { ...patch, modified_at: now });
      const changed = Object.keys(b).filter((k) => k !== 'id');
      await recordEvents(tx, authorOf(actor), [{ objectType: 'WEBHOOK', action: 'UPDATE', objectId: hook.id, details: { changed } }], now);
    }
    return verify;
  });
  if (verify) await enableAfterVerification(s, actor, id);
  return ownWebhook(s.store.db, actor, id);
}

async function enableAfterVerification(s: WebhookServices, actor: Actor, id: number): Promise<void> {
  const hook = await ownWebhook(s.store.db, actor, id);
  const v = await verifyCallbackUrl(s.store.db, s.callbacks, hook);
  // events committed before the webhook is enabled are not delivered: position them first
  await sequenceEvents(s.store);
  await s.store.db.transaction().execute(async (tx) => {
    const now = clock.now();
    const current = await findWebhook(tx, ownerOf(actor), id);
    if (!current) return; // deleted meanwhile
    if (v.ok) {
      await updateWebhook(tx, id, { enabled: 1, status: 'ENABLED', disabled_details: null, cursor: await maxEventPos(tx), callbacks_since_verify: 0, modified_at: now });
    } else {
      await updateWebhook(tx, id, { enabled: 0, status: 'DISABLED_VERIFICATION_FAILED', disabled_details: v.detail, modified_at: now });
      await dropPending(tx, id, now);
    }
    await recordEvents(tx, authorOf(actor), [{ objectType: 'WEBHOOK', action: v.ok ? 'ENABLE' : 'VERIFICATION_FAILED', objectId: id, details: {} }], now);
  });
}

export async function removeWebhook(store: Store, actor: Actor, id: number): Promise<void> {
  await store.db.transaction().execute(async (tx) => {
    const hook = await ownWebhook(tx, actor, id);
    await deleteWebhook(tx, hook.id);
    await recordEvents(tx, authorOf(actor), [{ objectType: 'WEBHOOK', action: 'DELETE', objectId: hook.id, details: { name: hook.name } }], clock.now());
  });
}

/** Reset Shared Secret: callbacks from now on are signed with the new secret. */
export async function resetSharedSecret(store: Store, actor: Actor, id: number): Promise<string> {
  return store.db.transaction().execute(async (tx) => {
    const hook = await ownWebhook(tx, actor, id);
    const secret = newSharedSecret();
    const now = clock.now();
    await updateWebhook(tx, hook.id, { shared_secret: secret, modified_at: now });
    await recordEvents(tx, authorOf(actor), [{ objectType: 'WEBHOOK', action: 'RESET_SHARED_SECRET', objectId: hook.id, details: {} }], now);
    return secret;
  });
}

// ---- the delivery log (sheetd extension) --------------------------------------------------

export interface DeliveryWithAttempts {
  delivery: DeliveryRow;
  attempts: AttemptRow[];
}

export async function readDeliveries(db: Queryable, actor: Actor, id: number, p: PageRequest): Promise<{ total: number; rows: DeliveryWithAttempts[] }> {
  const hook = await ownWebhook(db, actor, id);
  const total = await countDeliveries(db, hook.id);
  const w = pageWindow(total, p);
  const rows = await listDeliveries(db, hook.id, { offset: w.offset, limit: w.limit });
  const attempts = await attemptsOf(db, rows.map((d) => d.id));
  return { total, rows: rows.map((d) => ({ delivery: d, attempts: attempts.filter((a) => a.delivery_id === d.id) })) };
}

/**
 * Replay: the events (or status) of an earlier callback sent again in a new callback, after
 * those pending. Only an enabled webhook sends callbacks (1031 on `enabled` otherwise); a
 * verification request is not replayed (1031 on `kind`).
 */
export async function replayDelivery(store: Store, actor: Actor, id: number, deliveryId: number): Promise<void> {
  await store.db.transaction().execute(async (tx) => {
    const hook = await ownWebhook(tx, actor, id);
    const d = await findDelivery(tx, hook.id, deliveryId);
    if (!d) throw apiError(1006);
    if (d.kind === 'VERIFICATION') throw apiError(1031, d.kind, 'kind');
    if (hook.status !== 'ENABLED') throw apiError(1031, 'false', 'enabled');
    const now = clock.now();
    await queueReplay(tx, hook, d, now);
    await recordEvents(tx, authorOf(actor), [{ objectType: 'WEBHOOK', action: 'REPLAY', objectId: hook.id, details: { deliveryId } }], now);
  });
}

// ---- operator and app revocation ----------------------------------------------------------

/**
 * The operator disables a webhook (`sheetd webhook disable`): DISABLED_ADMINISTRATIVE, which
 * its owner cannot enable (403/1154) until the operator restores it.
 */
export async function disableByOperator(db: Queryable, author: EventAuthor, orgId: number, id: number): Promise<boolean> {
  const hook = await webhookById(db, id);
  if (!hook || hook.org_id !== orgId) return false;
  const now = clock.now();
  await updateWebhook(db, id, { enabled: 0, status: 'DISABLED_ADMINISTRATIVE', disabled_details: 'disabled by the operator', modified_at: now });
  await dropPending(db, id, now);
  await recordEvents(db, author, [{ objectType: 'WEBHOOK', action: 'DISABLE', objectId: id, details: { status: 'DISABLED_ADMINISTRATIVE' } }], now);
  return true;
}

/** The operator gives a webhook back to its owner (`sheetd webhook restore`): DISABLED_BY_OWNER, which the owner may enable. */
export async function restoreByOperator(db: Queryable, author: EventAuthor, orgId: number, id: number): Promise<boolean> {
  const hook = await webhookById(db, id);
  if (!hook || hook.org_id !== orgId) return false;
  if (hook.status !== 'DISABLED_ADMINISTRATIVE') return true;
  const now = clock.now();
  await updateWebhook(db, id, { status: 'DISABLED_BY_OWNER', disabled_details: null, modified_at: now });
  await recordEvents(db, author, [{ objectType: 'WEBHOOK', action: 'UPDATE', objectId: id, details: { status: 'DISABLED_BY_OWNER' } }], now);
  return true;
}

/**
 * A third-party app lost its authorization (for the OAuth work to call in the transaction of the
 * revocation): its webhooks, for one user or all, become DISABLED_APP_REVOKED for good (1153).
 */
export async function revokeAppWebhooks(db: Queryable, author: EventAuthor, apiClientId: number, ownerId: number | null): Promise<number> {
  const hooks = await webhooksOfApp(db, apiClientId, ownerId);
  const now = clock.now();
  for (const h of hooks) {
    await updateWebhook(db, h.id, { enabled: 0, status: 'DISABLED_APP_REVOKED', disabled_details: 'the app\'s access was revoked', modified_at: now });
    await dropPending(db, h.id, now);
  }
  if (hooks.length > 0) await recordEvents(db, author, hooks.map((h) => ({ objectType: 'WEBHOOK', action: 'DISABLE', objectId: h.id, details: { status: 'DISABLED_APP_REVOKED' } })), now);
  return hooks.length;
}
