/** Small DOM helpers shared by the pages and panels (no framework). */

type Attrs = Record<string, string | number | boolean | null | undefined | EventListener>;
type Child = Node | string | null | undefined | false;

/**
 * Makes an element: `h('button', { type: 'button', onclick: fn, 'aria-label': 'Close' }, 'x')`.
 * `on<event>` attributes become listeners; true/false set or leave out a boolean attribute.
 */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = String(v);
    else if (v === true) el.setAttribute(k, '');
    else el.setAttribute(k, String(v));
  }
  for (const c of children) if (c !== null && c !== undefined && c !== false) el.append(c);
  return el;
}

/** A modal dialog (<dialog> with a title); resolves with the value `done` is called with, or null when cancelled. */
export function dialog<T>(title: string, build: (body: HTMLElement, done: (v: T) => void) => void): Promise<T | null> {
  return new Promise((resolve) => {
    const d = h('dialog', { class: 'modal', 'aria-labelledby': 'dlg-title' });
    const body = h('div', { class: 'modal-body' });
    d.append(h('h2', { id: 'dlg-title' }, title), body);
    let settled = false;
    const finish = (v: T | null) => {
      if (settled) return;
      settled = true;
      d.close();
      d.remove();
      resolve(v);
    };
    d.addEventListener('cancel', () => finish(null));
    build(body, (v) => finish(v));
    body.append(h('div', { class: 'modal-actions' }));
    document.body.append(d);
    d.showModal();
    const first = d.querySelector<HTMLElement>('input, select, textarea, button');
    first?.focus();
    (d as HTMLDialogElement & { cancelDialog?: () => void }).cancelDialog = () => finish(null);
  });
}

/**
 * A menu in a dialog: one menu item (a button) per choice, moved among with the arrow keys
 * (Tab too), Enter or a click chooses, Escape (or Cancel, when `cancel` is set) closes it.
 * Resolves with the chosen choice's key, or null.
 */
export function menuDialog<K>(title: string, choices: ReadonlyArray<readonly [K, string]>, o: { label?: string; cancel?: boolean } = {}): Promise<K | null> {
  return dialog<K>(title, (body, done) => {
    const menu = h('div', { class: 'menu', role: 'menu', 'aria-label': o.label });
    for (const [key, label] of choices) {
      const b = h('button', { type: 'button', role: 'menuitem', class: 'menu-item' }, label);
      b.addEventListener('click', () => done(key));
      menu.append(b);
    }
    menu.addEventListener('keydown', (e) => {
      const all = [...menu.querySelectorAll<HTMLButtonElement>('button')];
      const i = all.indexOf(document.activeElement as HTMLButtonElement);
      if (e.key === 'ArrowDown') all[(i + 1) % all.length]?.focus();
      else if (e.key === 'ArrowUp') all[(i - 1 + all.length) % all.length]?.focus();
      else return;
      e.preventDefault();
    });
    body.append(menu);
    if (o.cancel === true) {
      const cancel = h('button', { type: 'button', class: 'secondary' }, 'Cancel');
      cancel.addEventListener('click', () => (body.closest('dialog') as HTMLDialogElement).dispatchEvent(new Event('cancel')));
      body.append(h('div', { class: 'modal-actions' }, cancel));
    }
  });
}

/** A form in a dialog: labelled fields, OK and Cancel. Resolves with the form's values or null. */
export function formDialog(title: string, fields: Array<{ name: string; label: string; value?: string; type?: string; options?: Array<string | [value: string, label: string]> }>, ok = 'OK'): Promise<Record<string, string> | null> {
  return dialog<Record<string, string>>(title, (body, done) => {
    const form = h('form', { class: 'modal-form' });
    for (const f of fields) {
      const id = `f-${f.name}`;
      form.append(h('label', { for: id }, f.label));
      if (f.options) {
        const sel = h('select', { id, name: f.name });
        for (const o of f.options) {
          const [value, label] = typeof o === 'string' ? [o, o] : o;
          sel.append(h('option', { value, selected: value === f.value }, label));
        }
        form.append(sel);
      } else form.append(h('input', { id, name: f.name, type: f.type ?? 'text', value: f.value ?? '' }));
    }
    const cancel = h('button', { type: 'button', class: 'secondary' }, 'Cancel');
    form.append(h('div', { class: 'modal-actions' }, h('button', { type: 'submit' }, ok), cancel));
    cancel.addEventListener('click', () => (form.closest('dialog') as HTMLDialogElement).dispatchEvent(new Event('cancel')));
    submitOnEnter(form);
    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      const out: Record<string, string> = {};
      for (const [k, v] of new FormData(form)) out[k] = String(v);
      done(out);
    });
    body.append(form);
  });
}

/** Enter on a form's select submits it, as Enter in its text fields does (browsers do not). */
export function submitOnEnter(form: HTMLFormElement): void {
  form.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && (e.target as HTMLElement).tagName === 'SELECT') {
      e.preventDefault();
      form.requestSubmit();
    }
  });
}

/** Asks to confirm (e.g. a delete); resolves true when confirmed. */
export async function confirmDialog(title: string, text: string, ok = 'Delete'): Promise<boolean> {
  const r = await dialog<boolean>(title, (body, done) => {
    const yes = h('button', { type: 'button', class: 'danger' }, ok);
    const no = h('button', { type: 'button', class: 'secondary' }, 'Cancel');
    yes.addEventListener('click', () => done(true));
    no.addEventListener('click', () => (body.closest('dialog') as HTMLDialogElement).dispatchEvent(new Event('cancel')));
    body.append(h('p', {}, text), h('div', { class: 'modal-actions' }, yes, no));
  });
  return r === true;
}

/** "2026-11-26T10:00:00Z" as the person's local date and time. */
export function formatTime(iso: string | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** Resolves after `frames` animation frames: what the browser has drawn by then is on the screen. */
export function nextFrame(frames = 1): Promise<void> {
  return new Promise((resolve) => {
    const step = (left: number): void => { requestAnimationFrame(() => (left > 1 ? step(left - 1) : resolve())); };
    step(frames);
  });
}
