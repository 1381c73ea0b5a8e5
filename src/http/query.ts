import { apiError } from '../errors.ts';
import type { ReadOptions } from '../services/platform/context.ts';
import { DEFAULT_PAGE_SIZE, type Paging, type TokenPaging } from '../paging.ts';

/**
 * Parsing of the query parameters every endpoint may carry (spec 4.1), read as the public
 * service reads them, so that every official client's spelling works: booleans in any case
 * (`True` is what the Python SDK sends), comma lists with or without spaces or as repeated
 * parameters, and the first value of a repeated scalar parameter. Bad values answer 1018
 * ("value {0} invalid for parameter {1}"); nothing else is guessed.
 */
export type Query = Record<string, string | string[] | undefined>;

/** A scalar parameter; repeated, its first value counts (as Java servlet containers read it). */
export function one(q: Query, name: string): string | undefined {
  const v = q[name];
  if (Array.isArray(v)) return v[0];
  return v;
}

export function bool(q: Query, name: string, dflt = false): boolean {
  const v = one(q, name);
  if (v === undefined || v === '') return dflt;
  const lower = v.toLowerCase();
  if (lower === 'true') return true;
  if (lower === 'false') return false;
  throw apiError(1018, v, name);
}

export function int(q: Query, name: string, opts: { min?: number; max?: number } = {}): number | undefined {
  const v = one(q, name);
  if (v === undefined || v === '') return undefined;
  if (!/^-?\d+$/.test(v)) throw apiError(1018, v, name);
  const n = Number(v);
  if (!Number.isSafeInteger(n)) throw apiError(1018, v, name);
  if (opts.min !== undefined && opts.max !== undefined && (n < opts.min || n > opts.max)) {
    throw apiError(1229, v, name, opts.min, opts.max);
  }
  if (opts.min !== undefined && n < opts.min) throw apiError(1018, v, name);
  if (opts.max !== undefined && n > opts.max) throw apiError(1018, v, name);
  return n;
}

/** Comma-separated list (include=a,b or include=a&include=b). */
export function list(q: Query, name: string): string[] {
  const v = q[name];
  if (v === undefined) return [];
  const parts = Array.isArray(v) ? v : [v];
  return parts.flatMap((p) => p.split(',')).map((s) => s.trim()).filter((s) => s !== '');
}

/**
 * A comma-separated list of names from a fixed set, matched ignoring case and answered in the
 * set's spelling; a name outside the set is 1018.
 */
export function enumList<T extends string>(q: Query, name: string, allowed: readonly T[]): T[] {
  return list(q, name).map((s) => {
    const found = allowed.find((a) => a.toLowerCase() === s.toLowerCase());
    if (found === undefined) throw apiError(1018, s, name);
    return found;
  });
}

/** A comma-separated list of ids (rowIds=1,2,3). */
export function idList(q: Query, name: string): number[] {
  return list(q, name).map((s) => {
    if (!/^\d+$/.test(s)) throw apiError(1018, s, name);
    const n = Number(s);
    if (!Number.isSafeInteger(n)) throw apiError(1018, s, name);
    return n;
  });
}

/** The read options of a request that names none (most): one object, shared, never changed. */
const NO_READ_OPTIONS: ReadOptions = Object.freeze({ include: new Set<string>(), exclude: new Set<string>(), numericDates: false, level: 0, accessApiLevel: 0 });

export function readOptions(q: Query): ReadOptions {
  if (q.include === undefined && q.exclude === undefined && q.numericDates === undefined && q.level === undefined && q.accessApiLevel === undefined) {
    return NO_READ_OPTIONS;
  }
  return {
    include: new Set(list(q, 'include')),
    exclude: new Set(list(q, 'exclude')),
    numericDates: bool(q, 'numericDates'),
    level: int(q, 'level', { min: 0 }) ?? 0,
    accessApiLevel: int(q, 'accessApiLevel', { min: 0 }) ?? 0,
  };
}

export { DEFAULT_PAGE_SIZE, type Paging, type TokenPaging };

export function paging(q: Query, defaultPageSize = DEFAULT_PAGE_SIZE): Paging {
  if (bool(q, 'includeAll')) return { page: 1, pageSize: null };
  const page = int(q, 'page', { min: 1 }) ?? 1;
  const pageSize = int(q, 'pageSize', { min: 1 }) ?? defaultPageSize;
  return { page, pageSize };
}

/** maxItems is 1 to 1000 (default 100); lastKey is a token this server handed out (base-36 offset). */
export function tokenPaging(q: Query): TokenPaging {
  const max = int(q, 'maxItems', { min: 1, max: 1000 }) ?? DEFAULT_PAGE_SIZE;
  const lastKey = one(q, 'lastKey');
  if (lastKey === undefined || lastKey === '') return { from: 0, max };
  const from = /^[0-9a-z]{1,11}$/i.test(lastKey) ? Number.parseInt(lastKey, 36) : NaN;
  if (!Number.isSafeInteger(from)) throw apiError(1018, lastKey, 'lastKey');
  return { from, max };
}

/** Path parameters are numeric ids; anything else is an unknown object. */
export function pathId(v: string | undefined): number {
  if (v === undefined || !/^\d{1,16}$/.test(v)) throw apiError(1006);
  const n = Number(v);
  if (!Number.isSafeInteger(n)) throw apiError(1006);
  return n;
}
