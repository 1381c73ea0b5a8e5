import { test } from 'node:test';
import { check, sampleSheet } from './harness.ts';

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
