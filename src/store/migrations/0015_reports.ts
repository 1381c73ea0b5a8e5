import type { Kysely } from 'kysely';
import { types, type Dialect } from './types.ts';

/**
 * Reports (issue 17): a report lives like a sheet (its owner's home, a folder, or the top of a
 * workspace) and holds only its definition; its rows are read live from its sources at each
 * Get Report. `definition` is JSON (columns with their virtual ids, filter, sort); the sources
 * (sheets and workspaces) are rows of `report_sources`, which go with their report. A source
 * that is deleted is skipped when the report is read. Shares of reports are rows of `shares`
 * with object_type 'report'.
 */
export async function up(db: Kysely<unknown>, d: Dialect): Promise<void> {
  const t = types(d);
  await db.schema
    .createTable('reports')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('org_id', t.id, (c) => c.notNull())
    .addColumn('owner_id', t.id, (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('folder_id', t.id)
    .addColumn('workspace_id', t.id)
    .addColumn('definition', 'text', (c) => c.notNull())
    .addColumn('created_at', t.ms, (c) => c.notNull())
    .addColumn('modified_at', t.ms, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('reports_owner').on('reports').columns(['owner_id', 'folder_id']).execute();
  await db.schema.createIndex('reports_folder').on('reports').column('folder_id').execute();
  await db.schema.createIndex('reports_workspace').on('reports').column('workspace_id').execute();
  await db.schema
    .createTable('report_sources')
    .addColumn('report_id', t.id, (c) => c.notNull().references('reports.id').onDelete('cascade'))
    /** sheet or workspace */
    .addColumn('object_type', 'text', (c) => c.notNull())
    .addColumn('object_id', t.id, (c) => c.notNull())
    .addPrimaryKeyConstraint('report_sources_pk', ['report_id', 'object_type', 'object_id'])
    .execute();
}
