import { test } from 'node:test';
import assert from 'node:assert/strict';
import { check, sampleSheet, TestSheet } from './harness.ts';
import { unimplementedFunctions } from '../../../src/engine/formula/functions/index.ts';

const s = sampleSheet();

test('every function name the parser accepts is implemented', () => {
  assert.deepEqual(unimplementedFunctions(), []);
});

test('INDEX', () => {
  check(s, [
    ['=INDEX(Item1:Units3, 1, 3)', 78],
    ['=INDEX(Item1:Item4, 2)', 'Pants'],
    ['=INDEX(Item2:Units2, 3)', 42],
    ['=INDEX(Item1:Item4, 5)', '#INVALID VALUE'],
    ['=INDEX(Item1:Item4, 0)', '#INVALID VALUE'],
    ['=INDEX(Item1:Units3, 2, 4)', '#INVALID VALUE'],
    ['=INDEX(COLLECT(Total1:Total4, [In Stock]1:[In Stock]4, true), 1)', 1170],
    ['=INDEX(Price1:Price4, MATCH("Jacket", Item1:Item4, 0))', 200],
  ]);
});

test('MATCH', () => {
  check(s, [
    ['=MATCH("Pants", Item1:Item4, 0)', 2],
    ['=MATCH("pants", Item1:Item4, 0)', 2],
    ['=MATCH("Hat", Item1:Item4, 0)', '#NO MATCH'],
    ['=MATCH(100, Price1:Price4, 0)', '#NO MATCH'],
    ['=MATCH(40, Units2:Units3)', '#NO MATCH'],
    ['=MATCH(50, Units2:Units3)', 1],
    ['=MATCH(300, Units2:Units3, 1)', 2],
    ['=MATCH(40, Price3:Price4, -1)', 1],
    ['=MATCH(78, Item1:Units1, 0)', 3],
  ]);
});

test('VLOOKUP', () => {
  check(s, [
    ['=VLOOKUP("Jacket", Item1:Price4, 4, false)', 200],
    ['=VLOOKUP("jacket", Item1:Price4, 2, false)', 812],
    ['=VLOOKUP("Hat", Item1:Price4, 2, false)', '#NO MATCH'],
    ['=VLOOKUP("Jacket", Item1:Price4, 9, false)', '#INVALID VALUE'],
  ]);
  const grades = new TestSheet(
    [{ title: 'Min' }, { title: 'Grade' }],
    [{ cells: { Min: 0, Grade: 'F' } }, { cells: { Min: 60, Grade: 'D' } }, { cells: { Min: 70, Grade: 'C' } }, { cells: { Min: 90, Grade: 'A' } }],
  );
  check(grades, [
    ['=VLOOKUP(75, Min1:Grade4, 2)', 'C'],
    ['=VLOOKUP(95, Min1:Grade4, 2, true)', 'A'],
    ['=VLOOKUP(60, Min1:Grade4, 2)', 'D'],
    ['=VLOOKUP(-1, Min1:Grade4, 2)', '#NO MATCH'],
  ]);
});

test('XLOOKUP', () => {
  check(s, [
    ['=XLOOKUP("Pants", Item1:Item4, Total1:Total4)', 1491],
    ['=XLOOKUP("Hat", Item1:Item4, Total1:Total4)', '#NO MATCH'],
    ['=XLOOKUP("Hat", Item1:Item4, Total1:Total4, "none")', 'none'],
    ['=XLOOKUP(50, Units1:Units3, Item1:Item3, "none", -1)', 'Pants'],
    ['=XLOOKUP(50, Units1:Units3, Item1:Item3, "none", 1)', 'T-Shirt'],
    ['=XLOOKUP(true, [In Stock]1:[In Stock]4, Item1:Item4)', 'T-Shirt'],
    ['=XLOOKUP(true, [In Stock]1:[In Stock]4, Item1:Item4, "", 0, -1)', 'Jacket'],
    ['=XLOOKUP("Pants", Item1:Item4, Total1:Total3)', '#INCORRECT ARGUMENT SET'],
  ]);
});
