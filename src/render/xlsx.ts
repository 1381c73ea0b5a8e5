import type { Cell, Row, SheetData } from 'write-excel-file/node';
import type { ColumnDef } from '../engine/columns.ts';
import type { StoredValue } from '../engine/cells.ts';
import type { RowState, SheetModel } from '../engine/model.ts';
import { rowCells, type RowPresentOptions } from './rowCells.ts';
import { shownText } from './csv.ts';

export const XLSX_TYPES = ['application/vnd.ms-excel', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'];

/** A cell of a table to write: what the API shows, and the stored value (which keeps numbers and dates as such). */
export interface TableCell {
  shown: { value?: unknown; displayValue?: string };
  stored?: StoredValue;
}

function excelCell(c: TableCell): Cell {
  const stored = c.stored;
  if (typeof stored === 'number') return { value: stored, type: Number };
  if (typeof stored === 'boolean') return { value: stored, type: Boolean };
  if (typeof stored === 'object' && stored !== null && 'd' in stored) return { value: new Date(`${stored.d}T00:00:00Z`), type: Date, format: 'yyyy-mm-dd' };
  if (typeof stored === 'object' && stored !== null && 't' in stored) return { value: new Date(stored.t), type: Date, format: 'yyyy-mm-dd hh:mm' };
  const shown = shownText(c.shown);
  return shown === undefined ? null : { value: shown, type: String };
}

/**
 * A table as an Excel workbook: one worksheet named `name`, a bold header line of titles, then a
 * line per row. Numbers, checkboxes, dates and date-times keep their kind; every other cell is
 * the text it shows.
 */
export async function tableXlsx(name: string, titles: readonly string[], lines: Iterable<readonly TableCell[]>): Promise<Buffer> {
  const data: SheetData = [titles.map((t) => ({ value: t, fontWeight: 'bold' as const }))];
  for (const cells of lines) data.push(cells.map(excelCell) as Row);
  // worksheet names: at most 31 characters, none of : \ / ? * [ ]
  const sheetName = name.replace(/[:\\/?*[\]]/g, ' ').slice(0, 31).trim() || 'Sheet1';
  // imported when first used (most servers never write a workbook: its modules stay out of memory)
  const { default: writeExcelFile } = await import('write-excel-file/node');
  return writeExcelFile(data, { sheet: sheetName }).toBuffer();
}

/**
 * A sheet as an Excel workbook (Get Sheet with `Accept: application/vnd.ms-excel`, the SDKs'
 * "get sheet as Excel"): the sheet's name, its column titles, a line per row in display order.
 */
export async function sheetXlsx(model: SheetModel, name: string, rows: readonly RowState[], o: RowPresentOptions): Promise<Buffer> {
  const cols: readonly ColumnDef[] = o.columns ?? model.columns;
  // one options object for every row: rowCells works out the cells' options once per object
  const each: RowPresentOptions = { ...o, columns: [...cols] };
  const lines = rows.map((row) => rowCells(model, row, each).map((c, i) => ({ shown: c, stored: row.cells[String(cols[i]!.id)]?.v })));
  return tableXlsx(name, cols.map((c) => c.title), lines);
}
