import { test } from 'node:test';
import assert from 'node:assert/strict';
import { check, sampleSheet, TestSheet } from './harness.ts';
import { err, range, toFormulaResult } from '../../../src/engine/formula/values.ts';

const s = sampleSheet();

test('arithmetic and precedence', () => {
  check(s, [
    ['=1 + 2 * 3', 7],
    ['=(1 + 2) * 3', 9],
    ['=2 ^ 3', 8],
    ['=2 ^ 3 ^ 2', 64],
    ['=-2 ^ 2', 4],
    ['=10 / 4', 2.5],
    ['=7 - 10', -3],
    ['=-Units1', -78],
    ['=0.1 + 0.2', 0.30000000000000004],
    ['=Total1 - Total2', -321],
    ['=Price2 * Units2', 1491],
  ]);
});

test('blank counts as 0 in arithmetic and "" in text', () => {
  check(s, [
    ['=Total4 + 5', 5],
    ['=Total4 * 3', 0],
    ['=-Total4', 0],
    ['=Total4 + "x"', 'x'],
    ['=Total4', null],
  ]);
});

test('+ joins text; other operators on text are #INVALID OPERATION', () => {
  check(s, [
    ['="a" + "b"', 'ab'],
    ['=Item1 + " x" + Units1', 'T-Shirt x78'],
    ['=1 + "2"', '12'],
    ['="x" + [In Stock]1', 'xtrue'],
    ['=Item1 - 1', '#INVALID OPERATION'],
    ['="3" * 2', '#INVALID OPERATION'],
    ['=[In Stock]1 + 1', '#INVALID OPERATION'],
    ['=-"a"', '#INVALID OPERATION'],
  ]);
});

test('division by zero and overflow', () => {
  check(s, [
    ['=1 / 0', '#DIVIDE BY ZERO'],
    ['=1 / Total4', '#DIVIDE BY ZERO'],
    ['=0 ^ -1', '#DIVIDE BY ZERO'],
    ['=10 ^ 300 * 10 ^ 300', '#OVERFLOW'],
    ['=9007199254740992 * 2', '#OVERFLOW'],
    ['=9007199254740992', 9007199254740992],
  ]);
});

test('dates: date + days, date - days, date - date', () => {
  check(s, [
    ['=Sold1 + 1', 'date:2019-02-13'],
    ['=1 + Sold1', 'date:2019-02-13'],
    ['=Sold1 - 12', 'date:2019-01-31'],
    ['=Sold3 - Sold1', 8],
    ['=Sold1 - Sold3', -8],
    ['=Sold1 + Sold2', '#INVALID OPERATION'],
    ['=Sold1 * 2', '#INVALID OPERATION'],
    ['=Sold1 + " sold"', '2019-02-12 sold'],
    ['=Sold1 > Sold2', false],
    ['=Sold1 < Sold2', true],
    ['=Sold1 = DATE(2019, 2, 12)', true],
  ]);
});

test('comparisons: text is case-insensitive; mixed types', () => {
  check(s, [
    ['=Status1 = "done"', true],
    ['=Status1 <> "DONE"', false],
    ['="a" < "B"', true],
    ['=1 < 2', true],
    ['=2 <= 2', true],
    ['=3 >= 4', false],
    ['=1 = "1"', false],
    ['=1 <> "1"', true],
    ['=1 < "a"', '#INVALID OPERATION'],
    ['=Total4 = ""', true],
    ['=Total4 = 0', false],
    ['=Total4 < 1', true],
    ['=[In Stock]1 = true', true],
    ['=[In Stock]2 = false', true],
  ]);
});

test('references: @row, $, ranges in scalar context, #INVALID REF for a row the sheet lacks', () => {
  check(s, [
    ['=Units@row', 42, 2],
    ['=$Units$3', 217],
    ['=[Units]99', '#INVALID REF'],
    ['=Units1:Units3', '#INVALID OPERATION'],
    ['=Units1:Units1', 78],
    ['=Tags1', 'Red, Blue'],
  ]);
});

test('a referenced cell holding an error reads as #BLOCKED; errors propagate within a formula', () => {
  const t = sampleSheet();
  t.put(2, 'Total', err('#DIVIDE BY ZERO'));
  check(t, [
    ['=Total2 + 1', '#BLOCKED'],
    ['=SUM(Total1:Total3)', '#BLOCKED'],
    ['=IFERROR(Total2, 0)', 0],
    ['=ISERROR(Total2)', true],
    ['=1 / 0 + 1', '#DIVIDE BY ZERO'],
    ['=IF(1 / 0 > 1, 1, 2)', '#DIVIDE BY ZERO'],
  ]);
});

test('results: unparseable, imbalanced, long text', () => {
  check(s, [
    ['=SUM(1,', '#IMBALANCED'],
    ['=NOPE(1)', '#UNPARSEABLE'],
    ['=[Nope]1', '#UNPARSEABLE'],
    ['=REPT("ab", 2001)', '#TOO BIG'],
    ['=REPT("ab", 2000)', 'ab'.repeat(2000)],
    ['=REPT("a", 3000) + REPT("b", 3000)', '#TOO BIG'],
  ]);
});

test('wrong argument counts are #INCORRECT ARGUMENT SET', () => {
  check(s, [
    ['=ABS()', '#INCORRECT ARGUMENT SET'],
    ['=ABS(1, 2)', '#INCORRECT ARGUMENT SET'],
    ['=IF(true)', '#INCORRECT ARGUMENT SET'],
    ['=TODAY(1, 2)', '#INCORRECT ARGUMENT SET'],
  ]);
});

test('cross-sheet references come from the callback', () => {
  const t = new TestSheet([{ title: 'A' }], [{ cells: { A: 1 } }], {
    Prices: range(1, 3, [10, 20, 'x']),
    Locked: err('#PERMISSION ERROR'),
  });
  assert.deepEqual(toFormulaResult(t.eval('=SUM({Prices})')), { value: 30, type: 'NUMBER' });
  assert.deepEqual(toFormulaResult(t.eval('=COUNT({Prices})')), { value: 3, type: 'NUMBER' });
  assert.deepEqual(toFormulaResult(t.eval('=INDEX({Prices}, 2)')), { value: 20, type: 'NUMBER' });
  assert.deepEqual(toFormulaResult(t.eval('=SUM({Locked})')), { value: '#PERMISSION ERROR', type: 'ERROR' });
  assert.deepEqual(toFormulaResult(t.eval('=SUM({Missing})')), { value: '#INVALID REF', type: 'ERROR' });
  assert.deepEqual(toFormulaResult(t.eval('=CHILDREN({Prices})', 1, 'A')), { value: '#UNSUPPORTED CROSS-SHEET FORMULA', type: 'ERROR' });
});
