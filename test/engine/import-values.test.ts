import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { csvValue, importCell, importCellJson } from '../../src/engine/imports.ts';
import type { ColumnType } from '../../src/engine/columns.ts';

// A CSV field written YYYY-MM-DD is a date when it names a real day, as Date.UTC reads it.
function dayByDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  return new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))).toISOString().slice(0, 10) === s;
}

const digits = (n: number) => fc.array(fc.constantFrom(...'0123456789'), { minLength: n, maxLength: n }).map((a) => a.join(''));

test('csvValue: a YYYY-MM-DD field is a date exactly when it names a real day', () => {
  const dayish = fc.tuple(digits(4), digits(2), digits(2)).map(([y, m, d]) => `${y}-${m}-${d}`);
  fc.assert(fc.property(fc.oneof(dayish, fc.string({ maxLength: 12 })), (s) => {
    const v = csvValue(s);
    const isDate = typeof v === 'object' && v !== null && 'date' in v;
    if (dayByDate(s.trim()) && s.trim() === s) assert.deepEqual(v, { date: s });
    else assert.equal(isDate && !dayByDate(s.trim()), false, s);
  }), { numRuns: 20_000 });
  assert.deepEqual(csvValue('2024-02-29'), { date: '2024-02-29' });
  assert.equal(csvValue('2023-02-29'), '2023-02-29');
  assert.equal(csvValue('1900-02-29'), '1900-02-29');
  assert.deepEqual(csvValue('2000-02-29'), { date: '2000-02-29' });
  assert.equal(csvValue('2026-13-01'), '2026-13-01');
  assert.equal(csvValue('0099-01-01'), '0099-01-01');
});

test('importCellJson is the JSON of importCell, in every column type, for every kind of value', () => {
  const value = fc.oneof(
    fc.constant(null),
    fc.boolean(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.integer(),
    fc.string({ maxLength: 20 }),
    fc.string({ minLength: 4001, maxLength: 4010 }),
    fc.date({ noInvalidDate: true }).map((d) => ({ date: d.toISOString().slice(0, 10) })),
  );
  const type = fc.constantFrom('TEXT_NUMBER', 'DATE', 'CHECKBOX', 'PICKLIST', 'CONTACT_LIST') as fc.Arbitrary<ColumnType>;
  fc.assert(fc.property(type, value, (t, v) => {
    const cell = importCell(t, v);
    assert.equal(importCellJson(t, v), cell === undefined ? undefined : JSON.stringify(cell));
  }), { numRuns: 5_000 });
});
