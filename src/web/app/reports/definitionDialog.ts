import { api, messageOf } from '../api.ts';
import { dialog, h } from '../dom.ts';
import { TYPE_LABELS } from '../sheet/values.ts';

/**
 * The report definition dialog (New report on Home, Edit report… on the report page), over the
 * sheetd extension `POST` and `PUT /sheetd/reports[/{id}]`: a name, the source sheets (a
 * checkbox list of the sheets the person can see, with a search box when there are many), the
 * columns to show (or all of them), at most one simple filter and at most one sort column.
 *
 * The extension matches a report column to the sheets' columns by title (ignoring case and
 * surrounding spaces) and type, a column sent without a type being a Text/Number one: so the
 * columns offered are the chosen sheets' distinct titles and types (the type named beside a
 * title that comes in more than one), and each is sent with its type. A column the definition
 * has is sent back as it has it (type, width, hidden), as are the columns the dialog does not
 * offer (the sheet name, primary and system columns). The filter and the sort name a column by
 * title alone: they then read the column of that title in each sheet, whatever its type.
 * A server refusal is shown in the dialog in the catalogue's words, and the dialog stays open.
 * Resolves with the report's id once saved, or null when cancelled.
 */

/** A column reference of the extension (as GET /sheetd/reports/{id} answers it). */
interface ColumnRef { title?: string; type?: string; primary?: boolean; sheetNameColumn?: boolean; systemColumnType?: string }
/** A column of the definition: a reference with the report's id for it and how it is shown. */
interface ReportColumn extends ColumnRef { virtualId?: number; width?: number; hidden?: boolean }
interface Criterion { column: ColumnRef; operator: string; values?: unknown[] }
interface Filter { operator: string; criteria: Criterion[]; nestedCriteria?: Filter[] }
interface SortCriterion { column: ColumnRef; sortingDirection: 'ASCENDING' | 'DESCENDING' }
export interface ReportDefinition {
  id: number;
  name: string;
  scope: { sheets: Array<{ id: number }>; workspaces: Array<{ id: number }> };
  columns: ReportColumn[];
  filters?: Filter;
  sortingCriteria?: SortCriterion[];
}

/** A column the dialog offers: a title with its type (the extension's default type when the definition names none). */
interface Choice { title: string; type: string }

/** The filter operators offered, with the words shown; those without a value are marked. */
const OPERATORS: Array<[op: string, label: string, needsValue: boolean]> = [
  ['EQUAL', 'equals', true],
  ['NOT_EQUAL', 'does not equal', true],
  ['CONTAINS', 'contains', true],
  ['DOES_NOT_CONTAIN', 'does not contain', true],
  ['GREATER_THAN', 'is greater than', true],
  ['LESS_THAN', 'is less than', true],
  ['IS_BLANK', 'is blank', false],
  ['IS_NOT_BLANK', 'is not blank', false],
];

/** More sheets than this: a search box over the list. */
const SEARCH_FROM = 8;

const key = (title: string) => title.trim().toLowerCase();
/** The key of a column the dialog offers: its title's and its type's (as the extension tells report columns apart). */
const choiceKey = (c: Choice) => `${key(c.title)}\u0000${c.type}`;
/** A titled column of the definition as a choice. */
const choiceOf = (c: ColumnRef): Choice => ({ title: c.title!.trim(), type: c.type ?? 'TEXT_NUMBER' });
/** A column of the definition as it is sent back: all it has but the id the report gave it. */
function sentBack(c: ReportColumn): ColumnRef {
  const { virtualId: _id, ...ref } = c;
  return ref;
}

export async function openReportDialog(opts: { reportId?: number; destination?: { destinationType: 'folder' | 'workspace'; destinationId: number } }): Promise<number | null> {
  const editing = opts.reportId !== undefined;
  // what the dialog needs first: the sheets, and (editing) the definition
  const [sheets, def] = await Promise.all([
    api.get<{ data: Array<{ id: number; name: string }> }>('/sheets', { includeAll: true }).then((r) => r.data),
    editing ? api.get<ReportDefinition>(`/sheetd/reports/${opts.reportId}`) : Promise.resolve(null),
  ]);
  const columnsOf = new Map<number, Choice[]>();
  async function loadColumns(ids: number[]): Promise<void> {
    await Promise.all(ids.filter((id) => !columnsOf.has(id)).map(async (id) => {
      // level 2: each column's own type (below it, multi-select columns read as Text/Number)
      const r = await api.get<{ data: Choice[] }>(`/sheets/${id}/columns`, { includeAll: true, level: 2 }).catch(() => ({ data: [] }));
      columnsOf.set(id, r.data.map((c) => ({ title: c.title, type: c.type })));
    }));
  }
  const initialSheets = new Set((def?.scope.sheets ?? []).map((s) => s.id));
  await loadColumns([...initialSheets]);
  // the definition's title-matched columns (the dialog's kind); others (sheet name, primary, system) are kept as they are
  const titled = (def?.columns ?? []).filter((c) => c.title !== undefined && !c.primary && !c.sheetNameColumn && c.systemColumnType === undefined);
  const initialColumns = new Set(titled.map((c) => choiceKey(choiceOf(c))));
  const criteria = def?.filters?.criteria ?? [];
  const simple = def?.filters && criteria.length === 1 && (def.filters.nestedCriteria ?? []).length === 0 && criteria[0]!.column.title !== undefined && OPERATORS.some(([op]) => op === criteria[0]!.operator)
    ? criteria[0]! : undefined;
  const complexFilter = def?.filters !== undefined && simple === undefined;
  // a sort of one column named by title is the dialog's kind; any other is kept unless one is chosen
  const sorts = def?.sortingCriteria ?? [];
  const simpleSort = sorts.length === 1 && sorts[0]!.column.title !== undefined && !sorts[0]!.column.primary && !sorts[0]!.column.sheetNameColumn && sorts[0]!.column.systemColumnType === undefined
    ? sorts[0]! : undefined;
  const complexSort = sorts.length > 0 && simpleSort === undefined;

  return dialog<number>(editing ? `Edit report ${def!.name}` : 'New report', (body, done) => {
    const form = h('form', { class: 'modal-form report-form' });
    const error = h('p', { class: 'error', role: 'alert', hidden: true });
    const name = h('input', { id: 'rep-name', name: 'name', type: 'text', value: def?.name ?? '', maxlength: 50, autocomplete: 'off' });

    // source sheets
    const sheetBoxes = new Map<number, HTMLInputElement>();
    const sheetList = h('ul', { class: 'check-list', id: 'rep-sheets' });
    for (const s of [...sheets].sort((a, b) => a.name.localeCompare(b.name))) {
      const box = h('input', { type: 'checkbox', id: `rep-sheet-${s.id}`, value: String(s.id), checked: initialSheets.has(s.id) });
      box.addEventListener('change', () => void refreshColumns());
      sheetBoxes.set(s.id, box);
      sheetList.append(h('li', { 'data-name': s.name.toLowerCase() }, box, h('label', { for: `rep-sheet-${s.id}` }, s.name)));
    }
    const sheetSet = h('fieldset', { class: 'report-sheets' }, h('legend', {}, 'Source sheets'));
    if (sheets.length > SEARCH_FROM) {
      const find = h('input', { type: 'search', id: 'rep-sheet-search', 'aria-controls': 'rep-sheets', autocomplete: 'off' });
      find.addEventListener('input', () => {
        const q = find.value.trim().toLowerCase();
        for (const li of sheetList.children) (li as HTMLElement).hidden = q !== '' && !(li as HTMLElement).dataset.name!.includes(q);
      });
      // Enter in the search box searches: it does not create the report
      find.addEventListener('keydown', (e) => { if (e.key === 'Enter') e.preventDefault(); });
      sheetSet.append(h('label', { for: 'rep-sheet-search' }, 'Find sheets'), find);
    }
    if (sheets.length === 0) sheetSet.append(h('p', { class: 'note' }, 'You have no sheets to report on yet.'));
    sheetSet.append(sheetList);

    // columns
    const allColumns = h('input', { type: 'checkbox', id: 'rep-all-columns', checked: !editing });
    const columnList = h('ul', { class: 'check-list', id: 'rep-columns' });
    const columnSet = h('fieldset', { class: 'report-columns' }, h('legend', {}, 'Columns to show'),
      h('div', { class: 'all-columns' }, allColumns, h('label', { for: 'rep-all-columns' }, 'All columns')), columnList);
    const columnBoxes = new Map<string, HTMLInputElement>();
    allColumns.addEventListener('change', () => { columnList.hidden = allColumns.checked; });

    // the filter
    const filterColumn = h('select', { id: 'rep-filter-column', name: 'filterColumn' });
    const filterOp = h('select', { id: 'rep-filter-op', name: 'filterOperator' });
    for (const [op, label] of OPERATORS) filterOp.append(h('option', { value: op, selected: simple?.operator === op }, label));
    const filterValue = h('input', { id: 'rep-filter-value', name: 'filterValue', type: 'text', value: simple?.values?.[0] === undefined ? '' : String(simple.values[0] as string) });
    const needsValue = () => OPERATORS.find(([op]) => op === filterOp.value)![2];
    const showValue = () => { filterValue.disabled = !needsValue(); };
    filterOp.addEventListener('change', showValue);
    showValue();
    const filterSet = h('fieldset', { class: 'report-filter' }, h('legend', {}, 'Filter (optional)'),
      complexFilter ? h('p', { class: 'note' }, 'This report has a filter this dialog cannot show. It is kept unless you choose a column here.') : null,
      h('div', { class: 'filter-fields' },
        h('div', {}, h('label', { for: 'rep-filter-column' }, 'Column'), filterColumn),
        h('div', {}, h('label', { for: 'rep-filter-op' }, 'Condition'), filterOp),
        h('div', {}, h('label', { for: 'rep-filter-value' }, 'Value'), filterValue)));

    // the sort
    const sortColumn = h('select', { id: 'rep-sort-column', name: 'sortColumn' });
    const sortDir = h('select', { id: 'rep-sort-dir', name: 'sortDirection' },
      h('option', { value: 'ASCENDING', selected: simpleSort?.sortingDirection !== 'DESCENDING' }, 'Ascending'),
      h('option', { value: 'DESCENDING', selected: simpleSort?.sortingDirection === 'DESCENDING' }, 'Descending'));
    const showDir = () => { sortDir.disabled = sortColumn.value === ''; };
    sortColumn.addEventListener('change', showDir);
    const sortSet = h('fieldset', { class: 'report-sort' }, h('legend', {}, 'Sort (optional)'),
      complexSort ? h('p', { class: 'note' }, 'This report has a sort this dialog cannot show. It is kept unless you choose a column here.') : null,
      h('div', { class: 'filter-fields sort-fields' },
        h('div', {}, h('label', { for: 'rep-sort-column' }, 'Sort by'), sortColumn),
        h('div', {}, h('label', { for: 'rep-sort-dir' }, 'Order'), sortDir)));

    /** The chosen sheets' columns, each title and type once (first spelling, in the sheets' order). */
    const sheetChoices = (): Choice[] => {
      const seen = new Map<string, Choice>();
      for (const [id, box] of sheetBoxes) {
        if (!box.checked) continue;
        for (const c of columnsOf.get(id) ?? []) if (!seen.has(choiceKey(c))) seen.set(choiceKey(c), { title: c.title.trim(), type: c.type });
      }
      return [...seen.values()];
    };
    /** The columns offered: the chosen sheets', then the definition's titled ones they lack (none dropped unseen). */
    const choices = (): Choice[] => {
      const out = sheetChoices();
      const keys = new Set(out.map(choiceKey));
      for (const c of titled.map(choiceOf)) if (!keys.has(choiceKey(c))) out.push(c);
      return out;
    };
    /** The titles of the chosen sheets' columns, once each (the filter's and the sort's choices). */
    const titles = (): string[] => {
      const seen = new Map<string, string>();
      for (const c of sheetChoices()) if (!seen.has(key(c.title))) seen.set(key(c.title), c.title);
      return [...seen.values()];
    };

    let firstDraw = true;
    async function refreshColumns(): Promise<void> {
      await loadColumns([...sheetBoxes].filter(([, b]) => b.checked).map(([id]) => id));
      const cs = choices();
      const was = new Map([...columnBoxes].map(([k, b]) => [k, b.checked]));
      // a title that comes with more than one type: each named with its type
      const typesOf = new Map<string, number>();
      for (const c of cs) typesOf.set(key(c.title), (typesOf.get(key(c.title)) ?? 0) + 1);
      columnBoxes.clear();
      columnList.replaceChildren(...cs.map((c, i) => {
        const k = choiceKey(c);
        const box = h('input', { type: 'checkbox', id: `rep-col-${i}`, value: c.title, 'data-type': c.type, checked: firstDraw ? initialColumns.has(k) : was.get(k) ?? false });
        columnBoxes.set(k, box);
        const label = typesOf.get(key(c.title))! > 1 ? `${c.title} (${TYPE_LABELS[c.type] ?? c.type})` : c.title;
        return h('li', {}, box, h('label', { for: `rep-col-${i}` }, label));
      }));
      if (cs.length === 0) columnList.append(h('li', { class: 'note' }, 'Choose source sheets to see their columns.'));
      const ts = titles();
      const chosen = filterColumn.value || (firstDraw && simple ? simple.column.title!.trim() : '');
      filterColumn.replaceChildren(h('option', { value: '' }, complexFilter ? '(keep the current filter)' : '(no filter)'),
        ...ts.map((t) => h('option', { value: t, selected: key(t) === key(chosen) }, t)));
      // the definition's sort column stays offered even when no chosen sheet has it
      const sortBy = sortColumn.value || (firstDraw && simpleSort ? simpleSort.column.title!.trim() : '');
      const sortTitles = sortBy !== '' && !ts.some((t) => key(t) === key(sortBy)) ? [...ts, sortBy] : ts;
      sortColumn.replaceChildren(h('option', { value: '' }, complexSort ? '(keep the current sort)' : '(no sort)'),
        ...sortTitles.map((t) => h('option', { value: t, selected: key(t) === key(sortBy) }, t)));
      showDir();
      firstDraw = false;
    }
    columnList.hidden = allColumns.checked;
    void refreshColumns();

    const cancel = h('button', { type: 'button', class: 'secondary' }, 'Cancel');
    cancel.addEventListener('click', () => (form.closest('dialog') as HTMLDialogElement).dispatchEvent(new Event('cancel')));
    const save = h('button', { type: 'submit' }, editing ? 'Save' : 'Create');
    form.append(h('label', { for: 'rep-name' }, 'Report name'), name, sheetSet, columnSet, filterSet, sortSet, error, h('div', { class: 'modal-actions' }, save, cancel));

    const fail = (text: string, focus?: HTMLElement) => {
      error.textContent = text;
      error.hidden = false;
      focus?.focus();
    };

    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      void (async () => {
        error.hidden = true;
        const ids = [...sheetBoxes].filter(([, b]) => b.checked).map(([id]) => id);
        if (!name.value.trim()) return fail('Give the report a name.', name);
        if (ids.length === 0) return fail('Choose at least one source sheet.', sheetBoxes.values().next().value);
        await loadColumns(ids);
        const cs = choices();
        const shown = allColumns.checked ? cs : cs.filter((c) => columnBoxes.get(choiceKey(c))?.checked);
        if (shown.length === 0) return fail('Choose at least one column to show, or All columns.', allColumns.checked ? allColumns : columnBoxes.values().next().value ?? allColumns);
        if (filterColumn.value && needsValue() && filterValue.value === '') return fail('Give the filter a value, or choose a condition without one.', filterValue);
        const body: Record<string, unknown> = { name: name.value.trim() };
        const sameSheets = editing && ids.length === initialSheets.size && ids.every((id) => initialSheets.has(id));
        if (!sameSheets) body.scope = { sheets: ids.map((id) => ({ id })), workspaces: def?.scope.workspaces ?? [] };
        // the report's own order kept: its other columns (sheet name, primary, system columns) stay,
        // titled ones stay while shown, each as the definition has it; new ones go at the end, with their type
        const shownKeys = new Set(shown.map(choiceKey));
        const columns: ColumnRef[] = [];
        for (const c of def?.columns ?? []) {
          if (!titled.includes(c) || shownKeys.delete(choiceKey(choiceOf(c)))) columns.push(sentBack(c));
        }
        for (const c of shown) if (shownKeys.has(choiceKey(c))) columns.push({ title: c.title, type: c.type });
        const sameColumns = editing && shown.length === titled.length && shown.every((c) => initialColumns.has(choiceKey(c)));
        if (!sameColumns) body.columns = columns;
        if (filterColumn.value) {
          body.filters = { operator: 'AND', criteria: [{ column: { title: filterColumn.value }, operator: filterOp.value, ...(needsValue() ? { values: [filterValue.value] } : {}) }] };
        } else if (editing && simple) body.filters = null;
        if (sortColumn.value) {
          // the definition's sort column as it has it; another by title (each sheet's column of that title)
          const column = simpleSort && key(simpleSort.column.title!) === key(sortColumn.value) ? simpleSort.column : { title: sortColumn.value };
          body.sortingCriteria = [{ column, sortingDirection: sortDir.value }];
        } else if (editing && simpleSort) body.sortingCriteria = null;
        if (!editing && opts.destination) Object.assign(body, opts.destination);
        save.disabled = true;
        try {
          const res = editing
            ? await api.put<{ result: { id: number } }>(`/sheetd/reports/${opts.reportId}`, body)
            : await api.post<{ result: { id: number } }>('/sheetd/reports', body);
          done(res.result.id);
        } catch (e) {
          fail(messageOf(e));
        } finally {
          save.disabled = false;
        }
      })();
    });
    body.append(form);
  });
}
