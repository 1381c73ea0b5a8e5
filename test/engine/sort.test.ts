import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareSortKeys, readSortSpecifier, sortKey, sortRows } from '../../src/engine/sort.ts';
import { convertCell, convertValue } from '../../src/engine/convert.ts';
import { RowTree } from '../../src/engine/rows.ts';
import { columnVersion, type ColumnDef, type ColumnType } from '../../src/engine/columns.ts';
import type { StoredCell, StoredValue } from '../../src/engine/cells.ts';
import { EngineError } from '../../src/engine/errors.ts';

const code = (c: number) => (e: unknown): boolean => e instanceof EngineError && e.errorCode === c;
const col = (id: number, type: ColumnType, extra: Partial<ColumnDef> = {}): ColumnDef => ({ id, index: 0, title: `c${id}`, type, version: columnVersion(type), ...extra });

test('readSortSpecifier', () => {
  const cols = new Map([[1, col(1, 'TEXT_NUMBER')]]);
  assert.deepEqual(readSortSpecifier({ sortCriteria: [{ columnId: 1 }] }, cols), [{ columnId: 1, direction: 'ASCENDING' }]);
  assert.throws(() => readSortSpecifier({ sortCriteria: [] }, cols), code(1012));
  assert.throws(() => readSortSpecifier({ sortCriteria: [{ columnId: 2 }] }, cols), code(1036));
  assert.throws(() => readSortSpecifier({ sortCriteria: [{ columnId: 1, direction: 'UP' }] }, cols), code(1031));
});

function order(c: ColumnDef, values: (StoredValue | undefined)[], direction: 'ASCENDING' | 'DESCENDING' = 'ASCENDING'): (StoredValue | undefined)[] {
  return [...values].sort((a, b) => compareSortKeys(sortKey(c, a), sortKey(c, b), direction));
}

test('value order: numbers before text, natural text, blanks last both ways', () => {
  const c = col(1, 'TEXT_NUMBER');
  assert.deepEqual(order(c, ['b', 10, undefined, 'item 10', 2, 'A', 'item 2']), [2, 10, 'A', 'b', 'item 2', 'item 10', undefined]);
  assert.deepEqual(order(c, ['b', 10, undefined, 2, 'A'], 'DESCENDING'), ['b', 'A', 10, 2, undefined]);
});

test('value order per type: dates, checkboxes, durations, contacts, symbols', () => {
  assert.deepEqual(order(col(1, 'DATE'), [{ d: '2024-05-01' }, { d: '2023-01-01' }, 'tbd']), [{ d: '2023-01-01' }, { d: '2024-05-01' }, 'tbd']);
  assert.deepEqual(order(col(1, 'CHECKBOX'), [true, undefined, false]), [false, true, undefined]);
  assert.deepEqual(order(col(1, 'DURATION'), [{ du: { objectType: 'DURATION', weeks: 1 } }, { du: { objectType: 'DURATION', days: 2 } }]),
    [{ du: { objectType: 'DURATION', days: 2 } }, { du: { objectType: 'DURATION', weeks: 1 } }]);
  assert.deepEqual(order(col(1, 'CONTACT_LIST'), [{ c: { email: 'z@x.test', name: 'Ann' } }, { c: { email: 'a@x.test', name: 'Zed' } }]),
    [{ c: { email: 'z@x.test', name: 'Ann' } }, { c: { email: 'a@x.test', name: 'Zed' } }]);
  assert.deepEqual(order(col(1, 'PICKLIST', { symbol: 'RYG' }), ['Green', 'Red', 'Yellow']), ['Red', 'Yellow', 'Green']);
});

test('sortRows: multi-criteria, stable, hierarchy kept', () => {
  const a = col(1, 'TEXT_NUMBER');
  const b = col(2, 'TEXT_NUMBER');
  const cols = new Map([[1, a], [2, b]]);
  const data: Record<number, Record<number, StoredCell>> = {
    1: { 1: { v: 'x' }, 2: { v: 2 } }, 2: { 1: { v: 'x' }, 2: { v: 1 } }, 3: { 1: { v: 'a' } },
    4: { 1: { v: 'z' } }, 5: { 1: { v: 'y' } },
  };
  const t = RowTree.fromDisplayOrder([{ id: 1 }, { id: 2 }, { id: 3 }, { id: 4 }, { id: 5, parentId: 4 }]);
  sortRows(t, [{ columnId: 1, direction: 'DESCENDING' }, { columnId: 2, direction: 'ASCENDING' }], cols, (r, c) => data[r]?.[c]);
  assert.deepEqual(t.displayOrder(), [4, 5, 2, 1, 3]);
});

test('type change conversion: fitting values convert, others stay as text', () => {
  const text = col(1, 'TEXT_NUMBER');
  assert.deepEqual(convertValue('true', text, col(2, 'CHECKBOX')), true);
  assert.deepEqual(convertValue('maybe', text, col(2, 'CHECKBOX')), 'maybe');
  assert.deepEqual(convertValue('2024-03-07', text, col(2, 'DATE')), { d: '2024-03-07' });
  assert.deepEqual(convertValue('3/7/2024', text, col(2, 'DATE')), { d: '2024-03-07' });
  assert.deepEqual(convertValue('soon', text, col(2, 'DATE')), 'soon');
  assert.deepEqual(convertValue(42, text, col(2, 'DATE')), '42');
  assert.deepEqual(convertValue('a@example.com', text, col(2, 'CONTACT_LIST')), { c: { email: 'a@example.com' } });
  assert.deepEqual(convertValue('a@example.com, b@example.com', text, col(2, 'MULTI_CONTACT_LIST')), { mc: [{ email: 'a@example.com' }, { email: 'b@example.com' }] });
  assert.deepEqual(convertValue('x', text, col(2, 'MULTI_PICKLIST')), { mp: ['x'] });
  assert.deepEqual(convertValue('2d', text, col(2, 'DURATION')), { du: { objectType: 'DURATION', days: 2 } });
  assert.deepEqual(convertValue(true, col(1, 'CHECKBOX'), col(2, 'TEXT_NUMBER')), 'true');
  assert.deepEqual(convertValue({ d: '2024-03-07' }, col(1, 'DATE'), col(2, 'TEXT_NUMBER')), '2024-03-07');
  assert.deepEqual(convertValue({ c: { email: 'a@example.com', name: 'Ann' } }, col(1, 'CONTACT_LIST'), col(2, 'TEXT_NUMBER')), 'Ann');
  assert.deepEqual(convertValue({ mp: ['a', 'b'] }, col(1, 'MULTI_PICKLIST'), col(2, 'PICKLIST')), 'a, b');
  assert.deepEqual(convertValue(5, text, col(2, 'PICKLIST')), 5);
  assert.deepEqual(convertValue('2', text, col(2, 'PREDECESSOR'), undefined, { rowIdOfNumber: (n) => n + 100 }), { p: [{ rowId: 102, type: 'FS' }] });
  assert.deepEqual(convertCell({ v: 'true', f: ',,1,,,,,,,,,,,,,,' }, text, col(2, 'CHECKBOX')), { v: true, f: ',,1,,,,,,,,,,,,,,' });
});
