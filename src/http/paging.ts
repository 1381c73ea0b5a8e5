import { pageWindow, type Paging, type TokenPaging } from '../paging.ts';

export { pageWindow };

/** IndexResult of spec 2.1. */
export interface IndexResult<T> {
  pageNumber: number;
  pageSize?: number;
  totalPages: number;
  totalCount: number;
  data: T[];
}

export function indexResult<T>(total: number, p: Paging, data: T[]): IndexResult<T> {
  const w = pageWindow(total, p);
  const out: IndexResult<T> = { pageNumber: w.pageNumber, totalPages: w.totalPages, totalCount: total, data };
  if (p.pageSize !== null) out.pageSize = p.pageSize;
  return out;
}

/** Paged slice of an in-memory list. */
export function paginate<T>(items: readonly T[], p: Paging): IndexResult<T> {
  const w = pageWindow(items.length, p);
  const data = w.limit === null ? items.slice() : items.slice(w.offset, w.offset + w.limit);
  return indexResult(items.length, p, data);
}

/**
 * The stream-style result (unknown totals): -1 totals while data is non-empty, and all four
 * fields 0 at the first empty page after the end.
 */
export function streamResult<T>(p: Paging, data: T[]): IndexResult<T> {
  if (data.length === 0) return { pageNumber: 0, pageSize: 0, totalPages: 0, totalCount: 0, data };
  const out: IndexResult<T> = { pageNumber: p.page, totalPages: -1, totalCount: -1, data };
  if (p.pageSize !== null) out.pageSize = p.pageSize;
  return out;
}

/** One page of a token-paged list, and the lastKey of the next page when there is one. */
export function tokenSlice<T>(items: readonly T[], p: TokenPaging): { page: T[]; lastKey?: string } {
  const page = items.slice(p.from, p.from + p.max);
  return p.from + p.max < items.length ? { page, lastKey: (p.from + p.max).toString(36) } : { page };
}
