import { test } from 'node:test';
import { check, TestSheet } from './harness.ts';

//  1 Project            (top)
//  2   Phase A          parent 1
//  3     Task a1        parent 2
//  4     Task a2        parent 2
//  5   Phase B          parent 1
//  6 Other              (top)
const s = new TestSheet(
  [{ title: 'Task' }, { title: 'Cost' }, { title: 'Out' }],
  [
    { cells: { Task: 'Project' } },
    { parent: 1, cells: { Task: 'Phase A', Cost: 10 } },
    { parent: 2, cells: { Task: 'Task a1', Cost: 3 } },
    { parent: 2, cells: { Task: 'Task a2', Cost: 4 } },
    { parent: 1, cells: { Task: 'Phase B', Cost: 20 } },
    { cells: { Task: 'Other', Cost: 1 } },
  ],
);

test('CHILDREN: direct children of a cell, or of the formula cell', () => {
  check(s, [
    ['=SUM(CHILDREN(Cost1))', 30],
    ['=SUM(CHILDREN(Cost2))', 7],
    ['=COUNT(CHILDREN(Task1))', 2],
    ['=COUNT(CHILDREN(Task3))', 0],
    ['=JOIN(CHILDREN(Task@row), "|")', 'Task a1|Task a2', 2],
    ['=COUNT(CHILDREN())', 0, 2], // the formula's own column (Out) is empty
  ]);
});

test('PARENT', () => {
  check(s, [
    ['=PARENT(Task3)', 'Phase A'],
    ['=PARENT(Task2)', 'Project'],
    ['=PARENT(Task1)', null],
    ['=PARENT(Cost@row) + 1', 11, 3],
  ]);
});

test('ANCESTORS: top level first', () => {
  check(s, [
    ['=JOIN(ANCESTORS(Task3), " > ")', 'Project > Phase A'],
    ['=INDEX(ANCESTORS(Task4), 1)', 'Project'],
    ['=COUNT(ANCESTORS(Task6))', 0],
    ['=COUNT(ANCESTORS(Task@row))', 2, 4],
    ['=PARENT(Task1:Task2)', '#INVALID DATA TYPE'],
  ]);
});
