/**
 * FormulaEngine: the formulas of one sheet, kept computed. It owns a copy of what formulas
 * need (column ids/titles/types, row order and parents, cell inputs) and, for every change the
 * service reports, recomputes only the formula cells that depend on it, in topological order,
 * returning the cells whose values changed.
 */
import type { ColumnId, Formula, RowId } from './ast.ts';
import { RunningTotals } from './aggregates.ts';
import { collectDeps, collectDepsTemplate, isTimeDependent, type Deps, type DepsContext, type DepsTemplate } from './deps.ts';
import { FormulaEvaluator, type ColumnRun, type EvalContext } from './evaluator.ts';
import { fitColumn } from './fit.ts';
import { DependencyGraph, isFormulaNode, type FormulaNode, type GraphNode } from './graph.ts';
import { parseFormula } from './parser.ts';
import { FormulaParseCache } from './parsecache.ts';
import { render } from './render.ts';
import { shrinkRangesForDeletedRows } from './rewrite.ts';
import { RowModel, type RowInfo } from './rows.ts';
import { findColumnByTitle, type SheetSchema } from './schema.ts';
import {
  err, inputToScalar, sameScalar, todayDays, toFormulaResult,
  type CellInput, type ColumnType, type ErrorCode, type ErrorValue, type FormulaResult, type RangeValue, type RawCellValue, type Scalar,
} from './values.ts';
import { NO_DEPS } from './deps.ts';

export interface EngineColumn {
  readonly id: ColumnId;
  readonly title: string;
  readonly type: ColumnType;
}

/** What a cross-sheet reference resolves to: its cells (rows of columns), or the error to show. */
export type CrossSheetData = { readonly cells: readonly (readonly CellInput[])[] } | { readonly error: ErrorCode };

export interface FormulaEngineOptions {
  /** The clock TODAY() reads. Default: the system clock. */
  readonly now?: () => Date;
  /** Shifts "today" from UTC (minutes east), for a sheet's time zone. Default 0. */
  readonly utcOffsetMinutes?: number;
  /** Supplies the cells of `{Reference Name}`. Without it, cross-sheet references are #INVALID REF. */
  readonly crossSheet?: (name: string) => CrossSheetData;
}

/** A cell whose shown value changed. */
export interface CellChange {
  readonly rowId: RowId;
  readonly columnId: ColumnId;
  readonly value: Scalar;
  /** What the service writes into the cell (value + type; errors as their text). */
  readonly result: FormulaResult;
}

/** One cell for `load`: a value, or a formula (text starting with '='). */
export interface LoadCell {
  readonly rowId: RowId;
  readonly columnId: ColumnId;
  readonly value?: RawCellValue;
  readonly formula?: string;
}

/** A formula cell, for snapshots and persistence. */
export interface FormulaCellInfo {
  readonly rowId: RowId;
  readonly columnId: ColumnId;
  /** The formula text as a client sees it now (rendered from ids). */
  readonly formula: string;
  readonly fromColumnFormula: boolean;
  readonly value: Scalar;
}

export class FormulaEngine {
  private readonly columns = new Map<ColumnId, { title: string; type: ColumnType }>();
  private columnOrder: ColumnId[] = [];
  private readonly rows: RowModel;
  private readonly raw = new Map<ColumnId, Map<RowId, RawCellValue>>();
  private readonly inputs = new Map<ColumnId, Map<RowId, Scalar>>();
  private readonly nodes = new Map<ColumnId, Map<RowId, FormulaNode>>();
  private readonly columnFormulas = new Map<ColumnId, Formula>();
  private readonly graph: DependencyGraph;
  private readonly structural = new Set<FormulaNode>();
  private readonly timeDependent = new Set<FormulaNode>();
  private readonly crossCache = new Map<string, RangeValue | ErrorValue>();
  private readonly now: () => Date;
  private readonly offset: number;
  private readonly crossSheet: ((name: string) => CrossSheetData) | undefined;
  private today: number;
  private readonly ctx: EngineContext;
  private readonly evaluator: FormulaEvaluator;
  private readonly depsCtx: DepsContext;
  private readonly runs: RunningTotals;

  /** Column titles and row numbers as the parser and renderer see them. */
  readonly schema: SheetSchema;

  constructor(columns: readonly EngineColumn[], rows: readonly RowInfo[], options: FormulaEngineOptions = {}) {
    for (const c of columns) this.columns.set(c.id, { title: c.title, type: c.type });
    this.columnOrder = columns.map((c) => c.id);
    this.rows = new RowModel(rows);
    this.graph = new DependencyGraph(this.rows);
    this.runs = new RunningTotals(this.rows, (c) => this.columnReader(c));
    this.now = options.now ?? (() => new Date());
    this.offset = options.utcOffsetMinutes ?? 0;
    this.crossSheet = options.crossSheet;
    this.today = todayDays(this.now(), this.offset);
    this.ctx = new EngineContext(this);
    this.evaluator = new FormulaEvaluator(this.ctx);
    this.schema = {
      columnIdByTitle: (title) => this.columnIdByTitle(title),
      columnTitle: (id) => this.columns.get(id)?.title,
      rowIdByNumber: (n) => this.rows.ids[n - 1],
      rowNumber: (id) => {
        const i = this.rows.indexOf(id);
        return i === undefined ? undefined : i + 1;
      },
    };
    this.depsCtx = {
      rows: this.rows,
      columnsBetween: (a, b) => this.columnsBetween(a, b),
      hasColumn: (id) => this.columns.has(id),
    };
  }

  // ------------------------------------------------------------ reads

  private titleIndex: Map<string, ColumnId> | null = null;

  private columnIdByTitle(title: string): ColumnId | undefined {
    if (this.titleIndex === null) {
      this.titleIndex = new Map();
      for (const [id, c] of this.columns) this.titleIndex.set(c.title, id);
    }
    return this.titleIndex.get(title) ?? findColumnByTitle([...this.columns].map(([id, c]) => [id, c.title] as const), title);
  }

  /** The value a cell shows: computed for formula cells, the input otherwise. */
  value(rowId: RowId, colId: ColumnId): Scalar {
    const n = this.nodes.get(colId)?.get(rowId);
    return n ? n.value : (this.inputs.get(colId)?.get(rowId) ?? null);
  }

  /**
   * value() for one column: one function per column, kept (it looks the column's maps up at
   * each read, so it holds nothing that may be replaced). A running total extends its run one
   * row per cell it computes: a function made for each extension was 25,000 of them per edit.
   */
  private columnReader(colId: ColumnId): (rowId: RowId) => Scalar {
    let read = this.columnReaders.get(colId);
    if (read === undefined) {
      read = (rowId) => {
        const n = this.nodes.get(colId)?.get(rowId);
        return n ? n.value : (this.inputs.get(colId)?.get(rowId) ?? null);
      };
      this.columnReaders.set(colId, read);
    }
    return read;
  }
  private readonly columnReaders = new Map<ColumnId, (rowId: RowId) => Scalar>();

  result(rowId: RowId, colId: ColumnId): FormulaResult {
    return toFormulaResult(this.value(rowId, colId));
  }

  /** The formula of a cell as a client sees it (a column formula's text for its cells), or undefined. */
  formulaOf(rowId: RowId, colId: ColumnId): string | undefined {
    const n = this.nodes.get(colId)?.get(rowId);
    return n ? render(n.formula, this.schema) : undefined;
  }

  columnFormulaOf(colId: ColumnId): string | undefined {
    const f = this.columnFormulas.get(colId);
    return f ? render(f, this.schema) : undefined;
  }

  isColumnFormulaCell(rowId: RowId, colId: ColumnId): boolean {
    return this.nodes.get(colId)?.get(rowId)?.fromColumn ?? false;
  }

  /** Every formula cell with its rendered formula and value. */
  formulaCells(): FormulaCellInfo[] {
    const out: FormulaCellInfo[] = [];
    for (const [colId, byRow] of this.nodes) {
      for (const [rowId, n] of byRow) {
        out.push({ rowId, columnId: colId, formula: render(n.formula, this.schema), fromColumnFormula: n.fromColumn, value: n.value });
      }
    }
    return out;
  }

  /** Cross-sheet reference names the sheet's formulas use (recompute with crossSheetChanged). */
  crossSheetReferences(): string[] {
    return this.graph.crossSheetNames();
  }

  /** Whether any formula calls TODAY(). */
  hasTimeDependentFormulas(): boolean {
    return this.timeDependent.size > 0;
  }

  /** Whether the day changed since values were computed (then call refreshToday). */
  needsTodayRefresh(now: Date = this.now()): boolean {
    return this.timeDependent.size > 0 && todayDays(now, this.offset) !== this.today;
  }

  // ------------------------------------------------------------ bulk

  /** Loads cells (values and formulas) and column formulas, then computes everything once. */
  load(cells: Iterable<LoadCell>, columnFormulas: Iterable<{ readonly columnId: ColumnId; readonly formula: string }> = []): CellChange[] {
    const created: FormulaNode[] = [];
    // formulas that differ only by row numbers (a running total written cell to cell) are parsed once
    const parses = new FormulaParseCache(this.schema);
    const list: readonly LoadCell[] = Array.isArray(cells) ? cells : Array.from(cells);
    for (let i = 0; i < list.length; i++) {
      const c = list[i]!;
      if (!this.columns.has(c.columnId) || !this.rows.has(c.rowId)) continue;
      if (c.value !== undefined) this.storeInput(c.rowId, c.columnId, c.value);
      if (c.formula !== undefined) {
        const n = this.upsertNode(c.rowId, c.columnId, parses.parse(c.formula), false);
        created.push(n);
      }
    }
    for (const cf of columnFormulas) {
      if (!this.columns.has(cf.columnId)) continue;
      const f = parseFormula(cf.formula, this.schema);
      this.columnFormulas.set(cf.columnId, f);
      // indexed loops here and below: a for-of makes an iterator result per step until optimized
      const ids = this.rows.ids;
      for (let i = 0; i < ids.length; i++) {
        const r = ids[i]!;
        const existing = this.nodes.get(cf.columnId)?.get(r);
        if (existing && !existing.fromColumn) continue;
        created.push(this.upsertNode(r, cf.columnId, f, true));
      }
    }
    // a column formula's cells read the same cells but for their own row: its dependencies are
    // worked out once (deps.ts collectDepsTemplate) while rows and columns stay as they are
    let templateOf: Formula | undefined;
    let templateCol: ColumnId | undefined;
    let template: DepsTemplate | undefined;
    for (let i = 0; i < created.length; i++) {
      const n = created[i]!;
      if (!n.fromColumn) {
        this.attach(n);
        continue;
      }
      if (n.formula !== templateOf || n.colId !== templateCol) {
        templateOf = n.formula;
        templateCol = n.colId;
        template = collectDepsTemplate(n.formula, n.colId, this.depsCtx);
      }
      this.attach(n, template?.forRow(n.rowId));
    }
    return this.recompute(this.allNodeList(), new Changes(), true);
  }

  /** Recomputes every formula cell (and re-reads the clock). */
  recalculateAll(): CellChange[] {
    this.today = todayDays(this.now(), this.offset);
    this.crossCache.clear();
    return this.recompute(this.allNodeList(), new Changes(), true);
  }

  // ------------------------------------------------------------ cells

  /** A cell's value was written (a per-cell formula there is replaced by the value). */
  setCellValue(rowId: RowId, colId: ColumnId, raw: RawCellValue): CellChange[] {
    if (!this.columns.has(colId) || !this.rows.has(rowId)) return [];
    const changes = new Changes();
    const before = this.value(rowId, colId);
    this.storeInput(rowId, colId, raw);
    const n = this.nodes.get(colId)?.get(rowId);
    if (n && n.fromColumn) return [];
    if (n) {
      this.dropNode(n);
      const restored = this.restoreColumnFormula(rowId, colId, before);
      if (restored) return this.recompute([restored], changes);
    }
    const after = this.value(rowId, colId);
    if (sameScalar(before, after)) return [];
    changes.add(rowId, colId, after);
    return this.recompute(this.readers(colId, rowId), changes);
  }

  /** A cell's formula was written. */
  setFormula(rowId: RowId, colId: ColumnId, text: string): CellChange[] {
    if (!this.columns.has(colId) || !this.rows.has(rowId)) return [];
    const n = this.upsertNode(rowId, colId, parseFormula(text, this.schema), false);
    this.attach(n);
    return this.recompute([n], new Changes());
  }

  /** A cell's formula was removed; the cell shows `raw` (default: blank) or its column formula. */
  clearFormula(rowId: RowId, colId: ColumnId, raw: RawCellValue = null): CellChange[] {
    const n = this.nodes.get(colId)?.get(rowId);
    if (!n || n.fromColumn) return [];
    const before = n.value;
    this.storeInput(rowId, colId, raw);
    this.dropNode(n);
    const changes = new Changes();
    const restored = this.restoreColumnFormula(rowId, colId, before);
    if (restored) return this.recompute([restored], changes);
    const after = this.value(rowId, colId);
    if (!sameScalar(before, after)) changes.add(rowId, colId, after);
    return this.recompute(this.readers(colId, rowId), changes);
  }

  /** Sets (text) or removes (null) a column formula; it replaces every cell's value and formula in the column. */
  setColumnFormula(colId: ColumnId, text: string | null): CellChange[] {
    if (!this.columns.has(colId)) return [];
    const changes = new Changes();
    const roots: GraphNode[] = [];
    if (text === null) {
      if (!this.columnFormulas.delete(colId)) return [];
      for (const n of [...(this.nodes.get(colId)?.values() ?? [])]) {
        if (!n.fromColumn) continue;
        const before = n.value;
        this.dropNode(n);
        const after = this.value(n.rowId, colId);
        if (!sameScalar(before, after)) changes.add(n.rowId, colId, after);
        roots.push(...this.readers(colId, n.rowId));
      }
      return this.recompute(roots, changes);
    }
    const f = parseFormula(text, this.schema);
    this.columnFormulas.set(colId, f);
    for (const r of this.rows.ids) {
      const n = this.upsertNode(r, colId, f, true);
      this.attach(n);
      roots.push(n);
    }
    return this.recompute(roots, changes);
  }

  // ------------------------------------------------------------ rows

  /** New rows (blank) were inserted before `beforeRowId` (at the end when null). */
  addRows(rows: readonly RowInfo[], beforeRowId: RowId | null = null): CellChange[] {
    const fresh = rows.filter((r) => !this.rows.has(r.id));
    if (fresh.length === 0) return [];
    this.rows.insert(fresh, beforeRowId);
    const roots: FormulaNode[] = [];
    for (const [colId, f] of this.columnFormulas) {
      for (const r of fresh) {
        const n = this.upsertNode(r.id, colId, f, true);
        this.attach(n);
        roots.push(n);
      }
    }
    return this.recompute([...roots, ...this.reattachStructural()], new Changes());
  }

  /** Rows were moved (and/or re-parented) as a block before `beforeRowId` (at the end when null). */
  moveRows(rows: readonly RowInfo[], beforeRowId: RowId | null = null): CellChange[] {
    this.rows.move(rows, beforeRowId);
    return this.recompute(this.reattachStructural(), new Changes());
  }

  /** Rows were deleted: references to them become #REF; ranges shrink. */
  deleteRows(rowIds: Iterable<RowId>): CellChange[] {
    const gone = new Set([...rowIds].filter((id) => this.rows.has(id)));
    if (gone.size === 0) return [];
    const oldOrder = [...this.rows.ids];
    const oldIndex = new Map(oldOrder.map((r, i) => [r, i] as const));
    const affected = new Set<FormulaNode>();
    for (const r of gone) for (const c of this.columnOrder) this.graph.readersOf(c, r, (n) => affected.add(n));
    for (const c of this.columnOrder) {
      for (const r of gone) {
        const n = this.nodes.get(c)?.get(r);
        if (n) this.dropNode(n);
        this.raw.get(c)?.delete(r);
        this.inputs.get(c)?.delete(r);
      }
    }
    for (const n of affected) if (gone.has(n.rowId)) affected.delete(n);
    // shrink ranges whose end rows went, in column formulas and cell formulas
    for (const [colId, f] of this.columnFormulas) {
      const g = shrinkRangesForDeletedRows(f, gone, oldOrder, oldIndex);
      if (!g) continue;
      this.columnFormulas.set(colId, g);
      for (const n of this.nodes.get(colId)?.values() ?? []) {
        if (n.fromColumn) {
          n.formula = g;
          affected.add(n);
        }
      }
    }
    for (const n of this.allNodes()) {
      if (n.fromColumn) continue;
      const g = shrinkRangesForDeletedRows(n.formula, gone, oldOrder, oldIndex);
      if (g) {
        n.formula = g;
        affected.add(n);
      }
    }
    this.rows.remove(gone);
    for (const n of affected) this.attach(n);
    return this.recompute([...affected, ...this.reattachStructural()], new Changes());
  }

  // ------------------------------------------------------------ columns

  addColumn(column: EngineColumn, beforeColumnId: ColumnId | null = null): CellChange[] {
    if (this.columns.has(column.id)) return [];
    this.columns.set(column.id, { title: column.title, type: column.type });
    this.titleIndex = null;
    const at = beforeColumnId === null ? -1 : this.columnOrder.indexOf(beforeColumnId);
    if (at < 0) this.columnOrder.push(column.id);
    else this.columnOrder.splice(at, 0, column.id);
    return this.recompute(this.reattachStructural(), new Changes());
  }

  renameColumn(colId: ColumnId, title: string): CellChange[] {
    const c = this.columns.get(colId);
    if (c) c.title = title;
    this.titleIndex = null;
    return [];
  }

  /** The column's type changed: inputs are re-read and results re-checked against the type. */
  setColumnType(colId: ColumnId, type: ColumnType): CellChange[] {
    const c = this.columns.get(colId);
    if (!c || c.type === type) return [];
    c.type = type;
    this.runs.clear();
    const changes = new Changes();
    const roots = new Set<FormulaNode>(this.nodes.get(colId)?.values() ?? []);
    for (const [rowId, raw] of this.raw.get(colId) ?? []) {
      const before = this.value(rowId, colId);
      this.inputs.get(colId)?.set(rowId, inputToScalar(raw, type));
      const after = this.value(rowId, colId);
      if (!sameScalar(before, after)) changes.add(rowId, colId, after);
    }
    this.graph.readersOfColumn(colId, (n) => roots.add(n));
    return this.recompute(roots, changes);
  }

  /** The column was deleted: its cells and formulas go; references to it become #REF. */
  deleteColumn(colId: ColumnId): CellChange[] {
    if (!this.columns.has(colId)) return [];
    const affected = new Set<FormulaNode>();
    this.graph.readersOfColumn(colId, (n) => affected.add(n));
    for (const n of [...(this.nodes.get(colId)?.values() ?? [])]) this.dropNode(n);
    for (const n of affected) if (n.colId === colId) affected.delete(n);
    this.runs.clear();
    this.nodes.delete(colId);
    this.columnFormulas.delete(colId);
    this.raw.delete(colId);
    this.inputs.delete(colId);
    this.columns.delete(colId);
    this.titleIndex = null;
    this.columnOrder = this.columnOrder.filter((c) => c !== colId);
    for (const n of affected) this.attach(n);
    return this.recompute([...affected, ...this.reattachStructural()], new Changes());
  }

  // ------------------------------------------------------------ outside world

  /** The data behind a cross-sheet reference changed (or its permissions): recompute its readers. */
  crossSheetChanged(name: string): CellChange[] {
    this.crossCache.delete(name);
    return this.recompute(this.graph.crossSheetReaders(name), new Changes());
  }

  /** Re-reads the clock; if the day changed, recomputes TODAY() formulas and their dependents. */
  refreshToday(): CellChange[] {
    const t = todayDays(this.now(), this.offset);
    if (t === this.today) return [];
    this.today = t;
    return this.recompute([...this.timeDependent], new Changes());
  }

  // ------------------------------------------------------------ internals (EngineContext uses these)

  /** @internal */
  todayValue(): number {
    return this.today;
  }

  /** @internal */
  rowModel(): RowModel {
    return this.rows;
  }

  /** @internal */
  hasColumn(id: ColumnId): boolean {
    return this.columns.has(id);
  }

  /** @internal */
  columnsBetween(a: ColumnId, b: ColumnId): readonly ColumnId[] | undefined {
    const i = this.columnOrder.indexOf(a);
    const j = this.columnOrder.indexOf(b);
    if (i < 0 || j < 0) return undefined;
    if (i !== j) return this.columnOrder.slice(Math.min(i, j), Math.max(i, j) + 1);
    // one list per column, kept: a range in one column (every running total) asks once per cell
    let one = this.singleColumns.get(a);
    if (one === undefined) this.singleColumns.set(a, (one = [a]));
    return one;
  }
  private readonly singleColumns = new Map<ColumnId, readonly ColumnId[]>();

  /** @internal */
  crossSheetRange(name: string): RangeValue | ErrorValue {
    let v = this.crossCache.get(name);
    if (v === undefined) {
      v = this.resolveCrossSheet(name);
      this.crossCache.set(name, v);
    }
    return v;
  }

  private resolveCrossSheet(name: string): RangeValue | ErrorValue {
    if (!this.crossSheet) return err('#INVALID REF');
    const data = this.crossSheet(name);
    if ('error' in data) return err(data.error);
    const height = data.cells.length;
    const width = data.cells[0]?.length ?? 0;
    const cells: Scalar[] = [];
    for (const row of data.cells) {
      for (let j = 0; j < width; j++) {
        const c = row[j];
        cells.push(c === undefined ? null : inputToScalar(c.value, c.type));
      }
    }
    return { kind: 'range', width, height, cells };
  }

  private storeInput(rowId: RowId, colId: ColumnId, raw: RawCellValue): void {
    const type = this.columns.get(colId)?.type ?? 'TEXT_NUMBER';
    let r = this.raw.get(colId);
    if (!r) this.raw.set(colId, (r = new Map()));
    let s = this.inputs.get(colId);
    if (!s) this.inputs.set(colId, (s = new Map()));
    if (raw === null || raw === undefined || raw === '') {
      r.delete(rowId);
      s.delete(rowId);
    } else {
      r.set(rowId, raw);
      s.set(rowId, inputToScalar(raw, type));
    }
    this.runs.touch(colId, rowId);
  }

  private upsertNode(rowId: RowId, colId: ColumnId, formula: Formula, fromColumn: boolean): FormulaNode {
    let byRow = this.nodes.get(colId);
    if (!byRow) this.nodes.set(colId, (byRow = new Map()));
    let n = byRow.get(rowId);
    if (!n) {
      n = {
        rowId, colId, formula, fromColumn, deps: NO_DEPS,
        value: this.inputs.get(colId)?.get(rowId) ?? null,
        mark: 0, index: 0, low: 0, onStack: false, succ: null, succEpoch: -1,
      };
      byRow.set(rowId, n);
    } else {
      n.formula = formula;
      n.fromColumn = fromColumn;
    }
    return n;
  }

  /** When a cell loses its own formula in a column that has one, the column formula applies again. */
  private restoreColumnFormula(rowId: RowId, colId: ColumnId, shown: Scalar): FormulaNode | undefined {
    const cf = this.columnFormulas.get(colId);
    if (!cf) return undefined;
    const m = this.upsertNode(rowId, colId, cf, true);
    m.value = shown;
    this.attach(m);
    return m;
  }

  /** (Re)computes a node's dependencies and registers them. */
  private attach(n: FormulaNode, known?: Deps): void {
    const deps = known ?? collectDeps(n.formula, n.rowId, n.colId, this.depsCtx);
    this.graph.register(n, deps);
    if (deps.structural) this.structural.add(n);
    else this.structural.delete(n);
    if (deps.usesToday || this.callsToday(n.formula)) this.timeDependent.add(n);
    else this.timeDependent.delete(n);
  }

  /** isTimeDependent, asked once for the cells of a column formula in a row (they share its tree). */
  private callsToday(f: Formula): boolean {
    if (f !== this.todayFormula) {
      this.todayFormula = f;
      this.todayAnswer = isTimeDependent(f);
    }
    return this.todayAnswer;
  }
  private todayFormula: Formula | null = null;
  private todayAnswer = false;

  private dropNode(n: FormulaNode): void {
    this.runs.touch(n.colId, n.rowId); // the cell shows its input again
    this.graph.unregister(n);
    this.structural.delete(n);
    this.timeDependent.delete(n);
    this.nodes.get(n.colId)?.delete(n.rowId);
  }

  /** Formulas whose reads depend on row order/hierarchy/columns: dependencies re-collected. */
  private reattachStructural(): FormulaNode[] {
    const list = [...this.structural];
    for (const n of list) this.attach(n);
    return list;
  }

  /** What a changed cell feeds (readers, and virtual nodes standing for range readers): roots to recompute. */
  private readers(colId: ColumnId, rowId: RowId): GraphNode[] {
    const out: GraphNode[] = [];
    this.graph.successorsOf(colId, rowId, out);
    return out;
  }

  private *allNodes(): Iterable<FormulaNode> {
    for (const byRow of this.nodes.values()) yield* byRow.values();
  }

  /** allNodes() as an array (Map.forEach: no generator or iterator results on a process not yet optimized). */
  private allNodeList(): FormulaNode[] {
    const out: FormulaNode[] = [];
    this.nodes.forEach((byRow) => byRow.forEach((n) => out.push(n)));
    return out;
  }

  private recompute(roots: Iterable<GraphNode>, changes: Changes, all = false): CellChange[] {
    // always asked (a load too, which has no kept order yet): the first edit after a load then
    // runs code that has type feedback, instead of leaving optimized code on the way
    const rootList = Array.isArray(roots) ? (roots as GraphNode[]) : [...roots];
    let ordered = this.graph.keptOrder(rootList);
    if (ordered === undefined) {
      ordered = this.graph.order(rootList);
      // the order of every formula cell serves the edits that follow (graph.ts keptOrder)
      if (all) this.graph.keepOrder(ordered.order, ordered.cyclic);
    }
    const { order, cyclic, pass } = ordered;
    // cells changed directly that hold a formula may be recomputed: then the recomputation's
    // change replaces theirs (checked once after the pass, not for each recomputed cell)
    let watched: FormulaNode[] | undefined;
    let watchedValues: Scalar[] | undefined;
    for (let i = 0; i < changes.directCount; i++) {
      const c = changes.directCell(i);
      const n = this.nodes.get(c.columnId)?.get(c.rowId);
      if (n === undefined) continue;
      (watched ??= []).push(n);
      (watchedValues ??= []).push(n.value);
    }
    const ctx = this.ctx;
    ctx.today = this.today;
    // the type of the column of the cell before: consecutive cells mostly share their column
    let typeCol: ColumnId | undefined;
    let type: ColumnType = 'TEXT_NUMBER';
    // an indexed loop: on a cold process the array iterator's results are objects (25,000 of them)
    for (let i = 0; i < order.length; i++) {
      const n = order[i]!;
      if (n.mark !== pass || !isFormulaNode(n)) continue;
      let v: Scalar;
      if (cyclic.size > 0 && cyclic.has(n)) {
        v = err('#CIRCULAR REFERENCE');
      } else {
        ctx.hostRow = n.rowId;
        ctx.hostCol = n.colId;
        v = this.evaluator.evaluate(n.formula);
        if (n.colId !== typeCol) {
          typeCol = n.colId;
          type = this.columns.get(n.colId)?.type ?? 'TEXT_NUMBER';
        }
        if (type !== 'TEXT_NUMBER' && type !== 'PICKLIST') v = fitColumn(v, type);
      }
      if (n.value !== v && !sameScalar(n.value, v)) {
        changes.addComputed(n.rowId, n.colId, v);
        this.runs.touch(n.colId, n.rowId);
      }
      n.value = v;
    }
    if (watched !== undefined) {
      for (let i = 0; i < watched.length; i++) {
        const n = watched[i]!;
        const before = watchedValues![i]!;
        if (n.value !== before && !sameScalar(before, n.value)) changes.replaceDirect(n.rowId, n.colId);
      }
    }
    return changes.list();
  }

  /** @internal running totals of a column (SUM([B]$1:[B]@row)) */
  columnRun(colId: ColumnId, topRowId: RowId, top: number, bottom: number): ColumnRun | ErrorValue {
    return this.runs.run(colId, topRowId, top, bottom);
  }

  /** @internal the value of a cell, or undefined when its row or column does not exist */
  readCellIfExists(rowId: RowId, colId: ColumnId): Scalar | undefined {
    // formula cells exist only in existing rows and columns (deletes drop them)
    const n = this.nodes.get(colId)?.get(rowId);
    if (n !== undefined) return n.value;
    if (!this.rows.has(rowId) || !this.columns.has(colId)) return undefined;
    return this.inputs.get(colId)?.get(rowId) ?? null;
  }

  /** @internal the value a formula reads from a cell */
  readCell(rowId: RowId, colId: ColumnId): Scalar {
    return this.value(rowId, colId);
  }
}

/** The evaluator's view of the engine; one instance, re-pointed at each host cell. */
class EngineContext implements EvalContext {
  hostRow: RowId | null = null;
  hostCol: ColumnId | null = null;
  today = 0;

  constructor(private readonly engine: FormulaEngine) {}

  cell(rowId: RowId, colId: ColumnId): Scalar {
    return this.engine.readCell(rowId, colId);
  }
  cellIfExists(rowId: RowId, colId: ColumnId): Scalar | undefined {
    return this.engine.readCellIfExists(rowId, colId);
  }
  hasColumn(colId: ColumnId): boolean {
    return this.engine.hasColumn(colId);
  }
  rowIndex(rowId: RowId): number | undefined {
    return this.engine.rowModel().indexOf(rowId);
  }
  rowIds(): readonly RowId[] {
    return this.engine.rowModel().ids;
  }
  columnsBetween(a: ColumnId, b: ColumnId): readonly ColumnId[] | undefined {
    return this.engine.columnsBetween(a, b);
  }
  children(rowId: RowId): readonly RowId[] {
    return this.engine.rowModel().children(rowId);
  }
  parent(rowId: RowId): RowId | null {
    return this.engine.rowModel().parentOf(rowId);
  }
  crossSheet(name: string): RangeValue | ErrorValue {
    return this.engine.crossSheetRange(name);
  }
  columnRun(colId: ColumnId, topRowId: RowId, top: number, bottom: number): ColumnRun | ErrorValue {
    return this.engine.columnRun(colId, topRowId, top, bottom);
  }
}

/** A changed cell; `result` is worked out when first read. */
class Change implements CellChange {
  private cached: FormulaResult | undefined;

  constructor(
    readonly rowId: RowId,
    readonly columnId: ColumnId,
    readonly value: Scalar,
  ) {}

  get result(): FormulaResult {
    return (this.cached ??= toFormulaResult(this.value));
  }
}

/**
 * Changed cells of one operation in the order they changed. Cells changed directly (`add`,
 * few, all before the recomputation) may then be recomputed (`addComputed`, each cell at most
 * once per pass): the last wins.
 */
class Changes {
  private readonly direct: Change[] = [];
  private readonly computed: Change[] = [];
  /** Direct changes that a later change of the same cell replaced. */
  private readonly replaced = new Set<Change>();

  get directCount(): number {
    return this.direct.length;
  }

  add(rowId: RowId, columnId: ColumnId, value: Scalar): void {
    this.replaceDirect(rowId, columnId);
    this.direct.push(new Change(rowId, columnId, value));
  }

  addComputed(rowId: RowId, columnId: ColumnId, value: Scalar): void {
    this.computed.push(new Change(rowId, columnId, value));
  }

  /** The cells changed directly (for the recomputation to tell which of them it changed again). */
  directCell(i: number): { readonly rowId: RowId; readonly columnId: ColumnId } {
    return this.direct[i]!;
  }

  /** A cell changed directly was changed again (by a later write or the recomputation). */
  replaceDirect(rowId: RowId, columnId: ColumnId): void {
    for (const c of this.direct) if (c.rowId === rowId && c.columnId === columnId) this.replaced.add(c);
  }

  list(): CellChange[] {
    const computed = this.computed;
    if (this.direct.length === 0) return computed;
    const direct = this.replaced.size === 0 ? this.direct : this.direct.filter((c) => !this.replaced.has(c));
    if (computed.length === 0) return direct;
    // the recomputed cells are many (25,000 for an edit at the top of a running total): the few
    // direct ones go in front of them rather than being copied after into a new list
    computed.unshift(...direct);
    return computed;
  }
}
