/**
 * Report definitions through the public API's paths (the npm SDK 5.3's createReport,
 * get/updateReportDefinition, add/remove/listReportScope, add/list/get/update/deleteReportColumn):
 * the same reports, stored the same way, as the older /2.0/sheetd/reports extension
 * (services/assets/reports.ts). Each change is one transaction with its REPORT event.
 */
import { lockName, type Queryable, type Store } from '../../store/db.ts';
import { replaceSources, updateReport, type ReportRow } from '../../store/reports.ts';
import { apiError } from '../../errors.ts';
import { newId } from '../../ids.ts';
import { asObject, bodyId, isObject } from '../../engine/input.ts';
import {
  MAX_REPORT_COLUMNS, columnKey, parseAddedColumn, parseReportColumns, parseReportFilter, parseReportGrouping, parseReportSort, parseReportSummarizing,
  type ReportColumnDef, type ReportDefinition,
} from '../../engine/reports.ts';
import type { AccessLevel } from '../access/access.ts';
import type { Actor } from '../platform/context.ts';
import { authorOf, recordEvents } from '../log/events.ts';
import { parseDestination } from '../access/containers.ts';
import { requireName } from '../sheets/sheetCreation.ts';
import { reportAccess } from '../access/assetAccess.ts';
import { clock } from '../../clock.ts';
import {
  MAX_REPORT_SOURCES, definitionOf, parseScope, reportEvent, saveNewReport, sourceList, sourcesOf, type ReportDefinitionView, type ReportSources,
} from './reports.ts';

/** Scope items one call adds or removes at most (the SDK: 100). */
export const MAX_SCOPE_ITEMS_PER_CALL = 100;
/** A report's name through the public path: 1 to 50 characters (the SDK's createReport). */
export const MAX_PUBLIC_REPORT_NAME = 50;

/** Reads `[{assetType: 'sheet' | 'workspace', assetId}]` (the type in either case). */
function parseScopeAssets(raw: unknown, attr: string, opts: { min: number }): ReportSources {
  if (raw === undefined || raw === null) throw apiError(1012, attr);
  if (!Array.isArray(raw)) throw apiError(1031, JSON.stringify(raw), attr);
  if (raw.length < opts.min) throw apiError(1012, attr);
  if (raw.length > MAX_SCOPE_ITEMS_PER_CALL) throw apiError(1031, `${raw.length} items`, attr);
  const out: ReportSources = { sheets: [], workspaces: [] };
  raw.forEach((item: unknown, i) => {
    const at = `${attr}[${i}]`;
    if (!isObject(item)) throw apiError(1031, JSON.stringify(item) ?? String(item), at);
    if (item.assetType === undefined || item.assetType === null) throw apiError(1012, `${at}.assetType`);
    if (item.assetId === undefined || item.assetId === null) throw apiError(1012, `${at}.assetId`);
    const type = typeof item.assetType === 'string' ? item.assetType.toLowerCase() : '';
    if (type !== 'sheet' && type !== 'workspace') throw apiError(1031, String(item.assetType), `${at}.assetType`);
    const id = bodyId(item.assetId, `${at}.assetId`);
    const list = type === 'sheet' ? out.sheets : out.workspaces;
    if (!list.includes(id)) list.push(id);
  });
  return out;
}

/** The columns of a create or add call, in the order of their `index` (stable). */
function byIndex(raw: unknown[]): unknown[] {
  const at = (x: unknown) => (isObject(x) && typeof x.index === 'number' ? x.index : Number.MAX_SAFE_INTEGER);
  return raw.map((x, i) => ({ x, i })).sort((a, b) => at(a.x) - at(b.x) || a.i - b.i).map((e) => e.x);
}

function checkIndex(v: unknown, attr: string): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw apiError(1031, String(v), attr);
  return v;
}

/** The definition's parts that PUT /definition replaces, read from a body (null removes one). */
function applyDefinitionParts(def: ReportDefinition, b: Record<string, unknown>): string[] {
  const changed: string[] = [];
  const part = <K extends 'filters' | 'sortingCriteria' | 'groupingCriteria' | 'summarizingCriteria'>(k: K, parse: (v: unknown) => NonNullable<ReportDefinition[K]>) => {
    if (b[k] === undefined) return;
    if (b[k] === null || (Array.isArray(b[k]) && (b[k] as unknown[]).length === 0)) delete def[k];
    else def[k] = parse(b[k]);
    changed.push(k);
  };
  part('filters', (v) => parseReportFilter(v));
  part('sortingCriteria', parseReportSort);
  part('groupingCriteria', parseReportGrouping);
  part('summarizingCriteria', parseReportSummarizing);
  return changed;
}

/**
 * Create Report (POST /reports, the SDK's CreateReportBody): name (1-50 characters), columns
 * (1-400, placed by their `index`), scope (1-100 assets), reportDefinition, destination (a
 * folder or workspace; Home when absent). isSummaryReport true is not supported (1031).
 */
export async function createReportFromApi(store: Store, actor: Actor, body: unknown): Promise<ReportDefinitionView> {
  const b = asObject(body, 'a CreateReport body');
  const name = requireName(b);
  if (name.length > MAX_PUBLIC_REPORT_NAME) throw apiError(1041, 'name', MAX_PUBLIC_REPORT_NAME, name.length);
  if (b.isSummaryReport !== undefined && b.isSummaryReport !== null && b.isSummaryReport !== false) throw apiError(1031, String(b.isSummaryReport), 'isSummaryReport');
  const where = b.destination === undefined || b.destination === null ? { type: 'home' as const, id: null } : parseDestination(b.destination, { copy: false });
  if (b.columns !== undefined && b.columns !== null && !Array.isArray(b.columns)) throw apiError(1031, JSON.stringify(b.columns), 'columns');
  const columns = Array.isArray(b.columns) ? b.columns : undefined;
  columns?.forEach((c, i) => checkIndex(isObject(c) ? c.index : undefined, `columns[${i}].index`));
  const definition: ReportDefinition = { columns: parseReportColumns(columns === undefined ? undefined : byIndex(columns), [], newId) };
  if (b.reportDefinition !== undefined && b.reportDefinition !== null) applyDefinitionParts(definition, asObject(b.reportDefinition, 'a ReportDefinition'));
  const assets = parseScopeAssets(b.scope, 'scope', { min: 1 });
  return saveNewReport(store, actor, where, name, definition, { sheets: assets.sheets.map((id) => ({ id })), workspaces: assets.workspaces.map((id) => ({ id })) });
}

/**
 * One change of a report's definition or scope: locks the report, checks the caller's level,
 * lets `change` edit a copy of the definition and sources, and stores both with an UPDATE event
 * naming what changed (nothing stored when nothing changed).
 */
async function changeReport<T>(
  store: Store, actor: Actor, id: number, needed: AccessLevel,
  change: (tx: Queryable, d: { definition: ReportDefinition; sources: ReportSources; report: ReportRow }) => Promise<{ changed: string[]; result: T }>,
): Promise<T> {
  return store.db.transaction().execute(async (tx) => {
    await lockName(tx, `sheetd: report ${id}`);
    const now = clock.now();
    const { asset: report } = await reportAccess.require(tx, actor, id, needed);
    const definition = definitionOf(report);
    const before = await sourcesOf(tx, id);
    const sources = { sheets: [...before.sheets], workspaces: [...before.workspaces] };
    const { changed, result } = await change(tx, { definition, sources, report });
    if (changed.length === 0) return result;
    if (changed.includes('scope')) await replaceSources(tx, id, sourceList(sources));
    const updated: ReportRow = { ...report, definition: JSON.stringify(definition), modified_at: now };
    await updateReport(tx, id, { definition: updated.definition, modified_at: now });
    await recordEvents(tx, authorOf(actor), [reportEvent(updated, 'UPDATE', { changed })], now);
    return result;
  });
}

/** Get Report Definition: filters, groupingCriteria, summarizingCriteria, sortingCriteria (VIEWER). */
export async function readDefinitionParts(db: Queryable, actor: Actor, id: number): Promise<ReportDefinition> {
  const { asset } = await reportAccess.require(db, actor, id, 'VIEWER');
  return definitionOf(asset);
}

/** Update Report Definition (ADMIN): each root-level part given replaces the stored one; null or [] removes it. */
export async function updateDefinitionParts(store: Store, actor: Actor, id: number, body: unknown): Promise<void> {
  const b = asObject(body, 'a ReportDefinition');
  const unknown = Object.keys(b).filter((k) => !['filters', 'sortingCriteria', 'groupingCriteria', 'summarizingCriteria'].includes(k));
  if (unknown.length > 0) throw apiError(1032, unknown.join(', '));
  // parse before the transaction: bad input answers before any lock is taken
  const parsed: ReportDefinition = { columns: [] };
  applyDefinitionParts(parsed, b);
  await changeReport(store, actor, id, 'ADMIN', async (_tx, { definition }) => ({ changed: applyDefinitionParts(definition, b), result: undefined }));
}

/** The report's scope as assets (List Report Scope), sheets first (VIEWER). */
export async function readScopeAssets(db: Queryable, actor: Actor, id: number): Promise<Array<{ assetType: 'sheet' | 'workspace'; assetId: number }>> {
  await reportAccess.require(db, actor, id, 'VIEWER');
  const s = await sourcesOf(db, id);
  return [...s.sheets.map((assetId) => ({ assetType: 'sheet' as const, assetId })), ...s.workspaces.map((assetId) => ({ assetType: 'workspace' as const, assetId }))];
}

/** Add Report Scope (ADMIN): each asset must be one the caller can see (1006); ones already in scope are kept once. */
export async function addScopeAssets(store: Store, actor: Actor, id: number, body: unknown): Promise<void> {
  const assets = parseScopeAssets(body, 'scope', { min: 1 });
  await changeReport(store, actor, id, 'ADMIN', async (tx, { sources }) => {
    await parseScope(tx, actor, { sheets: assets.sheets.map((x) => ({ id: x })), workspaces: assets.workspaces.map((x) => ({ id: x })) });
    const add = (list: number[], ids: number[]) => ids.filter((x) => !list.includes(x)).forEach((x) => list.push(x));
    add(sources.sheets, assets.sheets);
    add(sources.workspaces, assets.workspaces);
    if (sources.sheets.length + sources.workspaces.length > MAX_REPORT_SOURCES) throw apiError(1031, `${sources.sheets.length + sources.workspaces.length} sources`, 'scope');
    return { changed: ['scope'], result: undefined };
  });
}

/** Remove Report Scope (ADMIN): assets not in the scope are ignored. */
export async function removeScopeAssets(store: Store, actor: Actor, id: number, body: unknown): Promise<void> {
  const assets = parseScopeAssets(body, 'scope', { min: 1 });
  await changeReport(store, actor, id, 'ADMIN', async (_tx, { sources }) => {
    const before = sources.sheets.length + sources.workspaces.length;
    sources.sheets = sources.sheets.filter((x) => !assets.sheets.includes(x));
    sources.workspaces = sources.workspaces.filter((x) => !assets.workspaces.includes(x));
    return { changed: sources.sheets.length + sources.workspaces.length === before ? [] : ['scope'], result: undefined };
  });
}

/** The report's columns (List Report Columns, Get Report Column) with the caller's level (VIEWER). */
export async function readReportColumns(db: Queryable, actor: Actor, id: number): Promise<ReportColumnDef[]> {
  const { asset } = await reportAccess.require(db, actor, id, 'VIEWER');
  return definitionOf(asset).columns;
}

function columnAt(def: ReportDefinition, virtualId: number): number {
  const i = def.columns.findIndex((c) => c.virtualId === virtualId);
  if (i < 0) throw apiError(1006);
  return i;
}

/**
 * Add Report Columns (EDITOR): every column of the call has the same `index` (1031 otherwise),
 * where they go in the order sent (past the end: at the end). A column that stands for source
 * columns the report shows already is 1031; at most 400 in all.
 */
export async function addReportColumns(store: Store, actor: Actor, id: number, body: unknown): Promise<ReportColumnDef[]> {
  if (!Array.isArray(body)) throw apiError(1031, JSON.stringify(body) ?? String(body), 'columns');
  if (body.length === 0) throw apiError(1012, 'columns');
  const indexes = body.map((c, i) => checkIndex(isObject(c) ? c.index : undefined, `columns[${i}].index`));
  if (indexes.some((x) => x === undefined)) throw apiError(1012, `columns[${indexes.indexOf(undefined)}].index`);
  if (new Set(indexes).size > 1) throw apiError(1031, JSON.stringify(indexes), 'columns[].index');
  return changeReport(store, actor, id, 'EDITOR', async (_tx, { definition }) => {
    const added: ReportColumnDef[] = [];
    body.forEach((raw: unknown, i) => added.push(parseAddedColumn(raw, [...definition.columns, ...added], newId, `columns[${i}]`)));
    if (definition.columns.length + added.length > MAX_REPORT_COLUMNS) throw apiError(1031, `${definition.columns.length + added.length} columns`, 'columns');
    const at = Math.min(indexes[0]!, definition.columns.length);
    definition.columns.splice(at, 0, ...added);
    return { changed: ['columns'], result: added };
  });
}

/**
 * Update Report Column (EDITOR): title, index, hidden, width. A new title of a column matched by
 * title changes which source columns it stands for (1031 when another column stands for them).
 */
export async function updateReportColumn(store: Store, actor: Actor, id: number, virtualId: number, body: unknown): Promise<{ column: ReportColumnDef; index: number }> {
  const b = asObject(body, 'a ReportColumn');
  const unknown = Object.keys(b).filter((k) => !['title', 'index', 'hidden', 'width', 'virtualId'].includes(k));
  if (unknown.length > 0) throw apiError(1032, unknown.join(', '));
  if (b.virtualId !== undefined && b.virtualId !== virtualId) throw apiError(1029);
  const index = checkIndex(b.index, 'index');
  return changeReport(store, actor, id, 'EDITOR', async (_tx, { definition }) => {
    const i = columnAt(definition, virtualId);
    const old = definition.columns[i]!;
    const raw: Record<string, unknown> = { ...old };
    if (b.title !== undefined) raw.title = b.title;
    if (b.width !== undefined) raw.width = b.width;
    if (b.hidden !== undefined) raw.hidden = b.hidden;
    const others = definition.columns.filter((c) => c.virtualId !== virtualId);
    const [parsed] = parseReportColumns([raw], [], () => virtualId);
    const col: ReportColumnDef = { ...parsed!, virtualId };
    if (others.some((c) => columnKey(c) === columnKey(col))) throw apiError(1031, JSON.stringify(b.title), 'title');
    const columns = [...others];
    columns.splice(index === undefined ? i : Math.min(index, columns.length), 0, col);
    definition.columns = columns;
    return { changed: ['columns'], result: { column: col, index: columns.indexOf(col) } };
  });
}

/** Delete Report Column (EDITOR): a report keeps at least one column (1031). */
export async function deleteReportColumn(store: Store, actor: Actor, id: number, virtualId: number): Promise<void> {
  await changeReport(store, actor, id, 'EDITOR', async (_tx, { definition }) => {
    const i = columnAt(definition, virtualId);
    if (definition.columns.length === 1) throw apiError(1031, String(virtualId), 'columnVirtualId');
    definition.columns.splice(i, 1);
    return { changed: ['columns'], result: undefined };
  });
}
