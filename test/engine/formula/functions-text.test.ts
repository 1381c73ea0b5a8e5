import { test } from 'node:test';
import { check, sampleSheet } from './harness.ts';

const s = sampleSheet();

test('LEN', () => {
  check(s, [
    ['=LEN(Item1)', 7],
    ['=LEN(Total1)', 4],
    ['=LEN(Total4)', 0],
    ['=LEN("héllo")', 5],
  ]);
});

test('LEFT / RIGHT', () => {
  check(s, [
    ['=LEFT(Item1, 3)', 'T-S'],
    ['=LEFT(Item1)', 'T'],
    ['=LEFT(Item1, 99)', 'T-Shirt'],
    ['=RIGHT(Item1, 5)', 'Shirt'],
    ['=RIGHT(Total1, 2)', '70'],
    ['=LEFT(Item1, -1)', '#INVALID VALUE'],
    ['=LEFT(Item1, 0)', null],
  ]);
});

test('MID', () => {
  check(s, [
    ['=MID(Item1, 3, 5)', 'Shirt'],
    ['=MID(Item1, 10, 2)', null],
    ['=MID(Item1, 0, 2)', '#INVALID VALUE'],
  ]);
});

test('FIND (case-sensitive, 0 when absent)', () => {
  check(s, [
    ['=FIND("S", Item1)', 3],
    ['=FIND("s", Item1)', 0],
    ['=FIND("t", "T-Shirt t", 3)', 7],
    ['=FIND("x", Item1)', 0],
    ['=FIND("T", Item1, 0)', '#INVALID VALUE'],
  ]);
});

test('SUBSTITUTE', () => {
  check(s, [
    ['=SUBSTITUTE("a-b-c", "-", "+")', 'a+b+c'],
    ['=SUBSTITUTE("a-b-c", "-", "+", 2)', 'a-b+c'],
    ['=SUBSTITUTE("a-b-c", "-", "+", 3)', 'a-b-c'],
    ['=SUBSTITUTE("Aa", "a", "x")', 'Ax'],
    ['=SUBSTITUTE(Item1, "", "x")', 'T-Shirt'],
  ]);
});

test('REPLACE', () => {
  check(s, [
    ['=REPLACE(Item1, 1, 2, "")', 'Shirt'],
    ['=REPLACE("abcdef", 3, 2, "XY")', 'abXYef'],
    ['=REPLACE("abc", 0, 1, "x")', '#INVALID VALUE'],
  ]);
});

test('UPPER / LOWER', () => {
  check(s, [
    ['=UPPER(Item1)', 'T-SHIRT'],
    ['=LOWER(Item1)', 't-shirt'],
    ['=UPPER(Total1)', '1170'],
  ]);
});

test('JOIN', () => {
  check(s, [
    ['=JOIN(Item1:Item4, ", ")', 'T-Shirt, Pants, Jacket, Socks'],
    ['=JOIN(Total1:Total4, "-")', '1170-1491-812'],
    ['=JOIN(Item1:Item2)', 'T-ShirtPants'],
    ['=JOIN(Tags1:Tags2, "; ")', 'Red, Blue; Blue'],
  ]);
});

test('CHAR / UNICHAR', () => {
  check(s, [
    ['=CHAR(65)', 'A'],
    ['=CHAR(0)', '#INVALID VALUE'],
    ['=UNICHAR(9731)', '☃'],
    ['=UNICHAR(128512)', '😀'],
    ['=UNICHAR(-1)', '#INVALID VALUE'],
  ]);
});

test('VALUE', () => {
  check(s, [
    ['=VALUE("12.5")', 12.5],
    ['=VALUE("$1,200")', 1200],
    ['=VALUE("50%")', 0.5],
    ['=VALUE("-3")', -3],
    ['=VALUE(Total1)', 1170],
    ['=VALUE("abc")', '#INVALID VALUE'],
    ['=VALUE(RIGHT(Item1, 2)) + 1', '#INVALID VALUE'],
    ['=VALUE(LEFT(Total1, 2)) + 1', 12],
  ]);
});

test('REPT', () => {
  check(s, [
    ['=REPT("ab", 3)', 'ababab'],
    ['=REPT("ab", 0)', null],
    ['=REPT("ab", -1)', '#INVALID VALUE'],
  ]);
});
