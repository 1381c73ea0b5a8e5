/**
 * Running ranges (`SUM([B]$1:[B]@row)`): values kept by running totals and a chained dependency
 * graph must be exactly what summing the cells gives, through edits, errors, cycles and row
 * changes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FormulaEngine, type CellChange } from '../../../src/engine/formula/engine.ts';
import type { RawCellValue } from '../../../src/engine/formula/values.ts';

const A = 1, B = 2, C = 3, D = 4;

function engine(values: RawCellValue[]): FormulaEngine {
  const e = new FormulaEngine(
    [
      { id: A, title: 'A', type: 'TEXT_NUMBER' },
      { id: B, title: 'B', type: 'TEXT_NUMBER' },
      { id: C, title: 'C', type: 'TEXT_NUMBER' },
      { id: D, title: 'D', type: 'TEXT_NUMBER' },
    ],
    values.map((_, i) => ({ id: 100 + i })),
  );
  e.load(values.map((v, i) => ({ rowId: 100 + i, columnId: B, value: v })));
  return e;
}

const row = (n: number): number => 99 + n;

function column(e: FormulaEngine, col: number, rows: number): unknown[] {
  return Array.from({ length: rows }, (_, i) => e.result(row(i + 1), col).value);
}

function changed(cs: CellChange[]): string[] {
  return cs.map((c) => `${c.columnId === C ? 'C' : c.columnId === D ? 'D' : c.columnId === B ? 'B' : 'A'}${c.rowId - 99}=${String(c.result.value)}`);
}

test('a running SUM down a column: values, text and blanks, edits below and above', () => {
  const e = engine([1, 2, 'x', null, 5]);
  e.setColumnFormula(C, '=SUM([B]$1:[B]@row)');
  assert.deepEqual(column(e, C, 5), [1, 3, 3, 3, 8]);
  assert.deepEqual(changed(e.setCellValue(row(4), B, 10)), ['B4=10', 'C4=13', 'C5=18']);
  assert.deepEqual(changed(e.setCellValue(row(1), B, 0)), ['B1=0', 'C1=0', 'C2=2', 'C3=2', 'C4=12', 'C5=17']);
  assert.deepEqual(changed(e.setCellValue(row(3), B, 'y')), ['B3=y']);
  assert.deepEqual(changed(e.setFormula(row(2), B, '=[A]@row + 7')), ['B2=7', 'C2=7', 'C3=7', 'C4=17', 'C5=22']);
  assert.deepEqual(changed(e.setCellValue(row(2), A, 1)), ['A2=1', 'B2=8', 'C2=8', 'C3=8', 'C4=18', 'C5=23']);
  assert.deepEqual(changed(e.clearFormula(row(2), B)), ['B2=null', 'C2=0', 'C3=0', 'C4=10', 'C5=15']);
});

test('running SUM, COUNT and AVG equal the cell-by-cell results exactly (same order of addition)', () => {
  const values = [0.1, 0.2, 0.3, 'n/a', 1e-17, 0.7, null, 12.34, 24.68, -0.3];
  const e = engine(values);
  e.setColumnFormula(C, '=SUM([B]$1:[B]@row)');
  e.setColumnFormula(D, '=COUNT([B]$1:[B]@row) + AVG([B]$1:[B]@row)');
  for (let k = 1; k <= values.length; k++) {
    // a fixed range without $ or @row is summed cell by cell
    e.setFormula(row(k), A, `=SUM(B1:B${k}) - C${k}`);
    assert.equal(e.value(row(k), A), 0, `row ${k}`);
    const nums = values.slice(0, k).filter((v): v is number => typeof v === 'number');
    let sum = 0;
    for (const n of nums) sum += n;
    const filled = values.slice(0, k).filter((v) => v !== null).length;
    assert.equal(e.value(row(k), C), sum, `SUM row ${k}`);
    assert.equal(e.value(row(k), D), filled + sum / nums.length, `COUNT + AVG row ${k}`);
  }
});

test('errors in a running range block the rows below them, and recover', () => {
  const e = engine([1, 2, 3, 4]);
  e.setColumnFormula(C, '=SUM([B]$1:[B]@row)');
  e.setColumnFormula(D, '=AVG([B]$1:[B]@row)');
  e.setFormula(row(2), B, '=1 / 0');
  assert.deepEqual(column(e, B, 4), [1, '#DIVIDE BY ZERO', 3, 4]);
  assert.deepEqual(column(e, C, 4), [1, '#BLOCKED', '#BLOCKED', '#BLOCKED']);
  assert.deepEqual(column(e, D, 4), [1, '#BLOCKED', '#BLOCKED', '#BLOCKED']);
  assert.deepEqual(changed(e.setCellValue(row(2), B, 5)).sort(), ['B2=5', 'C2=6', 'C3=9', 'C4=13', 'D2=3', 'D3=3', 'D4=3.25']);
  e.setCellValue(row(1), B, null);
  e.setCellValue(row(2), B, 'x');
  assert.deepEqual(column(e, D, 2), ['#DIVIDE BY ZERO', '#DIVIDE BY ZERO']);
});

test('a cycle through a running range marks only the cells on it; cells reading them are #BLOCKED', () => {
  const e = engine([1, 2, 3, 4, 5]);
  e.setColumnFormula(C, '=SUM([B]$1:[B]@row)');
  e.setFormula(row(3), B, '=C5');
  assert.deepEqual(column(e, B, 5), [1, 2, '#CIRCULAR REFERENCE', 4, 5]);
  assert.deepEqual(column(e, C, 5), [1, 3, '#BLOCKED', '#BLOCKED', '#CIRCULAR REFERENCE']);
  // reading a row above is no cycle
  e.setFormula(row(3), B, '=C2');
  assert.deepEqual(column(e, B, 5), [1, 2, 3, 4, 5]);
  assert.deepEqual(column(e, C, 5), [1, 3, 6, 10, 15]);
});

test('running ranges upwards, drag-filled cell formulas and whole columns', () => {
  const e = engine([1, 2, 3, 4, 5]);
  e.setColumnFormula(C, '=SUM([B]@row:[B]$5)');
  assert.deepEqual(column(e, C, 5), [15, 14, 12, 9, 5]);
  for (let k = 1; k <= 5; k++) e.setFormula(row(k), D, `=SUM(B$1:B${k}) * 10`);
  assert.deepEqual(column(e, D, 5), [10, 30, 60, 100, 150]);
  e.setFormula(row(1), A, '=SUM(B:B)');
  assert.deepEqual(changed(e.setCellValue(row(3), B, 30)).sort(), ['A1=42', 'B3=30', 'C1=42', 'C2=41', 'C3=39', 'D3=330', 'D4=370', 'D5=420']);
});

test('running ranges follow inserted, moved and deleted rows', () => {
  const e = engine([1, 2, 3, 4]);
  e.setColumnFormula(C, '=SUM([B]$1:[B]@row)');
  e.addRows([{ id: 200 }], row(3));
  e.setCellValue(200, B, 100);
  assert.deepEqual([1, 2, 200, 3, 4].map((r) => e.value(r === 200 ? 200 : row(r), C)), [1, 3, 103, 106, 110]);
  // row 1 (value 1) to the end: the ranges now run up from every row to the bottom one
  e.moveRows([{ id: row(1) }], null);
  assert.equal(e.formulaOf(row(2), C), '=SUM([B]$5:[B]@row)');
  assert.deepEqual([2, 200, 3, 4, 1].map((r) => e.value(r === 200 ? 200 : row(r), C)), [110, 108, 8, 5, 1]);
  e.deleteRows([200]);
  assert.deepEqual([2, 3, 4, 1].map((r) => e.value(row(r), C)), [10, 8, 5, 1]);
  e.setCellValue(row(4), B, 40);
  assert.deepEqual([2, 3, 4, 1].map((r) => e.value(row(r), C)), [46, 44, 41, 1]);
  e.moveRows([{ id: row(1) }], row(2)); // back to the top
  assert.deepEqual([1, 2, 3, 4].map((r) => e.value(row(r), C)), [1, 3, 6, 46]);
});

test('SUM, COUNT and AVG of a whole column read the same running totals, exactly', () => {
  const values = [0.1, 0.2, 'x', 0.3, null, 12.34, 24.68];
  const e = engine(values);
  e.setColumnFormula(C, '=[B]@row / SUM([B]:[B])');
  e.setColumnFormula(D, '=SUM([B]:[B]) - SUM(B1:B7) + COUNT([B]:[B]) * 1000 + AVG([B]:[B])');
  let sum = 0;
  for (const v of values) if (typeof v === 'number') sum += v;
  assert.equal(e.value(row(1), C), 0.1 / sum);
  assert.equal(e.value(row(1), D), 6000 + sum / 5);
  e.setCellValue(row(3), B, 1);
  sum = 0;
  for (const v of [0.1, 0.2, 1, 0.3, 12.34, 24.68]) sum += v;
  assert.equal(e.value(row(2), C), 0.2 / sum);
  assert.equal(e.value(row(7), D), 6000 + sum / 6);
  e.setFormula(row(5), B, '=1 / 0');
  assert.deepEqual(column(e, C, 2), ['#BLOCKED', '#BLOCKED']);
  e.addRows([{ id: 300 }], row(1));
  e.setCellValue(300, B, 100);
  e.clearFormula(row(5), B);
  sum = 0;
  for (const v of [100, 0.1, 0.2, 1, 0.3, 12.34, 24.68]) sum += v; // top to bottom
  assert.equal(e.value(row(1), C), 0.1 / sum);
});
