/**
 * Sheet filters and conditional formatting.
 *
 * The public API reads them only (spec section 1: "Filters cannot be created or updated");
 * sheetd has no grid UI to define them in, so they are defined through a sheetd extension
 * (routes/filters.ts, docs/sheets.md):
 * - A filter is PERSONAL (seen and used by its owner only) or SHARED (seen by everyone who
 *   can see the sheet; only sheet admins create, change or delete one: 1181). Each user may
 *   have one filter applied to a sheet: Get Sheet with include=filters marks rows by it, and
 *   filterId applies another for one read.
 * - Conditional-format rules are one ordered list per sheet, set by sheet admins. A column a
 *   rule reads or formats cannot be deleted or change type (1087).
 * A shared filter or a rule change is a change of the sheet: its version goes up and a SHEET
 * UPDATE event is recorded. A personal filter changes nothing others see.
 */
import { apiError } from '../../errors.ts';
import { newId } from '../../ids.ts';
import type { Queryable } from '../../store/db.ts';
import {
  appliedFilterId, deleteFilterRow, deleteViewsOf, filterIdsNamed, filtersVisibleTo, findFilter, insertFilters, replaceRules, rulesJson,
  setAppliedFilter, sheetFilters, unapplyFilterForOthers, updateFilterRow, type FilterRow,
} from '../../store/filters.ts';
import type { ColumnDef } from '../../engine/columns.ts';
import { columnsOf, parseQuery, type CriteriaQuery, type MatchContext } from '../../engine/criteria.ts';
import { dayOfEpochMs } from '../../engine/dates.ts';
import { conditionalFormatsOf, filteredOutRows, type ConditionalRule, type FilterDef } from '../../engine/filters.ts';
import { criticalRowsOf } from '../computed/schedule.ts';
import { normaliseFormat } from '../../engine/format.ts';
import type { Actor } from '../platform/context.ts';
import { atLeast } from '../access/access.ts';
import { sheetFor } from '../access/permissions.ts';
import { writeSheet, type WriteContext, type SheetStore } from './sheetWrites.ts';
import type { RowState, SheetModel } from '../../engine/model.ts';
import { asObject, bodyBool } from '../../engine/input.ts';
import { nameKey } from '../computed/crossSheet.ts';
import { clock } from '../../clock.ts';

export type { FilterRow };
export type FilterType = 'PERSONAL' | 'SHARED';

export interface ApiFilter {
  id: number;
  name: string;
  filterType: FilterType;
  excludeSelected?: boolean;
  query?: { operator: 'AND' | 'OR'; criteria: CriteriaQuery['criteria']; includeParent: boolean };
  /** sheetd: true on the filter the caller has applied to the sheet. */
  applied?: boolean;
}

function filterDef(f: FilterRow): FilterDef {
  return { excludeSelected: f.exclude_selected === 1, includeParent: f.include_parent === 1, query: JSON.parse(f.query) as CriteriaQuery };
}

/**
 * A filter as the API shows it. `detailed` (include=filterDefinitions, and the extension's own
 * answers) adds the type's criteria; otherwise id, name and type only.
 */
export function presentFilter(f: FilterRow, appliedId: number | undefined, detailed: boolean): ApiFilter {
  const out: ApiFilter = { id: f.id, name: f.name, filterType: f.filter_type };
  if (detailed) {
    const d = filterDef(f);
    out.excludeSelected = d.excludeSelected;
    out.query = { operator: d.query.operator, criteria: d.query.criteria, includeParent: d.includeParent };
  }
  out.applied = f.id === appliedId;
  return out;
}

/** The filters of a sheet the caller can see (shared ones and their own), oldest first. */
export async function visibleFilters(db: Queryable, actor: Actor, sheetId: number): Promise<{ filters: FilterRow[]; appliedId: number | undefined }> {
  const rows = await filtersVisibleTo(db, sheetId, actor.user.id);
  const applied = await appliedFilterId(db, sheetId, actor.user.id);
  const appliedId = applied !== undefined && rows.some((r) => r.id === applied) ? applied : undefined;
  return { filters: rows, appliedId };
}

export async function listFilters(db: Queryable, actor: Actor, sheetId: number): Promise<ApiFilter[]> {
  await sheetFor(db, actor, sheetId, 'VIEWER');
  const { filters, appliedId } = await visibleFilters(db, actor, sheetId);
  return filters.map((f) => presentFilter(f, appliedId, true));
}

export async function getFilter(db: Queryable, actor: Actor, sheetId: number, filterId: number): Promise<ApiFilter> {
  await sheetFor(db, actor, sheetId, 'VIEWER');
  const { filters, appliedId } = await visibleFilters(db, actor, sheetId);
  const f = filters.find((x) => x.id === filterId);
  if (f === undefined) throw apiError(1182, filterId, sheetId);
  return presentFilter(f, appliedId, true);
}

interface FilterInput {
  name?: string;
  filterType?: FilterType;
  excludeSelected?: boolean;
  includeParent?: boolean;
  query?: CriteriaQuery;
  applied?: boolean;
}

const FILTER_FIELDS = new Set(['id', 'name', 'filterType', 'excludeSelected', 'query', 'applied']);

function parseFilterBody(body: unknown, columns: readonly ColumnDef[], creating: boolean): FilterInput {
  const b = asObject(body, 'a Filter object');
  const unknown = Object.keys(b).filter((k) => !FILTER_FIELDS.has(k));
  if (unknown.length > 0) throw apiError(1032, unknown.join(', '));
  const out: FilterInput = {};
  if (b.name !== undefined || creating) {
    if (b.name === undefined || b.name === null || b.name === '') throw apiError(1012, 'name');
    if (typeof b.name !== 'string' || b.name.trim() === '') throw apiError(1031, String(b.name), 'name');
    if (b.name.length > 50) throw apiError(1041, 'name', 50, b.name.length);
    out.name = b.name.trim();
  }
  if (b.filterType !== undefined) {
    if (b.filterType !== 'PERSONAL' && b.filterType !== 'SHARED') throw apiError(1031, String(b.filterType), 'filterType');
    out.filterType = b.filterType;
  }
  if (b.excludeSelected !== undefined) {
    out.excludeSelected = bodyBool(b.excludeSelected, 'excludeSelected');
  }
  if (b.query !== undefined || creating) {
    if (b.query === undefined || b.query === null) throw apiError(1183);
    out.query = parseQuery(b.query, columns, 'query');
    const inc = (b.query as Record<string, unknown>).includeParent;
    out.includeParent = inc === undefined ? undefined : bodyBool(inc, 'query.includeParent');
  }
  if (b.applied !== undefined) {
    out.applied = bodyBool(b.applied, 'applied');
  }
  return out;
}

async function assertNameFree(tx: Queryable, sheetId: number, actor: Actor, name: string, type: FilterType, exceptId?: number): Promise<void> {
  const hits = await filterIdsNamed(tx, sheetId, nameKey(name), type, actor.user.id);
  if (hits.some((id) => id !== exceptId)) throw apiError(1184, sheetId, name, type);
}

/** A shared filter changed: the sheet changed for everyone who reads it. */
function sharedChange(ctx: WriteContext, filterId: number, what: string): void {
  ctx.changes.meta = true;
  ctx.events.push({ objectType: 'SHEET', action: 'UPDATE', objectId: ctx.sheet.id, details: { filterId, filter: what } });
}

export async function createFilter(store: SheetStore, actor: Actor, sheetId: number, body: unknown): Promise<{ filter: ApiFilter; version: number; changed: boolean }> {
  const out = await writeSheet(store, actor, sheetId, 'VIEWER', async (ctx) => {
    const input = parseFilterBody(body, ctx.model.columns, true);
    const type = input.filterType ?? 'PERSONAL';
    if (type === 'SHARED' && !atLeast(ctx.level, 'ADMIN')) throw apiError(1181);
    await assertNameFree(ctx.tx, sheetId, actor, input.name!, type);
    const row: FilterRow = {
      id: newId(),
      sheet_id: sheetId,
      name: input.name!,
      name_key: nameKey(input.name!),
      filter_type: type,
      owner_id: actor.user.id,
      exclude_selected: input.excludeSelected === true ? 1 : 0,
      include_parent: input.includeParent === true ? 1 : 0,
      query: JSON.stringify(input.query),
      created_at: ctx.now,
      modified_at: ctx.now,
    };
    await insertFilters(ctx.tx, [row]);
    if (input.applied === true) await setAppliedFilter(ctx.tx, sheetId, actor.user.id, row.id, true);
    if (type === 'SHARED') sharedChange(ctx, row.id, 'CREATE');
    return presentFilter(row, input.applied === true ? row.id : undefined, true);
  });
  return { filter: out.result, version: out.version, changed: out.changed };
}

async function filterForChange(ctx: WriteContext, actor: Actor, filterId: number): Promise<FilterRow> {
  const f = await findFilter(ctx.tx, ctx.sheet.id, filterId);
  if (f === undefined || (f.filter_type === 'PERSONAL' && f.owner_id !== actor.user.id)) throw apiError(1182, filterId, ctx.sheet.id);
  return f;
}

/**
 * Update a filter: name, type, excludeSelected, query, and `applied` (the caller's own
 * choice, which any user who sees the filter may make; the rest of a shared filter needs ADMIN).
 */
export async function updateFilter(store: SheetStore, actor: Actor, sheetId: number, filterId: number, body: unknown): Promise<{ filter: ApiFilter; version: number; changed: boolean }> {
  const out = await writeSheet(store, actor, sheetId, 'VIEWER', async (ctx) => {
    const f = await filterForChange(ctx, actor, filterId);
    const input = parseFilterBody(body, ctx.model.columns, false);
    const b = body as Record<string, unknown>;
    if (b.id !== undefined && b.id !== filterId) throw apiError(1029);
    const edits = input.name !== undefined || input.filterType !== undefined || input.excludeSelected !== undefined || input.query !== undefined;
    const type = input.filterType ?? f.filter_type;
    if (edits && (f.filter_type === 'SHARED' || type === 'SHARED') && !atLeast(ctx.level, 'ADMIN')) throw apiError(1181);
    let next = f;
    if (edits) {
      const name = input.name ?? f.name;
      if (nameKey(name) !== f.name_key || type !== f.filter_type) await assertNameFree(ctx.tx, sheetId, actor, name, type, f.id);
      next = {
        ...f,
        // a shared filter made personal becomes the personal filter of whoever did it
        owner_id: f.filter_type === 'SHARED' && type === 'PERSONAL' ? actor.user.id : f.owner_id,
        name,
        name_key: nameKey(name),
        filter_type: type,
        exclude_selected: input.excludeSelected === undefined ? f.exclude_selected : input.excludeSelected ? 1 : 0,
        include_parent: input.query === undefined ? f.include_parent : input.includeParent === true ? 1 : 0,
        query: input.query === undefined ? f.query : JSON.stringify(input.query),
        modified_at: ctx.now,
      };
      await updateFilterRow(ctx.tx, f.id, { owner_id: next.owner_id, name: next.name, name_key: next.name_key, filter_type: next.filter_type, exclude_selected: next.exclude_selected, include_parent: next.include_parent, query: next.query, modified_at: next.modified_at });
      if (f.filter_type === 'SHARED' || type === 'SHARED') sharedChange(ctx, f.id, 'UPDATE');
      // a filter that became personal is no longer seen (nor applied) by others
      if (f.filter_type === 'SHARED' && type === 'PERSONAL') await unapplyFilterForOthers(ctx.tx, f.id, actor.user.id);
    }
    if (input.applied !== undefined) await setAppliedFilter(ctx.tx, sheetId, actor.user.id, f.id, input.applied);
    return presentFilter(next, await appliedFilterId(ctx.tx, sheetId, actor.user.id), true);
  });
  return { filter: out.result, version: out.version, changed: out.changed };
}

export async function deleteFilter(store: SheetStore, actor: Actor, sheetId: number, filterId: number): Promise<{ version: number; changed: boolean }> {
  const out = await writeSheet(store, actor, sheetId, 'VIEWER', async (ctx) => {
    const f = await filterForChange(ctx, actor, filterId);
    if (f.filter_type === 'SHARED' && !atLeast(ctx.level, 'ADMIN')) throw apiError(1181);
    await deleteFilterRow(ctx.tx, f.id);
    if (f.filter_type === 'SHARED') sharedChange(ctx, f.id, 'DELETE');
  });
  return { version: out.version, changed: out.changed };
}

/**
 * The filter a read applies: the one named by filterId (1182 when the caller cannot see it),
 * else with include=filters the caller's applied filter; undefined when none applies.
 */
export async function filterForRead(db: Queryable, actor: Actor, sheetId: number, filterId: string | undefined, includeFilters: boolean): Promise<{ applied: FilterRow | undefined; visible: FilterRow[]; appliedId: number | undefined } | undefined> {
  if (filterId === undefined && !includeFilters) return undefined;
  const { filters, appliedId } = await visibleFilters(db, actor, sheetId);
  if (filterId !== undefined) {
    const id = /^\d{1,19}$/.test(filterId.trim()) ? Number(filterId.trim()) : NaN;
    const f = filters.find((x) => x.id === id);
    if (f === undefined) throw apiError(1182, filterId, sheetId);
    return { applied: f, visible: filters, appliedId };
  }
  return { applied: filters.find((x) => x.id === appliedId), visible: filters, appliedId };
}

/**
 * List Columns with include=filters: each column the caller's applied filter tests carries
 * `filter` (type CUSTOM, excludeSelected, its criteria without columnId).
 */
export async function columnFilters(db: Queryable, actor: Actor, sheetId: number): Promise<Map<number, { type: 'CUSTOM'; excludeSelected: boolean; criteria: Array<{ operator: string; values?: string[] }> }>> {
  const out = new Map<number, { type: 'CUSTOM'; excludeSelected: boolean; criteria: Array<{ operator: string; values?: string[] }> }>();
  const f = (await filterForRead(db, actor, sheetId, undefined, true))?.applied;
  if (f === undefined) return out;
  const def = filterDef(f);
  for (const c of def.query.criteria) {
    if (c.columnId === undefined) continue;
    let entry = out.get(c.columnId);
    if (entry === undefined) {
      entry = { type: 'CUSTOM', excludeSelected: def.excludeSelected, criteria: [] };
      out.set(c.columnId, entry);
    }
    entry.criteria.push({ operator: c.operator, ...(c.values ? { values: [...c.values] } : {}) });
  }
  return out;
}

function matchContext(model: SheetModel, actor: Actor, now: number): MatchContext {
  return { today: dayOfEpochMs(now)!, userEmail: actor.user.email, rowNumberOf: (id) => model.tree.rowNumberOf(id) };
}

type SystemOf = (row: RowState) => { createdAt: number; modifiedAt: number; createdBy?: { email: string; name?: string }; modifiedBy?: { email: string; name?: string } };

/** Attachments and comments per row (HAS_ATTACHMENTS, HAS_COMMENTS and their negations). */
export interface ThreadCounts {
  attachments: ReadonlyMap<number, number>;
  comments: ReadonlyMap<number, number>;
}

/** The rows of a model a filter hides. */
export function hiddenRows(model: SheetModel, f: FilterRow, actor: Actor, system: SystemOf, now = clock.now(), counts?: ThreadCounts): Set<number> {
  const critical = criticalRowsOf(model);
  const rows = [...model.rows.values()].map((r) => ({
    id: r.id, parentId: model.tree.parentOf(r.id), cells: r.cells,
    facts: {
      locked: model.tree.get(r.id)?.locked ?? false, system: system(r), attachments: counts?.attachments.get(r.id) ?? 0, comments: counts?.comments.get(r.id) ?? 0,
      critical: critical?.has(r.id) === true,
    },
  }));
  return filteredOutRows(filterDef(f), rows, model.columnsById, matchContext(model, actor, now));
}

// ---- conditional formatting

export async function readRules(db: Queryable, sheetId: number): Promise<ConditionalRule[]> {
  const r = await rulesJson(db, sheetId);
  return r === undefined ? [] : (JSON.parse(r) as ConditionalRule[]);
}

export interface ApiConditionalRule {
  id: number;
  format: string;
  columnIds?: number[];
  query: CriteriaQuery;
}

const presentRule = (r: ConditionalRule): ApiConditionalRule => ({ id: r.id, format: r.format, ...(r.columnIds ? { columnIds: [...r.columnIds] } : {}), query: r.query });

export async function listRules(db: Queryable, actor: Actor, sheetId: number): Promise<ApiConditionalRule[]> {
  await sheetFor(db, actor, sheetId, 'VIEWER');
  return (await readRules(db, sheetId)).map(presentRule);
}

function parseRule(raw: unknown, columns: readonly ColumnDef[], attr: string, keepId: Set<number>): ConditionalRule {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw apiError(1031, JSON.stringify(raw), attr);
  const r = raw as Record<string, unknown>;
  const unknown = Object.keys(r).filter((k) => !['id', 'format', 'columnIds', 'query'].includes(k));
  if (unknown.length > 0) throw apiError(1032, unknown.map((k) => `${attr}.${k}`).join(', '));
  if (r.format === undefined || r.format === null || r.format === '') throw apiError(1012, `${attr}.format`);
  const format = normaliseFormat(r.format, `${attr}.format`);
  if (r.query === undefined || r.query === null) throw apiError(1012, `${attr}.query`);
  const query = parseQuery(r.query, columns, `${attr}.query`);
  const rule: ConditionalRule = { id: typeof r.id === 'number' && keepId.has(r.id) ? r.id : newId(), query, format };
  if (r.columnIds !== undefined && r.columnIds !== null) {
    if (!Array.isArray(r.columnIds) || r.columnIds.length === 0) throw apiError(1031, JSON.stringify(r.columnIds), `${attr}.columnIds`);
    for (const id of r.columnIds) if (typeof id !== 'number' || !columns.some((c) => c.id === id)) throw apiError(1036, String(id));
    rule.columnIds = [...new Set(r.columnIds as number[])];
  }
  return rule;
}

/** Replace a sheet's conditional-format rules (ADMIN): `{ "rules": [...] }`, earlier rules win. */
export async function setRules(store: SheetStore, actor: Actor, sheetId: number, body: unknown): Promise<{ rules: ApiConditionalRule[]; version: number }> {
  const out = await writeSheet(store, actor, sheetId, 'ADMIN', async (ctx) => {
    const b = asObject(body, 'an object with rules');
    const extra = Object.keys(b).filter((k) => k !== 'rules');
    if (extra.length > 0) throw apiError(1032, extra.join(', '));
    if (b.rules === undefined || b.rules === null) throw apiError(1012, 'rules');
    if (!Array.isArray(b.rules)) throw apiError(1031, JSON.stringify(b.rules), 'rules');
    const old = await readRules(ctx.tx, sheetId);
    const keep = new Set(old.map((r) => r.id));
    const rules = b.rules.map((r, i) => parseRule(r, ctx.model.columns, `rules[${i}]`, keep));
    await replaceRules(ctx.tx, sheetId, rules.length > 0 ? JSON.stringify(rules) : undefined);
    ctx.changes.meta = true;
    ctx.events.push({ objectType: 'SHEET', action: 'UPDATE', objectId: sheetId, details: { conditionalFormats: rules.length } });
    return rules.map(presentRule);
  });
  return { rules: out.result, version: out.version };
}

/** The conditional format of each cell of each row that has one (rowId -> columnId -> format). */
export function conditionalFormats(model: SheetModel, rules: readonly ConditionalRule[], actor: Actor, rows: Iterable<RowState>, system: SystemOf, now = clock.now()): Map<number, Map<number, string>> {
  const out = new Map<number, Map<number, string>>();
  if (rules.length === 0) return out;
  const critical = criticalRowsOf(model);
  const m = matchContext(model, actor, now);
  for (const r of rows) {
    const f = conditionalFormatsOf(rules, model.columns, model.columnsById, r.cells, { locked: model.tree.get(r.id)?.locked ?? false, system: system(r), critical: critical?.has(r.id) === true }, m);
    if (f !== undefined) out.set(r.id, f);
  }
  return out;
}

// ---- what column changes, copies and deletes do to views

/** 1087 when a conditional-format rule reads or formats the column (before a delete or type change). */
export async function assertColumnNotInRules(tx: Queryable, sheetId: number, columnId: number): Promise<void> {
  const rules = await readRules(tx, sheetId);
  if (rules.some((r) => columnsOf(r.query).includes(columnId) || r.columnIds?.includes(columnId) === true)) throw apiError(1087);
}

/** A deleted column leaves the filters' criteria; a filter left with none goes. */
export async function dropColumnFromFilters(tx: Queryable, sheetId: number, columnId: number, now: number): Promise<boolean> {
  const filters = await sheetFilters(tx, sheetId);
  let sharedChanged = false;
  for (const f of filters) {
    const q = JSON.parse(f.query) as CriteriaQuery;
    const criteria = q.criteria.filter((c) => c.columnId !== columnId);
    if (criteria.length === q.criteria.length) continue;
    if (f.filter_type === 'SHARED') sharedChanged = true;
    if (criteria.length === 0) {
      await deleteFilterRow(tx, f.id);
    } else {
      await updateFilterRow(tx, f.id, { query: JSON.stringify({ ...q, criteria }), modified_at: now });
    }
  }
  return sharedChanged;
}

function remapQuery(q: CriteriaQuery, colMap: ReadonlyMap<number, number>): CriteriaQuery {
  return { ...q, criteria: q.criteria.map((c) => (c.columnId === undefined ? { ...c } : { ...c, columnId: colMap.get(c.columnId) ?? c.columnId })) };
}

/**
 * A sheet copy keeps the conditional-format rules (they are part of the sheet's look) and,
 * with include=filters, the shared filters; columns follow `colMap`; the copier owns them.
 */
export async function copyViews(db: Queryable, fromSheetId: number, toSheetId: number, colMap: ReadonlyMap<number, number>, withFilters: boolean, ownerId: number, now: number): Promise<void> {
  const rules = await readRules(db, fromSheetId);
  if (rules.length > 0) {
    const copied = rules.map((r) => ({ ...r, id: newId(), query: remapQuery(r.query, colMap), ...(r.columnIds ? { columnIds: r.columnIds.map((id) => colMap.get(id) ?? id) } : {}) }));
    await replaceRules(db, toSheetId, JSON.stringify(copied));
  }
  if (!withFilters) return;
  const filters = await sheetFilters(db, fromSheetId, 'SHARED');
  await insertFilters(db, filters.map((f) => ({ ...f, id: newId(), sheet_id: toSheetId, owner_id: ownerId, query: JSON.stringify(remapQuery(JSON.parse(f.query) as CriteriaQuery, colMap)), created_at: now, modified_at: now })));
}

/** Views go with their sheets. */
export async function deleteViews(db: Queryable, sheetIds: number[]): Promise<void> {
  await deleteViewsOf(db, sheetIds);
}
