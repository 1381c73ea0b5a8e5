import type { Queryable, Tx } from './db.ts';
import { columnToRecord, deleteRowsById, insertRows, listColumns, listRows, saveColumns, updateRows, type RowPlace, type RowUpdate, type SheetRow } from './sheets.ts';
import { insertCellHistory, type Overwritten } from './cellHistory.ts';
import { cellsObject, takeFreshCells, type StoredRowCells } from '../engine/cells.ts';
import { RowTree } from '../engine/rows.ts';
import { projectSettingsOf } from '../engine/calendar.ts';
import { indexColumns, isCompactMeta, markCompactMeta, settleOrder, type CellMeta, type Changeset, type RowState, type SheetModel } from '../engine/model.ts';

/** A sheet's model (engine/model.ts) as stored, read afresh. */
export async function loadModel(db: Queryable, sheet: SheetRow): Promise<SheetModel> {
  const columns = await listColumns(db, sheet.id);
  const records = await listRows(db, sheet.id);
  const rows = new Map<number, RowState>();
  const pairs = new MetaPairs();
  for (const r of records) {
    const cells = JSON.parse(r.cells) as StoredRowCells;
    rows.set(r.id, {
      id: r.id,
      parentId: r.parent_id,
      sortKey: r.sort_key,
      expanded: !!r.expanded,
      locked: !!r.locked,
      format: r.format ?? undefined,
      cells,
      meta: storedMeta(r.cell_meta, cells, pairs),
      createdAt: r.created_at,
      createdBy: r.created_by,
      modifiedAt: r.modified_at,
      modifiedBy: r.modified_by,
    });
  }
  const tree = RowTree.fromDisplayOrder(records.map((r) => ({ id: r.id, parentId: r.parent_id, expanded: !!r.expanded, locked: !!r.locked })));
  const model: SheetModel = { sheetId: sheet.id, version: sheet.version, columns, columnsById: indexColumns(columns), rows, tree };
  const project = projectSettingsOf(sheet.settings);
  if (project !== undefined) model.project = project;
  return model;
}

/**
 * One array for each distinct [modifiedAt, modifiedBy] of a loaded model's cells: the cells of a
 * row written together have the same, and rows written by one request too. Parsed apart, the
 * pairs of a 500,000-cell sheet took about 25 MB; meta pairs are replaced, never changed in place
 * (engine/model.ts writeRowCells), like the stamp a write gives all the cells it wrote.
 */
class MetaPairs {
  private last: CellMeta | undefined;
  private readonly byAt = new Map<number, Map<number | null, CellMeta>>();

  share(meta: Record<string, CellMeta>): Record<string, CellMeta> {
    for (const k in meta) {
      const m = meta[k]!;
      if (m.length === 2) meta[k] = this.one(m);
    }
    return meta;
  }

  /** The array kept for the pair [at, by] of `m` (`m` itself the first time). */
  one(m: CellMeta): CellMeta {
    const last = this.last;
    if (last !== undefined && m[0] === last[0] && m[1] === last[1]) return last;
    let byBy = this.byAt.get(m[0]);
    if (byBy === undefined) this.byAt.set(m[0], (byBy = new Map()));
    const hit = byBy.get(m[1]);
    if (hit === undefined) byBy.set(m[1], m);
    this.last = hit ?? m;
    return this.last;
  }
}

/**
 * The stored text of a row's cell meta, in one of two forms. In full, an object of each cell's
 * [modifiedAt, modifiedBy(, email)] by column id. Shared, `{"*":[at,by]}`: every cell of the row
 * (each key of its cells, in their order) has that pair and no other cell has meta; this is what
 * a row added by a write usually is (its 20 cells stamped alike: about 35 bytes instead of 800,
 * written and parsed again on every load). `*` is never a column id (those are digits).
 */
const SHARED = '{"*":';

function storedMeta(text: string, cells: StoredRowCells, pairs: MetaPairs): Record<string, CellMeta> {
  if (!text.startsWith(SHARED)) return pairs.share(JSON.parse(text) as Record<string, CellMeta>);
  const pair = pairs.one((JSON.parse(text) as { '*': CellMeta })['*']);
  const keys: string[] = [];
  for (const k in cells) keys.push(k);
  return cellsObject(keys, new Array<CellMeta>(keys.length).fill(pair));
}

/**
 * Persists what a changeset names of a model: its order settled first (engine/model.ts
 * settleOrder), rows deleted, inserted and updated, the columns, and the previous states of the
 * edited cells as cell history (a cell blank and never written before has none).
 */
export async function saveModel(tx: Tx, model: SheetModel, cs: Changeset, now: number): Promise<void> {
  settleOrder(model, cs);
  compactRows(model, cs);
  if (cs.deleted.size > 0) await deleteRowsById(tx, [...cs.deleted]);
  // statements of a fixed shape, compiled once (store/db.ts); the table keeps rows in insertion
  // order, with their random ids in an index (migration 0008), so the order here does not matter
  await insertRows(tx, [...cs.added].filter((id) => model.rows.has(id)).map((id) => rowRecord(model.sheetId, model.rows.get(id)!)));
  const updates: RowUpdate[] = [];
  const places: RowPlace[] = [];
  for (const id of cs.updated) {
    if (cs.added.has(id) || cs.deleted.has(id)) continue;
    const r = model.rows.get(id);
    if (r === undefined) continue;
    if (cs.placed.has(id)) places.push({ id: r.id, parent_id: r.parentId, sort_key: r.sortKey!, expanded: r.expanded ? 1 : 0, locked: r.locked ? 1 : 0 });
    else updates.push(rowUpdate(r));
  }
  await updateRows(tx, updates);
  await updateRows(tx, places);
  if (cs.columns) {
    await saveColumns(tx, model.sheetId, model.columns.map((c) => columnToRecord(model.sheetId, c)));
  }
  const history: Overwritten[] = [];
  for (const e of cs.cells) {
    const m = e.beforeMeta;
    if (e.before === undefined && m === undefined) continue;
    const row = model.rows.get(e.rowId);
    history.push({
      rowId: e.rowId,
      columnId: e.columnId,
      before: e.before,
      // a cell without a stamp of its own has the row's creation
      at: m?.[0] ?? row?.createdAt ?? now,
      by: m?.[2] !== undefined ? null : (m?.[1] ?? row?.createdBy ?? null),
      email: m?.[2] ?? null,
    });
  }
  if (history.length > 0) await insertCellHistory(tx, model.sheetId, history);
}

/** The stored columns a change of the row sets: its state but for the sheet and its creation. */
function rowUpdate(r: RowState): RowUpdate {
  return {
    id: r.id,
    parent_id: r.parentId,
    sort_key: r.sortKey!,
    expanded: r.expanded ? 1 : 0,
    locked: r.locked ? 1 : 0,
    format: r.format ?? null,
    cells: JSON.stringify(r.cells),
    cell_meta: metaJson(r.meta, r.cells),
    modified_at: r.modifiedAt,
    modified_by: r.modifiedBy,
  };
}

function rowRecord(sheetId: number, r: RowState) {
  return { ...rowUpdate(r), sheet_id: sheetId, created_at: r.createdAt, created_by: r.createdBy };
}

/**
 * The stored text of a row's meta (storedMeta reads it back): the shared form when every key of
 * the meta is a key of the cells, in the same order, all with one [modifiedAt, modifiedBy] pair;
 * else JSON.stringify(meta), each distinct pair written once: the cells of a row written
 * together share it (20 cells: one pair instead of 40 numbers to format). The full text is kept
 * for the next row with the same columns and the same pairs (the rows of one write mostly): a
 * write of 500 rows formats it once.
 */
function metaJson(meta: RowState['meta'], cells: StoredRowCells): string {
  const shared = sharedPairJson(meta, cells);
  if (shared !== undefined) return shared;
  // for-in, not a load by each key of Object.keys: with numeric-string names those are slow
  const last = lastMeta;
  let n = 0;
  let same = last !== undefined;
  for (const k in meta) {
    if (same) {
      const m = meta[k]!;
      same = n < last!.keys.length && k === last!.keys[n] && m.length === 2 && m[0] === last!.ats[n] && m[1] === last!.bys[n];
    }
    n++;
  }
  if (n === 0) return '{}';
  if (same && n === last!.keys.length) return last!.json;
  let s = '';
  let at: number | undefined;
  let by: number | null | undefined;
  let pair = '';
  let pairs = true;
  const keys: string[] = [];
  const ats: number[] = [];
  const bys: Array<number | null> = [];
  for (const k in meta) {
    const m = meta[k]!;
    if (m[0] !== at || m[1] !== by || m.length !== 2) {
      at = m.length === 2 ? m[0] : undefined;
      by = m[1];
      pair = JSON.stringify(m);
    }
    s += `${s === '' ? '{' : ','}${JSON.stringify(k)}:${pair}`;
    pairs &&= m.length === 2;
    keys.push(k);
    ats.push(m[0]);
    bys.push(m[1]);
  }
  s += '}';
  lastMeta = pairs ? { keys, ats, bys, json: s } : undefined;
  return s;
}
let lastMeta: { keys: readonly string[]; ats: readonly number[]; bys: ReadonlyArray<number | null>; json: string } | undefined;

/** The shared form of `meta` (metaJson), or undefined when it does not fit. */
function sharedPairJson(meta: RowState['meta'], cells: StoredRowCells): string | undefined {
  // for-in, not loads by key: with numeric-string names those are slow
  const keys: string[] = [];
  let pair: CellMeta | undefined;
  for (const k in meta) {
    const m = meta[k]!;
    if (m.length !== 2) return undefined;
    if (pair === undefined) pair = m;
    else if (m !== pair && (m[0] !== pair[0] || m[1] !== pair[1])) return undefined;
    keys.push(k);
  }
  if (pair === undefined) return undefined;
  let n = 0;
  for (const k in cells) {
    if (n >= keys.length || keys[n] !== k) return undefined;
    n++;
  }
  if (n !== keys.length) return undefined;
  const last = lastShared;
  if (last !== undefined && last.pair[0] === pair[0] && last.pair[1] === pair[1]) return last.json;
  const json = `${SHARED}${JSON.stringify([pair[0], pair[1]])}}`;
  lastShared = { pair, json };
  return json;
}
let lastShared: { pair: CellMeta; json: string } | undefined;

/**
 * The cells and meta of rows a write created or changed, copied into objects of V8's fast
 * shape. A writer builds them a key at a time, and an object given more than a dozen properties
 * that way is kept as a hash table: about 1 KB per row for 20 cells instead of under 200 bytes,
 * for as long as the model stays cached. A copy by spread takes the shape a row loaded from the
 * database has (JSON.parse). Runs before anything else sees the rows; readers compare a row's
 * cells object by identity to reuse what they presented, and these rows are new to them.
 */
function compactRows(model: SheetModel, cs: Changeset): void {
  const compact = (id: number) => {
    const r = model.rows.get(id);
    if (r === undefined) return;
    // cells an update copied and only changed values of are of that shape, and new to readers
    // (engine/cells.ts markFreshCells); a meta copied by an earlier save and given no key since
    // is of it too (engine/model.ts compactMetas)
    if (!takeFreshCells(r.cells)) r.cells = { ...r.cells };
    if (!isCompactMeta(r.meta)) {
      r.meta = { ...r.meta };
      markCompactMeta(r.meta);
    }
  };
  for (const id of cs.added) compact(id);
  for (const id of cs.updated) if (!cs.placed.has(id)) compact(id);
}
