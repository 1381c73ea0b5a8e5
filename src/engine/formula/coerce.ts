/**
 * The service's conversions between text, numbers, dates and booleans, shared by the operators
 * and the function library. Blank counts as 0 in arithmetic and "" in text.
 */
import {
  err, formatDate, formatTime, isError, isRange, type DateValue, type ErrorValue, type RangeValue, type Scalar, type TimeValue, type Value,
} from './values.ts';

/** The largest magnitude a number may have; beyond it a result is #OVERFLOW. */
export const MAX_NUMBER = 9_007_199_254_740_992;
/** The longest text a cell holds; a longer result is #TOO BIG. */
export const MAX_TEXT = 4000;

/** Display text of a value ("" for blank; dates as YYYY-MM-DD; times as shown, "1:30 PM"; booleans as true/false). */
export function toText(v: Scalar): string {
  if (v === null) return '';
  switch (typeof v) {
    case 'string':
      return v;
    case 'number':
      return formatNumber(v);
    case 'boolean':
      return v ? 'true' : 'false';
    default:
      switch (v.kind) {
        case 'date':
          return formatDate(v);
        case 'time':
          return formatTime(v);
        case 'error':
          return v.code;
        case 'multi':
          return v.items.join(', ');
      }
  }
}

/** Numbers as text without binary noise (0.1 + 0.2 shows 0.3). */
export function formatNumber(n: number): string {
  if (Number.isInteger(n)) return String(n);
  return String(Number(n.toPrecision(15)));
}

/** A number for a function argument: numbers, blank (0); anything else is #INVALID DATA TYPE. */
export function toNumber(v: Scalar): number | ErrorValue {
  if (typeof v === 'number') return v;
  if (v === null || v === '') return 0;
  if (isError(v)) return v;
  return err('#INVALID DATA TYPE');
}

/** A whole number argument (counts, positions): truncated toward zero. */
export function toInteger(v: Scalar): number | ErrorValue {
  const n = toNumber(v);
  return typeof n === 'number' ? Math.trunc(n) : n;
}

/** A date argument: a date (or an error passed through); anything else is #INVALID DATA TYPE. */
export function toDate(v: Scalar): DateValue | ErrorValue {
  if (v !== null && typeof v === 'object' && (v.kind === 'date' || v.kind === 'error')) return v;
  return err('#INVALID DATA TYPE');
}

/** A condition (IF, AND, OR, NOT): booleans, numbers (non-zero is true), "true"/"false", blank (false). */
export function toBoolean(v: Scalar): boolean | ErrorValue {
  if (typeof v === 'boolean') return v;
  if (v === null || v === '') return false;
  if (typeof v === 'number') return v !== 0;
  if (typeof v === 'string') {
    const l = v.toLowerCase();
    if (l === 'true') return true;
    if (l === 'false') return false;
    return err('#INVALID DATA TYPE');
  }
  if (isError(v)) return v;
  return err('#INVALID DATA TYPE');
}

/** A single value from an argument that may be a range (a 1x1 range is its cell). */
export function toScalar(v: Value): Scalar {
  if (!isRange(v)) return v;
  if (v.cells.length === 1) return v.cells[0] as Scalar;
  return err('#INVALID DATA TYPE');
}

/** Every cell of an argument (a scalar is a one-cell list). */
export function cellsOf(v: Value): readonly Scalar[] {
  return isRange(v) ? v.cells : [v];
}

export function asRange(v: Value): RangeValue {
  return isRange(v) ? v : { kind: 'range', width: 1, height: 1, cells: [v] };
}

/** Checks a final number: non-finite or beyond the supported magnitude is #OVERFLOW. */
export function checkNumber(n: number): number | ErrorValue {
  if (Number.isNaN(n)) return err('#INVALID VALUE');
  if (!Number.isFinite(n) || Math.abs(n) > MAX_NUMBER) return err('#OVERFLOW');
  return n === 0 ? 0 : n;
}

/** Case-insensitive text equality / ordering, as the service compares text. */
export function compareText(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * Orders two values for comparison operators and lookups. Returns undefined when the types
 * cannot be ordered against each other (number vs text, date vs number, ...).
 */
export function compareValues(a: Scalar, b: Scalar): number | undefined {
  const ka = kindOf(a);
  const kb = kindOf(b);
  if (ka === 'blank' && kb === 'blank') return 0;
  if (ka === 'blank') return blankVersus(b, kb);
  if (kb === 'blank') {
    const r = blankVersus(a, ka);
    return r === undefined ? undefined : -r;
  }
  if (ka !== kb) return undefined;
  switch (ka) {
    case 'number':
      return Math.sign((a as number) - (b as number));
    case 'text':
      return compareText(toText(a), toText(b));
    case 'boolean':
      return Number(a) - Number(b);
    case 'date':
      return Math.sign((a as DateValue).days - (b as DateValue).days);
    case 'time':
      return Math.sign((a as TimeValue).secs - (b as TimeValue).secs);
    default:
      return undefined;
  }
}

function blankVersus(other: Scalar, kind: ValueKind): number | undefined {
  switch (kind) {
    case 'number':
      return Math.sign(0 - (other as number));
    case 'text':
      return compareText('', toText(other));
    case 'boolean':
      return other === true ? -1 : 0;
    case 'date':
    case 'time':
      return -1;
    default:
      return undefined;
  }
}

export type ValueKind = 'blank' | 'number' | 'text' | 'boolean' | 'date' | 'time' | 'error';

export function kindOf(v: Scalar): ValueKind {
  if (v === null || v === '') return 'blank';
  switch (typeof v) {
    case 'number':
      return 'number';
    case 'string':
      return 'text';
    case 'boolean':
      return 'boolean';
    default:
      return v.kind === 'multi' ? 'text' : v.kind;
  }
}

/** Equality as `=` and criteria see it: same kind and equal (text case-insensitively); blank equals only blank (or ""). */
export function valuesEqual(a: Scalar, b: Scalar): boolean {
  const ka = kindOf(a);
  const kb = kindOf(b);
  if (ka === 'blank' || kb === 'blank') return ka === kb;
  if (ka !== kb) return false;
  return compareValues(a, b) === 0;
}

/** A condition from an argument that may be a one-cell range (IF, AND, ...). */
export function truthy(v: Value): boolean | ErrorValue {
  return toBoolean(toScalar(v));
}
