import type { Kysely } from 'kysely';
import { types, type Dialect } from './types.ts';

/**
 * Views of a sheet: filters (personal or shared, and which one each user has applied) and
 * conditional-format rules (one ordered list per sheet).
 */
export async function up(db: Kysely<unknown>, d: Dialect): Promise<void> {
  const t = types(d);
  await db.schema
    .createTable('sheet_filters')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('sheet_id', t.id, (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_key', 'text', (c) => c.notNull())
    .addColumn('filter_type', 'text', (c) => c.notNull())
    .addColumn('owner_id', t.id, (c) => c.notNull())
    .addColumn('exclude_selected', 'integer', (c) => c.notNull())
    .addColumn('include_parent', 'integer', (c) => c.notNull())
    .addColumn('query', 'text', (c) => c.notNull())
    .addColumn('created_at', t.ms, (c) => c.notNull())
    .addColumn('modified_at', t.ms, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sheet_filters_sheet').on('sheet_filters').columns(['sheet_id', 'created_at']).execute();

  await db.schema
    .createTable('sheet_filter_applied')
    .addColumn('sheet_id', t.id, (c) => c.notNull())
    .addColumn('user_id', t.id, (c) => c.notNull())
    .addColumn('filter_id', t.id, (c) => c.notNull())
    .addPrimaryKeyConstraint('sheet_filter_applied_pk', ['sheet_id', 'user_id'])
    .execute();

  await db.schema
    .createTable('sheet_conditional_formats')
    .addColumn('sheet_id', t.id, (c) => c.primaryKey())
    .addColumn('rules', 'text', (c) => c.notNull())
    .execute();
}
