import type { EditorBase, EditCell, HyperFunc, VNode } from '@revolist/revogrid';
import type { Column } from './types.ts';
import type { SheetModel } from './model.ts';
import { contactValues, editText, inputFromText, isRefusal, multiValues, refusalMessage, type CellInput } from './values.ts';
import { contactsText, contactText, type Person } from './contacts.ts';
import { loadPeople, textContextNow } from './typed.ts';
import { showMessage } from '../api.ts';

/**
 * The grid's cell editors, one per kind of column, as RevoGrid editor classes. An editor opens
 * with the cell's formula or value (or with the key that was typed, which replaces it), and
 * saves the text typed or chosen (the grid reads it: typed.ts), or a CellInput (values.ts) for
 * a multi-select dropdown, that the page sends to Update Rows. Enter and Tab save, Escape
 * cancels (RevoGrid's keyboard handling) and gives the focus back to the cell.
 *
 * The multi-select editors (check boxes) are a popup: RevoGrid draws an editor inside its
 * viewport, which clips what goes past its edges, so the popup is put in the browser's top layer
 * (a manual popover, still inside the grid's DOM: RevoGrid takes clicks and keys in it for the
 * editor's) and placed inside the window, below the cell or above it, shifted left at the right
 * edge, its list of options scrolling when the window is short. Its keys are its own while it is
 * open: Tab and Shift+Tab go round its options and buttons, the arrows up and down along the
 * options, Space checks, Enter saves, Escape cancels.
 */

export interface EditorEnv {
  model: SheetModel;
  /** The open editor, if any: keys that reach the grid while its field has no focus yet are its own. */
  current: SheetCellEditor | null;
  /** The key typed to start the edit ('' when opened with Enter, F2 or a double click). */
  seed: string;
  /** When an edit was started and its editor is not drawn yet (0: none): keys that end it wait for it. */
  opening: number;
  /** Enter, Tab or Escape pressed while the editor was being drawn: the editor runs it once drawn. */
  queued: { key: string; shift: boolean } | null;
  /** After an edit saved with Tab (Shift+Tab): moves the grid's focus to the next (previous) column of the row. */
  tabbed?: (back: boolean) => void;
  /**
   * After an editor closed by its own keys or buttons (Enter, Escape, OK, Cancel): gives the
   * keyboard focus back to the grid's focused cell, if the focus went nowhere with the editor.
   */
  closed?: () => void;
}

export const editorEnv: EditorEnv = { model: null as unknown as SheetModel, current: null, seed: '', opening: 0, queued: null };

export function columnOfProp(model: SheetModel, prop: unknown): Column | undefined {
  const m = /^c(\d+)$/.exec(String(prop));
  return m ? model.column(Number(m[1])) : undefined;
}

let uid = 0;

/** Room kept between a popup editor and the window's edges, in pixels. */
const EDGE = 6;

/** Runs `fn` once `el` is in the document (a busy page may draw the editor a frame or more late). */
function whenConnected(el: HTMLElement, fn: () => void, tries = 0): void {
  if (el.isConnected) fn();
  else if (tries < 60) requestAnimationFrame(() => whenConnected(el, fn, tries + 1));
}

export class SheetCellEditor implements EditorBase {
  element: Element | null = null;
  editCell?: EditCell;
  private host: HTMLElement | null = null;
  private built = false;
  private input: HTMLInputElement | null = null;
  private checks: HTMLInputElement[] = [];
  /** The multi-select editors' popup (options and buttons). */
  private popup: HTMLElement | null = null;
  /** The contacts of a multiple contacts list, by email: who each check box is. */
  private listed = new Map<string, Person>();
  private column: Column | undefined;
  /** Saved or cancelled by its keys or buttons: once gone, the editor gives the focus back to the grid. */
  private done = false;

  constructor(
    private readonly schema: { prop: unknown; model: unknown },
    private readonly save: (value: unknown, preventFocus?: boolean) => void,
    private readonly close: (focusNext?: boolean) => void,
  ) {}

  render(h: HyperFunc<VNode>): VNode {
    return h('div', { class: 'sd-editor', ref: (el: HTMLElement) => (this.host = el) });
  }

  componentDidRender(): void {
    if (this.built || !this.host) return;
    this.built = true;
    editorEnv.current = this;
    editorEnv.opening = 0;
    // a fast typist's Enter (or Tab, Escape) came before the editor was drawn: run it now, after the typed text
    const queued = editorEnv.queued;
    editorEnv.queued = null;
    if (queued) setTimeout(() => this.onKeyDown(new KeyboardEvent('keydown', { key: queued.key, shiftKey: queued.shift, cancelable: true })), 0);
    const model = editorEnv.model;
    const col = (this.column = columnOfProp(model, this.schema.prop));
    if (!col) return;
    const rowId = (this.editCell?.model as { id?: number } | undefined)?.id ?? (this.schema.model as { id?: number }).id;
    const cell = rowId !== undefined ? model.cell(rowId, col.id) : undefined;
    // a typed key opened the editor: RevoGrid gathers the keys typed before it drew (editCell.val)
    const typed = editorEnv.seed !== '';
    const seed = typed ? (typeof this.editCell?.val === 'string' && this.editCell.val !== '' ? this.editCell.val : editorEnv.seed) : '';
    editorEnv.seed = '';
    const start = seed !== '' ? seed : editText(col, cell);
    const host = this.host;
    host.addEventListener('keydown', (e) => this.onKeyDown(e));
    const listId = `sd-opts-${++uid}`;

    if (col.type === 'MULTI_PICKLIST' || col.type === 'MULTI_CONTACT_LIST') {
      // a popup of check boxes and, for contacts, a field for another address; OK and Cancel
      host.classList.add('sd-editor-list');
      const popup = document.createElement('div');
      popup.className = 'sd-popup';
      this.popup = popup;
      const box = document.createElement('div');
      box.className = 'sd-multi';
      box.setAttribute('role', 'group');
      box.setAttribute('aria-label', col.title);
      popup.append(box);
      host.append(popup);
      const chosen = new Set(col.type === 'MULTI_PICKLIST' ? multiValues(cell) : contactValues(cell).map((c) => c.email));
      const addOption = (value: string, label: string) => {
        const id = `sd-m-${++uid}`;
        const cb = document.createElement('input');
        cb.type = 'checkbox';
        cb.id = id;
        cb.value = value;
        cb.checked = chosen.has(value);
        const lab = document.createElement('label');
        lab.htmlFor = id;
        lab.textContent = label;
        const line = document.createElement('div');
        line.className = 'sd-multi-line';
        line.append(cb, lab);
        box.append(line);
        this.checks.push(cb);
      };
      if (col.type === 'MULTI_PICKLIST') {
        for (const o of col.options ?? []) addOption(o, o);
        for (const v of chosen) if (!(col.options ?? []).includes(v)) addOption(v, v);
      } else {
        const other = document.createElement('input');
        other.type = 'email';
        other.placeholder = 'another email address';
        other.setAttribute('aria-label', 'Another email address');
        other.className = 'sd-multi-other';
        popup.append(other);
        this.input = other;
      }
      const buttons = document.createElement('div');
      buttons.className = 'sd-editor-buttons';
      const ok = document.createElement('button');
      ok.type = 'button';
      ok.className = 'sd-editor-ok';
      ok.textContent = 'OK';
      ok.addEventListener('click', () => this.finish());
      const cancel = document.createElement('button');
      cancel.type = 'button';
      cancel.className = 'sd-editor-cancel secondary';
      cancel.textContent = 'Cancel';
      cancel.addEventListener('click', () => this.cancel());
      buttons.append(ok, cancel);
      popup.append(buttons);
      whenConnected(host, () => {
        // the top layer: out of the grid's clipped viewport (a browser without popovers draws it in place)
        if (typeof popup.showPopover === 'function') {
          popup.popover = 'manual';
          popup.showPopover();
        }
        this.follow();
        if (col.type === 'MULTI_PICKLIST') (this.checks[0] ?? ok).focus();
        else {
          // the org's people load: the first one has the focus, else the field
          this.input?.focus();
          void loadPeople().then((ps) => {
            if (!host.isConnected) return;
            // the people, then the cell's other contacts (with the names the cell gives them)
            for (const p of [...ps, ...contactValues(cell)]) {
              if (this.listed.has(p.email)) continue;
              this.listed.set(p.email, p);
              addOption(p.email, contactText(p));
            }
            this.place();
            if (document.activeElement === this.input && this.input?.value === '') this.checks[0]?.focus();
          });
        }
      });
      return;
    }

    const input = document.createElement('input');
    this.input = input;
    input.className = 'sd-input';
    input.setAttribute('aria-label', `${col.title}, edit`);
    if ((col.type === 'DATE' || col.type === 'ABSTRACT_DATETIME') && seed === '' && !start.startsWith('=')) {
      // the browser's date picker
      input.type = 'date';
      input.value = start.slice(0, 10);
    } else {
      input.type = 'text';
      input.value = start;
    }
    if (col.type === 'PICKLIST' || col.type === 'CONTACT_LIST') {
      // a dropdown of the options (or of the people), free text still typed (a strict column refuses it)
      const list = document.createElement('datalist');
      list.id = listId;
      input.setAttribute('list', listId);
      const fill = (opts: Array<[string, string]>) => {
        list.replaceChildren(...opts.map(([v, l]) => {
          const o = document.createElement('option');
          o.value = v;
          if (l !== v) o.label = l;
          return o;
        }));
      };
      if (col.type === 'PICKLIST') fill((col.options ?? []).map((o) => [o, o]));
      else void loadPeople().then((ps) => fill([...(col.contactOptions ?? []).filter((c) => c.email).map((c) => [c.email!, c.name ?? c.email!] as [string, string]), ...ps.map((p) => [p.email, p.name ?? p.email] as [string, string])]));
      host.append(list);
    }
    host.append(input);
    // the field takes the focus once it is in the document (a busy page may draw it a frame late)
    const focusField = (tries: number) => {
      if (!input.isConnected && tries < 60) {
        requestAnimationFrame(() => focusField(tries + 1));
        return;
      }
      input.focus();
      if (input.type === 'text') input.setSelectionRange(input.value.length, input.value.length);
      if (document.activeElement !== input && tries < 60) requestAnimationFrame(() => focusField(tries + 1));
    };
    setTimeout(() => focusField(0), 0);
  }

  /** A key that reached the grid instead of the field (it had no focus yet). */
  keyFromGrid(e: KeyboardEvent): void {
    if (e.key === 'Enter' || e.key === 'Tab' || e.key === 'Escape') this.onKeyDown(e);
  }

  appendPendingInput(value: string): boolean {
    if (!this.input || this.input.type !== 'text') return false;
    this.input.value += value;
    return true;
  }

  disconnectedCallback(): void {
    if (editorEnv.current === this) editorEnv.current = null;
    // the focused element went with the editor: the grid's focused cell takes the focus back
    if (this.done) requestAnimationFrame(() => editorEnv.closed?.());
  }

  /** Saves and closes the editor (Enter, OK); RevoGrid moves the focus down a row. */
  private finish(): void {
    if (this.refuses()) return;
    this.done = true;
    this.save(this.getValue());
  }

  /** Closes the editor without saving (Escape, Cancel). */
  private cancel(): void {
    this.done = true;
    this.close(false);
  }

  /**
   * Places the popup inside the window: below the cell, else above it (where there is more
   * room), its list of options shortened to fit (it scrolls); moved left at the window's right
   * edge. Only a window too short for either puts it over the cell.
   */
  private place(): void {
    const popup = this.popup;
    const host = this.host;
    if (!popup || !host?.isConnected || !popup.matches(':popover-open')) return;
    const cell = host.getBoundingClientRect();
    const vw = document.documentElement.clientWidth;
    const vh = document.documentElement.clientHeight;
    popup.style.maxHeight = '';
    popup.style.maxWidth = `${Math.max(0, vw - 2 * EDGE)}px`;
    popup.style.minWidth = `${Math.min(Math.max(cell.width, 256), vw - 2 * EDGE)}px`;
    const w = popup.offsetWidth;
    const h = popup.offsetHeight;
    const below = vh - cell.bottom - EDGE;
    const above = cell.top - EDGE;
    let top: number;
    let room: number;
    if (h <= below || (below >= above && below >= 120)) [top, room] = [cell.bottom, below];
    else if (above >= 120) [room, top] = [above, cell.top - Math.min(h, above)];
    else [room, top] = [vh - 2 * EDGE, Math.max(EDGE, vh - EDGE - h)];
    popup.style.maxHeight = `${Math.floor(room)}px`;
    popup.style.top = `${Math.round(Math.max(EDGE, top))}px`;
    popup.style.left = `${Math.round(Math.max(EDGE, Math.min(cell.left, vw - EDGE - w)))}px`;
  }

  /** Keeps the popup by its cell while it is open (the grid or the window scrolled or resized). */
  private follow(): void {
    let last = '';
    const tick = () => {
      const host = this.host;
      if (!this.popup || !host?.isConnected) return;
      const r = host.getBoundingClientRect();
      const now = [r.left, r.top, r.width, r.height, window.innerWidth, window.innerHeight, this.checks.length].join();
      if (now !== last) {
        last = now;
        this.place();
      }
      requestAnimationFrame(tick);
    };
    tick();
  }

  /**
   * The multi-select popup's keys (RevoGrid would take Tab for moving to the next cell): Tab and
   * Shift+Tab go round its fields and buttons, the arrows up and down along the options; Enter
   * saves (on a button: the button's), Escape cancels; Space checks (the box's own).
   */
  private onPopupKey(e: KeyboardEvent): void {
    const popup = this.popup!;
    const fields = [...popup.querySelectorAll<HTMLElement>('input, button')].filter((n) => !(n as HTMLInputElement).disabled);
    const at = fields.indexOf(document.activeElement as HTMLElement);
    const stop = () => {
      e.preventDefault();
      e.stopPropagation();
    };
    switch (e.key) {
      case 'Tab': {
        stop();
        if (fields.length === 0) return;
        const n = fields.length;
        fields[at < 0 ? (e.shiftKey ? n - 1 : 0) : (at + (e.shiftKey ? n - 1 : 1)) % n]!.focus();
        return;
      }
      case 'ArrowDown':
      case 'ArrowUp': {
        const i = this.checks.indexOf(document.activeElement as HTMLInputElement);
        if (i < 0) return;
        stop();
        this.checks[Math.max(0, Math.min(this.checks.length - 1, i + (e.key === 'ArrowDown' ? 1 : -1)))]!.focus();
        return;
      }
      case 'Enter':
        e.stopPropagation();
        if (e.target instanceof HTMLButtonElement) return;
        e.preventDefault();
        this.finish();
        return;
      case 'Escape':
        stop();
        this.cancel();
        return;
      default:
        return;
    }
  }

  private onKeyDown(e: KeyboardEvent): void {
    if (e.isComposing) return;
    if (this.popup) {
      this.onPopupKey(e);
      return;
    }
    if (e.key === 'Enter' || e.key === 'Tab') {
      e.preventDefault();
      e.stopPropagation();
      if (this.refuses()) return;
      this.done = e.key === 'Enter';
      this.save(this.getValue(), e.key === 'Tab');
      // Tab goes on along the row (RevoGrid's close(true) would go down, as Enter does)
      if (e.key === 'Tab') {
        this.close(false);
        editorEnv.tabbed?.(e.shiftKey);
      }
    } else if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      this.cancel();
    }
  }

  /**
   * Whether the text is no value of the column (a day not in the calendar, a name no contact
   * has): then it says why, and the editor stays open with the text to correct. (While the
   * people are still being loaded the text is saved, and the grid reads it once they are.)
   */
  private refuses(): boolean {
    const col = this.column;
    const text = this.getValue();
    if (!col || typeof text !== 'string') return false;
    const ctx = textContextNow(editorEnv.model, col);
    const read = ctx ? inputFromText(col, text, ctx) : null;
    if (!read || !isRefusal(read)) return false;
    showMessage(refusalMessage(col, read));
    this.input?.focus();
    return true;
  }

  /** What the editor saves: the text (read by the grid, as typed text is), or a multi-select dropdown's choice. */
  getValue(): CellInput | string | undefined {
    const col = this.column;
    if (!col) return undefined;
    if (col.type === 'MULTI_PICKLIST') return { objectValue: { objectType: 'MULTI_PICKLIST', values: this.checks.filter((c) => c.checked).map((c) => c.value) } };
    if (col.type === 'MULTI_CONTACT_LIST') {
      // the people checked, as `Name <email>`, and the addresses (or names) typed beside them
      const picked = contactsText(this.checks.filter((c) => c.checked).map((c) => this.listed.get(c.value) ?? { email: c.value }));
      const other = this.input?.value.trim() ?? '';
      return [picked, other].filter((x) => x !== '').join(', ');
    }
    return this.input?.value ?? '';
  }

  beforeDisconnect(): void {
    this.input?.blur();
  }
}
