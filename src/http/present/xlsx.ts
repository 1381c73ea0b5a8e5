import writeExcelFile, { type Row, type SheetData } from 'write-excel-file/node';
import type { ColumnDef } from '../../engine/columns.ts';
import type { RowState, SheetModel } from '../../services/sheetModel.ts';
import { rowCells, type RowPresentOptions } from './sheetData.ts';
import { shownText } from './csv.ts';

export const XLSX_TYPES = ['application/vnd.ms-excel', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'];

/**
 * A sheet as an Excel workbook (Get Sheet with `Accept: application/vnd.ms-excel`, the SDKs'
 * "get sheet as Excel"): one worksheet named after the sheet, a bold header line of column
 * titles, then a line per row in display order. Numbers, checkboxes, dates and date-times keep
 * their kind; every other cell is the text it shows.
 */
export async function sheetXlsx(model: SheetModel, name: string, rows: readonly RowState[], o: RowPresentOptions): Promise<Buffer> {
  const cols: readonly ColumnDef[] = o.columns ?? model.columns;
  const data: SheetData = [cols.map((c) => ({ value: c.title, fontWeight: 'bold' as const }))];
  for (const row of rows) {
    const cells = rowCells(model, row, { ...o, columns: [...cols] });
    const line: Row = cells.map((c, i) => {
      const stored = row.cells[String(cols[i]!.id)]?.v;
      if (typeof stored === 'number') return { value: stored, type: Number };
      if (typeof stored === 'boolean') return { value: stored, type: Boolean };
      if (typeof stored === 'object' && stored !== null && 'd' in stored) return { value: new Date(`${stored.d}T00:00:00Z`), type: Date, format: 'yyyy-mm-dd' };
      if (typeof stored === 'object' && stored !== null && 't' in stored) return { value: new Date(stored.t), type: Date, format: 'yyyy-mm-dd hh:mm' };
      const shown = shownText(c);
      return shown === undefined ? null : { value: shown, type: String };
    });
    data.push(line);
  }
  // worksheet names: at most 31 characters, none of : \ / ? * [ ]
  const sheetName = name.replace(/[:\\/?*[\]]/g, ' ').slice(0, 31).trim() || 'Sheet1';
  return writeExcelFile(data, { sheet: sheetName }).toBuffer();
}
