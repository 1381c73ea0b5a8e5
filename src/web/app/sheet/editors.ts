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
 * cancels (RevoGrid's keyboard handling).
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
}

export const editorEnv: EditorEnv = { model: null as unknown as SheetModel, current: null, seed: '', opening: 0, queued: null };

export function columnOfProp(model: SheetModel, prop: unknown): Column | undefined {
  const m = /^c(\d+)$/.exec(String(prop));
  return m ? model.column(Number(m[1])) : undefined;
}

let uid = 0;

export class SheetCellEditor implements EditorBase {
  element: Element | null = null;
  editCell?: EditCell;
  private host: HTMLElement | null = null;
  private built = false;
  private input: HTMLInputElement | null = null;
  private checks: HTMLInputElement[] = [];
  /** The contacts of a multiple contacts list, by email: who each check box is. */
  private listed = new Map<string, Person>();
  private column: Column | undefined;

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
      // a list of check boxes (Space toggles, Tab moves, Enter saves) and, for contacts, a field for another address
      host.classList.add('sd-editor-list');
      const box = document.createElement('div');
      box.className = 'sd-multi';
      box.setAttribute('role', 'group');
      box.setAttribute('aria-label', col.title);
      host.append(box);
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
        this.checks[0]?.focus();
      } else {
        const other = document.createElement('input');
        other.type = 'email';
        other.placeholder = 'another email address';
        other.setAttribute('aria-label', 'Another email address');
        other.className = 'sd-multi-other';
        host.append(other);
        this.input = other;
        void loadPeople().then((ps) => {
          // the people, then the cell's other contacts (with the names the cell gives them)
          for (const p of [...ps, ...contactValues(cell)]) {
            if (this.listed.has(p.email)) continue;
            this.listed.set(p.email, p);
            addOption(p.email, contactText(p));
          }
          this.checks[0]?.focus();
        });
      }
      const ok = document.createElement('button');
      ok.type = 'button';
      ok.className = 'sd-editor-ok';
      ok.textContent = 'OK';
      ok.addEventListener('click', () => {
        if (!this.refuses()) this.save(this.getValue());
      });
      host.append(ok);
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
  }

  private onKeyDown(e: KeyboardEvent): void {
    if (e.isComposing) return;
    if (e.key === 'Enter' || e.key === 'Tab') {
      // a check box list: Tab moves between the boxes; Enter saves
      if (this.checks.length > 0 && e.key === 'Tab') return;
      e.preventDefault();
      e.stopPropagation();
      if (this.refuses()) return;
      this.save(this.getValue(), e.key === 'Tab');
      // Tab goes on along the row (RevoGrid's close(true) would go down, as Enter does)
      if (e.key === 'Tab') {
        this.close(false);
        editorEnv.tabbed?.(e.shiftKey);
      }
    } else if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      this.close(false);
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
