import type { Cell, Column, Filter, Row, Sheet } from './types.ts';

/**
 * The page's one model of the open sheet, built from Get Sheet. Everything the grid shows is
 * read from it, and every change reaches it through `apply(change)`:
 *
 *  - the page's own edits, applied at once (optimistically) and again with the server's answer,
 *    or reverted with the old cells when the server refuses;
 *  - later, the change stream: a live-collaboration module turns each event into one of the
 *    `Change` kinds below (or `{ kind: 'sheet' }` with a fresh Get Sheet) and calls `apply`.
 *
 * `apply` never talks to the server. Listeners (`onChange`) hear what changed: `cells` (only
 * values of known rows: the grid redraws those rows), `rows` (rows added, deleted, moved or
 * shown/hidden: the grid sets its rows again, keeping the focused cell and the rows in view),
 * `structure` (a new sheet or new columns: the grid rebuilds columns and rows) or `meta` (the
 * sheet's name, version or access level: nothing to redraw).
 */
export type Change =
  /** A whole new Get Sheet (reload, or the server's answer to a structural change). */
  | { kind: 'sheet'; sheet: Sheet }
  /** Rows as the API returns them (Update Rows / Add Rows results, a change event's row): cells merged, place kept unless new. */
  | { kind: 'rows'; rows: Row[] }
  /** Some cells of one row, e.g. an optimistic edit or its revert. */
  | { kind: 'cells'; rowId: number; cells: Cell[] }
  | { kind: 'deleteRows'; ids: number[] }
  /** A row's expanded state (expand/collapse). */
  | { kind: 'expanded'; rowId: number; expanded: boolean }
  | { kind: 'columns'; columns: Column[] }
  /** The sheet's own properties (name, version, accessLevel), from the change stream. */
  | { kind: 'meta'; sheet: Partial<Pick<Sheet, 'name' | 'version' | 'accessLevel' | 'permalink' | 'filters'>> };

export interface RowState {
  id: number;
  parentId: number | null;
  expanded: boolean;
  rowNumber: number;
  format?: string;
  conditionalFormat?: string;
  locked: boolean;
  cells: Map<number, Cell>;
}

export type ChangeScope = 'cells' | 'rows' | 'structure' | 'meta';

/**
 * An ad-hoc filter on one column: it hides the rows whose shown value is one of `hidden` (the
 * values the person unticked). A value it does not name is never hidden: one the filter dialog
 * did not list, or one typed after the filter was applied.
 */
export interface ColumnFilter {
  columnId: number;
  hidden: Set<string>;
}

export class SheetModel {
  sheet!: Sheet;
  columns: Column[] = [];
  rows = new Map<number, RowState>();
  /** Every row id in sheet order (parents before their children). */
  order: number[] = [];
  /** Rows with at least one child. */
  parents = new Set<number>();
  /** Per row, how deep it is (0 at the top). */
  levels = new Map<number, number>();
  /** Shown rows (collapsed parents' descendants and filtered-out rows left out), in order. */
  visible: number[] = [];
  /** The ad-hoc column filter, if any. */
  columnFilter: ColumnFilter | null = null;
  /** The person's applied sheet filter (the rows it shows, as the last Get Sheet said), null for none. */
  sheetFilter: { filter: Filter; rowIds: Set<number> } | null = null;
  /** Rows shown even where the applied sheet filter hides them: the person's own new rows, until another filter is applied. */
  keptShown = new Set<number>();
  private listeners: Array<(scope: ChangeScope, rowIds?: number[]) => void> = [];

  constructor(sheet: Sheet) {
    this.apply({ kind: 'sheet', sheet });
  }

  onChange(fn: (scope: ChangeScope, rowIds?: number[]) => void): void {
    this.listeners.push(fn);
  }

  get canEdit(): boolean {
    return ['OWNER', 'ADMIN', 'EDITOR', 'EDITOR_SHARE'].includes(this.sheet.accessLevel);
  }

  get canAdmin(): boolean {
    return ['OWNER', 'ADMIN'].includes(this.sheet.accessLevel);
  }

  column(id: number): Column | undefined {
    return this.columns.find((c) => c.id === id);
  }

  cell(rowId: number, columnId: number): Cell | undefined {
    return this.rows.get(rowId)?.cells.get(columnId);
  }

  /** The one way in for every change: see the module's comment. */
  apply(change: Change): void {
    let scope: ChangeScope = 'structure';
    let touched: number[] | undefined;
    switch (change.kind) {
      case 'sheet': {
        this.sheet = change.sheet;
        this.columns = [...change.sheet.columns].sort((a, b) => a.index - b.index);
        this.rows.clear();
        this.order = [];
        for (const r of change.sheet.rows) {
          this.rows.set(r.id, rowState(r));
          this.order.push(r.id);
        }
        if (this.columnFilter && !this.column(this.columnFilter.columnId)) this.columnFilter = null;
        // read with the sheet's filters: the person's applied filter, and the rows it hides
        if (change.sheet.filters !== undefined) {
          const applied = change.sheet.filters.find((f) => f.applied === true);
          if (applied?.id !== this.sheetFilter?.filter.id) this.keptShown.clear();
          this.sheetFilter = applied ? { filter: applied, rowIds: new Set(change.sheet.rows.filter((r) => !r.filteredOut).map((r) => r.id)) } : null;
        }
        break;
      }
      case 'rows': {
        // rows as the server has them: new ones, and known ones whose place (parent, sibling above) changed, are placed
        const place: Row[] = [];
        let at: Map<number, number> | undefined;
        // a few rows (an edit, an event): the order searched; many (a paste): indexed once
        const indexOf = (id: number) => (change.rows.length < 16 ? this.order.indexOf(id) : ((at ??= new Map(this.order.map((x, i) => [x, i]))).get(id) ?? -1));
        for (const r of change.rows) {
          const old = this.rows.get(r.id);
          if (!old) {
            this.rows.set(r.id, rowState(r));
            place.push(r);
            continue;
          }
          for (const c of r.cells ?? []) old.cells.set(c.columnId, c);
          if (r.rowNumber !== undefined) {
            // a row of Get Row's shape says where it is: parentId and siblingId left out mean none
            const parentId = r.parentId ?? null;
            if (parentId !== old.parentId || (r.siblingId ?? null) !== this.siblingAbove(r.id, indexOf(r.id))) place.push(r);
            old.parentId = parentId;
          } else if (r.parentId !== undefined || r.siblingId !== undefined) {
            if ((r.parentId ?? null) !== old.parentId) place.push(r);
            old.parentId = r.parentId ?? null;
          }
          if (r.expanded !== undefined) old.expanded = r.expanded;
          if (r.rowNumber !== undefined) old.rowNumber = r.rowNumber;
          if (r.format !== undefined) old.format = r.format;
          if (r.conditionalFormat !== undefined) old.conditionalFormat = r.conditionalFormat;
          if (r.lockedForUser !== undefined || r.locked !== undefined) old.locked = !!r.lockedForUser;
        }
        if (place.length === 0) {
          scope = 'cells';
          touched = change.rows.map((r) => r.id);
        } else {
          scope = 'rows';
          // rows that moved together keep their order: every row of the change that says where it is is placed again
          this.placeRows(change.rows.filter((r) => place.includes(r) || r.rowNumber !== undefined));
        }
        break;
      }
      case 'cells': {
        const row = this.rows.get(change.rowId);
        if (!row) return;
        for (const c of change.cells) row.cells.set(c.columnId, c);
        scope = 'cells';
        touched = [change.rowId];
        break;
      }
      case 'deleteRows': {
        const gone = new Set(change.ids.filter((id) => this.rows.has(id)));
        if (gone.size === 0) return;
        scope = 'rows';
        // children go with their parent
        for (const id of this.order) {
          const p = this.rows.get(id)?.parentId;
          if (p !== null && p !== undefined && gone.has(p)) gone.add(id);
        }
        for (const id of gone) this.rows.delete(id);
        this.order = this.order.filter((id) => !gone.has(id));
        break;
      }
      case 'expanded': {
        const row = this.rows.get(change.rowId);
        if (!row) return;
        if (row.expanded === change.expanded) return;
        row.expanded = change.expanded;
        scope = 'rows';
        break;
      }
      case 'columns': {
        this.columns = [...change.columns].sort((a, b) => a.index - b.index);
        this.sheet.columns = this.columns;
        break;
      }
      case 'meta': {
        Object.assign(this.sheet, change.sheet);
        scope = 'meta';
        break;
      }
    }
    if (scope === 'structure' || scope === 'rows') this.restructure();
    else if (this.columnFilter || this.sheetFilter) {
      // an edited value may now pass or fail the ad-hoc filter: keep the rows shown until a rebuild
    }
    for (const fn of this.listeners) fn(scope, touched);
  }

  /** Row numbers, levels, parents and the shown rows, after the order or the tree changed. */
  restructure(): void {
    this.parents.clear();
    this.levels.clear();
    for (const id of this.order) {
      const r = this.rows.get(id)!;
      if (r.parentId !== null) this.parents.add(r.parentId);
      this.levels.set(id, r.parentId !== null ? (this.levels.get(r.parentId) ?? 0) + 1 : 0);
    }
    this.order.forEach((id, i) => {
      this.rows.get(id)!.rowNumber = i + 1;
    });
    const hidden = new Set<number>();
    const out: number[] = [];
    const cf = this.columnFilter;
    for (const id of this.order) {
      const r = this.rows.get(id)!;
      if (r.parentId !== null && (hidden.has(r.parentId) || !this.rows.get(r.parentId)?.expanded)) {
        hidden.add(id);
        continue;
      }
      if (this.sheetFilter && !this.sheetFilter.rowIds.has(id) && !this.keptShown.has(id)) continue;
      if (cf && cf.hidden.has(shownText(r.cells.get(cf.columnId)))) continue;
      out.push(id);
    }
    this.visible = out;
  }

  /**
   * Puts new or moved rows into the order (each with the rows under it): after their sibling
   * above (and its descendants), else first under their parent, else at their row number.
   */
  private placeRows(unsorted: Row[]): void {
    // in sheet order: a row's sibling above or parent, when placed too, is placed before it
    const rows = [...unsorted].sort((a, b) => (a.rowNumber ?? Infinity) - (b.rowNumber ?? Infinity));
    for (const r of rows) {
      let block = [r.id];
      const i = this.order.indexOf(r.id);
      if (i >= 0) {
        let j = i + 1;
        while (j < this.order.length && this.isUnder(this.order[j]!, r.id)) j++;
        block = this.order.splice(i, j - i);
      }
      let at: number;
      if (r.siblingId !== undefined && this.order.includes(r.siblingId)) {
        // after the sibling and its descendants
        at = this.order.indexOf(r.siblingId) + 1;
        while (at < this.order.length && this.isUnder(this.order[at]!, r.siblingId)) at++;
      } else if (r.parentId !== undefined && r.parentId !== null && this.order.includes(r.parentId)) {
        at = this.order.indexOf(r.parentId) + 1;
      } else if (r.rowNumber !== undefined) {
        at = Math.min(r.rowNumber - 1, this.order.length);
      } else at = this.order.length;
      this.order.splice(at, 0, ...block);
    }
  }

  /** Whether a row is under another (a child, a grandchild, ...). */
  private isUnder(id: number, ancestor: number): boolean {
    let p = this.rows.get(id)?.parentId ?? null;
    for (let n = 0; p !== null && n < 100; n++) {
      if (p === ancestor) return true;
      p = this.rows.get(p)?.parentId ?? null;
    }
    return false;
  }

  /** The row's sibling above it in the model's order (same parent), or null for a first child. */
  siblingAbove(id: number, index = this.order.indexOf(id)): number | null {
    const p = this.rows.get(id)?.parentId ?? null;
    for (let i = index - 1; i >= 0; i--) {
      const other = this.order[i]!;
      if (other === p) return null;
      if ((this.rows.get(other)?.parentId ?? null) === p) return other;
    }
    return null;
  }

  /**
   * Every distinct shown value of a column, over all rows (for the ad-hoc filter), in the order
   * of the column's values: see `valueOrder`.
   */
  distinctValues(columnId: number): string[] {
    const col = this.column(columnId);
    const firstCell = new Map<string, Cell | undefined>();
    for (const id of this.order) {
      const c = this.rows.get(id)!.cells.get(columnId);
      const text = shownText(c);
      if (!firstCell.has(text)) firstCell.set(text, c);
    }
    return valueOrder(col?.type ?? 'TEXT_NUMBER', [...firstCell]);
  }
}

const natural = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });
const DATE_TYPES = new Set(['DATE', 'ABSTRACT_DATETIME', 'DATETIME']);

/**
 * Shown values (each with a cell that shows it) in the order a spreadsheet's filter lists them:
 * the blank first, then numbers by size (a checkbox's false before true), in a date column the
 * dates by date, then the rest as text in natural order ("item 2" before "item 10").
 */
export function valueOrder(columnType: string, values: Array<[string, Cell | undefined]>): string[] {
  const keyed = values.map(([text, c]) => {
    const v = c?.value;
    let n: number | null = null;
    if (text === '') return { text, rank: 0, n };
    if (typeof v === 'number' && Number.isFinite(v)) n = v;
    else if (typeof v === 'boolean') n = v ? 1 : 0;
    else if (DATE_TYPES.has(columnType) && typeof v === 'string') {
      const t = Date.parse(v);
      if (Number.isFinite(t)) n = t;
    }
    return { text, rank: n === null ? 2 : 1, n };
  });
  keyed.sort((a, b) => a.rank - b.rank || (a.n !== null && b.n !== null && a.n !== b.n ? a.n - b.n : natural.compare(a.text, b.text)) || (a.text < b.text ? -1 : a.text > b.text ? 1 : 0));
  return keyed.map((k) => k.text);
}

/**
 * The columns after some were added or changed (each at its index, as Get Column gives it) and
 * some deleted: the others keep their order and every index is renumbered, as the server does.
 */
export function mergeColumns(current: readonly Column[], changed: readonly Column[], deleted: readonly number[] = []): Column[] {
  const drop = new Set([...deleted, ...changed.map((c) => c.id)]);
  const list = current.filter((c) => !drop.has(c.id)).sort((a, b) => a.index - b.index);
  for (const c of [...changed].sort((a, b) => a.index - b.index)) list.splice(Math.min(Math.max(0, c.index), list.length), 0, c);
  return list.map((c, i) => (c.index === i ? c : { ...c, index: i }));
}

function rowState(r: Row): RowState {
  const cells = new Map<number, Cell>();
  for (const c of r.cells ?? []) cells.set(c.columnId, c);
  return {
    id: r.id,
    parentId: r.parentId ?? null,
    expanded: r.expanded ?? true,
    rowNumber: r.rowNumber ?? 0,
    format: r.format,
    conditionalFormat: r.conditionalFormat,
    locked: !!r.lockedForUser,
    cells,
  };
}

/** What a cell shows: the API's displayValue, else its value as text. */
export function shownText(c: Cell | undefined): string {
  if (!c) return '';
  if (c.displayValue !== undefined && c.displayValue !== null) return String(c.displayValue);
  if (c.value === undefined || c.value === null) return '';
  return String(c.value);
}

const shortTimestamp = new Intl.DateTimeFormat(undefined, { dateStyle: 'short', timeStyle: 'short' });

/**
 * What a cell of this column shows in the grid: a DATETIME column's (Created, Modified) instant
 * is given by the API in ISO 8601 UTC; the grid shows it in the person's own locale and time
 * zone, short, with the ISO text kept as the cell's title. Every other cell: shownText.
 */
export function gridText(col: Column, c: Cell | undefined): { text: string; title?: string } {
  const text = shownText(c);
  // a project sheet's dates (ABSTRACT_DATETIME: a day and the start of its working day, no
  // zone) show as the day, as DATE cells do; the whole value is the cell's title
  if (col.type === 'ABSTRACT_DATETIME') {
    const day = /^(\d{4}-\d{2}-\d{2})T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.exec(text)?.[1];
    return day === undefined ? { text } : { text: day, title: text };
  }
  if (col.type !== 'DATETIME' || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?Z$/.test(text)) return { text };
  return { text: shortTimestamp.format(new Date(text)), title: text };
}
