import { apiError } from '../errors.ts';

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
  if (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(v)) {
    const s = /T/.test(v) && !/(Z|[+-]\d{2}:?\d{2})$/.test(v) ? v + 'Z' : v;
    const ms = Date.parse(s);
    if (!Number.isNaN(ms)) return ms;
  }
  throw apiError(1018, String(v), name);
}

export interface ResultEnvelope<T> {
  message: 'SUCCESS' | 'PARTIAL_SUCCESS';
  resultCode: 0 | 3;
  result?: T;
  data?: T[];
  version?: number;
  failedItems?: BulkItemFailure[];
}

export interface ErrorBody {
  errorCode: number;
  message: string;
  refId: string;
  detail?: Record<string, unknown>;
}

export interface BulkItemFailure {
  index: number;
  rowId?: number | null;
  error: ErrorBody;
}

export function success<T>(result?: T, version?: number): ResultEnvelope<T> {
  const out: ResultEnvelope<T> = { message: 'SUCCESS', resultCode: 0 };
  if (result !== undefined) out.result = result;
  if (version !== undefined) out.version = version;
  return out;
}

export function successData<T>(data: T[], version?: number): ResultEnvelope<T> {
  const out: ResultEnvelope<T> = { message: 'SUCCESS', resultCode: 0, data };
  if (version !== undefined) out.version = version;
  return out;
}

/** Result of a bulk operation run with allowPartialSuccess: PARTIAL_SUCCESS when anything failed. */
export function bulkResult<T>(items: { result?: T; data?: T[] }, failed: BulkItemFailure[], version?: number): ResultEnvelope<T> {
  const out: ResultEnvelope<T> = failed.length > 0 ? { message: 'PARTIAL_SUCCESS', resultCode: 3 } : { message: 'SUCCESS', resultCode: 0 };
  if (items.result !== undefined) out.result = items.result;
  if (items.data !== undefined) out.data = items.data;
  if (version !== undefined) out.version = version;
  if (failed.length > 0) out.failedItems = failed;
  return out;
}
