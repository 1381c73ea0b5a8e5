import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Changeset, isCompactMeta, markCompactMeta, writeRowCells, type CellMeta, type RowState } from '../../src/engine/model.ts';

function row(cells: RowState['cells'], meta: RowState['meta']): RowState {
  return { id: 7, parentId: null, sortKey: 1, expanded: true, locked: false, format: undefined, cells, meta, createdAt: 1, createdBy: 2, modifiedAt: 1, modifiedBy: 2 };
}

test('writeRowCells: a row meta marked compact stays so while only its keys are rewritten, not once it is given a new key; the edits keep the meta before', () => {
  const old: CellMeta = [1, 2];
  const r = row({ 10: { v: 'a' } }, { 10: old });
  markCompactMeta(r.meta);
  const cs = new Changeset();
  const stamp: CellMeta = [5, 6];
  const edits = writeRowCells(cs, r, { 10: { v: 'b' } }, [10], stamp);
  assert.equal(isCompactMeta(r.meta), true);
  assert.deepEqual(edits.map((e) => [e.columnId, e.before, e.beforeMeta, e.after]), [[10, { v: 'a' }, old, { v: 'b' }]]);
  assert.equal(r.meta['10'], stamp);
  const edits2 = writeRowCells(cs, r, { 10: { v: 'b' }, 11: { v: 'c' } }, [11], stamp);
  assert.deepEqual(edits2.map((e) => [e.columnId, e.before, e.beforeMeta]), [[11, undefined, undefined]]);
  assert.equal(isCompactMeta(r.meta), false);
  assert.deepEqual(r.meta, { 10: stamp, 11: stamp });
  assert.deepEqual([...cs.updated], [7]);
});
