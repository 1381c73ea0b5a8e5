/**
 * What filters and conditional-format rules make of a sheet's rows. Pure: the service loads
 * the definitions and hands in rows; this decides which rows a filter hides and which format
 * a rule gives a cell.
 */
import type { ColumnDef } from './columns.ts';
import type { StoredRowCells } from './cells.ts';
import { queryMatches, type CriteriaQuery, type MatchContext, type RowFacts } from './criteria.ts';
import { FORMAT_LENGTH, parseFormat, formatToString, isDefaultFormat } from './format.ts';

export interface FilterDef {
  /** Rows that match are hidden instead of shown. */
  excludeSelected: boolean;
  /** "Show parent rows": the ancestors of a shown row are shown too. */
  includeParent: boolean;
  query: CriteriaQuery;
}

export interface ViewRow {
  id: number;
  parentId: number | null;
  cells: StoredRowCells;
  facts: RowFacts;
}

/** The ids of the rows a filter hides. */
export function filteredOutRows(filter: FilterDef, rows: Iterable<ViewRow>, columnsById: ReadonlyMap<number, ColumnDef>, m: MatchContext): Set<number> {
  const all: ViewRow[] = [...rows];
  const parentOf = new Map<number, number | null>();
  const shown = new Set<number>();
  for (const r of all) {
    parentOf.set(r.id, r.parentId);
    const hit = queryMatches(filter.query, columnsById, r.cells, r.facts, m);
    if (hit !== filter.excludeSelected) shown.add(r.id);
  }
  if (filter.includeParent) {
    for (const id of [...shown]) {
      let p = parentOf.get(id) ?? null;
      while (p !== null && !shown.has(p)) {
        shown.add(p);
        p = parentOf.get(p) ?? null;
      }
    }
  }
  const out = new Set<number>();
  for (const r of all) if (!shown.has(r.id)) out.add(r.id);
  return out;
}

/** Parsed rule formats (rules are read per request; their descriptors repeat). */
const specCache = new Map<string, Array<number | null>>();
function formatSpec(desc: string): Array<number | null> {
  let spec = specCache.get(desc);
  if (spec === undefined) {
    spec = parseFormat(desc);
    if (specCache.size >= 1000) specCache.clear();
    specCache.set(desc, spec);
  }
  return spec;
}

export interface ConditionalRule {
  id: number;
  query: CriteriaQuery;
  /** Format descriptor the rule applies (17 positions). */
  format: string;
  /** Columns the format applies to; absent: the whole row. */
  columnIds?: number[];
}

/**
 * The conditional format of each cell of a row: every rule that holds, in order, formats its
 * columns; where two rules set the same position of a cell, the earlier rule wins. Undefined
 * when no rule holds.
 */
export function conditionalFormatsOf(
  rules: readonly ConditionalRule[],
  columns: readonly ColumnDef[],
  columnsById: ReadonlyMap<number, ColumnDef>,
  cells: StoredRowCells,
  facts: RowFacts,
  m: MatchContext,
): Map<number, string> | undefined {
  let specs: Map<number, Array<number | null>> | undefined;
  for (const rule of rules) {
    if (!queryMatches(rule.query, columnsById, cells, facts, m)) continue;
    const spec = formatSpec(rule.format);
    specs ??= new Map();
    for (const colId of rule.columnIds ?? columns.map((c) => c.id)) {
      let cur = specs.get(colId);
      if (cur === undefined) {
        cur = new Array<number | null>(FORMAT_LENGTH).fill(null);
        specs.set(colId, cur);
      }
      for (let i = 0; i < FORMAT_LENGTH; i++) if (cur[i] === null && spec[i] !== null) cur[i] = spec[i]!;
    }
  }
  if (specs === undefined) return undefined;
  const out = new Map<number, string>();
  for (const [colId, spec] of specs) {
    const text = formatToString(spec);
    if (!isDefaultFormat(text)) out.set(colId, text);
  }
  return out.size === 0 ? undefined : out;
}
