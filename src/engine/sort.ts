/**
 * Sorting rows (POST /sheets/{id}/sort): the SortSpecifier, a value order per column type,
 * and the hierarchy-keeping sort of RowTree (siblings sorted within each parent).
 *
 * Order: blanks always last (in both directions). Otherwise numbers, dates, durations and
 * checkbox states compare by magnitude and come before text; text compares case-insensitively
 * with natural numbers ("item 2" < "item 10"); contacts by display name; symbol picklists by
 * the symbol's own order. Ties keep the current order (stable).
 */
import { InvalidInput } from './errors.ts';
import type { StoredCell, StoredValue } from './cells.ts';
import { SYMBOL_VALUES, type ColumnDef } from './columns.ts';
import { valueText } from './display.ts';
import { dayToEpochMs } from './dates.ts';
import { durationToMs } from './duration.ts';
import type { RowMutationOptions, RowTree } from './rows.ts';

export type SortDirection = 'ASCENDING' | 'DESCENDING';

export interface SortCriterion {
  columnId: number;
  direction: SortDirection;
}

/**
 * Read a SortSpecifier body: sortCriteria is a non-empty array (1012); each columnId must be
 * a column of the sheet (1036); direction ASCENDING (default) or DESCENDING (1031).
 */
export function readSortSpecifier(body: unknown, columnsById: ReadonlyMap<number, ColumnDef>): SortCriterion[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new InvalidInput(1012, 'sortCriteria');
  const list = (body as Record<string, unknown>).sortCriteria;
  if (!Array.isArray(list) || list.length === 0) throw new InvalidInput(1012, 'sortCriteria');
  return list.map((x: unknown) => {
    if (typeof x !== 'object' || x === null) throw new InvalidInput(1012, 'sortCriteria.columnId');
    const o = x as Record<string, unknown>;
    if (o.columnId === undefined || o.columnId === null) throw new InvalidInput(1012, 'sortCriteria.columnId');
    if (typeof o.columnId !== 'number' || !columnsById.has(o.columnId)) throw new InvalidInput(1036, String(o.columnId));
    const d = o.direction ?? 'ASCENDING';
    if (d !== 'ASCENDING' && d !== 'DESCENDING') throw new InvalidInput(1031, String(d), 'direction');
    return { columnId: o.columnId, direction: d };
  });
}

/** A sortable projection of a cell: rank 0 numeric, 1 text, 2 blank. */
export interface SortKey {
  rank: 0 | 1 | 2;
  n: number;
  s: string;
}

const BLANK: SortKey = { rank: 2, n: 0, s: '' };
const collator = new Intl.Collator('en', { sensitivity: 'base', numeric: true });

export function sortKey(column: ColumnDef, v: StoredValue | undefined, format?: string): SortKey {
  if (v === undefined) return BLANK;
  if (typeof v === 'number') return { rank: 0, n: v, s: '' };
  if (typeof v === 'boolean') return { rank: 0, n: v ? 1 : 0, s: '' };
  if (typeof v === 'string') {
    const symbolOrder = column.symbol === undefined ? undefined : SYMBOL_VALUES[column.symbol];
    const i = symbolOrder?.indexOf(v) ?? -1;
    if (i >= 0) return { rank: 0, n: i, s: '' };
    return v === '' ? BLANK : { rank: 1, n: 0, s: v };
  }
  if ('d' in v) return { rank: 0, n: dayToEpochMs(v.d), s: '' };
  if ('t' in v) return { rank: 0, n: v.t, s: '' };
  if ('du' in v) return { rank: 0, n: durationToMs(v.du), s: '' };
  return { rank: 1, n: 0, s: valueText(column, v, format) };
}

export function compareSortKeys(a: SortKey, b: SortKey, direction: SortDirection = 'ASCENDING'): number {
  if (a.rank === 2 || b.rank === 2) return a.rank === b.rank ? 0 : a.rank === 2 ? 1 : -1;
  let c: number;
  if (a.rank !== b.rank) c = a.rank - b.rank;
  else if (a.rank === 0) c = a.n < b.n ? -1 : a.n > b.n ? 1 : 0;
  else c = collator.compare(a.s, b.s);
  return direction === 'DESCENDING' ? -c : c;
}

/**
 * Sort the rows of `tree` by the criteria (priority order), siblings within each parent.
 * `cellOf` returns a row's stored cell for a column. Keys are computed once per row.
 * 1223 when the sheet holds a locked row and the caller cannot edit locked rows.
 */
export function sortRows(
  tree: RowTree,
  criteria: readonly SortCriterion[],
  columnsById: ReadonlyMap<number, ColumnDef>,
  cellOf: (rowId: number, columnId: number) => StoredCell | undefined,
  opts: RowMutationOptions = {},
): void {
  const cols = criteria.map((c) => columnsById.get(c.columnId)!);
  const keys = new Map<number, SortKey[]>();
  for (const id of tree.displayOrder()) {
    keys.set(id, cols.map((col) => {
      const cell = cellOf(id, col.id);
      return sortKey(col, cell?.v, cell?.f ?? col.format);
    }));
  }
  tree.sort((a, b) => {
    const ka = keys.get(a)!;
    const kb = keys.get(b)!;
    for (let i = 0; i < criteria.length; i++) {
      const c = compareSortKeys(ka[i]!, kb[i]!, criteria[i]!.direction);
      if (c !== 0) return c;
    }
    return 0;
  }, opts);
}
