import { apiError } from '../../errors.ts';
import { clock } from '../../clock.ts';
import type { ColumnDef } from '../../engine/columns.ts';
import { cellKey, type StoredCell } from '../../engine/cells.ts';
import { FormulaEngine, summaryRefTitle, type CellChange, type CrossSheetData } from '../../engine/formula/index.ts';
import { fromIdentityForm, resultToStored, sheetSchema, storedToRaw, toIdentityForm } from '../../engine/formulaBridge.ts';
import type { Changeset, RowState, SheetModel } from '../../engine/model.ts';

/**
 * Formulas of a sheet model: a FormulaEngine built when the sheet has any formula, kept with
 * the cached model; cell writes and added rows are reported to it incrementally, other
 * structural changes rebuild it. Computed values live in the cells' `v` like any value.
 */
function hasFormulas(m: SheetModel): boolean {
  if (m.columns.some((c) => c.formula !== undefined)) return true;
  for (const r of m.rows.values()) for (const k in r.cells) if (r.cells[k]!.fx !== undefined) return true;
  return false;
}

/** `{Reference}` data, or a summary field for `[Title]#` (the lexer names those with a prefix). */
function crossSheetData(m: SheetModel, name: string): CrossSheetData {
  const field = summaryRefTitle(name);
  if (field !== undefined) return m.summaryFields ? m.summaryFields(field) : { error: '#INVALID REF' };
  return m.crossSheet ? m.crossSheet(name) : { error: '#INVALID REF' };
}

/** Builds the engine from the model and returns the cells whose values it computed differently. */
function build(m: SheetModel): CellChange[] {
  const order = m.tree.displayOrder();
  const schema = sheetSchema(m.columns, order);
  const engine = new FormulaEngine(
    m.columns.map((c) => ({ id: c.id, title: c.title, type: c.type })),
    order.map((id) => ({ id, parentId: m.tree.parentOf(id) })),
    { crossSheet: (name) => crossSheetData(m, name), now: () => new Date(clock.now()) },
  );
  const cells: Array<{ rowId: number; columnId: number; value?: ReturnType<typeof storedToRaw>; formula?: string }> = [];
  for (const id of order) {
    const row = m.rows.get(id)!;
    for (const c of m.columns) {
      const cell = row.cells[String(c.id)];
      if (cell === undefined) continue;
      if (cell.fx !== undefined) cells.push({ rowId: id, columnId: c.id, formula: fromIdentityForm(cell.fx, schema) });
      else if (cell.v !== undefined) cells.push({ rowId: id, columnId: c.id, value: storedToRaw(c, cell.v) });
    }
  }
  const columnFormulas = m.columns.filter((c) => c.formula !== undefined).map((c) => ({ columnId: c.id, formula: fromIdentityForm(c.formula!, schema) }));
  const changes = engine.load(cells, columnFormulas);
  m.formulas = engine;
  return changes;
}

/** The engine of a model that has formulas (built on first use), or null. */
export function formulasOf(m: SheetModel): { engine: FormulaEngine | null; changes: CellChange[] } {
  if (m.formulas !== undefined) return { engine: m.formulas, changes: [] };
  if (!hasFormulas(m)) {
    m.formulas = null;
    return { engine: null, changes: [] };
  }
  const changes = build(m);
  return { engine: m.formulas!, changes };
}

/**
 * Writes computed values into the model's cells; returns the ids of rows that changed. Only
 * formula cells (their own formula, or their column's) take a value from the engine: the
 * engine's changes also list cells written directly with a value, which the model holds as
 * written already. Writing those back through resultToStored kept only the engine's reading of
 * them: a contact became its address, a multi-picklist its text, a duration or predecessors
 * their text, on every sheet that had a formula.
 */
export function applyChanges(m: SheetModel, changes: readonly CellChange[]): Set<number> {
  const touched = new Set<number>();
  for (const ch of changes) {
    const row = m.rows.get(ch.rowId);
    const col = m.columnsById.get(ch.columnId);
    if (!row || !col) continue;
    const key = String(ch.columnId);
    const before = row.cells[key];
    if (before?.fx === undefined && col.formula === undefined) continue;
    const v = resultToStored(col, ch.result);
    const next: StoredCell = { ...(before ?? {}) };
    if (v === undefined) delete next.v;
    else next.v = v;
    if (JSON.stringify(before?.v) === JSON.stringify(next.v)) continue;
    row.cells = { ...row.cells, [key]: next };
    touched.add(ch.rowId);
  }
  return touched;
}

/**
 * The model's formula values current: the engine built when it was not (values computed from
 * what the model holds), TODAY() refreshed when the day changed. Returns the rows whose values
 * changed (currentValues.ts: a write saves them, a read only shows them).
 */
export function currentFormulas(m: SheetModel): Set<number> {
  const { engine, changes } = formulasOf(m);
  if (engine === null) return new Set();
  const touched = applyChanges(m, changes);
  if (engine.needsTodayRefresh()) for (const id of applyChanges(m, engine.refreshToday())) touched.add(id);
  return touched;
}

/** The text a client sees for the formula of a cell (rendered with current titles and row numbers). */
export function formulaText(m: SheetModel, rowId: number, columnId: number): string | undefined {
  return m.formulas ? m.formulas.formulaOf(rowId, columnId) : undefined;
}

/** A column formula as a client sees it (the engine renders it once it exists). */
export function columnFormulaText(m: SheetModel, c: ColumnDef): string | undefined {
  if (c.formula === undefined) return undefined;
  return m.formulas?.columnFormulaOf(c.id) ?? fromIdentityForm(c.formula, sheetSchema(m.columns, m.tree.displayOrder()));
}

export interface CellWrite {
  row: RowState;
  column: ColumnDef;
  /** The cell before the write. */
  before: StoredCell | undefined;
}

/**
 * Turns written formula texts into the stored identity form (1302 for cells of a column with
 * a column formula), then brings computed values up to date: incrementally when the engine
 * exists and only cells and new rows changed, by a rebuild after other structural changes.
 * `formulaWrites`: whether a write is in a column with a formula or leaves a formula in its
 * cell, when the caller knows (it may then leave out the writes of a sheet without formulas).
 * `ctx` is the write's context (sheetWrites.ts): its model, and its changeset, which gets the
 * rows whose values changed.
 */
export function afterWrite(ctx: { readonly model: SheetModel; readonly changes: Changeset }, writes: readonly CellWrite[], opts: { newRows?: readonly RowState[]; structural?: boolean; formulaWrites?: boolean } = {}): void {
  const m = ctx.model;
  // a sheet known to have no formulas (formulas null) keeps none unless this write brings one:
  // a formula cell, a write into a formula column, or a column formula (structural changes)
  if (m.formulas === null) {
    const written = opts.formulaWrites ?? writes.some((w) => w.column.formula !== undefined || w.row.cells[cellKey(w.column.id)]?.fx !== undefined);
    if (!written && !(opts.structural === true && m.columns.some((c) => c.formula !== undefined))) return;
  }
  const order = m.tree.displayOrder();
  const schema = sheetSchema(m.columns, order);
  const formulaWrites: CellWrite[] = [];
  for (const w of writes) {
    const cell = w.row.cells[String(w.column.id)];
    if (w.column.formula !== undefined) throw apiError(1302);
    if (cell?.fx !== undefined && cell.fx !== w.before?.fx) {
      cell.fx = toIdentityForm(cell.fx, schema);
      formulaWrites.push(w);
    }
  }
  let changes: CellChange[];
  if (opts.structural || !m.formulas) {
    if (m.formulas === null && !opts.structural && formulaWrites.length === 0) return;
    m.formulas = undefined;
    changes = formulasOf(m).changes;
  } else {
    const engine = m.formulas;
    changes = [];
    if (opts.newRows && opts.newRows.length > 0) {
      const isNew = new Set(opts.newRows.map((r) => r.id));
      const newOrder = order.filter((id) => isNew.has(id));
      const lastIdx = order.indexOf(newOrder[newOrder.length - 1]!);
      let before: number | null = null;
      for (let i = lastIdx + 1; i < order.length; i++) if (!isNew.has(order[i]!)) { before = order[i]!; break; }
      changes.push(...engine.addRows(newOrder.map((id) => ({ id, parentId: m.tree.parentOf(id) })), before));
    }
    for (const w of writes) {
      const cell = w.row.cells[String(w.column.id)];
      if (cell?.fx !== undefined) {
        if (cell.fx !== w.before?.fx) changes.push(...engine.setFormula(w.row.id, w.column.id, fromIdentityForm(cell.fx, schema)));
      } else if (w.before?.fx !== undefined) {
        changes.push(...engine.clearFormula(w.row.id, w.column.id, storedToRaw(w.column, cell?.v)));
      } else {
        changes.push(...engine.setCellValue(w.row.id, w.column.id, storedToRaw(w.column, cell?.v)));
      }
    }
  }
  for (const id of applyChanges(m, changes)) ctx.changes.updated.add(id);
}
