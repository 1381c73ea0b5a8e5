import { test } from 'node:test';
import assert from 'node:assert/strict';
import { timeValue, toFormulaResult } from '../../../src/engine/formula/values.ts';
import { check, sampleSheet, TestSheet } from './harness.ts';

// TODAY in the harness is 2024-03-15, a Friday. Sold: 2019-02-12 (Tue), 2019-02-15 (Fri), 2019-02-20 (Wed).
const s = sampleSheet();

test('TODAY', () => {
  check(s, [
    ['=TODAY()', 'date:2024-03-15'],
    ['=TODAY(3)', 'date:2024-03-18'],
    ['=TODAY(-15)', 'date:2024-02-29'],
    ['=TODAY() - Sold1', 1858],
  ]);
});

test('DATE', () => {
  check(s, [
    ['=DATE(2024, 2, 29)', 'date:2024-02-29'],
    ['=DATE(2023, 2, 29)', '#INVALID VALUE'],
    ['=DATE(2024, 13, 1)', '#INVALID VALUE'],
    ['=DATE(2024, "a", 1)', '#INVALID DATA TYPE'],
    ['=DATE(2024, 1, 31) + 1', 'date:2024-02-01'],
  ]);
});

test('DATEONLY', () => {
  check(s, [
    ['=DATEONLY(Sold1)', 'date:2019-02-12'],
    ['=DATEONLY("2024-05-06T13:45:00Z")', 'date:2024-05-06'],
    ['=DATEONLY(Item1)', '#INVALID DATA TYPE'],
  ]);
});

test('DAY / MONTH / YEAR', () => {
  check(s, [
    ['=DAY(Sold1)', 12],
    ['=MONTH(Sold1)', 2],
    ['=YEAR(Sold1)', 2019],
    ['=YEAR(Item1)', '#INVALID DATA TYPE'],
    ['=YEAR(Total4)', '#INVALID DATA TYPE'],
  ]);
});

test('WEEKDAY (1 = Sunday)', () => {
  check(s, [
    ['=WEEKDAY(Sold1)', 3],
    ['=WEEKDAY(Sold2)', 6],
    ['=WEEKDAY(DATE(2024, 3, 17))', 1],
    ['=WEEKDAY(DATE(2024, 3, 16))', 7],
  ]);
});

test('WEEKNUMBER (ISO weeks)', () => {
  check(s, [
    ['=WEEKNUMBER(Sold1)', 7],
    ['=WEEKNUMBER(DATE(2018, 1, 1))', 1], // a Monday
    ['=WEEKNUMBER(DATE(2021, 1, 1))', 53], // a Friday: last week of 2020
    ['=WEEKNUMBER(DATE(2022, 1, 1))', 52], // a Saturday
    ['=WEEKNUMBER(DATE(2024, 12, 30))', 1],
  ]);
});

test('YEARDAY', () => {
  check(s, [
    ['=YEARDAY(DATE(2024, 1, 1))', 1],
    ['=YEARDAY(DATE(2024, 12, 31))', 366],
    ['=YEARDAY(Sold2)', 46],
  ]);
});

test('NETWORKDAYS / NETWORKDAY / NETDAYS', () => {
  check(s, [
    ['=NETWORKDAYS(Sold2, DATE(2019, 3, 20))', 24],
    ['=NETWORKDAYS(Sold1, Sold2)', 4],
    ['=NETWORKDAYS(Sold1, Sold2, Sold2)', 3],
    ['=NETWORKDAYS(Sold2, Sold1)', -4],
    ['=NETWORKDAY(Sold2, DATE(2019, 3, 20))', 24],
    // from a Saturday: NETWORKDAY adds one day
    ['=NETWORKDAYS(DATE(2019, 2, 23), DATE(2019, 2, 27))', 3],
    ['=NETWORKDAY(DATE(2019, 2, 23), DATE(2019, 2, 27))', 4],
    ['=NETDAYS(Sold1, Sold3)', 9],
    ['=NETDAYS(Sold1, Sold1)', 1],
    ['=NETWORKDAYS(Item1, Sold1)', '#INVALID DATA TYPE'],
  ]);
});

test('WORKDAY', () => {
  check(s, [
    ['=WORKDAY(Sold2, 1)', 'date:2019-02-18'],
    ['=WORKDAY(Sold1, 5)', 'date:2019-02-19'],
    ['=WORKDAY(Sold1, -2)', 'date:2019-02-08'],
    ['=WORKDAY(Sold1, 0)', 'date:2019-02-12'],
    ['=WORKDAY(Sold1, 3, Sold2)', 'date:2019-02-18'],
  ]);
});

test('TIME: text, numbers, format and precision', () => {
  check(s, [
    ['=TIME(9, 30, 15)', '9:30:15 AM'],
    ['=TIME("20:30:00", 1)', '20:30:00'],
    ['=TIME("20:30:00", 0)', '8:30:00 PM'],
    ['=TIME("4:30 PM", 1, 3)', '16:30:00'],
    ['=TIME("8:30 PM", 1)', '20:30'],
    ['=TIME(4, 30, 10, 0)', '4:30:10 AM'],
    // without format and precision, the shape of time_value decides
    ['=TIME("15")', '15'],
    ['=TIME("3 PM")', '3 PM'],
    ['=TIME("8:30")', '8:30'],
    ['=TIME("11:05 am")', '11:05 AM'],
    ['=TIME(15)', '3 PM'],
    ['=TIME(9, 30)', '9:30 AM'],
    ['=TIME(0, 0, 0)', '12:00:00 AM'],
    ['=TIME(12, 0, 0)', '12:00:00 PM'],
    ['=TIME("12:00 AM", 1)', '0:00'],
    // numbers roll over like a clock
    ['=TIME(25, 0, 0)', '1:00:00 AM'],
    ['=TIME(9, 90, 0, 1)', '10:30:00'],
    ['=TIME(9, 30, 0, 1, 2)', '9:30'],
    ['=TIME(9, 30, 0, 0, 1)', '9 AM'],
    ['=TIME("8:30", 0)', '8:30 AM'],
    ['=TIME("8:30:15", 1, 2)', '8:30'],
    ['=TIME(TIME("20:30"), 0)', '8:30 PM'],
    // errors
    ['=TIME("25:00")', '#INVALID VALUE'],
    ['=TIME("13 PM")', '#INVALID VALUE'],
    ['=TIME("8:7")', '#INVALID VALUE'],
    ['=TIME("noon")', '#INVALID VALUE'],
    ['=TIME(-1, 0, 0)', '#INVALID VALUE'],
    ['=TIME("8:30", 2)', '#INVALID VALUE'],
    ['=TIME("8:30", 1, 4)', '#INVALID VALUE'],
    ['=TIME("8:30", , 2)', '#INCORRECT ARGUMENT SET'],
    ['=TIME("8:30", 1, 2, 3)', '#INCORRECT ARGUMENT SET'],
    ['=TIME(9, 30, , 1)', '#UNPARSEABLE'],
    ['=TIME(true)', '#INVALID DATA TYPE'],
    ['=TIME()', '#INCORRECT ARGUMENT SET'],
  ]);
});

test('TIME values: adding minutes, differences, comparisons', () => {
  check(s, [
    ['=TIME("8:30") + 5', '8:35'],
    ['=5 + TIME("8:30")', '8:35'],
    ['=TIME("8:30") + Units2', '9:12'],
    ['=TIME("11:50 PM") + 20', '12:10 AM'],
    ['=TIME("3 PM") + 30', '3:30 PM'],
    ['=TIME("8:30") - 45', '7:45'],
    ['=TIME("0:10") - 20', '23:50'],
    ['=TIME("8:30") + 0.5', '8:30:30'],
    ['=TIME("8:30") + 1440', '8:30'],
    ['=TIME("17:00") - TIME("8:30")', 510],
    ['=TIME("8:00") - TIME("9:00")', -60],
    ['=TIME("4:30 PM") - TIME("16:00")', 30],
    ['=TIME("8:30") * 2', '#INVALID OPERATION'],
    ['=TIME("8:30") + TIME("1:00")', '#INVALID OPERATION'],
    ['=TIME("8:30") + true', '#INVALID OPERATION'],
    ['=-TIME("8:30")', '#INVALID OPERATION'],
    ['=10 - TIME("8:30")', '#INVALID OPERATION'],
    ['=TIME("8:30 AM") < TIME(9, 0, 0)', true],
    ['=TIME("9:00") > TIME("10:00")', false],
    ['=TIME("20:30") = TIME("8:30 PM")', true],
    ['=TIME("9:00") <> TIME(9, 0, 0)', false],
    ['=TIME("9:00") = "9:00"', false],
    ['=TIME("9:00") < "9:30"', '#INVALID OPERATION'],
    ['=TIME("9:00") < 10', '#INVALID OPERATION'],
    ['=IF(TIME("8:15") < TIME(9, 0, 0), "Send morning mail!")', 'Send morning mail!'],
    ['=MAX(TIME("9:00"), 3)', 3],
  ]);
});

test('TIME values as text, and types', () => {
  check(s, [
    ['=TIME("8:30") + " start"', '8:30 start'],
    ['="at " + TIME(13, 5, 0, 0, 2)', 'at 1:05 PM'],
    ['=LEN(TIME(9, 30, 15))', 10],
    ['=LEFT(TIME("4:30 PM"), 4)', '4:30'],
    ['=TIME(RIGHT("Fri 12/31 11:59 PM", 8))', '11:59 PM'],
    ['=ISTEXT(TIME("8:30"))', false],
    ['=ISDATE(TIME("8:30"))', false],
    ['=ISNUMBER(TIME("8:30"))', false],
    ['=ISBLANK(TIME("8:30"))', false],
    ['=DATEONLY(TIME("8:30"))', '#INVALID DATA TYPE'],
    ['=YEAR(TIME("8:30"))', '#INVALID DATA TYPE'],
    ['=ROUND(TIME("8:30"))', '#INVALID DATA TYPE'],
    ['=IF(TIME("8:30"), 1, 0)', '#INVALID DATA TYPE'],
  ]);
});

test('TIME from cells: date-times, time text, computed times; a date plus a time', () => {
  const t = new TestSheet(
    [{ title: 'When', type: 'DATETIME' }, { title: 'Text' }, { title: 'T' }, { title: 'Out' }],
    [
      { cells: { When: '2024-03-15T13:45:00Z', Text: '4:30 PM' } },
      { cells: { When: '2024-03-15T08:05:30Z', Text: '7:00' } },
      { cells: { When: '2024-03-16', Text: 'soon' } },
    ],
  );
  t.put(1, 'T', timeValue(9 * 3600, 0, 2));
  t.put(2, 'T', timeValue(13 * 3600, 1, 2));
  t.put(3, 'T', timeValue(17 * 3600 + 30 * 60, 0, 2));
  check(t, [
    ['=TIME(When1)', '1:45 PM'],
    ['=TIME(When1, 1)', '13:45'],
    ['=TIME(When2)', '8:05:30 AM'],
    ['=TIME(When3)', '12:00 AM'],
    ['=TIME(Text1) + 15', '4:45 PM'],
    ['=TIME(Text2, 0)', '7:00 AM'],
    ['=TIME(Text3)', '#INVALID VALUE'],
    ['=TIME(Out1)', '#INVALID VALUE'],
    ['=T1 + 30', '9:30 AM'],
    ['=T3 - T1', 510],
    ['=COUNTIF(T1:T3, > TIME("12:00"))', 2],
    ['=COUNTIF(T1:T3, TIME(13, 0, 0))', 1],
    ['=COUNTIF(T1:T3, "9:00 AM")', 0],
    ['=INDEX(T1:T3, MATCH(TIME("1 PM"), T1:T3, 0))', '13:00'],
    ['=JOIN(T1:T3, ", ")', '9:00 AM, 13:00, 5:30 PM'],
  ]);
  assert.deepEqual(toFormulaResult(t.eval('=DATE(2024, 3, 15) + TIME("13:30")')), { value: '2024-03-15T13:30:00Z', type: 'DATETIME' });
  assert.deepEqual(toFormulaResult(t.eval('=TIME("6:15") + DATE(2024, 3, 15)')), { value: '2024-03-15T06:15:00Z', type: 'DATETIME' });
  assert.deepEqual(toFormulaResult(t.eval('=TIME("4:30 PM")')), { value: '4:30 PM', type: 'TEXT' });
});
