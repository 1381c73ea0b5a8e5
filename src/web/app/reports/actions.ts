import { api, ApiError, showMessage } from '../api.ts';
import { SheetActions, type CellEdit } from '../sheet/actions.ts';
import type { SheetModel } from '../sheet/model.ts';
import { readableRefusal, type CellInput } from '../sheet/values.ts';
import type { Cell, Column, Row, Sheet } from '../sheet/types.ts';
import { atLeast } from '../panels/access.ts';

/** Get Report's JSON as the report page reads it. */
export interface Report {
  id: number;
  name: string;
  accessLevel: string;
  totalRowCount?: number;
  columns: Array<Column & { virtualId: number; sheetNameColumn?: boolean }>;
  rows: Array<Omit<Row, 'cells'> & { sheetId: number; accessLevel?: string; cells?: Array<Cell & { virtualColumnId?: number }> }>;
}

export const REPORT_QUERY = { include: 'objectValue,format', level: 2, accessApiLevel: 1, pageSize: 10000 };

/**
 * The report as the sheet grid's model reads a sheet: the report's columns by virtual id, its
 * rows in the report's order (numbered 1..n), each cell under its virtual column. The "sheet"
 * is editable when some row's source sheet is (EDITOR or more).
 */
export function reportAsSheet(r: Report): Sheet {
  const editable = r.rows.some((row) => atLeast(row.accessLevel, 'EDITOR'));
  return {
    id: r.id,
    name: r.name,
    accessLevel: editable ? 'EDITOR' : 'VIEWER',
    columns: r.columns.map((c, i) => ({
      ...c,
      id: c.virtualId,
      index: i,
      // the sheet-name column is the report's own: not a cell of any sheet
      ...(c.sheetNameColumn ? { systemColumnType: 'SHEET_NAME' } : {}),
    })),
    rows: r.rows.map((row, i) => ({
      id: row.id,
      rowNumber: i + 1,
      format: row.format,
      locked: row.locked,
      lockedForUser: row.lockedForUser,
      cells: (row.cells ?? []).filter((c) => c.virtualColumnId !== undefined).map((c) => ({ ...c, columnId: c.virtualColumnId! })),
    })),
  };
}

/**
 * The report page's actions: the sheet grid's edit pipeline (optimistic edit, revert and the
 * catalogue's message on refusal, undo and redo), with each edited row sent to its source sheet
 * (one Update Rows call per sheet) under the source sheet's column ids. Rows of sheets the
 * person may only view are not edited (a note says why); rows and columns cannot be added,
 * moved or changed through a report.
 */
export class ReportActions extends SheetActions {
  /** Per row: its source sheet and the person's level on it. */
  private rowSheet = new Map<number, { sheetId: number; level: string }>();
  /** Per row and virtual column: the source sheet's column id. */
  private sourceColumn = new Map<string, number>();
  /** Per source sheet and column: the report's virtual columns showing it. */
  private virtualColumns = new Map<string, number[]>();

  constructor(model: SheetModel, readonly reportId: number, public report: Report) {
    super(model);
    this.index(report);
  }

  private index(r: Report): void {
    this.rowSheet.clear();
    this.sourceColumn.clear();
    this.virtualColumns.clear();
    for (const row of r.rows) {
      this.rowSheet.set(row.id, { sheetId: row.sheetId, level: row.accessLevel ?? 'VIEWER' });
      for (const c of row.cells ?? []) {
        if (c.virtualColumnId === undefined || typeof c.columnId !== 'number') continue;
        this.sourceColumn.set(`${row.id}:${c.virtualColumnId}`, c.columnId);
        const key = `${row.sheetId}:${c.columnId}`;
        const list = this.virtualColumns.get(key) ?? [];
        if (!list.includes(c.virtualColumnId)) list.push(c.virtualColumnId);
        this.virtualColumns.set(key, list);
      }
    }
  }

  /**
   * A refusal of a source sheet names its column by the sheet's id for it: shown with the title
   * of the report's column that shows it (the sheet page's words otherwise).
   */
  protected override refused(e: unknown): void {
    if (!(e instanceof ApiError)) {
      super.refused(e);
      return;
    }
    showMessage(readableRefusal(e.message, (id) => {
      for (const [key, virtual] of this.virtualColumns) {
        if (key.endsWith(`:${id}`) && virtual.length > 0) return this.model.column(virtual[0]!)?.title;
      }
      return undefined;
    }));
  }

  /** May this cell be edited: the row's sheet at EDITOR or more, and a column of that sheet behind it. */
  override canEditCell(rowId: number, virtualColumnId: number): boolean {
    const src = this.rowSheet.get(rowId);
    return !!src && atLeast(src.level, 'EDITOR') && this.sourceColumn.has(`${rowId}:${virtualColumnId}`);
  }

  override async editCells(edits: CellEdit[], opts: { record?: boolean; newRows?: Array<Array<{ columnId: number; input: CellInput }>>; from?: 'undo' | 'redo' } = {}): Promise<boolean> {
    const allowed = edits.filter((e) => this.canEditCell(e.rowId, e.columnId));
    if (allowed.length < edits.length || opts.newRows?.length) {
      showMessage(opts.newRows?.length
        ? 'Rows cannot be added through a report: add them to one of its sheets.'
        : 'Some of these cells cannot be edited here: their sheet is shared with you to view only, or it has no such column.', 'note');
    }
    if (allowed.length === 0) return false;
    return super.editCells(allowed, { ...opts, newRows: undefined });
  }

  protected override async writeRows(body: Array<{ id: number; cells: Array<Record<string, unknown>> }>): Promise<Row[]> {
    const bySheet = new Map<number, Array<{ id: number; cells: Array<Record<string, unknown>> }>>();
    for (const row of body) {
      const src = this.rowSheet.get(row.id)!;
      const cells = row.cells.map((c) => ({ ...c, columnId: this.sourceColumn.get(`${row.id}:${String(c.columnId)}`) }));
      const list = bySheet.get(src.sheetId) ?? [];
      list.push({ id: row.id, cells });
      bySheet.set(src.sheetId, list);
    }
    const out: Row[] = [];
    let failure: unknown;
    for (const [sheetId, rows] of bySheet) {
      try {
        const res = await api.put<{ result: Row[] }>(`/sheets/${sheetId}/rows`, rows, { include: 'objectValue', level: 2 });
        // the sheet's answer under the report's columns
        for (const r of res.result) {
          const cells = (r.cells ?? []).flatMap((c) => (this.virtualColumns.get(`${sheetId}:${c.columnId}`) ?? []).map((v) => ({ ...c, columnId: v })));
          out.push({ id: r.id, cells });
        }
      } catch (e) {
        failure ??= e;
      }
    }
    if (failure !== undefined) {
      // some sheets may have taken their part: show what the sheets hold now
      if (out.length > 0) setTimeout(() => void this.reload().catch(() => undefined), 0);
      throw failure;
    }
    return out;
  }

  /** A report's rows are read with their conditional formats on each reload; it has no rules of its own to ask for. */
  protected override hasFormatRules(): Promise<boolean> {
    return Promise.resolve(false);
  }

  /** Reads the report again (its rows, and its columns after a change of definition): `report` is what was read. */
  override async reload(): Promise<void> {
    const r = await api.get<Report>(`/reports/${this.reportId}`, REPORT_QUERY);
    this.index(r);
    this.report = r;
    this.model.apply({ kind: 'sheet', sheet: reportAsSheet(r) });
  }
}
