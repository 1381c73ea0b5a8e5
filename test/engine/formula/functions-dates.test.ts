import { test } from 'node:test';
import { check, sampleSheet } from './harness.ts';

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

test('TIME', () => {
  check(s, [
    ['=TIME(9, 30, 15)', '9:30:15 AM'],
    ['=TIME("20:30:00", 1)', '20:30:00'],
    ['=TIME("20:30:00", 0)', '8:30:00 PM'],
    ['=TIME("4:30 PM", 1, 3)', '16:30:00'],
    ['=TIME("8:30 PM", 1)', '20:30'],
    ['=TIME(4, 30, 10, 0)', '4:30:10 AM'],
    ['=TIME("25:00")', '#INVALID VALUE'],
    ['=TIME("noon")', '#INVALID VALUE'],
  ]);
});
