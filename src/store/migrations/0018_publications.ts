import type { Kysely } from 'kysely';
import { types, type Dialect } from './types.ts';

/**
 * Publishing (issue 17): one row per published view of a sheet or report (`kind`: readOnlyLite,
 * readOnlyFull, readWrite, ical), holding the unguessable token of its URL. Unpublishing a view
 * deletes its row, so its URL answers 404 at once; publishing it again makes a new token.
 * Settings of a view that is not published (who may see it, default view) live in
 * `publish_settings`, so they survive an unpublish and come back with the next publish.
 */
export async function up(db: Kysely<unknown>, d: Dialect): Promise<void> {
  const t = types(d);
  await db.schema
    .createTable('publications')
    .addColumn('token', 'text', (c) => c.primaryKey())
    .addColumn('org_id', t.id, (c) => c.notNull())
    /** sheet or report */
    .addColumn('object_type', 'text', (c) => c.notNull())
    .addColumn('object_id', t.id, (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('published_by', t.id, (c) => c.notNull())
    .addColumn('created_at', t.ms, (c) => c.notNull())
    .addUniqueConstraint('publications_object_kind', ['object_type', 'object_id', 'kind'])
    .execute();
  await db.schema
    .createTable('publish_settings')
    .addColumn('object_type', 'text', (c) => c.notNull())
    .addColumn('object_id', t.id, (c) => c.notNull())
    /** JSON: accessibleBy, default views, toolbars */
    .addColumn('settings', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('publish_settings_pk', ['object_type', 'object_id'])
    .execute();
}
