import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RowTree } from '../../src/engine/rows.ts';
import { addModelRows, Changeset, deleteModelRows, moveModelRows, rowsInOrder, type RowState, type SheetModel } from '../../src/engine/model.ts';

function row(id: number): RowState {
  return { id, parentId: null, sortKey: undefined, expanded: true, locked: false, format: undefined, cells: {}, meta: {}, createdAt: 0, createdBy: null, modifiedAt: 0, modifiedBy: null };
}

function model(ids: number[]): SheetModel {
  return { sheetId: 1, version: 1, columns: [], columnsById: new Map(), rows: new Map(ids.map((id) => [id, row(id)])), tree: RowTree.fromDisplayOrder(ids.map((id) => ({ id }))) };
}

const idsOf = (m: SheetModel) => rowsInOrder(m).map((r) => r.id);

test('rowsInOrder: every row in display order, the same list while nothing changed', () => {
  const m = model([3, 1, 2]);
  const first = rowsInOrder(m);
  assert.deepEqual(first.map((r) => r.id), [3, 1, 2]);
  assert.equal(rowsInOrder(m), first);
  assert.equal(first[0], m.rows.get(3));
  // a row's cells change in place: the same RowState, seen through the kept list
  m.rows.get(1)!.cells = { 7: { value: 'x' } } as RowState['cells'];
  assert.equal(rowsInOrder(m)[1]!.cells, m.rows.get(1)!.cells);
});

test('rowsInOrder follows rows added at the bottom, added above others, moved and deleted', () => {
  const m = model([10, 20, 30]);
  idsOf(m);
  m.tree.addRows([{ id: 40 }], { kind: 'bottom' });
  addModelRows(m, new Changeset(), [row(40)]);
  assert.deepEqual(idsOf(m), [10, 20, 30, 40]);
  m.tree.addRows([{ id: 5 }], { kind: 'top' });
  addModelRows(m, new Changeset(), [row(5)]);
  assert.deepEqual(idsOf(m), [5, 10, 20, 30, 40]);
  moveModelRows(m, new Changeset(), [30], { kind: 'top' }, {});
  assert.deepEqual(idsOf(m), [30, 5, 10, 20, 40]);
  deleteModelRows(m, new Changeset(), [40], {});
  assert.deepEqual(idsOf(m), [30, 5, 10, 20]);
  deleteModelRows(m, new Changeset(), [5], {});
  assert.deepEqual(idsOf(m), [30, 10, 20]);
  m.tree.sort((a, b) => a - b);
  assert.deepEqual(idsOf(m), [10, 20, 30]);
  // a model whose rows were replaced (another Map) is read afresh
  m.rows = new Map([...m.rows].map(([id]) => [id, row(id)]));
  assert.equal(rowsInOrder(m)[0], m.rows.get(10));
});
