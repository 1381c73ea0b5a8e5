import type { Kysely } from 'kysely';
import { types, type Dialect } from './types.ts';

/**
 * Sheets, their columns and rows, and cell history. A row keeps its cells as one JSON object
 * keyed by column id (the engine's StoredRowCells), so reading or writing a row is one record.
 * Rows are ordered by a fractional sort key, so inserting between two rows touches one record.
 */
export async function up(db: Kysely<unknown>, d: Dialect): Promise<void> {
  const t = types(d);
  await db.schema
    .createTable('sheets')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('org_id', t.id, (c) => c.notNull())
    .addColumn('owner_id', t.id, (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    // container: a folder (folder_id), a workspace's top level (workspace_id only), or the owner's home (both null)
    .addColumn('folder_id', t.id)
    .addColumn('workspace_id', t.id)
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('is_template', 'integer', (c) => c.notNull().defaultTo(0))
    /** JSON: {type, id} of the sheet or template this one was created from */
    .addColumn('source', 'text')
    /** JSON: userSettings, projectSettings, dependenciesEnabled, ganttEnabled, ... */
    .addColumn('settings', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('created_at', t.ms, (c) => c.notNull())
    .addColumn('modified_at', t.ms, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sheets_owner').on('sheets').column('owner_id').execute();
  await db.schema.createIndex('sheets_folder').on('sheets').column('folder_id').execute();
  await db.schema.createIndex('sheets_workspace').on('sheets').column('workspace_id').execute();

  await db.schema
    .createTable('columns')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('sheet_id', t.id, (c) => c.notNull().references('sheets.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('is_primary', 'integer', (c) => c.notNull().defaultTo(0))
    /** JSON: every other column property (options, symbol, systemColumnType, format, formula, ...) */
    .addColumn('spec', 'text', (c) => c.notNull().defaultTo('{}'))
    .execute();
  await db.schema.createIndex('columns_sheet').on('columns').columns(['sheet_id', 'position']).execute();

  await db.schema
    .createTable('rows')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('sheet_id', t.id, (c) => c.notNull().references('sheets.id').onDelete('cascade'))
    .addColumn('parent_id', t.id)
    .addColumn('sort_key', t.float, (c) => c.notNull())
    .addColumn('expanded', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('locked', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('format', 'text')
    /** JSON StoredRowCells */
    .addColumn('cells', 'text', (c) => c.notNull().defaultTo('{}'))
    /** JSON {columnId: [modifiedAtMs, modifiedByUserId]}: who last wrote each cell (cell history) */
    .addColumn('cell_meta', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('created_at', t.ms, (c) => c.notNull())
    .addColumn('created_by', t.id)
    .addColumn('modified_at', t.ms, (c) => c.notNull())
    .addColumn('modified_by', t.id)
    .execute();
  await db.schema.createIndex('rows_sheet_order').on('rows').columns(['sheet_id', 'sort_key']).execute();

  await db.schema
    .createTable('cell_history')
    .addColumn('seq', t.serial, (c) => (d === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
    .addColumn('sheet_id', t.id, (c) => c.notNull().references('sheets.id').onDelete('cascade'))
    .addColumn('row_id', t.id, (c) => c.notNull())
    .addColumn('column_id', t.id, (c) => c.notNull())
    /** JSON StoredCell as it was before it was overwritten (empty object = it was blank) */
    .addColumn('cell', 'text', (c) => c.notNull())
    .addColumn('modified_at', t.ms, (c) => c.notNull())
    .addColumn('modified_by', t.id)
    .execute();
  await db.schema.createIndex('cell_history_cell').on('cell_history').columns(['sheet_id', 'row_id', 'column_id', 'seq']).execute();
}
