/**
 * Running totals down one column from a fixed top row, kept between evaluations, so that a
 * running total written `SUM([B]$1:[B]@row)` on every row costs O(1) a row instead of summing
 * up to 25,000 cells each time.
 *
 * A run holds, for each position from its top row down, the sum of the numbers so far (added in
 * the same order as SUM adds a range, so the result is the same to the last bit), how many of
 * them are numbers, how many are not blank, and where the first error is. It is computed lazily
 * up to a watermark: a value change at a position lowers the watermark of the runs above it
 * (`touch`), and the next query extends the run from there. Any change of row order drops
 * every run (positions moved).
 */
import type { ColumnId, RowId } from './ast.ts';
import type { ColumnRun } from './evaluator.ts';
import { kindOf } from './coerce.ts';
import type { RowModel } from './rows.ts';
import { err, isError, type ErrorValue, type Scalar } from './values.ts';

class Run {
  readonly sums: number[] = [];
  readonly numbers: number[] = [];
  readonly filled: number[] = [];
  /** Positions [0, valid) below the top are computed. */
  valid = 0;
  /** The first computed position holding an error (Infinity: none so far). */
  firstError = Infinity;

  constructor(
    readonly colId: ColumnId,
    readonly topRowId: RowId,
    readonly top: number,
    /** The column's reader, asked for once per run rather than once per extension. */
    readonly read: (rowId: RowId) => Scalar,
  ) {}
}

export class RunningTotals {
  private readonly byColumn = new Map<ColumnId, Map<RowId, Run>>();
  private readonly result = { sum: 0, numbers: 0, filled: 0 };
  private last: Run | null = null;
  private version = -1;

  constructor(
    private readonly rows: RowModel,
    /** Reads a column's cells (asked for once per run). */
    private readonly reader: (colId: ColumnId) => (rowId: RowId) => Scalar,
  ) {}

  /**
   * Totals of the cells of `colId` from position `top` (row `topRowId`) down to `bottom`; #BLOCKED
   * if one is an error. The object returned is reused by the next query: read it before that.
   */
  run(colId: ColumnId, topRowId: RowId, top: number, bottom: number): ColumnRun | ErrorValue {
    if (this.version !== this.rows.version) this.clear();
    // the run of the query before, when it is the same (a running total asks for one run 25,000
    // times in a row): two map lookups fewer a cell
    let run = this.last;
    if (run === null || run.colId !== colId || run.topRowId !== topRowId || run.top !== top) {
      let runs = this.byColumn.get(colId);
      if (!runs) this.byColumn.set(colId, (runs = new Map()));
      let kept = runs.get(topRowId);
      if (!kept || kept.top !== top) runs.set(topRowId, (kept = new Run(colId, topRowId, top, this.reader(colId))));
      this.last = run = kept;
    }
    const last = bottom - top;
    if (run.valid <= last) this.extend(run, last);
    if (run.firstError <= last) return err('#BLOCKED');
    // one result object, filled anew for each query: its reader takes the numbers out at once
    // (a running total over 25,000 rows asks 25,000 times in one recompute)
    const out = this.result;
    out.sum = run.sums[last] as number;
    out.numbers = run.numbers[last] as number;
    out.filled = run.filled[last] as number;
    return out;
  }

  /** The value of a cell changed: runs that hold it are recomputed from there on next use. */
  touch(colId: ColumnId, rowId: RowId): void {
    const runs = this.byColumn.get(colId);
    if (!runs) return;
    const at = this.rows.indexOf(rowId);
    if (at === undefined) return;
    for (const run of runs.values()) {
      const k = at - run.top;
      if (k < 0 || k >= run.valid) continue;
      run.valid = k;
      // written only when it holds a position: rewriting Infinity makes the field mutable, which
      // throws away the optimized code of every reader (a cold process's first edit recompiled them)
      if (run.firstError !== Infinity && run.firstError >= k) run.firstError = Infinity;
    }
  }

  /** Forgets every run (column types or row order changed). */
  clear(): void {
    this.byColumn.clear();
    this.last = null;
    this.version = this.rows.version;
  }

  private extend(run: Run, last: number): void {
    const ids = this.rows.ids;
    const read = run.read;
    const { sums, numbers, filled } = run;
    let k = run.valid;
    let sum = k === 0 ? 0 : (sums[k - 1] as number);
    let nums = k === 0 ? 0 : (numbers[k - 1] as number);
    let full = k === 0 ? 0 : (filled[k - 1] as number);
    for (; k <= last; k++) {
      const v = read(ids[run.top + k] as RowId);
      if (typeof v === 'number') {
        sum += v;
        nums++;
        full++;
      } else if (v !== null && v !== '') {
        if (isError(v)) {
          if (k < run.firstError) run.firstError = k;
        } else if (kindOf(v) !== 'blank') full++;
      }
      sums[k] = sum;
      numbers[k] = nums;
      filled[k] = full;
    }
    run.valid = last + 1;
  }
}
