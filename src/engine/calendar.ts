/**
 * The working calendar of a project sheet (projectSettings): which weekdays are worked, which
 * dates are holidays, how many hours a working day has; and working-time arithmetic over it.
 *
 * Project dates are ABSTRACT_DATETIME instants without a time zone, kept as epoch ms read as
 * UTC (engine/dates.ts). Each working day has one window of work, `lengthOfDay` hours long,
 * starting at 08:00 (the hour a bare day written to a project date gets, values.ts
 * PROJECT_DAY_START_HOUR), or earlier when a longer day would not end by midnight (a 24-hour day
 * runs from 00:00). Work is counted only inside windows; an elapsed duration counts clock time.
 *
 * Windows are half-open, [start, end): the end of a day's window is not a working instant, so a
 * task finishing at 16:00 has its successor start at 08:00 of the next working day.
 */
import type { Duration } from './duration.ts';
import { PROJECT_DAY_START_HOUR } from './values.ts';

export const DAY_MS = 86_400_000;
export const HOUR_MS = 3_600_000;

/** Weekday names as projectSettings.workingDays has them, by Date.getUTCDay() (0 = Sunday). */
export const WEEKDAY_NAMES = ['SUNDAY', 'MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY'] as const;

/** A sheet's projectSettings (API names). */
export interface ProjectSettings {
  workingDays?: readonly string[];
  nonWorkingDays?: readonly string[];
  lengthOfDay?: number;
}

export const DEFAULT_WORKING_DAYS: readonly string[] = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY'];
export const DEFAULT_LENGTH_OF_DAY = 8;

export class WorkCalendar {
  /** Worked weekdays by getUTCDay(). */
  private readonly weekdays: readonly boolean[];
  /** Holidays: day numbers (days since 1970-01-01). */
  private readonly holidays: ReadonlySet<number>;
  /** Offset of the working window from midnight, and its length (ms). */
  readonly windowStart: number;
  readonly dayMs: number;
  /** Working days in a week (what a duration's week is worth). */
  readonly daysPerWeek: number;

  constructor(settings: ProjectSettings = {}) {
    const names = settings.workingDays ?? DEFAULT_WORKING_DAYS;
    let days = WEEKDAY_NAMES.map((n) => names.includes(n));
    // a week with no working day would have no working time at all: every day counts instead
    if (!days.some(Boolean)) days = days.map(() => true);
    this.weekdays = days;
    this.daysPerWeek = days.filter(Boolean).length;
    const hours = settings.lengthOfDay !== undefined && settings.lengthOfDay > 0 && settings.lengthOfDay <= 24 ? settings.lengthOfDay : DEFAULT_LENGTH_OF_DAY;
    this.dayMs = Math.round(hours * HOUR_MS);
    this.windowStart = Math.min(PROJECT_DAY_START_HOUR * HOUR_MS, DAY_MS - this.dayMs);
    const holidays = new Set<number>();
    for (const d of settings.nonWorkingDays ?? []) {
      const ms = Date.parse(`${d}T00:00:00Z`);
      if (Number.isFinite(ms)) holidays.add(Math.floor(ms / DAY_MS));
    }
    this.holidays = holidays;
  }

  /** Whether day number `day` (days since 1970-01-01) is a working day. */
  isWorkingDay(day: number): boolean {
    // 1970-01-01 was a Thursday (getUTCDay 4)
    return this.weekdays[(((day + 4) % 7) + 7) % 7]! && !this.holidays.has(day);
  }

  private workStart(day: number): number {
    return day * DAY_MS + this.windowStart;
  }

  /**
   * The first working instant at or after `t`: `t` itself inside a working window, else the
   * start of the next window. A task starts there.
   */
  nextWorkInstant(t: number): number {
    let day = Math.floor(t / DAY_MS);
    for (let i = 0; i < MAX_DAYS; i++, day++) {
      if (!this.isWorkingDay(day)) continue;
      const s = this.workStart(day);
      if (t < s) return s;
      if (t < s + this.dayMs) return t;
    }
    return t;
  }

  /**
   * `t` moved forward by `work` ms of working time. The result may be the end of a window (work
   * that fills a day up finishes that day, not at the start of the next one).
   */
  addWork(t: number, work: number): number {
    if (work < 0) return this.subtractWork(t, -work);
    let day = Math.floor(t / DAY_MS);
    let left = work;
    let at = t;
    for (let i = 0; i < MAX_DAYS; i++, day++) {
      if (!this.isWorkingDay(day)) continue;
      const s = this.workStart(day);
      const e = s + this.dayMs;
      const from = Math.min(Math.max(at, s), e);
      if (at > e) continue;
      const room = e - from;
      if (left <= room) return from + left;
      left -= room;
      at = e;
    }
    return at + left;
  }

  /** `t` moved back by `work` ms of working time; the result may be the start of a window. */
  subtractWork(t: number, work: number): number {
    if (work < 0) return this.addWork(t, -work);
    let day = Math.floor(t / DAY_MS);
    let left = work;
    let at = t;
    for (let i = 0; i < MAX_DAYS; i++, day--) {
      if (!this.isWorkingDay(day)) continue;
      const s = this.workStart(day);
      const e = s + this.dayMs;
      if (at < s) continue;
      const to = Math.min(at, e);
      const room = to - s;
      if (left <= room) return to - left;
      left -= room;
      at = s;
    }
    return at - left;
  }

  /** Working time (ms) between `a` and `b` (negative when b is before a). */
  workBetween(a: number, b: number): number {
    if (b < a) return -this.workBetween(b, a);
    let sum = 0;
    const last = Math.floor(b / DAY_MS);
    for (let day = Math.floor(a / DAY_MS); day <= last; day++) {
      if (!this.isWorkingDay(day)) continue;
      const s = this.workStart(day);
      const from = Math.max(a, s);
      const to = Math.min(b, s + this.dayMs);
      if (to > from) sum += to - from;
    }
    return sum;
  }

  /**
   * The end of work finishing at `finish` as an instant of the day it belongs to: work that ends
   * at the very start of a day's window (as elapsed time may) ended the day before, at the end of
   * that day's window.
   */
  finishDay(finish: number): number {
    const day = Math.floor(finish / DAY_MS);
    if (finish - day * DAY_MS === this.windowStart && this.windowStart + this.dayMs <= DAY_MS) {
      return this.workStart(day - 1) + this.dayMs;
    }
    return finish;
  }
}

/**
 * What a duration is worth: working time (a day is lengthOfDay hours, a week the week's working
 * days), or clock time when elapsed (a day 24 hours, a week 7 days). Never negative: a lag's
 * sign is its own (`negative`).
 */
export function durationLength(du: Duration, cal: WorkCalendar): { ms: number; elapsed: boolean } {
  const elapsed = du.elapsed === true;
  const day = elapsed ? DAY_MS : cal.dayMs;
  const week = elapsed ? 7 * DAY_MS : cal.daysPerWeek * cal.dayMs;
  const ms = (du.weeks ?? 0) * week + (du.days ?? 0) * day + (du.hours ?? 0) * HOUR_MS
    + (du.minutes ?? 0) * 60_000 + (du.seconds ?? 0) * 1000 + (du.milliseconds ?? 0);
  return { ms: Math.round(ms), elapsed };
}

/**
 * A working time as a Duration: whole days of the calendar, then hours and minutes (a parent's
 * duration, or one read from a start and an end). Rounded to the minute.
 */
export function durationOfWork(work: number, cal: WorkCalendar): Duration {
  const minutes = Math.max(0, Math.round(work / 60_000));
  const perDay = Math.round(cal.dayMs / 60_000);
  const out: Duration = { objectType: 'DURATION' };
  const days = Math.floor(minutes / perDay);
  const rest = minutes - days * perDay;
  if (days > 0 || rest === 0) out.days = days;
  if (rest >= 60) out.hours = Math.floor(rest / 60);
  if (rest % 60 > 0) out.minutes = rest % 60;
  return out;
}

/** A bound on the days walked by one calculation (about 270 years): no loop runs forever. */
const MAX_DAYS = 100_000;

/**
 * projectSettings of a sheet's settings (the stored JSON text), or undefined when the sheet does
 * not have dependencies enabled. The text is looked at before it is parsed: a sheet without
 * dependencies pays a substring search.
 */
export function projectSettingsOf(settingsJson: string): ProjectSettings | undefined {
  if (!settingsJson.includes('dependenciesEnabled')) return undefined;
  const s = JSON.parse(settingsJson) as { dependenciesEnabled?: unknown; projectSettings?: ProjectSettings };
  if (s.dependenciesEnabled !== true) return undefined;
  return { ...(s.projectSettings ?? {}) };
}
