import { test } from 'node:test';
import { check, sampleSheet } from './harness.ts';

const s = sampleSheet();

test('SUM', () => {
  check(s, [
    ['=SUM(Total1:Total4)', 3473],
    ['=SUM(Units1:Units4)', 337], // text "n/a" is skipped
    ['=SUM(1, 2, 3)', 6],
    ['=SUM(Total1:Units2)', 1170 + 78 + 1491 + 42],
    ['=SUM(Total4)', 0],
    ['=SUM(Item1:Item4)', 0],
    ['=SUM([Total]:[Total])', 3473],
  ]);
});

test('COUNT counts non-blank cells of any type', () => {
  check(s, [
    ['=COUNT(Total1:Total4)', 3],
    ['=COUNT(Units1:Units4)', 4],
    ['=COUNT(Item1:Item4)', 4],
    ['=COUNT([In Stock]1:[In Stock]4)', 4],
    ['=COUNT(Sold1:Sold4)', 3],
    ['=COUNT(1, "a", Total4)', 2],
  ]);
});

test('COUNTM counts items of multi-value cells', () => {
  check(s, [
    ['=COUNTM(Tags1:Tags4)', 4],
    ['=COUNTM(Tags1)', 2],
    ['=COUNTM(Item1:Item4)', 4],
  ]);
});

test('AVG', () => {
  check(s, [
    ['=AVG(Units1:Units4)', 337 / 3],
    ['=AVG(1, 2)', 1.5],
    ['=AVG(Total4)', '#DIVIDE BY ZERO'],
  ]);
});

test('AVGW', () => {
  check(s, [
    ['=AVGW(Price1:Price3, Units1:Units3)', (15 * 78 + 35.5 * 42 + 200 * 217) / (78 + 42 + 217)],
    ['=AVGW(Price1:Price3, Units1:Units2)', '#INCORRECT ARGUMENT SET'],
    ['=AVGW(Price4, Total4)', '#DIVIDE BY ZERO'],
  ]);
});

test('SUMPRODUCT', () => {
  check(s, [
    ['=SUMPRODUCT(Price1:Price3, Units1:Units3)', 15 * 78 + 35.5 * 42 + 200 * 217],
    ['=SUMPRODUCT(Units1:Units3)', 337],
    ['=SUMPRODUCT(Price1:Price4, Units1:Units4)', 15 * 78 + 35.5 * 42 + 200 * 217],
    ['=SUMPRODUCT(Price1:Price3, Units1:Units2)', '#INCORRECT ARGUMENT SET'],
  ]);
});

test('MIN / MAX (numbers, or dates)', () => {
  check(s, [
    ['=MIN(Units1:Units4)', 42],
    ['=MAX(Units1:Units4)', 217],
    ['=MAX(Sold1:Sold4)', 'date:2019-02-20'],
    ['=MIN(Sold1:Sold4)', 'date:2019-02-12'],
    ['=MAX(Item1:Item4)', 0],
    ['=MIN(3, -1, 2)', -1],
  ]);
});

test('MEDIAN', () => {
  check(s, [
    ['=MEDIAN(Units1:Units4)', 78],
    ['=MEDIAN(1, 2, 3, 4)', 2.5],
    ['=MEDIAN(Item1:Item4)', '#INVALID VALUE'],
  ]);
});

test('LARGE / SMALL', () => {
  check(s, [
    ['=LARGE(Units1:Units4, 1)', 217],
    ['=LARGE(Units1:Units4, 2)', 78],
    ['=SMALL(Units1:Units4, 1)', 42],
    ['=SMALL(Units1:Units4, 4)', '#INVALID VALUE'],
    ['=LARGE(Units1:Units4, 0)', '#INVALID VALUE'],
  ]);
});

test('RANKEQ / RANKAVG', () => {
  check(s, [
    ['=RANKEQ(78, Units1:Units4)', 2],
    ['=RANKEQ(78, Units1:Units4, 1)', 2],
    ['=RANKEQ(217, Units1:Units4, 0)', 1],
    ['=RANKEQ(42, Units1:Units4, 1)', 1],
    ['=RANKEQ(5, Units1:Units4)', '#NO MATCH'],
    ['=RANKEQ(2, Price1:Price4)', 4],
    ['=RANKAVG(1, SUM(1), 1)', 1],
  ]);
  const t = sampleSheet();
  t.put(2, 'Units', 78);
  check(t, [
    ['=RANKEQ(78, Units1:Units3)', 2],
    ['=RANKAVG(78, Units1:Units3)', 2.5],
    ['=RANKAVG(217, Units1:Units3)', 1],
  ]);
});

test('PERCENTILE (inclusive)', () => {
  check(s, [
    ['=PERCENTILE(Units1:Units4, 0.5)', 78],
    ['=PERCENTILE(Units1:Units4, 0)', 42],
    ['=PERCENTILE(Units1:Units4, 1)', 217],
    ['=PERCENTILE(Units1:Units4, 0.25)', 60],
    ['=PERCENTILE(Units1:Units4, 1.5)', '#INVALID VALUE'],
  ]);
});

test('STDEVS / STDEVP / STDEVA / STDEVPA', () => {
  // values 2, 4, 4, 4, 5, 5, 7, 9: population sd 2, sample sd sqrt(32/7)
  const t = sampleSheet();
  check(t, [
    ['=STDEVP(2, 4, 4, 4, 5, 5, 7, 9)', 2],
    ['=STDEVS(2, 4, 4, 4, 5, 5, 7, 9)', Math.sqrt(32 / 7)],
    ['=STDEVS(1)', '#DIVIDE BY ZERO'],
    ['=STDEVP(Units1:Units4)', Math.sqrt(((78 - 337 / 3) ** 2 + (42 - 337 / 3) ** 2 + (217 - 337 / 3) ** 2) / 3)],
    // STDEVA counts the text "n/a" as 0
    ['=STDEVPA(Units1:Units4)', Math.sqrt(((78 - 337 / 4) ** 2 + (42 - 337 / 4) ** 2 + (217 - 337 / 4) ** 2 + (0 - 337 / 4) ** 2) / 4)],
    ['=STDEVA(Units1:Units4)', Math.sqrt(((78 - 337 / 4) ** 2 + (42 - 337 / 4) ** 2 + (217 - 337 / 4) ** 2 + (0 - 337 / 4) ** 2) / 3)],
  ]);
});

test('ROUND / ROUNDUP / ROUNDDOWN', () => {
  check(s, [
    ['=ROUND(2.5)', 3],
    ['=ROUND(-2.5)', -3],
    ['=ROUND(2.675, 2)', 2.68],
    ['=ROUND(1234.5678, -2)', 1200],
    ['=ROUND(Price2)', 36],
    ['=ROUNDUP(1.21, 1)', 1.3],
    ['=ROUNDUP(-1.21, 1)', -1.3],
    ['=ROUNDDOWN(1.29, 1)', 1.2],
    ['=ROUNDDOWN(-1.29)', -1],
    ['=ROUND(Item1)', '#INVALID DATA TYPE'],
  ]);
});

test('MROUND / CEILING / FLOOR', () => {
  check(s, [
    ['=MROUND(10, 3)', 9],
    ['=MROUND(11, 3)', 12],
    ['=MROUND(-10, -3)', -9],
    ['=MROUND(10, -3)', '#INVALID VALUE'],
    ['=MROUND(5, 0)', 0],
    ['=CEILING(4.2)', 5],
    ['=CEILING(4.2, 0.5)', 4.5],
    ['=CEILING(-4.2, 1)', -4],
    ['=FLOOR(4.8)', 4],
    ['=FLOOR(4.8, 0.5)', 4.5],
    ['=FLOOR(-4.2, 1)', -5],
  ]);
});

test('INT / ABS / MOD', () => {
  check(s, [
    ['=INT(5.7)', 5],
    ['=INT(-5.2)', -6],
    ['=ABS(-85)', 85],
    ['=ABS(Total4)', 0],
    ['=MOD(10, 3)', 1],
    ['=MOD(-10, 3)', 2],
    ['=MOD(10, -3)', -2],
    ['=MOD(10, 0)', '#DIVIDE BY ZERO'],
    ['=ABS(Item1)', '#INVALID DATA TYPE'],
  ]);
});
