/**
 * Days typed into DATE and ABSTRACT_DATETIME cells (or pasted there). The API takes an ISO day
 * (2025-04-15); a person types the day as the page shows days to them: the browser's date
 * picker and the grid's Created/Modified cells use the browser's locale (04/15/2025, 4/15/25
 * in the US; 15/04/2025 in much of Europe). Both forms are read here, and month names
 * (Apr 15, 2025; 15 April 2025). A day that is no day of the calendar (02/30/2025) is refused
 * in words, before anything is sent.
 */

/** The order of day, month and year in the locale's numeric dates. */
export type DayOrder = 'MDY' | 'DMY' | 'YMD';

/** The order of the numeric dates of `locale` (the browser's when undefined). */
export function dayOrder(locale?: string): DayOrder {
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = new Intl.DateTimeFormat(locale, { year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(new Date(Date.UTC(2025, 3, 15, 12)));
  } catch {
    return 'MDY';
  }
  const order = parts.filter((p) => p.type === 'year' || p.type === 'month' || p.type === 'day').map((p) => p.type[0]!.toUpperCase()).join('');
  return order === 'DMY' || order === 'YMD' ? order : 'MDY';
}

/** 15 April 2025 written in the numeric order: how to type a day, for messages. */
export function dayExample(order: DayOrder): string {
  return order === 'DMY' ? '15/04/2025' : order === 'YMD' ? '2025/04/15' : '04/15/2025';
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

function monthOfName(name: string): number {
  const n = name.toLowerCase().replace(/\.$/, '');
  if (n.length < 3) return 0;
  return MONTHS.findIndex((m) => m.toLowerCase().startsWith(n)) + 1;
}

/** A two-digit year as the API's lenient dates read it: 00-69 are 20xx, 70-99 19xx. */
function fullYear(y: string): number {
  const n = Number(y);
  return y.length <= 2 ? (n < 70 ? 2000 + n : 1900 + n) : n;
}

function pad(n: number, w = 2): string {
  return String(n).padStart(w, '0');
}

/** The day, or why these numbers are no day of the calendar. */
function makeDay(text: string, y: number, m: number, d: number, order: DayOrder): { day: string } | { error: string } {
  const hint = `Type it as ${dayExample(order)} or 2025-04-15.`;
  if (y < 1 || y > 9999) return { error: `“${text}” is not a date (the year ${y} is out of range). ${hint}` };
  if (m < 1 || m > 12) return { error: `“${text}” is not a date (there is no month ${m}). ${hint}` };
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  const days = m === 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].includes(m) ? 30 : 31;
  if (d < 1 || d > days) return { error: `“${text}” is not a date (${MONTHS[m - 1]} ${y} has ${days} days).` };
  return { day: `${pad(y, 4)}-${pad(m)}-${pad(d)}` };
}

/**
 * What a typed day is: `{ day: 'YYYY-MM-DD' }`, `{ iso }` for an ISO date-time (sent as typed,
 * the API reads it), or `{ error }` in words. Numbers are read in the locale's order; a
 * four-digit first number is always a year (2025/4/15, 2025-04-15).
 */
export function parseTypedDay(text: string, order: DayOrder): { day: string } | { iso: string } | { error: string } {
  const t = text.trim().replace(/\s+/g, ' ');
  let m = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(t) ?? /^(\d{4})[/.](\d{1,2})[/.](\d{1,2})\.?$/.exec(t);
  if (m) return makeDay(t, Number(m[1]), Number(m[2]), Number(m[3]), order);
  if (/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/.test(t)) {
    const day = makeDay(t, Number(t.slice(0, 4)), Number(t.slice(5, 7)), Number(t.slice(8, 10)), order);
    return 'error' in day ? day : { iso: t };
  }
  m = /^(\d{1,2})[/.-](\d{1,2})[/.-](\d{4}|\d{2})\.?$/.exec(t);
  if (m) {
    const [a, b, c] = [m[1]!, m[2]!, m[3]!];
    if (order === 'YMD' && c.length === 2) return makeDay(t, fullYear(a), Number(b), Number(c), order);
    return order === 'DMY' ? makeDay(t, fullYear(c), Number(b), Number(a), order) : makeDay(t, fullYear(c), Number(a), Number(b), order);
  }
  // Apr 15, 2025 / April 15 2025 / 15 April 2025 / 15 Apr, 2025
  m = /^([A-Za-z]+\.?) (\d{1,2})(?:st|nd|rd|th)?,? (\d{4})$/.exec(t);
  if (m && monthOfName(m[1]!) > 0) return makeDay(t, Number(m[3]), monthOfName(m[1]!), Number(m[2]), order);
  m = /^(\d{1,2}) ([A-Za-z]+\.?),? (\d{4})$/.exec(t);
  if (m && monthOfName(m[2]!) > 0) return makeDay(t, Number(m[3]), monthOfName(m[2]!), Number(m[1]), order);
  return { error: `“${text.trim()}” is not a date. Type it as ${dayExample(order)} or 2025-04-15.` };
}
