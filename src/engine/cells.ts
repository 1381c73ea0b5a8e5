/**
 * The stored form of cells: compact, JSON-serialisable, one object per row keyed by column id.
 *
 *   StoredRowCells = { "<columnId>": StoredCell, ... }     (blank cells are simply absent)
 *   StoredCell     = { v?: StoredValue, f?: format, fx?: formula, h?: hyperlink,
 *                      li?: linkInFromCell, img?: image }
 *   StoredValue    = string                      free text (any column type)
 *                  | number                      number (TEXT_NUMBER, PICKLIST)
 *                  | boolean                     checkbox state (CHECKBOX)
 *                  | { d: 'YYYY-MM-DD' }         calendar day (DATE)
 *                  | { t: epochMs }              instant (DATETIME, ABSTRACT_DATETIME)
 *                  | { c: {email, name?} }       one contact (CONTACT_LIST)
 *                  | { mc: [{email, name?}] }    contacts (MULTI_CONTACT_LIST)
 *                  | { mp: [string] }            options (MULTI_PICKLIST)
 *                  | { du: Duration }            duration (DURATION)
 *                  | { p: [{rowId, type, lag?}] } predecessors by row id (PREDECESSOR)
 *
 * A value keeps its kind when the column type changes only if the new type takes it
 * (see convert.ts); otherwise it becomes free text.
 */
import { literalMaker } from './literals.ts';
import type { StoredContact } from './contacts.ts';
import type { Duration } from './duration.ts';
import type { StoredPredecessor } from './predecessors.ts';

export type StoredValue =
  | string
  | number
  | boolean
  | { d: string }
  | { t: number }
  | { c: StoredContact }
  | { mc: StoredContact[] }
  | { mp: string[] }
  | { du: Duration }
  | { p: StoredPredecessor[] };

export interface StoredHyperlink {
  url?: string;
  sheetId?: number;
  reportId?: number;
  sightId?: number;
}

export const CELL_LINK_STATUSES = ['OK', 'BROKEN', 'INACCESSIBLE', 'NOT_SHARED', 'BLOCKED', 'CIRCULAR', 'DISABLED', 'INVALID'] as const;
export type CellLinkStatus = (typeof CELL_LINK_STATUSES)[number];

export interface StoredCellLink {
  sheetId: number;
  rowId: number;
  columnId: number;
  sheetName?: string;
  status?: CellLinkStatus;
}

export interface StoredImage {
  id: string;
  height?: number;
  width?: number;
  altText?: string;
}

export interface StoredCell {
  v?: StoredValue;
  /** Non-default format descriptor (17 positions). */
  f?: string;
  /** Formula text as written (owned by the formula engine; `v` then holds its result). */
  fx?: string;
  h?: StoredHyperlink;
  li?: StoredCellLink;
  img?: StoredImage;
}

export type StoredRowCells = Record<string, StoredCell>;

const cellKeys = new Map<number, string>();

/**
 * The key of a column's cells in StoredRowCells (and in a row's cell meta): String(columnId),
 * the same string each time, so that the many cell reads and writes of a request do not each
 * turn the id into a new string to look up.
 */
export function cellKey(columnId: number): string {
  let k = cellKeys.get(columnId);
  if (k === undefined) {
    if (cellKeys.size >= 10_000) cellKeys.clear();
    k = String(columnId);
    cellKeys.set(columnId, k);
  }
  return k;
}

/**
 * `{ [keys[0]]: values[0], ... }` for cell keys (column ids as digits), in that order. Built a
 * property at a time, an object of more than about a dozen such keys becomes a dictionary in V8
 * (larger, slower to build and to serialise than the objects JSON.parse makes when a sheet is
 * loaded); this one comes from an object literal made once per list of keys, like the rows a
 * sheet's JSON gives. A literal costs a compilation (about 30 microseconds, a dozen rows built
 * property by property), so a list gets one when it has come COMPILE_AFTER times: rows with
 * blanks in ever different columns are built property by property, as before. The rows of one
 * write mostly share their keys: the last list is checked first.
 */
export function cellsObject<T>(keys: readonly string[], values: readonly T[]): Record<string, T> {
  const last = lastMaker;
  if (last !== undefined && last.keys.length === keys.length && last.keys.every((k, i) => k === keys[i])) return last.make(values) as Record<string, T>;
  const id = keys.join(',');
  let make = makers.get(id);
  if (make === undefined) {
    const seen = (sightings.get(id) ?? 0) + 1;
    if (seen < COMPILE_AFTER || keys.length === 0 || !keys.every((k) => DIGITS.test(k)) || new Set(keys).size !== keys.length) {
      // a list seen a few times only, or not one of distinct cell keys: property by property
      if (sightings.size >= 10_000) sightings.clear();
      sightings.set(id, seen);
      const out: Record<string, T> = {};
      for (let i = 0; i < keys.length; i++) out[keys[i]!] = values[i]!;
      return out;
    }
    sightings.delete(id);
    if (makers.size >= 1_000) makers.clear();
    // digits only: never "__proto__"
    make = literalMaker(keys)!;
    makers.set(id, make);
  }
  lastMaker = { keys: [...keys], make };
  return make(values) as Record<string, T>;
}
const COMPILE_AFTER = 16;
const DIGITS = /^[0-9]{1,20}$/;
const makers = new Map<string, (v: readonly unknown[]) => Record<string, unknown>>();
/** How many times each list of keys without a literal yet has come. */
const sightings = new Map<string, number>();
let lastMaker: { keys: readonly string[]; make: (v: readonly unknown[]) => Record<string, unknown> } | undefined;

/** Discriminate the object kinds of StoredValue. */
export function valueKind(v: StoredValue | undefined): 'blank' | 'text' | 'number' | 'boolean' | 'date' | 'instant' | 'contact' | 'contacts' | 'options' | 'duration' | 'predecessors' {
  if (v === undefined) return 'blank';
  if (typeof v === 'string') return 'text';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'boolean';
  if ('d' in v) return 'date';
  if ('t' in v) return 'instant';
  if ('c' in v) return 'contact';
  if ('mc' in v) return 'contacts';
  if ('mp' in v) return 'options';
  if ('du' in v) return 'duration';
  return 'predecessors';
}

/** A cell counts as holding data when it has a value, formula, link or image. */
export function cellHasData(c: StoredCell | undefined): boolean {
  return c !== undefined && (c.v !== undefined || c.fx !== undefined || c.li !== undefined || c.img !== undefined);
}

/** A row has data when any of its cells does (the 1185 rule uses this). */
export function rowHasData(cells: StoredRowCells | undefined): boolean {
  if (cells === undefined) return false;
  for (const k in cells) if (cellHasData(cells[k])) return true;
  return false;
}

/** True when nothing at all is stored for the cell (it can be dropped from the row). */
export function isEmptyCell(c: StoredCell): boolean {
  return c.v === undefined && c.f === undefined && c.fx === undefined && c.h === undefined && c.li === undefined && c.img === undefined;
}

/**
 * Rows' cells objects a write made by a spread copy of a row's cells that then only replaced
 * values of keys it had (parseRowCells): V8's fast shape, and an identity no reader has seen (a
 * model being written is out of the cache). Saving a model copies each written row's cells into
 * a fresh object of that shape (store/sheetModels.ts compactRows) unless it is one of these:
 * 500 rows updated copied 500 objects of 20 cells that were such already.
 */
const freshCells = new WeakSet<object>();

export function markFreshCells(cells: StoredRowCells): void {
  freshCells.add(cells);
}

/** Whether `cells` was marked fresh (markFreshCells) and not taken since; it is not fresh after this. */
export function takeFreshCells(cells: StoredRowCells): boolean {
  return freshCells.delete(cells);
}
