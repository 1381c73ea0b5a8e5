import { defineCustomElements } from '@revolist/revogrid/loader';
import type { ColumnRegular, HyperFunc, VNode, CellTemplateProp } from '@revolist/revogrid';
import type { SheetModel } from './model.ts';
import { gridText, shownText } from './model.ts';
import type { Column } from './types.ts';
import type { SheetActions, CellEdit } from './actions.ts';
import { SheetCellEditor, editorEnv, columnOfProp } from './editors.ts';
import { copyText, inputFromText, isRefusal, linkTarget, readOnlyReason, refusalMessage, symbolOf, TYPE_LABELS, type CellInput, type Refusal, type TextContext } from './values.ts';
import { readText, textContext } from './typed.ts';
import { parseTsv, toTsv } from './tsv.ts';
import { formatStyle } from './formats.ts';
import { showMessage } from '../api.ts';
import { nextFrame } from '../dom.ts';

/**
 * The sheet's grid: RevoGrid (virtualized DOM cells) configured from the model. Rows are the
 * model's shown rows; each data column's prop is `c<columnId>` holding the shown text, and the
 * row object carries `id` (the row id) and `n` (its row number). Cell look (formats, symbols,
 * check boxes, the hierarchy's indent and toggle) is drawn by cell templates from the model;
 * edits, pastes and clears are caught before RevoGrid writes them and go to SheetActions.
 *
 * ARIA (the WAI-ARIA grid pattern, for the rows rendered): the element is role=treegrid with
 * aria-rowcount (header row + shown rows) and aria-colcount (row number + columns); header cells
 * are role=columnheader; rows role=row with aria-rowindex (the header is 1, the first data row
 * 2) and aria-level; cells role=gridcell with aria-colindex (the row number is 1) and
 * aria-selected on the focused cell. RevoGrid draws the frozen primary column and the row
 * numbers in panes of their own, so one sheet row is up to three role=row elements with the
 * same aria-rowindex, each holding its own cells.
 */

export interface Focus {
  rowId: number;
  columnId: number;
}

/** Someone else's focused cell (presence): an outline of their colour, their names. */
export interface Peer {
  color: string;
  names: string[];
}

const ROW_SIZE = 32;

type Src = Record<string, unknown> & { id: number; n: number };

let defined = false;

export class SheetGrid {
  readonly el: HTMLRevoGridElement;
  focus: Focus | null = null;
  private listeners: Array<(f: Focus | null) => void> = [];
  private palette: string[] = [];
  private cols: Column[] = [];
  /** Rows and columns may be moved here by dragging (a sheet, not a report). */
  private readonly moves: boolean;
  /** Other people's focused cells, by "rowId:columnId". */
  private peers = new Map<string, Peer>();
  /** While the grid puts its focus back after rows changed: no scrolling to it, no taking the keyboard focus. */
  private quiet = 0;
  /** The keyboard focus is in the grid (or was, until a redraw removed its element). */
  private hasKeyboard = false;
  /** Where the relayouts scroll to, until the grid is there. */
  private scrollingTo: number | null = null;
  /** The relayouts' scrolling, while it runs (one scroll at a time: see scrollToTarget). */
  private scrolling: Promise<void> | null = null;
  /** Relayouts so far (the focus is put back by the last one). */
  private relayouts = 0;

  constructor(
    readonly host: HTMLElement,
    readonly model: SheetModel,
    readonly actions: SheetActions,
    opts: { palette: string[]; moves?: boolean },
  ) {
    if (!defined) {
      defineCustomElements();
      defined = true;
    }
    this.palette = opts.palette;
    this.moves = opts.moves ?? true;
    editorEnv.model = model;
    editorEnv.tabbed = (back) => {
      const pos = this.focusPos();
      if (pos && (back ? pos.colIdx > 0 : pos.colIdx < this.cols.length - 1)) void this.moveFocus(pos.y, pos.colIdx + (back ? -1 : 1));
    };
    editorEnv.closed = () => {
      const a = document.activeElement;
      if (this.focus && (!a || a === document.body)) this.markFocused(this.focus, 0);
    };
    const el = document.createElement('revo-grid');
    this.el = el;
    el.className = 'sd-grid';
    el.setAttribute('aria-label', `${model.sheet.name}: sheet`);
    el.hideAttribution = true;
    el.accessible = false;
    el.range = true;
    el.resize = model.canAdmin;
    el.readonly = !model.canEdit;
    // dragging a column's header moves it (saved with Update Column); rows move by their grip
    el.canMoveColumns = this.moves && model.canAdmin;
    el.canDrag = this.moves && model.canEdit;
    el.useClipboard = true;
    el.theme = 'compact';
    el.rowSize = ROW_SIZE;
    el.editors = { sheetd: SheetCellEditor as never };
    this.fitRowHeader();
    // Tab reaches the grid; its focus goes to the focused cell (the first one at first)
    el.tabIndex = 0;
    const enter = () => {
      if (this.focus && this.model.visible.includes(this.focus.rowId)) void this.focusCell(this.focus.rowId, this.focus.columnId);
      else if (this.model.visible.length > 0 && this.cols.length > 0) void this.focusCell(this.model.visible[0]!, this.cols[0]!.id);
    };
    el.addEventListener('focus', enter);
    // RevoGrid's scroll bars are scrollers with nothing focusable inside, which Chromium puts in
    // the Tab order (unnamed): Tab from the last cell, with nothing after the grid, stopped on one
    const unfocusScrollers = () => {
      for (const b of el.querySelectorAll('revogr-scroll-virtual')) if (b.getAttribute('tabindex') !== '-1') b.setAttribute('tabindex', '-1');
    };
    el.addEventListener('aftergridrender', unfocusScrollers);
    host.append(el);
    let pointerAt = 0;
    el.addEventListener('pointerdown', () => (pointerAt = Date.now()), true);
    el.addEventListener('focusin', (e) => {
      unfocusScrollers();
      this.hasKeyboard = true;
      // Shift+Tab from after the grid (the row panel) lands on the last of RevoGrid's own focusable
      // parts (a scroll bar, a header's filter button): the focused cell takes the focus, as when
      // Tab reaches the grid itself
      const t = e.target as HTMLElement;
      const from = (e as unknown as FocusEvent).relatedTarget as Node | null;
      if (t === el || (from && el.contains(from)) || Date.now() - pointerAt < 1000 || t.closest('[role="gridcell"], .sd-editor')) return;
      enter();
    });
    el.addEventListener('focusout', (e) => {
      // an element removed by a redraw loses the focus to nowhere: the grid keeps it
      const to = (e as unknown as FocusEvent).relatedTarget as Node | null;
      if (to && !el.contains(to)) this.hasKeyboard = false;
    });
    // RevoGrid draws rows into the cell elements it has: when the element with the keyboard focus
    // is given another row (rows came or went above it), the focus goes to the focused cell's element
    new MutationObserver(() => {
      const f = this.focus;
      const a = document.activeElement as HTMLElement | null;
      if (!f || !this.hasKeyboard || !a || !el.contains(a) || a.dataset.rowId === undefined || this.editing) return;
      if (a.dataset.rowId !== String(f.rowId) || a.dataset.columnId !== String(f.columnId)) this.markFocused(f, 0);
    }).observe(el, { subtree: true, attributes: true, attributeFilter: ['data-row-id'] });
    this.wire();
    this.setColumns();
    this.setSource();
    model.onChange((scope, rowIds) => {
      if (scope === 'structure' || scope === 'rows') this.relayout(scope === 'structure');
      else if (scope === 'cells') this.updateRows(rowIds ?? []);
    });
  }

  /** Whether a cell editor is open (rows must not move under it: it edits a row by its place). */
  get editing(): boolean {
    return this.el.querySelector('.sd-editor') !== null;
  }

  onFocus(fn: (f: Focus | null) => void): void {
    this.listeners.push(fn);
  }

  /** The grid's columns from the model's (hidden ones left out; the primary frozen at the start). */
  setColumns(): void {
    const model = this.model;
    this.cols = model.columns.filter((c) => !c.hidden);
    this.cols.sort((a, b) => (a.primary === b.primary ? a.index - b.index : a.primary ? -1 : 1));
    const cols: ColumnRegular[] = this.cols.map((col, i) => ({
      prop: `c${col.id}`,
      name: col.title,
      size: col.width && col.width > 20 ? col.width : 150,
      pin: col.primary ? 'colPinStart' : undefined,
      // per cell: a report's rows of sheets the person may only view take no edit either
      readonly: !model.canEdit || readOnlyReason(col) !== null ? true : (p: { model: unknown }) => !this.actions.canEditCell((p.model as Src).id, col.id),
      editor: 'sheetd',
      cellTemplate: (h: HyperFunc<VNode>, p: CellTemplateProp) => this.cellTemplate(h, col, p),
      cellProperties: (p: CellTemplateProp) => this.cellProps(col, i, p) as never,
      // a column formula: a mark after the title (drawn by CSS, so the header's text stays its title)
      columnTemplate: col.formula ? (h: HyperFunc<VNode>) => [col.title, h('span', { class: 'sd-colfx', 'aria-hidden': 'true' })] : undefined,
      columnProperties: () => ({
        role: 'columnheader',
        'aria-colindex': i + 2,
        'data-column-id': col.id,
        'aria-description': col.formula ? `column formula ${col.formula}` : undefined,
        title: col.formula ? `${col.title} (column formula ${col.formula})` : `${col.title} (${typeLabel(col)})`,
        // the primary column's title lines up with its cells' text (after the grip and the expand toggle)
        class: { 'sd-colhead': true, 'sd-colformula': !!col.formula, 'sd-primary-head': !!col.primary, 'sd-grip-head': !!col.primary && this.moves && model.canEdit },
      }) as never,
    }));
    this.el.columns = cols;
    this.panes.clear();
    let scrolling = 0;
    for (const col of this.cols) this.panes.set(col.id, col.primary ? { type: 'colPinStart', index: 0 } : { type: 'rgCol', index: scrolling++ });
    this.looks.clear();
    this.el.readonly = !model.canEdit;
    this.el.setAttribute('aria-colcount', String(this.cols.length + 1));
    this.el.setAttribute('role', this.model.parents.size > 0 ? 'treegrid' : 'grid');
  }

  private sourceRow(id: number): Src {
    const r = this.model.rows.get(id)!;
    const o: Src = { id, n: r.rowNumber };
    for (const col of this.cols) o[`c${col.id}`] = shownText(r.cells.get(col.id));
    return o;
  }

  /** Digits of the greatest row number the row-number column is wide enough for. */
  private rowDigits = 0;

  /** The row-number column, as wide as the sheet's greatest row number needs (25,000 rows: five digits). */
  private fitRowHeader(): void {
    const digits = String(Math.max(1, this.model.rows.size)).length;
    if (digits === this.rowDigits) return;
    this.rowDigits = digits;
    this.el.rowHeaders = {
      prop: 'n',
      name: '',
      size: Math.max(56, 22 + digits * 9),
      cellTemplate: (_h: HyperFunc<VNode>, p: CellTemplateProp) => String((p.model as Src).n),
      cellProperties: () => ({ role: 'rowheader', 'aria-colindex': 1, class: 'sd-rownum' }),
      columnProperties: () => ({ role: 'columnheader', 'aria-colindex': 1, 'aria-label': 'Row number' }),
    } as never;
  }

  setSource(): void {
    this.fitRowHeader();
    this.looks.clear();
    this.el.source = this.model.visible.map((id) => this.sourceRow(id));
    this.el.setAttribute('aria-rowcount', String(this.model.visible.length + 1));
  }

  /** Per row: what its cells looked like when last drawn (see `look`), taken as rows are drawn and redrawn. */
  private readonly looks = new Map<number, string[]>();

  /**
   * Everything a row's cells are drawn from: first the row's own part (its format, place and
   * state), then per grid column the cell's "props" (what its cell element's attributes and
   * style come from: formula, formats, others focused there) and, after \u0001, its content
   * (shown text and value).
   * Not, say, objectValue or columnType, which answers carry or not.
   */
  private look(id: number): string[] {
    const r = this.model.rows.get(id);
    if (!r) return [''];
    const out = [JSON.stringify([r.rowNumber, r.format ?? null, r.conditionalFormat ?? null, r.expanded, r.locked, this.model.levels.get(id), this.model.parents.has(id)])];
    for (const col of this.cols) {
      const c = r.cells.get(col.id);
      const peer = this.peers.get(`${id}:${col.id}`);
      const props = JSON.stringify([!!c?.formula, c?.format ?? null, c?.conditionalFormat ?? null, peer ? [peer.color, peer.names] : null]);
      out.push(`${props}\u0001${c ? JSON.stringify([shownText(c), c.value ?? null, c.formula ?? null, c.hyperlink?.url ?? null]) : ''}`);
    }
    return out;
  }

  /** Per grid column id: its pane (the frozen primary column's, or the scrolling one) and its index there. */
  private panes = new Map<number, { type: 'colPinStart' | 'rgCol'; index: number }>();

  /**
   * Redraws the given rows (their cells changed), as little as it can: a row that looks as it did
   * is left alone (a cell edit's answer and its echo on the change stream usually repeat what the
   * edit showed at once); a row whose cells changed only in their content has just those cells
   * drawn again (RevoGrid's setDataAt); any other change redraws the grid's rows. A redraw of
   * every row in view costs the page a frame of work, which delays the answer of the edit
   * being seen.
   */
  private updateRows(rowIds: number[]): void {
    const want = new Set<number>();
    const quick = new Map<number, number[]>();
    for (const id of rowIds) {
      const now = this.look(id);
      const before = this.looks.get(id);
      this.looks.set(id, now);
      if (before && before.length === now.length && before[0] === now[0]) {
        const cols: number[] = [];
        let contentOnly = true;
        for (let k = 1; k < now.length && contentOnly; k++) {
          if (before[k] === now[k]) continue;
          if (before[k]!.split('\u0001')[0] !== now[k]!.split('\u0001')[0]) contentOnly = false;
          else cols.push(k - 1);
        }
        if (contentOnly) {
          if (cols.length > 0) quick.set(id, cols);
          continue;
        }
      }
      want.add(id);
    }
    if (want.size === 0 && quick.size === 0) return;
    const src = this.el.source as Src[];
    let changed = false;
    for (let i = 0; i < src.length; i++) {
      const id = src[i]!.id;
      if (want.has(id)) {
        src[i] = this.sourceRow(id);
        changed = true;
      } else if (quick.has(id)) {
        // the cells' text in place, and only those cells drawn again
        const r = this.model.rows.get(id)!;
        for (const k of quick.get(id)!) {
          const col = this.cols[k]!;
          src[i]![`c${col.id}`] = shownText(r.cells.get(col.id));
          const pane = this.panes.get(col.id);
          if (pane) void this.el.setDataAt({ row: i, col: pane.index, colType: pane.type, rowType: 'rgRow', val: src[i]![`c${col.id}`], skipDataUpdate: true });
        }
      }
    }
    if (changed) {
      this.fitRowHeader();
      this.el.source = [...src];
      // the redraw may take the keyboard focus off the focused cell: give it back
      if (this.focus && (document.activeElement === document.body || !document.activeElement)) this.markFocused(this.focus, 0);
    }
  }

  /**
   * The rows (and columns) again after rows were added, deleted, moved or hidden, without moving
   * what the person looks at: the rows in view stay in view (scrolled by as many rows as came or
   * went above them), the focused cell and the selected range stay on the same rows, and the
   * keyboard focus stays where it is.
   */
  private relayout(columns: boolean): void {
    const before = (this.el.source ?? []) as Src[];
    const scroller = this.el.querySelector<HTMLElement>('revogr-scroll-virtual.vertical');
    // a scroll asked for by the last relayout may not have happened yet
    const top = this.scrollingTo ?? scroller?.scrollTop ?? 0;
    const first = Math.floor(top / ROW_SIZE);
    const a = document.activeElement;
    const keyboard = this.hasKeyboard && (!a || a === document.body || (this.el.contains(a) && !a.closest('.sd-editor')));
    const gen = ++this.relayouts;
    if (columns) this.setColumns();
    this.setSource();
    const pos = new Map(this.model.visible.map((id, i) => [id, i]));
    let shift = 0;
    for (let i = first; i < before.length; i++) {
      const now = pos.get(before[i]!.id);
      if (now === undefined) continue;
      shift = now - i;
      break;
    }
    void (async () => {
      if (shift !== 0 && top > 0) {
        this.scrollingTo = Math.max(0, top + shift * ROW_SIZE);
        this.scrolling ??= this.scrollToTarget(scroller).finally(() => (this.scrolling = null));
      }
      if (this.scrolling) await this.scrolling;
      await this.keepFocus(gen, before, columns, keyboard);
    })();
  }

  /**
   * Scrolls to `scrollingTo`, and again while later relayouts move it. One scroll at a time: the
   * next waits until the last has landed (frames later on a busy machine) and RevoGrid's own
   * repeat of it has passed (its throttled "last scroll update", about 60 ms after the scroll
   * event). Two scrolls close together could end on the first one, repeated by RevoGrid after
   * the second: the rows in view would be off by the rows that came or went in between.
   */
  private async scrollToTarget(scroller: HTMLElement | null): Promise<void> {
    try {
      for (let y = this.scrollingTo; y !== null; y = this.scrollingTo) {
        await this.el.scrollToCoordinate({ y });
        // landed, or given up on after about a second (the grid cannot go that far, or the person scrolled)
        for (let i = 0; i < 60 && scroller && Math.abs(scroller.scrollTop - y) > 1; i++) await nextFrame();
        await new Promise((r) => setTimeout(r, 100));
        if (this.scrollingTo === y) this.scrollingTo = null;
      }
    } finally {
      this.scrollingTo = null;
    }
  }

  /**
   * RevoGrid's focus and range are by position: they are set again on the focused row's new
   * place (a later relayout, or the person moving the focus meanwhile, takes over).
   */
  private async keepFocus(gen: number, before: Src[], columns: boolean, keyboard: boolean): Promise<void> {
    const f = this.focus;
    if (!f || this.editing) return;
    this.quiet++;
    try {
      const [focused, range] = await Promise.all([this.el.getFocused(), columns ? null : this.el.getSelectedRange()]);
      if (gen !== this.relayouts || this.focus !== f || this.editing) return;
      const visible = this.model.visible;
      let y = visible.indexOf(f.rowId);
      let target = f;
      if (y < 0) {
        // its row went away (deleted, or hidden under a collapsed parent or a filter): the row now in its place
        if (visible.length === 0) {
          this.focus = null;
          for (const fn of this.listeners) fn(null);
          return;
        }
        y = Math.min(Math.max(0, before.findIndex((r) => r.id === f.rowId)), visible.length - 1);
        target = { rowId: visible[y]!, columnId: f.columnId };
      }
      let col = this.cols.find((c) => c.id === target.columnId);
      if (!col) {
        col = this.cols[0];
        if (!col) return;
        target = { rowId: target.rowId, columnId: col.id };
      }
      const pinned = !!col.primary;
      const colType = pinned ? 'colPinStart' : 'rgCol';
      const x = pinned ? 0 : this.cols.filter((c) => !c.primary).findIndex((c) => c.id === col.id);
      const at = focused && focused.colType === colType ? focused.cell : null;
      if (!columns && target === f && at && at.y === y && at.x === x) return;
      let end = { x, y };
      if (at && range && range.colType === colType && (range.x !== range.x1 || range.y !== range.y1)) {
        // a range of several cells: the same size, the focused cell at the same corner
        const dy = y - at.y;
        end = { x: at.x === range.x ? range.x1 : range.x, y: at.y === range.y ? range.y1 + dy : range.y + dy };
      }
      await this.el.setCellsFocus({ x, y }, end, colType, 'rgRow');
      if (target !== f) this.setFocus(target, false);
      // RevoGrid scrolls its focus into view when it draws it: not now
      await nextFrame(2);
      // the cells drawn again hold other rows: the keyboard focus goes to the focused cell's element
      if (keyboard && this.focus === target) this.markFocused(target, 0);
    } finally {
      this.quiet--;
    }
  }

  /** Other people's focused cells (outlined in their colours); the rows that change are drawn again. */
  setPeers(peers: Map<string, Peer>): void {
    const rows = new Set<number>();
    for (const k of [...this.peers.keys(), ...peers.keys()]) {
      const a = this.peers.get(k);
      const b = peers.get(k);
      if (a?.color !== b?.color || a?.names.join() !== b?.names.join()) rows.add(Number(k.split(':')[0]));
    }
    this.peers = peers;
    if (rows.size > 0) this.updateRows([...rows]);
  }

  private cellTemplate(h: HyperFunc<VNode>, col: Column, p: CellTemplateProp): VNode | string {
    const rowId = (p.model as Src).id;
    const r = this.model.rows.get(rowId);
    const c = r?.cells.get(col.id);
    const { text, title } = gridText(col, c);
    const parts: Array<VNode | string> = [];
    if (col.primary && r) {
      if (this.moves && this.model.canEdit) parts.push(h('span', { class: 'sd-grip', 'data-drag-row': rowId, title: 'Drag to move the row (or Alt+Shift+Up/Down)', 'aria-hidden': 'true' }));
      const level = this.model.levels.get(rowId) ?? 0;
      const isParent = this.model.parents.has(rowId);
      parts.push(h('span', { class: 'sd-indent', style: { width: `${level * 18}px` } }));
      if (isParent) {
        parts.push(h('button', { type: 'button', class: 'sd-toggle', tabindex: -1, 'data-toggle-row': rowId, 'aria-label': r.expanded ? 'Collapse' : 'Expand', 'aria-expanded': r.expanded ? 'true' : 'false' }, r.expanded ? '▾' : '▸'));
      } else parts.push(h('span', { class: 'sd-toggle-space' }));
    }
    const sym = symbolOf(col, c);
    if (col.type === 'CHECKBOX') {
      const on = c?.value === true;
      const glyph = sym ? sym[0] : on ? '☑' : '☐';
      parts.push(h('span', { class: 'sd-check', 'data-check': 'true', style: sym ? { color: sym[1] } : {}, 'aria-hidden': 'true' }, glyph));
      parts.push(h('span', { class: 'visually-hidden' }, on ? 'checked' : 'not checked'));
      return h('span', { class: 'sd-cell' }, parts as never);
    }
    if (sym) parts.push(h('span', { class: 'sd-symbol', style: { color: sym[1] }, 'aria-hidden': 'true' }, sym[0]));
    const isError = !!c?.formula && /^#[A-Z ]+/.test(text);
    // a link: its text opens it in a new tab (a click on the text; Ctrl+K edits it); an address
    // the page may not open (javascript:) is drawn as text
    const href = linkTarget(c?.hyperlink);
    if (href && text) parts.push(h('a', { class: 'sd-text sd-link', href, target: '_blank', rel: 'noopener noreferrer', tabindex: -1, title: href }, text));
    else parts.push(h('span', { class: { 'sd-text': true, 'sd-error-marker': isError }, title }, text));
    if (c?.formula || col.formula) parts.push(h('span', { class: 'sd-fx', 'aria-hidden': 'true', title: c?.formula ?? col.formula }, 'ƒ'));
    return h('span', { class: 'sd-cell' }, parts as never);
  }

  private cellProps(col: Column, i: number, p: CellTemplateProp): Record<string, unknown> {
    const rowId = (p.model as Src).id;
    const r = this.model.rows.get(rowId);
    const c = r?.cells.get(col.id);
    const style = formatStyle(this.palette, [col.format, r?.format, c?.format, c?.conditionalFormat]);
    const selected = this.focus !== null && this.focus.rowId === rowId && this.focus.columnId === col.id;
    const ro = !this.editable(rowId, col);
    const peer = this.peers.get(`${rowId}:${col.id}`);
    if (peer) style['--sd-peer'] = peer.color;
    return {
      role: 'gridcell',
      'aria-colindex': i + 2,
      'aria-selected': selected ? 'true' : 'false',
      'aria-readonly': ro ? 'true' : undefined,
      'data-row-id': rowId,
      'data-column-id': col.id,
      tabindex: -1,
      style,
      'data-peers': peer ? peer.names.join(', ') : undefined,
      class: { 'sd-focused': selected, 'sd-readonly': ro, 'sd-formula-cell': !!(c?.formula || col.formula), 'sd-peer': !!peer },
    };
  }

  /** May the person edit this cell here (their access, the column, and for a report the row's sheet)? */
  private editable(rowId: number, col: Column): boolean {
    return this.model.canEdit && readOnlyReason(col) === null && this.actions.canEditCell(rowId, col.id);
  }

  /** The column id and row id of a grid position (row index among shown rows, column index in its pane). */
  private columnAt(prop: unknown): Column | undefined {
    return columnOfProp(this.model, prop);
  }

  /** Moves the focus to a cell by ids (scrolls to it). */
  async focusCell(rowId: number, columnId: number): Promise<void> {
    const y = this.model.visible.indexOf(rowId);
    const col = this.model.column(columnId);
    if (y < 0 || !col) return;
    const pinned = !!col.primary;
    const x = pinned ? 0 : this.cols.filter((c) => !c.primary).findIndex((c) => c.id === columnId);
    await this.el.scrollToRow(y);
    if (!pinned) await this.el.scrollToColumnProp(`c${columnId}`);
    await this.el.setCellsFocus({ x, y }, { x, y }, pinned ? 'colPinStart' : 'rgCol', 'rgRow');
    // a row just added at the end: RevoGrid takes in a new source on its next render, and until
    // then puts its focus on the last row it has (the one before), where typing would go
    for (let i = 0; i < 30 && ((await this.el.getFocused()) as { model?: Src } | null)?.model?.id !== rowId; i++) {
      await nextFrame();
      await this.el.setCellsFocus({ x, y }, { x, y }, pinned ? 'colPinStart' : 'rgCol', 'rgRow');
    }
    this.setFocus({ rowId, columnId });
  }

  private setFocus(f: Focus | null, take = true): void {
    const prev = this.focus;
    this.focus = f;
    // aria-selected follows the focus at once (the cells' properties keep it on redraw)
    if (prev) this.el.querySelectorAll(`[data-row-id="${prev.rowId}"][data-column-id="${prev.columnId}"]`).forEach((n) => {
      n.setAttribute('aria-selected', 'false');
      n.classList.remove('sd-focused');
    });
    if (f) this.markFocused(f, 0, take);
    for (const fn of this.listeners) fn(f);
  }

  /** Marks the focused cell and gives it the keyboard focus (what a screen reader follows); waits a few frames for a row still being drawn. */
  private markFocused(f: Focus, tries: number, take = true): void {
    if (this.focus !== f) return;
    const found = this.el.querySelectorAll<HTMLElement>(`[data-row-id="${f.rowId}"][data-column-id="${f.columnId}"]`);
    found.forEach((n) => {
      n.setAttribute('aria-selected', 'true');
      n.classList.add('sd-focused');
      const a = document.activeElement;
      if (take && !a?.closest('.sd-editor, dialog') && a?.id !== 'edit-bar') n.focus({ preventScroll: true });
    });
    if (found.length === 0 && tries < 30) requestAnimationFrame(() => this.markFocused(f, tries + 1, take));
  }

  /** The focused cell's position in the grid's terms. */
  private focusPos(): { y: number; colIdx: number } | null {
    if (!this.focus) return null;
    const y = this.model.visible.indexOf(this.focus.rowId);
    const colIdx = this.cols.findIndex((c) => c.id === this.focus!.columnId);
    return y < 0 || colIdx < 0 ? null : { y, colIdx };
  }

  private async moveFocus(y: number, colIdx: number): Promise<void> {
    const rows = this.model.visible;
    if (rows.length === 0 || this.cols.length === 0) return;
    y = Math.max(0, Math.min(rows.length - 1, y));
    colIdx = Math.max(0, Math.min(this.cols.length - 1, colIdx));
    await this.focusCell(rows[y]!, this.cols[colIdx]!.id);
  }

  private visibleRowCount(): number {
    return Math.max(1, Math.floor((this.el.clientHeight - 40) / 32) - 1);
  }

  private wire(): void {
    const el = this.el;
    el.addEventListener('afterfocus', (e: Event) => {
      const d = (e as CustomEvent<{ model?: Src; column?: { prop?: unknown } }>).detail;
      const col = this.columnAt(d.column?.prop);
      if (!d.model || !col) return;
      // RevoGrid says so again when the grid puts its focus back after rows changed (keepFocus sets it)
      if (this.quiet > 0) return;
      this.setFocus({ rowId: d.model.id, columnId: col.id });
    });
    el.addEventListener('beforescrollintoview', (e: Event) => {
      if (this.quiet > 0) e.preventDefault();
    });
    el.addEventListener('beforerowrender', (e: Event) => {
      const d = (e as CustomEvent<{ node: { $attrs$?: Record<string, unknown> }; item: { itemIndex: number }; model?: Src }>).detail;
      const id = d.model?.id;
      const attrs: Record<string, unknown> = { ...d.node.$attrs$, role: 'row', 'aria-rowindex': d.item.itemIndex + 2 };
      if (id !== undefined) {
        // what the row looks like as drawn (updateRows compares with it)
        if (!this.looks.has(id)) this.looks.set(id, this.look(id));
        attrs['aria-level'] = (this.model.levels.get(id) ?? 0) + 1;
        attrs['data-row-id'] = id;
        if (this.model.parents.has(id)) attrs['aria-expanded'] = this.model.rows.get(id)?.expanded ? 'true' : 'false';
      }
      d.node.$attrs$ = attrs;
    });
    el.addEventListener('aftergridrender', () => this.labelHeaders());
    el.addEventListener('beforeeditstart', (e: Event) => {
      const d = (e as CustomEvent<{ val?: unknown; prop?: unknown; model?: Src }>).detail;
      const col = this.columnAt(d.prop);
      if (!col || !d.model || !this.editable(d.model.id, col)) {
        e.preventDefault();
        return;
      }
      if (col.type === 'CHECKBOX') {
        e.preventDefault();
        if (d.model) void this.toggleCheckbox(d.model.id, col);
        return;
      }
      editorEnv.seed = typeof d.val === 'string' ? d.val : '';
      editorEnv.opening = Date.now();
      editorEnv.queued = null;
    });
    el.addEventListener('beforeedit', (e: Event) => {
      e.preventDefault();
      const d = (e as CustomEvent<{ val?: unknown; prop?: unknown; model?: Src }>).detail;
      const col = this.columnAt(d.prop);
      if (!col || !d.model) return;
      const rowId = d.model.id;
      void this.actions.busy(async () => {
        const input = await toInput(this.model, col, d.val);
        if (!input) return;
        // typed text that is no value of the column: said in words, nothing sent
        if (isRefusal(input)) showMessage(refusalMessage(col, input));
        else await this.actions.editCells([{ rowId, columnId: col.id, input }]);
      });
    });
    el.addEventListener('beforerangeedit', (e: Event) => {
      // a range cleared (Delete) or filled: one Update Rows call
      e.preventDefault();
      const d = (e as CustomEvent<{ data: Record<number, Record<string, unknown>>; models: Record<number, Src | undefined> }>).detail;
      const cells: Array<{ rowId: number; col: Column; v: unknown }> = [];
      for (const [idx, values] of Object.entries(d.data)) {
        const rowId = d.models[Number(idx)]?.id ?? (this.el.source as Src[])[Number(idx)]?.id;
        if (rowId === undefined) continue;
        for (const [prop, v] of Object.entries(values)) {
          const col = this.columnAt(prop);
          if (col && !readOnlyReason(col)) cells.push({ rowId, col, v });
        }
      }
      void this.actions.busy(async () => {
        const edits: CellEdit[] = [];
        for (const { rowId, col, v } of cells) {
          const input = await toInput(this.model, col, v);
          if (!input) continue;
          if (isRefusal(input)) {
            showMessage(`Nothing was changed. ${refusalMessage(col, input, this.model.rows.get(rowId)?.rowNumber)}`);
            return;
          }
          edits.push({ rowId, columnId: col.id, input });
        }
        await this.actions.editCells(edits);
      });
    });
    // a copied range: contacts as `Name <email>` (what the cell shows is only the name), the rest as shown
    el.addEventListener('clipboardrangecopy', (e: Event) => {
      const d = (e as CustomEvent<{ range: { y: number; y1: number }; data: unknown[][]; mapping: Record<number, Record<string, unknown>> }>).detail;
      const src = this.el.source as Src[];
      d.data = d.data.map((line, k) => {
        const i = d.range.y + k;
        const rowId = src[i]?.id;
        const props = Object.keys(d.mapping[i] ?? {});
        return line.map((v, x) => {
          const col = this.columnAt(props[x]);
          const shown = v === undefined || v === null ? '' : String(v);
          return col && rowId !== undefined ? copyText(col, this.model.cell(rowId, col.id), shown) : shown;
        });
      });
    });
    el.addEventListener('beforepasteapply', (e: Event) => {
      e.preventDefault();
      const d = (e as CustomEvent<{ dataText?: string; raw?: string }>).detail;
      void this.paste(d.dataText ?? d.raw ?? '');
    });
    el.addEventListener('beforecopyapply', (e: Event) => {
      const d = (e as CustomEvent<{ event: DataTransfer; data?: unknown[][] }>).detail;
      if (!d.data) return;
      e.preventDefault();
      d.event.setData('text/plain', toTsv(d.data.map((r) => r.map((v) => (v === undefined || v === null ? '' : String(v))))));
    });
    // a row dragged by its grip (RevoGrid's row order editor draws the drop line): saved with Update Rows
    el.addEventListener('mousedown', (e: MouseEvent) => {
      const grip = (e.target as HTMLElement).closest?.('[data-drag-row]');
      if (!grip || e.button !== 0 || !this.model.canEdit) return;
      grip.dispatchEvent(new CustomEvent('dragstartcell', { bubbles: true, composed: true, cancelable: true, detail: { originalEvent: e } }));
    }, true);
    el.addEventListener('roworderchanged', (e: Event) => {
      e.preventDefault();
      const d = (e as CustomEvent<{ from: number; to: number }>).detail;
      void this.dropRow(d.from, d.to);
    });
    // a column dragged by its header: saved with Update Column (its index), the grid redrawn from the answer
    el.addEventListener('beforecolumndragend', (e: Event) => {
      e.preventDefault();
      const d = (e as CustomEvent<{ pin?: string; startPosition: { itemIndex: number }; newPosition: { itemIndex: number } }>).detail;
      const pane = this.cols.filter((c) => !!c.primary === (d.pin === 'colPinStart'));
      const moved = pane[d.startPosition.itemIndex];
      const target = pane[Math.min(d.newPosition.itemIndex, pane.length - 1)];
      if (!moved || !target || moved === target || !this.model.canAdmin) return;
      void this.actions.updateColumn(moved.id, { index: target.index }).then((ok) => {
        if (ok && this.focus) void this.focusCell(this.focus.rowId, this.focus.columnId);
      });
    });
    el.addEventListener('aftercolumnresize', (e: Event) => {
      const d = (e as CustomEvent<Record<string, { prop: unknown; size?: number }>>).detail;
      for (const c of Object.values(d)) {
        const col = this.columnAt(c.prop);
        if (col && c.size && this.model.canAdmin) {
          col.width = Math.round(c.size);
          void this.actions.updateColumn(col.id, { width: col.width });
        }
      }
    });
    // check boxes by click, hierarchy toggles
    el.addEventListener('click', (e) => {
      const t = e.target as HTMLElement;
      const toggle = t.closest<HTMLElement>('[data-toggle-row]');
      if (toggle) {
        e.stopPropagation();
        const id = Number(toggle.dataset.toggleRow);
        void this.actions.setExpanded(id, !this.model.rows.get(id)?.expanded);
        return;
      }
      if (t.closest('[data-check]')) {
        const cellEl = t.closest<HTMLElement>('[data-row-id][data-column-id]');
        const col = cellEl ? this.model.column(Number(cellEl.dataset.columnId)) : undefined;
        if (cellEl && col) void this.toggleCheckbox(Number(cellEl.dataset.rowId), col);
      }
    });
    // before RevoGrid (which listens on the document): keys on the grid's cells, or on the page when a redraw took the focus away
    document.addEventListener('keydown', (e: KeyboardEvent) => {
      const t = e.target as HTMLElement;
      if (t === document.body || this.el.contains(t)) void this.onKey(e);
    }, true);
  }

  /** RevoGrid's header cells outside any row: the header row gets role=row and aria-rowindex 1. */
  private labelHeaders(): void {
    for (const hdr of this.el.querySelectorAll('revogr-header')) {
      const row = hdr.querySelector('.header-rgRow');
      if (row && row.getAttribute('role') !== 'row') {
        row.setAttribute('role', 'row');
        row.setAttribute('aria-rowindex', '1');
      }
    }
  }

  async toggleCheckbox(rowId: number, col: Column): Promise<void> {
    if (!this.editable(rowId, col)) return;
    const on = this.model.cell(rowId, col.id)?.value === true;
    await this.actions.editCells([{ rowId, columnId: col.id, input: { value: !on } }]);
  }

  /** Keys RevoGrid leaves to us: Home/End, PageUp/PageDown, F2, Space on a check box, undo/redo, row moves. */
  private async onKey(e: KeyboardEvent): Promise<void> {
    const target = e.target as HTMLElement;
    if (target.closest('.sd-editor')) return;
    const editor = editorEnv.current;
    if (editor && this.el.querySelector('.sd-editor')) {
      editor.keyFromGrid(e);
      return;
    }
    // an edit started and its editor not drawn yet (RevoGrid drops Enter meanwhile): the key waits for the editor
    if (editorEnv.opening > Date.now() - 2000 && (e.key === 'Enter' || e.key === 'Tab' || e.key === 'Escape')) {
      e.preventDefault();
      e.stopPropagation();
      editorEnv.queued = { key: e.key, shift: e.shiftKey };
      return;
    }
    const pos = this.focusPos();
    const ctrl = e.ctrlKey || e.metaKey;
    if (ctrl && !e.shiftKey && e.key.toLowerCase() === 'z') {
      e.preventDefault();
      e.stopPropagation();
      await this.actions.undo();
      return;
    }
    if (ctrl && (e.key.toLowerCase() === 'y' || (e.shiftKey && e.key.toLowerCase() === 'z'))) {
      e.preventDefault();
      e.stopPropagation();
      await this.actions.redo();
      return;
    }
    if (!pos) return;
    const rowId = this.focus!.rowId;
    const col = this.cols[pos.colIdx]!;
    let to: [number, number] | null = null;
    switch (e.key) {
      case 'Tab':
        // Tab past the last column (Shift+Tab before the first) leaves the grid: no keyboard trap
        if (!ctrl && !e.altKey && (e.shiftKey ? pos.colIdx === 0 : pos.colIdx === this.cols.length - 1)) {
          const to = this.tabbableBeside(e.shiftKey ? -1 : 1);
          // nothing after the grid: the browser's own Tab (out of the page), not the grid's
          e.stopPropagation();
          if (to) {
            e.preventDefault();
            to.focus();
          }
        }
        return;
      case 'Home':
        to = ctrl ? [0, 0] : [pos.y, 0];
        break;
      case 'End':
        to = ctrl ? [this.model.visible.length - 1, this.cols.length - 1] : [pos.y, this.cols.length - 1];
        break;
      case 'PageDown':
        to = [pos.y + this.visibleRowCount(), pos.colIdx];
        break;
      case 'PageUp':
        to = [pos.y - this.visibleRowCount(), pos.colIdx];
        break;
      case 'F2':
        e.preventDefault();
        e.stopPropagation();
        if (this.editable(rowId, col) && col.type !== 'CHECKBOX') {
          editorEnv.seed = '';
          const pinned = !!col.primary;
          await this.el.setCellEdit(pos.y, `c${col.id}`, 'rgRow');
          void pinned;
        }
        return;
      case ' ':
        if (col.type === 'CHECKBOX') {
          e.preventDefault();
          e.stopPropagation();
          await this.toggleCheckbox(rowId, col);
        }
        return;
      case 'Enter':
        if (col.type === 'CHECKBOX') {
          e.preventDefault();
          e.stopPropagation();
          await this.toggleCheckbox(rowId, col);
        }
        return;
      case ']':
      case '[':
        if (ctrl && this.model.canEdit) {
          e.preventDefault();
          e.stopPropagation();
          if (e.key === ']') await this.actions.indent(rowId);
          else await this.actions.outdent(rowId);
          await this.focusCell(rowId, col.id);
        }
        return;
      case 'ArrowUp':
      case 'ArrowDown':
        if (e.altKey && e.shiftKey && this.model.canEdit) {
          e.preventDefault();
          e.stopPropagation();
          await this.actions.move(rowId, e.key === 'ArrowUp' ? -1 : 1);
          await this.focusCell(rowId, col.id);
        }
        return;
      default:
        return;
    }
    if (to) {
      e.preventDefault();
      e.stopPropagation();
      await this.moveFocus(to[0], to[1]);
      // Home reaches the first column, which may be the pinned primary one: the other columns
      // scroll back to their start too, so the view is the sheet's left edge (after Ctrl+End it
      // stayed at the last columns)
      const first = this.cols.find((c) => !c.primary);
      if (e.key === 'Home' && to[1] === 0 && first !== undefined) await this.el.scrollToColumnProp(`c${first.id}`);
    }
  }

  /**
   * A row dropped at shown position `to` (RevoGrid's numbering: the row taken out of the shown
   * rows, then put back at `to`). It goes right after the shown row above the drop: as that row's
   * first child when the row below the drop is that row's child, else as its next sibling; at the
   * very top, first in the sheet. A row is never put under itself.
   */
  private async dropRow(from: number, to: number): Promise<void> {
    const shown = [...this.model.visible];
    const rowId = shown[from];
    if (rowId === undefined || from === to || !this.model.canEdit) return;
    shown.splice(from, 1);
    const prev = to > 0 ? shown[to - 1] : undefined;
    const next = shown[to];
    const under = (id: number | undefined): boolean => {
      for (let p = id === undefined ? null : (this.model.rows.get(id)?.parentId ?? null); p !== null; p = this.model.rows.get(p)?.parentId ?? null) if (p === rowId) return true;
      return false;
    };
    if (under(prev)) return;
    let loc: Record<string, unknown>;
    if (prev === undefined) loc = { toTop: true };
    else if (next !== undefined && this.model.rows.get(next)?.parentId === prev) loc = { parentId: prev, toTop: true };
    else loc = { siblingId: prev };
    const colId = this.focus?.columnId ?? this.cols[0]?.id;
    if (await this.actions.moveRow(rowId, loc) && colId !== undefined) await this.focusCell(rowId, colId);
  }

  /** The element Tab (dir 1) or Shift+Tab (dir -1) reaches from the grid, outside it (none at the page's end). */
  private tabbableBeside(dir: 1 | -1): HTMLElement | null {
    const all = [...document.querySelectorAll<HTMLElement>('a[href], button, input, select, textarea, [tabindex]')].filter((n) =>
      !this.el.contains(n) && n !== this.el && n.tabIndex >= 0 && !(n as HTMLButtonElement).disabled && n.getClientRects().length > 0 && !n.closest('[hidden], [inert]'));
    const after = all.filter((n) => this.el.compareDocumentPosition(n) & Node.DOCUMENT_POSITION_FOLLOWING);
    const before = all.filter((n) => this.el.compareDocumentPosition(n) & Node.DOCUMENT_POSITION_PRECEDING);
    return dir === 1 ? (after[0] ?? null) : (before[before.length - 1] ?? null);
  }

  /**
   * Pastes tab-separated text at the focused cell: one Update Rows call, rows past the end one
   * Add Rows call. Each value is read as typed text is (days, contacts by name); one that is no
   * value of its column refuses the paste in words, and nothing is sent (as the server refuses
   * a whole Update Rows call).
   */
  async paste(text: string): Promise<void> {
    await this.actions.busy(() => this.pasteAt(text));
  }

  private async pasteAt(text: string): Promise<void> {
    if (!this.model.canEdit) return;
    const pos = this.focusPos();
    if (!pos) return;
    const block = parseTsv(text);
    const edits: CellEdit[] = [];
    const newRows: Array<Array<{ columnId: number; input: CellInput }>> = [];
    const contexts = new Map<number, TextContext>();
    let refused: string | null = null;
    // rows are numbered 1..n in the sheet's order: rows added past the end go on from n
    let lastNumber = this.model.order.length;
    for (const [dy, line] of block.entries()) {
      const rowId = this.model.visible[pos.y + dy];
      const rowNumber = rowId !== undefined ? this.model.rows.get(rowId)?.rowNumber : ++lastNumber;
      const fresh: Array<{ columnId: number; input: CellInput }> = [];
      for (const [dx, v] of line.entries()) {
        const col = this.cols[pos.colIdx + dx];
        if (!col || readOnlyReason(col)) continue;
        if (!contexts.has(col.id)) contexts.set(col.id, await textContext(this.model, col));
        const input = inputFromText(col, v, contexts.get(col.id));
        if (isRefusal(input)) {
          refused ??= refusalMessage(col, input, rowNumber);
          continue;
        }
        if (rowId !== undefined) edits.push({ rowId, columnId: col.id, input });
        else if (v !== '') fresh.push({ columnId: col.id, input });
      }
      if (rowId === undefined && fresh.length > 0) newRows.push(fresh);
    }
    if (refused !== null) {
      showMessage(`Nothing was pasted. ${refused}`);
      return;
    }
    await this.actions.editCells(edits, { newRows });
  }
}

/** What an editor saved (its text, read as typed text is, or a CellInput), or a range edit's value. */
async function toInput(model: SheetModel, col: Column, v: unknown): Promise<CellInput | Refusal | null> {
  if (v === undefined) return null;
  if (v !== null && typeof v === 'object') return v as CellInput;
  return readText(model, col, v === null ? '' : String(v));
}

export function typeLabel(col: Column): string {
  if (col.systemColumnType) return `System: ${col.systemColumnType}`;
  return TYPE_LABELS[col.type] ?? col.type;
}
