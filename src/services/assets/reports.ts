import { lockName, type Queryable, type Store } from '../../store/db.ts';
import { findSheet, type SheetRow } from '../../store/sheets.ts';
import { findWorkspace } from '../../store/containers.ts';
import { deleteReports, insertReport, listSources, replaceSources, sheetsOfWorkspace, updateReport, type ReportRow } from '../../store/reports.ts';
import { threadCounts } from '../../store/attachments.ts';
import { findUsersByIds } from '../../store/users.ts';
import { apiError } from '../../errors.ts';
import { newId } from '../../ids.ts';
import { asObject, bodyId, isObject } from '../../engine/input.ts';
import { dayOfEpochMs } from '../../engine/dates.ts';
import type { StoredContact } from '../../engine/contacts.ts';
import {
  compareRows, compileSource, parseReportColumns, parseReportFilter, parseReportSort,
  type CompiledSource, type ReportDefinition,
} from '../../engine/reports.ts';
import type { SortKey } from '../../engine/sort.ts';
import type { AccessLevel } from '../access/access.ts';
import type { Actor } from '../platform/context.ts';
import { authorOf, recordEvents, type ChangeEvent } from '../log/events.ts';
import { containerForCreate, parseDestination, placement, sheetLevels, workspaceAccessLevel, workspaceFor } from '../access/containers.ts';
import { sheetFor } from '../access/permissions.ts';
import { requireName } from '../sheets/sheetCreation.ts';
import { modelForRead } from '../computed/currentValues.ts';
import type { RowState, SheetModel } from '../../engine/model.ts';
import { reportAccess } from '../access/assetAccess.ts';
import { clock } from '../../clock.ts';
import { criticalRowsOf } from '../computed/schedule.ts';


/** Rows a report holds at most (spec 8): the first ones in the report's order. */
export const MAX_REPORT_ROWS = 50_000;
/** Sources (sheets and workspaces) a report names at most. */
export const MAX_REPORT_SOURCES = 1000;

export interface ReportSources {
  sheets: number[];
  workspaces: number[];
}

/** A report's definition as stored and presented by the sheetd extension. */
export interface ReportDefinitionView {
  report: ReportRow;
  level: AccessLevel;
  definition: ReportDefinition;
  sources: ReportSources;
}

export function definitionOf(r: ReportRow): ReportDefinition {
  return JSON.parse(r.definition) as ReportDefinition;
}

export async function sourcesOf(db: Queryable, reportId: number): Promise<ReportSources> {
  const rows = await listSources(db, reportId);
  return { sheets: rows.filter((r) => r.object_type === 'sheet').map((r) => r.object_id), workspaces: rows.filter((r) => r.object_type === 'workspace').map((r) => r.object_id) };
}

function idsOf(v: unknown, attr: string): number[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw apiError(1031, JSON.stringify(v), attr);
  const ids = v.map((x: unknown, i) => bodyId(isObject(x) ? x.id : x, `${attr}[${i}].id`));
  return [...new Set(ids)];
}

/** Reads `scope: {sheets: [{id}], workspaces: [{id}]}`; each must be visible to the caller (1006). */
export async function parseScope(db: Queryable, actor: Actor, raw: unknown): Promise<ReportSources> {
  if (raw === undefined || raw === null) return { sheets: [], workspaces: [] };
  const o = asObject(raw, 'a report scope');
  const out = { sheets: idsOf(o.sheets, 'scope.sheets'), workspaces: idsOf(o.workspaces, 'scope.workspaces') };
  if (out.sheets.length + out.workspaces.length > MAX_REPORT_SOURCES) throw apiError(1031, `${out.sheets.length + out.workspaces.length} sources`, 'scope');
  for (const id of out.sheets) {
    const { sheet } = await sheetFor(db, actor, id, 'VIEWER');
    if (sheet.is_template) throw apiError(1006);
  }
  for (const id of out.workspaces) await workspaceFor(db, actor, id, 'VIEWER');
  return out;
}

export function sourceList(s: ReportSources): Array<{ type: 'sheet' | 'workspace'; id: number }> {
  return [...s.sheets.map((id) => ({ type: 'sheet' as const, id })), ...s.workspaces.map((id) => ({ type: 'workspace' as const, id }))];
}

export function reportEvent(r: ReportRow, action: string, details: Record<string, unknown> = {}): ChangeEvent {
  return { objectType: 'REPORT', action, objectId: r.id, workspaceId: r.workspace_id, details: { reportName: r.name, ...details } };
}

/**
 * Create a report definition (POST /2.0/sheetd/reports): name, where it goes
 * (destinationType home, folder or workspace with destinationId; home when absent), scope
 * (source sheets and workspaces), columns, filters and sortingCriteria.
 */
export async function createReport(store: Store, actor: Actor, body: unknown): Promise<ReportDefinitionView> {
  const b = asObject(body, 'a Report definition');
  const name = requireName(b);
  const where = b.destinationType === undefined ? { type: 'home' as const, id: null } : parseDestination({ destinationType: b.destinationType, destinationId: b.destinationId }, { copy: false });
  const definition: ReportDefinition = { columns: parseReportColumns(b.columns, [], newId) };
  if (b.filters !== undefined && b.filters !== null) definition.filters = parseReportFilter(b.filters);
  if (b.sortingCriteria !== undefined && b.sortingCriteria !== null) definition.sortingCriteria = parseReportSort(b.sortingCriteria);
  return saveNewReport(store, actor, where, name, definition, b.scope);
}

/**
 * The write of both forms of Create Report, in one transaction: may the caller create in
 * `where`; the sources (`scope` as parseScope reads it); the report, owned by the owner of the
 * folder it goes into (else the caller); its CREATE event.
 */
export async function saveNewReport(store: Store, actor: Actor, where: Parameters<typeof containerForCreate>[2], name: string, definition: ReportDefinition, scope: unknown): Promise<ReportDefinitionView> {
  return store.db.transaction().execute(async (tx) => {
    const now = clock.now();
    const container = await containerForCreate(tx, actor, where);
    const sources = await parseScope(tx, actor, scope);
    const p = placement(container);
    const report: ReportRow = {
      id: newId(), org_id: actor.org.id, owner_id: container.type === 'folder' && container.folder.workspace_id === null ? container.folder.owner_id : actor.user.id,
      name, folder_id: p.folderId, workspace_id: p.workspaceId, definition: JSON.stringify(definition), created_at: now, modified_at: now,
    };
    await insertReport(tx, report);
    await replaceSources(tx, report.id, sourceList(sources));
    await recordEvents(tx, authorOf(actor), [reportEvent(report, 'CREATE')], now);
    return { report, level: 'OWNER' as AccessLevel, definition, sources };
  });
}

/** Get a report's definition (VIEWER). */
export async function readReportDefinition(db: Queryable, actor: Actor, id: number): Promise<ReportDefinitionView> {
  const { asset: report, level } = await reportAccess.require(db, actor, id, 'VIEWER');
  return { report, level, definition: definitionOf(report), sources: await sourcesOf(db, id) };
}

/**
 * Update a report definition (ADMIN): any of name, scope, columns, filters and sortingCriteria
 * (filters and sortingCriteria null remove them). Columns that name the same source columns
 * keep their virtual ids.
 */
export async function updateReportDefinition(store: Store, actor: Actor, id: number, body: unknown): Promise<ReportDefinitionView> {
  const b = asObject(body, 'a Report definition');
  if (b.id !== undefined && b.id !== id) throw apiError(1029);
  return store.db.transaction().execute(async (tx) => {
    // one update of a report at a time: the second reads what the first wrote (its scope
    // replaces the sources: two at once on PostgreSQL both inserted them)
    await lockName(tx, `sheetd: report ${id}`);
    const now = clock.now();
    const { asset: report, level } = await reportAccess.require(tx, actor, id, 'ADMIN');
    const definition = definitionOf(report);
    const changed: string[] = [];
    let name = report.name;
    if (b.name !== undefined) {
      name = requireName(b);
      changed.push('name');
    }
    if (b.columns !== undefined) {
      definition.columns = parseReportColumns(b.columns, definition.columns, newId);
      changed.push('columns');
    }
    if (b.filters !== undefined) {
      if (b.filters === null) delete definition.filters;
      else definition.filters = parseReportFilter(b.filters);
      changed.push('filters');
    }
    if (b.sortingCriteria !== undefined) {
      if (b.sortingCriteria === null) delete definition.sortingCriteria;
      else definition.sortingCriteria = parseReportSort(b.sortingCriteria);
      changed.push('sortingCriteria');
    }
    let sources = await sourcesOf(tx, id);
    if (b.scope !== undefined) {
      sources = await parseScope(tx, actor, b.scope);
      await replaceSources(tx, id, sourceList(sources));
      changed.push('scope');
    }
    const updated: ReportRow = { ...report, name, definition: JSON.stringify(definition), modified_at: now };
    await updateReport(tx, id, { name, definition: updated.definition, modified_at: now });
    await recordEvents(tx, authorOf(actor), [reportEvent(updated, name !== report.name ? 'RENAME' : 'UPDATE', { changed, ...(name !== report.name ? { oldName: report.name } : {}) })], now);
    return { report: updated, level, definition, sources };
  });
}

/** Delete Report: its owner only, with its shares and favorites. */
export async function deleteReport(store: Store, actor: Actor, id: number): Promise<void> {
  await store.db.transaction().execute(async (tx) => {
    const { asset: report } = await reportAccess.require(tx, actor, id, 'OWNER');
    await deleteReports(tx, [report.id]);
    await recordEvents(tx, authorOf(actor), [reportEvent(report, 'DELETE')]);
  });
}

/** Removes reports (in a container being deleted) with their events. */
export async function deleteReportRecords(db: Queryable, author: ReturnType<typeof authorOf>, reports: ReportRow[], now = clock.now()): Promise<void> {
  if (reports.length === 0) return;
  await deleteReports(db, reports.map((r) => r.id));
  await recordEvents(db, author, reports.map((r) => reportEvent(r, 'DELETE')), now);
}

/**
 * Copies a report into a place (a folder or workspace copy). Source sheets copied in the same
 * operation (`sheetMap`: old id to new) are replaced by their copies.
 */
export async function copyReportRecord(
  db: Queryable, src: ReportRow, dest: { folderId: number | null; workspaceId: number | null; ownerId: number }, sheetMap: ReadonlyMap<number, number>, now: number,
): Promise<ChangeEvent> {
  const copy: ReportRow = { ...src, id: newId(), owner_id: dest.ownerId, folder_id: dest.folderId, workspace_id: dest.workspaceId, created_at: now, modified_at: now };
  await insertReport(db, copy);
  const s = await sourcesOf(db, src.id);
  await replaceSources(db, copy.id, sourceList({ sheets: s.sheets.map((id) => sheetMap.get(id) ?? id), workspaces: s.workspaces }));
  return reportEvent(copy, 'CREATE', { sourceObjectId: src.id });
}

/** List Reports: every report the caller can see (modified at or after `since`, when given). */
export async function listReports(db: Queryable, actor: Actor, since?: number): Promise<Array<{ report: ReportRow; level: AccessLevel }>> {
  const all = (await reportAccess.accessible(db, actor)).map(({ asset, level }) => ({ report: asset, level }));
  return since === undefined ? all : all.filter((x) => x.report.modified_at >= since);
}

// ---- Get Report: rows read live from the sources

/** A source sheet of a report as the caller reads it. */
export interface ReportSource {
  sheet: SheetRow;
  level: AccessLevel;
  model: SheetModel;
  compiled: CompiledSource;
}

export interface ReportRowRef {
  source: ReportSource;
  row: RowState;
}

export interface ReportData extends ReportDefinitionView {
  /** The source sheets the caller can see, by name. */
  sheets: ReportSource[];
  /** The source workspaces the caller can see. */
  workspaces: Array<{ id: number; name: string }>;
  /** Every row of the report in order (at most MAX_REPORT_ROWS). */
  rows: ReportRowRef[];
  /** Creators and modifiers of the rows (system columns). */
  users: (id: number | null) => StoredContact | undefined;
}

function displayName(u: { email: string; first_name: string | null; last_name: string | null }): string {
  const n = [u.first_name, u.last_name].filter((s) => s && s.trim() !== '').join(' ');
  return n === '' ? u.email : n;
}

/** Every sheet the sources name (the sheets, and the sheets anywhere in the workspaces), templates left out. */
async function sourceSheets(db: Queryable, s: ReportSources): Promise<SheetRow[]> {
  const byId = new Map<number, SheetRow>();
  for (const id of s.sheets) {
    const sheet = await findSheet(db, id);
    if (sheet && !sheet.is_template) byId.set(id, sheet);
  }
  for (const wsId of s.workspaces) {
    if (!(await findWorkspace(db, wsId))) continue;
    for (const sheet of await sheetsOfWorkspace(db, wsId)) byId.set(sheet.id, sheet);
  }
  return [...byId.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id - b.id));
}

/** Get Report (VIEWER on the report): its rows from the source sheets the caller can see. */
export async function readReport(db: Queryable, actor: Actor, id: number, now = clock.now()): Promise<ReportData> {
  const view = await readReportDefinition(db, actor, id);
  const def = view.definition;
  const visible = await sheetLevels(db, actor, await sourceSheets(db, view.sources));
  const needsCounts = /"(HAS|NO)_(ATTACHMENTS|COMMENTS)"/.test(JSON.stringify(def.filters ?? null));
  const match = { today: dayOfEpochMs(now)!, userEmail: actor.user.email };
  const sheets: ReportSource[] = [];
  const loaded: Array<{ source: ReportSource; counts?: Awaited<ReturnType<typeof threadCounts>> }> = [];
  const userIds = new Set<number>();
  for (const { sheet, level } of visible) {
    const model = await modelForRead(db, sheet);
    const compiled = compileSource(def, sheet.name, model.columns, { ...match, rowNumberOf: (rid) => model.tree.rowNumberOf(rid) });
    const source = { sheet, level, model, compiled };
    sheets.push(source);
    loaded.push({ source, counts: needsCounts ? await threadCounts(db, sheet.id) : undefined });
    for (const r of model.rows.values()) {
      if (r.createdBy !== null) userIds.add(r.createdBy);
      if (r.modifiedBy !== null) userIds.add(r.modifiedBy);
    }
  }
  const people = new Map<number, StoredContact>((await findUsersByIds(db, [...userIds])).map((u) => [u.id, { email: u.email, name: displayName(u) }]));
  const users = (uid: number | null) => (uid === null ? undefined : people.get(uid));
  const rows: Array<ReportRowRef & { keys: SortKey[] }> = [];
  const sorted = (def.sortingCriteria ?? []).length > 0;
  for (const { source, counts } of loaded) {
    const { model, compiled } = source;
    const critical = criticalRowsOf(model);
    for (const rowId of model.tree.displayOrder()) {
      const row = model.rows.get(rowId)!;
      const facts = {
        locked: model.tree.get(rowId)?.locked ?? false,
        system: { createdAt: row.createdAt, modifiedAt: row.modifiedAt, createdBy: users(row.createdBy), modifiedBy: users(row.modifiedBy) },
        attachments: counts?.attachments.get(rowId) ?? 0,
        comments: counts?.comments.get(rowId) ?? 0,
        critical: critical?.has(rowId) === true,
      };
      const sr = { cells: row.cells, facts };
      if (!compiled.matches(sr)) continue;
      rows.push({ source, row, keys: sorted ? compiled.sortKeys(sr) : [] });
      // unsorted, the first rows in source order are the report's: no need to read on
      if (!sorted && rows.length >= MAX_REPORT_ROWS) break;
    }
    if (!sorted && rows.length >= MAX_REPORT_ROWS) break;
  }
  if (sorted) rows.sort((a, b) => compareRows(def, a.keys, b.keys));
  const workspaces: Array<{ id: number; name: string }> = [];
  for (const wsId of view.sources.workspaces) {
    const ws = await findWorkspace(db, wsId);
    if (ws && (await workspaceAccessLevel(db, actor, ws)) !== null) workspaces.push({ id: ws.id, name: ws.name });
  }
  return { ...view, sheets, workspaces, rows: rows.slice(0, MAX_REPORT_ROWS).map(({ source, row }) => ({ source, row })), users };
}
