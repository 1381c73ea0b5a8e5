/**
 * The types the evaluator (evaluator.ts) and the function library (functions/) share: what the
 * evaluator asks of the sheet, and what a library function sees of its call. Apart, so that the
 * library does not import the evaluator that imports it.
 */
import type { ColumnId, Node, RowId } from './ast.ts';
import type { ErrorValue, RangeValue, Scalar, Value } from './values.ts';

/** What the evaluator may ask of the sheet. */
export interface EvalContext {
  /** The row and column of the cell being computed (`@row`; CHILDREN() without arguments). */
  readonly hostRow: RowId | null;
  readonly hostCol: ColumnId | null;
  /** TODAY() as whole days from 1970-01-01. */
  readonly today: number;
  /** A cell's current value (computed value for formula cells). */
  cell(rowId: RowId, colId: ColumnId): Scalar;
  /** Optional: the same, or undefined when the row or the column does not exist (one lookup instead of three). */
  cellIfExists?(rowId: RowId, colId: ColumnId): Scalar | undefined;
  hasColumn(colId: ColumnId): boolean;
  /** 0-based position in display order; undefined for a deleted row. */
  rowIndex(rowId: RowId): number | undefined;
  /** Row ids in display order. */
  rowIds(): readonly RowId[];
  /** Column ids from a to b inclusive in sheet order (either direction); undefined if either is gone. */
  columnsBetween(a: ColumnId, b: ColumnId): readonly ColumnId[] | undefined;
  children(rowId: RowId): readonly RowId[];
  parent(rowId: RowId): RowId | null;
  /** A cross-sheet reference's cells, or the error to show (#REF, #PERMISSION ERROR, ...). */
  crossSheet(name: string): RangeValue | ErrorValue;
  /**
   * Optional: totals of one column's cells from position `top` (row `topRowId`) down to
   * `bottom`, kept between calls (the engine's running totals); #BLOCKED when a cell is an error.
   * SUM, COUNT and AVG over a running range (`[B]$1:[B]@row`) use it instead of reading the cells.
   */
  columnRun?(colId: ColumnId, topRowId: RowId, top: number, bottom: number): ColumnRun | ErrorValue | undefined;
}

/** What SUM, COUNT and AVG need of a range: the sum of its numbers (added top to bottom), how many numbers, how many non-blank cells. */
export interface ColumnRun {
  readonly sum: number;
  readonly numbers: number;
  readonly filled: number;
}

/** A criterion argument turned into a test of one cell. */
export type Matcher = (cell: Scalar) => boolean;

/** What a library function sees of its call. Arguments are evaluated on demand (IF, IFERROR). */
export interface Call {
  readonly name: string;
  readonly nodes: readonly Node[];
  readonly ctx: EvalContext;
  /** Whether argument i was given (and not left empty). */
  has(i: number): boolean;
  /** Argument i evaluated: a range stays a range. */
  value(i: number): Value;
  /** Argument i as one value (a one-cell range is its cell; a larger range is #INVALID DATA TYPE). */
  scalar(i: number): Scalar;
  /** Argument i as a criterion: `> 5`, `@cell > 5`, or a plain value (equality). */
  matcher(i: number): Matcher | ErrorValue;
  /** The cell a reference argument points at (hierarchy functions); undefined argument = host cell. */
  cellRef(i: number): { rowId: RowId; colId: ColumnId } | ErrorValue;
}

export type FnImpl = (call: Call) => Value;

export interface FnDef {
  readonly min: number;
  readonly max: number;
  readonly impl: FnImpl;
  /** Rejects cross-sheet references in its arguments (#UNSUPPORTED CROSS-SHEET FORMULA). */
  readonly noCrossSheet?: boolean;
}
