import type { StoredCell } from '../../engine/cells.ts';
import {
  err, evaluate, inputToScalar, parseFormula, summaryRefTitle, toFormulaResult,
  type ColumnId, type CrossSheetData, type EvalContext, type RangeValue, type ErrorValue, type RowId, type Scalar,
} from '../../engine/formula/index.ts';
import { fromIdentityForm, resultToStored, sheetSchema, storedToRaw } from '../../engine/formulaBridge.ts';
import { fieldColumn, type SummaryFieldDef } from '../../engine/summary.ts';
import type { SheetModel } from '../../engine/model.ts';
import type { Queryable } from '../../store/db.ts';
import { listSummaryFields, updateSummaryField, type SummaryFieldRecord } from '../../store/summary.ts';
import type { CommitStep, WriteContext } from '../sheets/sheetWrites.ts';
import { applyChanges } from './formulas.ts';
import { clock } from '../../clock.ts';

/**
 * Sheet summary fields as the sheet's formulas see them: a sheet's fields are kept with its
 * cached model (valid for the model's version, like the model itself), cell formulas read them
 * through `[Title]#` (the formula engine asks for them as it asks for `{Cross-sheet}` data), and
 * formula fields are computed from the cells after every write of the sheet (computeSummaryFields,
 * a step of the write pipeline), so a field follows its inputs and the cells reading a field that
 * changed follow it. The endpoints are summary.ts.
 */
export interface SummaryField {
  def: SummaryFieldDef;
  /** The content; formulas in identity form as cells store them. */
  cell: StoredCell;
  createdAt: number;
  createdBy: number | null;
  modifiedAt: number;
  modifiedBy: number | null;
}

interface Cached {
  version: number;
  fields: SummaryField[];
}

const cache = new WeakMap<SheetModel, Cached>();

export function fromRecord(r: SummaryFieldRecord): SummaryField {
  const def = JSON.parse(r.def) as Omit<SummaryFieldDef, 'id' | 'index' | 'title'>;
  return {
    def: { ...def, id: r.id, index: r.idx, title: r.title },
    cell: JSON.parse(r.cell) as StoredCell,
    createdAt: r.created_at,
    createdBy: r.created_by,
    modifiedAt: r.modified_at,
    modifiedBy: r.modified_by,
  };
}

export function toRecord(sheetId: number, f: SummaryField): SummaryFieldRecord {
  const { id, index, title, ...def } = f.def;
  return {
    id, sheet_id: sheetId, idx: index, title, def: JSON.stringify(def), cell: JSON.stringify(f.cell),
    created_at: f.createdAt, created_by: f.createdBy, modified_at: f.modifiedAt, modified_by: f.modifiedBy,
  };
}

/** The fields of a model's sheet as of the model's version. */
export async function fieldsOf(db: Queryable, m: SheetModel): Promise<SummaryField[]> {
  const hit = cache.get(m);
  if (hit && hit.version === m.version) return hit.fields;
  const fields = (await listSummaryFields(db, m.sheetId)).map(fromRecord);
  cache.set(m, { version: m.version, fields });
  return fields;
}

function byTitle(fields: readonly SummaryField[], title: string): SummaryField | undefined {
  const exact = fields.find((f) => f.def.title === title);
  if (exact) return exact;
  const lower = title.toLowerCase();
  const folded = fields.filter((f) => f.def.title.toLowerCase() === lower);
  return folded.length === 1 ? folded[0] : undefined;
}

function scalarOf(f: SummaryField): Scalar {
  return inputToScalar(storedToRaw(fieldColumn(f.def), f.cell.v), f.def.type);
}

/** What the formula engine reads for `[Title]#` in a cell formula. */
function summaryData(fields: readonly SummaryField[], title: string): CrossSheetData {
  const f = byTitle(fields, title);
  if (!f) return { error: '#INVALID REF' };
  return { cells: [[{ value: storedToRaw(fieldColumn(f.def), f.cell.v), type: f.def.type }]] };
}

function todayDays(): number {
  return Math.floor(clock.now() / 86_400_000);
}

/**
 * Evaluates the formula fields of a sheet over its model: cells are read as the model holds them
 * (computed values included), other fields by title; a field reading itself, directly or through
 * others, is #CIRCULAR REFERENCE. Returns the fields whose value changed.
 */
export function computeFields(m: SheetModel, fields: SummaryField[], now: number): SummaryField[] {
  const formulas = fields.filter((f) => f.cell.fx !== undefined);
  if (formulas.length === 0) return [];
  const order = m.tree.displayOrder();
  const schema = sheetSchema(m.columns, order);
  const done = new Map<number, Scalar>();
  const active = new Set<number>();
  const colIndex = new Map(m.columns.map((c, i) => [c.id, i]));
  const valueOf = (f: SummaryField): Scalar => {
    if (f.cell.fx === undefined) return scalarOf(f);
    const known = done.get(f.def.id);
    if (known !== undefined) return known;
    if (active.has(f.def.id)) return err('#CIRCULAR REFERENCE');
    active.add(f.def.id);
    const parsed = parseFormula(fromIdentityForm(f.cell.fx, schema), schema);
    const v = evaluate(parsed, ctx);
    active.delete(f.def.id);
    done.set(f.def.id, v);
    return v;
  };
  const cellValue = (rowId: RowId, colId: ColumnId): Scalar | undefined => {
    const row = m.rows.get(rowId);
    const col = m.columnsById.get(colId);
    if (!row || !col) return undefined;
    return inputToScalar(storedToRaw(col, row.cells[String(colId)]?.v), col.type);
  };
  const ctx: EvalContext = {
    hostRow: null,
    hostCol: null,
    today: todayDays(),
    cell: (r, c) => cellValue(r, c) ?? null,
    cellIfExists: cellValue,
    hasColumn: (c) => m.columnsById.has(c),
    rowIndex: (r) => {
      const n = m.tree.rowNumberOf(r);
      return n === undefined ? undefined : n - 1;
    },
    rowIds: () => order,
    columnsBetween: (a, b) => {
      const i = colIndex.get(a);
      const j = colIndex.get(b);
      if (i === undefined || j === undefined) return undefined;
      return m.columns.slice(Math.min(i, j), Math.max(i, j) + 1).map((c) => c.id);
    },
    children: (r) => m.tree.childrenOf(r),
    parent: (r) => m.tree.parentOf(r),
    crossSheet: (name): RangeValue | ErrorValue => {
      const title = summaryRefTitle(name);
      const f = title === undefined ? undefined : byTitle(fields, title);
      if (!f) return err('#INVALID REF');
      const v = valueOf(f);
      return { kind: 'range', width: 1, height: 1, cells: [v] };
    },
  };
  const changed: SummaryField[] = [];
  for (const f of formulas) {
    const v = valueOf(f);
    const stored = resultToStored(fieldColumn(f.def), toFormulaResult(v));
    if (JSON.stringify(stored) === JSON.stringify(f.cell.v)) continue;
    if (stored === undefined) delete f.cell.v;
    else f.cell.v = stored;
    f.modifiedAt = Math.max(f.modifiedAt, now);
    changed.push(f);
  }
  return changed;
}

/**
 * Lets the model's cell formulas read `[Title]#` (set before its formulas run). Should an engine
 * have computed them before (without the fields), they are computed again: the rows that
 * changed are returned.
 */
export function attach(m: SheetModel, fields: readonly SummaryField[]): Set<number> {
  const first = m.summaryFields === undefined;
  m.summaryFields = (title) => summaryData(fields, title);
  const touched = new Set<number>();
  if (!first || !m.formulas) return touched;
  for (const name of m.formulas.crossSheetReferences()) {
    if (summaryRefTitle(name) === undefined) continue;
    for (const id of applyChanges(m, m.formulas.crossSheetChanged(name))) touched.add(id);
  }
  return touched;
}

/**
 * Write step (written), after every write of a sheet: formula fields recomputed from the cells
 * as written, then the cell formulas reading changed fields, and so on while anything changes
 * (a few rounds at most: a loop between cells and fields stops there, as a cycle would).
 */
export async function computeSummaryFields(ctx: WriteContext): Promise<void> {
  const m = ctx.model;
  const fields = await fieldsOf(ctx.tx, m);
  for (const id of attach(m, fields)) ctx.changes.updated.add(id);
  // fields this write changed, added, renamed or deleted: the cells reading them follow
  let titles = written.get(ctx) ?? new Set<string>();
  for (let round = 0; round < 4; round++) {
    const changed = computeFields(m, fields, ctx.now);
    for (const f of changed) await updateSummaryField(ctx.tx, toRecord(m.sheetId, f));
    if (changed.length > 0) ctx.changes.meta = true;
    for (const f of changed) titles.add(f.def.title.toLowerCase());
    const engine = m.formulas;
    if (titles.size === 0 || !engine) return;
    let touched = 0;
    for (const name of engine.crossSheetReferences()) {
      const t = summaryRefTitle(name);
      if (t === undefined || !titles.has(t.toLowerCase())) continue;
      for (const id of applyChanges(m, engine.crossSheetChanged(name))) {
        ctx.changes.updated.add(id);
        touched++;
      }
    }
    if (touched === 0) return;
    titles = new Set();
  }
}

/** Titles of the fields a summary write changed (for the cell formulas reading them). */
const written = new WeakMap<WriteContext, Set<string>>();

export function markWritten(ctx: WriteContext, ...titles: string[]): void {
  let set = written.get(ctx);
  if (!set) written.set(ctx, (set = new Set()));
  for (const t of titles) set.add(t.toLowerCase());
}

/** Commit step: this process's write kept the cached fields current, so they stay valid for the new version. */
export const carrySummaryFields: CommitStep = async (_store, _actor, sheets) => {
  for (const s of sheets) {
    const hit = cache.get(s.model);
    if (hit && s.changed && hit.version === s.model.version - 1) hit.version = s.model.version;
  }
};

/**
 * The model's formulas read the sheet's fields (`[Title]#`) as stored now; returns the rows whose
 * values that changed (currentValues.ts, for reads and, as the write pipeline's first step, writes).
 */
export async function attachSummaryFields(db: Queryable, m: SheetModel): Promise<Set<number>> {
  return attach(m, await fieldsOf(db, m));
}
