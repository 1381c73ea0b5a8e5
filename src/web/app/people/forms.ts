import { ApiError, messageOf } from '../api.ts';
import { dialog, h } from '../dom.ts';

/**
 * The People page's dialogs: a form that stays open while the server decides, and shows a
 * refusal in its own alert (in words: REFUSALS below, else the catalogue's message) so the
 * admin can correct the form and send it again. Escape or Cancel closes it unchanged.
 */

/** The catalogue's refusals the People page meets, as an admin reads them. */
const REFUSALS: Record<number, string> = {
  1016: 'Someone with this email address is already a member of the organization.',
  1021: 'The person to transfer to must be an active member of the organization.',
  1047: 'You cannot remove yourself. Another system admin can.',
  1049: 'You cannot take away your own system admin role. Another system admin can.',
  1076: 'This person owns sheets, so they must stay licensed. Transfer their sheets to someone else first (Remove… offers it), or keep them licensed.',
  1097: 'A resource viewer must be licensed.',
  1102: 'A group admin must be licensed.',
  1103: 'There is already a group with this name.',
  1105: 'That person is not a member of the organization.',
  1107: 'The person who takes over the groups must be a group admin.',
  1121: 'This person owns groups: choose whom to transfer them to.',
  1129: 'That person is in the group already.',
  1140: 'This address belonged to someone who still owns sheets: add them as licensed.',
  1156: 'That is not a valid email address.',
  1188: 'This person is not active.',
  1269: 'This person owns groups, so they must stay a group admin. Give the groups another owner first.',
  1290: 'That person is not active: reactivate them first.',
  1329: 'Names cannot contain the characters < and > or control characters.',
  1336: 'You cannot deactivate yourself.',
  1355: 'You cannot reactivate yourself.',
};

/** What the page itself refuses before asking the server (a field left empty). */
export class Problem extends Error {}

/** The words for a failure of a People action. */
export function refusalText(e: unknown): string {
  if (e instanceof Problem) return e.message;
  if (e instanceof ApiError && REFUSALS[e.errorCode]) return REFUSALS[e.errorCode]!;
  return messageOf(e);
}

/**
 * A dialog with a form: `build` adds the fields; on submit `submit` runs (the button is busy
 * meanwhile); its value closes the dialog and resolves, a thrown refusal is shown in the
 * dialog, which stays open. Resolves null when cancelled.
 */
export function formDialog<T>(title: string, ok: string, build: (form: HTMLFormElement) => void, submit: (form: HTMLFormElement) => Promise<T>, opts: { danger?: boolean } = {}): Promise<T | null> {
  return dialog<T>(title, (body, done) => {
    const form = h('form', { class: 'modal-form people-form', novalidate: true });
    build(form);
    const error = h('p', { class: 'error', role: 'alert', hidden: true });
    const okButton = h('button', { type: 'submit', class: opts.danger ? 'danger' : null }, ok);
    const cancel = h('button', { type: 'button', class: 'secondary' }, 'Cancel');
    cancel.addEventListener('click', () => (form.closest('dialog') as HTMLDialogElement).dispatchEvent(new Event('cancel')));
    form.append(error, h('div', { class: 'modal-actions' }, okButton, cancel));
    let busy = false;
    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      if (busy) return;
      busy = true;
      okButton.setAttribute('aria-busy', 'true');
      error.hidden = true;
      submit(form).then(done, (e: unknown) => {
        busy = false;
        okButton.removeAttribute('aria-busy');
        error.textContent = refusalText(e);
        error.hidden = false;
        // the keyboard stays in the form, on the first field to correct
        form.querySelector<HTMLElement>('input:not([type="hidden"]):not([disabled]), select')?.focus();
      });
    });
    body.append(form);
  });
}

/** A labelled text field. */
export function textField(name: string, label: string, value = '', attrs: Record<string, string | boolean> = {}): HTMLElement[] {
  const id = `p-${name}`;
  return [h('label', { for: id }, label), h('input', { id, name, type: 'text', value, ...attrs })];
}

/** A labelled checkbox (its label after it, on one line), with a hint under it when given. */
export function checkField(name: string, label: string, checked: boolean, hint?: string): HTMLElement {
  const id = `p-${name}`;
  const box = h('input', { id, name, type: 'checkbox', checked, 'aria-describedby': hint ? `${id}-hint` : null });
  return h('div', { class: 'check' }, box, h('label', { for: id }, label), hint ? h('span', { id: `${id}-hint`, class: 'note hint' }, hint) : null);
}

export function input(form: HTMLFormElement, name: string): HTMLInputElement {
  const el = form.elements.namedItem(name);
  if (!(el instanceof HTMLInputElement)) throw new Error(`no field ${name}`);
  return el;
}

export function select(form: HTMLFormElement, name: string): HTMLSelectElement {
  const el = form.elements.namedItem(name);
  if (!(el instanceof HTMLSelectElement)) throw new Error(`no field ${name}`);
  return el;
}
