/**
 * What a formula cell reads, worked out from its tree for one host cell. Single cells and
 * ranges are kept apart so the graph can index ranges per column by row span instead of
 * listing every cell (a whole-column or running-total range would otherwise be O(n) entries).
 */
import type { ColumnId, Formula, Node, RowId, RowRef } from './ast.ts';
import type { RowModel } from './rows.ts';

export interface RangeDep {
  readonly colId: ColumnId;
  /** Both null: the whole column. Otherwise the rows at the two ends (either order). */
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

export function collectDeps(formula: Formula, hostRow: RowId, hostCol: ColumnId, ctx: DepsContext): Deps {
  if (!formula.ok) return NO_DEPS;
  const cells: [ColumnId, RowId][] = [];
  const ranges: RangeDep[] = [];
  const crossSheets: string[] = [];
  let structural = false;
  let usesToday = false;

  const row = (r: RowRef): RowId | undefined => {
    switch (r.kind) {
      case 'at':
        return hostRow;
      case 'missing':
        structural = true;
        return ctx.rows.ids[r.rowNumber - 1];
      case 'id':
        return ctx.rows.has(r.rowId) ? r.rowId : undefined;
    }
  };

  const visit = (n: Node): void => {
    switch (n.type) {
      case 'cell': {
        const r = row(n.row);
        if (r !== undefined && ctx.hasColumn(n.col.colId)) cells.push([n.col.colId, r]);
        return;
      }
      case 'range': {
        const cols = ctx.columnsBetween(n.c1.colId, n.c2.colId);
        if (cols === undefined) return;
        structural = true;
        if (n.r1 === null || n.r2 === null) {
          for (const c of cols) ranges.push({ colId: c, start: null, end: null });
          return;
        }
        const a = row(n.r1);
        const b = row(n.r2);
        if (a === undefined || b === undefined) return;
        for (const c of cols) ranges.push({ colId: c, start: a, end: b });
        return;
      }
      case 'xref':
        crossSheets.push(n.name);
        return;
      case 'unary':
      case 'criterion':
        visit(n.arg);
        return;
      case 'binary':
        visit(n.left);
        visit(n.right);
        return;
      case 'call':
        if (n.name === 'TODAY') usesToday = true;
        if (HIERARCHY.has(n.name)) {
          structural = true;
          hierarchyDeps(n.name, n.args[0]);
          return;
        }
        for (const a of n.args) visit(a);
        return;
      default:
        return;
    }
  };

  /** CHILDREN/PARENT/ANCESTORS read the related rows' cells, not the referenced cell itself. */
  const hierarchyDeps = (name: string, arg: Node | undefined): void => {
    let colId: ColumnId;
    let r: RowId | undefined;
    if (arg === undefined || arg.type === 'empty') {
      colId = hostCol;
      r = hostRow;
    } else if (arg.type === 'cell') {
      colId = arg.col.colId;
      r = row(arg.row);
    } else if (arg.type === 'range' && arg.r1 !== null) {
      colId = arg.c1.colId;
      r = row(arg.r1);
    } else {
      visit(arg);
      return;
    }
    if (r === undefined || !ctx.hasColumn(colId)) return;
    if (name === 'CHILDREN') {
      for (const c of ctx.rows.children(r)) cells.push([colId, c]);
    } else {
      for (let p = ctx.rows.parentOf(r); p !== null; p = name === 'PARENT' ? null : ctx.rows.parentOf(p)) cells.push([colId, p]);
    }
  };

  visit(formula.root);
  return { cells, ranges, crossSheets, structural, usesToday };
}

/** Whether a formula calls TODAY() (the service recomputes these when the day changes). */
export function isTimeDependent(formula: Formula): boolean {
  if (!formula.ok) return false;
  let found = false;
  const visit = (n: Node): void => {
    if (found) return;
    if (n.type === 'call') {
      if (n.name === 'TODAY') found = true;
      n.args.forEach(visit);
    } else if (n.type === 'binary') {
      visit(n.left);
      visit(n.right);
    } else if (n.type === 'unary' || n.type === 'criterion') {
      visit(n.arg);
    }
  };
  visit(formula.root);
  return found;
}

/** Cross-sheet reference names a formula uses. */
export function crossSheetNames(formula: Formula): string[] {
  if (!formula.ok) return [];
  const out = new Set<string>();
  const visit = (n: Node): void => {
    if (n.type === 'xref') out.add(n.name);
    else if (n.type === 'call') n.args.forEach(visit);
    else if (n.type === 'binary') {
      visit(n.left);
      visit(n.right);
    } else if (n.type === 'unary' || n.type === 'criterion') visit(n.arg);
  };
  visit(formula.root);
  return [...out];
}
