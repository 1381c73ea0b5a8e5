import { test } from 'node:test';
import { range } from '../../../src/engine/formula/values.ts';
import { check, sampleSheet, TestSheet } from './harness.ts';

const s = sampleSheet();

test('COUNTIF: values, bare comparisons, @cell expressions', () => {
  check(s, [
    ['=COUNTIF(Status1:Status4, "Done")', 2],
    ['=COUNTIF(Status1:Status4, "done")', 2],
    ['=COUNTIF(Status:Status, <> "Done")', 2],
    ['=COUNTIF(Units1:Units4, > 50)', 2],
    ['=COUNTIF(Units1:Units4, >= 42)', 3],
    ['=COUNTIF(Units1:Units4, < 0)', 0],
    ['=COUNTIF([In Stock]1:[In Stock]4, true)', 2],
    ['=COUNTIF([In Stock]1:[In Stock]4, 1)', 0],
    ['=COUNTIF(Total1:Total4, "")', 1],
    ['=COUNTIF(Sold1:Sold4, YEAR(@cell) = 2019)', 3],
    ['=COUNTIF(Sold1:Sold4, @cell > DATE(2019, 2, 14))', 2],
    ['=COUNTIF(Tags1:Tags4, HAS(@cell, "Blue"))', 2],
    ['=COUNTIF(Item1:Item4, CONTAINS("s", @cell))', 3],
    ['=COUNTIF(Units1:Units4, ISNUMBER(@cell))', 3],
    ['=COUNTIF(Units1:Units4)', '#INCORRECT ARGUMENT SET'],
  ]);
});

test('COUNTIFS', () => {
  check(s, [
    ['=COUNTIFS(Status1:Status4, "Done", Units1:Units4, > 100)', 1],
    ['=COUNTIFS(Status1:Status4, "Done", [In Stock]1:[In Stock]4, true)', 2],
    ['=COUNTIFS(Status1:Status4, "Done", Units1:Units3, > 100)', '#INCORRECT ARGUMENT SET'],
    ['=COUNTIFS(Status1:Status4, "Done", Units1:Units4)', '#INCORRECT ARGUMENT SET'],
  ]);
});

test('SUMIF / SUMIFS', () => {
  check(s, [
    ['=SUMIF(Status1:Status4, "Done", Total1:Total4)', 1982],
    ['=SUMIF(Units1:Units4, > 50)', 295],
    ['=SUMIF(Sold1:Sold4, WEEKNUMBER(@cell) < 26, Total1:Total4)', 3473],
    ['=SUMIF(Status1:Status4, "Done", Total1:Total3)', '#INCORRECT ARGUMENT SET'],
    ['=SUMIFS(Total1:Total4, Status1:Status4, "Done", [In Stock]1:[In Stock]4, true)', 1982],
    ['=SUMIFS(Total1:Total4, Units1:Units4, > 50, Price1:Price4, < 100)', 1170],
    ['=SUMIFS(Total1:Total4, Units1:Units4, > 50, Price1:Price3, < 100)', '#INCORRECT ARGUMENT SET'],
  ]);
});

test('AVERAGEIF / AVERAGEIFS', () => {
  check(s, [
    ['=AVERAGEIF(Status1:Status4, "Done", Total1:Total4)', 991],
    ['=AVERAGEIF(Units1:Units4, > 50)', 147.5],
    ['=AVERAGEIF(Status1:Status4, "Nope", Total1:Total4)', '#DIVIDE BY ZERO'],
    ['=AVERAGEIFS(Price1:Price4, [In Stock]1:[In Stock]4, false)', 18.75],
    ['=AVERAGEIFS(Price1:Price4, [In Stock]1:[In Stock]4, false, Item1:Item4, "Socks")', 2],
  ]);
});

test('COLLECT (inside another function)', () => {
  check(s, [
    ['=SUM(COLLECT(Total1:Total4, Status1:Status4, "Done"))', 1982],
    ['=JOIN(COLLECT(Item1:Item4, Units1:Units4, > 50), ", ")', 'T-Shirt, Jacket'],
    ['=COUNT(COLLECT(Item1:Item4, Status1:Status4, "Done", Units1:Units4, < 100))', 1],
    ['=COUNT(COLLECT(Item1:Item4, Status1:Status4, "x"))', 0],
    ['=INDEX(COLLECT(Item1:Item4, Status1:Status4, "x"), 1)', '#INVALID VALUE'],
    ['=COLLECT(Item1:Item4, Status1:Status4, "Done")', '#INVALID OPERATION'],
    ['=SUM(COLLECT(Total1:Total4, Status1:Status3, "Done"))', '#INCORRECT ARGUMENT SET'],
  ]);
});

test('DISTINCT (inside another function)', () => {
  check(s, [
    ['=JOIN(DISTINCT(Status1:Status4), ",")', 'Done,open'],
    ['=COUNT(DISTINCT(Status1:Status4))', 2],
    ['=COUNT(DISTINCT([In Stock]1:[In Stock]4))', 2],
    ['=COUNT(DISTINCT(Total4))', 0],
  ]);
});

test('#NESTED CRITERIA: a cross-sheet range inside a criterion argument', () => {
  const other = {
    Status: range(1, 4, ['Done', 'open', 'Done', null]),
    Hours: range(1, 4, [3, 5, 7, 11]),
    Tags: range(1, 4, ['a, b', 'b', 'c', null]),
    Limit: range(1, 1, [4]),
  };
  const x = new TestSheet([{ title: 'Status' }, { title: 'Hours' }, { title: 'Out' }], [
    { cells: { Status: 'Done', Hours: 1 } },
    { cells: { Status: 'open', Hours: 2 } },
  ], other);
  check(x, [
    // allowed: cross-sheet ranges as the ranges, @cell (or plain values) in the criteria
    ['=COUNTIF({Status}, "Done")', 2],
    ['=COUNTIFS({Status}, "Done", {Hours}, > 4)', 1],
    ['=SUMIF({Status}, "Done", {Hours})', 10],
    ['=SUMIFS({Hours}, {Status}, CONTAINS("o", @cell))', 15],
    ['=AVERAGEIF({Hours}, > 4)', 23 / 3],
    ['=AVERAGEIFS({Hours}, {Status}, "open")', 5],
    ['=SUM(COLLECT({Hours}, {Status}, "Done", {Hours}, > 3))', 7],
    ['=COUNTIF({Hours}, > Hours2)', 4],
    ['=COUNTIF({Hours}, > INDEX(Hours1:Hours2, 2))', 4],
    // a cross-sheet range inside a criterion, in every criteria function and position
    ['=COUNTIF({Status}, HAS({Status}, "Done"))', '#NESTED CRITERIA'],
    ['=COUNTIF({Hours}, > INDEX({Limit}, 1))', '#NESTED CRITERIA'],
    ['=COUNTIF({Hours}, {Limit})', '#NESTED CRITERIA'],
    ['=COUNTIF(Status1:Status2, CONTAINS("o", {Status}))', '#NESTED CRITERIA'],
    ['=COUNTIFS({Status}, "Done", {Hours}, @cell > MAX({Limit}))', '#NESTED CRITERIA'],
    ['=COUNTIFS({Status}, ISBLANK({Status}), {Hours}, > 1)', '#NESTED CRITERIA'],
    ['=SUMIF({Status}, HAS({Tags}, "b"), {Hours})', '#NESTED CRITERIA'],
    ['=SUMIFS({Hours}, {Status}, "Done", {Tags}, HAS({Tags}, "b"))', '#NESTED CRITERIA'],
    ['=AVERAGEIF({Hours}, @cell > COUNT({Hours}))', '#NESTED CRITERIA'],
    ['=AVERAGEIFS({Hours}, {Status}, NOT(ISBLANK({Status})))', '#NESTED CRITERIA'],
    ['=COUNT(COLLECT({Hours}, {Status}, IF(COUNT({Limit}) > 0, "Done", "open")))', '#NESTED CRITERIA'],
    // reported before the ranges are read and before size checks
    ['=COUNTIFS({Missing}, HAS({Status}, "x"))', '#NESTED CRITERIA'],
    ['=COUNTIFS(Status1:Status2, "Done", {Hours}, {Limit})', '#NESTED CRITERIA'],
    // caught by IFERROR like any other error; outside criteria a cross-sheet range is fine
    ['=IFERROR(COUNTIF({Status}, HAS({Status}, "x")), "nested")', 'nested'],
    ['=IF(HAS({Status}, "Done"), COUNTIF({Status}, "Done"))', 2],
  ]);
});
