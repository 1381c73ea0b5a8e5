// Dates as the API writes and reads them: rendered per numericDates, parsed from query and body.
import { apiError } from '../../errors.ts';
import { dropZAfterOffset, parseIsoDateTime } from '../../engine/dates.ts';

// Rows written together share their timestamps: remember the last few renderings.
const tsCache = new Map<number, string>();

/** `YYYY-MM-DDTHH:MM:SSZ`, or epoch milliseconds when numericDates=true. */
export function ts(ms: number, numericDates: boolean): string | number {
  if (numericDates) return ms;
  let s = tsCache.get(ms);
  if (s === undefined) {
    s = new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
    if (tsCache.size >= 256) tsCache.delete(tsCache.keys().next().value!);
    tsCache.set(ms, s);
  }
  return s;
}

export function optTs(ms: number | null | undefined, numericDates: boolean): string | number | undefined {
  return ms == null ? undefined : ts(ms, numericDates);
}

/** A date-time sent by a client: ISO-8601, or epoch ms with numericDates. 1018 otherwise. */
export function parseTimestamp(v: unknown, numericDates: boolean, name: string): number {
  if (numericDates) {
    const n = typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : v;
    if (typeof n === 'number' && Number.isSafeInteger(n)) return n;
    throw apiError(1018, String(v), name);
  }
  // ISO-8601 as cells take it, which includes the Python SDK's forms: a space for the T (str()
  // of a datetime) and microseconds; and an offset followed by a Z (isoformat() + 'Z'). An
  // impossible time (February 30, 24:00) is not one.
  if (typeof v === 'string') {
    const ms = parseIsoDateTime(dropZAfterOffset(v));
    if (ms !== null) return ms;
  }
  throw apiError(1018, String(v), name);
}
