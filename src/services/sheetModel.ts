import type { Queryable, Store, Tx } from '../store/db.ts';
import {
  findSheet, listColumns, listRows, recordToColumn, columnToRecord, deleteRowsById, insertRows, lockSheetRow, saveColumns, setLockTimeout,
  updateRow, updateSheet, type SheetRow,
} from '../store/sheets.ts';
import { insertCellHistory } from '../store/cellHistory.ts';
import type { ColumnDef } from '../engine/columns.ts';
import type { StoredCell, StoredRowCells } from '../engine/cells.ts';
import { RowTree } from '../engine/rows.ts';
import type { CrossSheetData, FormulaEngine } from '../engine/formula/index.ts';
import { assignSortKeys } from '../engine/sortKeys.ts';
import { apiError } from '../errors.ts';
import { apiErrorOf } from './errors.ts';
import type { AccessLevel } from './access.ts';
import type { Actor } from './context.ts';
import { sheetFor } from './permissions.ts';
import { authorOf, recordEvents, type ChangeEvent } from './events.ts';
import { currentFormulas } from './formulas.ts';

/**
 * A sheet's columns and rows in memory. Readers get it from a per-process cache checked
 * against the sheet's version in the database (no state lives only here); writers take it out
 * of the cache, change it inside the request's transaction under a lock on the sheet, write
 * back only what changed, bump the version, and put it back after the commit.
 *
 * A reader may bring formula results up to date in the cached model (a source of `{Reference}`
 * committed since, TODAY() on a new day, values computed afresh for a model just loaded). Those
 * rows are listed in `unsaved`, and the next write of the model persists them with its own
 * changes: a write compares against what is stored, not against what readers already saw.
 */
export interface RowState {
  id: number;
  parentId: number | null;
  sortKey: number | undefined;
  expanded: boolean;
  locked: boolean;
  format: string | undefined;
  cells: StoredRowCells;
  /** columnId -> [modifiedAt, modifiedBy] of the cell's last write */
  meta: Record<string, [number, number | null]>;
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
  /** The sheet's formulas (services/formulas.ts); undefined: not looked at yet; null: none. */
  formulas?: FormulaEngine | null;
  /** The data of `{Reference Name}` for the formulas (services/crossSheet.ts sets it before use). */
  crossSheet?: (name: string) => CrossSheetData;
  /** The data of a sheet summary field `[Title]#` for the formulas (services/summary.ts sets it). */
  summaryFields?: (title: string) => CrossSheetData;
  /** Rows whose computed values a reader changed in memory and the database does not hold yet. */
  unsaved?: Set<number>;
}

const MAX_CACHED = 64;
const cache = new Map<number, SheetModel>();

function remember(m: SheetModel): void {
  cache.delete(m.sheetId);
  if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!);
  cache.set(m.sheetId, m);
}

export function forgetSheet(sheetId: number): void {
  cache.delete(sheetId);
}

/** Another process committed `version` of the sheet: an older cached model goes now (jobs/invalidation.ts). */
export function forgetOlder(sheetId: number, version: number): void {
  const hit = cache.get(sheetId);
  if (hit && hit.version < version) cache.delete(sheetId);
}

export function indexColumns(columns: ColumnDef[]): Map<number, ColumnDef> {
  return new Map(columns.map((c) => [c.id, c]));
}

/** The model as stored, read afresh (not cached: readModel caches). */
export async function loadModel(db: Queryable, sheet: SheetRow): Promise<SheetModel> {
  const columns = await listColumns(db, sheet.id);
  const records = await listRows(db, sheet.id);
  const rows = new Map<number, RowState>();
  for (const r of records) {
    rows.set(r.id, {
      id: r.id,
      parentId: r.parent_id,
      sortKey: r.sort_key,
      expanded: !!r.expanded,
      locked: !!r.locked,
      format: r.format ?? undefined,
      cells: JSON.parse(r.cells) as StoredRowCells,
      meta: JSON.parse(r.cell_meta) as Record<string, [number, number | null]>,
      createdAt: r.created_at,
      createdBy: r.created_by,
      modifiedAt: r.modified_at,
      modifiedBy: r.modified_by,
    });
  }
  const tree = RowTree.fromDisplayOrder(records.map((r) => ({ id: r.id, parentId: r.parent_id, expanded: !!r.expanded, locked: !!r.locked })));
  return { sheetId: sheet.id, version: sheet.version, columns, columnsById: indexColumns(columns), rows, tree };
}

/** The model of a sheet as of `sheet.version` (the row just read from the database). */
export async function readModel(db: Queryable, sheet: SheetRow): Promise<SheetModel> {
  const hit = cache.get(sheet.id);
  if (hit && hit.version === sheet.version) return hit;
  const m = await loadModel(db, sheet);
  remember(m);
  return m;
}

/** What a write did, for the Result and the event log. */
export interface WriteContext {
  tx: Tx;
  actor: Actor;
  sheet: SheetRow;
  level: AccessLevel;
  model: SheetModel;
  now: number;
  /** Rows to insert / update (by id), rows deleted, columns changed. */
  dirtyRows: Set<number>;
  newRows: Set<number>;
  deletedRows: Set<number>;
  dirtyColumns: boolean;
  /** Existing rows moved (sort, location update, indent): every stored key is re-derived. */
  orderChanged: boolean;
  /** Something else a reader of the sheet sees changed (cross-sheet references): bump the version. */
  metaChanged?: boolean;
  /** Cell states before they were overwritten: [rowId, columnId, previous cell, previous meta]. */
  history: Array<[number, number, StoredCell | undefined, [number, number | null] | undefined]>;
  events: ChangeEvent[];
}

export interface WriteOptions {
  /** The lock wait before answering 4004 (PostgreSQL). */
  lockTimeoutMs?: number;
}

export interface SheetWriteResult<T> {
  result: T;
  /** Whether the write changed the sheet (its version went up). */
  changed: boolean;
  version: number;
  model: SheetModel;
  sheet: SheetRow;
  level: AccessLevel;
}

/** One sheet taking part in a write: what access it needs. */
export interface SheetWriteTarget {
  sheetId: number;
  needed: AccessLevel;
  /** A write the server makes on its own (cross-sheet updates): no access check. */
  system?: boolean;
}

async function lockSheets(tx: Tx, store: Store, sheetIds: number[], opts: WriteOptions): Promise<void> {
  if (store.dialect !== 'postgres') return; // SQLite: the write transaction is the lock
  await setLockTimeout(tx, opts.lockTimeoutMs ?? store.lockTimeoutMs);
  // ascending ids: two writers over the same sheets never wait on each other in a circle
  for (const id of [...new Set(sheetIds)].sort((a, b) => a - b)) {
    try {
      await lockSheetRow(tx, id);
    } catch (e) {
      if ((e as { code?: string }).code === '55P03') throw apiError(4004, id);
      throw e;
    }
  }
}

async function openWrite(tx: Tx, actor: Actor, target: SheetWriteTarget, now: number): Promise<WriteContext> {
  const { sheet, level } = target.system ? { sheet: await systemSheet(tx, target.sheetId), level: 'OWNER' as AccessLevel } : await sheetFor(tx, actor, target.sheetId, target.needed);
  const model = await readModel(tx, sheet);
  // from here the model is ours: readers of this process reload from the database
  forgetSheet(target.sheetId);
  return {
    tx, actor, sheet, level, model, now,
    dirtyRows: new Set(), newRows: new Set(), deletedRows: new Set(), dirtyColumns: false, orderChanged: false, history: [], events: [],
  };
}

/** Persists what a write context changed, bumps the version and records its events. */
async function closeWrite(ctx: WriteContext): Promise<{ version: number; sheet: SheetRow }> {
  const { tx, sheet, model } = ctx;
  // what readers computed since the last write goes to the database with this one (taken here,
  // not when the write opened: a reader that got the model before may compute until now)
  if (model.unsaved) {
    for (const id of model.unsaved) ctx.dirtyRows.add(id);
    model.unsaved = undefined;
  }
  const changed = ctx.dirtyRows.size > 0 || ctx.newRows.size > 0 || ctx.deletedRows.size > 0 || ctx.dirtyColumns || ctx.orderChanged || ctx.metaChanged === true;
  let version = sheet.version;
  if (changed) {
    await persist(ctx);
    version = sheet.version + 1;
    await updateSheet(tx, sheet.id, { version, modified_at: ctx.now });
    model.version = version;
  }
  if (ctx.events.length > 0) {
    await recordEvents(tx, authorOf(ctx.actor), ctx.events.map((e) => ({ ...e, sheetId: sheet.id, workspaceId: sheet.workspace_id })), ctx.now);
  }
  return { version, sheet: { ...sheet, version, modified_at: changed ? ctx.now : sheet.modified_at } };
}

/**
 * Runs one mutation over several sheets in one transaction (copy or move rows between
 * sheets, cross-sheet updates): every sheet locked (in id order), access checked in the order
 * given, each model changed by `fn`, persisted and versioned as with writeSheet.
 */
export async function writeSheets<T>(
  store: Store,
  actor: Actor,
  targets: SheetWriteTarget[],
  fn: (ctxs: WriteContext[]) => T | Promise<T>,
  opts: WriteOptions = {},
): Promise<{ result: T; sheets: Array<Omit<SheetWriteResult<T>, 'result'>> }> {
  const ids = targets.map((t) => t.sheetId);
  let committed: SheetModel[] = [];
  try {
    const out = await store.db.transaction().execute(async (tx) => {
      await lockSheets(tx, store, ids, opts);
      const now = Date.now();
      const ctxs: WriteContext[] = [];
      for (const t of targets) ctxs.push(await openWrite(tx, actor, t, now));
      for (const ctx of ctxs) for (const h of hooks.opened) await h(ctx);
      const result = await fn(ctxs);
      for (const ctx of ctxs) for (const h of hooks.written) await h(ctx);
      const sheets: Array<Omit<SheetWriteResult<T>, 'result'>> = [];
      for (const ctx of ctxs) {
        const { version, sheet } = await closeWrite(ctx);
        sheets.push({ version, sheet, model: ctx.model, level: ctx.level, changed: version !== ctx.sheet.version });
      }
      committed = ctxs.map((c) => c.model);
      return { result, sheets };
    });
    for (const m of committed) remember(m);
    await afterCommit(store, actor, out.sheets);
    return out;
  } catch (e) {
    for (const id of ids) forgetSheet(id);
    if (apiErrorOf(e) === undefined && (e as { code?: string }).code === 'SQLITE_BUSY') throw apiError(4004, ids[0]);
    throw e;
  }
}

/**
 * Runs one sheet mutation: transaction, lock, access check, model, persistence of what changed,
 * version bump, change events. `fn` changes ctx.model and marks rows/columns dirty.
 */
export async function writeSheet<T>(
  store: Store,
  actor: Actor,
  sheetId: number,
  needed: AccessLevel,
  fn: (ctx: WriteContext) => T | Promise<T>,
  opts: WriteOptions = {},
): Promise<SheetWriteResult<T>> {
  const { result, sheets } = await writeSheets(store, actor, [{ sheetId, needed }], (ctxs) => fn(ctxs[0]!), opts);
  return { result, ...sheets[0]! };
}

async function systemSheet(db: Queryable, sheetId: number): Promise<SheetRow> {
  const sheet = await findSheet(db, sheetId);
  if (!sheet) throw apiError(1006);
  return sheet;
}

/**
 * Hooks of services that follow every sheet write or read (cell links, cross-sheet
 * references): `opened` before the write's changes (inside its transaction), `written` after
 * them and before they are persisted, `committed` after the commit, `read` when a model is
 * handed to a reader.
 */
type WriteHook = (ctx: WriteContext) => Promise<void>;
type CommitHook = (store: Store, actor: Actor, sheets: ReadonlyArray<{ sheet: SheetRow; model: SheetModel; changed: boolean }>) => Promise<void>;
type ReadHook = (db: Queryable, model: SheetModel) => Promise<void>;
const hooks = { opened: [] as WriteHook[], written: [] as WriteHook[], committed: [] as CommitHook[], read: [] as ReadHook[] };

export function onSheetWrite(h: { opened?: WriteHook; written?: WriteHook; committed?: CommitHook; read?: ReadHook }): void {
  if (h.opened) hooks.opened.push(h.opened);
  if (h.written) hooks.written.push(h.written);
  if (h.committed) hooks.committed.push(h.committed);
  if (h.read) hooks.read.push(h.read);
}

async function afterCommit(store: Store, actor: Actor, sheets: ReadonlyArray<{ sheet: SheetRow; model: SheetModel; changed: boolean }>): Promise<void> {
  for (const h of hooks.committed) await h(store, actor, sheets);
}

/**
 * Keys for rows that only were added (existing rows kept their order): each block of new rows
 * gets keys between its neighbours. False when the gaps are too small (then re-derive all).
 */
function keyNewRows(model: SheetModel, newRows: Set<number>): boolean {
  const order = model.tree.displayOrder();
  const at = [...newRows].filter((id) => model.rows.has(id)).map((id) => model.tree.rowNumberOf(id)! - 1).sort((a, b) => a - b);
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

async function persist(ctx: WriteContext): Promise<void> {
  const { tx, model } = ctx;
  // stored order: keys strictly increasing along display order; re-key only what moved
  const order = model.tree.displayOrder();
  const onlyAdded = !ctx.orderChanged && keyNewRows(model, ctx.newRows);
  if (!onlyAdded) {
    const { keys, changed } = assignSortKeys(order.map((id) => model.rows.get(id)!.sortKey));
    for (const i of changed) {
      const r = model.rows.get(order[i]!)!;
      r.sortKey = keys[i];
      ctx.dirtyRows.add(r.id);
    }
  }
  for (const id of onlyAdded ? [...ctx.newRows, ...ctx.dirtyRows] : order) {
    if (!model.tree.has(id)) continue;
    const r = model.rows.get(id)!;
    const parent = model.tree.parentOf(id);
    const expanded = model.tree.get(id)!.expanded;
    const locked = model.tree.get(id)!.locked;
    if (r.parentId !== parent || r.expanded !== expanded || r.locked !== locked) {
      r.parentId = parent;
      r.expanded = expanded;
      r.locked = locked;
      ctx.dirtyRows.add(id);
    }
  }
  if (ctx.deletedRows.size > 0) await deleteRowsById(tx, [...ctx.deletedRows]);
  // statements of a fixed shape, compiled once (store/db.ts); the table keeps rows in insertion
  // order, with their random ids in an index (migration 0008), so the order here does not matter
  await insertRows(tx, [...ctx.newRows].filter((id) => model.rows.has(id)).map((id) => rowRecord(model.sheetId, model.rows.get(id)!)));
  for (const id of ctx.dirtyRows) {
    if (ctx.newRows.has(id) || ctx.deletedRows.has(id)) continue;
    const r = model.rows.get(id);
    if (!r) continue;
    const { id: _id, sheet_id: _s, created_at: _c, created_by: _cb, ...set } = rowRecord(model.sheetId, r);
    await updateRow(tx, id, set);
  }
  if (ctx.dirtyColumns) {
    await saveColumns(tx, model.sheetId, model.columns.map((c) => columnToRecord(model.sheetId, c)));
  }
  if (ctx.history.length > 0) {
    const recs = ctx.history.map(([rowId, columnId, cell, meta]) => ({
      sheet_id: model.sheetId,
      row_id: rowId,
      column_id: columnId,
      cell: JSON.stringify(cell ?? {}),
      modified_at: meta?.[0] ?? model.rows.get(rowId)?.createdAt ?? ctx.now,
      modified_by: meta?.[1] ?? model.rows.get(rowId)?.createdBy ?? null,
    }));
    await insertCellHistory(tx, recs);
  }
}

function rowRecord(sheetId: number, r: RowState) {
  return {
    id: r.id,
    sheet_id: sheetId,
    parent_id: r.parentId,
    sort_key: r.sortKey!,
    expanded: r.expanded ? 1 : 0,
    locked: r.locked ? 1 : 0,
    format: r.format ?? null,
    cells: JSON.stringify(r.cells),
    cell_meta: metaJson(r.meta),
    created_at: r.createdAt,
    created_by: r.createdBy,
    modified_at: r.modifiedAt,
    modified_by: r.modifiedBy,
  };
}

/**
 * JSON.stringify(meta), each distinct [modifiedAt, modifiedBy] written once: the cells of a row
 * written together share it (20 cells of a new row: one pair instead of 40 numbers to format).
 * The text is kept for the next row with the same columns and the same pairs (the rows of one
 * write mostly): a write of 500 new rows formats it once.
 */
function metaJson(meta: RowState['meta']): string {
  // Object.keys, not for-in: the meta of a row written through the API is a dictionary-mode object
  const keys = Object.keys(meta);
  if (keys.length === 0) return '{}';
  const last = lastMeta;
  if (last !== undefined && last.keys.length === keys.length) {
    let same = true;
    for (let i = 0; same && i < keys.length; i++) {
      const m = meta[keys[i]!]!;
      same = keys[i] === last.keys[i] && m.length === 2 && m[0] === last.ats[i] && m[1] === last.bys[i];
    }
    if (same) return last.json;
  }
  let s = '';
  let at: number | undefined;
  let by: number | null | undefined;
  let pair = '';
  let pairs = true;
  const ats: number[] = [];
  const bys: Array<number | null> = [];
  for (const k of keys) {
    const m = meta[k]!;
    if (m[0] !== at || m[1] !== by || m.length !== 2) {
      at = m.length === 2 ? m[0] : undefined;
      by = m[1];
      pair = JSON.stringify(m);
    }
    s += `${s === '' ? '{' : ','}${JSON.stringify(k)}:${pair}`;
    pairs &&= m.length === 2;
    ats.push(m[0]);
    bys.push(m[1]);
  }
  s += '}';
  lastMeta = pairs ? { keys, ats, bys, json: s } : undefined;
  return s;
}
let lastMeta: { keys: readonly string[]; ats: readonly number[]; bys: ReadonlyArray<number | null>; json: string } | undefined;

/** A sheet and its model for reading, after the caller's access was checked. */
export async function readSheet(db: Queryable, actor: Actor, sheetId: number): Promise<{ sheet: SheetRow; level: AccessLevel; model: SheetModel }> {
  const { sheet, level } = await sheetFor(db, actor, sheetId, 'VIEWER');
  return { sheet, level, model: await modelForRead(db, sheet) };
}

/** The model of a sheet whose access was already checked, with its formula results current. */
export async function modelForRead(db: Queryable, sheet: SheetRow): Promise<SheetModel> {
  const model = await readModel(db, sheet);
  for (const h of hooks.read) await h(db, model);
  currentFormulas(model);
  return model;
}

export { findSheet, recordToColumn };
