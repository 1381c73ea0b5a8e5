import { stringify } from 'csv-stringify/sync';
import type { ColumnDef } from '../../engine/columns.ts';
import type { RowState, SheetModel } from '../../services/sheetModel.ts';
import { rowCells, type RowPresentOptions } from './sheetData.ts';

/**
 * A sheet as CSV (Get Sheet with `Accept: text/csv`): a header line of column titles, then one
 * line per row in display order with what each cell shows (its displayValue, else its value).
 */
export function sheetCsv(model: SheetModel, rows: readonly RowState[], o: RowPresentOptions): string {
  const cols: readonly ColumnDef[] = o.columns ?? model.columns;
  const records: string[][] = [cols.map((c) => c.title)];
  for (const row of rows) {
    const cells = rowCells(model, row, { ...o, columns: [...cols] });
    records.push(cells.map((c) => {
      const shown = c.displayValue ?? c.value;
      return shown === undefined || shown === null ? '' : String(shown);
    }));
  }
  return stringify(records, { record_delimiter: '\r\n' });
}

/** Does the Accept header prefer CSV to JSON? (the first of the two it names with the higher q) */
export function prefersCsv(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  let best: { type: string; q: number } | undefined;
  for (const part of accept.split(',')) {
    const [range, ...params] = part.trim().toLowerCase().split(';');
    const type = range?.trim();
    if (type !== 'text/csv' && type !== 'application/json') continue;
    const qp = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qp === undefined ? 1 : Number(qp.slice(2));
    if (best === undefined || q > best.q) best = { type, q };
  }
  return best?.type === 'text/csv' && best.q > 0;
}
