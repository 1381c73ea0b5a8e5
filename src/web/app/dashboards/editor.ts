import { h, dialog, formDialog, submitOnEnter } from '../dom.ts';
import { messageOf, showError, showMessage } from '../api.ts';
import type { ApiClient } from '../panels/access.ts';

/**
 * The dashboard page's edit mode (for ADMIN and OWNER): the widgets in reading order (top to
 * bottom, left to right), each with Edit…, Move up, Move down and Remove; Add widget (a title or
 * text, a chart of a sheet, a metric of a sheet's cell, a report, web content, an image file, a
 * shortcut); Save puts the whole list with the extension's `PUT /sheetd/sights/{id}` (a widget
 * keeps its id) and the page is drawn again.
 *
 * Moving a widget swaps its place on the grid (xPosition, yPosition, width, height) with its
 * neighbour's, so the layout stays inside the grid and without overlaps; a new widget goes
 * below the others, across the whole grid (a metric or a shortcut: a third of it). Edit… changes
 * a widget's title, what it shows (text, labels, address, links, chart settings, an image's fit)
 * and its size; a size that would leave the grid is refused in words, and widgets a larger one
 * would cover move down to make room. Whatever the dialog does not show stays as Get Dashboard gave it.
 */

type Obj = Record<string, unknown>;
export interface EditWidget { id?: number; type: string; title?: string; showTitle?: boolean; xPosition: number; yPosition: number; width: number; height: number; contents: Obj; showTitleIcon?: boolean; titleFormat?: string; titleFont?: unknown; viewMode?: number }
/** A widget made by Add widget, before it is placed (below the others). */
type NewWidget = Omit<EditWidget, 'xPosition' | 'yPosition' | 'width'>;
interface SheetColumn { id: number; title: string; primary?: boolean; hidden?: boolean }
interface SheetRow { id: number; cells: Array<{ columnId: number; value?: unknown; displayValue?: string }> }
interface Sheet { id: number; name: string; columns: SheetColumn[]; rows: SheetRow[] }

const TYPE_NAMES: Record<string, string> = { TITLE: 'Title', RICHTEXT: 'Text', METRIC: 'Metric', SHEETSUMMARY: 'Metric', CHART: 'Chart', GRIDGANTT: 'Report', SHORTCUT: 'Shortcut', SHORTCUTICON: 'Shortcut', SHORTCUTLIST: 'Shortcuts', IMAGE: 'Image', WEBCONTENT: 'Web content' };

/** The words that name a widget in the list (its type, then its title or its text). */
export function describeWidget(w: EditWidget): string {
  const kind = TYPE_NAMES[w.type] ?? w.type;
  let what = w.title ?? '';
  if (!what && typeof w.contents.htmlContent === 'string' && (w.type === 'TITLE' || w.type === 'RICHTEXT')) {
    what = htmlLines(w.contents.htmlContent).join(' ');
  }
  if (!what && w.type === 'WEBCONTENT' && typeof w.contents.url === 'string') what = w.contents.url;
  if (!what && Array.isArray(w.contents.shortcutData)) what = (w.contents.shortcutData as Obj[]).map((x) => (typeof x.label === 'string' ? x.label : '')).filter(Boolean).join(', ');
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
  // the checks are ours, said in words in the error line (not the browser's bubbles)
  const form = h('form', { class: 'modal-form', novalidate: true });
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

/** The sheets or reports the person sees (a list's every page), or null, said in words, when there are none or the call failed. */
async function itemsToPick(api: ApiClient, path: '/sheets' | '/reports', none: string): Promise<Array<{ id: number; name: string }> | null> {
  try {
    const items = (await api.get<{ data: Array<{ id: number; name: string }> }>(path, { includeAll: true })).data;
    if (items.length > 0) return items;
    showMessage(none);
  } catch (e) {
    showError(e);
  }
  return null;
}

async function pickSheet(api: ApiClient, title: string): Promise<Sheet | null> {
  const sheets = await itemsToPick(api, '/sheets', 'There is no sheet to read from: create a sheet first.');
  if (sheets === null) return null;
  const v = await formDialog(title, [{ name: 'sheet', label: 'Sheet', options: sheets.map((s) => [String(s.id), s.name] as [string, string]) }], 'Next');
  if (!v?.sheet) return null;
  try {
    return await api.get<Sheet>(`/sheets/${v.sheet}`);
  } catch (e) {
    showError(e);
    return null;
  }
}

async function textWidget(): Promise<NewWidget | null> {
  const v = await formDialog('Add a title or text', [
    { name: 'kind', label: 'Kind', options: [['TITLE', 'Title'], ['RICHTEXT', 'Text']] },
    { name: 'text', label: 'Text' },
  ], 'Add');
  if (!v || !v.text?.trim()) return null;
  const html = v.text.trim().split(/\n+/).map((p) => `<p>${escapeHtml(p)}</p>`).join('');
  return v.kind === 'TITLE' ? { type: 'TITLE', height: 1, contents: { htmlContent: html } } : { type: 'RICHTEXT', height: 2, contents: { htmlContent: html } };
}

const CHART_TYPES: Array<[string, string]> = [['COLUMN', 'Column'], ['BAR', 'Bar'], ['LINE', 'Line'], ['AREA', 'Area'], ['PIE', 'Pie']];

interface ChartPick { labelId: number; picked: number[]; seriesType: string }

/**
 * A chart's settings in `form` (a label column, number columns after it, a type), set to
 * `initial`; answers a function that reads them, or says in words what is wrong.
 */
function chartFields(form: HTMLFormElement, columns: SheetColumn[], initial?: ChartPick): () => ChartPick | string {
  const label = h('select', { name: 'label' });
  for (const c of columns) label.append(h('option', { value: String(c.id), selected: c.id === initial?.labelId }, c.title));
  field(form, 'chart-label', 'Label column (names the categories)', label);
  const set = h('fieldset', { class: 'chart-columns' }, h('legend', {}, 'Number columns (one series each)'));
  const boxes = columns.map((c) => {
    const box = h('input', { type: 'checkbox', name: 'series', value: String(c.id), id: `chart-col-${c.id}`, checked: initial?.picked.includes(c.id) ?? false });
    set.append(h('div', { class: 'check' }, box, h('label', { for: `chart-col-${c.id}` }, c.title)));
    return box;
  });
  form.insertBefore(set, form.querySelector(':scope > .error'));
  const type = h('select', { name: 'type' });
  const types = initial && !CHART_TYPES.some(([v]) => v === initial.seriesType) ? [...CHART_TYPES, [initial.seriesType, initial.seriesType] as [string, string]] : CHART_TYPES;
  for (const [v, l] of types) type.append(h('option', { value: v, selected: v === initial?.seriesType }, l));
  field(form, 'chart-type', 'Chart type', type);
  return () => {
    const labelId = Number(label.value);
    const picked = boxes.filter((b) => b.checked).map((b) => Number(b.value));
    if (picked.length === 0) return 'Choose at least one number column.';
    if (picked.includes(labelId)) return 'The label column cannot also be a number column.';
    const at = (id: number) => columns.findIndex((c) => c.id === id);
    if (picked.some((id) => at(id) < at(labelId))) return 'The label column must come before the number columns in the sheet.';
    return { labelId, picked, seriesType: type.value };
  };
}

async function chartWidget(api: ApiClient): Promise<NewWidget | null> {
  const sheet = await pickSheet(api, 'Add a chart: its sheet');
  if (!sheet) return null;
  const columns = sheet.columns.filter((c) => !c.hidden);
  return dialog<NewWidget>(`Add a chart of ${sheet.name}`, (body, done) => {
    const form = formShell(body, 'Add', (fail) => {
      const pick = read();
      if (typeof pick === 'string') return fail(pick);
      done({
        type: 'CHART',
        height: 5,
        ...(title.value.trim() ? { title: title.value.trim() } : {}),
        contents: {
          sheetId: sheet.id,
          includedColumnIds: [pick.labelId, ...pick.picked],
          series: pick.picked.map(() => ({ seriesType: pick.seriesType })),
          legend: { location: 'BOTTOM' },
        },
      });
    });
    const title = h('input', { type: 'text', name: 'title' });
    field(form, 'chart-title', 'Chart title', title);
    const read = chartFields(form, columns);
  });
}

async function metricWidget(api: ApiClient): Promise<NewWidget | null> {
  const sheet = await pickSheet(api, 'Add a metric: its sheet');
  if (!sheet) return null;
  if (sheet.rows.length === 0) {
    showMessage(`${sheet.name} has no rows: a metric shows a cell of a row.`);
    return null;
  }
  const primary = sheet.columns.find((c) => c.primary) ?? sheet.columns[0]!;
  return dialog<NewWidget>(`Add a metric of ${sheet.name}`, (body, done) => {
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

/** An absolute http(s) address, as the server takes it for web content and links. */
function isWebAddress(s: string): boolean {
  try {
    const u = new URL(s);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

const ADDRESS_HELP = 'The web address must be a whole address starting with http:// or https://.';

async function webWidget(): Promise<NewWidget | null> {
  return dialog<NewWidget>('Add web content', (body, done) => {
    const form = formShell(body, 'Add', (fail) => {
      const address = url.value.trim();
      if (!isWebAddress(address)) return fail(ADDRESS_HELP);
      done({ type: 'WEBCONTENT', height: 4, ...(title.value.trim() ? { title: title.value.trim() } : {}), contents: { url: address } });
    });
    const url = h('input', { type: 'text', name: 'url', inputmode: 'url', placeholder: 'https://' });
    field(form, 'web-url', 'Web address', url);
    const title = h('input', { type: 'text', name: 'title' });
    field(form, 'web-title', 'Widget title', title);
  });
}

/** The image types Add Dashboard Image takes (docs/dashboards.md). */
const IMAGE_TYPES = 'image/png,image/gif,image/jpeg,image/bmp,image/webp';
const FITS: Array<[string, string]> = [['FIT', 'Fit (the whole image, in proportion)'], ['FILL', 'Fill (the whole widget, cropped)'], ['ACTUAL_SIZE', 'Actual size']];

/**
 * An image widget: a picture file from the person's computer, sent to the dashboard's images
 * (`POST /sheetd/sights/{id}/images`) when the dialog is confirmed; the widget names it by the
 * `privateId` the server answers. A refusal (not an image, too large) is said in the dialog,
 * which stays open to choose another file.
 */
async function imageWidget(api: ApiClient, sightId: number): Promise<NewWidget | null> {
  return dialog<NewWidget>('Add an image', (body, done) => {
    let sending = false;
    const form = formShell(body, 'Add', (fail) => {
      if (sending) return;
      const file = input.files?.[0];
      if (!file) return fail('Choose an image file (PNG, GIF, JPEG, BMP or WebP).');
      sending = true;
      status.textContent = `Sending ${file.name}…`;
      void api.upload<{ result: { privateId: string; fileName: string; width?: number; height?: number } }>(`/sheetd/sights/${sightId}/images`, file, file.name).then((r) => {
        const img = r.result;
        const t = title.value.trim();
        done({
          type: 'IMAGE', height: 6, ...(t ? { title: t, showTitle: true } : {}),
          contents: { privateId: img.privateId, fileName: img.fileName, fit: fit.value, ...(img.width ? { width: img.width } : {}), ...(img.height ? { height: img.height } : {}) },
        });
      }, (e: unknown) => {
        sending = false;
        status.textContent = '';
        fail(`${file.name} was not added: ${messageOf(e)}`);
      });
    });
    const input = h('input', { type: 'file', name: 'image', accept: IMAGE_TYPES });
    field(form, 'image-file', 'Image file', input);
    // another file chosen: what was said of the last one goes
    input.addEventListener('change', () => {
      const error = form.querySelector(':scope > .error');
      if (error) error.textContent = '';
    });
    const title = h('input', { type: 'text', name: 'title' });
    field(form, 'image-title', 'Widget title (optional)', title);
    const fit = h('select', { name: 'fit' }, ...FITS.map(([v, label]) => h('option', { value: v }, label)));
    field(form, 'image-fit', 'Fit in the widget', fit);
    const status = h('p', { class: 'note', role: 'status' });
    form.insertBefore(status, form.querySelector(':scope > .error'));
  });
}

/** A report widget (GRIDGANTT): one of the reports the person can see, shown as its table. */
async function reportWidget(api: ApiClient): Promise<NewWidget | null> {
  const reports = await itemsToPick(api, '/reports', 'There is no report to show: create a report first (New report on Home).');
  if (reports === null) return null;
  const v = await formDialog('Add a report', [
    { name: 'report', label: 'Report', options: reports.map((r) => [String(r.id), r.name] as [string, string]) },
    { name: 'title', label: 'Widget title (blank: the report\'s name)' },
  ], 'Add');
  if (!v?.report) return null;
  const name = reports.find((r) => String(r.id) === v.report)?.name ?? '';
  return { type: 'GRIDGANTT', height: 6, title: v.title?.trim() || name, contents: { reportId: Number(v.report) } };
}

const SHORTCUT_TYPES = ['SHORTCUT', 'SHORTCUTICON', 'SHORTCUTLIST'];

const ITEM_KINDS: Array<{ key: 'sheetId' | 'reportId' | 'sightId'; path: string; group: string }> = [
  { key: 'sheetId', path: '/sheets', group: 'Sheets' },
  { key: 'reportId', path: '/reports', group: 'Reports' },
  { key: 'sightId', path: '/sights', group: 'Dashboards' },
];

/** The sheets, reports and dashboards a shortcut may open (ITEM_KINDS' lists), or null (said in words) when they cannot be read. */
async function linkTargets(api: ApiClient): Promise<Array<Array<{ id: number; name: string }>> | null> {
  try {
    return await Promise.all(ITEM_KINDS.map((k) => api.get<{ data: Array<{ id: number; name: string }> }>(k.path, { includeAll: true }).then((r) => r.data)));
  } catch (e) {
    showError(e);
    return null;
  }
}

/**
 * A link's fields in `into` (what it opens: a web address or one of `lists`' items; the address;
 * its label), with `prefix` for their ids. `optional`: a first choice "No new link". Answers a
 * reader: the shortcut item, null for none, or what is wrong in words.
 */
function linkFields(into: HTMLElement, lists: Array<Array<{ id: number; name: string }>>, prefix: string, optional: boolean): () => Obj | null | string {
  const add = (el: HTMLElement) => (into instanceof HTMLFormElement ? into.insertBefore(el, into.querySelector(':scope > .error')) : into.append(el));
  const target = h('select', { name: `${prefix}-target`, id: `${prefix}-target` });
  if (optional) target.append(h('option', { value: '' }, 'No new link'));
  target.append(h('option', { value: 'url' }, 'A web address'));
  ITEM_KINDS.forEach((k, i) => {
    if (lists[i]!.length === 0) return;
    const group = h('optgroup', { label: k.group });
    for (const item of lists[i]!) group.append(h('option', { value: `${k.key}:${item.id}` }, item.name));
    target.append(group);
  });
  const url = h('input', { type: 'text', name: `${prefix}-url`, id: `${prefix}-url`, inputmode: 'url', placeholder: 'https://' });
  const urlLabel = h('label', { for: url.id }, 'Web address');
  const label = h('input', { type: 'text', name: `${prefix}-label`, id: `${prefix}-label` });
  for (const el of [h('label', { for: target.id }, 'Link to'), target, urlLabel, url, h('label', { for: label.id }, 'Label (the item\'s name or the address when empty)'), label]) add(el);
  const shown = () => {
    url.hidden = urlLabel.hidden = target.value !== 'url';
  };
  target.addEventListener('change', shown);
  shown();
  return () => {
    if (target.value === '') return null;
    let hyperlink: Obj;
    if (target.value === 'url') {
      const address = url.value.trim();
      if (!isWebAddress(address)) return ADDRESS_HELP;
      hyperlink = { url: address };
    } else {
      const [key, id] = target.value.split(':');
      hyperlink = { [key!]: Number(id) };
    }
    const text = label.value.trim();
    return { ...(text ? { label: text } : {}), hyperlink };
  };
}

async function shortcutWidget(api: ApiClient): Promise<NewWidget | null> {
  const lists = await linkTargets(api);
  if (lists === null) return null;
  return dialog<NewWidget>('Add a shortcut', (body, done) => {
    const form = formShell(body, 'Add', (fail) => {
      const item = read();
      if (typeof item === 'string') return fail(item);
      if (item) done({ type: 'SHORTCUT', height: 1, contents: { shortcutData: [item] } });
    });
    const read = linkFields(form, lists, 'shortcut', false);
  });
}

/** The text of a title's or text's HTML: a line per paragraph, list item or line break. */
export function htmlLines(html: string): string[] {
  const body = new DOMParser().parseFromString(html, 'text/html').body;
  const walk = document.createTreeWalker(body, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) (n as Text).data = (n as Text).data.replace(/\s+/g, ' ');
  body.querySelectorAll('br').forEach((b) => b.replaceWith('\n'));
  body.querySelectorAll('p, li, div, h1, h2, h3, h4, h5, h6, ul, ol').forEach((el) => el.append('\n'));
  return (body.textContent ?? '').split('\n').map((l) => l.trim()).filter(Boolean);
}

function linesHtml(lines: string[]): string {
  return lines.map((p) => `<p>${escapeHtml(p)}</p>`).join('');
}

function checkField(form: HTMLElement, id: string, label: string, box: HTMLInputElement): void {
  box.id = id;
  form.insertBefore(h('div', { class: 'check' }, box, h('label', { for: id }, label)), form.querySelector(':scope > .error'));
}

function group(form: HTMLElement, legend: string): HTMLFieldSetElement {
  const set = h('fieldset', { class: 'edit-group' }, h('legend', {}, legend));
  form.insertBefore(set, form.querySelector(':scope > .error'));
  return set;
}

/** A chart the Add dialog could have made: of a sheet, by its included columns, the first one the labels. */
function simpleChart(c: Obj): ChartPick | undefined {
  const ids = c.includedColumnIds;
  if (typeof c.sheetId !== 'number' || c.selectionRanges !== undefined || !Array.isArray(ids) || ids.length < 2) return undefined;
  const series = Array.isArray(c.series) ? (c.series as Obj[]) : [];
  if (series.some((x) => x.seriesSelectionOrder === 'ROWS')) return undefined;
  const first = series[0]?.seriesType;
  return { labelId: ids[0] as number, picked: ids.slice(1) as number[], seriesType: typeof first === 'string' ? first : 'COLUMN' };
}

/**
 * The Edit… dialog of a widget: its title and whether it shows, what it shows (by its type) and
 * its size. Answers the widget with the changes (everything else as it was), or null when cancelled.
 */
async function editWidget(api: ApiClient, w: EditWidget, cols: number): Promise<EditWidget | null> {
  const name = describeWidget(w);
  const c = w.contents;
  const chart = w.type === 'CHART' ? simpleChart(c) : undefined;
  const shortcuts = SHORTCUT_TYPES.includes(w.type) && Array.isArray(c.shortcutData) ? (c.shortcutData as Obj[]) : undefined;
  // what a new link of a shortcut widget may open (none offered when the lists cannot be read)
  const targets = shortcuts ? await linkTargets(api) : null;
  let sheet: Sheet | undefined;
  if (chart) {
    try {
      sheet = await api.get<Sheet>(`/sheets/${String(c.sheetId)}`);
    } catch {
      sheet = undefined; // the chart's sheet cannot be read: its settings stay as they are
    }
  }
  return dialog<EditWidget>(`Edit ${name}`, (body, done) => {
    const reads: Array<(out: EditWidget) => string | undefined> = [];
    const form = formShell(body, 'OK', (fail) => {
      const out: EditWidget = { ...w, contents: { ...c } };
      for (const read of reads) {
        const wrong = read(out);
        if (wrong) return fail(wrong);
      }
      done(out);
    });

    // its title
    const title = h('input', { type: 'text', name: 'title', value: w.title ?? '', maxlength: 500 });
    field(form, 'edit-title', 'Widget title', title);
    const show = h('input', { type: 'checkbox', name: 'showTitle', checked: w.showTitle ?? Boolean(w.title) });
    checkField(form, 'edit-show-title', 'Show the title', show);
    reads.push((out) => {
      const t = title.value.trim();
      if (t === (w.title ?? '').trim() && show.checked === (w.showTitle ?? Boolean(w.title))) return undefined;
      if (t) {
        out.title = t;
        out.showTitle = show.checked;
      } else {
        delete out.title;
        out.showTitle = false;
      }
      return undefined;
    });

    // what it shows
    if ((w.type === 'TITLE' || w.type === 'RICHTEXT') && typeof c.htmlContent === 'string') {
      const was = htmlLines(c.htmlContent);
      const text = h('textarea', { name: 'text', rows: w.type === 'TITLE' ? 2 : 6 });
      text.value = was.join('\n');
      field(form, 'edit-text', 'Text (a paragraph a line; Ctrl+Enter saves)', text);
      text.addEventListener('keydown', (e) => {
        if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
          e.preventDefault();
          form.requestSubmit();
        }
      });
      reads.push((out) => {
        const lines = text.value.split('\n').map((l) => l.trim()).filter(Boolean);
        if (lines.length === 0) return 'Write the text: a title or text widget cannot be empty.';
        if (lines.join('\n') !== was.join('\n')) out.contents.htmlContent = linesHtml(lines);
        return undefined;
      });
    }
    if ((w.type === 'METRIC' || w.type === 'SHEETSUMMARY') && Array.isArray(c.cellData)) {
      const items = c.cellData as Obj[];
      const columns = Array.isArray(c.columns) ? (c.columns as Obj[]) : [];
      const inputs = items.map((d, i) => {
        const field_ = d.profileField as Obj | undefined;
        const what = String(columns.find((x) => x.id === d.columnId)?.title ?? field_?.title ?? `item ${i + 1}`);
        const input = h('input', { type: 'text', name: `label${i}`, value: typeof d.label === 'string' ? d.label : '', maxlength: 500 });
        field(form, `edit-label-${i}`, items.length > 1 ? `Label of item ${i + 1} (${what})` : `Label (${what})`, input);
        return input;
      });
      reads.push((out) => {
        out.contents.cellData = items.map((d, i) => {
          const v = inputs[i]!.value.trim();
          if (v === (typeof d.label === 'string' ? d.label : '')) return d;
          const next: Obj = { ...d };
          if (v) next.label = v;
          else delete next.label;
          return next;
        });
        return undefined;
      });
    }
    if (w.type === 'WEBCONTENT') {
      const url = h('input', { type: 'text', name: 'url', inputmode: 'url', value: typeof c.url === 'string' ? c.url : '' });
      field(form, 'edit-url', 'Web address', url);
      reads.push((out) => {
        const address = url.value.trim();
        if (address === c.url) return undefined;
        if (!isWebAddress(address)) return ADDRESS_HELP;
        out.contents.url = address;
        return undefined;
      });
    }
    if (w.type === 'IMAGE') {
      const was = typeof c.fit === 'string' ? c.fit : 'FIT';
      const fit = h('select', { name: 'fit' }, ...FITS.map(([v, label]) => h('option', { value: v, selected: v === was }, label)));
      field(form, 'edit-fit', 'Fit in the widget', fit);
      reads.push((out) => {
        if (fit.value !== was) out.contents.fit = fit.value;
        return undefined;
      });
    }
    if (shortcuts) {
      const items = shortcuts;
      const kinds: Record<string, string> = { sheetId: 'a sheet', reportId: 'a report', sightId: 'a dashboard' };
      const fields = items.map((s, i) => {
        const link = (s.hyperlink ?? {}) as Obj;
        const key = Object.keys(kinds).find((k) => typeof link[k] === 'number');
        const set = group(form, `Link ${i + 1}: ${key ? kinds[key] : 'a web address'}`);
        const label = h('input', { type: 'text', name: `label${i}`, id: `edit-link-label-${i}`, value: typeof s.label === 'string' ? s.label : '', maxlength: 500 });
        set.append(h('label', { for: label.id }, key ? 'Label (its name when empty)' : 'Label (the address when empty)'), label);
        let url: HTMLInputElement | undefined;
        if (key) set.append(h('p', { class: 'note' }, 'It opens the same item (kept as it is).'));
        else {
          url = h('input', { type: 'text', name: `url${i}`, id: `edit-link-url-${i}`, inputmode: 'url', value: typeof link.url === 'string' ? link.url : '' });
          set.append(h('label', { for: url.id }, 'Web address'), url);
        }
        const remove = h('input', { type: 'checkbox', name: `remove${i}`, id: `edit-link-remove-${i}` });
        set.append(h('div', { class: 'check' }, remove, h('label', { for: remove.id }, `Remove link ${i + 1}`)));
        return { label, url, remove };
      });
      const added = targets ? linkFields(group(form, 'A new link'), targets, 'edit-new-link', true) : () => null;
      reads.push((out) => {
        const next: Obj[] = [];
        for (const [i, s] of items.entries()) {
          const { label, url, remove } = fields[i]!;
          if (remove.checked) continue;
          const item: Obj = { ...s };
          const v = label.value.trim();
          if (v !== (typeof s.label === 'string' ? s.label : '')) {
            if (v) item.label = v;
            else delete item.label;
          }
          const link = (s.hyperlink ?? {}) as Obj;
          if (url && url.value.trim() !== link.url) {
            const address = url.value.trim();
            if (!isWebAddress(address)) return `Link ${i + 1}: ${ADDRESS_HELP}`;
            item.hyperlink = { ...link, url: address };
          }
          next.push(item);
        }
        const more = added();
        if (typeof more === 'string') return `The new link: ${more}`;
        if (more) next.push(more);
        if (next.length === 0) return 'A shortcut widget keeps at least one link: remove the widget instead.';
        // a single shortcut given a second link becomes a list of them
        if (next.length > 1 && w.type === 'SHORTCUT') out.type = 'SHORTCUTLIST';
        out.contents.shortcutData = next;
        return undefined;
      });
    }
    if (chart && sheet) {
      const read = chartFields(form, sheet.columns.filter((x) => !x.hidden), chart);
      reads.push((out) => {
        const pick = read();
        if (typeof pick === 'string') return pick;
        const sameColumns = pick.labelId === chart.labelId && pick.picked.join() === chart.picked.join();
        if (sameColumns && pick.seriesType === chart.seriesType) return undefined;
        const series = Array.isArray(c.series) ? (c.series as Obj[]) : [];
        out.contents.includedColumnIds = [pick.labelId, ...pick.picked];
        out.contents.series = pick.picked.map((_, i) => ({ ...(sameColumns ? series[i] : {}), seriesType: pick.seriesType }));
        return undefined;
      });
    } else if (w.type === 'CHART') {
      form.insertBefore(h('p', { class: 'note' }, chart ? 'The chart\'s sheet cannot be read: its data and type stay as they are.' : 'This chart\'s data and type stay as they are (set through the API).'), form.querySelector(':scope > .error'));
    }

    // its size
    const width = h('input', { type: 'number', name: 'width', min: 1, max: cols - w.xPosition, value: w.width });
    field(form, 'edit-width', `Width (grid columns; it starts at column ${w.xPosition + 1} of ${cols})`, width);
    const height = h('input', { type: 'number', name: 'height', min: 1, max: 1000, value: w.height });
    field(form, 'edit-height', 'Height (grid rows, 1 to 1000)', height);
    reads.push((out) => {
      const wd = Number(width.value);
      const ht = Number(height.value);
      if (!Number.isInteger(wd) || wd < 1 || width.value.trim() === '') return 'The width is a whole number of columns, 1 or more.';
      if (w.xPosition + wd > cols) return `The widget would leave the grid: it starts at column ${w.xPosition + 1} of ${cols}, so it can be at most ${cols - w.xPosition} columns wide.`;
      if (!Number.isInteger(ht) || ht < 1 || ht > 1000 || height.value.trim() === '') return 'The height is a whole number of rows from 1 to 1000.';
      out.width = wd;
      out.height = ht;
      return undefined;
    });
  });
}

function overlaps(a: EditWidget, b: EditWidget): boolean {
  return a.xPosition < b.xPosition + b.width && b.xPosition < a.xPosition + a.width && a.yPosition < b.yPosition + b.height && b.yPosition < a.yPosition + a.height;
}

/** Moves down the widgets `fixed` covers (and those they then cover); answers those moved. */
function makeRoom(widgets: EditWidget[], fixed: EditWidget): EditWidget[] {
  const moved = new Set<EditWidget>();
  const pushers = [fixed];
  for (let guard = 0; pushers.length > 0 && guard < 100_000; guard++) {
    const p = pushers.shift()!;
    for (const o of widgets) {
      if (o === p || o === fixed || !overlaps(p, o)) continue;
      o.yPosition = p.yPosition + p.height;
      moved.add(o);
      pushers.push(o);
    }
  }
  return [...moved];
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
      h('p', { class: 'note' }, 'Add, change, resize, move and remove widgets, then save.'),
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
      const btn = (action: string, text: string, disabled: boolean, run: () => void, label = `${text} ${name}`) => {
        const b = h('button', { type: 'button', class: 'secondary small', 'aria-label': label, 'data-action': action, disabled }, text);
        b.addEventListener('click', run);
        return b;
      };
      list.append(h('li', { class: 'widget-edit' },
        h('span', { class: 'widget-edit-name' }, name),
        btn('edit', 'Edit…', false, () => void edit(w), `Edit ${name}`),
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

  /** Edit… of a widget: its changes replace it; widgets it now covers move down; the list stays in reading order. */
  async function edit(w: EditWidget): Promise<void> {
    const changed = await editWidget(api, w, cols);
    let at = widgets.indexOf(w);
    if (changed) {
      widgets[at] = changed;
      const moved = makeRoom(widgets, changed);
      widgets.sort((a, b) => a.yPosition - b.yPosition || a.xPosition - b.xPosition);
      at = widgets.indexOf(changed);
      const note = moved.length > 0 ? ` ${moved.map(describeWidget).join(', ')} moved down to make room.` : '';
      showMessage(`${describeWidget(changed)} changed (save to keep the change).${note}`, 'note');
    }
    draw({ index: at, action: 'edit' });
  }

  const KINDS: Array<[string, string]> = [['text', 'Title or text'], ['chart', 'Chart of a sheet'], ['metric', 'Metric (a cell of a sheet)'], ['report', 'Report (its rows, as a table)'], ['web', 'Web content (a web address)'], ['image', 'Image (a picture file)'], ['shortcut', 'Shortcut (a link to a sheet, report, dashboard or web address)']];
  addBtn.addEventListener('click', () => void (async () => {
    const v = await formDialog('Add widget', [{ name: 'kind', label: 'Widget', options: KINDS }], 'Next');
    if (!v) return addBtn.focus();
    const made = v.kind === 'chart' ? await chartWidget(api) : v.kind === 'metric' ? await metricWidget(api) : v.kind === 'web' ? await webWidget() : v.kind === 'image' ? await imageWidget(api, sight.id) : v.kind === 'report' ? await reportWidget(api) : v.kind === 'shortcut' ? await shortcutWidget(api) : await textWidget();
    if (made) {
      const bottom = widgets.reduce((m, w) => Math.max(m, w.yPosition + w.height), 0);
      widgets.push({ ...made, xPosition: 0, yPosition: bottom, width: made.type === 'METRIC' || made.type === 'SHORTCUT' ? Math.min(4, cols) : cols });
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
