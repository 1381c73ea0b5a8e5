/**
 * What a formula cell reads, worked out from its tree for one host cell. Single cells and
 * ranges are kept apart so the graph can index ranges per column by row span instead of
 * listing every cell (a whole-column or running-total range would otherwise be O(n) entries).
 */
import type { ColumnId, Formula, Node, RowId, RowRef } from './ast.ts';
import type { RowModel } from './rows.ts';

export interface RangeDep {
  readonly colId: ColumnId;
  /**
   * Both null: the whole column. Otherwise the rows at the two ends (either order); `start` is
   * the fixed end when one end is `@row`, or the absolute one (`$1`) when only one is.
   */
  readonly start: RowId | null;
  readonly end: RowId | null;
}

export interface Deps {
  readonly cells: ReadonlyArray<readonly [ColumnId, RowId]>;
  readonly ranges: readonly RangeDep[];
  readonly crossSheets: readonly string[];
  /** Reads depend on row order or hierarchy beyond identity: recollect after row changes. */
  readonly structural: boolean;
  readonly usesToday: boolean;
}

export interface DepsContext {
  readonly rows: RowModel;
  columnsBetween(a: ColumnId, b: ColumnId): readonly ColumnId[] | undefined;
  hasColumn(id: ColumnId): boolean;
}

const HIERARCHY = new Set(['CHILDREN', 'PARENT', 'ANCESTORS']);

export const NO_DEPS: Deps = { cells: [], ranges: [], crossSheets: [], structural: false, usesToday: false };

/** The collector between two walks (a walk never starts another): none made per formula cell. */
let spare: Collector | null = null;

export function collectDeps(formula: Formula, hostRow: RowId, hostCol: ColumnId, ctx: DepsContext): Deps {
  if (!formula.ok) return NO_DEPS;
  const c = spare ?? new Collector();
  spare = null;
  c.start(hostRow, hostCol, ctx);
  c.visit(formula.root);
  const deps: Deps = {
    cells: c.cells ?? NO_DEPS.cells,
    ranges: c.ranges ?? NO_DEPS.ranges,
    crossSheets: c.crossSheets ?? NO_DEPS.crossSheets,
    structural: c.structural,
    usesToday: c.usesToday,
  };
  c.start(0, 0, null);
  spare = c;
  return deps;
}

/** The host row while a template is collected: no row has it (checked). */
const HOST = -0.5;

/**
 * What collectDeps gives for every host row of one formula in one column, for a load's column
 * formula cells (25,000 walks of one tree became one): `forRow` puts the host row where the
 * formula reads `@row`. Undefined when the formula's reads depend on the host row otherwise
 * (CHILDREN, PARENT, ANCESTORS). Valid while rows and columns stay as they are.
 */
export interface DepsTemplate {
  forRow(hostRow: RowId): Deps;
}

export function collectDepsTemplate(formula: Formula, hostCol: ColumnId, ctx: DepsContext): DepsTemplate | undefined {
  if (ctx.rows.has(HOST)) return undefined;
  const c = new Collector();
  c.start(HOST, hostCol, ctx);
  if (formula.ok) {
    c.visit(formula.root);
    if (c.hierarchyRead) return undefined;
  }
  const at = collectDeps(formula, HOST, hostCol, ctx);
  if (at === NO_DEPS) return { forRow: () => NO_DEPS };
  const cellsAtHost = at.cells.some((x) => x[1] === HOST);
  const rangesAtHost = at.ranges.some((d) => d.start === HOST || d.end === HOST);
  return {
    forRow(hostRow: RowId): Deps {
      let cells = at.cells;
      if (cellsAtHost) {
        const out: (readonly [ColumnId, RowId])[] = [];
        for (let i = 0; i < cells.length; i++) {
          const x = cells[i]!;
          out.push(x[1] === HOST ? [x[0], hostRow] : x);
        }
        cells = out;
      }
      let ranges = at.ranges;
      if (rangesAtHost) {
        const out: RangeDep[] = [];
        for (let i = 0; i < ranges.length; i++) {
          const d = ranges[i]!;
          out.push(d.start === HOST || d.end === HOST ? { colId: d.colId, start: d.start === HOST ? hostRow : d.start, end: d.end === HOST ? hostRow : d.end } : d);
        }
        ranges = out;
      }
      return { cells, ranges, crossSheets: at.crossSheets, structural: at.structural, usesToday: at.usesToday };
    },
  };
}

/**
 * One walk over a tree (a class rather than closures: this runs for every formula cell on load).
 * Its lists are made when first needed (most formulas read no range or no other sheet), and
 * one collector serves every walk: on a load they were five objects per formula cell to collect.
 */
class Collector {
  cells: [ColumnId, RowId][] | null = null;
  ranges: RangeDep[] | null = null;
  crossSheets: string[] | null = null;
  structural = false;
  usesToday = false;
  /** CHILDREN, PARENT or ANCESTORS was met: the reads depend on the host row's place. */
  hierarchyRead = false;
  private hostRow: RowId = 0;
  private hostCol: ColumnId = 0;
  private ctx: DepsContext = null!;

  start(hostRow: RowId, hostCol: ColumnId, ctx: DepsContext | null): void {
    this.cells = null;
    this.ranges = null;
    this.crossSheets = null;
    this.structural = false;
    this.usesToday = false;
    this.hierarchyRead = false;
    this.hostRow = hostRow;
    this.hostCol = hostCol;
    this.ctx = ctx!;
  }

  private cell(colId: ColumnId, rowId: RowId): void {
    (this.cells ??= []).push([colId, rowId]);
  }

  private range(dep: RangeDep): void {
    (this.ranges ??= []).push(dep);
  }

  private row(r: RowRef): RowId | undefined {
    switch (r.kind) {
      case 'at':
        return this.hostRow;
      case 'missing':
        this.structural = true;
        return this.ctx.rows.ids[r.rowNumber - 1];
      case 'id':
        return this.ctx.rows.has(r.rowId) ? r.rowId : undefined;
    }
  }

  visit(n: Node): void {
    switch (n.type) {
      case 'cell': {
        const r = this.row(n.row);
        if (r !== undefined && this.ctx.hasColumn(n.col.colId)) this.cell(n.col.colId, r);
        return;
      }
      case 'range': {
        const cols = this.ctx.columnsBetween(n.c1.colId, n.c2.colId);
        if (cols === undefined) return;
        this.structural = true;
        if (n.r1 === null || n.r2 === null) {
          for (let i = 0; i < cols.length; i++) this.range({ colId: cols[i]!, start: null, end: null });
          return;
        }
        const a = this.row(n.r1);
        const b = this.row(n.r2);
        if (a === undefined || b === undefined) return;
        // start at the fixed end, so that a column's running ranges share their start (graph.ts chains them)
        const swap = (n.r1.kind === 'at' && n.r2.kind !== 'at') || (n.r2.kind !== 'at' && n.r2.abs && (n.r1.kind === 'at' || !n.r1.abs));
        for (let i = 0; i < cols.length; i++) {
          const c = cols[i]!;
          this.range(swap ? { colId: c, start: b, end: a } : { colId: c, start: a, end: b });
        }
        return;
      }
      case 'xref':
        (this.crossSheets ??= []).push(n.name);
        return;
      case 'unary':
      case 'criterion':
        this.visit(n.arg);
        return;
      case 'binary':
        this.visit(n.left);
        this.visit(n.right);
        return;
      case 'call':
        if (n.name === 'TODAY') this.usesToday = true;
        if (HIERARCHY.has(n.name)) {
          this.structural = true;
          this.hierarchyRead = true;
          this.hierarchy(n.name, n.args[0]);
          return;
        }
        // indexed: a for-of makes an iterator result per argument until this code is optimized
        for (let i = 0; i < n.args.length; i++) this.visit(n.args[i]!);
        return;
      default:
        return;
    }
  }

  /** CHILDREN/PARENT/ANCESTORS read the related rows' cells, not the referenced cell itself. */
  private hierarchy(name: string, arg: Node | undefined): void {
    let colId: ColumnId;
    let r: RowId | undefined;
    if (arg === undefined || arg.type === 'empty') {
      colId = this.hostCol;
      r = this.hostRow;
    } else if (arg.type === 'cell') {
      colId = arg.col.colId;
      r = this.row(arg.row);
    } else if (arg.type === 'range' && arg.r1 !== null) {
      colId = arg.c1.colId;
      r = this.row(arg.r1);
    } else {
      this.visit(arg);
      return;
    }
    if (r === undefined || !this.ctx.hasColumn(colId)) return;
    const rows = this.ctx.rows;
    if (name === 'CHILDREN') {
      for (const c of rows.children(r)) this.cell(colId, c);
    } else {
      for (let p = rows.parentOf(r); p !== null; p = name === 'PARENT' ? null : rows.parentOf(p)) this.cell(colId, p);
    }
  }
}

/** Whether a formula calls TODAY() (the service recomputes these when the day changes). */
export function isTimeDependent(formula: Formula): boolean {
  return formula.ok && callsToday(formula.root);
}

function callsToday(n: Node): boolean {
  switch (n.type) {
    case 'call':
      return n.name === 'TODAY' || n.args.some(callsToday);
    case 'binary':
      return callsToday(n.left) || callsToday(n.right);
    case 'unary':
    case 'criterion':
      return callsToday(n.arg);
    default:
      return false;
  }
}

/** Cross-sheet reference names a formula uses. */
export function crossSheetNames(formula: Formula): string[] {
  if (!formula.ok) return [];
  const out = new Set<string>();
  addCrossSheetNames(formula.root, out);
  return [...out];
}

function addCrossSheetNames(n: Node, out: Set<string>): void {
  switch (n.type) {
    case 'xref':
      out.add(n.name);
      return;
    case 'call':
      for (const a of n.args) addCrossSheetNames(a, out);
      return;
    case 'binary':
      addCrossSheetNames(n.left, out);
      addCrossSheetNames(n.right, out);
      return;
    case 'unary':
    case 'criterion':
      addCrossSheetNames(n.arg, out);
      return;
    default:
      return;
  }
}
