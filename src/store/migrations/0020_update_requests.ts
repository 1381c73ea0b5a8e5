import type { Kysely } from 'kysely';
import { types, type Dialect } from './types.ts';

/**
 * Update requests (services/collaboration/updateRequests.ts). `update_requests` is what the sender asked for
 * and when it is sent (schedule JSON, next_send_at); `sent_update_requests` is one message to
 * one recipient, whose signed link names it, with its status. A sent update request outlives
 * its update request (the sender's history of what was asked), so no cascade from there.
 */
export async function up(db: Kysely<unknown>, d: Dialect): Promise<void> {
  const t = types(d);
  await db.schema
    .createTable('update_requests')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('sheet_id', t.id, (c) => c.notNull().references('sheets.id').onDelete('cascade'))
    .addColumn('org_id', t.id, (c) => c.notNull())
    .addColumn('row_ids', 'text', (c) => c.notNull())
    .addColumn('column_ids', 'text', (c) => c.notNull())
    .addColumn('send_to', 'text', (c) => c.notNull())
    .addColumn('subject', 'text')
    .addColumn('message', 'text')
    .addColumn('cc_me', 'integer', (c) => c.notNull())
    .addColumn('include_attachments', 'integer', (c) => c.notNull())
    .addColumn('include_discussions', 'integer', (c) => c.notNull())
    .addColumn('layout', 'text')
    .addColumn('schedule', 'text')
    .addColumn('next_send_at', t.ms)
    .addColumn('last_sent_at', t.ms)
    .addColumn('created_at', t.ms, (c) => c.notNull())
    .addColumn('created_by', t.id, (c) => c.notNull())
    .addColumn('modified_at', t.ms, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('update_requests_sheet').on('update_requests').columns(['sheet_id', 'created_at']).execute();
  await db.schema
    .createTable('sent_update_requests')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('sheet_id', t.id, (c) => c.notNull().references('sheets.id').onDelete('cascade'))
    .addColumn('org_id', t.id, (c) => c.notNull())
    /** null for one sent by an automation rule */
    .addColumn('update_request_id', t.id)
    .addColumn('rule_id', t.id)
    .addColumn('row_ids', 'text', (c) => c.notNull())
    .addColumn('column_ids', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('include_attachments', 'integer', (c) => c.notNull())
    .addColumn('include_discussions', 'integer', (c) => c.notNull())
    .addColumn('sent_at', t.ms, (c) => c.notNull())
    .addColumn('sent_by', t.id, (c) => c.notNull())
    /** PENDING, COMPLETE or CANCELED */
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('completed_at', t.ms)
    .execute();
  // an update request's recipient without an account is the author of what they write
  await db.schema.alterTable('cell_history').addColumn('modified_by_email', 'text').execute();
  await db.schema.createIndex('sent_update_requests_sheet').on('sent_update_requests').columns(['sheet_id', 'sent_at']).execute();
}
