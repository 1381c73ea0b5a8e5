import type { Kysely } from 'kysely';
import { types, type Dialect } from './types.ts';

/**
 * Sheet summary fields. A field is a column-like definition (type, options, symbol, format,
 * validation, locked: `def`, JSON) with one cell (value, formula, hyperlink, image, format:
 * `cell`, JSON in the shape of a stored row cell). Its image, if any, is a row of `images` of
 * the sheet like a cell image. Everything cascades with the sheet.
 */
export async function up(db: Kysely<unknown>, d: Dialect): Promise<void> {
  const t = types(d);
  await db.schema
    .createTable('summary_fields')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('sheet_id', t.id, (c) => c.notNull().references('sheets.id').onDelete('cascade'))
    .addColumn('idx', 'integer', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('def', 'text', (c) => c.notNull())
    .addColumn('cell', 'text', (c) => c.notNull())
    .addColumn('created_at', t.ms, (c) => c.notNull())
    .addColumn('created_by', t.id)
    .addColumn('modified_at', t.ms, (c) => c.notNull())
    .addColumn('modified_by', t.id)
    .execute();
  await db.schema.createIndex('summary_fields_sheet').on('summary_fields').columns(['sheet_id', 'idx']).execute();
}
