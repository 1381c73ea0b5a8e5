import type { Kysely } from 'kysely';
import { types, type Dialect } from './types.ts';

/**
 * Dashboards (sights, issue 17): a dashboard lives like a report (its owner's home, a folder, or
 * the top of a workspace) and holds its widgets as JSON; what the widgets show (cell values,
 * report rows, links) is read live at every Get Dashboard. Shares of dashboards are rows of
 * `shares` with object_type 'sight', favorites rows of `favorites` with type 'sight'. A published
 * dashboard has a random token (its public page /published/sights/{token}); unpublishing clears it.
 * Images of IMAGE widgets are rows of `sight_images` (their bytes on the blob store under
 * blob_key, shared by copies: a blob is kept while any row names it, store/blobs.ts).
 */
export async function up(db: Kysely<unknown>, d: Dialect): Promise<void> {
  const t = types(d);
  await db.schema
    .createTable('sights')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('org_id', t.id, (c) => c.notNull())
    .addColumn('owner_id', t.id, (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('folder_id', t.id)
    .addColumn('workspace_id', t.id)
    .addColumn('widgets', 'text', (c) => c.notNull())
    .addColumn('background_color', 'text')
    .addColumn('default_widget_background_color', 'text')
    .addColumn('column_count', 'integer', (c) => c.notNull())
    .addColumn('source_id', t.id)
    .addColumn('publish_token', 'text')
    .addColumn('publish_accessible_by', 'text')
    .addColumn('created_at', t.ms, (c) => c.notNull())
    .addColumn('modified_at', t.ms, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sights_owner').on('sights').columns(['owner_id', 'folder_id']).execute();
  await db.schema.createIndex('sights_folder').on('sights').column('folder_id').execute();
  await db.schema.createIndex('sights_workspace').on('sights').column('workspace_id').execute();
  await db.schema.createIndex('sights_publish_token').on('sights').column('publish_token').unique().execute();
  await db.schema
    .createTable('sight_images')
    .addColumn('sight_id', t.id, (c) => c.notNull())
    /** the widget's privateId */
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('blob_key', 'text', (c) => c.notNull())
    .addColumn('size', t.ms, (c) => c.notNull())
    .addColumn('mime_type', 'text', (c) => c.notNull())
    .addColumn('width', 'integer', (c) => c.notNull())
    .addColumn('height', 'integer', (c) => c.notNull())
    .addColumn('file_name', 'text')
    .addColumn('created_at', t.ms, (c) => c.notNull())
    .addColumn('created_by', t.id, (c) => c.notNull())
    .addPrimaryKeyConstraint('sight_images_pk', ['sight_id', 'id'])
    .execute();
  await db.schema.createIndex('sight_images_blob').on('sight_images').column('blob_key').execute();
}
