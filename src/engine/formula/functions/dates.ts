/**
 * Date and time functions. Dates are whole days from 1970-01-01; date arithmetic (date + 1,
 * date - date) and time arithmetic (time + minutes, time - time) live in the evaluator's
 * operators. Working days are Monday to Friday. TIME makes a time value (values.ts).
 */
import type { Call, FnDef } from '../calls.ts';
import { toNumber } from '../coerce.ts';
import {
  dateValue, daysFromYmd, err, isDate, isError, isTime, parseIsoDate, parseTimeText, timeOfDate, timeValue, weekdayOfDays, ymdFromDays,
  type ErrorValue, type TimeFormat, type TimePrecision, type TimeValue, type Value,
} from '../values.ts';
import { cellsArg, intArg } from './helpers.ts';

/** Longest span (in days) the working-day functions walk. */
const MAX_SPAN = 1_000_000;

function dateArg(call: Call, i: number): number | ErrorValue {
  const v = call.scalar(i);
  if (isError(v)) return v;
  if (isDate(v)) return Math.floor(v.days);
  return err('#INVALID DATA TYPE');
}

function datePart(f: (days: number) => number): FnDef {
  return {
    min: 1,
    max: 1,
    impl: (c) => {
      const d = dateArg(c, 0);
      return isError(d) ? d : f(d);
    },
  };
}

/** ISO-8601 week number (weeks start on Monday; week 1 holds the year's first Thursday). */
export function isoWeek(days: number): number {
  const isoWeekday = ((weekdayOfDays(days) + 6) % 7) + 1; // Monday 1 ... Sunday 7
  const thursday = days + 4 - isoWeekday;
  const jan1 = daysFromYmd(ymdFromDays(thursday).year, 1, 1);
  return Math.floor((thursday - jan1) / 7) + 1;
}

function holidaysArg(call: Call, i: number): Set<number> | ErrorValue {
  const out = new Set<number>();
  if (!call.has(i)) return out;
  const cells = cellsArg(call, i);
  if (isError(cells)) return cells;
  for (const c of cells) {
    if (isError(c)) return c;
    if (isDate(c)) out.add(Math.floor(c.days));
  }
  return out;
}

function isWorkday(d: number, holidays: ReadonlySet<number>): boolean {
  const w = weekdayOfDays(d);
  return w !== 0 && w !== 6 && !holidays.has(d);
}

/** Working days from start to end, both included; negative when end is before start. */
export function networkDays(start: number, end: number, holidays: ReadonlySet<number>): number | ErrorValue {
  const lo = Math.min(start, end);
  const hi = Math.max(start, end);
  if (hi - lo > MAX_SPAN) return err('#INVALID VALUE');
  let n = 0;
  for (let d = lo; d <= hi; d++) if (isWorkday(d, holidays)) n++;
  return start <= end ? n : -n;
}

function networkFn(addForNonWorkingStart: boolean): FnDef {
  return {
    min: 2,
    max: 3,
    impl: (c) => {
      const s = dateArg(c, 0);
      if (isError(s)) return s;
      const e = dateArg(c, 1);
      if (isError(e)) return e;
      const h = holidaysArg(c, 2);
      if (isError(h)) return h;
      const n = networkDays(s, e, h);
      if (isError(n)) return n;
      return addForNonWorkingStart && !isWorkday(s, h) ? n + 1 : n;
    },
  };
}

/** A display argument of TIME: format 0/1, precision 1-3; undefined when omitted. */
function timeOption(call: Call, i: number, max: number): number | undefined | ErrorValue {
  if (!call.has(i)) return undefined;
  const n = toNumber(call.scalar(i));
  if (isError(n)) return n;
  return Number.isInteger(n) && n >= (max === 1 ? 0 : 1) && n <= max ? n : err('#INVALID VALUE');
}

/**
 * TIME(time_value, [format], [precision]) or TIME(hours, [minutes], [seconds], [format], [precision]).
 * time_value is time text ("8:30", "4:30 PM"), a time, or a date-time (its time of day).
 */
function timeFn(c: Call): Value {
  const first = c.scalar(0);
  if (isError(first)) return first;
  let t: TimeValue;
  let optFrom: number;
  if (typeof first === 'number') {
    // numbers: hours, minutes, seconds; format and precision only after all three
    const given = Math.min(3, c.nodes.length);
    if (c.nodes.length > 3 && (!c.has(1) || !c.has(2))) return err('#UNPARSEABLE');
    let secs = 0;
    for (let i = 0; i < given; i++) {
      const n = toNumber(c.scalar(i));
      if (isError(n)) return n;
      secs += n * [3600, 60, 1][i]!;
    }
    if (secs < 0) return err('#INVALID VALUE');
    t = timeValue(secs, 0, given as TimePrecision);
    optFrom = 3;
  } else {
    if (c.nodes.length > 3) return err('#INCORRECT ARGUMENT SET');
    if (isTime(first)) t = first;
    else if (isDate(first)) t = timeOfDate(first);
    else if (typeof first === 'string') {
      const parsed = parseTimeText(first) ?? parseIsoDate(first.trim(), true);
      if (parsed === undefined) return err('#INVALID VALUE');
      t = parsed.kind === 'time' ? parsed : timeOfDate(parsed);
    } else if (first === null) return err('#INVALID VALUE');
    else return err('#INVALID DATA TYPE');
    optFrom = 1;
  }
  const format = timeOption(c, optFrom, 1);
  if (isError(format)) return format;
  const precision = timeOption(c, optFrom + 1, 3);
  if (isError(precision)) return precision;
  // precision needs a format before it
  if (precision !== undefined && format === undefined) return err('#INCORRECT ARGUMENT SET');
  return timeValue(t.secs, (format ?? t.format) as TimeFormat, (precision ?? t.precision) as TimePrecision);
}

export const DATES: Record<string, FnDef> = {
  TODAY: {
    min: 0,
    max: 1,
    impl: (c) => {
      const offset = intArg(c, 0, 0);
      return isError(offset) ? offset : dateValue(c.ctx.today + offset);
    },
  },
  DATE: {
    min: 3,
    max: 3,
    impl: (c) => {
      const y = intArg(c, 0);
      if (isError(y)) return y;
      const m = intArg(c, 1);
      if (isError(m)) return m;
      const d = intArg(c, 2);
      if (isError(d)) return d;
      if (y < 1 || y > 9999 || m < 1 || m > 12 || d < 1) return err('#INVALID VALUE');
      const days = daysFromYmd(y, m, d);
      return ymdFromDays(days).day === d ? dateValue(days) : err('#INVALID VALUE');
    },
  },
  DATEONLY: {
    min: 1,
    max: 1,
    impl: (c) => {
      const v = c.scalar(0);
      if (isError(v)) return v;
      if (isDate(v)) return dateValue(Math.floor(v.days));
      if (typeof v === 'string') {
        const d = parseIsoDate(v.trim(), true);
        if (d) return dateValue(Math.floor(d.days));
      }
      return err('#INVALID DATA TYPE');
    },
  },
  DAY: datePart((d) => ymdFromDays(d).day),
  MONTH: datePart((d) => ymdFromDays(d).month),
  YEAR: datePart((d) => ymdFromDays(d).year),
  WEEKDAY: datePart((d) => weekdayOfDays(d) + 1),
  WEEKNUMBER: datePart(isoWeek),
  YEARDAY: datePart((d) => d - daysFromYmd(ymdFromDays(d).year, 1, 1) + 1),
  NETDAYS: {
    min: 2,
    max: 2,
    impl: (c) => {
      const s = dateArg(c, 0);
      if (isError(s)) return s;
      const e = dateArg(c, 1);
      if (isError(e)) return e;
      return e >= s ? e - s + 1 : e - s - 1;
    },
  },
  NETWORKDAYS: networkFn(false),
  NETWORKDAY: networkFn(true),
  WORKDAY: {
    min: 2,
    max: 3,
    impl: (c) => {
      const start = dateArg(c, 0);
      if (isError(start)) return start;
      const n = intArg(c, 1);
      if (isError(n)) return n;
      const h = holidaysArg(c, 2);
      if (isError(h)) return h;
      if (Math.abs(n) > MAX_SPAN / 2) return err('#INVALID VALUE');
      let d = start;
      const step = n < 0 ? -1 : 1;
      for (let left = Math.abs(n); left > 0; ) {
        d += step;
        if (isWorkday(d, h)) left--;
      }
      return dateValue(d);
    },
  },
  TIME: { min: 1, max: 5, impl: timeFn },
};
