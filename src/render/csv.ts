import { stringify } from 'csv-stringify/sync';
import type { ColumnDef } from '../engine/columns.ts';
import type { ApiCell } from '../engine/display.ts';
import type { RowState, SheetModel } from '../engine/model.ts';
import { rowCells, type RowPresentOptions } from './rowCells.ts';

/** What a cell shows as text: its displayValue, else its value; undefined when blank. */
export function shownText(c: ApiCell | { value?: unknown; displayValue?: string }): string | undefined {
  const shown = c.displayValue ?? c.value;
  return shown === undefined || shown === null ? undefined : String(shown);
}

/** A table as CSV: a header line of titles, then a line per row of what each cell shows. */
export function tableCsv(titles: readonly string[], lines: Iterable<ReadonlyArray<ApiCell | { value?: unknown; displayValue?: string }>>): string {
  const records: string[][] = [[...titles]];
  for (const cells of lines) records.push(cells.map((c) => shownText(c) ?? ''));
  return stringify(records, { record_delimiter: '\r\n' });
}

/**
 * A sheet as CSV (Get Sheet with `Accept: text/csv`): a header line of column titles, then one
 * line per row in display order with what each cell shows (its displayValue, else its value).
 */
export function sheetCsv(model: SheetModel, rows: readonly RowState[], o: RowPresentOptions): string {
  const cols: readonly ColumnDef[] = o.columns ?? model.columns;
  // one options object for every row: rowCells works out the cells' options once per object
  const each: RowPresentOptions = { ...o, columns: [...cols] };
  return tableCsv(cols.map((c) => c.title), rows.map((row) => rowCells(model, row, each)));
}
