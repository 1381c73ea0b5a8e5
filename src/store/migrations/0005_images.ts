import type { Kysely } from 'kysely';
import { types, type Dialect } from './types.ts';

/**
 * Cell images and their temporary URLs. An image belongs to a sheet: a copy of the sheet gets
 * its own rows with the same image ids (cells keep their image ids), and deleting a sheet
 * deletes its images and URLs.
 */
export async function up(db: Kysely<unknown>, d: Dialect): Promise<void> {
  const t = types(d);
  await db.schema
    .createTable('images')
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('sheet_id', t.id, (c) => c.notNull().references('sheets.id').onDelete('cascade'))
    .addColumn('bytes', t.blob, (c) => c.notNull())
    /** Detected from the bytes, never taken from the client's Content-Type. */
    .addColumn('mime_type', 'text', (c) => c.notNull())
    .addColumn('width', 'integer', (c) => c.notNull())
    .addColumn('height', 'integer', (c) => c.notNull())
    .addColumn('file_name', 'text')
    .addColumn('created_at', t.ms, (c) => c.notNull())
    .addColumn('created_by', t.id)
    .addPrimaryKeyConstraint('images_pk', ['sheet_id', 'id'])
    .execute();
  await db.schema.createIndex('images_id').on('images').column('id').execute();

  await db.schema
    .createTable('image_urls')
    .addColumn('token', 'text', (c) => c.primaryKey())
    .addColumn('sheet_id', t.id, (c) => c.notNull().references('sheets.id').onDelete('cascade'))
    .addColumn('image_id', 'text', (c) => c.notNull())
    .addColumn('expires_at', t.ms, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('image_urls_expiry').on('image_urls').column('expires_at').execute();
}
