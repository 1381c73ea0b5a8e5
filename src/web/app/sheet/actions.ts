import { api, ApiError, showError, showMessage, type Result } from '../api.ts';
import { mergeColumns, type SheetModel } from './model.ts';
import type { Cell, Column, Row, Sheet } from './types.ts';
import { cellPayload, linkAsSent, optimisticCell, readableRefusal, type CellInput } from './values.ts';
import { cellKey, RowSync } from './sync.ts';

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

/** Column properties whose change alters what cells hold or show: the sheet is read again after them. */
const COLUMN_REREAD = ['type', 'options', 'formula', 'symbol', 'systemColumnType', 'validation', 'format', 'contactOptions', 'autoNumberFormat'];

/** A project sheet's columns whose parent-row values come from the children. */
const ROLLED_UP = new Set(['GANTT_START_DATE', 'GANTT_END_DATE', 'GANTT_DURATION', 'GANTT_PERCENT_COMPLETE']);

/**
 * What the page does to the sheet through the API. Cell edits are applied to the model at once
 * and sent as one Update Rows call (new rows at the end as one Add Rows call); when the server
 * refuses, the old cells are put back and the catalogue's message is shown. Undo and redo work
 * on this page's own cell edits. Changes of rows and columns wait for the server and apply its
 * answer to the model (rows placed, columns merged); only a sort, a column change that alters
 * cells (type, options, formula) or a change that moves formulas' references reads the sheet
 * again. Answers go through `sync` (sync.ts), which the change stream shares, so that the
 * page's writes and the stream's events of the same rows never show an older value last.
 */
export class SheetActions {
  private undoStack: UndoEntry[] = [];
  private redoStack: UndoEntry[] = [];
  /** Edits sent and not yet answered (a test or a person may wait for them). */
  pending = 0;
  private idle: Array<() => void> = [];
  private reloadTimer: ReturnType<typeof setTimeout> | null = null;
  private answers = new WeakMap<Row[], number>();
  readonly sync: RowSync;
  /** The change stream is open (live.ts): it brings the rows whose formula results a write changed. */
  live = false;
  /** Set by the change stream: holds its events while the sheet is read again (the release applies them after). */
  hold: (() => () => void) | null = null;
  /** The ids of the rows the last insertRow added. */
  lastAdded: number[] = [];

  constructor(readonly model: SheetModel) {
    this.sync = new RowSync(model);
    // cells changed (by the page or the change stream): their conditional formats follow (formatsLater)
    model.onChange((scope, rowIds) => {
      if (scope !== 'cells' || this.applyingFormats || !rowIds?.length) return;
      for (const id of rowIds) this.formatsDue.add(id);
      this.formatsLater();
    });
  }

  /** Whether the sheet has conditional-format rules (read once, when first needed). */
  private rules: Promise<boolean> | null = null;
  private formatsDue = new Set<number>();
  private formatsTimer: ReturnType<typeof setTimeout> | null = null;
  private applyingFormats = false;

  /** Does this sheet have conditional-format rules? (A report's page has none of its own.) */
  protected hasFormatRules(): Promise<boolean> {
    this.rules ??= api.get<{ data?: unknown[] }>(`/sheetd/sheets/${this.sheetId}/conditionalformats`).then((r) => (r.data?.length ?? 0) > 0, () => false);
    return this.rules;
  }

  /**
   * Conditional formats are worked out by the server when rows are read (Get Sheet with
   * include=format); a write's answer and the change stream's rows carry none. So once the
   * page's writes are answered, the changed rows' formats are read again, and only their
   * conditionalFormat is taken (the values stay as the writes and the stream left them).
   */
  private formatsLater(): void {
    if (this.formatsTimer) clearTimeout(this.formatsTimer);
    this.formatsTimer = setTimeout(() => {
      this.formatsTimer = null;
      if (this.pending > 0) {
        this.formatsLater();
        return;
      }
      const ids = [...this.formatsDue].filter((id) => this.model.rows.has(id));
      this.formatsDue.clear();
      if (ids.length > 0) void this.readFormats(ids).catch(() => undefined);
    }, 120);
  }

  private async readFormats(rowIds: number[]): Promise<void> {
    if (!(await this.hasFormatRules())) return;
    const read = await api.get<Sheet>(`/sheets/${this.sheetId}`, { include: 'format', rowIds: rowIds.join(',') });
    this.applyingFormats = true;
    try {
      for (const r of read.rows) {
        const row = this.model.rows.get(r.id);
        if (!row) continue;
        const now = new Map((r.cells ?? []).map((c) => [c.columnId, c.conditionalFormat]));
        const changed: Cell[] = [];
        for (const [columnId, c] of row.cells) {
          const cf = now.get(columnId);
          if ((c.conditionalFormat ?? undefined) === cf) continue;
          const next: Cell = { ...c };
          if (cf === undefined) delete next.conditionalFormat;
          else next.conditionalFormat = cf;
          changed.push(next);
        }
        for (const [columnId, cf] of now) if (cf !== undefined && !row.cells.has(columnId)) changed.push({ columnId, conditionalFormat: cf });
        if (changed.length > 0) this.model.apply({ kind: 'cells', rowId: r.id, cells: changed });
      }
    } finally {
      this.applyingFormats = false;
    }
  }

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

  /** Work before an edit is sent (reading typed text may wait for the people a name is matched with): counted as pending. */
  async busy<T>(fn: () => Promise<T>): Promise<T> {
    this.pending++;
    try {
      return await fn();
    } finally {
      this.done();
    }
  }

  /** May this cell be edited through this page (beyond the sheet's access and the column)? On a sheet, yes, but for a project sheet's rolled-up parent values. */
  canEditCell(rowId: number, columnId: number): boolean {
    // a project sheet's parent row: its dates, duration and % complete roll up from its children (the server refuses them: 1155)
    if (this.model.sheet.dependenciesEnabled && this.model.parents.has(rowId)) {
      const tags = this.model.column(columnId)?.tags ?? [];
      if (tags.some((t) => ROLLED_UP.has(t))) return false;
    }
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
    this.sync.begin(edits);
    let open = true;
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
        const rows = await this.writeRows(body);
        open = false;
        this.sync.answered(edits, rows, this.answers.get(rows));
      }
      open = false;
      if (opts.newRows?.length) {
        const body = opts.newRows.map((cells) => ({ toBottom: true, cells: cells.map((c) => cellPayload(c.columnId, c.input)) }));
        const res = await api.post<Result<Row[]>>(`/sheets/${this.sheetId}/rows`, body);
        this.sync.answered([], res.result, res.version);
      }
      this.afterWrite();
      return true;
    } catch (e) {
      // refused: the cells as they were (or as someone else set them meanwhile), and the server's words
      if (open) this.sync.refused(edits, new Map(before.map((b) => [cellKey(b.rowId, b.columnId), b.cell])));
      const i = this.undoStack.indexOf(entry);
      if (i >= 0) this.undoStack.splice(i, 1);
      this.refused(e);
      return false;
    } finally {
      this.done();
    }
  }

  /**
   * Shows a refusal in the catalogue's words, naming a column of this sheet by its title where
   * the message has its id, and a value it quotes as JSON in words (values.ts readableRefusal).
   */
  protected refused(e: unknown): void {
    if (!(e instanceof ApiError)) {
      showError(e);
      return;
    }
    showMessage(readableRefusal(e.message, (id) => this.model.column(id)?.title));
  }

  /**
   * Sends cell edits (one Update Rows call) and answers the rows as the server wrote them. The
   * report page's actions send them to each row's source sheet instead (reports/actions.ts).
   */
  protected async writeRows(body: Array<{ id: number; cells: Array<Record<string, unknown>> }>): Promise<Row[]> {
    const res = await api.put<Result<Row[]>>(`/sheets/${this.sheetId}/rows`, body, { include: 'objectValue', level: 2 });
    if (res.version !== undefined) this.answers.set(res.result, res.version);
    return res.result;
  }

  /** Whether the sheet has formulas (a change may alter other cells). */
  private get hasFormulas(): boolean {
    return this.model.columns.some((c) => c.formula) || this.model.order.some((id) => [...this.model.rows.get(id)!.cells.values()].some((c) => c.formula));
  }

  /** Other cells may follow an edit (formulas): without the change stream (which brings them), read the sheet again shortly after. */
  private afterWrite(): void {
    if (this.live) return;
    if (this.model.order.length > 5000 || !this.hasFormulas) return;
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
    const edits = entry.before.map((b) => ({ rowId: b.rowId, columnId: b.columnId, input: inputOfCell(this.model, b.columnId, b.cell, this.model.cell(b.rowId, b.columnId)) }));
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
    const release = this.hold?.();
    try {
      const sheet = await api.get<Sheet>(`/sheets/${this.sheetId}`, sheetQuery(this.model.columns));
      this.model.apply({ kind: 'sheet', sheet });
    } finally {
      release?.();
    }
  }

  /** A change of rows or columns: the call, which applies the server's answer to the model; a refusal shown in words. */
  async structural(fn: () => Promise<unknown>): Promise<boolean> {
    this.pending++;
    try {
      await fn();
      return true;
    } catch (e) {
      this.refused(e);
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
    this.lastAdded = [];
    return this.structural(async () => {
      const res = await api.post<Result<Row[]>>(`/sheets/${this.sheetId}/rows`, [{ ...body, cells: [] }]);
      this.lastAdded = res.result.map((r) => r.id);
      this.sync.answered([], res.result, res.version);
    });
  }

  deleteRows(ids: number[]): Promise<boolean> {
    return this.structural(async () => {
      await api.del(`/sheets/${this.sheetId}/rows`, { ids: ids.join(','), ignoreRowsNotFound: true });
      this.sync.deleted(ids);
      // formulas that read the rows now read fewer (or #REF): the stream brings them, else the sheet again
      if (!this.live && this.hasFormulas) await this.reload();
    });
  }

  /** Update Rows for a row's place (indent, outdent, moves): the answer places it (with the rows under it). */
  private placeRow(row: Record<string, unknown>): Promise<boolean> {
    return this.structural(async () => {
      const res = await api.put<Result<Row[]>>(`/sheets/${this.sheetId}/rows`, [row]);
      this.sync.answered([], res.result, res.version);
      if (!this.live && this.hasFormulas) await this.reload();
    });
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
    return this.placeRow({ id: rowId, parentId: sibs[i - 1], toBottom: true });
  }

  /** Outdent: the row follows its parent, one level up. */
  outdent(rowId: number): Promise<boolean> {
    const parent = this.model.rows.get(rowId)?.parentId ?? null;
    if (parent === null) {
      showMessage('This row is at the top level already.');
      return Promise.resolve(false);
    }
    return this.placeRow({ id: rowId, siblingId: parent });
  }

  /** Moves a row up or down among its siblings. */
  move(rowId: number, dir: -1 | 1): Promise<boolean> {
    const sibs = this.siblings(rowId);
    const i = sibs.indexOf(rowId);
    const j = i + dir;
    if (j < 0 || j >= sibs.length) return Promise.resolve(false);
    const loc = dir < 0 ? { siblingId: sibs[j], above: true } : { siblingId: sibs[j] };
    return this.placeRow({ id: rowId, ...loc });
  }

  /** Moves a row to a location of Update Rows (siblingId, parentId with toTop, toTop...): a row dragged and dropped. */
  moveRow(rowId: number, location: Record<string, unknown>): Promise<boolean> {
    return this.placeRow({ id: rowId, ...location });
  }

  async setExpanded(rowId: number, expanded: boolean): Promise<void> {
    this.model.apply({ kind: 'expanded', rowId, expanded });
    if (!this.model.canEdit) return;
    try {
      await api.put(`/sheets/${this.sheetId}/rows`, [{ id: rowId, expanded }]);
    } catch (e) {
      this.refused(e);
    }
  }

  sort(columnId: number, ascending: boolean): Promise<boolean> {
    return this.structural(async () => {
      await api.post(`/sheets/${this.sheetId}/sort`, { sortCriteria: [{ columnId, direction: ascending ? 'ASCENDING' : 'DESCENDING' }] });
      await this.reload();
    });
  }

  addColumn(index: number, title: string, type: string, options?: string[]): Promise<boolean> {
    return this.structural(async () => {
      const res = await api.post<Result<Column[]>>(`/sheets/${this.sheetId}/columns`, [{ title, type, index, ...(options?.length ? { options } : {}) }]);
      this.model.apply({ kind: 'columns', columns: mergeColumns(this.model.columns, res.result) });
    });
  }

  updateColumn(columnId: number, change: Record<string, unknown>): Promise<boolean> {
    return this.structural(async () => {
      const res = await api.put<Result<Column>>(`/sheets/${this.sheetId}/columns/${columnId}`, change);
      this.applyColumns([res.result], []);
    });
  }

  deleteColumn(columnId: number): Promise<boolean> {
    return this.structural(async () => {
      await api.del(`/sheets/${this.sheetId}/columns/${columnId}`);
      this.applyColumns([], [columnId]);
    });
  }

  /**
   * Columns added, changed or deleted (an answer, or the change stream): merged into the model,
   * or the sheet read again when cells change with them (a new type, options, a column formula)
   * or formulas may name them (a title changed, a column deleted, with formulas in the sheet).
   */
  async applyColumns(changed: Column[], deleted: number[]): Promise<void> {
    const model = this.model;
    const alters = changed.some((c) => {
      const old = model.column(c.id);
      if (!old) return false;
      if (COLUMN_REREAD.some((k) => JSON.stringify((c as unknown as Record<string, unknown>)[k]) !== JSON.stringify((old as unknown as Record<string, unknown>)[k]))) return true;
      return c.title !== old.title && this.hasFormulas;
    });
    if (alters || (deleted.some((id) => model.column(id)) && this.hasFormulas)) {
      await this.reload();
      return;
    }
    const fresh = changed.filter((c) => {
      const old = model.column(c.id);
      return !old || JSON.stringify({ ...old, ...c }) !== JSON.stringify(old);
    });
    const gone = deleted.filter((id) => model.column(id));
    if (fresh.length === 0 && gone.length === 0) return;
    model.apply({ kind: 'columns', columns: mergeColumns(model.columns, fresh.map((c) => ({ ...model.column(c.id), ...c })), gone) });
  }
}

/** The input that puts a cell back as it was (undo). */
export function inputOfCell(model: SheetModel, columnId: number, c: Cell | undefined, now?: Cell): CellInput {
  // a link back as it was (a sheet's by its id: the server gives its address), or taken away
  const text = c?.value === undefined || c.value === null ? '' : String(c.value);
  if (c?.hyperlink && !c.formula) return { hyperlink: linkAsSent(c.hyperlink), value: text };
  if (now?.hyperlink) return { hyperlink: null, value: text };
  if (!c) return { value: '' };
  if (c.formula) return { formula: c.formula };
  const col = model.column(columnId);
  if (c.objectValue && col && ['MULTI_PICKLIST', 'MULTI_CONTACT_LIST', 'CONTACT_LIST'].includes(col.type)) return { objectValue: c.objectValue as Record<string, unknown> };
  if (c.value === undefined || c.value === null) return { value: '' };
  return { value: c.value };
}
