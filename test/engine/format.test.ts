import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  FMT, formatAfterBaselineChange, formatForWrittenCell, formatNumber, isDefaultFormat, mergeFormats,
  normaliseFormat, parseFormat, storedFormat,
} from '../../src/engine/format.ts';
import { parseLenientNumber } from '../../src/engine/numbers.ts';
import { EngineError } from '../../src/engine/errors.ts';

const code = (c: number) => (e: unknown): boolean => e instanceof EngineError && e.errorCode === c;
const D = ',,,,,,,,,,,,,,,,';

function fmt(set: Record<number, number>): string {
  const a = new Array<string>(17).fill('');
  for (const [k, v] of Object.entries(set)) a[Number(k)] = String(v);
  return a.join(',');
}

test('descriptor: 17 positions, bold + italic', () => {
  assert.equal(normaliseFormat(',,1,1,,,,,,,,,,,,,'), ',,1,1,,,,,,,,,,,,,');
  assert.deepEqual(parseFormat(',,1,1,,,,,,,,,,,,,').slice(0, 4), [null, null, 1, 1]);
  assert.equal(normaliseFormat(',,1'), ',,1,,,,,,,,,,,,,,', 'short descriptors are padded');
});

test('1031 for a bad descriptor', () => {
  assert.throws(() => parseFormat(D + ','), code(1031), 'more than 17 positions');
  assert.throws(() => parseFormat(',,2'), code(1031), 'bold has 2 options');
  assert.throws(() => parseFormat(',,x'), code(1031));
  assert.throws(() => parseFormat(',,-1'), code(1031));
  assert.throws(() => parseFormat(fmt({ 8: 42 })), code(1031), 'color table has 42 entries');
  assert.equal(normaliseFormat(fmt({ 8: 41 })), fmt({ 8: 41 }));
  assert.throws(() => parseFormat(fmt({ 12: 6 })), code(1031), 'decimalCount 0..5');
  assert.throws(() => parseFormat(5), code(1031));
});

test('default formats are not returned', () => {
  assert.equal(isDefaultFormat(D), true);
  assert.equal(isDefaultFormat(undefined), true);
  assert.equal(isDefaultFormat(fmt({ 2: 1 })), false);
  assert.equal(storedFormat(D), undefined);
  assert.equal(storedFormat(',,1'), fmt({ 2: 1 }));
});

test('merge and baseline rule 3', () => {
  assert.equal(mergeFormats(fmt({ 2: 1 }), fmt({ 3: 1 })), fmt({ 2: 1, 3: 1 }));
  assert.equal(mergeFormats(fmt({ 2: 1 }), fmt({ 2: 0 })), fmt({ 2: 0 }));
  assert.equal(mergeFormats(undefined, D), undefined);
  // blank cell receiving a value takes column then row baseline
  assert.equal(formatForWrittenCell({ wasBlank: true, columnFormat: fmt({ 2: 1 }), rowFormat: fmt({ 3: 1 }) }), fmt({ 2: 1, 3: 1 }));
  // a cell already holding a value keeps its own format
  assert.equal(formatForWrittenCell({ wasBlank: false, columnFormat: fmt({ 2: 1 }), cellFormat: fmt({ 4: 1 }) }), fmt({ 4: 1 }));
  assert.equal(formatAfterBaselineChange(fmt({ 4: 1 }), true, fmt({ 2: 1 })), fmt({ 4: 1 }));
  assert.equal(formatAfterBaselineChange(undefined, false, fmt({ 2: 1 })), fmt({ 2: 1 }));
});

test('formatNumber follows numberFormat, decimalCount, thousandsSeparator, currency', () => {
  assert.equal(formatNumber(1234.5), '1234.5');
  assert.equal(formatNumber(0.1 + 0.2), '0.3');
  assert.equal(formatNumber(1234.5678, fmt({ [FMT.numberFormat]: 2, [FMT.currency]: 22, [FMT.thousandsSeparator]: 1 })), '$1,234.57');
  assert.equal(formatNumber(1234.5678, fmt({ [FMT.numberFormat]: 2, [FMT.currency]: 9, [FMT.decimalCount]: 1 })), '€1234.6');
  assert.equal(formatNumber(-5, fmt({ [FMT.numberFormat]: 2 })), '-$5.00');
  assert.equal(formatNumber(0.125, fmt({ [FMT.numberFormat]: 3 })), '12.5%');
  assert.equal(formatNumber(0.5, fmt({ [FMT.numberFormat]: 3, [FMT.decimalCount]: 2 })), '50.00%');
  assert.equal(formatNumber(1234567, fmt({ [FMT.thousandsSeparator]: 1 })), '1,234,567');
  assert.equal(formatNumber(2.5, fmt({ [FMT.decimalCount]: 0 })), '3');
  assert.equal(formatNumber(1.005, fmt({ [FMT.decimalCount]: 2 })), '1.01');
  assert.equal(formatNumber(-0.001, fmt({ [FMT.decimalCount]: 2 })), '0.00');
  assert.equal(formatNumber(1e21), '1000000000000000000000');
});

test('lenient number parsing', () => {
  assert.deepEqual(parseLenientNumber('42'), { value: 42 });
  assert.deepEqual(parseLenientNumber('-1.5'), { value: -1.5 });
  assert.equal(parseLenientNumber('1,000')?.value, 1000);
  assert.equal(parseLenientNumber('$5,000')?.value, 5000);
  assert.equal(formatNumber(5000, parseLenientNumber('$5,000')?.format), '$5,000.00');
  assert.equal(parseLenientNumber('50%')?.value, 0.5);
  assert.equal(formatNumber(0.5, parseLenientNumber('50%')?.format), '50%');
  assert.equal(parseLenientNumber('€12.5')?.value, 12.5);
  assert.equal(parseLenientNumber('(12)')?.value, -12);
  assert.equal(parseLenientNumber('-$3')?.value, -3);
  assert.equal(parseLenientNumber('abc'), null);
  assert.equal(parseLenientNumber('1,00'), null);
  assert.equal(parseLenientNumber('12 apples'), null);
});
