import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FormulaEngine, type CellChange } from '../../../src/engine/formula/engine.ts';
import type { ColumnType } from '../../../src/engine/formula/values.ts';

const A = 1, B = 2, C = 3, D = 4;

function engine(rowCount = 5, opts: ConstructorParameters<typeof FormulaEngine>[2] = {}, types: Partial<Record<number, ColumnType>> = {}): FormulaEngine {
  return new FormulaEngine(
    [
      { id: A, title: 'A', type: types[A] ?? 'TEXT_NUMBER' },
      { id: B, title: 'Col B', type: types[B] ?? 'TEXT_NUMBER' },
      { id: C, title: 'C', type: types[C] ?? 'TEXT_NUMBER' },
      { id: D, title: 'D', type: types[D] ?? 'TEXT_NUMBER' },
    ],
    Array.from({ length: rowCount }, (_, i) => ({ id: 100 + i })),
    opts,
  );
}

const row = (n: number): number => 99 + n; // row number -> row id

function changed(cs: CellChange[]): string[] {
  return cs.map((c) => `${c.rowId - 99}:${c.columnId}=${String(c.result.value)}`);
}

test('setFormula computes; setCellValue recomputes only dependents, in order', () => {
  const e = engine();
  e.setCellValue(row(1), A, 2);
  assert.deepEqual(changed(e.setFormula(row(1), B, '=A1 * 10')), ['1:2=20']);
  assert.deepEqual(changed(e.setFormula(row(1), C, '=[Col B]1 + 1')), ['1:3=21']);
  assert.deepEqual(changed(e.setCellValue(row(1), A, 3)), ['1:1=3', '1:2=30', '1:3=31']);
  assert.deepEqual(changed(e.setCellValue(row(2), A, 3)), ['2:1=3']);
  assert.deepEqual(e.setCellValue(row(1), A, 3), []);
  assert.equal(e.formulaOf(row(1), C), '=[Col B]1 + 1');
});

test('writing a value over a formula replaces it; clearFormula leaves the value given', () => {
  const e = engine();
  e.setFormula(row(1), B, '=5');
  e.setFormula(row(2), B, '=[Col B]1 + 1');
  assert.deepEqual(changed(e.setCellValue(row(1), B, 7)), ['1:2=7', '2:2=8']);
  assert.equal(e.formulaOf(row(1), B), undefined);
  assert.deepEqual(changed(e.clearFormula(row(2), B, 'x')), ['2:2=x']);
});

test('column formulas apply to every row via @row, including rows added later', () => {
  const e = engine(3);
  for (let i = 1; i <= 3; i++) e.setCellValue(row(i), A, i);
  assert.deepEqual(changed(e.setColumnFormula(B, '=A@row * 2')), ['1:2=2', '2:2=4', '3:2=6']);
  assert.ok(e.isColumnFormulaCell(row(2), B));
  assert.equal(e.formulaOf(row(2), B), '=A@row * 2');
  assert.deepEqual(changed(e.addRows([{ id: 200 }])), ['101:2=0']); // row id 200; blank A counts as 0
  assert.equal(e.value(200, B), 0);
  assert.deepEqual(changed(e.setCellValue(200, A, 5)), ['101:1=5', '101:2=10']);
  assert.deepEqual(changed(e.setColumnFormula(B, null)).length, 4);
  assert.equal(e.value(row(1), B), null);
});

test('cycles: every cell on the cycle shows #CIRCULAR REFERENCE, readers are #BLOCKED; breaking it recovers', () => {
  const e = engine();
  e.setFormula(row(1), A, '=[Col B]1');
  e.setFormula(row(1), C, '=A1 + 1');
  const cs = e.setFormula(row(1), B, '=A1');
  assert.deepEqual(e.result(row(1), A).value, '#CIRCULAR REFERENCE');
  assert.deepEqual(e.result(row(1), B).value, '#CIRCULAR REFERENCE');
  assert.deepEqual(e.result(row(1), C).value, '#BLOCKED');
  assert.equal(cs.length, 3);
  e.setFormula(row(1), B, '=7');
  assert.equal(e.value(row(1), A), 7);
  assert.equal(e.value(row(1), C), 8);
  e.setFormula(row(2), A, '=A2 + 1');
  assert.equal(e.result(row(2), A).value, '#CIRCULAR REFERENCE');
  e.setFormula(row(3), D, '=SUM(D:D)');
  assert.equal(e.result(row(3), D).value, '#CIRCULAR REFERENCE');
});

test('ranges: a whole-column SUM follows edits, inserts and deletes', () => {
  const e = engine(3);
  for (let i = 1; i <= 3; i++) e.setCellValue(row(i), A, i * 10);
  e.setFormula(row(1), D, '=SUM(A:A)');
  e.setFormula(row(2), D, '=SUM(A1:A3)');
  e.setFormula(row(3), D, '=COUNTIF(A:A, "")');
  assert.deepEqual([e.value(row(1), D), e.value(row(2), D), e.value(row(3), D)], [60, 60, 0]);
  e.setCellValue(row(2), A, 5);
  assert.deepEqual([e.value(row(1), D), e.value(row(2), D)], [45, 45]);
  e.addRows([{ id: 300 }], row(2)); // inserted between rows 1 and 2
  assert.equal(e.value(row(3), D), 1);
  e.setCellValue(300, A, 1);
  assert.deepEqual([e.value(row(1), D), e.value(row(2), D)], [46, 46]);
  assert.equal(e.formulaOf(row(2), D), '=SUM(A1:A4)');
});

test('deleting rows: references become #REF in text and value; range ends shrink', () => {
  const e = engine(5);
  for (let i = 1; i <= 5; i++) e.setCellValue(row(i), A, i);
  e.setFormula(row(1), B, '=A3 + 1');
  e.setFormula(row(1), C, '=SUM(A2:A5)');
  e.setFormula(row(1), D, '=SUM(A4:A5)');
  e.deleteRows([row(3), row(5)]);
  assert.equal(e.formulaOf(row(1), B), '=#REF + 1');
  assert.equal(e.result(row(1), B).value, '#REF');
  assert.equal(e.formulaOf(row(1), C), '=SUM(A2:A3)');
  assert.equal(e.value(row(1), C), 6);
  assert.equal(e.formulaOf(row(1), D), '=SUM(A3:A3)');
  assert.equal(e.value(row(1), D), 4);
  e.deleteRows([row(4)]);
  assert.equal(e.formulaOf(row(1), D), '=SUM(#REF)');
  assert.equal(e.result(row(1), D).value, '#REF');
});

test('moving rows keeps formulas on the same cells and renders new row numbers', () => {
  const e = engine(3);
  e.setCellValue(row(1), A, 1);
  e.setCellValue(row(3), A, 3);
  e.setFormula(row(2), B, '=A1 + A3');
  e.setFormula(row(2), C, '=SUM(A1:A2)');
  e.moveRows([{ id: row(3) }], row(1)); // order: 3, 1, 2
  assert.equal(e.formulaOf(row(2), B), '=A2 + A1');
  assert.equal(e.value(row(2), B), 4);
  assert.equal(e.formulaOf(row(2), C), '=SUM(A2:A3)');
  assert.equal(e.value(row(2), C), 1);
});

test('renaming and deleting columns', () => {
  const e = engine(2);
  e.setCellValue(row(1), A, 4);
  e.setFormula(row(1), C, '=A1 + [Col B]1');
  assert.deepEqual(e.renameColumn(A, 'Amount Due'), []);
  assert.equal(e.formulaOf(row(1), C), '=[Amount Due]1 + [Col B]1');
  const cs = e.deleteColumn(B);
  assert.equal(e.formulaOf(row(1), C), '=[Amount Due]1 + #REF');
  assert.equal(e.result(row(1), C).value, '#REF');
  assert.deepEqual(changed(cs), ['1:3=#REF']);
  assert.equal(e.schema.columnIdByTitle('amount due'), A);
});

test('hierarchy: CHILDREN and PARENT follow indent changes', () => {
  const e = new FormulaEngine(
    [{ id: A, title: 'Task', type: 'TEXT_NUMBER' }, { id: B, title: 'Cost', type: 'TEXT_NUMBER' }],
    [{ id: 1 }, { id: 2, parentId: 1 }, { id: 3, parentId: 1 }, { id: 4 }],
  );
  e.load([
    { rowId: 2, columnId: B, value: 5 },
    { rowId: 3, columnId: B, value: 7 },
    { rowId: 4, columnId: B, value: 100 },
    { rowId: 1, columnId: B, formula: '=SUM(CHILDREN())' },
    { rowId: 4, columnId: A, formula: '=COUNT(CHILDREN(Cost1))' },
  ]);
  assert.equal(e.value(1, B), 12);
  e.moveRows([{ id: 4, parentId: 1 }], null); // indent row 4 under row 1
  assert.equal(e.value(1, B), 112);
  assert.equal(e.value(4, A), 3);
  e.setCellValue(4, B, 1);
  assert.equal(e.value(1, B), 13);
  e.addRows([{ id: 5, parentId: 1 }], 4);
  e.setCellValue(5, B, 2);
  assert.equal(e.value(1, B), 15);
});

test('TODAY: time-dependent formulas recompute when the day changes', () => {
  let now = new Date('2024-03-15T10:00:00Z');
  const e = engine(2, { now: () => now }, { B: 'DATE' } as never);
  e.setFormula(row(1), A, '=TODAY()');
  e.setFormula(row(1), B, '=A1 + 1');
  e.setFormula(row(2), A, '=1');
  assert.equal(e.result(row(1), A).value, '2024-03-15');
  assert.ok(e.hasTimeDependentFormulas());
  assert.equal(e.needsTodayRefresh(), false);
  assert.deepEqual(e.refreshToday(), []);
  now = new Date('2024-03-16T01:00:00Z');
  assert.equal(e.needsTodayRefresh(), true);
  assert.deepEqual(changed(e.refreshToday()), ['1:1=2024-03-16', '1:2=2024-03-17']);
});

test('formula results must fit the column type', () => {
  const e = engine(1, {}, { [B]: 'DATE', [C]: 'CHECKBOX', [D]: 'CONTACT_LIST' });
  e.setFormula(row(1), B, '=DATE(2024, 1, 2) + 3');
  assert.deepEqual(e.result(row(1), B), { value: '2024-01-05', type: 'DATE' });
  e.setFormula(row(1), B, '="tomorrow"');
  assert.deepEqual(e.result(row(1), B), { value: '#DATE EXPECTED', type: 'ERROR' });
  e.setFormula(row(1), C, '=1 > 0');
  assert.deepEqual(e.result(row(1), C), { value: true, type: 'BOOLEAN' });
  e.setFormula(row(1), C, '=1');
  assert.deepEqual(e.result(row(1), C).value, '#BOOLEAN EXPECTED');
  e.setFormula(row(1), D, '="ann@example.com"');
  assert.deepEqual(e.result(row(1), D).value, 'ann@example.com');
  e.setFormula(row(1), D, '="Ann"');
  assert.deepEqual(e.result(row(1), D).value, '#CONTACT EXPECTED');
});

test('inputs are read by column type: DATE text is a date, CHECKBOX true is a boolean', () => {
  const e = engine(1, {}, { [A]: 'DATE', [B]: 'CHECKBOX' });
  e.setCellValue(row(1), A, '2024-02-28');
  e.setCellValue(row(1), B, true);
  e.setFormula(row(1), C, '=A1 + 2');
  e.setFormula(row(1), D, '=IF([Col B]1, "yes", "no")');
  assert.deepEqual(e.result(row(1), C), { value: '2024-03-01', type: 'DATE' });
  assert.equal(e.value(row(1), D), 'yes');
  e.setColumnType(A, 'TEXT_NUMBER');
  assert.deepEqual(e.result(row(1), C), { value: '2024-02-282', type: 'TEXT' });
});

test('cross-sheet references: resolved through the callback, recomputed on change', () => {
  let data: number[] = [1, 2, 3];
  let denied = false;
  const e = engine(1, {
    crossSheet: (name) => {
      if (name !== 'Budget') return { error: '#INVALID REF' };
      if (denied) return { error: '#PERMISSION ERROR' };
      return { cells: data.map((v) => [{ value: v, type: 'TEXT_NUMBER' as const }]) };
    },
  });
  e.setFormula(row(1), A, '=SUM({Budget})');
  e.setFormula(row(1), B, '=COUNT({Other})');
  assert.equal(e.value(row(1), A), 6);
  assert.equal(e.result(row(1), B).value, '#INVALID REF');
  assert.deepEqual(e.crossSheetReferences().sort(), ['Budget', 'Other']);
  data = [10];
  assert.deepEqual(changed(e.crossSheetChanged('Budget')), ['1:1=10']);
  denied = true;
  assert.deepEqual(changed(e.crossSheetChanged('Budget')), ['1:1=#PERMISSION ERROR']);
});

test('unparseable formulas are values, and can be fixed', () => {
  const e = engine(1);
  e.setFormula(row(1), A, '=SUM(1');
  assert.equal(e.result(row(1), A).value, '#IMBALANCED');
  assert.equal(e.formulaOf(row(1), A), '=SUM(1');
  e.setFormula(row(1), A, '=[Nope]1');
  assert.equal(e.result(row(1), A).value, '#UNPARSEABLE');
  e.setFormula(row(1), A, '=1 + 1');
  assert.equal(e.value(row(1), A), 2);
});

test('a running total over many rows (chain) stays linear', () => {
  const n = 2000;
  const e = new FormulaEngine(
    [{ id: A, title: 'A', type: 'TEXT_NUMBER' }, { id: B, title: 'B', type: 'TEXT_NUMBER' }, { id: C, title: 'C', type: 'TEXT_NUMBER' }],
    Array.from({ length: n }, (_, i) => ({ id: i + 1 })),
  );
  e.load(
    Array.from({ length: n }, (_, i) => [
      { rowId: i + 1, columnId: A, value: 1 },
      { rowId: i + 1, columnId: C, formula: i === 0 ? '=B1' : `=C${i} + B${i + 1}` },
    ]).flat(),
    [{ columnId: B, formula: '=A@row * 2' }],
  );
  assert.equal(e.value(n, C), 2 * n);
  const cs = e.setCellValue(1, A, 2);
  assert.equal(cs.length, n + 2);
  assert.equal(e.value(n, C), 2 * n + 2);
  e.setFormula(1, D, '=1');
  e.setFormula(5, C, '=SUM(B$1:B@row)');
  assert.equal(e.value(5, C), 12);
});

test('a TIME result is a time to the cells that read it, and its display text to the service', () => {
  const e = engine(2, {}, { [D]: 'DATE' });
  e.setCellValue(row(1), A, '8:30 AM');
  e.setCellValue(row(2), A, '23:15');
  assert.deepEqual(changed(e.setColumnFormula(B, '=TIME(A@row)')), ['1:2=8:30 AM', '2:2=23:15']);
  assert.deepEqual(changed(e.setColumnFormula(C, '=[Col B]@row + 90')), ['1:3=10:00 AM', '2:3=0:45']);
  assert.deepEqual(changed(e.setFormula(row(1), D, '=[Col B]1')), ['1:4=#DATE EXPECTED']);
  assert.deepEqual(changed(e.setCellValue(row(1), A, '4:00 PM')), ['1:1=4:00 PM', '1:2=4:00 PM', '1:3=5:30 PM']);
  assert.deepEqual(e.result(row(2), C), { value: '0:45', type: 'TEXT' });
  // minutes between two times; TIME(90) is hour 90, i.e. 18:00 three days on
  assert.deepEqual(changed(e.setFormula(row(2), A, '=C1 - [Col B]1')), ['2:1=90', '2:2=6 PM', '2:3=7:30 PM']);
});
