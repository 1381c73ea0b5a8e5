import { stringify } from 'csv-stringify/sync';
import type { ColumnDef } from '../../engine/columns.ts';
import type { ApiCell } from '../../engine/display.ts';
import type { RowState, SheetModel } from '../../services/sheetModel.ts';
import { rowCells, type RowPresentOptions } from './sheetData.ts';

/** What a cell shows as text: its displayValue, else its value; undefined when blank. */
export function shownText(c: ApiCell): string | undefined {
  const shown = c.displayValue ?? c.value;
  return shown === undefined || shown === null ? undefined : String(shown);
}

/**
 * A sheet as CSV (Get Sheet with `Accept: text/csv`): a header line of column titles, then one
 * line per row in display order with what each cell shows (its displayValue, else its value).
 */
export function sheetCsv(model: SheetModel, rows: readonly RowState[], o: RowPresentOptions): string {
  const cols: readonly ColumnDef[] = o.columns ?? model.columns;
  const records: string[][] = [cols.map((c) => c.title)];
  for (const row of rows) {
    const cells = rowCells(model, row, { ...o, columns: [...cols] });
    records.push(cells.map((c) => shownText(c) ?? ''));
  }
  return stringify(records, { record_delimiter: '\r\n' });
}
