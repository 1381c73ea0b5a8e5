import type { Queryable } from '../../store/db.ts';
import { findReport, reportsVisibleTo, type ReportRow } from '../../store/reports.ts';
import type { AccessLevel } from './access.ts';
import type { Actor } from '../platform/context.ts';
import { assetAccess } from './assetAccess.ts';

/** Access to reports (services/access/assetAccess.ts): ownership, shares, the workspace that holds them. */
const reports = assetAccess<ReportRow>({ type: 'report', find: findReport, visibleTo: reportsVisibleTo });
type Leveled = Array<{ report: ReportRow; level: AccessLevel }>;
const named = (xs: Array<{ asset: ReportRow; level: AccessLevel }>): Leveled => xs.map(({ asset, level }) => ({ report: asset, level }));

export const reportAccessLevel = reports.levelOf;

/** 1006 when the caller cannot see the report, 1004 when its level is below `needed`. */
export async function reportFor(db: Queryable, actor: Actor, id: number, needed: AccessLevel): Promise<{ report: ReportRow; level: AccessLevel }> {
  const { asset, level } = await reports.require(db, actor, id, needed);
  return { report: asset, level };
}

/** Every report the caller can see, with its level. */
export async function accessibleReports(db: Queryable, actor: Actor): Promise<Leveled> {
  return named(await reports.accessible(db, actor));
}

/** Levels of the given reports for the caller (the ones it cannot see are left out). */
export async function reportLevels(db: Queryable, actor: Actor, list: ReportRow[]): Promise<Leveled> {
  return named(await reports.levels(db, actor, list));
}

/** Reports shared to the caller that are in no workspace (Home lists them, as it does such sheets). */
export async function sharedHomeReports(db: Queryable, actor: Actor): Promise<Leveled> {
  return named(await reports.sharedHome(db, actor));
}
