import { test } from 'node:test';
import assert from 'node:assert/strict';
import { durationToMs, formatDuration, normaliseDurationObject, parseDuration } from '../../src/engine/duration.ts';
import { allocateAutoNumbers, renderAutoNumber, validateAutoNumberFormat } from '../../src/engine/autonumber.ts';
import { EngineError } from '../../src/engine/errors.ts';

const code = (c: number) => (e: unknown): boolean => e instanceof EngineError && e.errorCode === c;

test('duration strings', () => {
  assert.deepEqual(parseDuration('4d 6h 30m'), { objectType: 'DURATION', days: 4, hours: 6, minutes: 30 });
  assert.deepEqual(parseDuration('2w'), { objectType: 'DURATION', weeks: 2 });
  assert.deepEqual(parseDuration('1.5d'), { objectType: 'DURATION', days: 1.5 });
  assert.deepEqual(parseDuration('3 days 2 hours'), { objectType: 'DURATION', days: 3, hours: 2 });
  assert.deepEqual(parseDuration('4d6h'), { objectType: 'DURATION', days: 4, hours: 6 });
  assert.deepEqual(parseDuration('e3d'), { objectType: 'DURATION', days: 3, elapsed: true });
  assert.deepEqual(parseDuration('10s 5ms'), { objectType: 'DURATION', seconds: 10, milliseconds: 5 });
  assert.deepEqual(parseDuration('-2d', true), { objectType: 'DURATION', days: 2, negative: true });
  assert.equal(parseDuration('-2d'), null, 'negative only for lags');
  for (const bad of ['', 'abc', '4', '4x', '4d 4d', 'd4', '4d,']) assert.equal(parseDuration(bad), null, bad);
});

test('duration text round trip', () => {
  for (const s of ['4d 6h 30m', '2w', '1.5d', 'e3d', '-2d 4h', '1w 2d 3h 4m 5s 6ms']) {
    assert.equal(formatDuration(parseDuration(s, true)!), s);
  }
  assert.equal(formatDuration({ objectType: 'DURATION' }), '0d');
  assert.equal(durationToMs(parseDuration('1d 1h')!), 90_000_000);
  assert.equal(normaliseDurationObject({ objectType: 'DURATION', days: -1 }), null);
  assert.equal(normaliseDurationObject({ objectType: 'DATE' }), null);
  assert.deepEqual(normaliseDurationObject({ days: 2, elapsed: true }), { objectType: 'DURATION', days: 2, elapsed: true });
});

test('auto number formats: 1084, 1088', () => {
  assert.deepEqual(validateAutoNumberFormat({ prefix: 'ID-{YYYY}-', fill: '0000', startingNumber: 5 }), { prefix: 'ID-{YYYY}-', fill: '0000', startingNumber: 5 });
  assert.throws(() => validateAutoNumberFormat({ fill: '00000000000' }), code(1084), '11 zeros');
  assert.throws(() => validateAutoNumberFormat({ fill: '0a' }), code(1084));
  assert.throws(() => validateAutoNumberFormat({ prefix: 3 }), code(1084));
  assert.throws(() => validateAutoNumberFormat({ startingNumber: -1 }), code(1084));
  assert.throws(() => validateAutoNumberFormat({ prefix: '{HH}' }), code(1084));
  assert.throws(() => validateAutoNumberFormat({ prefix: 'x'.repeat(30), fill: '0000000000', suffix: 'y' }), code(1088));
  assert.doesNotThrow(() => validateAutoNumberFormat({ prefix: 'x'.repeat(30), fill: '0000000000' }));
});

test('auto number rendering and allocation', () => {
  const at = Date.UTC(2024, 2, 7);
  assert.equal(renderAutoNumber({ prefix: 'ID-{YY}{MM}{DD}-', fill: '000' }, 7, at), 'ID-240307-007');
  assert.equal(renderAutoNumber({ suffix: '/{YYYY}' }, 12, at), '12/2024');
  assert.deepEqual(allocateAutoNumbers({ startingNumber: 100 }, undefined, 3), { numbers: [100, 101, 102], next: 103 });
  assert.deepEqual(allocateAutoNumbers({}, 7, 2), { numbers: [7, 8], next: 9 });
});
