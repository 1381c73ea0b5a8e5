/**
 * Formula values: what a cell holds while formulas are evaluated, and the conversions between
 * the sheet's stored cell values (by column type) and formula values.
 *
 * Numbers, text and booleans are plain JS primitives (cheap to compare and store); blank is
 * `null`; dates, times and errors are small tagged objects so that a date is never confused with
 * a number, a time never with its display text, and an error never with text that happens to
 * start with '#'.
 */

/** The error texts a formula cell may show (the service writes them verbatim as the cell value). */
export const ERROR_CODES = [
  '#UNPARSEABLE',
  '#CIRCULAR REFERENCE',
  '#DIVIDE BY ZERO',
  '#INVALID DATA TYPE',
  '#INVALID VALUE',
  '#INVALID REF',
  '#INVALID OPERATION',
  '#INCORRECT ARGUMENT SET',
  '#NO MATCH',
  '#BLOCKED',
  '#REF',
  '#UNSUPPORTED CROSS-SHEET FORMULA',
  '#DATE EXPECTED',
  '#CONTACT EXPECTED',
  '#BOOLEAN EXPECTED',
  '#NUMBER EXPECTED',
  '#INVALID COLUMN VALUE',
  '#IMBALANCED',
  '#NESTED CRITERIA',
  '#TOO BIG',
  '#OVERFLOW',
  '#PERMISSION ERROR',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export interface ErrorValue {
  readonly kind: 'error';
  readonly code: ErrorCode;
}

/** A date (integer `days`) or date-time (fractional `days`), counted from 1970-01-01 UTC. */
export interface DateValue {
  readonly kind: 'date';
  readonly days: number;
}

/**
 * A time of day, as TIME() makes it: whole seconds since midnight plus how it is shown. Adding a
 * number adds minutes; two times compare by `secs` (the display settings do not matter).
 */
export interface TimeValue {
  readonly kind: 'time';
  /** 0 <= secs < 86,400. */
  readonly secs: number;
  /** 0: 12-hour clock ("1:30 PM"); 1: 24-hour clock ("13:30"). */
  readonly format: TimeFormat;
  /** Parts shown: 1 hours, 2 hours:minutes, 3 hours:minutes:seconds. */
  readonly precision: TimePrecision;
}
export type TimeFormat = 0 | 1;
export type TimePrecision = 1 | 2 | 3;

/** Items of a MULTI_PICKLIST or MULTI_CONTACT_LIST cell. */
export interface MultiValue {
  readonly kind: 'multi';
  readonly items: readonly string[];
}

/** One cell's value during evaluation. `null` is blank. */
export type Scalar = number | string | boolean | null | DateValue | TimeValue | ErrorValue | MultiValue;

/** A rectangular block of cell values (row-major), e.g. `[A]1:[B]5`, CHILDREN(), COLLECT(). */
export interface RangeValue {
  readonly kind: 'range';
  readonly width: number;
  readonly height: number;
  readonly cells: readonly Scalar[];
}

/** What an expression evaluates to. */
export type Value = Scalar | RangeValue;

const ERRORS = new Map<ErrorCode, ErrorValue>(ERROR_CODES.map((code) => [code, Object.freeze({ kind: 'error', code })]));

/** The (shared, frozen) error value for a code. */
export function err(code: ErrorCode): ErrorValue {
  return ERRORS.get(code) as ErrorValue;
}

export function isErrorCode(s: string): s is ErrorCode {
  return ERRORS.has(s as ErrorCode);
}

export function isError(v: unknown): v is ErrorValue {
  return v !== null && typeof v === 'object' && (v as { kind?: unknown }).kind === 'error';
}
export function isDate(v: Value): v is DateValue {
  return v !== null && typeof v === 'object' && v.kind === 'date';
}
export function isTime(v: Value): v is TimeValue {
  return v !== null && typeof v === 'object' && v.kind === 'time';
}
export function isRange(v: Value): v is RangeValue {
  return v !== null && typeof v === 'object' && v.kind === 'range';
}
export function isMulti(v: Value): v is MultiValue {
  return v !== null && typeof v === 'object' && v.kind === 'multi';
}
/** Blank: no value, or empty text. */
export function isBlank(v: Value): boolean {
  return v === null || v === '';
}

export function dateValue(days: number): DateValue {
  return { kind: 'date', days };
}

export function range(width: number, height: number, cells: readonly Scalar[]): RangeValue {
  return { kind: 'range', width, height, cells };
}

// ---------------------------------------------------------------- dates

const MS_PER_DAY = 86_400_000;

/** Days from 1970-01-01 for a calendar date; month and day may overflow (DATE(2024, 13, 1)). */
export function daysFromYmd(year: number, month: number, day: number): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  d.setUTCHours(0, 0, 0, 0);
  return Math.round(d.getTime() / MS_PER_DAY);
}

export function ymdFromDays(days: number): { year: number; month: number; day: number } {
  const d = new Date(Math.floor(days) * MS_PER_DAY);
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

/** 0 = Sunday ... 6 = Saturday. */
export function weekdayOfDays(days: number): number {
  return (((Math.floor(days) + 4) % 7) + 7) % 7;
}

export function daysFromEpochMs(ms: number): number {
  return ms / MS_PER_DAY;
}

/** Today's date (whole days) for a clock reading, in UTC shifted by `offsetMinutes`. */
export function todayDays(now: Date, offsetMinutes = 0): number {
  return Math.floor((now.getTime() + offsetMinutes * 60_000) / MS_PER_DAY);
}

function pad(n: number, w = 2): string {
  return String(n).padStart(w, '0');
}

/** 'YYYY-MM-DD' for a whole day, 'YYYY-MM-DDTHH:MM:SSZ' when there is a time part. */
export function formatDate(v: DateValue): string {
  const { year, month, day } = ymdFromDays(v.days);
  const ymd = `${year < 0 ? '-' : ''}${pad(Math.abs(year), 4)}-${pad(month)}-${pad(day)}`;
  const frac = v.days - Math.floor(v.days);
  if (frac === 0) return ymd;
  const secs = Math.round(frac * 86_400);
  return `${ymd}T${pad(Math.floor(secs / 3600))}:${pad(Math.floor(secs / 60) % 60)}:${pad(secs % 60)}Z`;
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const ISO_DATETIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/;

/** Parses 'YYYY-MM-DD' (and, when `allowTime`, an ISO date-time); undefined when it is not one. */
export function parseIsoDate(s: string, allowTime: boolean): DateValue | undefined {
  const m = ISO_DATE.exec(s);
  if (m) {
    const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
    if (mo < 1 || mo > 12 || d < 1 || d > 31) return undefined;
    const days = daysFromYmd(y, mo, d);
    const back = ymdFromDays(days);
    return back.month === mo && back.day === d ? dateValue(days) : undefined;
  }
  if (!allowTime || !ISO_DATETIME.test(s)) return undefined;
  const ms = Date.parse(/[Zz]|[+-]\d{2}:?\d{2}$/.test(s) ? s : `${s}Z`);
  return Number.isNaN(ms) ? undefined : dateValue(daysFromEpochMs(ms));
}

// ---------------------------------------------------------------- times

export const SECONDS_PER_DAY = 86_400;

/** A time of day; `secs` wraps into one day (25:00 is 1:00, -0:30 is 23:30) and rounds to whole seconds. */
export function timeValue(secs: number, format: TimeFormat, precision: TimePrecision): TimeValue {
  const s = ((Math.round(secs) % SECONDS_PER_DAY) + SECONDS_PER_DAY) % SECONDS_PER_DAY;
  return { kind: 'time', secs: s, format, precision };
}

/** The fewest parts that show a time exactly: seconds when it has them, minutes when it has them. */
export function neededPrecision(secs: number): TimePrecision {
  return secs % 60 !== 0 ? 3 : secs % 3600 !== 0 ? 2 : 1;
}

/** Display text: "1:30 PM" / "13:30", to hours, minutes or seconds; minutes and seconds have two digits. */
export function formatTime(t: TimeValue): string {
  const h = Math.floor(t.secs / 3600);
  const m = Math.floor(t.secs / 60) % 60;
  const sec = t.secs % 60;
  const tail = (t.precision >= 2 ? `:${pad(m)}` : '') + (t.precision >= 3 ? `:${pad(sec)}` : '');
  if (t.format === 1) return `${h}${tail}`;
  return `${h % 12 === 0 ? 12 : h % 12}${tail} ${h < 12 ? 'AM' : 'PM'}`;
}

const TIME_TEXT = /^(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?\s*(?:([ap])\.?\s*m\.?)?$/i;

/**
 * Parses time text: "15", "8:30", "20:30:00", "3 PM", "4:30 pm", "11:59:59 AM". Without AM/PM it
 * is a 24-hour time shown on a 24-hour clock; with it, a 12-hour one. The parts given set the
 * precision. Undefined when the text is not a time (or a part is out of range).
 */
export function parseTimeText(text: string): TimeValue | undefined {
  const m = TIME_TEXT.exec(text.trim());
  if (!m) return undefined;
  let h = Number(m[1]);
  const mm = m[2] === undefined ? 0 : Number(m[2]);
  const ss = m[3] === undefined ? 0 : Number(m[3]);
  const half = m[4]?.toLowerCase();
  if (half !== undefined) {
    if (h < 1 || h > 12) return undefined;
    h = (h % 12) + (half === 'p' ? 12 : 0);
  }
  if (h > 23 || mm > 59 || ss > 59) return undefined;
  const precision: TimePrecision = m[3] !== undefined ? 3 : m[2] !== undefined ? 2 : 1;
  return timeValue(h * 3600 + mm * 60 + ss, half === undefined ? 1 : 0, precision);
}

/** The time of day of a date-time (00:00 for a plain date), on a 12-hour clock. */
export function timeOfDate(d: DateValue): TimeValue {
  const secs = Math.round((d.days - Math.floor(d.days)) * SECONDS_PER_DAY) % SECONDS_PER_DAY;
  return timeValue(secs, 0, secs % 60 !== 0 ? 3 : 2);
}

// ---------------------------------------------------------------- cell inputs

/** The column types of the API. */
export type ColumnType =
  | 'TEXT_NUMBER'
  | 'DATE'
  | 'DATETIME'
  | 'ABSTRACT_DATETIME'
  | 'CHECKBOX'
  | 'PICKLIST'
  | 'CONTACT_LIST'
  | 'MULTI_PICKLIST'
  | 'MULTI_CONTACT_LIST'
  | 'DURATION'
  | 'PREDECESSOR';

/**
 * A cell's stored value as the service holds it: number, text, boolean, null/undefined (blank),
 * or a list of strings for MULTI_* columns (contacts by email). Dates are 'YYYY-MM-DD' text in
 * DATE columns; DATETIME / ABSTRACT_DATETIME take ISO text or epoch milliseconds.
 */
export type RawCellValue = string | number | boolean | null | undefined | readonly string[];

/** A cell value with the type of its column (the input to formulas). */
export interface CellInput {
  readonly value: RawCellValue;
  readonly type: ColumnType;
}

function isStringList(raw: RawCellValue): raw is readonly string[] {
  return Array.isArray(raw);
}

/** Converts a stored cell value to a formula value according to its column type. */
export function inputToScalar(raw: RawCellValue, type: ColumnType): Scalar {
  if (raw === null || raw === undefined || raw === '') return null;
  if (isStringList(raw)) {
    const items = raw.filter((s) => s !== '');
    if (type === 'MULTI_PICKLIST' || type === 'MULTI_CONTACT_LIST') return items.length === 0 ? null : { kind: 'multi', items };
    return items.length === 0 ? null : items.join(', ');
  }
  switch (type) {
    case 'CHECKBOX':
      if (typeof raw === 'boolean') return raw;
      if (raw === 'true' || raw === 1) return true;
      if (raw === 'false' || raw === 0) return false;
      return raw as string | number;
    case 'DATE':
      if (typeof raw === 'string') return parseIsoDate(raw, true) ?? raw;
      return raw;
    case 'DATETIME':
    case 'ABSTRACT_DATETIME':
      if (typeof raw === 'number') return dateValue(daysFromEpochMs(raw));
      if (typeof raw === 'string') return parseIsoDate(raw, true) ?? raw;
      return raw;
    case 'MULTI_PICKLIST':
    case 'MULTI_CONTACT_LIST':
      return typeof raw === 'string' ? { kind: 'multi', items: [raw] } : raw;
    default:
      return raw as string | number | boolean;
  }
}

// ---------------------------------------------------------------- results

/** How the service should store a computed value. */
export type ResultType = 'NUMBER' | 'TEXT' | 'BOOLEAN' | 'DATE' | 'DATETIME' | 'BLANK' | 'ERROR';

export interface FormulaResult {
  /** The value to write into the cell: error texts are strings such as "#DIVIDE BY ZERO". */
  readonly value: string | number | boolean | null;
  readonly type: ResultType;
}

/** Converts a computed value to what the service writes into the cell. */
export function toFormulaResult(v: Scalar): FormulaResult {
  if (v === null || v === '') return { value: null, type: 'BLANK' };
  if (typeof v === 'number') return { value: v, type: 'NUMBER' };
  if (typeof v === 'string') return { value: v, type: 'TEXT' };
  if (typeof v === 'boolean') return { value: v, type: 'BOOLEAN' };
  switch (v.kind) {
    case 'error':
      return { value: v.code, type: 'ERROR' };
    case 'date':
      return { value: formatDate(v), type: v.days === Math.floor(v.days) ? 'DATE' : 'DATETIME' };
    case 'time':
      // the cell holds the time as it is shown ("1:30 PM"); formulas reading the cell get the time itself
      return { value: formatTime(v), type: 'TEXT' };
    case 'multi':
      return { value: v.items.join(', '), type: 'TEXT' };
  }
}

/** Same value (used to report only cells whose value changed). */
export function sameScalar(a: Scalar, b: Scalar): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') {
    // NaN is the one value unequal to itself (no Number.isNaN: a property read that a load, whose
    // comparisons are all against blank, leaves without type feedback for the first edit)
    return a !== a && b !== b;
  }
  if (a.kind === 'date' && b.kind === 'date') return a.days === b.days;
  if (a.kind === 'time' && b.kind === 'time') return a.secs === b.secs && a.format === b.format && a.precision === b.precision;
  if (a.kind === 'error' && b.kind === 'error') return a.code === b.code;
  if (a.kind === 'multi' && b.kind === 'multi') return a.items.length === b.items.length && a.items.every((x, i) => x === b.items[i]);
  return false;
}
