import { h, dialog, formDialog, submitOnEnter } from '../dom.ts';
import { messageOf, showError, showMessage } from '../api.ts';
import type { ApiClient } from '../panels/access.ts';

/**
 * The dashboard page's edit mode (for ADMIN and OWNER): the widgets in reading order (top to
 * bottom, left to right), each with Move up, Move down and Remove; Add widget (a title or text,
 * a chart of a sheet, a metric of a sheet's cell); Save puts the whole list with the extension's
 * `PUT /sheetd/sights/{id}` (a widget keeps its id) and the page is drawn again.
 *
 * Moving a widget swaps its place on the grid (xPosition, yPosition, width, height) with its
 * neighbour's, so the layout stays inside the grid and without overlaps; a new widget goes
 * below the others, across the whole grid (a metric: a third of it).
 */

type Obj = Record<string, unknown>;
export interface EditWidget { id?: number; type: string; title?: string; showTitle?: boolean; xPosition: number; yPosition: number; width: number; height: number; contents: Obj; showTitleIcon?: boolean; titleFormat?: string; titleFont?: unknown; viewMode?: number }
interface SheetColumn { id: number; title: string; primary?: boolean; hidden?: boolean }
interface SheetRow { id: number; cells: Array<{ columnId: number; value?: unknown; displayValue?: string }> }
interface Sheet { id: number; name: string; columns: SheetColumn[]; rows: SheetRow[] }

const TYPE_NAMES: Record<string, string> = { TITLE: 'Title', RICHTEXT: 'Text', METRIC: 'Metric', SHEETSUMMARY: 'Metric', CHART: 'Chart', GRIDGANTT: 'Report', SHORTCUT: 'Shortcut', SHORTCUTICON: 'Shortcut', SHORTCUTLIST: 'Shortcuts', IMAGE: 'Image', WEBCONTENT: 'Web content' };

/** The words that name a widget in the list (its type, then its title or its text). */
export function describeWidget(w: EditWidget): string {
  const kind = TYPE_NAMES[w.type] ?? w.type;
  let what = w.title ?? '';
  if (!what && typeof w.contents.htmlContent === 'string' && (w.type === 'TITLE' || w.type === 'RICHTEXT')) {
    what = new DOMParser().parseFromString(w.contents.htmlContent, 'text/html').body.textContent ?? '';
  }
  what = what.trim().replace(/\s+/g, ' ');
  if (what.length > 60) what = `${what.slice(0, 57)}…`;
  return what ? `${kind}: ${what}` : kind;
}

function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/**
 * The widget to write back: as Get Dashboard gave it, at its place now. The server takes back
 * what it shows (live values, permalinks, filled-in labels) and keeps what it left out of this
 * reader's view (shortcuts and links to items not shared to them).
 */
function definition(w: EditWidget): Obj {
  return { ...w };
}

function cellText(sheet: Sheet, row: SheetRow, columnId: number): string {
  const c = row.cells.find((x) => x.columnId === columnId);
  if (!c) return '';
  return typeof c.displayValue === 'string' ? c.displayValue : c.value === undefined || c.value === null ? '' : String(c.value);
}

/** A dialog's form: the fields (added with `field`), an error line (role=alert), OK and Cancel; Enter submits, Escape cancels. */
function formShell(body: HTMLElement, ok: string, onSubmit: (fail: (msg: string) => void) => void): HTMLFormElement {
  const form = h('form', { class: 'modal-form' });
  const error = h('p', { class: 'error', role: 'alert' });
  const cancel = h('button', { type: 'button', class: 'secondary' }, 'Cancel');
  cancel.addEventListener('click', () => (form.closest('dialog') as HTMLDialogElement).dispatchEvent(new Event('cancel')));
  submitOnEnter(form);
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    error.textContent = '';
    onSubmit((msg) => {
      error.textContent = msg;
    });
  });
  form.append(error, h('div', { class: 'modal-actions' }, h('button', { type: 'submit' }, ok), cancel));
  body.append(form);
  return form;
}

function field(form: HTMLElement, id: string, label: string, control: HTMLElement): void {
  control.id = id;
  const before = form.querySelector(':scope > .error');
  for (const el of [h('label', { for: id }, label), control]) form.insertBefore(el, before);
}

async function pickSheet(api: ApiClient, title: string): Promise<Sheet | null> {
  let sheets: Array<{ id: number; name: string }>;
  try {
    sheets = (await api.get<{ data: Array<{ id: number; name: string }> }>('/sheets', { includeAll: true })).data;
  } catch (e) {
    showError(e);
    return null;
  }
  if (sheets.length === 0) {
    showMessage('There is no sheet to read from: create a sheet first.');
    return null;
  }
  const v = await formDialog(title, [{ name: 'sheet', label: 'Sheet', options: sheets.map((s) => [String(s.id), s.name] as [string, string]) }], 'Next');
  if (!v?.sheet) return null;
  try {
    return await api.get<Sheet>(`/sheets/${v.sheet}`);
  } catch (e) {
    showError(e);
    return null;
  }
}

async function textWidget(): Promise<Omit<EditWidget, 'xPosition' | 'yPosition' | 'width'> | null> {
  const v = await formDialog('Add a title or text', [
    { name: 'kind', label: 'Kind', options: [['TITLE', 'Title'], ['RICHTEXT', 'Text']] },
    { name: 'text', label: 'Text' },
  ], 'Add');
  if (!v || !v.text?.trim()) return null;
  const html = v.text.trim().split(/\n+/).map((p) => `<p>${escapeHtml(p)}</p>`).join('');
  return v.kind === 'TITLE' ? { type: 'TITLE', height: 1, contents: { htmlContent: html } } : { type: 'RICHTEXT', height: 2, contents: { htmlContent: html } };
}

const CHART_TYPES: Array<[string, string]> = [['COLUMN', 'Column'], ['BAR', 'Bar'], ['LINE', 'Line'], ['AREA', 'Area'], ['PIE', 'Pie']];

async function chartWidget(api: ApiClient): Promise<Omit<EditWidget, 'xPosition' | 'yPosition' | 'width'> | null> {
  const sheet = await pickSheet(api, 'Add a chart: its sheet');
  if (!sheet) return null;
  const columns = sheet.columns.filter((c) => !c.hidden);
  return dialog<Omit<EditWidget, 'xPosition' | 'yPosition' | 'width'>>(`Add a chart of ${sheet.name}`, (body, done) => {
    const form = formShell(body, 'Add', (fail) => {
      const labelId = Number(label.value);
      const picked = boxes.filter((b) => b.checked).map((b) => Number(b.value));
      if (picked.length === 0) return fail('Choose at least one number column.');
      if (picked.includes(labelId)) return fail('The label column cannot also be a number column.');
      const at = (id: number) => columns.findIndex((c) => c.id === id);
      if (picked.some((id) => at(id) < at(labelId))) return fail('The label column must come before the number columns in the sheet.');
      const seriesType = type.value;
      done({
        type: 'CHART',
        height: 5,
        ...(title.value.trim() ? { title: title.value.trim() } : {}),
        contents: {
          sheetId: sheet.id,
          includedColumnIds: [labelId, ...picked],
          series: picked.map(() => ({ seriesType })),
          legend: { location: 'BOTTOM' },
        },
      });
    });
    const title = h('input', { type: 'text', name: 'title' });
    field(form, 'chart-title', 'Chart title', title);
    const label = h('select', { name: 'label' });
    for (const c of columns) label.append(h('option', { value: String(c.id) }, c.title));
    field(form, 'chart-label', 'Label column (names the categories)', label);
    const set = h('fieldset', { class: 'chart-columns' }, h('legend', {}, 'Number columns (one series each)'));
    const boxes = columns.map((c) => {
      const box = h('input', { type: 'checkbox', name: 'series', value: String(c.id), id: `chart-col-${c.id}` });
      set.append(h('div', { class: 'check' }, box, h('label', { for: `chart-col-${c.id}` }, c.title)));
      return box;
    });
    form.insertBefore(set, form.querySelector(':scope > .error'));
    const type = h('select', { name: 'type' });
    for (const [v, l] of CHART_TYPES) type.append(h('option', { value: v }, l));
    field(form, 'chart-type', 'Chart type', type);
  });
}

async function metricWidget(api: ApiClient): Promise<Omit<EditWidget, 'xPosition' | 'yPosition' | 'width'> | null> {
  const sheet = await pickSheet(api, 'Add a metric: its sheet');
  if (!sheet) return null;
  if (sheet.rows.length === 0) {
    showMessage(`${sheet.name} has no rows: a metric shows a cell of a row.`);
    return null;
  }
  const primary = sheet.columns.find((c) => c.primary) ?? sheet.columns[0]!;
  return dialog<Omit<EditWidget, 'xPosition' | 'yPosition' | 'width'>>(`Add a metric of ${sheet.name}`, (body, done) => {
    const form = formShell(body, 'Add', () => {
      const columnId = Number(column.value);
      const text = label.value.trim();
      done({
        type: 'METRIC',
        height: 2,
        ...(title.value.trim() ? { title: title.value.trim() } : {}),
        contents: { sheetId: sheet.id, cellData: [{ dataSource: 'CELL', rowId: Number(row.value), columnId, ...(text ? { label: text } : {}) }] },
      });
    });
    const title = h('input', { type: 'text', name: 'title' });
    field(form, 'metric-title', 'Widget title', title);
    const row = h('select', { name: 'row' });
    sheet.rows.forEach((r, i) => row.append(h('option', { value: String(r.id) }, `${i + 1}. ${cellText(sheet, r, primary.id) || '(blank)'}`)));
    field(form, 'metric-row', 'Row', row);
    const column = h('select', { name: 'column' });
    for (const c of sheet.columns) column.append(h('option', { value: String(c.id) }, c.title));
    field(form, 'metric-column', 'Column', column);
    const label = h('input', { type: 'text', name: 'label' });
    field(form, 'metric-label', 'Label (the column\'s title when empty)', label);
  });
}

/**
 * Shows the editor in `host` for the dashboard's widgets; `onSaved` is called after a successful
 * save (the page draws the dashboard again), `onCancel` when the person leaves without saving.
 */
export function mountEditor(host: HTMLElement, sight: { id: number; columnCount?: number; widgets: EditWidget[] }, api: ApiClient, onSaved: () => void, onCancel: () => void): void {
  const cols = sight.columnCount ?? 12;
  const widgets: EditWidget[] = sight.widgets.map((w) => ({ ...w }));
  const list = h('ol', { class: 'widget-edit-list', 'aria-label': 'Widgets, in order' });
  const addBtn = h('button', { type: 'button' }, 'Add widget');
  const save = h('button', { type: 'button' }, 'Save');
  const cancel = h('button', { type: 'button', class: 'secondary' }, 'Cancel');
  host.replaceChildren(
    h('section', { class: 'dashboard-editor', 'aria-labelledby': 'editor-title' },
      h('h2', { id: 'editor-title' }, 'Editing the dashboard'),
      h('p', { class: 'note' }, 'Add, move and remove widgets, then save.'),
      list,
      h('div', { class: 'editor-actions' }, addBtn, save, cancel)),
  );

  const swap = (i: number, j: number) => {
    const a = widgets[i]!;
    const b = widgets[j]!;
    const slot = (w: EditWidget) => ({ xPosition: w.xPosition, yPosition: w.yPosition, width: w.width, height: w.height });
    const sa = slot(a);
    Object.assign(a, slot(b));
    Object.assign(b, sa);
    widgets[i] = b;
    widgets[j] = a;
  };

  function draw(focus?: { index: number; action: string }): void {
    list.replaceChildren();
    if (widgets.length === 0) list.append(h('li', { class: 'note' }, 'No widgets yet.'));
    widgets.forEach((w, i) => {
      const name = describeWidget(w);
      const btn = (action: string, text: string, disabled: boolean, run: () => void) => {
        const b = h('button', { type: 'button', class: 'secondary small', 'aria-label': `${text} ${name}`, 'data-action': action, disabled }, text);
        b.addEventListener('click', run);
        return b;
      };
      list.append(h('li', { class: 'widget-edit' },
        h('span', { class: 'widget-edit-name' }, name),
        btn('up', 'Move up', i === 0, () => {
          swap(i, i - 1);
          draw({ index: i - 1, action: i - 1 === 0 ? 'down' : 'up' });
        }),
        btn('down', 'Move down', i === widgets.length - 1, () => {
          swap(i, i + 1);
          draw({ index: i + 1, action: i + 1 === widgets.length - 1 ? 'up' : 'down' });
        }),
        btn('remove', 'Remove', false, () => {
          widgets.splice(i, 1);
          draw();
          showMessage(`${name} removed (save to keep the change).`, 'note');
          addBtn.focus();
        })));
    });
    if (focus) list.children[focus.index]?.querySelector<HTMLButtonElement>(`[data-action="${focus.action}"]`)?.focus();
  }

  addBtn.addEventListener('click', () => void (async () => {
    const v = await formDialog('Add widget', [{ name: 'kind', label: 'Widget', options: [['text', 'Title or text'], ['chart', 'Chart of a sheet'], ['metric', 'Metric (a cell of a sheet)']] }], 'Next');
    if (!v) return addBtn.focus();
    const made = v.kind === 'chart' ? await chartWidget(api) : v.kind === 'metric' ? await metricWidget(api) : await textWidget();
    if (made) {
      const bottom = widgets.reduce((m, w) => Math.max(m, w.yPosition + w.height), 0);
      widgets.push({ ...made, xPosition: 0, yPosition: bottom, width: made.type === 'METRIC' ? Math.min(4, cols) : cols });
      draw();
    }
    addBtn.focus();
  })());

  save.addEventListener('click', () => void (async () => {
    save.disabled = true;
    try {
      await api.put(`/sheetd/sights/${sight.id}`, { widgets: widgets.map(definition) });
      showMessage('Dashboard saved.', 'note');
      onSaved();
    } catch (e) {
      save.disabled = false;
      showMessage(`The dashboard was not saved: ${messageOf(e)}`);
    }
  })());
  cancel.addEventListener('click', onCancel);
  host.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && !document.querySelector('dialog[open]')) onCancel();
  });
  draw();
  addBtn.focus();
}
