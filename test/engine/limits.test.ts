import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertCellsPerSheet, assertInboundCellLinks, assertRowsPerRequest, MAX_CELL_CHARS } from '../../src/engine/limits.ts';
import { assignAutoNumbers } from '../../src/engine/autonumber.ts';
import { presentRowCells } from '../../src/engine/display.ts';
import type { ColumnDef } from '../../src/engine/columns.ts';
import { EngineError, LimitExceeded } from '../../src/engine/errors.ts';
import { fromEngineError } from '../../src/services/platform/errors.ts';

const code = (c: number) => (e: unknown): boolean => e instanceof EngineError && e.errorCode === c;

test('limits of spec section 8 (1061)', () => {
  assert.doesNotThrow(() => assertRowsPerRequest(500));
  assert.throws(() => assertRowsPerRequest(501), code(1061));
  assert.throws(() => assertRowsPerRequest(501), (e: unknown) => e instanceof LimitExceeded && fromEngineError(e).message === 'Max count exceeded for field rows.');
  assert.doesNotThrow(() => assertCellsPerSheet(5000, 100));
  assert.throws(() => assertCellsPerSheet(5001, 100), code(1061));
  assert.throws(() => assertInboundCellLinks(500_001), code(1061));
  assert.equal(MAX_CELL_CHARS, 4000);
});

test('auto numbers for new rows', () => {
  const cols = [{ id: 1, systemColumnType: 'AUTO_NUMBER', autoNumberFormat: { prefix: 'T-', fill: '00' }, nextAutoNumber: 9 }, { id: 2 }];
  const r = assignAutoNumbers(cols, 2, 0);
  assert.deepEqual(r.get(1), { values: ['T-09', 'T-10'], next: 11 });
  assert.equal(r.has(2), false);
});

test('row cells: one per column, system columns filled', () => {
  const cols: ColumnDef[] = [
    { id: 1, index: 0, title: 'Name', type: 'TEXT_NUMBER', version: 0, primary: true },
    { id: 2, index: 1, title: 'ID', type: 'TEXT_NUMBER', version: 0, systemColumnType: 'AUTO_NUMBER' },
    { id: 3, index: 2, title: 'Modified', type: 'DATETIME', version: 0, systemColumnType: 'MODIFIED_DATE' },
    { id: 4, index: 3, title: 'Due', type: 'DATE', version: 0 },
  ];
  const cells = presentRowCells(cols, { 1: { v: 'Task' }, 2: { v: 'T-01' } }, { system: { createdAt: 0, modifiedAt: Date.UTC(2024, 0, 1) }, numericDates: false });
  assert.deepEqual(cells, [
    { columnId: 1, value: 'Task', displayValue: 'Task' },
    { columnId: 2, value: 'T-01', displayValue: 'T-01' },
    { columnId: 3, value: '2024-01-01T00:00:00Z' },
    { columnId: 4 },
  ]);
});
