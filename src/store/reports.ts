import type { Selectable } from 'kysely';
import type { Queryable } from './db.ts';
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
    await db.deleteFrom('reports').where('id', 'in', chunk).execute();
  }
}

/** Reports directly in a folder, at the top of a home (its owner's) or of a workspace. */
export async function reportsAt(db: Queryable, where: { folderId: number } | { homeOf: number } | { workspaceTop: number }): Promise<ReportRow[]> {
  let q = db.selectFrom('reports').selectAll();
  if ('folderId' in where) q = q.where('folder_id', '=', where.folderId);
  else if ('homeOf' in where) q = q.where('owner_id', '=', where.homeOf).where('folder_id', 'is', null).where('workspace_id', 'is', null);
  else q = q.where('workspace_id', '=', where.workspaceTop).where('folder_id', 'is', null);
  return q.orderBy('name').orderBy('id').execute();
}

/** Reports in any of the folders (chunked). */
export async function reportsInFolders(db: Queryable, folderIds: number[]): Promise<ReportRow[]> {
  const out: ReportRow[] = [];
  for (let i = 0; i < folderIds.length; i += 500) out.push(...(await db.selectFrom('reports').selectAll().where('folder_id', 'in', folderIds.slice(i, i + 500)).execute()));
  return out;
}

/** Reports of the organization that the caller owns, that are shared to it (ids) or that lie in its workspaces. */
export async function reportsVisibleTo(db: Queryable, orgId: number, userId: number, sharedIds: number[], workspaceIds: number[]): Promise<ReportRow[]> {
  return db
    .selectFrom('reports')
    .selectAll()
    .where('org_id', '=', orgId)
    .where((eb) => {
      const ors = [eb('owner_id', '=', userId)];
      if (sharedIds.length > 0) ors.push(eb('id', 'in', sharedIds));
      if (workspaceIds.length > 0) ors.push(eb('workspace_id', 'in', workspaceIds));
      return eb.or(ors);
    })
    .orderBy('name')
    .orderBy('id')
    .execute();
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
