import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { nextSend, parseSchedule, type Schedule } from '../../src/engine/schedules.ts';

const NOW = Date.parse('2026-11-24T12:00:00Z'); // a Tuesday
const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString().replace(/\.000Z$/, 'Z'));

/** The first `n` sends from NOW. */
function sends(raw: Record<string, unknown>, n: number, from = NOW): Array<string | undefined> {
  const s = parseSchedule(raw, NOW);
  const out: Array<string | undefined> = [];
  let at: number | undefined = Math.max(from, s.startAt - 1);
  for (let i = 0; i < n && at !== undefined; i++) {
    at = nextSend(s, at);
    out.push(iso(at));
  }
  return out;
}

test('ONCE sends at startAt and never again', () => {
  assert.deepEqual(sends({ type: 'ONCE', startAt: '2026-12-01T09:00:00Z' }, 2), ['2026-12-01T09:00:00Z', undefined]);
});

test('DAILY every n days, or on weekdays only', () => {
  assert.deepEqual(sends({ type: 'DAILY', startAt: '2026-11-20T08:00:00Z', repeatEvery: 3 }, 3), ['2026-11-26T08:00:00Z', '2026-11-29T08:00:00Z', '2026-12-02T08:00:00Z']);
  assert.deepEqual(sends({ type: 'DAILY', startAt: '2026-11-27T08:00:00Z', dayDescriptors: ['WEEKDAY'] }, 3), ['2026-11-27T08:00:00Z', '2026-11-30T08:00:00Z', '2026-12-01T08:00:00Z']);
});

test('WEEKLY on the named days, every n weeks; startAt\'s weekday by default', () => {
  assert.deepEqual(sends({ type: 'WEEKLY', startAt: '2026-11-22T09:00:00Z', dayDescriptors: ['MONDAY', 'FRIDAY'], repeatEvery: 2 }, 4),
    ['2026-11-27T09:00:00Z', '2026-12-07T09:00:00Z', '2026-12-11T09:00:00Z', '2026-12-21T09:00:00Z']);
  assert.deepEqual(sends({ type: 'WEEKLY', startAt: '2026-11-25T09:00:00Z' }, 2), ['2026-11-25T09:00:00Z', '2026-12-02T09:00:00Z']);
});

test('MONTHLY on a day of the month, or on the first/last kind of day', () => {
  assert.deepEqual(sends({ type: 'MONTHLY', startAt: '2026-11-01T07:00:00Z', dayOfMonth: 15 }, 2), ['2026-12-15T07:00:00Z', '2027-01-15T07:00:00Z']);
  assert.deepEqual(sends({ type: 'MONTHLY', startAt: '2026-11-01T07:00:00Z', dayOrdinal: 'FIRST', dayDescriptors: ['MONDAY'] }, 2), ['2026-12-07T07:00:00Z', '2027-01-04T07:00:00Z']);
  assert.deepEqual(sends({ type: 'MONTHLY', startAt: '2026-11-01T07:00:00Z', dayOrdinal: 'LAST', dayDescriptors: ['WEEKDAY'] }, 2), ['2026-11-30T07:00:00Z', '2026-12-31T07:00:00Z']);
  assert.deepEqual(sends({ type: 'MONTHLY', startAt: '2026-11-01T07:00:00Z', dayOrdinal: 'SECOND', dayDescriptors: ['WEEKEND'], repeatEvery: 2 }, 2), ['2027-01-03T07:00:00Z', '2027-03-07T07:00:00Z']);
});

test('YEARLY on startAt\'s date', () => {
  assert.deepEqual(sends({ type: 'YEARLY', startAt: '2020-03-10T10:00:00Z', repeatEvery: 2 }, 2), ['2028-03-10T10:00:00Z', '2030-03-10T10:00:00Z']);
});

test('days are counted in startAt\'s offset; endAt ends the schedule', () => {
  // Monday 00:00 at +02:00 is Sunday 22:00 UTC
  assert.deepEqual(sends({ type: 'WEEKLY', startAt: '2026-11-30T00:00:00+02:00', dayDescriptors: ['MONDAY'], endAt: '2026-12-15T00:00:00+02:00' }, 3),
    ['2026-11-29T22:00:00Z', '2026-12-06T22:00:00Z', '2026-12-13T22:00:00Z']);
  assert.deepEqual(sends({ type: 'DAILY', startAt: '2026-11-25T09:00:00Z', endAt: '2026-11-27T00:00:00Z' }, 3), ['2026-11-25T09:00:00Z', '2026-11-26T09:00:00Z', undefined]);
});

test('bad schedules are refused with their codes', () => {
  const code = (raw: unknown) => {
    try {
      parseSchedule(raw, NOW);
      return 0;
    } catch (e) {
      return (e as { code?: number; errorCode?: number }).code ?? (e as { errorCode?: number }).errorCode ?? -1;
    }
  };
  assert.notEqual(code({ type: 'DAILY', startAt: '2026-11-25T09:00:00Z', endAt: '2026-11-25T12:00:00Z' }), 0, 'endAt must be midnight');
  assert.notEqual(code({ type: 'DAILY', startAt: '2026-11-25T09:00:00Z', endAt: '2026-12-25T00:00:00+01:00' }), 0, 'endAt in startAt\'s offset');
  assert.notEqual(code({ type: 'MONTHLY', startAt: '2026-11-25T09:00:00Z', dayOfMonth: 29 }), 0);
  assert.notEqual(code({ type: 'DAILY', startAt: '2026-02-30T09:00:00Z' }), 0);
  assert.notEqual(code({ type: 'ONCE', startAt: NOW }), 0);
  assert.equal(code({ type: 'DAILY', startAt: NOW - (NOW % 3_600_000) }), 0, 'a number is UTC epoch ms');
});

test('every send is after the previous one, on the hour, and a send day (property)', () => {
  const types = fc.constantFrom<Schedule['type']>('DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY');
  fc.assert(fc.property(types, fc.integer({ min: 1, max: 5 }), fc.integer({ min: 0, max: 400 }), fc.integer({ min: 0, max: 23 }), (type, every, startDays, hour) => {
    const start = Date.UTC(2026, 0, 1) + startDays * 86_400_000 + hour * 3_600_000;
    const s = parseSchedule({ type, startAt: start, repeatEvery: every }, NOW);
    let at = NOW;
    for (let i = 0; i < 5; i++) {
      const next = nextSend(s, at);
      assert.ok(next !== undefined && next > at && next >= s.startAt);
      assert.equal(new Date(next).getUTCHours(), hour);
      at = next;
    }
  }), { numRuns: 60 });
});
