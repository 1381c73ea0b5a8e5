import { api, ApiError, showError, showMessage } from '../api.ts';
import type { SheetModel } from './model.ts';
import type { Cell, Row, Sheet } from './types.ts';
import { cellOrEmpty, cellPayload, optimisticCell, type CellInput } from './values.ts';

/** One cell's edit: the row, the column and what to send. */
export interface CellEdit {
  rowId: number;
  columnId: number;
  input: CellInput;
}

interface UndoEntry {
  before: Array<{ rowId: number; columnId: number; cell: Cell | undefined }>;
  after: CellEdit[];
}

export const SHEET_QUERY = { include: 'objectValue,format,filters,columnType', level: 2, accessApiLevel: 1 };

/**
 * Get Sheet's options for this sheet: objectValue (at level 2) only where a column needs it
 * (contacts and multi-select values to edit); it nearly doubles the answer of a large sheet.
 */
export function sheetQuery(columns: Array<{ type: string }>): Record<string, string | number> {
  const needsObjects = columns.some((c) => ['CONTACT_LIST', 'MULTI_CONTACT_LIST', 'MULTI_PICKLIST', 'PREDECESSOR', 'DURATION'].includes(c.type));
  return needsObjects ? SHEET_QUERY : { include: 'format,filters,columnType', accessApiLevel: 1 };
}

/**
 * What the page does to the sheet through the API. Cell edits are applied to the model at once
 * and sent as one Update Rows call (new rows at the end as one Add Rows call); when the server
 * refuses, the old cells are put back and the catalogue's message is shown. Undo and redo work
 * on this page's own cell edits. Changes of rows and columns wait for the server and then read
 * the sheet again.
 */
export class SheetActions {
  private undoStack: UndoEntry[] = [];
  private redoStack: UndoEntry[] = [];
  /** Edits sent and not yet answered (a test or a person may wait for them). */
  pending = 0;
  private idle: Array<() => void> = [];
  private reloadTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(readonly model: SheetModel) {}

  get sheetId(): number {
    return this.model.sheet.id;
  }

  /** Resolves when no edit is on its way to the server. */
  settled(): Promise<void> {
    return this.pending === 0 ? Promise.resolve() : new Promise((r) => this.idle.push(r));
  }

  private done(): void {
    this.pending--;
    if (this.pending === 0) for (const r of this.idle.splice(0)) r();
  }

  /** May this cell be edited through this page (beyond the sheet's access and the column)? On a sheet, yes. */
  canEditCell(_rowId: number, _columnId: number): boolean {
    return true;
  }

  /** Edits cells (one Update Rows call; `newRows`, cells for rows to add at the bottom, one Add Rows call). */
  async editCells(edits: CellEdit[], opts: { record?: boolean; newRows?: Array<Array<{ columnId: number; input: CellInput }>>; from?: 'undo' | 'redo' } = {}): Promise<boolean> {
    const model = this.model;
    if (edits.length === 0 && !opts.newRows?.length) return true;
    const before = edits.map((e) => ({ rowId: e.rowId, columnId: e.columnId, cell: model.cell(e.rowId, e.columnId) }));
    // optimistic: shown at once
    const byRow = new Map<number, CellEdit[]>();
    for (const e of edits) {
      const list = byRow.get(e.rowId) ?? [];
      list.push(e);
      byRow.set(e.rowId, list);
    }
    for (const [rowId, list] of byRow) {
      model.apply({ kind: 'cells', rowId, cells: list.map((e) => optimisticCell(model.column(e.columnId)!, e.input, model.cell(rowId, e.columnId))) });
    }
    const entry: UndoEntry = { before, after: edits };
    if (opts.record !== false && edits.length > 0) {
      this.undoStack.push(entry);
      if (this.undoStack.length > 200) this.undoStack.shift();
      if (!opts.from) this.redoStack = [];
    }
    this.pending++;
    try {
      if (byRow.size > 0) {
        const body = [...byRow].map(([id, list]) => ({ id, cells: list.map((e) => cellPayload(e.columnId, e.input)) }));
        model.apply({ kind: 'rows', rows: await this.writeRows(body) });
      }
      if (opts.newRows?.length) {
        const body = opts.newRows.map((cells) => ({ toBottom: true, cells: cells.map((c) => cellPayload(c.columnId, c.input)) }));
        await api.post(`/sheets/${this.sheetId}/rows`, body);
        await this.reload();
      }
      this.afterWrite();
      return true;
    } catch (e) {
      // refused: the cells as they were, and the server's words
      for (const b of before) model.apply({ kind: 'cells', rowId: b.rowId, cells: [cellOrEmpty(b.columnId, b.cell)] });
      const i = this.undoStack.indexOf(entry);
      if (i >= 0) this.undoStack.splice(i, 1);
      showError(e);
      return false;
    } finally {
      this.done();
    }
  }

  /**
   * Sends cell edits (one Update Rows call) and answers the rows as the server wrote them. The
   * report page's actions send them to each row's source sheet instead (reports/actions.ts).
   */
  protected async writeRows(body: Array<{ id: number; cells: Array<Record<string, unknown>> }>): Promise<Row[]> {
    return (await api.put<{ result: Row[] }>(`/sheets/${this.sheetId}/rows`, body, { include: 'objectValue', level: 2 })).result;
  }

  /** Other cells may follow an edit (formulas): read the sheet again shortly after. */
  private afterWrite(): void {
    const hasFormulas = this.model.columns.some((c) => c.formula) || this.model.order.some((id) => [...this.model.rows.get(id)!.cells.values()].some((c) => c.formula));
    if (!hasFormulas || this.model.order.length > 5000) return;
    if (this.reloadTimer) clearTimeout(this.reloadTimer);
    this.reloadTimer = setTimeout(() => {
      this.reloadTimer = null;
      if (this.pending === 0) void this.reload().catch(() => undefined);
    }, 250);
  }

  async undo(): Promise<void> {
    const entry = this.undoStack.pop();
    if (!entry) {
      showMessage('Nothing to undo.', 'note');
      return;
    }
    const edits = entry.before.map((b) => ({ rowId: b.rowId, columnId: b.columnId, input: inputOfCell(this.model, b.columnId, b.cell) }));
    // redo is offered at once (a quick Ctrl+Y need not wait for the server), taken back if refused
    this.redoStack.push(entry);
    const ok = await this.editCells(edits, { record: false, from: 'undo' });
    if (!ok) {
      const i = this.redoStack.indexOf(entry);
      if (i >= 0) this.redoStack.splice(i, 1);
      this.undoStack.push(entry);
    }
  }

  async redo(): Promise<void> {
    const entry = this.redoStack.pop();
    if (!entry) {
      showMessage('Nothing to redo.', 'note');
      return;
    }
    await this.editCells(entry.after, { from: 'redo' });
  }

  /** Reads the sheet again (Get Sheet) into the model, keeping the sheet filter applied. */
  async reload(): Promise<void> {
    const sheet = await api.get<Sheet>(`/sheets/${this.sheetId}`, sheetQuery(this.model.columns));
    this.model.apply({ kind: 'sheet', sheet });
  }

  /** A change of rows or columns: the call, then the sheet read again; a refusal shown in words. */
  async structural(fn: () => Promise<unknown>): Promise<boolean> {
    this.pending++;
    try {
      await fn();
      await this.reload();
      return true;
    } catch (e) {
      showError(e);
      if (!(e instanceof ApiError)) console.error(e);
      return false;
    } finally {
      this.done();
    }
  }

  insertRow(rowId: number | null, above: boolean): Promise<boolean> {
    const loc = rowId === null ? { toBottom: true } : above ? { siblingId: rowId, above: true } : { siblingId: rowId };
    // a row inserted above the first child of a parent becomes its first child
    const r = rowId !== null ? this.model.rows.get(rowId) : undefined;
    const body = r && r.parentId !== null && above && this.firstChild(r.parentId) === rowId ? { parentId: r.parentId, toTop: true } : loc;
    return this.structural(() => api.post(`/sheets/${this.sheetId}/rows`, [{ ...body, cells: [] }]));
  }

  deleteRows(ids: number[]): Promise<boolean> {
    return this.structural(() => api.del(`/sheets/${this.sheetId}/rows`, { ids: ids.join(','), ignoreRowsNotFound: true }));
  }

  private siblings(rowId: number): number[] {
    const p = this.model.rows.get(rowId)?.parentId ?? null;
    return this.model.order.filter((id) => (this.model.rows.get(id)?.parentId ?? null) === p);
  }

  private firstChild(parentId: number): number | undefined {
    return this.model.order.find((id) => this.model.rows.get(id)?.parentId === parentId);
  }

  /** Indent: the row becomes the last child of the sibling above it. */
  indent(rowId: number): Promise<boolean> {
    const sibs = this.siblings(rowId);
    const i = sibs.indexOf(rowId);
    if (i <= 0) {
      showMessage('This row cannot be indented: there is no row above it at its level.');
      return Promise.resolve(false);
    }
    return this.structural(() => api.put(`/sheets/${this.sheetId}/rows`, [{ id: rowId, parentId: sibs[i - 1], toBottom: true }]));
  }

  /** Outdent: the row follows its parent, one level up. */
  outdent(rowId: number): Promise<boolean> {
    const parent = this.model.rows.get(rowId)?.parentId ?? null;
    if (parent === null) {
      showMessage('This row is at the top level already.');
      return Promise.resolve(false);
    }
    return this.structural(() => api.put(`/sheets/${this.sheetId}/rows`, [{ id: rowId, siblingId: parent }]));
  }

  /** Moves a row up or down among its siblings. */
  move(rowId: number, dir: -1 | 1): Promise<boolean> {
    const sibs = this.siblings(rowId);
    const i = sibs.indexOf(rowId);
    const j = i + dir;
    if (j < 0 || j >= sibs.length) return Promise.resolve(false);
    const loc = dir < 0 ? { siblingId: sibs[j], above: true } : { siblingId: sibs[j] };
    return this.structural(() => api.put(`/sheets/${this.sheetId}/rows`, [{ id: rowId, ...loc }]));
  }

  /** Moves a row to a location of Update Rows (siblingId, parentId with toTop, toTop...): a row dragged and dropped. */
  moveRow(rowId: number, location: Record<string, unknown>): Promise<boolean> {
    return this.structural(() => api.put(`/sheets/${this.sheetId}/rows`, [{ id: rowId, ...location }]));
  }

  async setExpanded(rowId: number, expanded: boolean): Promise<void> {
    this.model.apply({ kind: 'expanded', rowId, expanded });
    if (!this.model.canEdit) return;
    try {
      await api.put(`/sheets/${this.sheetId}/rows`, [{ id: rowId, expanded }]);
    } catch (e) {
      showError(e);
    }
  }

  sort(columnId: number, ascending: boolean): Promise<boolean> {
    return this.structural(() => api.post(`/sheets/${this.sheetId}/sort`, { sortCriteria: [{ columnId, direction: ascending ? 'ASCENDING' : 'DESCENDING' }] }));
  }

  addColumn(index: number, title: string, type: string, options?: string[]): Promise<boolean> {
    return this.structural(() => api.post(`/sheets/${this.sheetId}/columns`, [{ title, type, index, ...(options?.length ? { options } : {}) }]));
  }

  updateColumn(columnId: number, change: Record<string, unknown>): Promise<boolean> {
    return this.structural(() => api.put(`/sheets/${this.sheetId}/columns/${columnId}`, change));
  }

  deleteColumn(columnId: number): Promise<boolean> {
    return this.structural(() => api.del(`/sheets/${this.sheetId}/columns/${columnId}`));
  }
}

/** The input that puts a cell back as it was (undo). */
export function inputOfCell(model: SheetModel, columnId: number, c: Cell | undefined): CellInput {
  if (!c) return { value: '' };
  if (c.formula) return { formula: c.formula };
  const col = model.column(columnId);
  if (c.objectValue && col && ['MULTI_PICKLIST', 'MULTI_CONTACT_LIST', 'CONTACT_LIST'].includes(col.type)) return { objectValue: c.objectValue as Record<string, unknown> };
  if (c.value === undefined || c.value === null) return { value: '' };
  return { value: c.value };
}
