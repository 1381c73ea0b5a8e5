/**
 * What the parser and renderer need to know about a sheet: column titles <-> ids and row
 * numbers <-> row ids. The engine implements it over its own model; `staticSchema` builds one
 * from plain lists (tests, and callers that parse outside an engine).
 */
import type { ColumnId, RowId } from './ast.ts';

export interface SheetSchema {
  /** The column with this title (exact match first, then case-insensitive). */
  columnIdByTitle(title: string): ColumnId | undefined;
  /** The current title, or undefined when the column was deleted. */
  columnTitle(id: ColumnId): string | undefined;
  /** The row shown at this 1-based row number. */
  rowIdByNumber(rowNumber: number): RowId | undefined;
  /** The current 1-based row number, or undefined when the row was deleted. */
  rowNumber(id: RowId): number | undefined;
}

/** Title lookup shared by schema implementations: exact title, else the unique case-insensitive match. */
export function findColumnByTitle(columns: Iterable<readonly [ColumnId, string]>, title: string): ColumnId | undefined {
  let folded: ColumnId | undefined;
  let foldedCount = 0;
  const lower = title.toLowerCase();
  for (const [id, t] of columns) {
    if (t === title) return id;
    if (t.toLowerCase() === lower) {
      folded = id;
      foldedCount++;
    }
  }
  return foldedCount === 1 ? folded : undefined;
}

export function staticSchema(
  columns: readonly { readonly id: ColumnId; readonly title: string }[],
  rowIds: readonly RowId[],
): SheetSchema {
  const titles = new Map(columns.map((c) => [c.id, c.title] as const));
  const numbers = new Map(rowIds.map((id, i) => [id, i + 1] as const));
  return {
    columnIdByTitle: (title) => findColumnByTitle(titles, title),
    columnTitle: (id) => titles.get(id),
    rowIdByNumber: (n) => rowIds[n - 1],
    rowNumber: (id) => numbers.get(id),
  };
}
