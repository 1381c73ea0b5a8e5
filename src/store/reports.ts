import type { Selectable } from 'kysely';
import type { Queryable } from './db.ts';
import { assetRows } from './assets.ts';
import type { ReportSourceTable, ReportTable } from './reportSchema.ts';

export type ReportRow = Selectable<ReportTable>;
export type ReportSourceRow = Selectable<ReportSourceTable>;

// what reports share with dashboards (store/assets.ts)
const reports = assetRows<ReportRow>('reports');
export const findReport = reports.find;
export const insertReport = reports.insert;
export const updateReport = reports.update;
export const reportsInWorkspace = reports.inWorkspace;
export const moveReportsOfFolders = reports.moveOfFolders;
export const transferReport = reports.transfer;
/** Reports directly in a folder, at the top of a home (its owner's) or of a workspace. */
export const reportsAt = reports.at;
export const reportsInFolders = reports.inFolders;
export const reportsVisibleTo = reports.visibleTo;

/** Deletes reports with their sources, shares, favorites and published views. */
export function deleteReports(db: Queryable, ids: number[]): Promise<void> {
  return reports.delete(db, ids, async (chunk) => {
    await db.deleteFrom('report_sources').where('report_id', 'in', chunk).execute();
    // published views of the reports (migration 0018) stop answering with them
    await db.deleteFrom('publications').where('object_type', '=', 'report').where('object_id', 'in', chunk).execute();
    await db.deleteFrom('publish_settings').where('object_type', '=', 'report').where('object_id', 'in', chunk).execute();
  });
}

export async function listSources(db: Queryable, reportId: number): Promise<ReportSourceRow[]> {
  return db.selectFrom('report_sources').selectAll().where('report_id', '=', reportId).orderBy('object_type').orderBy('object_id').execute();
}

export async function replaceSources(db: Queryable, reportId: number, sources: Array<{ type: 'sheet' | 'workspace'; id: number }>): Promise<void> {
  await db.deleteFrom('report_sources').where('report_id', '=', reportId).execute();
  if (sources.length === 0) return;
  await db.insertInto('report_sources').values(sources.map((s) => ({ report_id: reportId, object_type: s.type, object_id: s.id }))).execute();
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
