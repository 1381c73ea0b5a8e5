import { test } from 'node:test';
import { check, sampleSheet } from './harness.ts';

const s = sampleSheet();

test('IF', () => {
  check(s, [
    ['=IF(Units1 > 50, "many", "few")', 'many'],
    ['=IF(Units2 > 50, "many", "few")', 'few'],
    ['=IF(Units2 > 50, "many")', null],
    ['=IF([In Stock]1, 1, 0)', 1],
    ['=IF(Total4, 1, 0)', 0],
    ['=IF(1, "y", "n")', 'y'],
    ['=IF("true", "y", "n")', 'y'],
    ['=IF(Item1, 1, 0)', '#INVALID DATA TYPE'],
    ['=IF(true, 1, 1 / 0)', 1],
    ['=IF(1 / 0, 1, 2)', '#DIVIDE BY ZERO'],
  ]);
});

test('AND / OR / NOT', () => {
  check(s, [
    ['=AND(true, 1 < 2)', true],
    ['=AND(true, false)', false],
    ['=AND([In Stock]1:[In Stock]3)', false],
    ['=AND([In Stock]1, [In Stock]3)', true],
    ['=OR(false, 1 > 2)', false],
    ['=OR([In Stock]1:[In Stock]4)', true],
    ['=OR(Item1, true)', '#INVALID DATA TYPE'],
    ['=NOT(true)', false],
    ['=NOT([In Stock]2)', true],
    ['=NOT(Total4)', true],
    ['=AND()', '#INCORRECT ARGUMENT SET'],
  ]);
});

test('IFERROR', () => {
  check(s, [
    ['=IFERROR(1 / 0, "none")', 'none'],
    ['=IFERROR(5, "none")', 5],
    ['=IFERROR(MATCH("Hat", Item1:Item4, 0), 0)', 0],
    ['=IFERROR(Item1 - 1, Item1)', 'T-Shirt'],
  ]);
});

test('ISBLANK / ISNUMBER / ISTEXT / ISDATE / ISBOOLEAN / ISERROR', () => {
  check(s, [
    ['=ISBLANK(Total4)', true],
    ['=ISBLANK(Total1)', false],
    ['=ISBLANK("")', true],
    ['=ISNUMBER(Total1)', true],
    ['=ISNUMBER(Units4)', false],
    ['=ISNUMBER(Total4)', false],
    ['=ISTEXT(Item1)', true],
    ['=ISTEXT(Total1)', false],
    ['=ISTEXT(Tags1)', true],
    ['=ISDATE(Sold1)', true],
    ['=ISDATE(Item1)', false],
    ['=ISDATE(TODAY())', true],
    ['=ISBOOLEAN([In Stock]2)', true],
    ['=ISBOOLEAN(Total1)', false],
    ['=ISERROR(1 / 0)', true],
    ['=ISERROR(1)', false],
  ]);
});

test('ISEVEN / ISODD', () => {
  check(s, [
    ['=ISEVEN(Units1)', true],
    ['=ISODD(Units1)', false],
    ['=ISODD(Units3)', true],
    ['=ISEVEN(-3)', false],
    ['=ISEVEN(2.9)', true],
    ['=ISODD(Item1)', '#INVALID DATA TYPE'],
  ]);
});

test('CONTAINS (partial, case-insensitive)', () => {
  check(s, [
    ['=CONTAINS("shirt", Item1)', true],
    ['=CONTAINS("Hat", Item1:Item4)', false],
    ['=CONTAINS("ack", Item1:Item4)', true],
    ['=CONTAINS(78, Units1:Units4)', true],
    ['=CONTAINS("lue", Tags2)', true],
  ]);
});

test('HAS (exact item, including multi-select cells)', () => {
  check(s, [
    ['=HAS(Tags1, "Blue")', true],
    ['=HAS(Tags1, "Blu")', false],
    ['=HAS(Tags3, "green")', true],
    ['=HAS(Tags1:Tags4, "Green")', true],
    ['=HAS(Item1:Item4, "Pants")', true],
    ['=HAS(Item1:Item4, "Pant")', false],
  ]);
});
