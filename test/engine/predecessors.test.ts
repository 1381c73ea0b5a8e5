import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  findInvalidPredecessors, formatPredecessors, parsePredecessorObject, parsePredecessorText, predecessorKey, presentPredecessorList,
} from '../../src/engine/predecessors.ts';

const byNumber = (n: number): number | undefined => (n >= 1 && n <= 20 ? 100 + n : undefined);
const numberOf = (id: number): number | undefined => (id > 100 && id <= 120 ? id - 100 : undefined);

test('predecessor text: types, lags, defaults', () => {
  assert.deepEqual(parsePredecessorText('12FS +3d 4h, 14SS', byNumber), [
    { rowId: 112, type: 'FS', lag: { objectType: 'DURATION', days: 3, hours: 4 } },
    { rowId: 114, type: 'SS' },
  ]);
  assert.deepEqual(parsePredecessorText('7', byNumber), [{ rowId: 107, type: 'FS' }]);
  assert.deepEqual(parsePredecessorText('3ff -2d', byNumber), [{ rowId: 103, type: 'FF', lag: { objectType: 'DURATION', days: 2, negative: true } }]);
  assert.deepEqual(parsePredecessorText('', byNumber), []);
  assert.equal(parsePredecessorText('99', byNumber), null, 'row not in sheet');
  assert.equal(parsePredecessorText('3XY', byNumber), null);
  assert.equal(parsePredecessorText('3FS +abc', byNumber), null);
  assert.equal(parsePredecessorText('abc', byNumber), null);
});

test('predecessor text round trip with current row numbers', () => {
  for (const s of ['12FS +3d 4h, 14SS', '7', '3FF -2d', '1SF, 2FF +1w']) {
    assert.equal(formatPredecessors(parsePredecessorText(s, byNumber)!, numberOf), s);
  }
  // rows renumbered: the text follows the row ids
  const list = parsePredecessorText('2, 3SS', byNumber)!;
  assert.equal(formatPredecessors(list, (id) => (id === 102 ? 5 : id === 103 ? 1 : undefined)), '5, 1SS');
  assert.equal(formatPredecessors(list, () => undefined), '#REF, #REFSS');
});

test('PredecessorList objectValue', () => {
  assert.deepEqual(parsePredecessorObject({ objectType: 'PREDECESSOR_LIST', predecessors: [{ rowId: 5, type: 'SS', lag: { objectType: 'DURATION', days: 1 } }] }),
    [{ rowId: 5, type: 'SS', lag: { objectType: 'DURATION', days: 1 } }]);
  assert.equal(parsePredecessorObject({ objectType: 'PREDECESSOR_LIST', predecessors: [{ rowId: 'x' }] }), null);
  assert.equal(parsePredecessorObject({ objectType: 'PREDECESSOR_LIST', predecessors: [{ rowId: 1, type: 'XX' }] }), null);
  assert.equal(parsePredecessorObject({ objectType: 'DURATION' }), null);
  const pl = presentPredecessorList(101, [{ rowId: 102, type: 'FS' }, { rowId: 999, type: 'FS' }], numberOf);
  assert.deepEqual(pl.predecessors, [
    { rowId: 102, rowNumber: 2, type: 'FS', inCriticalPath: false },
    { rowId: 999, type: 'FS', inCriticalPath: false, invalid: true },
  ]);
});

test('invalid predecessors: missing rows, self, hierarchy, cycles', () => {
  const rows = [
    { id: 1, predecessors: [2] },        // 1 after 2
    { id: 2, predecessors: [3] },        // 2 after 3
    { id: 3, predecessors: [1] },        // 3 after 1: cycle 1 -> 2 -> 3 -> 1
    { id: 4, predecessors: [4, 77] },    // self, missing
    { id: 5, predecessors: [1] },        // fine (depends on the cycle but is not on it)
    { id: 6 },
    { id: 7, parentId: 6, predecessors: [6] }, // child depends on its parent
    { id: 8, predecessors: [7] },
    { id: 9, parentId: 8 },
    { id: 10, parentId: 6, predecessors: [9] }, // 10 after 9; 9's parent 8 after 7; 6 is parent of 7 and 10: 6 -> 10 -> 9, 8 -> 9, 8 -> 7, 6 -> 7 (no cycle)
  ];
  const bad = findInvalidPredecessors(rows);
  const expected = [predecessorKey(1, 2), predecessorKey(2, 3), predecessorKey(3, 1), predecessorKey(4, 4), predecessorKey(4, 77), predecessorKey(7, 6)];
  assert.deepEqual([...bad].sort(), expected.sort());
  // a cycle through the hierarchy: 8 after 10 while 10 (via its parent 6's roll-up) depends on 9, child of 8
  const cyc = findInvalidPredecessors([
    { id: 6 }, { id: 10, parentId: 6 }, { id: 8, predecessors: [6] }, { id: 9, parentId: 8 }, { id: 11, predecessors: [9] },
    { id: 12, parentId: 6, predecessors: [11] },
  ]);
  // 8 -> 6 (pred), 6 -> 12 (child), 12 -> 11 (pred), 11 -> 9 (pred), 8 -> 9 (child): no cycle
  // back to 8; but 8's predecessor drives its child 9's start: 9 -> 6 -> 12 -> 11 -> 9 is one
  assert.deepEqual([...cyc].sort(), [predecessorKey(8, 6), predecessorKey(12, 11), predecessorKey(11, 9)].sort());
  // with 9 a parent's child that has no predecessors, nothing is circular
  assert.equal(findInvalidPredecessors([
    { id: 6 }, { id: 10, parentId: 6 }, { id: 8 }, { id: 9, parentId: 8 }, { id: 11, predecessors: [9] },
    { id: 12, parentId: 6, predecessors: [11] },
  ]).size, 0);
  const cyc2 = findInvalidPredecessors([{ id: 1, predecessors: [3] }, { id: 2, parentId: 1 }, { id: 3, predecessors: [2] }]);
  // a parent's predecessor drives its children's starts: 2 starts after 3 (its parent 1's
  // predecessor) while 3 starts after 2, a cycle; the parent's predecessor and 3's are invalid
  assert.deepEqual([...cyc2].sort(), [predecessorKey(1, 3), predecessorKey(3, 2)].sort());
  // without the parent's predecessor there is none
  assert.equal(findInvalidPredecessors([{ id: 1 }, { id: 2, parentId: 1 }, { id: 3, predecessors: [2] }]).size, 0);
  const cyc3 = findInvalidPredecessors([{ id: 1 }, { id: 2, parentId: 1, predecessors: [3] }, { id: 3, predecessors: [1] }]);
  // 3 after 1, 1 rolls up 2, 2 after 3: 3 -> 1 -> 2 -> 3
  assert.deepEqual([...cyc3].sort(), [predecessorKey(2, 3), predecessorKey(3, 1)].sort());
});

// a cycle through every row of a large sheet is found without exhausting the stack
test('invalid predecessors: one cycle through 25,000 rows', () => {
  const rows = Array.from({ length: 25_000 }, (_v, i) => ({ id: i + 1, predecessors: i > 0 ? [i] : [] }));
  rows[0]!.predecessors = [25_000];
  const bad = findInvalidPredecessors(rows);
  assert.equal(bad.size, 25_000, 'one long cycle');
});
