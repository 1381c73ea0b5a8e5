import type { Kysely } from 'kysely';
import { types, type Dialect } from './types.ts';

/**
 * Webhooks and their delivery log. A webhook watches one sheet (scope, scope_object_id) and
 * reads the change log after `cursor` (an events.pos); each callback it sends or will send is a
 * row of webhook_deliveries (in order of id_seq per webhook), and each try of one a row of
 * webhook_attempts. pump_by / pump_until is the lease of the one delivery run a webhook has at a
 * time (services/outbound/webhookDelivery.ts), so callbacks of one webhook never overtake each other.
 * events.change_agent keeps the request's Smartsheet-Change-Agent for the callbacks' changeAgent.
 */
export async function up(db: Kysely<unknown>, d: Dialect): Promise<void> {
  const t = types(d);
  await db.schema
    .createTable('webhooks')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('org_id', t.id, (c) => c.notNull())
    .addColumn('owner_id', t.id, (c) => c.notNull())
    .addColumn('api_client_id', t.id)
    .addColumn('api_client_name', 'text')
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('callback_url', 'text', (c) => c.notNull())
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('scope_object_id', t.id, (c) => c.notNull())
    /** JSON array of column ids, or null */
    .addColumn('subscope', 'text')
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('disabled_details', 'text')
    .addColumn('shared_secret', 'text', (c) => c.notNull())
    .addColumn('created_at', t.ms, (c) => c.notNull())
    .addColumn('modified_at', t.ms, (c) => c.notNull())
    .addColumn('last_attempt_at', t.ms)
    .addColumn('last_attempt_retry_count', 'integer')
    .addColumn('last_success_at', t.ms)
    /** events.pos read so far */
    .addColumn('cursor', t.id, (c) => c.notNull())
    /** event callbacks sent since the last verification (one every 100) */
    .addColumn('callbacks_since_verify', 'integer', (c) => c.notNull())
    .addColumn('pump_by', 'text')
    .addColumn('pump_until', t.ms)
    .execute();
  await db.schema.createIndex('webhooks_owner').on('webhooks').columns(['org_id', 'owner_id']).execute();
  await db.schema.createIndex('webhooks_scope').on('webhooks').columns(['scope_object_id']).execute();
  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', t.id, (c) => c.primaryKey())
    /** order of the webhook's deliveries */
    .addColumn('id_seq', t.id, (c) => c.notNull())
    .addColumn('webhook_id', t.id, (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
    /** EVENTS, STATUS (a status change callback) or VERIFICATION */
    .addColumn('kind', 'text', (c) => c.notNull())
    /** the exact JSON body sent (its nonce and timestamp are fixed when it is made) */
    .addColumn('body', 'text', (c) => c.notNull())
    /** PENDING, DELIVERED, FAILED (given up) or DROPPED (the webhook was disabled first) */
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', t.ms, (c) => c.notNull())
    .addColumn('replay_of', t.id)
    .addColumn('created_at', t.ms, (c) => c.notNull())
    .addColumn('finished_at', t.ms)
    .execute();
  await db.schema.createIndex('webhook_deliveries_order').on('webhook_deliveries').columns(['webhook_id', 'id_seq']).execute();
  await db.schema
    .createTable('webhook_attempts')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('delivery_id', t.id, (c) => c.notNull().references('webhook_deliveries.id').onDelete('cascade'))
    .addColumn('at', t.ms, (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('latency_ms', 'integer', (c) => c.notNull())
    .addColumn('error', 'text')
    .execute();
  await db.schema.createIndex('webhook_attempts_delivery').on('webhook_attempts').columns(['delivery_id', 'at']).execute();
  // the Smartsheet-Change-Agent header of the request that made the change (callbacks carry it)
  await db.schema.alterTable('events').addColumn('change_agent', 'text').execute();
  // the delivery run reads a sheet's events by position
  await db.schema.createIndex('events_sheet_pos').on('events').columns(['sheet_id', 'pos']).execute();
}
