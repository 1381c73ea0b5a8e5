import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseCellWrite, parseRowCells, type CellInput, type CellWriteContext } from '../../src/engine/values.ts';
import { presentCell, systemCellValue, type PresentCellOptions } from '../../src/engine/display.ts';
import { columnVersion, type ColumnDef, type ColumnType } from '../../src/engine/columns.ts';
import { takeFreshCells, type StoredCell } from '../../src/engine/cells.ts';
import { EngineError } from '../../src/engine/errors.ts';
import { fromEngineError } from '../../src/services/platform/errors.ts';

const code = (c: number) => (e: unknown): boolean => e instanceof EngineError && e.errorCode === c;

let nextId = 100;
function col(type: ColumnType, extra: Partial<ColumnDef> = {}): ColumnDef {
  return { id: nextId++, index: 0, title: `c${nextId}`, type, version: columnVersion(type), ...extra };
}

function write(c: ColumnDef, input: CellInput, ctx: CellWriteContext = {}, existing?: StoredCell): StoredCell | undefined {
  return parseCellWrite(c, { columnId: c.id, ...input }, existing, { level: 2, ...ctx }).cell;
}

function roundTrip(c: ColumnDef, input: CellInput, ctx: CellWriteContext = {}, opts: PresentCellOptions = {}): Record<string, unknown> {
  const cell = write(c, input, ctx);
  const out: Record<string, unknown> = { ...presentCell(c, cell, { level: 2, ...opts }) };
  delete out.columnId;
  return out;
}

test('TEXT_NUMBER: strings, numbers, formatted displayValue', () => {
  const c = col('TEXT_NUMBER');
  assert.deepEqual(roundTrip(c, { value: 'hello' }), { value: 'hello', displayValue: 'hello' });
  assert.deepEqual(roundTrip(c, { value: 12.5 }), { value: 12.5, displayValue: '12.5' });
  assert.deepEqual(roundTrip(c, { value: '1,000' }), { value: '1,000', displayValue: '1,000' }, 'strict keeps text');
  assert.deepEqual(roundTrip(c, { value: '1,000', strict: false }), { value: 1000, displayValue: '1,000' });
  assert.deepEqual(roundTrip(c, { value: '$5', strict: false }), { value: 5, displayValue: '$5.00' });
  assert.deepEqual(roundTrip(c, { value: '50%', strict: false }), { value: 0.5, displayValue: '50%' });
  assert.deepEqual(roundTrip(c, { value: 1234.5678, format: ',,,,,,,,,,,22,2,1,2,,' }), { value: 1234.5678, displayValue: '$1,234.57' });
  assert.deepEqual(roundTrip(c, { value: '' }), {}, 'empty string clears');
  assert.deepEqual(roundTrip(c, { value: 1 }, {}, { includeObjectValue: true, includeColumnType: true }), { columnType: 'TEXT_NUMBER', value: 1, displayValue: '1', objectValue: 1 });
});

test('values over 4000 characters are silently truncated', () => {
  const c = col('TEXT_NUMBER');
  const cell = write(c, { value: 'x'.repeat(5000) });
  assert.equal((cell?.v as string).length, 4000);
});

test('1148 numeric range when strict; text when lenient', () => {
  const c = col('TEXT_NUMBER');
  assert.throws(() => write(c, { value: 1e300 }), code(1148));
  assert.throws(() => write(c, { value: -(2 ** 54) }), code(1148));
  assert.equal(write(c, { value: 1e300, strict: false })?.v, '1e+300');
  assert.equal(write(c, { value: 9007199254740992 })?.v, 9007199254740992);
});

test('CHECKBOX: booleans; strict 1042; lenient text', () => {
  const c = col('CHECKBOX');
  assert.deepEqual(roundTrip(c, { value: true }), { value: true });
  assert.deepEqual(roundTrip(c, { value: false }), { value: false });
  assert.throws(() => write(c, { value: 'yes' }), code(1042));
  assert.throws(() => write(c, { value: 'true' }), code(1042));
  assert.deepEqual(roundTrip(c, { value: 'true', strict: false }), { value: true });
  assert.deepEqual(roundTrip(c, { value: 'maybe', strict: false }), { value: 'maybe' });
});

test('1042 message carries column id, value and type', () => {
  const c = col('CHECKBOX');
  assert.throws(() => write(c, { value: 'yes' }), (e: unknown) => e instanceof EngineError && fromEngineError(e).message === `Cell value in column ${c.id}, yes, violates strict requirements of type CHECKBOX.`);
});

test('DATE: ISO days, numericDates, lenient forms, free text', () => {
  const c = col('DATE');
  assert.deepEqual(roundTrip(c, { value: '2024-03-07' }), { value: '2024-03-07' });
  assert.deepEqual(roundTrip(c, { value: '2024-03-07T15:00:00Z' }), { value: '2024-03-07' });
  assert.deepEqual(roundTrip(c, { value: Date.UTC(2024, 2, 7) }, { numericDates: true }, { numericDates: true }), { value: Date.UTC(2024, 2, 7) });
  assert.deepEqual(roundTrip(c, { value: '2024-03-07' }, {}, { numericDates: true }), { value: Date.UTC(2024, 2, 7) });
  assert.throws(() => write(c, { value: '03/07/2024' }), code(1042));
  assert.throws(() => write(c, { value: '2024-02-30' }), code(1042));
  assert.throws(() => write(c, { value: 1709769600000 }), code(1042), 'numbers only with numericDates');
  assert.deepEqual(roundTrip(c, { value: '03/07/2024', strict: false }), { value: '2024-03-07' });
  assert.deepEqual(roundTrip(c, { value: 'March 7, 2024', strict: false }), { value: '2024-03-07' });
  assert.deepEqual(roundTrip(c, { value: 'next week', strict: false }), { value: 'next week' });
  assert.deepEqual(roundTrip(c, { value: '2024-03-07' }, {}, { includeObjectValue: true }), { value: '2024-03-07', objectValue: { objectType: 'DATE', value: '2024-03-07' } });
});

test('ABSTRACT_DATETIME: project date-times', () => {
  const c = col('ABSTRACT_DATETIME');
  assert.deepEqual(roundTrip(c, { value: '2024-03-07T10:30:00' }), { value: '2024-03-07T10:30:00' });
  assert.deepEqual(roundTrip(c, { value: '2024-03-07' }), { value: '2024-03-07T08:00:00' });
  assert.throws(() => write(c, { value: 'soon' }), code(1042));
  assert.deepEqual(roundTrip(c, { value: 'soon', strict: false }), { value: 'soon' });
});

test('CONTACT_LIST: email value, name from displayValue or lookup, objectValue CONTACT', () => {
  const c = col('CONTACT_LIST', { contactOptions: [{ email: 'ann@example.com', name: 'Ann' }] });
  assert.deepEqual(roundTrip(c, { value: 'bob@example.com', displayValue: 'Bob' }, {}, { includeObjectValue: true }), {
    value: 'bob@example.com', displayValue: 'Bob', objectValue: { objectType: 'CONTACT', email: 'bob@example.com', name: 'Bob' },
  });
  assert.deepEqual(roundTrip(c, { value: 'bob@example.com' }), { value: 'bob@example.com', displayValue: 'bob@example.com' });
  assert.deepEqual(roundTrip(c, { value: 'ann@example.com' }), { value: 'ann@example.com', displayValue: 'Ann' }, 'contactOptions name');
  assert.deepEqual(roundTrip(c, { value: 'ann@example.com', displayValue: '' }), { value: 'ann@example.com', displayValue: 'ann@example.com' });
  assert.deepEqual(roundTrip(c, { value: 'x@example.com' }, { lookupContactName: () => 'Xavier' }), { value: 'x@example.com', displayValue: 'Xavier' });
  assert.deepEqual(roundTrip(c, { objectValue: { objectType: 'CONTACT', email: 'c@example.com', name: 'Cy' } }), { value: 'c@example.com', displayValue: 'Cy' });
  assert.throws(() => write(c, { value: 'Bob' }), code(1042));
  assert.deepEqual(roundTrip(c, { value: 'Bob', strict: false }), { value: 'Bob', displayValue: 'Bob' });
  assert.throws(() => write(c, { objectValue: { objectType: 'MULTI_PICKLIST', values: ['a'] } }), code(1131));
});

test('MULTI_CONTACT_LIST: objectValue, level gate, limits', () => {
  const c = col('MULTI_CONTACT_LIST');
  const ov = { objectType: 'MULTI_CONTACT', values: [{ objectType: 'CONTACT', email: 'a@example.com', name: 'Ann' }, { email: 'b@example.com' }] };
  assert.deepEqual(roundTrip(c, { objectValue: ov }, {}, { includeObjectValue: true, includeColumnType: true }), {
    columnType: 'MULTI_CONTACT_LIST', value: 'Ann, b@example.com', displayValue: 'Ann, b@example.com',
    objectValue: { objectType: 'MULTI_CONTACT', values: [{ objectType: 'CONTACT', email: 'a@example.com', name: 'Ann' }, { objectType: 'CONTACT', email: 'b@example.com' }] },
  });
  // without level: TEXT_NUMBER with string values
  const cell = write(c, { objectValue: ov });
  assert.deepEqual(presentCell(c, cell, { includeObjectValue: true, includeColumnType: true }), {
    columnId: c.id, columnType: 'TEXT_NUMBER', value: 'Ann, b@example.com', displayValue: 'Ann, b@example.com', objectValue: 'Ann, b@example.com',
  });
  // objectValue writes work at any level; plain values need the level (1239)
  assert.doesNotThrow(() => write(c, { objectValue: ov }, { level: 0 }));
  assert.throws(() => write(c, { value: 'a@example.com' }, { level: 0 }), code(1239));
  const many = { objectType: 'MULTI_CONTACT', values: Array.from({ length: 21 }, (_v, i) => ({ email: `u${i}@example.com` })) };
  assert.throws(() => write(c, { objectValue: many }), code(1240));
  assert.throws(() => write(c, { objectValue: { objectType: 'MULTI_CONTACT', values: [{ email: 'a@example.com', name: 5 }] } }), code(1241));
});

test('MULTI_PICKLIST: objectValue values, level gate', () => {
  const c = col('MULTI_PICKLIST', { options: ['a', 'b', 'c'] });
  assert.deepEqual(roundTrip(c, { objectValue: { objectType: 'MULTI_PICKLIST', values: ['a', 'c'] } }, {}, { includeObjectValue: true }), {
    value: 'a, c', displayValue: 'a, c', objectValue: { objectType: 'MULTI_PICKLIST', values: ['a', 'c'] },
  });
  const cell = write(c, { objectValue: { objectType: 'MULTI_PICKLIST', values: ['a'] } });
  assert.equal(presentCell(c, cell, { level: 1, includeColumnType: true }).columnType, 'TEXT_NUMBER');
  assert.equal(presentCell(c, cell, { level: 2, includeColumnType: true }).columnType, 'MULTI_PICKLIST');
  assert.throws(() => write(c, { value: 'a' }, { level: 1 }), code(1239));
  assert.throws(() => write(c, { objectValue: { objectType: 'MULTI_PICKLIST', values: Array.from({ length: 101 }, (_v, i) => `v${i}`) } }), code(1277));
  assert.throws(() => write(c, { objectValue: { objectType: 'CONTACT', email: 'a@example.com' } }), code(1131));
});

test('PICKLIST: options strict, free text lenient, numbers formatted', () => {
  const c = col('PICKLIST', { options: ['Red', 'Green', '1'] });
  assert.deepEqual(roundTrip(c, { value: 'Red' }), { value: 'Red', displayValue: 'Red' });
  assert.throws(() => write(c, { value: 'Blue' }), code(1042));
  assert.deepEqual(roundTrip(c, { value: 'Blue', strict: false }), { value: 'Blue', displayValue: 'Blue' });
  assert.deepEqual(roundTrip(c, { value: 1 }), { value: 1, displayValue: '1' });
  assert.deepEqual(roundTrip(c, { value: 0.5, strict: false, format: ',,,,,,,,,,,,,,3,,' }), { value: 0.5, displayValue: '50%' });
  const sym = col('PICKLIST', { symbol: 'RYG' });
  assert.deepEqual(roundTrip(sym, { value: 'Yellow' }), { value: 'Yellow', displayValue: 'Yellow' });
});

test('DURATION: strings, numbers as days when lenient', () => {
  const c = col('DURATION');
  assert.deepEqual(roundTrip(c, { value: '4d 6h 30m' }, {}, { includeObjectValue: true }), {
    value: '4d 6h 30m', displayValue: '4d 6h 30m', objectValue: { objectType: 'DURATION', days: 4, hours: 6, minutes: 30 },
  });
  assert.throws(() => write(c, { value: 3 }), code(1042));
  assert.deepEqual(roundTrip(c, { value: 3, strict: false }), { value: '3d', displayValue: '3d' });
  assert.deepEqual(roundTrip(c, { value: 'a while', strict: false }), { value: 'a while', displayValue: 'a while' });
  assert.deepEqual(roundTrip(c, { objectValue: { objectType: 'DURATION', weeks: 1 } }), { value: '1w', displayValue: '1w' });
});

test('PREDECESSOR: text and PredecessorList, invalid rows', () => {
  const c = col('PREDECESSOR');
  const ids = new Map([[12, 1012], [14, 1014]]);
  const numbers = new Map([[1012, 12], [1014, 14]]);
  const ctx: CellWriteContext = { rowIdOfNumber: (n) => ids.get(n) };
  const opts: PresentCellOptions = { rowNumberOf: (id) => numbers.get(id), rowId: 1, includeObjectValue: true };
  const out = roundTrip(c, { value: '12FS +3d 4h, 14SS' }, ctx, opts);
  assert.equal(out.value, '12FS +3d 4h, 14SS');
  assert.equal(out.displayValue, '12FS +3d 4h, 14SS');
  assert.deepEqual(out.objectValue, {
    objectType: 'PREDECESSOR_LIST',
    predecessors: [
      { rowId: 1012, rowNumber: 12, type: 'FS', inCriticalPath: false, lag: { objectType: 'DURATION', days: 3, hours: 4 } },
      { rowId: 1014, rowNumber: 14, type: 'SS', inCriticalPath: false },
    ],
  });
  assert.throws(() => write(c, { value: '99FS' }, ctx), code(1042), 'row 99 not in the sheet');
  assert.throws(() => write(c, { value: '12XX' }, ctx), code(1042));
  const ov = { objectType: 'PREDECESSOR_LIST', predecessors: [{ rowId: 1014, type: 'FF' }, { rowId: 555, type: 'FS' }] };
  const o2 = roundTrip(c, { objectValue: ov }, ctx, opts);
  assert.equal(o2.value, '14FF, #REF');
  assert.deepEqual((o2.objectValue as { predecessors: unknown[] }).predecessors[1], { rowId: 555, type: 'FS', inCriticalPath: false, invalid: true });
});

test('1037 a column twice, in a short row and in one of more than 32 cells; blank writes leave no cell', () => {
  const many = Array.from({ length: 40 }, () => col('TEXT_NUMBER'));
  const cols = new Map(many.map((c) => [c.id, c]));
  const cellsOf = (ids: number[]) => ids.map((id, i) => ({ columnId: id, value: i % 3 === 0 ? '' : i }));
  for (const n of [3, 40]) {
    const ids = many.slice(0, n).map((c) => c.id);
    const r = parseRowCells(cols, cellsOf(ids), undefined);
    assert.deepEqual(r.changed, ids);
    assert.deepEqual(Object.keys(r.cells), ids.filter((_, i) => i % 3 !== 0).map(String));
    assert.throws(() => parseRowCells(cols, cellsOf([...ids.slice(0, n - 1), ids[n - 2]!]), undefined), code(1037));
  }
});

test('1036 / 1037 / 1115 row-level cell rules', () => {
  const a = col('TEXT_NUMBER');
  const b = col('TEXT_NUMBER');
  const cols = new Map([[a.id, a], [b.id, b]]);
  assert.throws(() => parseRowCells(cols, [{ columnId: 999, value: 1 }], undefined), code(1036));
  assert.throws(() => parseRowCells(cols, [{ value: 1 }], undefined), code(1036));
  assert.throws(() => parseRowCells(cols, [{ columnId: a.id, value: 1 }, { columnId: a.id, value: 2 }], undefined), code(1037));
  assert.throws(() => parseRowCells(cols, [
    { columnId: a.id, value: 1 },
    { columnId: b.id, linkInFromCell: { sheetId: 5, rowId: 6, columnId: 7 } },
  ], undefined, { sheetId: 1 }), code(1115));
  const r = parseRowCells(cols, [{ columnId: a.id, value: 'x' }, { columnId: b.id, value: 2 }], { [String(a.id)]: { v: 'old' } });
  assert.deepEqual(r.cells, { [String(a.id)]: { v: 'x' }, [String(b.id)]: { v: 2 } });
  assert.deepEqual(r.changed, [a.id, b.id]);
});

test("an update's cells are a copy, marked fresh (saved without another copy) only when it replaced values of cells the row had", () => {
  const a = col('TEXT_NUMBER');
  const b = col('TEXT_NUMBER');
  const cols = new Map([[a.id, a], [b.id, b]]);
  const existing = { [String(a.id)]: { v: 'old' }, [String(b.id)]: { v: 1 } };
  const replaced = parseRowCells(cols, [{ columnId: a.id, value: 'x' }], existing);
  assert.notEqual(replaced.cells, existing);
  assert.deepEqual(existing, { [String(a.id)]: { v: 'old' }, [String(b.id)]: { v: 1 } });
  assert.deepEqual(replaced.cells, { [String(a.id)]: { v: 'x' }, [String(b.id)]: { v: 1 } });
  assert.equal(takeFreshCells(replaced.cells), true);
  // taken once: a later save of the same object copies it
  assert.equal(takeFreshCells(replaced.cells), false);
  assert.equal(takeFreshCells(existing), false);
  // a cell the row did not have, or one cleared: the copy's shape changed
  const added = parseRowCells(cols, [{ columnId: b.id, value: 2 }], { [String(a.id)]: { v: 'old' } });
  assert.deepEqual(added.cells, { [String(a.id)]: { v: 'old' }, [String(b.id)]: { v: 2 } });
  assert.equal(takeFreshCells(added.cells), false);
  const cleared = parseRowCells(cols, [{ columnId: b.id, value: '' }], existing);
  assert.deepEqual(cleared.cells, { [String(a.id)]: { v: 'old' } });
  assert.equal(takeFreshCells(cleared.cells), false);
  // a new row's cells (no existing) are not an update's copy
  assert.equal(takeFreshCells(parseRowCells(cols, [{ columnId: a.id, value: 'x' }], undefined).cells), false);
});

test('1038 value must be number, string or boolean; 1130 value and objectValue', () => {
  const c = col('TEXT_NUMBER');
  assert.throws(() => write(c, { value: { a: 1 } }), code(1038));
  assert.throws(() => write(c, { value: [1] }), code(1038));
  assert.throws(() => write(c, { value: 1, objectValue: 1 }), code(1130));
});

test('1046 system columns refuse writes; system values presented', () => {
  const c = col('DATETIME', { systemColumnType: 'CREATED_DATE' });
  assert.throws(() => write(c, { value: '2024-01-01' }), code(1046));
  const v = systemCellValue(c, { createdAt: Date.UTC(2024, 0, 2, 3, 4, 5), modifiedAt: 0 });
  assert.deepEqual(presentCell(c, { v: v! }), { columnId: c.id, value: '2024-01-02T03:04:05Z' });
  const by = col('CONTACT_LIST', { systemColumnType: 'CREATED_BY' });
  const bv = systemCellValue(by, { createdAt: 0, modifiedAt: 0, createdBy: { email: 'o@example.com', name: 'Owner' } });
  assert.deepEqual(presentCell(by, { v: bv! }), { columnId: by.id, value: 'o@example.com', displayValue: 'Owner' });
});

test('1039 locked column for non-admins', () => {
  const c = col('TEXT_NUMBER', { locked: true });
  assert.throws(() => write(c, { value: 1 }), code(1039));
  assert.doesNotThrow(() => write(c, { value: 1 }, { isSheetAdmin: true }));
});

test('hyperlink rules 1109, 1111, 1112, 1113, 1114, 1117 and derived values', () => {
  const c = col('TEXT_NUMBER');
  assert.throws(() => write(c, { hyperlink: { url: 'https://x.test' }, linkInFromCell: { sheetId: 1, rowId: 2, columnId: 3 } }), code(1109));
  assert.throws(() => write(c, { hyperlink: { sheetId: 1, reportId: 2 } }), code(1111));
  assert.throws(() => write(c, { hyperlink: { sheetId: 1, url: 'https://x.test' } }), code(1112));
  assert.throws(() => write(c, { value: 5, hyperlink: { url: 'https://x.test' } }), code(1113));
  assert.throws(() => write(c, { hyperlink: {} }), code(1117));
  assert.throws(() => write(c, { hyperlink: { sheetId: 9 } }, { hyperlinkTarget: () => undefined }), code(1114));
  assert.deepEqual(roundTrip(c, { hyperlink: { url: 'https://x.test' } }), { value: 'https://x.test', displayValue: 'https://x.test', hyperlink: { url: 'https://x.test' } });
  assert.deepEqual(roundTrip(c, { value: 'Go', hyperlink: { url: 'https://x.test' } }), { value: 'Go', displayValue: 'Go', hyperlink: { url: 'https://x.test' } });
  assert.deepEqual(roundTrip(c, { hyperlink: { sheetId: 9 } }, { hyperlinkTarget: () => ({ name: 'Plan', permalink: 'https://app/s/9' }) }), {
    value: 'Plan', displayValue: 'Plan', hyperlink: { sheetId: 9, url: 'https://app/s/9' },
  });
});

test('cell link rules 1110, 1116, 1032 on new rows', () => {
  const c = col('TEXT_NUMBER');
  const link = { sheetId: 5, rowId: 6, columnId: 7 };
  assert.throws(() => write(c, { value: 1, linkInFromCell: link }), code(1110));
  assert.throws(() => write(c, { linkInFromCell: link }, { sheetId: 5 }), code(1116));
  assert.throws(() => write(c, { linkInFromCell: link }, { isNewRow: true }), code(1032));
  const r = parseCellWrite(c, { columnId: c.id, linkInFromCell: link }, { v: 'old' }, { sheetId: 1 });
  assert.equal(r.linkWrite, true);
  assert.deepEqual(r.cell?.li, { ...link, status: 'OK' });
});

test('image rules 1163, 1164, 1165, 1161', () => {
  const c = col('TEXT_NUMBER');
  assert.throws(() => write(c, { value: 1, image: { id: 'img' } }), code(1163));
  assert.throws(() => write(c, { image: { id: 'img' } }, { imagesEnabled: false }), code(1164));
  assert.throws(() => write(c, { image: { id: 'img', altText: 'a'.repeat(101) } }), code(1165));
  assert.throws(() => write(c, { image: { altText: 'hello' } }), code(1161));
  assert.deepEqual(write(c, { image: { altText: 'hello' } }, {}, { img: { id: 'img' } }), { img: { id: 'img', altText: 'hello' } });
  assert.deepEqual(write(c, { image: { id: 'img', altText: 'a'.repeat(100) } })?.img?.altText?.length, 100);
});

test('formula must start with = (1162)', () => {
  const c = col('TEXT_NUMBER');
  assert.throws(() => write(c, { formula: 'SUM(1)' }), code(1162));
  assert.deepEqual(write(c, { formula: '=1+1' }), { fx: '=1+1' });
});

test('overrideValidation: admins only (1212); validation failures 1235', () => {
  const c = col('PICKLIST', { options: ['A', 'B'], validation: true });
  assert.throws(() => write(c, { value: 'Z', strict: false }), code(1235));
  assert.throws(() => write(c, { value: 'Z', strict: false, overrideValidation: true }), code(1212));
  assert.equal(write(c, { value: 'Z', strict: false, overrideValidation: true }, { isSheetAdmin: true })?.v, 'Z');
  assert.equal(write(c, { value: 'Z', strict: false }, { isSheetAdmin: true, overrideValidation: true })?.v, 'Z');
  // overrideValidation does not override strict parsing
  assert.throws(() => write(c, { value: 'Z', overrideValidation: true }, { isSheetAdmin: true }), code(1042));
});

test('format travels with written cells; baseline for blank cells', () => {
  const c = col('TEXT_NUMBER');
  assert.deepEqual(write(c, { value: 1, format: ',,1' }), { v: 1, f: ',,1,,,,,,,,,,,,,,' });
  assert.throws(() => write(c, { value: 1, format: ',,9' }), code(1031));
  assert.deepEqual(write(c, { value: 1 }, { rowFormat: ',,,1,,,,,,,,,,,,,' }), { v: 1, f: ',,,1,,,,,,,,,,,,,' });
  assert.deepEqual(write(c, { value: 2 }, { rowFormat: ',,,1,,,,,,,,,,,,,' }, { v: 1 }), { v: 2 }, 'a cell with a value keeps its format');
  const out = presentCell(c, { v: 1, f: ',,1,,,,,,,,,,,,,,' }, { includeFormat: true });
  assert.equal(out.format, ',,1,,,,,,,,,,,,,,');
  assert.equal(presentCell(c, { v: 1, f: ',,1,,,,,,,,,,,,,,' }).format, undefined);
});

test('writing over an existing cell leaves the existing cell (and what it holds) unchanged', () => {
  const c = col('MULTI_CONTACT_LIST');
  const existing: StoredCell = { v: { mc: [{ email: 'a@example.org', name: 'A' }] }, f: ',,1,,,,,,,,,,,,,,', h: { url: 'https://example.org' } };
  const before = JSON.stringify(existing);
  const kept = write(c, { format: ',,,1,,,,,,,,,,,,,' }, {}, existing)!;
  assert.equal(JSON.stringify(existing), before);
  assert.deepEqual(kept.v, existing.v);
  assert.notEqual(kept.v, existing.v);
  assert.notEqual((kept.v as { mc: unknown[] }).mc[0], (existing.v as { mc: unknown[] }).mc[0]);
  assert.notEqual(kept.h, existing.h);
  const t = col('TEXT_NUMBER');
  const old: StoredCell = { v: 'x', h: { url: 'https://example.org/a' } };
  const next = write(t, { value: 'y' }, {}, old)!;
  assert.deepEqual(old, { v: 'x', h: { url: 'https://example.org/a' } });
  assert.equal(next.v, 'y');
  assert.deepEqual(next.h, old.h);
  assert.notEqual(next.h, old.h);
});
