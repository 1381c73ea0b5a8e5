/**
 * The Schedule of an update request: when it is sent. Pure calendar arithmetic, no clock of its
 * own: `now` is passed in. A schedule's days are counted in the offset (time zone) its startAt
 * was given in, so "every Monday at 09:00+02:00" stays on Monday across the offset's midnight;
 * every send is at startAt's time of day.
 */
import { InvalidInput } from './errors.ts';
import { describe, isObject, type Obj } from './input.ts';
import { dropZAfterOffset } from './dates.ts';

export const SCHEDULE_TYPES = ['ONCE', 'DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY'] as const;
export type ScheduleType = (typeof SCHEDULE_TYPES)[number];
const WEEKDAYS = ['SUNDAY', 'MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY'] as const;
const DESCRIPTORS = ['DAY', 'WEEKDAY', 'WEEKEND', ...WEEKDAYS] as const;
type Descriptor = (typeof DESCRIPTORS)[number];
const ORDINALS = ['FIRST', 'SECOND', 'THIRD', 'FOURTH', 'LAST'] as const;
type Ordinal = (typeof ORDINALS)[number];

/** A schedule as stored: instants in epoch ms, the offset startAt was given in. */
export interface Schedule {
  type: ScheduleType;
  startAt: number;
  endAt?: number;
  /** minutes east of UTC that startAt (and endAt) were written in */
  offsetMinutes: number;
  repeatEvery?: number;
  dayDescriptors?: Descriptor[];
  dayOfMonth?: number;
  dayOrdinal?: Ordinal;
}

const DAY = 86_400_000;
/** 2000-01-01T00:00:00Z: repeating schedules start after it. */
const EPOCH_2000 = 946_684_800_000;

function bad(v: unknown, attr: string): never {
  throw new InvalidInput(1031, describe(v), `schedule.${attr}`);
}

/**
 * An instant as the API takes it: ISO-8601, or epoch ms (UTC). Without an offset it is UTC, as
 * every time of the API is (the C# SDK writes a DateTime of unspecified kind so).
 */
function instant(v: unknown, attr: string): { at: number; offset: number; local: Date } {
  if (typeof v === 'number' && Number.isSafeInteger(v)) return { at: v, offset: 0, local: new Date(v) };
  if (typeof v !== 'string') bad(v, attr);
  // also as the Python SDK writes an aware datetime: isoformat() (microseconds) + 'Z' after its
  // offset, which is the time's own
  const m = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.\d{1,9})?(Z|[+-]\d\d:?\d\d)?$/.exec(dropZAfterOffset(v));
  if (!m) bad(v, attr);
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const z = m[7] ?? 'Z';
  const offset = z === 'Z' ? 0 : (z[0] === '-' ? -1 : 1) * (Number(z.slice(1, 3)) * 60 + Number(z.slice(-2)));
  const localMs = Date.UTC(y, mo - 1, d, h, mi, s);
  const local = new Date(localMs);
  if (local.getUTCFullYear() !== y || local.getUTCMonth() !== mo - 1 || local.getUTCDate() !== d || h > 23 || mi > 59 || s > 59) bad(v, attr);
  return { at: localMs - offset * 60_000, offset, local };
}

function intInRange(v: unknown, lo: number, hi: number, attr: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < lo || v > hi) bad(v, attr);
  return v;
}

/** .NET's DateTime.MinValue as its JSON writers write it (0001-01-01T00:00:00, maybe with a fraction or zone). */
const DOTNET_MIN_DATE = /^0001-01-01T00:00:00(\.0+)?(Z|[+-]00:?00)?$/;

/**
 * The C# SDK's Schedule has non-nullable members, so it writes every one of them: `endAt`,
 * `lastSentAt` and `nextSendAt` of DateTime.MinValue when not set, and `dayOrdinal` FIRST (its
 * enum's first member) whatever the type. Those defaults are read as absent: a MinValue time,
 * and FIRST where no ordinal applies (a type other than MONTHLY, or a MONTHLY schedule by
 * `dayOfMonth` without day descriptors). Any other ordinal there is still 1031 or 1178.
 */
function withoutDotNetDefaults(v: Obj): Obj {
  const out: Obj = { ...v };
  for (const k of ['startAt', 'endAt', 'lastSentAt', 'nextSendAt']) if (typeof out[k] === 'string' && DOTNET_MIN_DATE.test(out[k])) delete out[k];
  const descriptors = Array.isArray(out.dayDescriptors) && out.dayDescriptors.length > 0;
  const noOrdinal = out.type !== 'MONTHLY' || (out.dayOfMonth !== undefined && out.dayOfMonth !== null && !descriptors);
  if (out.dayOrdinal === 'FIRST' && noOrdinal) delete out.dayOrdinal;
  return out;
}

/** The descriptors each type takes (the Schedule table of the reference). */
const ALLOWED: Record<ScheduleType, readonly Descriptor[]> = {
  ONCE: [], DAILY: ['WEEKDAY'], WEEKLY: WEEKDAYS, MONTHLY: DESCRIPTORS, YEARLY: [],
};

/**
 * A Schedule object of a request body, checked: 1012 without type or startAt, 1031 for a value
 * out of range or an attribute its type does not take, 1178 for dayOfMonth with dayOrdinal,
 * 1179 when endAt comes before the first send. `now` is the server's clock.
 */
export function parseSchedule(given: unknown, now: number): Schedule {
  if (!isObject(given)) throw new InvalidInput(1031, describe(given), 'schedule');
  const v = withoutDotNetDefaults(given);
  const type = v.type;
  if (type === undefined || type === null) throw new InvalidInput(1012, 'schedule.type');
  if (!(SCHEDULE_TYPES as readonly unknown[]).includes(type)) bad(type, 'type');
  const t = type as ScheduleType;
  if (v.startAt === undefined || v.startAt === null) throw new InvalidInput(1012, 'schedule.startAt');
  const start = instant(v.startAt, 'startAt');
  if (start.local.getUTCMinutes() !== 0 || start.local.getUTCSeconds() !== 0 || start.at % 1000 !== 0) bad(v.startAt, 'startAt');
  if (t === 'ONCE' ? start.at <= now : start.at <= EPOCH_2000) bad(v.startAt, 'startAt');
  const s: Schedule = { type: t, startAt: start.at, offsetMinutes: start.offset };
  const has = (k: string) => v[k] !== undefined && v[k] !== null;
  if (has('repeatEvery')) {
    if (t === 'ONCE') bad(v.repeatEvery, 'repeatEvery');
    s.repeatEvery = intInRange(v.repeatEvery, 1, 99, 'repeatEvery');
  }
  if (has('dayDescriptors')) {
    const list = v.dayDescriptors;
    if (!Array.isArray(list)) bad(list, 'dayDescriptors');
    for (const d of list) if (!ALLOWED[t].includes(d as Descriptor)) bad(d, 'dayDescriptors');
    if (list.length > 0) s.dayDescriptors = [...new Set(list as Descriptor[])];
  }
  if (has('dayOfMonth')) {
    if (t !== 'MONTHLY') bad(v.dayOfMonth, 'dayOfMonth');
    s.dayOfMonth = intInRange(v.dayOfMonth, 1, 28, 'dayOfMonth');
  }
  if (has('dayOrdinal')) {
    if (t !== 'MONTHLY') bad(v.dayOrdinal, 'dayOrdinal');
    if (!(ORDINALS as readonly unknown[]).includes(v.dayOrdinal)) bad(v.dayOrdinal, 'dayOrdinal');
    s.dayOrdinal = v.dayOrdinal as Ordinal;
  }
  if (s.dayOfMonth !== undefined && s.dayOrdinal !== undefined) throw new InvalidInput(1178, 'schedule.dayOfMonth and schedule.dayOrdinal');
  if (t === 'MONTHLY' && s.dayOrdinal !== undefined && s.dayDescriptors?.length !== 1) bad(v.dayDescriptors ?? null, 'dayDescriptors');
  if (t === 'MONTHLY' && s.dayOrdinal === undefined && s.dayDescriptors !== undefined) bad(v.dayDescriptors, 'dayDescriptors');
  if (has('endAt')) {
    if (t === 'ONCE') bad(v.endAt, 'endAt');
    const end = instant(v.endAt, 'endAt');
    if (end.offset !== start.offset || end.local.getUTCHours() !== 0 || end.local.getUTCMinutes() !== 0 || end.local.getUTCSeconds() !== 0) bad(v.endAt, 'endAt');
    s.endAt = end.at;
    const first = nextSend(s, Math.max(now, s.startAt - 1));
    if (end.at <= now || end.at <= s.startAt || first === undefined) throw new InvalidInput(1179);
  }
  return s;
}

// ---- occurrences

const weekday = (day: number) => (((day + 4) % 7) + 7) % 7; // day 0 (1970-01-01) was a Thursday

function kindMatches(d: Descriptor, day: number): boolean {
  const w = weekday(day);
  if (d === 'DAY') return true;
  if (d === 'WEEKDAY') return w >= 1 && w <= 5;
  if (d === 'WEEKEND') return w === 0 || w === 6;
  return WEEKDAYS[w] === d;
}

/** Whether a local day (days since 1970-01-01 in the schedule's offset) is a send day. */
function sendsOn(s: Schedule, day: number, startDay: number): boolean {
  const every = s.repeatEvery ?? 1;
  const date = new Date(day * DAY);
  const start = new Date(startDay * DAY);
  switch (s.type) {
    case 'ONCE':
      return day === startDay;
    case 'DAILY':
      if (s.dayDescriptors?.includes('WEEKDAY')) return kindMatches('WEEKDAY', day);
      return (day - startDay) % every === 0;
    case 'WEEKLY': {
      const weekOf = (d: number) => Math.floor((d - weekday(d)) / 7);
      if ((weekOf(day) - weekOf(startDay)) % every !== 0) return false;
      const days = s.dayDescriptors ?? [WEEKDAYS[weekday(startDay)]!];
      return days.some((d) => kindMatches(d, day));
    }
    case 'MONTHLY': {
      const months = (date.getUTCFullYear() - start.getUTCFullYear()) * 12 + date.getUTCMonth() - start.getUTCMonth();
      if (months % every !== 0) return false;
      if (s.dayOrdinal !== undefined) {
        const kind = s.dayDescriptors![0]!;
        const first = day - (date.getUTCDate() - 1);
        const length = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 0)).getUTCDate();
        const matching: number[] = [];
        for (let d = first; d < first + length; d++) if (kindMatches(kind, d)) matching.push(d);
        const i = s.dayOrdinal === 'LAST' ? matching.length - 1 : ORDINALS.indexOf(s.dayOrdinal);
        return matching[i] === day;
      }
      return date.getUTCDate() === (s.dayOfMonth ?? Math.min(start.getUTCDate(), 28));
    }
    case 'YEARLY':
      return (date.getUTCFullYear() - start.getUTCFullYear()) % every === 0 && date.getUTCMonth() === start.getUTCMonth() && date.getUTCDate() === start.getUTCDate();
  }
}

/** The first send of the schedule strictly after `after`, or undefined when none is left. */
export function nextSend(s: Schedule, after: number): number | undefined {
  const shift = s.offsetMinutes * 60_000;
  const localStart = s.startAt + shift;
  const startDay = Math.floor(localStart / DAY);
  const timeOfDay = localStart - startDay * DAY;
  let day = Math.max(startDay, Math.floor((after + shift) / DAY));
  // 100 years of days at most (a YEARLY schedule every 99 years still finds its next day)
  for (let n = 0; n < 36_600; n++, day++) {
    const at = day * DAY + timeOfDay - shift;
    if (at <= after || at < s.startAt) continue;
    if (s.endAt !== undefined && at > s.endAt) return undefined;
    if (sendsOn(s, day, startDay)) return at;
    if (s.type === 'ONCE') return undefined;
  }
  return undefined;
}
