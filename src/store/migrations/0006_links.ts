import type { Kysely } from 'kysely';
import { types, type Dialect } from './types.ts';

/**
 * Cell links and cross-sheet references: the links between sheets. A linked cell keeps its
 * link in its stored cell; `cell_links` indexes them by source so the source can show
 * linksOutToCells and a change of the source reaches the cells that follow it.
 */
export async function up(db: Kysely<unknown>, d: Dialect): Promise<void> {
  const t = types(d);
  await db.schema
    .createTable('cell_links')
    .addColumn('target_sheet_id', t.id, (c) => c.notNull())
    .addColumn('target_row_id', t.id, (c) => c.notNull())
    .addColumn('target_column_id', t.id, (c) => c.notNull())
    .addColumn('source_sheet_id', t.id, (c) => c.notNull())
    .addColumn('source_row_id', t.id, (c) => c.notNull())
    .addColumn('source_column_id', t.id, (c) => c.notNull())
    .addPrimaryKeyConstraint('cell_links_pk', ['target_sheet_id', 'target_row_id', 'target_column_id'])
    .execute();
  await db.schema.createIndex('cell_links_source').on('cell_links').columns(['source_sheet_id', 'source_row_id', 'source_column_id']).execute();

  await db.schema
    .createTable('cross_sheet_refs')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('sheet_id', t.id, (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_key', 'text', (c) => c.notNull())
    .addColumn('source_sheet_id', t.id, (c) => c.notNull())
    .addColumn('start_row_id', t.id)
    .addColumn('end_row_id', t.id)
    .addColumn('start_column_id', t.id)
    .addColumn('end_column_id', t.id)
    .addColumn('created_by', t.id, (c) => c.notNull())
    .addColumn('created_at', t.ms, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('cross_sheet_refs_name').on('cross_sheet_refs').columns(['sheet_id', 'name_key']).unique().execute();
  await db.schema.createIndex('cross_sheet_refs_source').on('cross_sheet_refs').column('source_sheet_id').execute();
}
