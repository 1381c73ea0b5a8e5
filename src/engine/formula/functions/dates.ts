/**
 * Date functions. Dates are whole days from 1970-01-01; date arithmetic (date + 1,
 * date - date) lives in the evaluator's operators. Working days are Monday to Friday.
 */
import type { Call, FnDef } from '../evaluator.ts';
import { toNumber, toText } from '../coerce.ts';
import {
  dateValue, daysFromYmd, err, isDate, isError, parseIsoDate, weekdayOfDays, ymdFromDays, type ErrorValue, type Value,
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

function pad2(n: number): string {
  return String(n).padStart(2, '0');
}

/** Formats seconds since midnight: 12-hour (format 0) or 24-hour (1) clock, to hh / hh:mm / hh:mm:ss. */
function formatTime(secs: number, format: number, precision: number): string {
  const h = Math.floor(secs / 3600) % 24;
  const m = Math.floor(secs / 60) % 60;
  const s = secs % 60;
  const tail = (precision >= 2 ? `:${pad2(m)}` : '') + (precision >= 3 ? `:${pad2(s)}` : '');
  if (format === 1) return `${h}${tail}`;
  const h12 = h % 12 === 0 ? 12 : h % 12;
  return `${h12}${tail} ${h < 12 ? 'AM' : 'PM'}`;
}

const TIME_TEXT = /^\s*(\d{1,2})(?::(\d{1,2}))?(?::(\d{1,2}))?\s*(am|pm)?\s*$/i;

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
  TIME: {
    min: 1,
    max: 5,
    impl: (c): Value => {
      const first = c.scalar(0);
      if (isError(first)) return first;
      let secs: number;
      let format: number;
      let precision: number;
      let optFrom: number;
      if (typeof first === 'number') {
        // TIME(hours, [minutes], [seconds], [format], [precision])
        const parts: number[] = [];
        for (let i = 0; i < Math.min(3, c.nodes.length); i++) {
          const n = toNumber(c.scalar(i));
          if (isError(n)) return n;
          parts.push(Math.trunc(n));
        }
        const [h = 0, m = 0, s = 0] = parts;
        secs = h * 3600 + m * 60 + s;
        format = 0;
        precision = Math.max(parts.length, 2);
        optFrom = 3;
        if (c.nodes.length > 3 && parts.length < 3) return err('#INCORRECT ARGUMENT SET');
      } else {
        const m = TIME_TEXT.exec(isDate(first) ? toText(first).slice(11, 19) : toText(first));
        if (!m) return err('#INVALID VALUE');
        let h = Number(m[1]);
        const ampm = m[4]?.toLowerCase();
        if (ampm !== undefined) {
          if (h < 1 || h > 12) return err('#INVALID VALUE');
          h = (h % 12) + (ampm === 'pm' ? 12 : 0);
        }
        const mm = Number(m[2] ?? 0);
        const ss = Number(m[3] ?? 0);
        if (h > 23 || mm > 59 || ss > 59) return err('#INVALID VALUE');
        secs = h * 3600 + mm * 60 + ss;
        format = ampm === undefined ? 1 : 0;
        precision = m[3] !== undefined ? 3 : m[2] !== undefined ? 2 : 1;
        optFrom = 1;
      }
      if (secs < 0) return err('#INVALID VALUE');
      if (c.has(optFrom)) {
        const f = intArg(c, optFrom);
        if (isError(f)) return f;
        if (f !== 0 && f !== 1) return err('#INVALID VALUE');
        format = f;
      }
      if (c.has(optFrom + 1)) {
        const p = intArg(c, optFrom + 1);
        if (isError(p)) return p;
        if (p < 1 || p > 3) return err('#INVALID VALUE');
        precision = p;
      }
      return formatTime(secs % 86_400, format, precision);
    },
  },
};
