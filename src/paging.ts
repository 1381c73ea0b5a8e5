/**
 * Paging as the API defines it (page, pageSize, includeAll; maxItems, lastKey), shared by the
 * layers: http parses it from a query (http/query.ts), services and store slice by it.
 */
export interface Paging {
  page: number;
  /** null when includeAll=true (no limit) */
  pageSize: number | null;
}

/** Token paging (maxItems, lastKey): where the page starts and how many items it holds at most. */
export interface TokenPaging {
  from: number;
  max: number;
}

export const DEFAULT_PAGE_SIZE = 100;

/** Which slice of a result of `total` items a request asks for: a page past the end is the last page. */
export function pageWindow(total: number, p: Paging): { pageNumber: number; offset: number; limit: number | null; totalPages: number } {
  if (p.pageSize === null) return { pageNumber: 1, offset: 0, limit: null, totalPages: total === 0 ? 0 : 1 };
  const totalPages = Math.ceil(total / p.pageSize);
  const pageNumber = totalPages === 0 ? 1 : Math.min(p.page, totalPages);
  return { pageNumber, offset: (pageNumber - 1) * p.pageSize, limit: p.pageSize, totalPages };
}
