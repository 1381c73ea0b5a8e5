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

/**
 * The export a Get Sheet's Accept header asks for: the type it names with the highest q (the
 * first of equals) among JSON, CSV and Excel; undefined for JSON.
 */
export function preferredExport(accept: string | undefined, excelTypes: readonly string[]): 'csv' | 'xlsx' | undefined {
  if (accept === undefined) return undefined;
  let best: { type: string; q: number } | undefined;
  for (const part of accept.split(',')) {
    const [range, ...params] = part.trim().toLowerCase().split(';');
    const type = range?.trim() ?? '';
    if (type !== 'text/csv' && type !== 'application/json' && !excelTypes.includes(type)) continue;
    const qp = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qp === undefined ? 1 : Number(qp.slice(2));
    if (best === undefined || q > best.q) best = { type, q };
  }
  if (best === undefined || !(best.q > 0)) return undefined;
  return best.type === 'text/csv' ? 'csv' : excelTypes.includes(best.type) ? 'xlsx' : undefined;
}
