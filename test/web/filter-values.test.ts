import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SheetModel, valueOrder } from '../../src/web/app/sheet/model.ts';
import type { Cell, Sheet } from '../../src/web/app/sheet/types.ts';

/**
 * The values the sheet page's filter dialog lists for a column (pure: the page's model), and
 * what its ad-hoc filter hides. The dialog itself is tested in Chromium (sheet-tools.test.ts).
 */
const cell = (value: Cell['value'], displayValue?: string): Cell => ({ columnId: 2, value, ...(displayValue !== undefined ? { displayValue } : {}) });
const order = (type: string, cells: Cell[]) => valueOrder(type, cells.map((c) => [c.displayValue ?? String(c.value ?? ''), c]));

test('numbers by size, not as text; the blank first; text after the numbers, in natural order', () => {
  assert.deepEqual(order('TEXT_NUMBER', [cell(10), cell('item 10'), cell(9), cell(null), cell('item 9'), cell(-2.5), cell(1200, '$1,200.00'), cell('Apple')]),
    ['', '-2.5', '9', '10', '$1,200.00', 'Apple', 'item 9', 'item 10']);
});

test('a date column\'s dates by date, whatever their shown form', () => {
  assert.deepEqual(order('DATE', [cell('2024-02-01', '02/01/24'), cell('2023-12-31', '12/31/23'), cell('2024-01-15', '01/15/24')]), ['12/31/23', '01/15/24', '02/01/24']);
  assert.deepEqual(order('DATETIME', [cell('2024-03-01T10:00:00Z'), cell('2024-03-01T09:00:00Z')]), ['2024-03-01T09:00:00Z', '2024-03-01T10:00:00Z']);
  // a text column of date-like text stays text
  assert.deepEqual(order('TEXT_NUMBER', [cell('02/01/24'), cell('12/31/23'), cell('01/15/24')]), ['01/15/24', '02/01/24', '12/31/23']);
});

test('every distinct value of the column is listed, however many; the filter hides only the values it names', () => {
  const rows = Array.from({ length: 1200 }, (_, i) => ({ id: i + 1, rowNumber: i + 1, cells: [{ columnId: 1, value: `r${i}` }, ...(i >= 1195 ? [] : [{ columnId: 2, value: i % 600 }])] }));
  const sheet: Sheet = { id: 1, name: 'S', accessLevel: 'OWNER', columns: [{ id: 1, index: 0, title: 'Task', type: 'TEXT_NUMBER', primary: true }, { id: 2, index: 1, title: 'N', type: 'TEXT_NUMBER' }], rows };
  const m = new SheetModel(sheet);
  const values = m.distinctValues(2);
  assert.equal(values.length, 601);
  assert.deepEqual(values.slice(0, 4), ['', '0', '1', '2']);
  assert.equal(values.at(-1), '599');
  m.columnFilter = { columnId: 2, hidden: new Set(['550']) };
  m.restructure();
  // 550 is in rows 551 and 1151
  assert.equal(m.visible.length, 1198);
  assert.ok(!m.visible.includes(551) && !m.visible.includes(1151) && m.visible.includes(1152));
});
