import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { digestDue, nextFiring, dayOf } from '../../src/engine/automation.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

test('digests are due at the next full hour, midnight and Monday midnight (UTC)', () => {
  const t = Date.parse('2026-11-25T13:20:00Z'); // a Wednesday
  assert.equal(new Date(digestDue('HOURLY', t)).toISOString(), '2026-11-25T14:00:00.000Z');
  assert.equal(new Date(digestDue('DAILY', t)).toISOString(), '2026-11-26T00:00:00.000Z');
  assert.equal(new Date(digestDue('WEEKLY', t)).toISOString(), '2026-11-30T00:00:00.000Z');
  const monday = Date.parse('2026-11-30T00:00:00Z');
  assert.equal(new Date(digestDue('WEEKLY', monday)).toISOString(), '2026-12-07T00:00:00.000Z', 'strictly after');
  fc.assert(fc.property(fc.integer({ min: 0, max: 4_000_000_000_000 }), (now) => {
    for (const f of ['HOURLY', 'DAILY', 'WEEKLY'] as const) {
      const due = digestDue(f, now);
      const period = f === 'HOURLY' ? HOUR : f === 'DAILY' ? DAY : 7 * DAY;
      assert.ok(due > now && due - now <= period);
      assert.equal(due % (f === 'HOURLY' ? HOUR : DAY), 0);
      if (f === 'WEEKLY') assert.equal(new Date(due).getUTCDay(), 1);
    }
  }));
});

test('time-based triggers fire at their next time strictly after the last', () => {
  const t = Date.parse('2026-11-25T13:20:00Z');
  assert.equal(new Date(nextFiring({ type: 'DATE_REACHED', columnId: 1, offsetDays: 0, time: '09:00' }, t)!).toISOString(), '2026-11-26T09:00:00.000Z');
  assert.equal(new Date(nextFiring({ type: 'DATE_REACHED', columnId: 1, offsetDays: 0, time: '14:00' }, t)!).toISOString(), '2026-11-25T14:00:00.000Z');
  const start = Date.parse('2026-11-20T08:00:00Z');
  assert.equal(nextFiring({ type: 'SCHEDULE', startAt: start, repeat: 'NEVER' }, t), undefined);
  assert.equal(nextFiring({ type: 'SCHEDULE', startAt: t + 5, repeat: 'NEVER' }, t), t + 5);
  assert.equal(new Date(nextFiring({ type: 'SCHEDULE', startAt: start, repeat: 'WEEKLY' }, t)!).toISOString(), '2026-11-27T08:00:00.000Z');
  assert.equal(new Date(nextFiring({ type: 'SCHEDULE', startAt: start, repeat: 'HOURLY' }, t)!).toISOString(), '2026-11-25T14:00:00.000Z');
  assert.equal(nextFiring({ type: 'ROWS_ADDED' }, t), undefined);
  assert.equal(dayOf(t, -1), '2026-11-24');
});
