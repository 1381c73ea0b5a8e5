/**
 * Dates and times of cells. A DATE cell holds a calendar day 'YYYY-MM-DD' (no time zone);
 * DATETIME and ABSTRACT_DATETIME cells hold a UTC instant (epoch ms). API output is ISO-8601
 * (`YYYY-MM-DD`, `YYYY-MM-DDTHH:MM:SSZ`) or epoch milliseconds when numericDates=true.
 */

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august',
  'september', 'october', 'november', 'december'];

function pad(n: number, w = 2): string {
  return String(n).padStart(w, '0');
}

function daysInMonth(y: number, m: number): number {
  return new Date(Date.UTC(y, m, 0)).getUTCDate();
}

/** 'YYYY-MM-DD' for a valid calendar day, else null. */
export function makeDay(y: number, m: number, d: number): string | null {
  if (!Number.isInteger(y) || !Number.isInteger(m) || !Number.isInteger(d)) return null;
  if (y < 1 || y > 9999 || m < 1 || m > 12 || d < 1 || d > daysInMonth(y, m)) return null;
  return `${pad(y, 4)}-${pad(m)}-${pad(d)}`;
}

const ISO_DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const ISO_DATETIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3})\d*)?)?(Z|[+-]\d{2}:?\d{2})?$/;

/**
 * Strict date parse: an ISO-8601 day 'YYYY-MM-DD'. An ISO date-time is accepted too (SDKs
 * often send one for a date column) and reduced to its own calendar day.
 */
export function parseIsoDay(s: string): string | null {
  const t = s.trim();
  const m = ISO_DAY.exec(t);
  if (m) return makeDay(Number(m[1]), Number(m[2]), Number(m[3]));
  const ms = parseIsoDateTime(t);
  if (ms === null) return null;
  return dayOfEpochMs(ms);
}

/**
 * An aware time as the Python SDK writes it, `isoformat() + 'Z'` (`...+02:00Z`), without the Z:
 * the offset is the time's own. Anything else is returned as it is.
 */
export function dropZAfterOffset(s: string): string {
  return s.replace(/([+-]\d{2}:?\d{2})Z$/, '$1');
}

/**
 * ISO-8601 date-time to epoch ms. Without an offset the time is read as UTC. A bare day is
 * midnight UTC. Null when not a valid date-time.
 */
export function parseIsoDateTime(s: string): number | null {
  const t = s.trim();
  const d = ISO_DAY.exec(t);
  if (d) {
    const day = makeDay(Number(d[1]), Number(d[2]), Number(d[3]));
    return day === null ? null : dayToEpochMs(day);
  }
  const m = ISO_DATETIME.exec(t);
  if (!m) return null;
  const day = makeDay(Number(m[1]), Number(m[2]), Number(m[3]));
  const hh = Number(m[4]);
  const mi = Number(m[5]);
  const ss = m[6] === undefined ? 0 : Number(m[6]);
  if (day === null || hh > 23 || mi > 59 || ss > 59) return null;
  const frac = m[7] === undefined ? 0 : Number(m[7].padEnd(3, '0'));
  let ms = dayToEpochMs(day) + ((hh * 60 + mi) * 60 + ss) * 1000 + frac;
  const tz = m[8];
  if (tz !== undefined && tz !== 'Z') {
    const sign = tz[0] === '-' ? -1 : 1;
    const digits = tz.slice(1).replace(':', '');
    const offMin = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4));
    ms -= sign * offMin * 60_000;
  }
  return ms;
}

/** Epoch ms of midnight UTC of a 'YYYY-MM-DD' day. */
export function dayToEpochMs(day: string): number {
  return Date.UTC(Number(day.slice(0, 4)), Number(day.slice(5, 7)) - 1, Number(day.slice(8, 10)));
}

/** The UTC calendar day 'YYYY-MM-DD' of an epoch-ms instant, or null when out of range. */
export function dayOfEpochMs(ms: number): string | null {
  if (!Number.isFinite(ms)) return null;
  const dt = new Date(ms);
  if (Number.isNaN(dt.getTime())) return null;
  return makeDay(dt.getUTCFullYear(), dt.getUTCMonth() + 1, dt.getUTCDate());
}

/** 'YYYY-MM-DDTHH:MM:SSZ' of an epoch-ms instant (the API's timestamp form). */
export function formatTimestamp(ms: number): string {
  const dt = new Date(ms);
  return `${pad(dt.getUTCFullYear(), 4)}-${pad(dt.getUTCMonth() + 1)}-${pad(dt.getUTCDate())}`
    + `T${pad(dt.getUTCHours())}:${pad(dt.getUTCMinutes())}:${pad(dt.getUTCSeconds())}Z`;
}

/** 'YYYY-MM-DDTHH:MM:SS' (no zone) of an epoch-ms instant: the project date-time form. */
export function formatProjectDateTime(ms: number): string {
  return formatTimestamp(ms).slice(0, 19);
}

function monthIndex(name: string): number {
  const n = name.toLowerCase().replace(/\.$/, '');
  if (n.length < 3) return -1;
  return MONTHS.findIndex((m) => m.startsWith(n));
}

function fullYear(y: string): number {
  const n = Number(y);
  if (y.length === 2) return n < 70 ? 2000 + n : 1900 + n;
  return n;
}

/**
 * Lenient date parse (strict=false): ISO forms plus the common en-US forms a user types:
 * M/D/YYYY, M/D/YY, YYYY/M/D, M-D-YYYY, D.M.YYYY, 'March 5, 2024', 'Mar 5 2024', '5 Mar 2024'.
 */
export function parseLenientDay(s: string): string | null {
  const t = s.trim();
  const iso = parseIsoDay(t);
  if (iso !== null) return iso;
  let m = /^(\d{1,2})[/-](\d{1,2})[/-](\d{2}|\d{4})$/.exec(t);
  if (m) return makeDay(fullYear(m[3]!), Number(m[1]), Number(m[2]));
  m = /^(\d{4})[/.](\d{1,2})[/.](\d{1,2})$/.exec(t);
  if (m) return makeDay(Number(m[1]), Number(m[2]), Number(m[3]));
  m = /^(\d{1,2})\.(\d{1,2})\.(\d{4})$/.exec(t);
  if (m) return makeDay(Number(m[3]), Number(m[2]), Number(m[1]));
  m = /^([A-Za-z]+\.?)\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})$/.exec(t);
  if (m) {
    const mi = monthIndex(m[1]!);
    return mi < 0 ? null : makeDay(Number(m[3]), mi + 1, Number(m[2]));
  }
  m = /^(\d{1,2})\s+([A-Za-z]+\.?),?\s+(\d{4})$/.exec(t);
  if (m) {
    const mi = monthIndex(m[2]!);
    return mi < 0 ? null : makeDay(Number(m[3]), mi + 1, Number(m[1]));
  }
  return null;
}
