import { createHmac, randomUUID } from 'node:crypto';
import type { Selectable } from 'kysely';
import type pino from 'pino';
import { CallbackFailure, type CallbackSender } from '../../callbacks/index.ts';
import { clock } from '../../clock.ts';
import type { WebhookConfig } from '../../config.ts';
import { newId, randomString } from '../../ids.ts';
import type { JobHandler } from '../../jobs/worker.ts';
import type { Queryable, Store } from '../../store/db.ts';
import { sequenceEvents, sheetEventsAfter } from '../../store/events.ts';
import type { EventTable } from '../../store/schema.ts';
import { findSheet } from '../../store/sheets.ts';
import { findOrgById, findUserById } from '../../store/users.ts';
import {
  acquirePump, dropPending, firstPending, insertAttempt, insertDelivery, releasePump, updateDelivery,
  updateWebhook, wakeWebhook, webhookById, type DeliveryRow, type WebhookRow,
} from '../../store/webhooks.ts';
import { sheetAccessLevel } from '../access/permissions.ts';

/**
 * Webhook delivery: the verification handshake, callbacks built from the change log, and the
 * delivery run (the job WEBHOOK_PUMP_JOB) that sends a webhook's callbacks one at a time, in
 * order, at least once.
 *
 * A run holds the webhook's lease (webhooks.pump_by/pump_until), so one run per webhook sends at
 * a time across processes. It reads the sheet's events after the webhook's cursor and turns
 * them into one callback (a webhook_deliveries row written with the new cursor in one
 * transaction), then sends the first pending delivery; a failure is retried after the
 * configured schedule and, once it is spent (or the answer is not one to retry), the webhook is
 * DISABLED_CALLBACK_FAILED. A process killed while sending leaves the delivery pending: the next
 * run, once the lease has run out, sends it again.
 */

export const CALLBACKS_PER_VERIFICATION = 100;
const EVENTS_PER_CALLBACK = 1000;
/** Deliveries one run sends before it hands over to a new run (other webhooks get the worker too). */
const DELIVERIES_PER_RUN = 50;

/** The lease a run holds (and renews before each callback): a callback and its bookkeeping fit in it. */
export function pumpLeaseMs(cfg: WebhookConfig): number {
  return cfg.timeoutMs * 2 + 2000;
}

export function sign(secret: string, body: string): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

export function newSharedSecret(): string {
  return randomString(26);
}

function iso(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

// ---- callbacks from change events ---------------------------------------------------------

type EventRow = Selectable<EventTable>;

export interface CallbackEvent {
  objectType: string;
  eventType: 'created' | 'updated' | 'deleted';
  id?: number;
  rowId?: number;
  /** The reference's spelling; rowId is the public service's (both sent: receivers ignore what they do not know). */
  rowid?: number;
  columnId?: number;
  userId?: number;
  userid?: number;
  /** The Smartsheet-Change-Agent of the request that made the change, when it sent one. */
  changeAgent?: string;
  timestamp: string;
}

const OBJECT_TYPES: Record<string, string> = { ROW: 'row', COLUMN: 'column', ATTACHMENT: 'attachment', DISCUSSION: 'discussion', COMMENT: 'comment' };
/** Sheet actions that change what the sheet holds (sharing, moving and loading do not). */
const SHEET_DATA_ACTIONS = new Set(['UPDATE', 'RENAME', 'SORT']);

function eventTypeOf(action: string): CallbackEvent['eventType'] {
  return action === 'CREATE' ? 'created' : action === 'DELETE' ? 'deleted' : 'updated';
}

function detailsOf(e: EventRow): Record<string, unknown> {
  try {
    return JSON.parse(e.additional_details) as Record<string, unknown>;
  } catch {
    return {};
  }
}

/**
 * The CallbackEvents of one change event, as the reference's CallbackEvent object: a row write
 * is the row's event plus one cell event per column it wrote. With a subscope only events
 * touching its columns pass, and a row's deletion always does.
 */
export function callbackEvents(e: EventRow, columnIds: Set<number> | null): CallbackEvent[] {
  const base = {
    ...(e.user_id !== null ? { userId: e.user_id, userid: e.user_id } : {}),
    ...(e.change_agent !== null ? { changeAgent: e.change_agent } : {}),
    timestamp: iso(e.event_ts),
  };
  const eventType = eventTypeOf(e.action);
  const out: CallbackEvent[] = [];
  if (e.object_type === 'SHEET') {
    if (SHEET_DATA_ACTIONS.has(e.action) && columnIds === null) out.push({ objectType: 'sheet', eventType: 'updated', id: e.object_id, ...base });
    return out;
  }
  const objectType = OBJECT_TYPES[e.object_type];
  if (objectType === undefined) return out;
  if (objectType === 'row') {
    const cols = Array.isArray(detailsOf(e).columnIds) ? (detailsOf(e).columnIds as unknown[]).filter((c): c is number => typeof c === 'number') : [];
    const cells = columnIds === null ? cols : cols.filter((c) => columnIds.has(c));
    if (eventType === 'deleted' || columnIds === null || cells.length > 0) out.push({ objectType: 'row', eventType, id: e.object_id, ...base });
    if (eventType !== 'deleted') for (const c of cells) out.push({ objectType: 'cell', eventType: eventType === 'created' ? 'created' : 'updated', rowId: e.object_id, rowid: e.object_id, columnId: c, ...base });
    return out;
  }
  if (objectType === 'column') {
    if (columnIds === null || columnIds.has(e.object_id)) out.push({ objectType, eventType, id: e.object_id, ...base });
    return out;
  }
  if (columnIds === null) out.push({ objectType, eventType, id: e.object_id, ...base });
  return out;
}

export function subscopeColumns(hook: WebhookRow): Set<number> | null {
  if (hook.subscope === null) return null;
  return new Set(JSON.parse(hook.subscope) as number[]);
}

function callbackBody(hook: WebhookRow, now: number, extra: { events: CallbackEvent[] } | { newWebhookStatus: string }): string {
  return JSON.stringify({ nonce: randomUUID(), timestamp: iso(now), webhookId: hook.id, scope: hook.scope, scopeObjectId: hook.scope_object_id, ...extra });
}

/** A status change callback, queued (in the transaction of the change) before any later callback. */
export async function queueStatusCallback(db: Queryable, hook: WebhookRow, status: string, now: number): Promise<void> {
  await insertDelivery(db, { id: newId(), webhook_id: hook.id, kind: 'STATUS', body: callbackBody(hook, now, { newWebhookStatus: status }), state: 'PENDING', attempts: 0, next_attempt_at: now, replay_of: null, created_at: now, finished_at: null });
  await wakeWebhook(db, hook.id, now);
}

/** A delivery sent again: the same events (or status) in a new callback, with its own nonce and time, after those pending. */
export async function queueReplay(db: Queryable, hook: WebhookRow, d: DeliveryRow, now: number): Promise<void> {
  const old = JSON.parse(d.body) as { events?: CallbackEvent[]; newWebhookStatus?: string };
  const extra = old.newWebhookStatus !== undefined ? { newWebhookStatus: old.newWebhookStatus } : { events: old.events ?? [] };
  await insertDelivery(db, { id: newId(), webhook_id: hook.id, kind: d.kind, body: callbackBody(hook, now, extra), state: 'PENDING', attempts: 0, next_attempt_at: now, replay_of: d.id, created_at: now, finished_at: null });
  await wakeWebhook(db, hook.id, now);
}

// ---- verification -------------------------------------------------------------------------

export interface Verification {
  ok: boolean;
  /** Why it failed (disabledDetails). */
  detail: string | null;
}

/**
 * The verification request of the reference: a random challenge in the Smartsheet-Hook-Challenge
 * header and, with the webhookId, in the body; the subscriber answers 200 echoing it in the
 * Smartsheet-Hook-Response header or a smartsheetHookResponse attribute. Recorded in the
 * delivery log with its attempt.
 */
export async function verifyCallbackUrl(db: Queryable, sender: CallbackSender, hook: WebhookRow): Promise<Verification> {
  const challenge = randomUUID();
  const body = JSON.stringify({ challenge, webhookId: hook.id });
  const started = clock.now();
  let v: Verification;
  let statusCode: number | null = null;
  let latency = 0;
  try {
    const res = await sender.post(hook.callback_url, body, { 'Smartsheet-Hook-Challenge': challenge });
    statusCode = res.statusCode;
    latency = res.latencyMs;
    let echoed = res.headers['smartsheet-hook-response'];
    if (Array.isArray(echoed)) echoed = echoed[0];
    if (echoed !== challenge) {
      try {
        echoed = (JSON.parse(res.body) as { smartsheetHookResponse?: string }).smartsheetHookResponse;
      } catch {
        // not JSON: only the header could have answered
      }
    }
    if (res.statusCode !== 200) v = { ok: false, detail: `verification request answered HTTP ${res.statusCode}` };
    else if (echoed !== challenge) v = { ok: false, detail: 'verification response did not echo the challenge' };
    else v = { ok: true, detail: null };
  } catch (e) {
    latency = e instanceof CallbackFailure ? e.latencyMs : 0;
    v = { ok: false, detail: `verification request failed: ${(e as Error).message}` };
  }
  const id = newId();
  const now = clock.now();
  await insertDelivery(db, { id, webhook_id: hook.id, kind: 'VERIFICATION', body, state: v.ok ? 'DELIVERED' : 'FAILED', attempts: 1, next_attempt_at: started, replay_of: null, created_at: started, finished_at: now });
  await insertAttempt(db, { id: newId(), delivery_id: id, at: started, status_code: statusCode, latency_ms: latency, error: v.ok ? null : v.detail });
  return v;
}

// ---- the delivery run ---------------------------------------------------------------------

/** Whether the webhook's owner can still read its sheet. */
async function scopeAccessible(db: Queryable, hook: WebhookRow): Promise<boolean> {
  const sheet = await findSheet(db, hook.scope_object_id);
  if (!sheet) return false;
  const user = await findUserById(db, hook.owner_id);
  const org = await findOrgById(db, hook.org_id);
  if (!user || !org || user.status !== 'ACTIVE') return false;
  const actor = { user, requestUser: user, org, tokenId: 0, tokenName: '', scopes: 'ALL' as const, apiClientId: hook.api_client_id };
  return (await sheetAccessLevel(db, actor, sheet)) !== null;
}

/**
 * Reads the webhook's sheet past its cursor: an enabled webhook turns the events into one
 * callback; one whose owner lost the sheet becomes DISABLED_SCOPE_INACCESSIBLE, and one waiting
 * for its sheet is ENABLED again once it is back (each with a status change callback). Events
 * while it is not enabled are passed over. Returns whether more events wait.
 */
async function readChanges(store: Store, id: number): Promise<boolean> {
  return store.db.transaction().execute(async (tx) => {
    const hook = await webhookById(tx, id);
    if (!hook || (hook.status !== 'ENABLED' && hook.status !== 'DISABLED_SCOPE_INACCESSIBLE')) return false;
    const events = await sheetEventsAfter(tx, hook.scope_object_id, hook.cursor, EVENTS_PER_CALLBACK);
    const now = clock.now();
    const cursor = events.length > 0 ? Number(events[events.length - 1]!.pos) : hook.cursor;
    const accessible = await scopeAccessible(tx, hook);
    if (hook.status === 'ENABLED' && !accessible) {
      await updateWebhook(tx, id, { status: 'DISABLED_SCOPE_INACCESSIBLE', enabled: 0, disabled_details: 'the owner cannot access the sheet', cursor, modified_at: now });
      await dropPending(tx, id, now);
      await queueStatusCallback(tx, hook, 'DISABLED_SCOPE_INACCESSIBLE', now);
      return false;
    }
    if (hook.status === 'DISABLED_SCOPE_INACCESSIBLE') {
      if (accessible) {
        await updateWebhook(tx, id, { status: 'ENABLED', enabled: 1, disabled_details: null, cursor, modified_at: now });
        await queueStatusCallback(tx, hook, 'ENABLED', now);
      } else if (cursor !== hook.cursor) {
        await updateWebhook(tx, id, { cursor });
      }
      return false;
    }
    if (events.length === 0) return false;
    const cols = subscopeColumns(hook);
    const out = events.flatMap((e) => callbackEvents(e, cols));
    if (out.length > 0) {
      await insertDelivery(tx, { id: newId(), webhook_id: id, kind: 'EVENTS', body: callbackBody(hook, now, { events: out }), state: 'PENDING', attempts: 0, next_attempt_at: now, replay_of: null, created_at: now, finished_at: null });
    }
    await updateWebhook(tx, id, { cursor });
    return events.length === EVENTS_PER_CALLBACK;
  });
}

/** The reference's retry table: 4xx but 410, 5xx and timeouts are retried; only 200 succeeds. */
function retriable(statusCode: number | null): boolean {
  if (statusCode === null) return true;
  return (statusCode >= 400 && statusCode <= 499 && statusCode !== 410) || (statusCode >= 500 && statusCode <= 599);
}

type Outcome = 'sent' | 'later' | 'stop';

/** Sends one pending delivery and records the attempt and its consequences. */
async function send(store: Store, sender: CallbackSender, cfg: WebhookConfig, hook: WebhookRow, d: DeliveryRow): Promise<Outcome> {
  const started = clock.now();
  let statusCode: number | null = null;
  let latency = 0;
  let error: string | null = null;
  try {
    const res = await sender.post(hook.callback_url, d.body, { 'Smartsheet-Hmac-SHA256': sign(hook.shared_secret, d.body) });
    statusCode = res.statusCode;
    latency = res.latencyMs;
    if (statusCode !== 200) error = `HTTP ${statusCode}`;
  } catch (e) {
    latency = e instanceof CallbackFailure ? e.latencyMs : 0;
    error = (e as Error).message;
  }
  const attempts = d.attempts + 1;
  const now = clock.now();
  return store.db.transaction().execute(async (tx) => {
    await insertAttempt(tx, { id: newId(), delivery_id: d.id, at: started, status_code: statusCode, latency_ms: latency, error });
    const stats = { last_attempt_at: started, last_attempt_retry_count: attempts - 1 };
    if (error === null) {
      await updateDelivery(tx, d.id, { state: 'DELIVERED', attempts, finished_at: now });
      const since = d.kind === 'EVENTS' ? { callbacks_since_verify: hook.callbacks_since_verify + 1 } : {};
      await updateWebhook(tx, hook.id, { ...stats, last_success_at: now, ...since });
      return 'sent';
    }
    if (retriable(statusCode) && attempts <= cfg.retryMs.length) {
      const at = now + cfg.retryMs[attempts - 1]!;
      await updateDelivery(tx, d.id, { attempts, next_attempt_at: at });
      await updateWebhook(tx, hook.id, stats);
      await wakeWebhook(tx, hook.id, at);
      return 'later';
    }
    await updateDelivery(tx, d.id, { state: 'FAILED', attempts, finished_at: now });
    await updateWebhook(tx, hook.id, stats);
    if (d.kind === 'EVENTS' && hook.status === 'ENABLED') {
      await updateWebhook(tx, hook.id, { status: 'DISABLED_CALLBACK_FAILED', enabled: 0, disabled_details: `callback failed: ${error}`, modified_at: now });
      await dropPending(tx, hook.id, now);
      return 'stop';
    }
    return 'sent';
  });
}

/** The handler of WEBHOOK_PUMP_JOB. */
export function webhookPumpHandler(store: Store, sender: CallbackSender, cfg: WebhookConfig, workerId: string, logger?: pino.Logger): JobHandler {
  const leaseMs = pumpLeaseMs(cfg);
  return async (payload) => {
    const { webhookId: id, changedAt } = payload as { webhookId: number; changedAt?: number };
    if (changedAt !== undefined && clock.now() < changedAt + cfg.batchMs) {
      // the run of a change waits out the batch window (SHEETD_WEBHOOK_BATCH_MS): the events
      // committed within it go out in one callback
      await wakeWebhook(store.db, id, changedAt + cfg.batchMs);
      return;
    }
    // each run holds the lease in its own name: runs of one process must exclude each other too
    const runId = `${workerId}:${randomString(8)}`;
    const hook0 = await webhookById(store.db, id);
    if (!hook0 || (hook0.status !== 'ENABLED' && hook0.status !== 'DISABLED_SCOPE_INACCESSIBLE')) return;
    if (!(await acquirePump(store.db, id, runId, clock.now() + leaseMs, clock.now()))) {
      // another run sends for this webhook; it may have read the log before this run's commit,
      // so this run comes back after it (backing off, with jitter, up to the lease)
      const busy = (payload as { busy?: number }).busy ?? 0;
      const wait = Math.min(leaseMs, 100 * 2 ** Math.min(busy, 10)) * (0.5 + Math.random() / 2);
      await wakeWebhook(store.db, id, clock.now() + Math.round(wait), busy + 1);
      return;
    }
    try {
      await sequenceEvents(store);
      for (let n = 0; n < DELIVERIES_PER_RUN; n++) {
        if (!(await acquirePump(store.db, id, runId, clock.now() + leaseMs, clock.now()))) return;
        const more = await readChanges(store, id);
        const hook = await webhookById(store.db, id);
        if (!hook) return;
        const d = await firstPending(store.db, id);
        if (!d) {
          if (more) continue;
          return;
        }
        if (d.next_attempt_at > clock.now()) return; // its retry is queued
        if (d.kind === 'EVENTS' && hook.status !== 'ENABLED') return;
        if (d.kind === 'EVENTS' && hook.callbacks_since_verify >= CALLBACKS_PER_VERIFICATION) {
          // the reference's ongoing verification, once every 100 callbacks
          const v = await verifyCallbackUrl(store.db, sender, hook);
          const now = clock.now();
          if (!v.ok) {
            await store.db.transaction().execute(async (tx) => {
              await updateWebhook(tx, id, { status: 'DISABLED_VERIFICATION_FAILED', enabled: 0, disabled_details: v.detail, modified_at: now });
              await dropPending(tx, id, now);
            });
            return;
          }
          await updateWebhook(store.db, id, { callbacks_since_verify: 0 });
          continue;
        }
        const outcome = await send(store, sender, cfg, hook, d);
        if (outcome !== 'sent') return;
      }
      // more to send: a new run continues
      await wakeWebhook(store.db, id, clock.now());
    } catch (e) {
      logger?.warn({ err: e, webhookId: id }, 'webhook delivery run failed; it is tried again');
      throw e;
    } finally {
      await releasePump(store.db, id, runId).catch(() => {});
    }
  };
}
