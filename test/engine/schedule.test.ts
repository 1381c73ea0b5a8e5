/**
 * Project scheduling (engine/calendar.ts, engine/schedule.ts): working-time arithmetic over a
 * sheet's calendar, end dates from start and duration, starts from predecessors of every type
 * with lags, parent roll-up, invalid (cyclic) predecessors and the critical path.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { durationLength, durationOfWork, projectSettingsOf, WorkCalendar } from '../../src/engine/calendar.ts';
import { projectColumnsOf, scheduleProject, type ProjectColumns, type ScheduleRow } from '../../src/engine/schedule.ts';
import { parseDuration, formatDuration } from '../../src/engine/duration.ts';
import { formatProjectDateTime } from '../../src/engine/dates.ts';
import { predecessorKey, type StoredPredecessor } from '../../src/engine/predecessors.ts';
import type { StoredRowCells } from '../../src/engine/cells.ts';

const at = (s: string) => Date.parse(`${s}Z`);
const show = (ms: number) => formatProjectDateTime(ms);
const du = (s: string) => parseDuration(s, true)!;
const week = new WorkCalendar();

// 2026-01-05 is a Monday
test('working calendar: windows of lengthOfDay hours from 08:00 on working days', () => {
  assert.equal(show(week.nextWorkInstant(at('2026-01-05T08:00:00'))), '2026-01-05T08:00:00');
  assert.equal(show(week.nextWorkInstant(at('2026-01-05T16:00:00'))), '2026-01-06T08:00:00', 'the end of a window is not working time');
  assert.equal(show(week.nextWorkInstant(at('2026-01-10T10:00:00'))), '2026-01-12T08:00:00', 'Saturday: Monday morning');
  assert.equal(show(week.addWork(at('2026-01-05T08:00:00'), 3 * 8 * 3_600_000)), '2026-01-07T16:00:00');
  assert.equal(show(week.addWork(at('2026-01-08T12:00:00'), 2 * 8 * 3_600_000)), '2026-01-12T12:00:00', 'over the weekend');
  assert.equal(show(week.subtractWork(at('2026-01-12T12:00:00'), 8 * 3_600_000)), '2026-01-09T12:00:00');
  assert.equal(show(week.subtractWork(at('2026-01-07T16:00:00'), 8 * 3_600_000)), '2026-01-07T08:00:00');
  assert.equal(week.workBetween(at('2026-01-09T08:00:00'), at('2026-01-12T16:00:00')), 16 * 3_600_000);

  const sixHours = new WorkCalendar({ workingDays: ['MONDAY', 'TUESDAY', 'WEDNESDAY'], nonWorkingDays: ['2026-01-06'], lengthOfDay: 6 });
  assert.equal(sixHours.isWorkingDay(Date.UTC(2026, 0, 6) / 86_400_000), false, 'a holiday');
  assert.equal(show(sixHours.addWork(at('2026-01-05T08:00:00'), 3 * 6 * 3_600_000)), '2026-01-12T14:00:00', 'Mon, (Tue holiday) Wed, then Monday');
  assert.deepEqual(durationLength(du('1w'), sixHours), { ms: 3 * 6 * 3_600_000, elapsed: false }, 'a week is its working days');
  assert.deepEqual(durationLength(du('e1w'), sixHours), { ms: 7 * 86_400_000, elapsed: true });
  const allDay = new WorkCalendar({ lengthOfDay: 24 });
  assert.equal(show(allDay.nextWorkInstant(at('2026-01-05T03:00:00'))), '2026-01-05T03:00:00', 'a 24-hour day starts at midnight');
  assert.equal(formatDuration(durationOfWork(20 * 3_600_000, week)), '2d 4h');
  assert.equal(formatDuration(durationOfWork(0, week)), '0d');
});

test('project settings are read only from a sheet with dependencies enabled', () => {
  assert.equal(projectSettingsOf('{}'), undefined);
  assert.equal(projectSettingsOf('{"dependenciesEnabled":false}'), undefined);
  assert.deepEqual(projectSettingsOf('{"dependenciesEnabled":true,"projectSettings":{"lengthOfDay":6}}'), { lengthOfDay: 6 });
});

// a sheet: Task, Start, End, Duration, Predecessors, % Complete
const COLS: ProjectColumns = { start: 2, end: 3, duration: 4, predecessors: 5, percentComplete: 6 };

interface Spec {
  id: number;
  parent?: number;
  start?: string;
  end?: string;
  duration?: string;
  preds?: StoredPredecessor[];
  percent?: number;
}

function rowsOf(specs: readonly Spec[]): ScheduleRow[] {
  return specs.map((s) => {
    const cells: StoredRowCells = { 1: { v: `Task ${s.id}` } };
    if (s.start !== undefined) cells[2] = { v: { t: at(s.start) } };
    if (s.end !== undefined) cells[3] = { v: { t: at(s.end) } };
    if (s.duration !== undefined) cells[4] = { v: { du: du(s.duration) } };
    if (s.preds !== undefined) cells[5] = { v: { p: s.preds } };
    if (s.percent !== undefined) cells[6] = { v: s.percent };
    return { id: s.id, parentId: s.parent ?? null, cells };
  });
}

/** Each row's dates after scheduling: [start, end, duration] as text. */
function schedule(specs: readonly Spec[], cal = week, opts = {}) {
  const rows = rowsOf(specs);
  const result = scheduleProject(rows, COLS, cal, opts);
  const cells = new Map(rows.map((r) => [r.id, { ...r.cells }]));
  for (const c of result.changes) {
    const row = cells.get(c.rowId)!;
    if (c.v === undefined) delete row[String(c.columnId)];
    else row[String(c.columnId)] = { v: c.v };
  }
  const text = (id: number) => {
    const c = cells.get(id)!;
    const d = (k: number) => {
      const v = c[k]?.v;
      return v !== undefined && typeof v === 'object' && 't' in v ? show(v.t) : undefined;
    };
    const d4 = c[4]?.v;
    return [d(2), d(3), d4 !== undefined && typeof d4 === 'object' && 'du' in d4 ? formatDuration(d4.du) : undefined, c[6]?.v];
  };
  return { result, text };
}

test('end = start + duration in working time; elapsed durations ignore the calendar', () => {
  const { text } = schedule([
    { id: 1, start: '2026-01-05T08:00:00', duration: '3d' },
    { id: 2, start: '2026-01-08T08:00:00', duration: '3d' }, // Thursday: over the weekend
    { id: 3, start: '2026-01-08T08:00:00', duration: 'e3d' }, // elapsed: Thu, Fri, Sat
    { id: 4, start: '2026-01-05T08:00:00', duration: '4h' },
    { id: 5, start: '2026-01-05T08:00:00', duration: '0d' }, // milestone
    { id: 6, start: '2026-01-10T08:00:00', duration: '1d' }, // starts on a Saturday: works Monday
    { id: 7, start: '2026-01-05T08:00:00', duration: '1w 1d' },
    { id: 8, duration: '2d' }, // no start: no end
  ]);
  assert.deepEqual(text(1).slice(0, 2), ['2026-01-05T08:00:00', '2026-01-07T15:59:59']);
  assert.deepEqual(text(2).slice(0, 2), ['2026-01-08T08:00:00', '2026-01-12T15:59:59']);
  assert.deepEqual(text(3).slice(0, 2), ['2026-01-08T08:00:00', '2026-01-10T15:59:59']);
  assert.deepEqual(text(4).slice(0, 2), ['2026-01-05T08:00:00', '2026-01-05T11:59:59']);
  assert.deepEqual(text(5).slice(0, 2), ['2026-01-05T08:00:00', '2026-01-05T08:00:00']);
  assert.deepEqual(text(6).slice(0, 2), ['2026-01-10T08:00:00', '2026-01-12T15:59:59']);
  assert.deepEqual(text(7).slice(0, 2), ['2026-01-05T08:00:00', '2026-01-12T15:59:59']);
  assert.deepEqual(text(8).slice(0, 3), [undefined, undefined, '2d']);
});

test('non-working days and lengthOfDay shape the end', () => {
  const cal = new WorkCalendar({ workingDays: ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY'], nonWorkingDays: ['2026-01-06'], lengthOfDay: 6 });
  const { text } = schedule([
    { id: 1, start: '2026-01-05T08:00:00', duration: '3d' }, // Mon, (Tue holiday), Wed, Thu
    { id: 2, start: '2026-01-05T08:00:00', duration: '9h' }, // 6h Monday, 3h Wednesday
    { id: 3, start: '2026-01-05T08:00:00', duration: 'e2d' }, // elapsed: the holiday counts
  ], cal);
  assert.deepEqual(text(1).slice(0, 2), ['2026-01-05T08:00:00', '2026-01-08T13:59:59']);
  assert.deepEqual(text(2).slice(0, 2), ['2026-01-05T08:00:00', '2026-01-07T10:59:59']);
  assert.deepEqual(text(3).slice(0, 2), ['2026-01-05T08:00:00', '2026-01-06T13:59:59']);
});

test('predecessors of each type, with lags, give the start; the latest one wins', () => {
  const base = { id: 1, start: '2026-01-05T08:00:00', duration: '3d' }; // Mon..Wed
  const { text } = schedule([
    base,
    { id: 2, duration: '2d', preds: [{ rowId: 1, type: 'FS' }] }, // Thu..Fri
    { id: 3, duration: '2d', preds: [{ rowId: 1, type: 'FS', lag: du('3d') }] }, // Thu,Fri,Mon lag: Tue..Wed
    { id: 4, duration: '2d', preds: [{ rowId: 1, type: 'FS', lag: du('-1d') }] }, // overlaps a day: Wed..Thu
    { id: 5, duration: '2d', preds: [{ rowId: 1, type: 'SS', lag: du('1d') }] }, // Tue..Wed
    { id: 6, duration: '2d', preds: [{ rowId: 1, type: 'FF' }] }, // ends Wed: Tue..Wed
    { id: 7, duration: '2d', preds: [{ rowId: 1, type: 'SF' }] }, // ends when 1 starts: Thu..Fri before
    { id: 8, duration: '1d', preds: [{ rowId: 1, type: 'SS' }, { rowId: 2, type: 'FS' }] }, // after 2: Mon
    { id: 9, duration: '1d', preds: [{ rowId: 1, type: 'FS', lag: du('e2d') }] }, // 48h after Wed 16:00: Mon
  ]);
  assert.deepEqual(text(2).slice(0, 2), ['2026-01-08T08:00:00', '2026-01-09T15:59:59']);
  assert.deepEqual(text(3).slice(0, 2), ['2026-01-13T08:00:00', '2026-01-14T15:59:59']);
  assert.deepEqual(text(4).slice(0, 2), ['2026-01-07T08:00:00', '2026-01-08T15:59:59']);
  assert.deepEqual(text(5).slice(0, 2), ['2026-01-06T08:00:00', '2026-01-07T15:59:59']);
  assert.deepEqual(text(6).slice(0, 2), ['2026-01-06T08:00:00', '2026-01-07T15:59:59']);
  assert.deepEqual(text(7).slice(0, 2), ['2026-01-01T08:00:00', '2026-01-02T15:59:59']);
  assert.deepEqual(text(8).slice(0, 2), ['2026-01-12T08:00:00', '2026-01-12T15:59:59']);
  assert.deepEqual(text(9).slice(0, 2), ['2026-01-12T08:00:00', '2026-01-12T15:59:59']);
});

test('a change cascades down a chain of successors', () => {
  const chain = (firstDuration: string) => schedule([
    { id: 1, start: '2026-01-05T08:00:00', duration: firstDuration },
    { id: 2, duration: '2d', preds: [{ rowId: 1, type: 'FS' }] },
    { id: 3, duration: '1d', preds: [{ rowId: 2, type: 'FS' }] },
  ]).text;
  assert.deepEqual(chain('1d')(3).slice(0, 2), ['2026-01-08T08:00:00', '2026-01-08T15:59:59']);
  assert.deepEqual(chain('4d')(3).slice(0, 2), ['2026-01-13T08:00:00', '2026-01-13T15:59:59']);
});

test('parents roll up their children; a parent\'s predecessors drive its children', () => {
  const { text } = schedule([
    { id: 1, start: '2026-01-05T08:00:00', duration: '2d', percent: 1 },
    { id: 10, duration: '9d', start: '2020-01-01T08:00:00' }, // a parent: what it held is replaced
    { id: 11, parent: 10, duration: '2d', preds: [{ rowId: 1, type: 'FS' }], percent: 0.5 }, // Wed..Thu
    { id: 12, parent: 10, duration: '3d', preds: [{ rowId: 11, type: 'FS' }] }, // Fri..Tue
    { id: 20, preds: [{ rowId: 10, type: 'FS' }] }, // a parent with predecessors
    { id: 21, parent: 20, duration: '1d' }, // starts after row 10: Wed 14th
    { id: 22, parent: 20, duration: '1d', start: '2026-01-20T08:00:00' },
  ]);
  assert.deepEqual(text(10), ['2026-01-07T08:00:00', '2026-01-13T15:59:59', '5d', 0.2]);
  assert.deepEqual(text(21).slice(0, 2), ['2026-01-14T08:00:00', '2026-01-14T15:59:59']);
  assert.deepEqual(text(22).slice(0, 2), ['2026-01-14T08:00:00', '2026-01-14T15:59:59'], 'driven by the parent\'s predecessor');
  assert.deepEqual(text(20).slice(0, 3), ['2026-01-14T08:00:00', '2026-01-14T15:59:59', '1d']);
});

test('cycles, unknown rows and kin make predecessors invalid; those rows keep their own start', () => {
  const { result, text } = schedule([
    { id: 1, start: '2026-01-05T08:00:00', duration: '1d', preds: [{ rowId: 3, type: 'FS' }] },
    { id: 2, start: '2026-01-05T08:00:00', duration: '1d', preds: [{ rowId: 1, type: 'FS' }] },
    { id: 3, start: '2026-01-05T08:00:00', duration: '1d', preds: [{ rowId: 2, type: 'FS' }] },
    { id: 4, start: '2026-01-05T08:00:00', duration: '1d', preds: [{ rowId: 999, type: 'FS' }, { rowId: 4, type: 'SS' }] },
    { id: 5, duration: '1d', preds: [{ rowId: 4, type: 'FS' }] },
    // a parent whose predecessor waits for its own child: a cycle through the hierarchy
    { id: 6, preds: [{ rowId: 8, type: 'FS' }] },
    { id: 7, parent: 6, start: '2026-01-05T08:00:00', duration: '1d' },
    { id: 8, duration: '1d', preds: [{ rowId: 7, type: 'FS' }] },
  ]);
  for (const [r, p] of [[1, 3], [2, 1], [3, 2], [4, 999], [4, 4], [6, 8], [8, 7]]) {
    assert.ok(result.invalid.has(predecessorKey(r!, p!)), `${r} > ${p} invalid`);
  }
  assert.ok(!result.invalid.has(predecessorKey(5, 4)));
  assert.deepEqual(text(1).slice(0, 2), ['2026-01-05T08:00:00', '2026-01-05T15:59:59']);
  assert.deepEqual(text(5).slice(0, 2), ['2026-01-06T08:00:00', '2026-01-06T15:59:59']);
  assert.deepEqual(text(7).slice(0, 2), ['2026-01-05T08:00:00', '2026-01-05T15:59:59']);
});

test('a duration cleared takes the end along; a start and end without duration give one', () => {
  const specs: Spec[] = [
    { id: 1, start: '2026-01-05T08:00:00', end: '2026-01-07T15:59:59' },
    { id: 2, start: '2026-01-05T08:00:00', end: '2026-01-09T08:00:00' }, // an end written as a bare day counts its day
    { id: 3, start: '2026-01-05T08:00:00', end: '2026-01-07T15:59:59' },
    { id: 4, end: '2026-01-07T15:59:59' }, // no start: no end
  ];
  const { text } = schedule(specs, week, { durationCleared: new Set([3]) });
  assert.deepEqual(text(1).slice(0, 3), ['2026-01-05T08:00:00', '2026-01-07T15:59:59', '3d']);
  assert.deepEqual(text(2).slice(0, 3), ['2026-01-05T08:00:00', '2026-01-09T15:59:59', '5d']);
  assert.deepEqual(text(3).slice(0, 3), ['2026-01-05T08:00:00', undefined, undefined]);
  assert.deepEqual(text(4).slice(0, 3), [undefined, undefined, undefined]);
});

test('the critical path runs back from the last finish through the driving predecessors', () => {
  const { result } = schedule([
    { id: 1, start: '2026-01-05T08:00:00', duration: '2d' },
    { id: 2, start: '2026-01-05T08:00:00', duration: '1d' },
    { id: 3, duration: '3d', preds: [{ rowId: 1, type: 'FS' }, { rowId: 2, type: 'FS' }] }, // 1 drives
    { id: 4, duration: '1d', preds: [{ rowId: 2, type: 'FS' }] }, // finishes early: not critical
    { id: 5, duration: '1d', preds: [{ rowId: 3, type: 'FS', lag: du('-1d') }] }, // negative lag: ends with 3
  ]);
  assert.deepEqual([...result.criticalRows].sort(), [1, 3, 5]);
  assert.ok(result.critical.has(predecessorKey(3, 1)));
  assert.ok(result.critical.has(predecessorKey(5, 3)));
  assert.ok(!result.critical.has(predecessorKey(3, 2)));
  assert.ok(!result.critical.has(predecessorKey(4, 2)));
});

test('a schedule already computed computes to no change', () => {
  const rows = rowsOf([
    { id: 1, start: '2026-01-05T08:00:00', duration: '2d' },
    { id: 2, duration: '2d', preds: [{ rowId: 1, type: 'FS' }] },
  ]);
  const first = scheduleProject(rows, COLS, week);
  assert.ok(first.changes.length > 0);
  for (const c of first.changes) {
    const row = rows.find((r) => r.id === c.rowId)!;
    row.cells = { ...row.cells, [String(c.columnId)]: { v: c.v! } };
  }
  assert.deepEqual(scheduleProject(rows, COLS, week).changes, []);
});

test('the schedule columns come from the Gantt tags, or from the project types of an untagged sheet', () => {
  const tagged = projectColumnsOf([
    { id: 1, type: 'TEXT_NUMBER' },
    { id: 2, type: 'ABSTRACT_DATETIME', tags: ['GANTT_END_DATE'] },
    { id: 3, type: 'ABSTRACT_DATETIME', tags: ['CALENDAR_START_DATE', 'GANTT_START_DATE'] },
    { id: 4, type: 'DURATION', tags: ['GANTT_DURATION'] },
    { id: 5, type: 'TEXT_NUMBER', tags: ['GANTT_PERCENT_COMPLETE'] },
  ]);
  assert.deepEqual(tagged, { start: 3, end: 2, duration: 4, percentComplete: 5 });
  assert.deepEqual(projectColumnsOf([
    { id: 1, type: 'TEXT_NUMBER' }, { id: 2, type: 'ABSTRACT_DATETIME' }, { id: 3, type: 'ABSTRACT_DATETIME' },
    { id: 4, type: 'DURATION' }, { id: 5, type: 'PREDECESSOR' },
  ]), { start: 2, end: 3, duration: 4, predecessors: 5 });
  assert.equal(projectColumnsOf([{ id: 1, type: 'TEXT_NUMBER' }]), undefined);
});

test('property: every plan, scheduled and saved, schedules to itself (no change, the same invalid edges and critical path)', () => {
  const day = fc.constantFrom('2026-01-02', '2026-01-03', '2026-01-05', '2026-01-06', '2026-01-09', '2026-01-12');
  const time = fc.constantFrom('T00:00:00', 'T08:00:00', 'T11:30:00', 'T15:59:59', 'T16:00:00', 'T23:59:59');
  const instant = fc.tuple(day, time).map(([d, t]) => `${d}${t}`);
  const duration = fc.constantFrom('0d', '1d', '2d', '4h', '1d 4h', 'e3d', 'e12h', '1w', '30m');
  const lag = fc.option(fc.constantFrom('1d', '-1d', 'e2d', '4h', '-4h'), { nil: undefined });
  const plan = fc.integer({ min: 1, max: 8 }).chain((n) =>
    fc.tuple(
      ...Array.from({ length: n }, (_, i) =>
        fc.record({
          parent: fc.option(fc.integer({ min: 1, max: Math.max(1, i) }), { nil: undefined }),
          start: fc.option(instant, { nil: undefined }),
          end: fc.option(instant, { nil: undefined }),
          duration: fc.option(duration, { nil: undefined }),
          preds: fc.array(fc.record({ rowId: fc.integer({ min: 1, max: n }), type: fc.constantFrom<StoredPredecessor['type']>('FS', 'SS', 'FF', 'SF'), lag }), { maxLength: 2 }),
          percent: fc.option(fc.constantFrom(0, 0.5, 1), { nil: undefined }),
        }),
      ),
    ).map((rs) =>
      rs.map((r, i): Spec => {
        const s: Spec = { id: i + 1 };
        if (r.parent !== undefined && i > 0) s.parent = r.parent;
        if (r.start !== undefined) s.start = r.start;
        if (r.end !== undefined) s.end = r.end;
        if (r.duration !== undefined) s.duration = r.duration;
        if (r.preds.length > 0) s.preds = r.preds.map((p) => (p.lag === undefined ? { rowId: p.rowId, type: p.type } : { rowId: p.rowId, type: p.type, lag: du(p.lag) }));
        if (r.percent !== undefined) s.percent = r.percent;
        return s;
      }),
    ),
  );
  const calendars = fc.constantFrom(
    week,
    new WorkCalendar({ nonWorkingDays: ['2026-01-06'], lengthOfDay: 24 }),
    new WorkCalendar({ workingDays: ['MONDAY', 'WEDNESDAY', 'FRIDAY', 'SATURDAY'], lengthOfDay: 10 }),
  );
  fc.assert(
    fc.property(plan, calendars, fc.array(fc.integer({ min: 1, max: 8 }), { maxLength: 3 }), (specs, cal, cleared) => {
      const rows = rowsOf(specs);
      // rows whose duration the write cleared (their end goes with it)
      const first = scheduleProject(rows, COLS, cal, { durationCleared: new Set(cleared) });
      for (const c of first.changes) {
        const row = rows.find((r) => r.id === c.rowId)!;
        const cells = { ...row.cells };
        if (c.v === undefined) delete cells[String(c.columnId)];
        else cells[String(c.columnId)] = { v: c.v };
        row.cells = cells;
      }
      const again = scheduleProject(rows, COLS, cal);
      assert.deepEqual(again.changes, []);
      assert.deepEqual([...again.invalid].sort(), [...first.invalid].sort());
      assert.deepEqual([...again.critical].sort(), [...first.critical].sort());
      assert.deepEqual([...again.criticalRows].sort(), [...first.criticalRows].sort());
    }),
    { numRuns: 3000 },
  );
});
