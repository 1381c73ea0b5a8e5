/** A small in-memory sheet for evaluator and function tests (no engine, no dependency graph). */
import assert from 'node:assert/strict';
import type { ColumnId, RowId } from '../../../src/engine/formula/ast.ts';
import { evaluate, type EvalContext } from '../../../src/engine/formula/evaluator.ts';
import { parseFormula } from '../../../src/engine/formula/parser.ts';
import { staticSchema } from '../../../src/engine/formula/schema.ts';
import {
  daysFromYmd, err, inputToScalar, toFormulaResult, type ColumnType, type RangeValue, type RawCellValue, type Scalar, type ErrorValue,
} from '../../../src/engine/formula/values.ts';

export interface TestColumn {
  readonly title: string;
  readonly type?: ColumnType;
}
export interface TestRow {
  readonly parent?: number; // 1-based row number of the parent
  readonly cells: Readonly<Record<string, RawCellValue>>;
}

export const TODAY = daysFromYmd(2024, 3, 15); // a Friday

export class TestSheet {
  readonly colIds: ColumnId[];
  readonly rowIds: RowId[];
  private readonly values = new Map<string, Scalar>();
  private readonly parents = new Map<RowId, RowId | null>();

  constructor(
    readonly columns: readonly TestColumn[],
    rows: readonly TestRow[],
    private readonly crossSheets: Readonly<Record<string, RangeValue | ErrorValue>> = {},
  ) {
    this.colIds = columns.map((_, i) => 1000 + i);
    this.rowIds = rows.map((_, i) => 50 + i);
    rows.forEach((r, i) => {
      const rowId = this.rowIds[i] as RowId;
      this.parents.set(rowId, r.parent === undefined ? null : (this.rowIds[r.parent - 1] as RowId));
      columns.forEach((c, j) => {
        const raw = r.cells[c.title];
        this.values.set(`${rowId}:${this.colIds[j]}`, inputToScalar(raw, c.type ?? 'TEXT_NUMBER'));
      });
    });
  }

  get schema() {
    return staticSchema(this.columns.map((c, i) => ({ id: this.colIds[i] as ColumnId, title: c.title })), this.rowIds);
  }

  /** Sets a computed/error value directly (to test #BLOCKED). */
  put(rowNumber: number, title: string, v: Scalar): void {
    const j = this.columns.findIndex((c) => c.title === title);
    this.values.set(`${this.rowIds[rowNumber - 1]}:${this.colIds[j]}`, v);
  }

  context(hostRowNumber: number, hostTitle?: string): EvalContext {
    const index = new Map(this.rowIds.map((r, i) => [r, i] as const));
    const hostCol = hostTitle === undefined ? null : (this.colIds[this.columns.findIndex((c) => c.title === hostTitle)] ?? null);
    return {
      hostRow: this.rowIds[hostRowNumber - 1] ?? null,
      hostCol,
      today: TODAY,
      cell: (r, c) => this.values.get(`${r}:${c}`) ?? null,
      hasColumn: (c) => this.colIds.includes(c),
      rowIndex: (r) => index.get(r),
      rowIds: () => this.rowIds,
      columnsBetween: (a, b) => {
        const i = this.colIds.indexOf(a);
        const j = this.colIds.indexOf(b);
        if (i < 0 || j < 0) return undefined;
        return this.colIds.slice(Math.min(i, j), Math.max(i, j) + 1);
      },
      children: (r) => this.rowIds.filter((x) => this.parents.get(x) === r),
      parent: (r) => this.parents.get(r) ?? null,
      crossSheet: (name) => this.crossSheets[name] ?? err('#INVALID REF'),
    };
  }

  /** Evaluates formula text as if it were in row `hostRow` (1-based) of column `hostTitle`. */
  eval(text: string, hostRow = 1, hostTitle?: string): Scalar {
    return evaluate(parseFormula(text, this.schema), this.context(hostRow, hostTitle));
  }
}

/** Expected result: number, text, boolean, null (blank), 'date:YYYY-MM-DD', or an error text like '#NO MATCH'. */
export type Expected = number | string | boolean | null;

export function check(sheet: TestSheet, cases: readonly (readonly [string, Expected] | readonly [string, Expected, number])[]): void {
  for (const [text, want, hostRow] of cases) {
    const got = toFormulaResult(sheet.eval(text, hostRow ?? 1, sheet.columns[sheet.columns.length - 1]?.title));
    if (typeof want === 'string' && want.startsWith('date:')) {
      assert.deepEqual(got, { value: want.slice(5), type: 'DATE' }, text);
    } else if (typeof want === 'string' && want.startsWith('#')) {
      assert.deepEqual(got, { value: want, type: 'ERROR' }, text);
    } else if (typeof want === 'number' && typeof got.value === 'number') {
      assert.ok(Math.abs(got.value - want) < 1e-9, `${text}: got ${got.value}, want ${want}`);
      assert.equal(got.type, 'NUMBER', text);
    } else {
      assert.deepEqual(got.value, want, text);
      assert.notEqual(got.type, 'ERROR', text);
    }
  }
}

/** The sample sheet used by the function tests. */
export function sampleSheet(): TestSheet {
  return new TestSheet(
    [
      { title: 'Item' },
      { title: 'Total' },
      { title: 'Units' },
      { title: 'Price' },
      { title: 'In Stock', type: 'CHECKBOX' },
      { title: 'Sold', type: 'DATE' },
      { title: 'Tags', type: 'MULTI_PICKLIST' },
      { title: 'Status' },
      { title: 'Out' },
    ],
    [
      { cells: { Item: 'T-Shirt', Total: 1170, Units: 78, Price: 15, 'In Stock': true, Sold: '2019-02-12', Tags: ['Red', 'Blue'], Status: 'Done' } },
      { cells: { Item: 'Pants', Total: 1491, Units: 42, Price: 35.5, 'In Stock': false, Sold: '2019-02-15', Tags: ['Blue'], Status: 'open' } },
      { cells: { Item: 'Jacket', Total: 812, Units: 217, Price: 200, 'In Stock': true, Sold: '2019-02-20', Tags: ['Green'], Status: 'Done' } },
      { cells: { Item: 'Socks', Units: 'n/a', Price: 2, 'In Stock': false } },
    ],
  );
}
