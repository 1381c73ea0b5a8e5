import { showMessage } from '../api.ts';
import { dialog, h } from '../dom.ts';
import type { SheetPageContext } from './page.ts';
import type { Column, Hyperlink } from './types.ts';
import { linkAsSent, linkTarget, readOnlyReason, typedLink, type CellInput } from './values.ts';
import { shownText } from './model.ts';

/**
 * A cell's link (the Link… button, Ctrl+K): opens it, and for those who may edit the cell sets
 * its web address and the text shown, or takes the link away (the text stays). A link to another
 * sheet, report or dashboard stays one while its address is left as it is.
 *
 * Keyboard: the address field has the focus; Tab goes to the text, Save, Remove link and
 * Cancel; Enter saves, Escape cancels. The focus goes back to the cell.
 */
export async function linkDialog(ctx: SheetPageContext, rowId: number, col: Column): Promise<void> {
  const { model, actions, grid } = ctx;
  const cell = model.cell(rowId, col.id);
  const current = cell?.hyperlink;
  const href = linkTarget(current);
  const canEdit = model.canEdit && readOnlyReason(col) === null && actions.canEditCell(rowId, col.id) && col.type !== 'CHECKBOX' && !cell?.formula;
  if (!canEdit && !current) {
    showMessage('This cell has no link.', 'note');
    return;
  }
  const chosen = await dialog<CellInput>(current ? 'Link' : 'Add a link', (body, done) => {
    const form = h('form', { class: 'modal-form' });
    if (href) form.append(h('p', { class: 'link-open' }, h('a', { href, target: '_blank', rel: 'noopener noreferrer' }, 'Open the link'), ` ${href}`));
    else if (current?.url) form.append(h('p', { class: 'note' }, `This link (${current.url}) is not a web address the page opens.`));
    if (!canEdit) {
      const close = h('button', { type: 'button', class: 'secondary' }, 'Close');
      close.addEventListener('click', () => (form.closest('dialog') as HTMLDialogElement).dispatchEvent(new Event('cancel')));
      form.append(h('div', { class: 'modal-actions' }, close));
      body.append(form);
      return;
    }
    const url = h('input', { id: 'link-url', name: 'url', type: 'text', inputmode: 'url', autocomplete: 'off', value: current?.url ?? '', placeholder: 'https://example.com' });
    const text = h('input', { id: 'link-text', name: 'text', type: 'text', value: shownText(cell), placeholder: 'the address itself' });
    const error = h('p', { class: 'error', role: 'alert', hidden: true });
    form.append(h('label', { for: 'link-url' }, 'Web address'), url, h('label', { for: 'link-text' }, 'Text to show'), text, error);
    const save = h('button', { type: 'submit' }, 'Save');
    const remove = current ? h('button', { type: 'button', class: 'secondary' }, 'Remove link') : null;
    const cancel = h('button', { type: 'button', class: 'secondary' }, 'Cancel');
    form.append(h('div', { class: 'modal-actions' }, save, remove, cancel));
    remove?.addEventListener('click', () => done({ hyperlink: null, value: text.value }));
    cancel.addEventListener('click', () => (form.closest('dialog') as HTMLDialogElement).dispatchEvent(new Event('cancel')));
    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      // the address left as it was: the same link (a sheet's stays a sheet's)
      const same = current && url.value.trim() === (current.url ?? '');
      const address = same ? current.url! : typedLink(url.value);
      if (address === null) {
        error.textContent = 'Type a web address, such as https://example.com.';
        error.hidden = false;
        url.focus();
        return;
      }
      const link: Hyperlink = same ? linkAsSent(current) : { url: address };
      done({ hyperlink: link, value: text.value.trim() });
    });
    body.append(form);
  });
  if (chosen) await actions.editCells([{ rowId, columnId: col.id, input: chosen }]);
  await grid.focusCell(rowId, col.id);
}

