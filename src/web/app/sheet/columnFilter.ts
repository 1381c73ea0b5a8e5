import { dialog, h } from '../dom.ts';
import type { SheetPageContext } from './page.ts';
import type { Column } from './types.ts';

/** How many values the dialog lists at once (the search reaches all of them). */
export const LISTED = 200;

/**
 * The ad-hoc filter on a column's values (this page only; the server is not asked): every
 * distinct value, ticked unless its rows are hidden. The list shows the first values in the
 * column's order and a search box reaches every value, so a column of thousands of values is
 * filtered as well as one of three. Applying hides the rows of the unticked values: a value the
 * person never saw is never hidden.
 *
 * Keyboard: the search box has the focus; Tab goes to Tick all/Untick all (every value that
 * matches the search, listed or not), the values (Space ticks), Apply and Cancel; Enter in the
 * search box or on a value applies, Escape cancels (in the search box the first Escape clears
 * the search, as a search box does).
 */
export async function columnFilterDialog(ctx: SheetPageContext, col: Column): Promise<void> {
  const { model } = ctx;
  const values = model.distinctValues(col.id);
  const current = model.columnFilter?.columnId === col.id ? model.columnFilter.hidden : new Set<string>();
  // the unticked values, over all of them (listed or not)
  const unticked = new Set(values.filter((v) => current.has(v)));
  const shown = (v: string) => (v === '' ? '(blank)' : v);

  const hidden = await dialog<Set<string>>(`Filter by ${col.title}`, (body, done) => {
    const form = h('form', { class: 'modal-form column-filter' });
    const search = h('input', { type: 'search', class: 'filter-search', 'aria-label': 'Search the values', placeholder: `Search ${values.length} values`, autocomplete: 'off', 'aria-controls': 'filter-values' });
    const note = h('p', { class: 'note filter-note', role: 'status', 'aria-live': 'polite' });
    const tickAll = h('button', { type: 'button', class: 'small secondary', title: 'Tick every value that matches the search, listed or not' }, 'Tick all');
    const untickAll = h('button', { type: 'button', class: 'small secondary', title: 'Untick every value that matches the search, listed or not' }, 'Untick all');
    const list = h('fieldset', { class: 'filter-values', id: 'filter-values' });
    const legend = h('legend', {}, 'Show rows whose value is ticked');

    let matching: number[] = [];
    const render = () => {
      const q = search.value.trim().toLocaleLowerCase();
      matching = [];
      values.forEach((v, i) => {
        if (q === '' || shown(v).toLocaleLowerCase().includes(q)) matching.push(i);
      });
      const rows = matching.slice(0, LISTED).map((i) => {
        const v = values[i]!;
        const id = `fv-${i}`;
        const box = h('input', { type: 'checkbox', id, value: v, checked: !unticked.has(v) });
        box.addEventListener('change', () => (box.checked ? unticked.delete(v) : unticked.add(v)));
        return h('div', {}, box, h('label', { for: id, class: 'inline' }, shown(v)));
      });
      list.replaceChildren(legend, ...rows);
      const listed = Math.min(matching.length, LISTED);
      const which = q === ''
        ? (listed < values.length ? `Showing ${listed} of ${values.length} values; type to narrow.` : `${values.length} ${values.length === 1 ? 'value' : 'values'}.`)
        : matching.length === 0 ? 'No value matches.' : listed < matching.length ? `Showing ${listed} of ${matching.length} matching values; type to narrow.` : `${matching.length} matching ${matching.length === 1 ? 'value' : 'values'}.`;
      note.textContent = unticked.size > 0 ? `${which} Unticked (hidden): ${unticked.size}.` : which;
    };
    const setAll = (tick: boolean) => {
      for (const i of matching) {
        const v = values[i]!;
        if (tick) unticked.delete(v);
        else unticked.add(v);
      }
      render();
    };
    search.addEventListener('input', render);
    tickAll.addEventListener('click', () => setAll(true));
    untickAll.addEventListener('click', () => setAll(false));
    // Enter on a value (a checkbox) applies, as in the search box
    form.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && e.target instanceof HTMLInputElement) {
        e.preventDefault();
        form.requestSubmit();
      }
    });
    const cancel = h('button', { type: 'button', class: 'secondary' }, 'Cancel');
    cancel.addEventListener('click', () => (form.closest('dialog') as HTMLDialogElement).dispatchEvent(new Event('cancel')));
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      done(new Set(unticked));
    });
    form.append(search, h('div', { class: 'filter-bulk' }, note, tickAll, untickAll), list, h('div', { class: 'modal-actions' }, h('button', { type: 'submit' }, 'Apply filter'), cancel));
    render();
    body.append(form);
  });
  if (hidden === null) return;
  // nothing unticked: this column's filter cleared (another column's stays)
  if (hidden.size === 0 && model.columnFilter && model.columnFilter.columnId !== col.id) return;
  model.columnFilter = hidden.size === 0 ? null : { columnId: col.id, hidden };
  model.apply({ kind: 'columns', columns: model.columns });
}
