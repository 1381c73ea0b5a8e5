import type { Kysely } from 'kysely';
import { types, type Dialect } from './types.ts';

/**
 * Attachments, discussions and comments. An attachment hangs off the sheet, a row or a comment
 * (parent_type, parent_id); each version of a file is its own attachment, and the versions of
 * one file share `lineage_id` (the id of the first), the newest being `current`. Everything
 * cascades with its sheet; rows and comments are removed explicitly by the services (so their
 * blobs can be queued for deletion). `orgs.url_secret` signs the temporary attachment URLs so
 * that every process accepts the URLs of any other; users get a profile image on the blob store.
 */
export async function up(db: Kysely<unknown>, d: Dialect): Promise<void> {
  const t = types(d);
  await db.schema
    .createTable('discussions')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('sheet_id', t.id, (c) => c.notNull().references('sheets.id').onDelete('cascade'))
    /** SHEET or ROW */
    .addColumn('parent_type', 'text', (c) => c.notNull())
    .addColumn('parent_id', t.id, (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('created_at', t.ms, (c) => c.notNull())
    .addColumn('created_by', t.id)
    .execute();
  await db.schema.createIndex('discussions_parent').on('discussions').columns(['sheet_id', 'parent_type', 'parent_id']).execute();
  await db.schema
    .createTable('comments')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('sheet_id', t.id, (c) => c.notNull().references('sheets.id').onDelete('cascade'))
    .addColumn('discussion_id', t.id, (c) => c.notNull().references('discussions.id').onDelete('cascade'))
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('created_at', t.ms, (c) => c.notNull())
    .addColumn('created_by', t.id)
    .addColumn('modified_at', t.ms, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('comments_discussion').on('comments').columns(['discussion_id', 'created_at']).execute();
  await db.schema
    .createTable('attachments')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('sheet_id', t.id, (c) => c.notNull().references('sheets.id').onDelete('cascade'))
    /** SHEET, ROW or COMMENT */
    .addColumn('parent_type', 'text', (c) => c.notNull())
    .addColumn('parent_id', t.id, (c) => c.notNull())
    /** the discussion of a comment attachment (for the discussion's attachment list) */
    .addColumn('discussion_id', t.id)
    .addColumn('lineage_id', t.id, (c) => c.notNull())
    .addColumn('current', 'integer', (c) => c.notNull())
    .addColumn('attachment_type', 'text', (c) => c.notNull())
    .addColumn('attachment_sub_type', 'text')
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    /** LINK and cloud-storage attachments */
    .addColumn('url', 'text')
    /** FILE attachments */
    .addColumn('blob_key', 'text')
    .addColumn('size', t.ms)
    .addColumn('mime_type', 'text')
    .addColumn('created_at', t.ms, (c) => c.notNull())
    .addColumn('created_by', t.id)
    .execute();
  await db.schema.createIndex('attachments_parent').on('attachments').columns(['sheet_id', 'parent_type', 'parent_id']).execute();
  await db.schema.createIndex('attachments_lineage').on('attachments').column('lineage_id').execute();
  await db.schema.createIndex('attachments_discussion').on('attachments').column('discussion_id').execute();
  await db.schema.createIndex('attachments_blob_key').on('attachments').column('blob_key').execute();
  await db.schema
    .createTable('server_secrets')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('profile_images')
    .addColumn('user_id', t.id, (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('image_id', 'text', (c) => c.notNull())
    .addColumn('blob_key', 'text', (c) => c.notNull())
    .addColumn('width', 'integer', (c) => c.notNull())
    .addColumn('height', 'integer', (c) => c.notNull())
    .addColumn('mime_type', 'text', (c) => c.notNull())
    .addColumn('created_at', t.ms, (c) => c.notNull())
    .execute();
}
