import type { Selectable } from 'kysely';
import type { Queryable } from './db.ts';
import { assetsAt, assetsInFolders, assetsVisibleTo, type AssetPlace } from './assets.ts';
import type { ReportSourceTable, ReportTable } from './reportSchema.ts';

export type ReportRow = Selectable<ReportTable>;
export type ReportSourceRow = Selectable<ReportSourceTable>;

export async function findReport(db: Queryable, id: number): Promise<ReportRow | undefined> {
  return db.selectFrom('reports').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertReport(db: Queryable, row: ReportRow): Promise<void> {
  await db.insertInto('reports').values(row).execute();
}

export async function updateReport(db: Queryable, id: number, set: Partial<Omit<ReportRow, 'id'>>): Promise<void> {
  await db.updateTable('reports').set(set).where('id', '=', id).execute();
}

export async function listSources(db: Queryable, reportId: number): Promise<ReportSourceRow[]> {
  return db.selectFrom('report_sources').selectAll().where('report_id', '=', reportId).orderBy('object_type').orderBy('object_id').execute();
}

export async function replaceSources(db: Queryable, reportId: number, sources: Array<{ type: 'sheet' | 'workspace'; id: number }>): Promise<void> {
  await db.deleteFrom('report_sources').where('report_id', '=', reportId).execute();
  if (sources.length === 0) return;
  await db.insertInto('report_sources').values(sources.map((s) => ({ report_id: reportId, object_type: s.type, object_id: s.id }))).execute();
}

export async function deleteReports(db: Queryable, ids: number[]): Promise<void> {
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    await db.deleteFrom('report_sources').where('report_id', 'in', chunk).execute();
    await db.deleteFrom('shares').where('object_type', '=', 'report').where('object_id', 'in', chunk).execute();
    await db.deleteFrom('favorites').where('object_type', '=', 'report').where('object_id', 'in', chunk).execute();
    // published views of the reports (migration 0018) stop answering with them
    await db.deleteFrom('publications').where('object_type', '=', 'report').where('object_id', 'in', chunk).execute();
    await db.deleteFrom('publish_settings').where('object_type', '=', 'report').where('object_id', 'in', chunk).execute();
    await db.deleteFrom('reports').where('id', 'in', chunk).execute();
  }
}




/** Reports anywhere in a workspace. */
export async function reportsInWorkspace(db: Queryable, workspaceId: number): Promise<ReportRow[]> {
  return db.selectFrom('reports').selectAll().where('workspace_id', '=', workspaceId).execute();
}

/** The sheets (not templates) anywhere in a workspace: a workspace source of a report. */
export async function sheetsOfWorkspace(db: Queryable, workspaceId: number) {
  return db.selectFrom('sheets').selectAll().where('workspace_id', '=', workspaceId).where('is_template', '=', 0).execute();
}

/** Sources naming workspace `from` of the reports in workspace `to` name `to` instead (a workspace copy). */
export async function retargetWorkspaceSources(db: Queryable, from: number, to: number): Promise<void> {
  await db.updateTable('report_sources').set({ object_id: to })
    .where('object_type', '=', 'workspace').where('object_id', '=', from)
    .where('report_id', 'in', (eb) => eb.selectFrom('reports').select('id').where('workspace_id', '=', to))
    .execute();
}

/** The reports of folders follow them into a workspace (or out of one). */
export async function moveReportsOfFolders(db: Queryable, folderIds: number[], workspaceId: number | null): Promise<void> {
  await db.updateTable('reports').set({ workspace_id: workspaceId }).where('folder_id', 'in', folderIds).execute();
}

/** A report gets a new owner and, as a sheet does, leaves the old owner's home folders unless it is in a workspace. */
export async function transferReport(db: Queryable, reportId: number, ownerId: number, now: number): Promise<void> {
  const report = await db.selectFrom('reports').select(['folder_id', 'workspace_id']).where('id', '=', reportId).executeTakeFirstOrThrow();
  await db.updateTable('reports').set({ owner_id: ownerId, folder_id: report.workspace_id === null ? null : report.folder_id, modified_at: now }).where('id', '=', reportId).execute();
}

/** Reports directly in a folder, at the top of a home (its owner's) or of a workspace (store/assets.ts). */
export const reportsAt = (db: Queryable, where: AssetPlace) => assetsAt(db, 'reports', where) as Promise<ReportRow[]>;
export const reportsInFolders = (db: Queryable, folderIds: number[]) => assetsInFolders(db, 'reports', folderIds) as Promise<ReportRow[]>;
export const reportsVisibleTo = (db: Queryable, orgId: number, userId: number, sharedIds: number[], workspaceIds: number[]) =>
  assetsVisibleTo(db, 'reports', orgId, userId, sharedIds, workspaceIds) as Promise<ReportRow[]>;
