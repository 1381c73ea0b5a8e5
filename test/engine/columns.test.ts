import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  assertColumnDeletable, assertColumnEditable, assertColumnLevel, insertColumnIds, presentColumn,
  validateAddColumns, validateColumnUpdate, validateNewSheetColumns, type ColumnDef, type ValidColumn,
} from '../../src/engine/columns.ts';
import { EngineError } from '../../src/engine/errors.ts';

const code = (c: number) => (e: unknown): boolean => e instanceof EngineError && e.errorCode === c;

function sheet(cols: ValidColumn[]): ColumnDef[] {
  return cols.map((c, i) => ({ ...c, id: 1000 + i }));
}

const base = (): ColumnDef[] => sheet(validateNewSheetColumns([
  { title: 'Name', type: 'TEXT_NUMBER', primary: true },
  { title: 'Done', type: 'CHECKBOX', symbol: 'STAR' },
  { title: 'Status', type: 'PICKLIST', options: ['A', 'B'] },
  { title: 'Due', type: 'DATE' },
]));

test('new sheet: exactly one primary TEXT_NUMBER column (1055, 1057)', () => {
  const cols = base();
  assert.equal(cols.length, 4);
  assert.deepEqual(cols.map((c) => c.index), [0, 1, 2, 3]);
  assert.throws(() => validateNewSheetColumns([{ title: 'A', type: 'TEXT_NUMBER' }]), code(1055));
  assert.throws(() => validateNewSheetColumns([{ title: 'A', type: 'TEXT_NUMBER', primary: true }, { title: 'B', type: 'TEXT_NUMBER', primary: true }]), code(1055));
  assert.throws(() => validateNewSheetColumns([{ title: 'A', type: 'DATE', primary: true }]), code(1057));
  assert.throws(() => validateNewSheetColumns([]), code(1054));
});

test('titles unique: 1133 among inputs, 1056 against the sheet', () => {
  assert.throws(() => validateNewSheetColumns([{ title: 'A', type: 'TEXT_NUMBER', primary: true }, { title: 'A', type: 'DATE' }]), code(1133));
  const cols = base();
  assert.throws(() => validateAddColumns(cols, [{ title: 'Due', type: 'DATE', index: 1 }]), code(1056));
  assert.throws(() => validateAddColumns(cols, [{ title: 'X', type: 'DATE', index: 1 }, { title: 'X', type: 'DATE', index: 1 }]), code(1133));
  assert.throws(() => validateColumnUpdate(cols, 1001, { title: 'Due' }), code(1056));
  assert.throws(() => validateAddColumns(cols, [{ type: 'DATE', index: 1 }]), code(1012));
  assert.throws(() => validateAddColumns(cols, [{ title: 'Y', index: 1 }]), code(1012));
});

test('symbols and options (1058, 1059, 1060, 1082, 1090)', () => {
  const cols = base();
  assert.throws(() => validateAddColumns(cols, [{ title: 'S', type: 'CHECKBOX', symbol: 'RYG', index: 0 }]), code(1058));
  assert.throws(() => validateAddColumns(cols, [{ title: 'S', type: 'TEXT_NUMBER', symbol: 'STAR', index: 0 }]), code(1058));
  assert.doesNotThrow(() => validateAddColumns(cols, [{ title: 'S', type: 'PICKLIST', symbol: 'HARVEY_BALLS', index: 0 }]));
  assert.doesNotThrow(() => validateAddColumns(cols, [{ title: 'S', type: 'CHECKBOX', symbol: 'FLAG', index: 0 }]));
  assert.throws(() => validateAddColumns(cols, [{ title: 'S', type: 'PICKLIST', symbol: 'RYG', options: ['x'], index: 0 }]), code(1059));
  assert.throws(() => validateAddColumns(cols, [{ title: 'S', type: 'DATE', options: ['x'], index: 0 }]), code(1060));
  assert.throws(() => validateAddColumns(cols, [{ title: 'S', type: 'TEXT_NUMBER', contactOptions: [{ email: 'a@example.com' }], index: 0 }]), code(1060));
  assert.throws(() => validateColumnUpdate(cols, 1003, { options: ['x'] }), code(1082), 'Due is a DATE column');
  assert.throws(() => validateColumnUpdate(cols, 1002, { options: ['x'] }), code(1090), 'type required to change options');
  assert.throws(() => validateColumnUpdate(cols, 1001, { symbol: 'FLAG' }), code(1090));
  const u = validateColumnUpdate(cols, 1002, { type: 'PICKLIST', options: ['x', 'y'] });
  assert.deepEqual(u.column.options, ['x', 'y']);
});

test('system columns (1077, 1078, 1079, 1089, 1134)', () => {
  const cols = base();
  const [created] = validateAddColumns(cols, [{ title: 'Created', type: 'DATETIME', systemColumnType: 'CREATED_DATE', index: 4 }]);
  assert.equal(created!.systemColumnType, 'CREATED_DATE');
  const withCreated = [...cols, { ...created!, id: 2000 }];
  assert.throws(() => validateAddColumns(withCreated, [{ title: 'C2', type: 'DATETIME', systemColumnType: 'CREATED_DATE', index: 0 }]), code(1077));
  assert.throws(() => validateAddColumns(cols, [
    { title: 'C1', type: 'CONTACT_LIST', systemColumnType: 'CREATED_BY', index: 0 },
    { title: 'C2', type: 'CONTACT_LIST', systemColumnType: 'CREATED_BY', index: 0 },
  ]), code(1134));
  assert.throws(() => validateAddColumns(cols, [{ title: 'C', type: 'TEXT_NUMBER', systemColumnType: 'CREATED_BY', index: 0 }]), code(1079));
  assert.throws(() => validateAddColumns(cols, [{ title: 'C', type: 'DATETIME', index: 0 }]), code(1089));
  assert.throws(() => validateNewSheetColumns([{ title: 'A', type: 'TEXT_NUMBER', primary: true, systemColumnType: 'AUTO_NUMBER' }]), code(1078));
});

test('auto number columns (1083, 1084, 1088)', () => {
  const cols = base();
  const [an] = validateAddColumns(cols, [{ title: 'ID', type: 'TEXT_NUMBER', systemColumnType: 'AUTO_NUMBER', autoNumberFormat: { prefix: 'X-', fill: '000' }, index: 1 }]);
  assert.deepEqual(an!.autoNumberFormat, { prefix: 'X-', fill: '000' });
  assert.throws(() => validateAddColumns(cols, [{ title: 'ID', type: 'TEXT_NUMBER', autoNumberFormat: { fill: '0' }, index: 1 }]), code(1083));
  assert.throws(() => validateAddColumns(cols, [{ title: 'ID', type: 'TEXT_NUMBER', systemColumnType: 'AUTO_NUMBER', autoNumberFormat: { fill: '1' }, index: 1 }]), code(1084));
  assert.throws(() => validateAddColumns(cols, [{ title: 'ID', type: 'TEXT_NUMBER', systemColumnType: 'AUTO_NUMBER', autoNumberFormat: { prefix: 'p'.repeat(41) }, index: 1 }]), code(1088));
});

test('1135 input column index must be shared; index range', () => {
  const cols = base();
  assert.throws(() => validateAddColumns(cols, [{ title: 'X', type: 'DATE', index: 1 }, { title: 'Y', type: 'DATE', index: 2 }]), code(1135));
  assert.throws(() => validateAddColumns(cols, [{ title: 'X', type: 'DATE', index: 9 }]), code(1031));
  const added = validateAddColumns(cols, [{ title: 'X', type: 'DATE', index: 1 }, { title: 'Y', type: 'DATE', index: 1 }]);
  assert.deepEqual(added.map((c) => c.index), [1, 2]);
  assert.deepEqual(insertColumnIds([1, 2, 3], 1, [9, 8]), [1, 9, 8, 2, 3]);
  assert.deepEqual(insertColumnIds([1, 2, 3], 2, [1]), [2, 3, 1]);
});

test('project column types need dependencies (1142)', () => {
  assert.throws(() => validateAddColumns(base(), [{ title: 'Dur', type: 'DURATION', index: 0 }]), code(1142));
  assert.doesNotThrow(() => validateAddColumns(base(), [{ title: 'Dur', type: 'DURATION', index: 0 }], { projectSheet: true }));
});

test('primary cannot change (1055) nor be retyped (1057)', () => {
  const cols = base();
  assert.throws(() => validateColumnUpdate(cols, 1000, { type: 'DATE' }), code(1057));
  assert.throws(() => validateColumnUpdate(cols, 1001, { primary: true }), code(1055));
  assert.doesNotThrow(() => validateColumnUpdate(cols, 1000, { title: 'Task' }));
});

test('type change clears validation and reports it', () => {
  const cols = base();
  cols[2]!.validation = true;
  const u = validateColumnUpdate(cols, 1002, { type: 'TEXT_NUMBER' });
  assert.equal(u.typeChanged, true);
  assert.equal(u.column.validation, undefined);
  assert.equal(u.column.options, undefined);
  const m = validateColumnUpdate(cols, 1002, { index: 0 });
  assert.equal(m.moved, true);
});

test('delete checks: primary 1065, last visible 1260', () => {
  const cols = base();
  assert.throws(() => assertColumnDeletable(cols, 1000), code(1065));
  assert.doesNotThrow(() => assertColumnDeletable(cols, 1001));
  const hidden = cols.map((c) => (c.primary === true ? c : { ...c, hidden: true }));
  hidden[0] = { ...hidden[0]!, primary: undefined, hidden: false };
  // only column 1000 visible (made non-primary for the check)
  assert.throws(() => assertColumnDeletable(hidden, 1000), code(1260));
});

test('locked columns 1039 and level gate 1239', () => {
  const cols = base();
  const locked = { ...cols[1]!, locked: true };
  assert.throws(() => assertColumnEditable(locked, false), code(1039));
  assert.doesNotThrow(() => assertColumnEditable(locked, true));
  const multi = validateAddColumns(cols, [{ title: 'People', type: 'MULTI_CONTACT_LIST', index: 0 }]);
  const mc: ColumnDef = { ...multi[0]!, id: 3000 };
  assert.equal(mc.version, 1);
  assert.throws(() => assertColumnLevel(mc, undefined), code(1239));
  assert.doesNotThrow(() => assertColumnLevel(mc, 1));
  assert.throws(() => validateColumnUpdate([...cols, mc], 3000, { title: 'P2' }), code(1239));
  assert.doesNotThrow(() => validateColumnUpdate([...cols, mc], 3000, { title: 'P2' }, { level: 2 }));
});

test('presentColumn: level gate and defaults', () => {
  const cols = base();
  const mp: ColumnDef = { ...validateAddColumns(cols, [{ title: 'Tags', type: 'MULTI_PICKLIST', options: ['a'], index: 0 }])[0]!, id: 4000 };
  assert.equal(presentColumn(mp).type, 'TEXT_NUMBER');
  assert.equal(presentColumn(mp).options, undefined);
  assert.equal(presentColumn(mp).version, 2);
  assert.equal(presentColumn(mp, { level: 1 }).type, 'TEXT_NUMBER');
  assert.equal(presentColumn(mp, { level: 2 }).type, 'MULTI_PICKLIST');
  assert.deepEqual(presentColumn(mp, { level: 2 }).options, ['a']);
  const p = presentColumn(cols[0]!);
  assert.deepEqual(p, { id: 1000, version: 0, index: 0, title: 'Name', type: 'TEXT_NUMBER', primary: true, hidden: false, width: 150, validation: false });
  assert.equal(presentColumn(cols[1]!).symbol, 'STAR');
});
