import type { ColumnDef } from './columns.ts';
import { cellKey, type StoredCell, type StoredRowCells } from './cells.ts';
import type { RowLocation, RowMutationOptions, RowTree } from './rows.ts';
import type { CrossSheetData, FormulaEngine } from './formula/index.ts';
import { assignSortKeys } from './sortKeys.ts';
import type { ProjectSettings } from './calendar.ts';

/**
 * A sheet's columns and rows in memory, and the changesets its mutations return.
 *
 * Services keep models in a per-process cache checked against the sheet's version in the
 * database (services/sheets/sheetCache.ts), change them inside a write transaction
 * (services/sheets/sheetWrites.ts), and the store persists what a changeset names
 * (store/sheetModels.ts). Nothing here knows of HTTP or SQL.
 */

/** [modifiedAt, modifiedBy] of a cell's last write, and the address of an author without an account (an update request's recipient; modifiedBy is then null). */
export type CellMeta = [number, number | null, string?];

export interface RowState {
  id: number;
  parentId: number | null;
  sortKey: number | undefined;
  expanded: boolean;
  locked: boolean;
  format: string | undefined;
  cells: StoredRowCells;
  /** columnId -> [modifiedAt, modifiedBy] of the cell's last write */
  meta: Record<string, CellMeta>;
  createdAt: number;
  createdBy: number | null;
  modifiedAt: number;
  modifiedBy: number | null;
}

export interface SheetModel {
  sheetId: number;
  version: number;
  columns: ColumnDef[];
  columnsById: Map<number, ColumnDef>;
  rows: Map<number, RowState>;
  tree: RowTree;
  /** The sheet's formulas (services/computed/formulas.ts); undefined: not looked at yet; null: none. */
  formulas?: FormulaEngine | null;
  /** The data of `{Reference Name}` for the formulas (services/computed/crossSheet.ts sets it before use). */
  crossSheet?: (name: string) => CrossSheetData;
  /** The data of a sheet summary field `[Title]#` for the formulas (services/computed/summaryFields.ts sets it). */
  summaryFields?: (title: string) => CrossSheetData;
  /**
   * The sheet's projectSettings when it has dependencies enabled (its dates are scheduled:
   * services/computed/schedule.ts); undefined for any other sheet.
   */
  project?: ProjectSettings;
}

export function indexColumns(columns: ColumnDef[]): Map<number, ColumnDef> {
  return new Map(columns.map((c) => [c.id, c]));
}

/** One written cell whose content changed: its state and meta before, its state after. */
export interface CellEdit {
  rowId: number;
  columnId: number;
  before: StoredCell | undefined;
  beforeMeta: CellMeta | undefined;
  after: StoredCell | undefined;
}

/**
 * What the mutations of one write changed in a model: the written cells with their old and new
 * states (cell history, automation), rows added, updated and deleted, and whether the columns,
 * the row order or something else a reader sees changed. Persisting a model writes what its
 * changeset names, and nothing else.
 */
export class Changeset {
  readonly cells: CellEdit[] = [];
  readonly added = new Set<number>();
  readonly updated = new Set<number>();
  /**
   * Of `updated`, the rows only settleOrder changed: their place (sort key, parent, expanded,
   * locked) and nothing else, so that only their place is stored again (a sort of 100,000 rows
   * otherwise wrote every row's cells anew).
   */
  readonly placed = new Set<number>();
  readonly deleted = new Set<number>();
  /** The column definitions changed (including a column's next auto-number). */
  columns = false;
  /** Existing rows moved (sort, location update, indent): every stored key is re-derived. */
  order = false;
  /** Something else a reader of the sheet sees changed (filters, summary, cross-sheet references). */
  meta = false;
  /**
   * Set by a writer that knows no cell it wrote holds a cell link (new rows never do; an update
   * naming no link source): on a sheet without links, the link index step then does not walk
   * the rows written to look for links.
   */
  noLinksWritten = false;

  get empty(): boolean {
    return this.updated.size === 0 && this.added.size === 0 && this.deleted.size === 0 && !this.columns && !this.order && !this.meta;
  }

  /** The state a cell had before the first write of this changeset that changed it. */
  before(rowId: number, columnId: number): { found: boolean; cell: StoredCell | undefined } {
    for (const e of this.cells) if (e.rowId === rowId && e.columnId === columnId) return { found: true, cell: e.before };
    return { found: false, cell: undefined };
  }
}

/**
 * Whether JSON.stringify(a) === JSON.stringify(b), for plain JSON data (stored cells and their
 * values), without writing either: the same own keys in the same order, keys whose value is
 * undefined left out, arrays' undefined as null. An update of 500 rows x 5 cells compared 5,000
 * texts.
 */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) {
    // two different strings, or a string and anything else, never write the same text
    if (typeof a === 'string' || typeof b === 'string') return false;
    return JSON.stringify(a) === JSON.stringify(b);
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i] ?? null, b[i] ?? null)) return false;
    return true;
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const ka = Object.keys(x);
  const kb = Object.keys(y);
  let j = 0;
  for (const k of ka) {
    const v = x[k];
    if (v === undefined) continue;
    while (j < kb.length && y[kb[j]!] === undefined) j++;
    if (j === kb.length || kb[j] !== k || !sameJson(v, y[k])) return false;
    j++;
  }
  while (j < kb.length && y[kb[j]!] === undefined) j++;
  return j === kb.length;
}

function sameContent(a: StoredCell | undefined, b: StoredCell | undefined): boolean {
  // both blank, or the same content (a cell written to a blank one never is)
  return a === undefined || b === undefined ? a === b : sameJson(a, b);
}

function sameValue(a: StoredCell | undefined, b: StoredCell | undefined): boolean {
  return sameJson(a?.v, b?.v);
}

/**
 * Gives a row its new cells: each named column whose content changed (or, with `compare:
 * 'value'`, whose value changed) is recorded in the changeset with its previous state and
 * stamped with `stamp`. The row is marked updated. Returns the edits it recorded.
 */
export function writeRowCells(
  cs: Changeset,
  row: RowState,
  next: StoredRowCells,
  columnIds: Iterable<number>,
  stamp: CellMeta,
  compare: 'content' | 'value' = 'content',
): CellEdit[] {
  const same = compare === 'content' ? sameContent : sameValue;
  const edits: CellEdit[] = [];
  for (const columnId of columnIds) {
    const key = cellKey(columnId);
    const before = row.cells[key];
    const after = next[key];
    if (same(before, after)) continue;
    const beforeMeta = row.meta[key];
    const edit = { rowId: row.id, columnId, before, beforeMeta, after };
    cs.cells.push(edit);
    edits.push(edit);
    // a key the meta did not have: its shape changes (compactMetas)
    if (beforeMeta === undefined) compactMetas.delete(row.meta);
    row.meta[key] = stamp;
  }
  row.cells = next;
  if (!cs.added.has(row.id)) cs.updated.add(row.id);
  // its cells are stored with it again, not only its place
  cs.placed.delete(row.id);
  return edits;
}

/**
 * Rows' meta objects of V8's fast shape that no key was added to since (a spread copy made when
 * a model was saved, store/sheetModels.ts compactRows): writeRowCells changes a row's meta in
 * place, and a save copies only those not here (an update of 500 rows x 5 cells copied all 500).
 * A row's meta is read by key and written as JSON, never compared by identity.
 */
const compactMetas = new WeakSet<object>();

export function markCompactMeta(meta: RowState['meta']): void {
  compactMetas.add(meta);
}

export function isCompactMeta(meta: RowState['meta']): boolean {
  return compactMetas.has(meta);
}

/**
 * Every row of a model in display order, kept while the tree's display order (an array the tree
 * replaces, never changes, when rows move, come or go) and the model's rows are the same: a
 * whole-sheet read asked for it each time, 25,000 lookups by 53-bit id (4 to 17 ms of a repeated
 * Get Sheet whose body was kept). Rows come and go only through addModelRows and
 * deleteModelRows, which drop it; a row's cells change in place (the same RowState).
 */
const inOrder = new WeakMap<SheetModel, { order: readonly number[]; rows: Map<number, RowState>; list: readonly RowState[] }>();

export function rowsInOrder(m: SheetModel): readonly RowState[] {
  const order = m.tree.displayOrder();
  const kept = inOrder.get(m);
  if (kept !== undefined && kept.order === order && kept.rows === m.rows) return kept.list;
  const list = Object.freeze(order.map((id) => m.rows.get(id)!));
  inOrder.set(m, { order, rows: m.rows, list });
  return list;
}

/** Adds rows already placed in the tree to the model. */
export function addModelRows(m: SheetModel, cs: Changeset, rows: Iterable<RowState>): void {
  inOrder.delete(m);
  for (const r of rows) {
    m.rows.set(r.id, r);
    cs.added.add(r.id);
  }
}

/** Deletes rows with their children (RowTree.deleteRows); returns every id deleted. */
export function deleteModelRows(m: SheetModel, cs: Changeset, ids: readonly number[], opts: RowMutationOptions & { ignoreMissing?: boolean }): number[] {
  const deleted = m.tree.deleteRows(ids, opts);
  inOrder.delete(m);
  for (const id of deleted) {
    m.rows.delete(id);
    cs.deleted.add(id);
  }
  return deleted;
}

/** Moves rows to a location (RowTree.moveRows). */
export function moveModelRows(m: SheetModel, cs: Changeset, ids: readonly number[], location: RowLocation, opts: RowMutationOptions): void {
  m.tree.moveRows(ids, location, opts);
  cs.order = true;
}

/**
 * Keys for rows that only were added (existing rows kept their order): each block of new rows
 * gets keys between its neighbours. False when the gaps are too small (then re-derive all).
 */
function keyNewRows(model: SheetModel, added: Set<number>): boolean {
  const order = model.tree.displayOrder();
  const at = [...added].filter((id) => model.rows.has(id)).map((id) => model.tree.rowNumberOf(id)! - 1).sort((a, b) => a - b);
  let i = 0;
  while (i < at.length) {
    let j = i;
    while (j + 1 < at.length && at[j + 1] === at[j]! + 1) j++;
    const first = at[i]!;
    const last = at[j]!;
    const block = order.slice(first, last + 1);
    const before = first > 0 ? model.rows.get(order[first - 1]!)!.sortKey : undefined;
    const after = last + 1 < order.length ? model.rows.get(order[last + 1]!)!.sortKey : undefined;
    const around: (number | undefined)[] = [...(before !== undefined ? [before] : []), ...block.map(() => undefined), ...(after !== undefined ? [after] : [])];
    const { keys } = assignSortKeys(around);
    const offset = before !== undefined ? 1 : 0;
    for (let k = 0; k < block.length; k++) {
      const key = keys[k + offset]!;
      if ((before !== undefined && !(key > before)) || (after !== undefined && !(key < after))) return false;
      model.rows.get(block[k]!)!.sortKey = key;
    }
    i = j + 1;
  }
  return true;
}

/**
 * Brings the rows' stored order fields in line with the tree before they are persisted: sort
 * keys strictly increasing along display order (only the new rows keyed when nothing else
 * moved), parent, expanded and locked as the tree has them. Rows whose fields changed join
 * the changeset's updated rows.
 */
export function settleOrder(model: SheetModel, cs: Changeset): void {
  const order = model.tree.displayOrder();
  const onlyAdded = !cs.order && keyNewRows(model, cs.added);
  if (!onlyAdded) {
    const { keys, changed } = assignSortKeys(order.map((id) => model.rows.get(id)!.sortKey));
    for (const i of changed) {
      const r = model.rows.get(order[i]!)!;
      r.sortKey = keys[i];
      placed(cs, r.id);
    }
  }
  for (const id of onlyAdded ? [...cs.added, ...cs.updated] : order) {
    if (!model.tree.has(id)) continue;
    const r = model.rows.get(id)!;
    const node = model.tree.get(id)!;
    const parent = model.tree.parentOf(id);
    if (r.parentId !== parent || r.expanded !== node.expanded || r.locked !== node.locked) {
      r.parentId = parent;
      r.expanded = node.expanded;
      r.locked = node.locked;
      placed(cs, id);
    }
  }
}

/** A row settleOrder gave a new place: in `updated`, and in `placed` unless the write changed it otherwise. */
function placed(cs: Changeset, id: number): void {
  if (cs.updated.has(id) || cs.added.has(id)) return;
  cs.updated.add(id);
  cs.placed.add(id);
}
