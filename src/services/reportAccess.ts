import type { Queryable } from '../store/db.ts';
import { findWorkspace } from '../store/containers.ts';
import { findReport, reportsVisibleTo, type ReportRow } from '../store/reports.ts';
import { grantsFor, type Grantee } from '../store/shares.ts';
import { apiError } from '../errors.ts';
import { isAccessLevel, requireAccess, strongest, type AccessLevel } from './access.ts';
import type { Actor } from './context.ts';
import { accessibleWorkspaces, granteeOf, workspaceAccessLevel } from './containers.ts';

/**
 * Access to reports, as to sheets: the strongest of ownership, direct and group shares of the
 * report, and the caller's level on the workspace that holds it. (Seeing a report does not
 * show rows of sheets the caller cannot see: services/reports.ts reads only those it can.)
 */
function levelsOf(rows: Array<{ object_id: number; access_level: string }>): Map<number, AccessLevel> {
  const out = new Map<number, AccessLevel>();
  for (const r of rows) if (isAccessLevel(r.access_level)) out.set(r.object_id, strongest([out.get(r.object_id), r.access_level])!);
  return out;
}

export async function reportAccessLevel(db: Queryable, actor: Actor, report: ReportRow, grantee?: Grantee): Promise<AccessLevel | null> {
  if (report.org_id !== actor.org.id) return null;
  if (report.owner_id === actor.user.id) return 'OWNER';
  const g = grantee ?? (await granteeOf(db, actor));
  const direct = levelsOf(await grantsFor(db, g, 'report', [report.id])).get(report.id) ?? null;
  let viaWorkspace: AccessLevel | null = null;
  if (report.workspace_id !== null) {
    const ws = await findWorkspace(db, report.workspace_id);
    if (ws) viaWorkspace = await workspaceAccessLevel(db, actor, ws, g);
  }
  return strongest([direct, viaWorkspace]);
}

/** 1006 when the caller cannot see the report, 1004 when its level is below `needed`. */
export async function reportFor(db: Queryable, actor: Actor, id: number, needed: AccessLevel): Promise<{ report: ReportRow; level: AccessLevel }> {
  const report = await findReport(db, id);
  if (!report) throw apiError(1006);
  const level = await reportAccessLevel(db, actor, report);
  requireAccess(level, needed);
  return { report, level: level! };
}

/** Every report the caller can see, by name, with its level. */
export async function accessibleReports(db: Queryable, actor: Actor): Promise<Array<{ report: ReportRow; level: AccessLevel }>> {
  const g = await granteeOf(db, actor);
  const shared = levelsOf(await grantsFor(db, g, 'report'));
  const wss = await accessibleWorkspaces(db, actor, g);
  const rows = await reportsVisibleTo(db, actor.org.id, actor.user.id, [...shared.keys()], [...wss.keys()]);
  const out: Array<{ report: ReportRow; level: AccessLevel }> = [];
  for (const report of rows) {
    const level = report.owner_id === actor.user.id ? 'OWNER' : strongest([shared.get(report.id), report.workspace_id !== null ? wss.get(report.workspace_id)?.level : null]);
    if (level) out.push({ report, level });
  }
  return out;
}

/** Levels of the given reports for the caller (the ones it cannot see are left out). */
export async function reportLevels(db: Queryable, actor: Actor, reports: ReportRow[]): Promise<Array<{ report: ReportRow; level: AccessLevel }>> {
  if (reports.length === 0) return [];
  const g = await granteeOf(db, actor);
  const out: Array<{ report: ReportRow; level: AccessLevel }> = [];
  for (const report of reports) {
    const level = await reportAccessLevel(db, actor, report, g);
    if (level) out.push({ report, level });
  }
  return out;
}

/** Reports shared to the caller that are in no workspace (Home lists them, as it does such sheets). */
export async function sharedHomeReports(db: Queryable, actor: Actor): Promise<Array<{ report: ReportRow; level: AccessLevel }>> {
  return (await accessibleReports(db, actor)).filter((x) => x.report.owner_id !== actor.user.id && x.report.workspace_id === null);
}
