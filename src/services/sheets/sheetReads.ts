import type { Queryable } from '../../store/db.ts';
import type { SheetRow } from '../../store/sheets.ts';
import type { ColumnDef } from '../../engine/columns.ts';
import type { StoredContact } from '../../engine/contacts.ts';
import { rowsInOrder, type RowState, type SheetModel } from '../../engine/model.ts';
import { pageWindow, type Paging } from '../../paging.ts';
import { apiError } from '../../errors.ts';
import type { AccessLevel } from '../access/access.ts';
import { nameOrEmail, type Actor, type ReadOptions } from '../platform/context.ts';
import { readSheet } from '../computed/currentValues.ts';
import { usersByIds } from '../identity/users.ts';
import { rowThreadCounts } from '../collaboration/attachments.ts';
import { linksOut } from '../computed/cellLinks.ts';
import { listRefs, presentRefs, type PresentedRef } from '../computed/crossSheet.ts';
import { summaryOfModel, type SummaryRead } from '../computed/summary.ts';
import { conditionalFormats, filterForRead, hiddenRows, presentFilter, readRules } from './filters.ts';
import { clock } from '../../clock.ts';

/** Name and email of a user that created or last modified a row. */
export type UserLookup = (id: number | null) => StoredContact | undefined;

/** What Get Sheet and Get Row select, as the query names it. */
export interface SheetQuery {
  filterId?: string;
  rowIds?: number[];
  rowNumbers?: number[];
  /** rowsModifiedSince, as epoch milliseconds */
  rowsModifiedSince?: number;
  columnIds?: number[];
  /** page / pageSize, when either was given */
  paging?: Paging;
  /** ifVersionAfter: the caller's version; an unchanged sheet answers only its id and version */
  ifVersionAfter?: number;
}

/**
 * Whether rows shown with these columns and read options show who created or last modified
 * them: include=writerInfo, or a Created By or Modified By column.
 */
export function showsWriters(columns: readonly ColumnDef[], ro: ReadOptions): boolean {
  return ro.include.has('writerInfo') || columns.some((c) => c.systemColumnType === 'CREATED_BY' || c.systemColumnType === 'MODIFIED_BY');
}

/** A lookup that knows no one: for rows shown without their writers. */
const NO_WRITERS: UserLookup = () => undefined;

/**
 * The writers of rows of `model` as they are shown with `ro` (showsWriters): read only when
 * they are shown, so that an answer without them makes no query for them.
 */
export async function writersOf(db: Queryable, model: SheetModel, rows: Iterable<RowState>, ro: ReadOptions): Promise<UserLookup> {
  return showsWriters(model.columns, ro) ? userLookup(db, rows) : NO_WRITERS;
}

/** Name and email of every user that created or last modified one of the rows. */
export async function userLookup(db: Queryable, rows: Iterable<RowState>): Promise<UserLookup> {
  const ids = new Set<number>();
  for (const r of rows) {
    if (r.createdBy !== null) ids.add(r.createdBy);
    if (r.modifiedBy !== null) ids.add(r.modifiedBy);
  }
  const users = await usersByIds(db, [...ids]);
  const byId = new Map<number, StoredContact>(users.map((u) => [u.id, { email: u.email, name: nameOrEmail(u) }]));
  return (id) => (id === null ? undefined : byId.get(id));
}

/** How the rows of a model look through the caller's filter and the sheet's conditional formats. */
async function rowViews(db: Queryable, actor: Actor, ro: ReadOptions, model: SheetModel, filterId: string | undefined) {
  const view = await filterForRead(db, actor, model.sheetId, filterId, ro.include.has('filters'));
  const rules = ro.include.has('format') ? await readRules(db, model.sheetId) : [];
  // filters and rules may read who created or modified any row
  const users = view?.applied !== undefined || rules.length > 0 ? await userLookup(db, model.rows.values()) : undefined;
  const system = (r: RowState) => ({ createdAt: r.createdAt, modifiedAt: r.modifiedAt, createdBy: users?.(r.createdBy), modifiedBy: users?.(r.modifiedBy) });
  const counts = view?.applied !== undefined && /"(HAS|NO)_(ATTACHMENTS|COMMENTS)"/.test(JSON.stringify(view.applied)) ? await rowThreadCounts(db, model.sheetId) : undefined;
  const hidden = view === undefined ? undefined : view.applied === undefined ? new Set<number>() : hiddenRows(model, view.applied, actor, system, clock.now(), counts);
  return { view, rules, users, system, hidden };
}

function selectedRows(model: SheetModel, q: SheetQuery): readonly RowState[] {
  const order = model.tree.displayOrder();
  let ids: readonly number[] = order;
  const since = q.rowsModifiedSince;
  if (q.rowIds && q.rowIds.length > 0) {
    const want = new Set(q.rowIds);
    ids = order.filter((id) => want.has(id));
  } else if (q.rowNumbers && q.rowNumbers.length > 0) {
    ids = q.rowNumbers.map((n) => model.tree.rowIdAt(n)).filter((id): id is number => id !== undefined).sort((a, b) => model.tree.rowNumberOf(a)! - model.tree.rowNumberOf(b)!);
  } else {
    // every row: kept between reads while the rows and their order stay
    const all = rowsInOrder(model);
    return since === undefined ? all : all.filter((r) => r.modifiedAt >= since);
  }
  return since === undefined ? ids.map((id) => model.rows.get(id)!) : ids.map((id) => model.rows.get(id)!).filter((r) => r.modifiedAt >= since);
}

/** What a reader of rows sees of them: who wrote them, the filter's hidden rows, conditional formats, cell links out. */
export interface RowsView {
  sheet: SheetRow;
  level: AccessLevel;
  model: SheetModel;
  rows: readonly RowState[];
  users: UserLookup;
  /** Rows the applied filter hides (undefined: no filter looked at). */
  hidden: Set<number> | undefined;
  conditionalFormats: ReturnType<typeof conditionalFormats> | undefined;
  linksOut: Awaited<ReturnType<typeof linksOut>>;
}

/** Get Sheet: the sheet, its selected rows and what `include` asks for beside them. */
export interface SheetView extends RowsView {
  unchanged: false;
  /** columnIds: the columns asked for (undefined: all) */
  columns: ColumnDef[] | undefined;
  /** exclude=filteredOutRows dropped the hidden rows (and totalRowCount leaves them out) */
  droppedHidden: boolean;
  totalRowCount: number;
  /** the applied filter shows parents of matching rows */
  showParentRowsForFilters: boolean | undefined;
  owner?: { id: number; email: string };
  summary?: SummaryRead;
  crossSheetReferences?: PresentedRef[];
  filters?: unknown[];
}

export async function getSheet(db: Queryable, actor: Actor, sheetId: number, ro: ReadOptions, q: SheetQuery): Promise<SheetView | { unchanged: true; id: number; version: number }> {
  const { sheet, level, model } = await readSheet(db, actor, sheetId);
  if (q.ifVersionAfter !== undefined && sheet.version <= q.ifVersionAfter) return { unchanged: true, id: sheet.id, version: sheet.version };
  const columnIds = q.columnIds ?? [];
  const columns = columnIds.length > 0 ? model.columns.filter((c) => columnIds.includes(c.id)) : undefined;
  let rows = selectedRows(model, q);
  const views = await rowViews(db, actor, ro, model, q.filterId);
  const { hidden } = views;
  // exclude=filteredOutRows: the rows a filter hides are left out and not counted
  const droppedHidden = hidden !== undefined && hidden.size > 0 && ro.exclude.has('filteredOutRows');
  if (droppedHidden) rows = rows.filter((r) => !hidden.has(r.id));
  if (q.paging) {
    const w = pageWindow(rows.length, q.paging);
    rows = w.limit === null ? rows : rows.slice(w.offset, w.offset + w.limit);
  }
  // the rows' writers and the cell links out, read at once (on PostgreSQL, two connections of the
  // pool: one round trip instead of two, on every read)
  const [users, links] = await Promise.all([views.users ?? writersOf(db, model, rows, ro), linksOut(db, sheetId)]);
  const out: SheetView = {
    unchanged: false,
    sheet, level, model, rows, columns, droppedHidden, hidden,
    totalRowCount: droppedHidden ? model.rows.size - hidden.size : model.rows.size,
    users,
    conditionalFormats: views.rules.length > 0 ? conditionalFormats(model, views.rules, actor, rows, views.system) : undefined,
    linksOut: links,
    showParentRowsForFilters: views.view?.applied !== undefined ? views.view.applied.include_parent === 1 : undefined,
  };
  if (ro.include.has('ownerInfo')) {
    const owner = (await usersByIds(db, [sheet.owner_id]))[0];
    if (owner) out.owner = { id: owner.id, email: owner.email };
  }
  if (ro.include.has('summary')) out.summary = await summaryOfModel(db, model, level);
  if (ro.include.has('crossSheetReferences')) out.crossSheetReferences = await presentRefs(db, await listRefs(db, sheetId));
  if (ro.include.has('filterDefinitions') || ro.include.has('filters')) {
    const v = views.view ?? (await filterForRead(db, actor, sheetId, undefined, true))!;
    out.filters = v.visible.map((f) => presentFilter(f, v.appliedId, ro.include.has('filterDefinitions')));
  }
  return out;
}

/** Get Row: one row of the sheet as Get Sheet shows it. */
export async function getRow(db: Queryable, actor: Actor, sheetId: number, rowId: number, ro: ReadOptions, filterId: string | undefined): Promise<RowsView & { row: RowState }> {
  const { sheet, level, model } = await readSheet(db, actor, sheetId);
  const row = model.rows.get(rowId);
  if (!row) throw apiError(1006);
  const views = await rowViews(db, actor, ro, model, filterId);
  const [users, links] = await Promise.all([views.users ?? writersOf(db, model, [row], ro), linksOut(db, sheetId)]);
  return {
    sheet, level, model, row, rows: [row], hidden: views.hidden,
    users,
    conditionalFormats: views.rules.length > 0 ? conditionalFormats(model, views.rules, actor, [row], views.system) : undefined,
    linksOut: links,
  };
}
