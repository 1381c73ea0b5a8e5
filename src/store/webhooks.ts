import type { Insertable, Selectable, Updateable } from 'kysely';
import { enqueue } from './jobs.ts';
import type { Queryable } from './db.ts';
import type { WebhookAttemptTable, WebhookDeliveryTable, WebhookTable } from './webhookSchema.ts';

export type WebhookRow = Selectable<WebhookTable>;
export type DeliveryRow = Selectable<WebhookDeliveryTable>;
export type AttemptRow = Selectable<WebhookAttemptTable>;

/** The job that runs a webhook's deliveries (services/outbound/webhookDelivery.ts); payload { webhookId }. */
export const WEBHOOK_PUMP_JOB = 'webhooks.pump';

/** Statuses whose webhook reads the change log: enabled ones, and those waiting for their sheet to come back. */
export const WEBHOOKS_WATCHING = ['ENABLED', 'DISABLED_SCOPE_INACCESSIBLE'];

/** Whose webhooks a caller sees: its own, or (an app's token) the ones that app made for it. */
export interface WebhookOwner {
  orgId: number;
  ownerId: number;
  apiClientId: number | null;
}

function owned(db: Queryable, o: WebhookOwner) {
  let q = db.selectFrom('webhooks').where('org_id', '=', o.orgId).where('owner_id', '=', o.ownerId);
  if (o.apiClientId !== null) q = q.where('api_client_id', '=', o.apiClientId);
  return q;
}

export async function findWebhook(db: Queryable, o: WebhookOwner, id: number): Promise<WebhookRow | undefined> {
  return owned(db, o).selectAll().where('id', '=', id).executeTakeFirst();
}

export async function webhookById(db: Queryable, id: number): Promise<WebhookRow | undefined> {
  return db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function webhooksOfApp(db: Queryable, apiClientId: number, ownerId: number | null): Promise<WebhookRow[]> {
  let q = db.selectFrom('webhooks').selectAll().where('api_client_id', '=', apiClientId);
  if (ownerId !== null) q = q.where('owner_id', '=', ownerId);
  return q.execute();
}

export async function countWebhooks(db: Queryable, o: WebhookOwner): Promise<number> {
  const r = await owned(db, o).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(r.n);
}

/** Ordered as spec 4.2 says: API client name, then webhook name, then creation date. */
export async function listWebhooks(db: Queryable, o: WebhookOwner, w: { offset: number; limit: number | null }): Promise<WebhookRow[]> {
  let q = owned(db, o).selectAll()
    .orderBy((eb) => eb.fn.coalesce('api_client_name', eb.val('')))
    .orderBy('name')
    .orderBy('created_at')
    .orderBy('id');
  if (w.limit !== null) q = q.limit(w.limit).offset(w.offset);
  return q.execute();
}

export async function insertWebhook(db: Queryable, row: Insertable<WebhookTable>): Promise<void> {
  await db.insertInto('webhooks').values(row).execute();
}

export async function updateWebhook(db: Queryable, id: number, patch: Updateable<WebhookTable>): Promise<void> {
  await db.updateTable('webhooks').set(patch).where('id', '=', id).execute();
}

export async function deleteWebhook(db: Queryable, id: number): Promise<void> {
  const deliveries = db.selectFrom('webhook_deliveries').select('id').where('webhook_id', '=', id);
  await db.deleteFrom('webhook_attempts').where('delivery_id', 'in', deliveries).execute();
  await db.deleteFrom('webhook_deliveries').where('webhook_id', '=', id).execute();
  await db.deleteFrom('webhooks').where('id', '=', id).execute();
}

/**
 * In the transaction of a change to these sheets, made at `at`: queues a delivery run for each
 * webhook that watches one of them. The run waits out the batch window after `at` before it
 * reads (services/outbound/webhookDelivery.ts), and reads the change log itself, so a run per
 * commit delivers every event once the commit is visible, whatever other runs do.
 */
export async function wakeWebhooks(db: Queryable, sheetIds: number[], at: number): Promise<void> {
  if (sheetIds.length === 0) return;
  const hooks = await db.selectFrom('webhooks').select('id').where('scope_object_id', 'in', sheetIds).where('status', 'in', WEBHOOKS_WATCHING).execute();
  for (const h of hooks) await enqueue(db, WEBHOOK_PUMP_JOB, { webhookId: h.id, changedAt: at }, { runAt: at, maxAttempts: 1000 });
}

/** Queues a delivery run at `runAt` (a retry, a replay, a run that found another one busy: `busy` times so far). */
export async function wakeWebhook(db: Queryable, webhookId: number, runAt: number, busy = 0): Promise<void> {
  await enqueue(db, WEBHOOK_PUMP_JOB, busy > 0 ? { webhookId, busy } : { webhookId }, { runAt, maxAttempts: 1000 });
}

// ---- the delivery run's lease -------------------------------------------------------------

/** Takes the webhook's delivery lease when nobody holds it (or the holder's ran out). */
export async function acquirePump(db: Queryable, id: number, by: string, until: number, now: number): Promise<boolean> {
  const r = await db.updateTable('webhooks')
    .set({ pump_by: by, pump_until: until })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('pump_until', 'is', null), eb('pump_until', '<', now), eb('pump_by', '=', by)]))
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function releasePump(db: Queryable, id: number, by: string): Promise<void> {
  await db.updateTable('webhooks').set({ pump_by: null, pump_until: null }).where('id', '=', id).where('pump_by', '=', by).execute();
}

// ---- deliveries and attempts --------------------------------------------------------------

export async function insertDelivery(db: Queryable, row: Omit<Insertable<WebhookDeliveryTable>, 'id_seq'>): Promise<void> {
  const r = await db.selectFrom('webhook_deliveries').select((eb) => eb.fn.max('id_seq').as('m')).where('webhook_id', '=', row.webhook_id).executeTakeFirst();
  await db.insertInto('webhook_deliveries').values({ ...row, id_seq: Number(r?.m ?? 0) + 1 }).execute();
}

/** The first delivery of the webhook still to be sent. */
export async function firstPending(db: Queryable, webhookId: number): Promise<DeliveryRow | undefined> {
  return db.selectFrom('webhook_deliveries').selectAll()
    .where('webhook_id', '=', webhookId).where('state', '=', 'PENDING')
    .orderBy('id_seq').orderBy('created_at').orderBy('id').limit(1).executeTakeFirst();
}

export async function updateDelivery(db: Queryable, id: number, patch: Updateable<WebhookDeliveryTable>): Promise<void> {
  await db.updateTable('webhook_deliveries').set(patch).where('id', '=', id).execute();
}

/** The webhook was disabled: what it had not sent yet is not sent. */
export async function dropPending(db: Queryable, webhookId: number, now: number): Promise<void> {
  await db.updateTable('webhook_deliveries').set({ state: 'DROPPED', finished_at: now })
    .where('webhook_id', '=', webhookId).where('state', '=', 'PENDING').execute();
}

export async function insertAttempt(db: Queryable, row: Insertable<WebhookAttemptTable>): Promise<void> {
  await db.insertInto('webhook_attempts').values(row).execute();
}

export async function findDelivery(db: Queryable, webhookId: number, id: number): Promise<DeliveryRow | undefined> {
  return db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', webhookId).where('id', '=', id).executeTakeFirst();
}

export async function countDeliveries(db: Queryable, webhookId: number): Promise<number> {
  const r = await db.selectFrom('webhook_deliveries').select((eb) => eb.fn.countAll<number>().as('n')).where('webhook_id', '=', webhookId).executeTakeFirstOrThrow();
  return Number(r.n);
}

/** Newest first. */
export async function listDeliveries(db: Queryable, webhookId: number, w: { offset: number; limit: number | null }): Promise<DeliveryRow[]> {
  let q = db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', webhookId)
    .orderBy('id_seq', 'desc').orderBy('created_at', 'desc').orderBy('id', 'desc');
  if (w.limit !== null) q = q.limit(w.limit).offset(w.offset);
  return q.execute();
}

export async function attemptsOf(db: Queryable, deliveryIds: number[]): Promise<AttemptRow[]> {
  if (deliveryIds.length === 0) return [];
  return db.selectFrom('webhook_attempts').selectAll().where('delivery_id', 'in', deliveryIds).orderBy('at').orderBy('id').execute();
}

/** A delivery with its attempts (test mode's view of every webhook's deliveries). */
export interface DeliveryLogRow {
  id: number;
  webhookId: number;
  kind: string;
  body: string;
  state: string;
  attempts: Array<{ at: number; statusCode: number | null; latencyMs: number; error: string | null }>;
  nextAttemptAt: number;
  createdAt: number;
  finishedAt: number | null;
}

export async function listAllDeliveries(db: Queryable, webhookId?: number): Promise<DeliveryLogRow[]> {
  let q = db.selectFrom('webhook_deliveries').selectAll().orderBy('created_at').orderBy('id_seq');
  if (webhookId !== undefined) q = q.where('webhook_id', '=', webhookId);
  const rows = await q.execute();
  const ids = rows.map((r) => r.id);
  const attempts = ids.length === 0 ? [] : await db.selectFrom('webhook_attempts').selectAll().where('delivery_id', 'in', ids).orderBy('at').orderBy('id').execute();
  return rows.map((r) => ({
    id: r.id,
    webhookId: r.webhook_id,
    kind: r.kind,
    body: r.body,
    state: r.state,
    attempts: attempts.filter((a) => a.delivery_id === r.id).map((a) => ({ at: a.at, statusCode: a.status_code, latencyMs: a.latency_ms, error: a.error })),
    nextAttemptAt: r.next_attempt_at,
    createdAt: r.created_at,
    finishedAt: r.finished_at,
  }));
}
