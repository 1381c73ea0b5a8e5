/**
 * Evaluates a parsed formula for one host cell. Pure: everything about the sheet comes through
 * EvalContext, so the same tree serves every row of a column formula (`@row` is the host row).
 * Errors are values (ErrorValue), never exceptions. A referenced cell that holds an error reads
 * as #BLOCKED.
 */
import { readsCrossSheet, type ColumnId, type Formula, type Node, type RowId, type RowRef } from './ast.ts';
import {
  checkNumber, compareValues, kindOf, MAX_NUMBER, MAX_TEXT, toScalar, toText, valuesEqual,
} from './coerce.ts';
import { FUNCTIONS } from './functions/index.ts';
import type { Call, ColumnRun, EvalContext, Matcher } from './calls.ts';
export type { Call, ColumnRun, EvalContext, FnDef, FnImpl, Matcher } from './calls.ts';
import {
  dateValue, err, isError, isRange, neededPrecision, SECONDS_PER_DAY, timeValue,
  type DateValue, type ErrorValue, type RangeValue, type Scalar, type TimeValue, type Value,
} from './values.ts';

/** Functions of one range argument that a ColumnRun answers. */
const RUN_FUNCTIONS: ReadonlySet<string> = new Set(['SUM', 'COUNT', 'AVG']);

/** Evaluates a formula for a host cell; the result is one cell value (never a range). */
export function evaluate(formula: Formula, ctx: EvalContext): Scalar {
  return new FormulaEvaluator(ctx).evaluate(formula);
}

/** A reusable evaluator bound to one context (the engine re-points the context at each host cell). */
export class FormulaEvaluator {
  private readonly inner: Evaluator;

  constructor(ctx: EvalContext) {
    this.inner = new Evaluator(ctx);
  }

  evaluate(formula: Formula): Scalar {
    if (!formula.ok) return err(formula.code);
    return finish(this.inner.eval(formula.root));
  }
}

/** Final checks on a cell result: ranges collapse or fail, long text and huge numbers fail. */
function finish(v: Value): Scalar {
  if (typeof v === 'number' && Math.abs(v) <= MAX_NUMBER) return v === 0 ? 0 : v;
  let s: Scalar;
  if (isRange(v)) s = v.cells.length === 1 ? (v.cells[0] as Scalar) : err('#INVALID OPERATION');
  else s = v;
  if (typeof s === 'number') return checkNumber(s);
  if (typeof s === 'string' && s.length > MAX_TEXT) return err('#TOO BIG');
  return s;
}

class Evaluator {
  /** The value `@cell` stands for, innermost criterion last. */
  private readonly atCells: Scalar[] = [];

  constructor(private readonly ctx: EvalContext) {}

  eval(node: Node): Value {
    switch (node.type) {
      case 'number':
      case 'string':
      case 'boolean':
        return node.value;
      case 'empty':
        return null;
      case 'error':
        return err(node.code);
      case 'atcell':
        return this.atCells.length === 0 ? err('#INVALID OPERATION') : (this.atCells[this.atCells.length - 1] as Scalar);
      case 'cell':
        return this.cell(node);
      case 'range':
        return this.range(node);
      case 'xref':
        return this.ctx.crossSheet(node.name);
      case 'unary':
        return unary(node.op, toScalar(this.eval(node.arg)));
      case 'binary': {
        const a = this.eval(node.left);
        const b = this.eval(node.right);
        // fast path for plain numbers (the bulk of sheet arithmetic)
        if (typeof a === 'number' && typeof b === 'number') {
          const r = node.op === '+' ? a + b : node.op === '-' ? a - b : node.op === '*' ? a * b : undefined;
          if (r !== undefined && Math.abs(r) <= MAX_NUMBER) return r;
        }
        return binary(node.op, toScalar(a), toScalar(b));
      }
      case 'criterion':
        // a bare criterion outside a criteria argument
        return err('#INVALID OPERATION');
      case 'call':
        return this.call(node.name, node.args);
    }
  }

  private resolveRow(row: (Node & { type: 'cell' })['row']): RowId | ErrorValue {
    switch (row.kind) {
      case 'at':
        return this.ctx.hostRow ?? err('#INVALID REF');
      case 'missing':
        // a row number the sheet did not have when the formula was written: by position
        return this.ctx.rowIds()[row.rowNumber - 1] ?? err('#INVALID REF');
      case 'id':
        return this.ctx.rowIndex(row.rowId) === undefined ? err('#REF') : row.rowId;
    }
  }

  private cell(node: Node & { type: 'cell' }): Scalar {
    const ctx = this.ctx;
    if (ctx.cellIfExists !== undefined && node.row.kind !== 'missing') {
      const rowId = node.row.kind === 'id' ? node.row.rowId : ctx.hostRow;
      if (rowId !== null) {
        const v = ctx.cellIfExists(rowId, node.col.colId);
        if (v !== undefined) return v !== null && typeof v === 'object' && v.kind === 'error' ? err('#BLOCKED') : v;
      }
    }
    if (!this.ctx.hasColumn(node.col.colId)) return err('#REF');
    const rowId = node.row.kind === 'at' && this.ctx.hostRow !== null ? this.ctx.hostRow : this.resolveRow(node.row);
    if (typeof rowId !== 'number') return rowId;
    const v = this.ctx.cell(rowId, node.col.colId);
    return v !== null && typeof v === 'object' && v.kind === 'error' ? err('#BLOCKED') : v;
  }

  private range(node: Node & { type: 'range' }): RangeValue | ErrorValue {
    const cols = this.ctx.columnsBetween(node.c1.colId, node.c2.colId);
    if (cols === undefined) return err('#REF');
    let rows: readonly RowId[];
    const all = this.ctx.rowIds();
    if (node.r1 === null || node.r2 === null) {
      rows = all;
    } else {
      const a = this.resolveRow(node.r1);
      if (isError(a)) return a;
      const b = this.resolveRow(node.r2);
      if (isError(b)) return b;
      const ia = this.ctx.rowIndex(a) as number;
      const ib = this.ctx.rowIndex(b) as number;
      rows = all.slice(Math.min(ia, ib), Math.max(ia, ib) + 1);
    }
    const cells: Scalar[] = new Array<Scalar>(rows.length * cols.length);
    let k = 0;
    for (const r of rows) {
      for (const c of cols) {
        const v = this.ctx.cell(r, c);
        cells[k++] = isError(v) ? err('#BLOCKED') : v;
      }
    }
    return { kind: 'range', width: cols.length, height: rows.length, cells };
  }

  private call(name: string, args: readonly Node[]): Value {
    if (args.length === 1 && this.ctx.columnRun !== undefined && RUN_FUNCTIONS.has(name)) {
      const fast = this.runningRange(name, args[0] as Node);
      if (fast !== undefined) return fast;
    }
    const def = FUNCTIONS.get(name);
    if (def === undefined) return err('#UNPARSEABLE');
    if (args.length < def.min || args.length > def.max) return err('#INCORRECT ARGUMENT SET');
    if (def.noCrossSheet && args.some(containsCrossSheet)) return err('#UNSUPPORTED CROSS-SHEET FORMULA');
    const call: Call = {
      name,
      nodes: args,
      ctx: this.ctx,
      has: (i) => i < args.length && args[i]?.type !== 'empty',
      value: (i) => (i < args.length ? this.eval(args[i] as Node) : null),
      scalar: (i) => (i < args.length ? toScalar(this.eval(args[i] as Node)) : null),
      matcher: (i) => this.matcher(args[i] as Node),
      cellRef: (i) => this.cellRef(args[i]),
    };
    return def.impl(call);
  }

  /**
   * SUM/COUNT/AVG of a running range: one column, from a fixed top row (written `$1`, or any
   * fixed row when the other end is `@row`) down, or the whole column. Undefined when the call
   * is not of that shape (it is then evaluated cell by cell, with the same result).
   */
  private runningRange(name: string, node: Node): Value | undefined {
    if (node.type !== 'range' || node.c1.colId !== node.c2.colId) return undefined;
    const colId = node.c1.colId;
    if (node.r1 === null || node.r2 === null) {
      // a whole column: the run from the first row to the last
      const ids = this.ctx.rowIds();
      if (ids.length === 0 || !this.ctx.hasColumn(colId)) return undefined;
      return this.fromRun(name, this.ctx.columnRun?.(colId, ids[0] as RowId, 0, ids.length - 1));
    }
    const a = this.fixedOrHostRow(node.r1);
    const b = this.fixedOrHostRow(node.r2);
    if (a === undefined || b === undefined || !this.ctx.hasColumn(colId)) return undefined;
    const ia = this.ctx.rowIndex(a);
    const ib = this.ctx.rowIndex(b);
    if (ia === undefined || ib === undefined) return undefined;
    const down = ia <= ib;
    const topRef = down ? node.r1 : node.r2;
    if (topRef.kind !== 'id' || !(topRef.abs || (down ? node.r2 : node.r1).kind === 'at')) return undefined;
    return this.fromRun(name, this.ctx.columnRun?.(colId, down ? a : b, down ? ia : ib, down ? ib : ia));
  }

  private fromRun(name: string, run: ColumnRun | ErrorValue | undefined): Value | undefined {
    if (run === undefined || isError(run)) return run;
    switch (name) {
      case 'SUM':
        return checkNumber(run.sum);
      case 'COUNT':
        return run.filled;
      default:
        return run.numbers === 0 ? err('#DIVIDE BY ZERO') : run.sum / run.numbers;
    }
  }

  /** A range end's row: its id, or the host row for `@row`; undefined for anything else. */
  private fixedOrHostRow(r: RowRef): RowId | undefined {
    return r.kind === 'id' ? r.rowId : r.kind === 'at' ? (this.ctx.hostRow ?? undefined) : undefined;
  }

  private matcher(node: Node): Matcher | ErrorValue {
    // a range of another sheet inside a criterion (bare, or within an expression): the criterion
    // is tested per cell, and a cross-sheet range cannot be read there
    if (readsCrossSheet(node)) return err('#NESTED CRITERIA');
    if (node.type === 'criterion') {
      const rhs = toScalar(this.eval(node.arg));
      if (isError(rhs)) return rhs;
      const op = node.op;
      return (cell) => criterionHolds(op, cell, rhs);
    }
    if (usesAtCell(node)) {
      return (cell) => {
        this.atCells.push(cell);
        try {
          return toScalar(this.eval(node)) === true;
        } finally {
          this.atCells.pop();
        }
      };
    }
    const v = toScalar(this.eval(node));
    if (isError(v)) return v;
    return (cell) => valuesEqual(cell, v);
  }

  private cellRef(node: Node | undefined): { rowId: RowId; colId: ColumnId } | ErrorValue {
    if (node === undefined || node.type === 'empty') {
      if (this.ctx.hostRow === null || this.ctx.hostCol === null) return err('#INVALID REF');
      return { rowId: this.ctx.hostRow, colId: this.ctx.hostCol };
    }
    if (node.type === 'xref') return err('#UNSUPPORTED CROSS-SHEET FORMULA');
    if (node.type === 'error') return err(node.code);
    let colRef;
    let rowRef;
    if (node.type === 'cell') {
      colRef = node.col;
      rowRef = node.row;
    } else if (node.type === 'range' && node.r1 !== null && node.c1.colId === node.c2.colId && sameRow(node.r1, node.r2)) {
      // a one-cell range such as [A]1:[A]1
      colRef = node.c1;
      rowRef = node.r1;
    } else {
      return err('#INVALID DATA TYPE');
    }
    if (!this.ctx.hasColumn(colRef.colId)) return err('#REF');
    const rowId = this.resolveRow(rowRef);
    if (isError(rowId)) return rowId;
    return { rowId, colId: colRef.colId };
  }
}

function sameRow(a: RowRef, b: RowRef | null): boolean {
  if (b === null || a.kind !== b.kind) return false;
  if (a.kind === 'id' && b.kind === 'id') return a.rowId === b.rowId;
  return a.kind === 'at';
}

function containsCrossSheet(n: Node): boolean {
  switch (n.type) {
    case 'xref':
      return true;
    case 'unary':
    case 'criterion':
      return containsCrossSheet(n.arg);
    case 'binary':
      return containsCrossSheet(n.left) || containsCrossSheet(n.right);
    default:
      return false;
  }
}

/** Whether `@cell` occurs in an expression (outside nested criteria functions' own arguments it binds here). */
function usesAtCell(n: Node): boolean {
  switch (n.type) {
    case 'atcell':
      return true;
    case 'unary':
    case 'criterion':
      return usesAtCell(n.arg);
    case 'binary':
      return usesAtCell(n.left) || usesAtCell(n.right);
    case 'call':
      return n.args.some(usesAtCell);
    default:
      return false;
  }
}

/** `COUNTIF(range, > 5)`: cells of another type (text against a number) simply do not match. */
export function criterionHolds(op: string, cell: Scalar, rhs: Scalar): boolean {
  if (isError(cell)) return false;
  if (op === '=') return valuesEqual(cell, rhs);
  if (op === '<>') return !valuesEqual(cell, rhs);
  const kc = kindOf(cell);
  if (kc === 'blank' || kc !== kindOf(rhs)) return false;
  const c = compareValues(cell, rhs);
  if (c === undefined) return false;
  switch (op) {
    case '<':
      return c < 0;
    case '>':
      return c > 0;
    case '<=':
      return c <= 0;
    default:
      return c >= 0;
  }
}

// ---------------------------------------------------------------- operators

function unary(op: '-' | '+', v: Scalar): Scalar {
  if (isError(v)) return v;
  const k = kindOf(v);
  if (k === 'blank') return 0;
  if (k !== 'number') return op === '+' && k !== 'boolean' ? v : err('#INVALID OPERATION');
  return op === '-' ? -(v as number) : v;
}

function binary(op: string, a: Scalar, b: Scalar): Scalar {
  if (isError(a)) return a;
  if (isError(b)) return b;
  switch (op) {
    case '=':
      return valuesEqual(a, b);
    case '<>':
      return !valuesEqual(a, b);
    case '<':
    case '>':
    case '<=':
    case '>=': {
      const c = compareValues(a, b);
      if (c === undefined) return err('#INVALID OPERATION');
      return op === '<' ? c < 0 : op === '>' ? c > 0 : op === '<=' ? c <= 0 : c >= 0;
    }
    case '+':
      return plus(a, b);
    case '-':
      return minus(a, b);
    default:
      return arithmetic(op, a, b);
  }
}

/** A time moved by a number of minutes (wrapping past midnight), shown with at least the parts it now has. */
function addMinutes(t: TimeValue, minutes: number): TimeValue {
  const moved = timeValue(t.secs + minutes * 60, t.format, t.precision);
  const need = neededPrecision(moved.secs);
  return need > moved.precision ? { ...moved, precision: need } : moved;
}

function plus(a: Scalar, b: Scalar): Scalar {
  const ka = kindOf(a);
  const kb = kindOf(b);
  if (ka === 'text' || kb === 'text') return toText(a) + toText(b);
  if (ka === 'time' || kb === 'time') {
    const [t, other, ko] = ka === 'time' ? [a as TimeValue, b, kb] : [b as TimeValue, a, ka];
    if (ko === 'number' || ko === 'blank') return addMinutes(t, (other as number | null) ?? 0);
    // a date plus a time of day is that date at that time
    if (ko === 'date') return dateValue((other as DateValue).days + t.secs / SECONDS_PER_DAY);
    return err('#INVALID OPERATION');
  }
  if (ka === 'date' && (kb === 'number' || kb === 'blank')) return dateValue((a as { days: number }).days + ((b as number | null) ?? 0));
  if (kb === 'date' && (ka === 'number' || ka === 'blank')) return dateValue((b as { days: number }).days + ((a as number | null) ?? 0));
  if ((ka === 'number' || ka === 'blank') && (kb === 'number' || kb === 'blank')) {
    return checkNumber(((a as number | null) ?? 0) + ((b as number | null) ?? 0));
  }
  return err('#INVALID OPERATION');
}

function minus(a: Scalar, b: Scalar): Scalar {
  const ka = kindOf(a);
  const kb = kindOf(b);
  if (ka === 'time') {
    // time - minutes is a time; time - time is the minutes between them (negative when b is later)
    if (kb === 'number' || kb === 'blank') return addMinutes(a as TimeValue, -((b as number | null) ?? 0));
    if (kb === 'time') return ((a as TimeValue).secs - (b as TimeValue).secs) / 60;
    return err('#INVALID OPERATION');
  }
  if (ka === 'date' && kb === 'date') return (a as { days: number }).days - (b as { days: number }).days;
  if (ka === 'date' && (kb === 'number' || kb === 'blank')) return dateValue((a as { days: number }).days - ((b as number | null) ?? 0));
  if ((ka === 'number' || ka === 'blank') && (kb === 'number' || kb === 'blank')) {
    return checkNumber(((a as number | null) ?? 0) - ((b as number | null) ?? 0));
  }
  return err('#INVALID OPERATION');
}

function arithmetic(op: string, a: Scalar, b: Scalar): Scalar {
  const ka = kindOf(a);
  const kb = kindOf(b);
  if ((ka !== 'number' && ka !== 'blank') || (kb !== 'number' && kb !== 'blank')) return err('#INVALID OPERATION');
  const x = (a as number | null) ?? 0;
  const y = (b as number | null) ?? 0;
  switch (op) {
    case '*':
      return checkNumber(x * y);
    case '/':
      return y === 0 ? err('#DIVIDE BY ZERO') : checkNumber(x / y);
    default:
      if (x === 0 && y < 0) return err('#DIVIDE BY ZERO');
      return checkNumber(x ** y);
  }
}
