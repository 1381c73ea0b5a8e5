import type { Kysely } from 'kysely';
import { types, type Dialect } from './types.ts';

/**
 * Proofs (services/collaboration/proofs.ts). A proof hangs off a row; each version is a `proofs` row sharing
 * the `original_id` of the first one, `current` marking the newest. A version's files are
 * attachments with parent_type PROOF (the attachments table of 0011), so blobs, temporary URLs
 * and deletion work as they do for any attachment. A deleted proof stays as a tombstone
 * (`deleted_at`) so that its id answers 1294 instead of looking like it never existed.
 * `proof_requests` are the review requests sent for a proof, `proof_request_actions` one line
 * per reviewer of a request. `proof_settings` holds a sheet's proofing switches.
 */
export async function up(db: Kysely<unknown>, d: Dialect): Promise<void> {
  const t = types(d);
  await db.schema
    .createTable('proofs')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('sheet_id', t.id, (c) => c.notNull().references('sheets.id').onDelete('cascade'))
    .addColumn('row_id', t.id, (c) => c.notNull())
    .addColumn('original_id', t.id, (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('current', 'integer', (c) => c.notNull())
    .addColumn('is_completed', 'integer', (c) => c.notNull())
    .addColumn('created_at', t.ms, (c) => c.notNull())
    .addColumn('created_by', t.id)
    .addColumn('modified_at', t.ms, (c) => c.notNull())
    .addColumn('modified_by', t.id)
    .addColumn('deleted_at', t.ms)
    .execute();
  await db.schema.createIndex('proofs_sheet_row').on('proofs').columns(['sheet_id', 'row_id']).execute();
  await db.schema.createIndex('proofs_original').on('proofs').columns(['original_id']).execute();
  await db.schema
    .createTable('proof_requests')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('sheet_id', t.id, (c) => c.notNull().references('sheets.id').onDelete('cascade'))
    .addColumn('proof_id', t.id, (c) => c.notNull())
    .addColumn('sent_by', t.id)
    .addColumn('sent_at', t.ms, (c) => c.notNull())
    .addColumn('subject', 'text')
    .addColumn('message', 'text')
    .addColumn('cc_me', 'integer', (c) => c.notNull())
    .addColumn('is_downloadable', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('proof_requests_proof').on('proof_requests').columns(['proof_id']).execute();
  await db.schema
    .createTable('proof_request_actions')
    .addColumn('request_id', t.id, (c) => c.notNull().references('proof_requests.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('action_status', 'text', (c) => c.notNull())
    .addColumn('acted_at', t.ms)
    .addPrimaryKeyConstraint('proof_request_actions_pk', ['request_id', 'email'])
    .execute();
  // a sheet's proofing switches (a sheetd extension); no row: proofing on, several images on
  await db.schema
    .createTable('proof_settings')
    .addColumn('sheet_id', t.id, (c) => c.primaryKey().references('sheets.id').onDelete('cascade'))
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('multi_image', 'integer', (c) => c.notNull())
    .execute();
}
