import type { Queryable, Tx } from './db.ts';
import { columnToRecord, deleteRowsById, insertRows, listColumns, listRows, saveColumns, updateRows, type RowUpdate, type SheetRow } from './sheets.ts';
import { insertCellHistory } from './cellHistory.ts';
import type { StoredRowCells } from '../engine/cells.ts';
import { RowTree } from '../engine/rows.ts';
import { indexColumns, settleOrder, type CellMeta, type Changeset, type RowState, type SheetModel } from '../engine/model.ts';

/** A sheet's model (engine/model.ts) as stored, read afresh. */
export async function loadModel(db: Queryable, sheet: SheetRow): Promise<SheetModel> {
  const columns = await listColumns(db, sheet.id);
  const records = await listRows(db, sheet.id);
  const rows = new Map<number, RowState>();
  const pairs = new MetaPairs();
  for (const r of records) {
    rows.set(r.id, {
      id: r.id,
      parentId: r.parent_id,
      sortKey: r.sort_key,
      expanded: !!r.expanded,
      locked: !!r.locked,
      format: r.format ?? undefined,
      cells: JSON.parse(r.cells) as StoredRowCells,
      meta: pairs.share(JSON.parse(r.cell_meta) as Record<string, CellMeta>),
      createdAt: r.created_at,
      createdBy: r.created_by,
      modifiedAt: r.modified_at,
      modifiedBy: r.modified_by,
    });
  }
  const tree = RowTree.fromDisplayOrder(records.map((r) => ({ id: r.id, parentId: r.parent_id, expanded: !!r.expanded, locked: !!r.locked })));
  return { sheetId: sheet.id, version: sheet.version, columns, columnsById: indexColumns(columns), rows, tree };
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
      if (m.length !== 2) continue;
      const last = this.last;
      if (last !== undefined && m[0] === last[0] && m[1] === last[1]) {
        meta[k] = last;
        continue;
      }
      let byBy = this.byAt.get(m[0]);
      if (byBy === undefined) this.byAt.set(m[0], (byBy = new Map()));
      const hit = byBy.get(m[1]);
      if (hit === undefined) byBy.set(m[1], m);
      else meta[k] = hit;
      this.last = hit ?? m;
    }
    return meta;
  }
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
  for (const id of cs.updated) {
    if (cs.added.has(id) || cs.deleted.has(id)) continue;
    const r = model.rows.get(id);
    if (r) updates.push(rowUpdate(r));
  }
  await updateRows(tx, updates);
  if (cs.columns) {
    await saveColumns(tx, model.sheetId, model.columns.map((c) => columnToRecord(model.sheetId, c)));
  }
  const history = cs.cells.filter((e) => e.before !== undefined || e.beforeMeta !== undefined);
  if (history.length > 0) {
    await insertCellHistory(tx, history.map((e) => ({
      sheet_id: model.sheetId,
      row_id: e.rowId,
      column_id: e.columnId,
      cell: JSON.stringify(e.before ?? {}),
      modified_at: e.beforeMeta?.[0] ?? model.rows.get(e.rowId)?.createdAt ?? now,
      modified_by: e.beforeMeta?.[2] !== undefined ? null : (e.beforeMeta?.[1] ?? model.rows.get(e.rowId)?.createdBy ?? null),
      modified_by_email: e.beforeMeta?.[2] ?? null,
    })));
  }
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
    cell_meta: metaJson(r.meta),
    modified_at: r.modifiedAt,
    modified_by: r.modifiedBy,
  };
}

function rowRecord(sheetId: number, r: RowState) {
  return { ...rowUpdate(r), sheet_id: sheetId, created_at: r.createdAt, created_by: r.createdBy };
}

/**
 * JSON.stringify(meta), each distinct [modifiedAt, modifiedBy] written once: the cells of a row
 * written together share it (20 cells of a new row: one pair instead of 40 numbers to format).
 * The text is kept for the next row with the same columns and the same pairs (the rows of one
 * write mostly): a write of 500 new rows formats it once.
 */
function metaJson(meta: RowState['meta']): string {
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
    r.cells = { ...r.cells };
    r.meta = { ...r.meta };
  };
  for (const id of cs.added) compact(id);
  for (const id of cs.updated) compact(id);
}
