/**
 * Durations of DURATION cells and predecessor lags: strings such as "4d 6h 30m", "2w",
 * "1.5d", "e3d" (elapsed: ignores non-working time) and, for lags, "-2d" (negative).
 *
 * Grammar (case-insensitive, spaces optional between components):
 *   duration  := ['-' | '+'] component+
 *   component := ['e'] number unit
 *   unit      := w|wk|wks|week|weeks | d|day|days | h|hr|hrs|hour|hours
 *              | m|min|mins|minute|minutes | s|sec|secs|second|seconds
 *              | ms|msec|msecs|millisecond|milliseconds
 * An 'e' on any component makes the whole duration elapsed. A unit may appear only once.
 * The canonical text (formatDuration) lists non-zero components in the order w d h m s ms,
 * each prefixed with 'e' when elapsed ("e4d e6h"), and "-" in front when negative.
 */

/** The API's Duration object (objectType DURATION); number fields are never negative. */
export interface Duration {
  objectType: 'DURATION';
  weeks?: number;
  days?: number;
  hours?: number;
  minutes?: number;
  seconds?: number;
  milliseconds?: number;
  elapsed?: boolean;
  negative?: boolean;
}

export const DURATION_FIELDS = ['weeks', 'days', 'hours', 'minutes', 'seconds', 'milliseconds'] as const;
export type DurationField = (typeof DURATION_FIELDS)[number];
const SUFFIX: Record<DurationField, string> = { weeks: 'w', days: 'd', hours: 'h', minutes: 'm', seconds: 's', milliseconds: 'ms' };

const UNITS: Record<string, DurationField> = {};
for (const [field, names] of [
  ['weeks', ['w', 'wk', 'wks', 'week', 'weeks']],
  ['days', ['d', 'day', 'days']],
  ['hours', ['h', 'hr', 'hrs', 'hour', 'hours']],
  ['minutes', ['m', 'min', 'mins', 'minute', 'minutes']],
  ['seconds', ['s', 'sec', 'secs', 'second', 'seconds']],
  ['milliseconds', ['ms', 'msec', 'msecs', 'millisecond', 'milliseconds']],
] as const) for (const n of names) UNITS[n] = field;

const COMPONENT = /\s*(e?)\s*(\d+(?:\.\d+)?|\.\d+)\s*([a-z]+)/y;

/**
 * Parse a duration string; null when it is not one. `allowNegative` permits a leading '-'
 * (predecessor lags); a duration cell itself is never negative.
 */
export function parseDuration(text: string, allowNegative = false): Duration | null {
  let s = text.trim().toLowerCase();
  let negative = false;
  if (s.startsWith('-') || s.startsWith('+')) {
    if (s[0] === '-') {
      if (!allowNegative) return null;
      negative = true;
    }
    s = s.slice(1);
  }
  if (s.length === 0) return null;
  const out: Duration = { objectType: 'DURATION' };
  let elapsed = false;
  let pos = 0;
  let any = false;
  while (pos < s.length) {
    COMPONENT.lastIndex = pos;
    const m = COMPONENT.exec(s);
    if (!m) return s.slice(pos).trim() === '' && any ? out : null;
    const field = UNITS[m[3]!];
    if (field === undefined || out[field] !== undefined) return null;
    const n = Number(m[2]);
    if (!Number.isFinite(n)) return null;
    out[field] = n;
    if (m[1] === 'e') elapsed = true;
    any = true;
    pos = COMPONENT.lastIndex;
  }
  if (!any) return null;
  if (elapsed) out.elapsed = true;
  if (negative) out.negative = true;
  return out;
}

/** Canonical text of a duration ("4d 6h 30m"); a duration with no non-zero part is "0d". */
export function formatDuration(d: Duration): string {
  const e = d.elapsed === true ? 'e' : '';
  const parts: string[] = [];
  for (const f of DURATION_FIELDS) {
    const v = d[f];
    if (v !== undefined && v !== 0) parts.push(`${e}${formatAmount(v)}${SUFFIX[f]}`);
  }
  if (parts.length === 0) parts.push(`${e}0d`);
  return (d.negative === true ? '-' : '') + parts.join(' ');
}

function formatAmount(v: number): string {
  // Avoid binary noise such as 0.30000000000000004 in user-visible text.
  return String(Number(v.toPrecision(12)));
}

/** A duration of n days (lenient numeric input to a DURATION cell). */
export function durationFromDays(n: number): Duration {
  return { objectType: 'DURATION', days: n };
}

/**
 * Validate an objectValue given for a duration (objectType DURATION, non-negative finite
 * numbers, boolean flags). Returns a normalised copy or null when malformed.
 */
export function normaliseDurationObject(v: unknown, allowNegative = false): Duration | null {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return null;
  const o = v as Record<string, unknown>;
  if (o.objectType !== undefined && o.objectType !== 'DURATION') return null;
  const out: Duration = { objectType: 'DURATION' };
  for (const f of DURATION_FIELDS) {
    const x = o[f];
    if (x === undefined || x === null) continue;
    if (typeof x !== 'number' || !Number.isFinite(x) || x < 0) return null;
    out[f] = x;
  }
  for (const flag of ['elapsed', 'negative'] as const) {
    const x = o[flag];
    if (x === undefined || x === null) continue;
    if (typeof x !== 'boolean') return null;
    if (x) out[flag] = true;
  }
  if (out.negative === true && !allowNegative) return null;
  return out;
}

/** Length in milliseconds (sign included), for comparisons and sorting. */
export function durationToMs(d: Duration): number {
  const ms = (d.weeks ?? 0) * 7 * 86_400_000 + (d.days ?? 0) * 86_400_000 + (d.hours ?? 0) * 3_600_000
    + (d.minutes ?? 0) * 60_000 + (d.seconds ?? 0) * 1000 + (d.milliseconds ?? 0);
  return d.negative === true ? -ms : ms;
}
