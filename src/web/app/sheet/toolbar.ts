import { api, showError, showMessage } from '../api.ts';
import { confirmDialog, menuDialog, formDialog, h } from '../dom.ts';
import type { SheetPageContext } from './page.ts';
import type { Column } from './types.ts';
import { editText, isRefusal, readOnlyReason, refusalMessage, TYPE_LABELS } from './values.ts';
import { readText } from './typed.ts';
import { typeLabel } from './grid.ts';
import { shownText } from './model.ts';
import { openShareDialog } from '../share/shareDialog.ts';
import { linkDialog } from './linkDialog.ts';
import { openRowPanel, type RowPanel } from '../panels/rowPanel.ts';
import { columnFilterDialog } from './columnFilter.ts';
import { downloadMenu, SHEET_FILES } from '../download.ts';

/** The types the column dialogs offer, by the names the page gives them (values.ts TYPE_LABELS). */
const COLUMN_TYPES: Array<[string, string]> = ['TEXT_NUMBER', 'DATE', 'PICKLIST', 'MULTI_PICKLIST', 'CONTACT_LIST', 'MULTI_CONTACT_LIST', 'CHECKBOX']
  .map((t) => [t, TYPE_LABELS[t]!]);

/**
 * The sheet page's head (name, access, filters, download, sharing), toolbar (rows, columns, sort) and edit
 * bar (the focused cell's formula or value). Every action works on the focused cell's row or
 * column, so all of it is reachable with the keyboard (Tab to the toolbar, Enter on a button).
 */
export function mountToolbar(head: HTMLElement, bar: HTMLElement, side: HTMLElement, ctx: SheetPageContext): void {
  const { model, actions, grid } = ctx;
  const title = h('h1', { class: 'sheet-title' }, model.sheet.name);
  const access = h('span', { class: 'badge', title: 'Your access to this sheet' }, accessLabel(model.sheet.accessLevel));
  const filterSel = h('select', { id: 'sheet-filter', 'aria-label': 'Sheet filter' });
  const clearFilter = h('button', { type: 'button', class: 'secondary small', hidden: true }, 'Clear column filter');
  const tools = h('div', { class: 'sheet-tools' });
  head.replaceChildren(h('div', { class: 'sheet-name' }, h('a', { href: '/', class: 'back' }, 'Home'), title, access), tools);

  const fillFilters = () => {
    const current = model.sheetFilter?.filter.id;
    filterSel.replaceChildren(h('option', { value: '' }, 'No filter'), ...(model.sheet.filters ?? []).map((f) => h('option', { value: String(f.id), selected: f.id === current }, f.name || `Filter ${f.id}`)));
    filterSel.hidden = (model.sheet.filters ?? []).length === 0;
  };
  fillFilters();
  filterSel.addEventListener('change', () => void applySheetFilter(ctx, filterSel.value ? Number(filterSel.value) : null).then(fillFilters));
  clearFilter.addEventListener('click', () => {
    model.columnFilter = null;
    model.apply({ kind: 'columns', columns: model.columns });
  });
  tools.append(filterSel, clearFilter);
  // the whole sheet as a file, as Get Sheet answers it (every row, whatever filter the grid shows)
  const download = h('button', { type: 'button', class: 'secondary', 'aria-haspopup': 'dialog' }, 'Download…');
  download.addEventListener('click', () => void downloadMenu(download, { noun: 'sheet', name: model.sheet.name, path: `/sheets/${ctx.sheetId}`, formats: SHEET_FILES }));
  tools.append(download);
  // parts other modules add: the share dialog, the row panel
  const shareSlot = h('span', { class: 'share-slot' });
  tools.append(shareSlot);

  // the edit bar
  const where = h('label', { for: 'edit-bar', class: 'edit-where' }, 'Cell');
  const editBar = h('input', { id: 'edit-bar', class: 'edit-bar', type: 'text', autocomplete: 'off', readonly: true, placeholder: 'Select a cell' });
  const rowTools = h('div', { class: 'toolbar', role: 'toolbar', 'aria-label': 'Rows and columns' });
  bar.replaceChildren(rowTools, h('div', { class: 'edit-line' }, h('span', { class: 'fx', 'aria-hidden': 'true' }, 'ƒx'), where, editBar));

  const focused = (): { rowId: number; col: Column } | null => {
    const f = grid.focus;
    const col = f ? model.column(f.columnId) : undefined;
    return f && col ? { rowId: f.rowId, col } : null;
  };
  const refreshBar = () => {
    const f = focused();
    if (!f) {
      where.textContent = 'Cell';
      where.title = '';
      editBar.value = '';
      editBar.readOnly = true;
      return;
    }
    const r = model.rows.get(f.rowId);
    where.textContent = `Row ${r?.rowNumber ?? ''}, ${f.col.title}`;
    where.title = where.textContent;
    const c = model.cell(f.rowId, f.col.id);
    editBar.value = f.col.formula && !c?.formula ? f.col.formula : editText(f.col, c);
    const ro = !model.canEdit || readOnlyReason(f.col) !== null;
    editBar.readOnly = ro;
    editBar.title = f.col.formula ? 'A column formula: it sets every cell of the column' : ro ? `Read-only: ${readOnlyReason(f.col) ?? 'you may view this sheet'}` : 'Type a value, or = and a formula; Enter saves';
  };
  grid.onFocus(refreshBar);
  model.onChange((scope) => {
    // the sheet renamed (the change stream)
    if (title.textContent !== model.sheet.name) {
      title.textContent = model.sheet.name;
      document.title = `${model.sheet.name} · sheetd`;
    }
    refreshBar();
    if ((scope === 'structure' || scope === 'meta') && document.activeElement !== filterSel) fillFilters();
    clearFilter.hidden = !model.columnFilter;
  });
  editBar.addEventListener('keydown', (e) => {
    const f = focused();
    if (!f) return;
    if (e.key === 'Enter' && !editBar.readOnly) {
      e.preventDefault();
      const text = editBar.value;
      void actions.busy(async () => {
        const input = await readText(model, f.col, text);
        // text that is no value of the column: said in words, nothing sent, the bar keeps it to correct
        if (isRefusal(input)) {
          showMessage(refusalMessage(f.col, input));
          return false;
        }
        await actions.editCells([{ rowId: f.rowId, columnId: f.col.id, input }]);
        return true;
      }).then((sent) => (sent ? grid.focusCell(f.rowId, f.col.id) : undefined));
    } else if (e.key === 'Escape') {
      e.preventDefault();
      refreshBar();
      void grid.focusCell(f.rowId, f.col.id);
    }
  });

  // the buttons in groups (a line wraps between groups, not inside one)
  let group = rowTools;
  const startGroup = (label: string) => {
    group = h('div', { class: 'tool-group', role: 'group', 'aria-label': label });
    rowTools.append(group);
  };
  // the buttons that need edit (or admin) access: shown and hidden again when the access changes
  const gated: Array<{ b: HTMLButtonElement; needsEdit?: boolean; needsAdmin?: boolean }> = [];
  const applyAccess = () => {
    for (const g of gated) g.b.hidden = (!!g.needsEdit && !model.canEdit) || (!!g.needsAdmin && !model.canAdmin);
    for (const grp of rowTools.querySelectorAll<HTMLElement>('.tool-group')) grp.hidden = [...grp.children].every((c) => (c as HTMLElement).hidden);
  };
  // `shown`: a shorter face (a glyph, or the label's first words); the label stays the button's name
  const btn = (label: string, run: () => unknown, opts: { key?: string; needsEdit?: boolean; needsAdmin?: boolean; shown?: string } = {}) => {
    const title = opts.key ? `${label} (${opts.key})` : label;
    const b = opts.shown === undefined
      ? h('button', { type: 'button', class: 'tool', title }, label)
      : h('button', { type: 'button', class: 'tool short', title, 'aria-label': label }, opts.shown);
    b.addEventListener('click', () => void run());
    if (opts.needsEdit || opts.needsAdmin) gated.push({ b, needsEdit: opts.needsEdit, needsAdmin: opts.needsAdmin });
    group.append(b);
    return b;
  };
  const onRow = (fn: (rowId: number, col: Column) => Promise<unknown>) => async () => {
    const f = focused();
    if (!f) {
      showMessage('Select a cell of the row first.');
      return;
    }
    await fn(f.rowId, f.col);
  };
  startGroup('Rows');
  btn('Insert above', onRow(async (rowId, col) => {
    const before = new Set(model.order);
    if (await actions.insertRow(rowId, true)) await focusNew(ctx, before, col.id);
  }), { needsEdit: true });
  btn('Insert below', onRow(async (rowId, col) => {
    const before = new Set(model.order);
    if (await actions.insertRow(rowId, false)) await focusNew(ctx, before, col.id);
  }), { needsEdit: true });
  const addAtBottom = async () => {
    const before = new Set(model.order);
    if (await actions.insertRow(null, false)) await focusNew(ctx, before, model.columns.find((c) => c.primary)?.id ?? model.columns[0]!.id);
  };
  btn('Add row at bottom', addAtBottom, { needsEdit: true, shown: 'Add row' });
  mountEmptyNote(ctx, addAtBottom);
  btn('Delete row', onRow(async (rowId) => {
    const r = model.rows.get(rowId);
    const kids = model.parents.has(rowId) ? ' and the rows indented under it' : '';
    if (await confirmDialog('Delete row', `Delete row ${r?.rowNumber ?? ''}${kids}? This cannot be undone here.`)) await actions.deleteRows([rowId]);
  }), { needsEdit: true });
  startGroup('Hierarchy and order');
  btn('Indent', onRow(async (rowId, col) => {
    if (await actions.indent(rowId)) await grid.focusCell(rowId, col.id);
  }), { needsEdit: true, key: 'Ctrl+]', shown: '⇥' });
  btn('Outdent', onRow(async (rowId, col) => {
    if (await actions.outdent(rowId)) await grid.focusCell(rowId, col.id);
  }), { needsEdit: true, key: 'Ctrl+[', shown: '⇤' });
  btn('Move up', onRow(async (rowId, col) => {
    if (await actions.move(rowId, -1)) await grid.focusCell(rowId, col.id);
  }), { needsEdit: true, key: 'Alt+Shift+Up', shown: '↑' });
  btn('Move down', onRow(async (rowId, col) => {
    if (await actions.move(rowId, 1)) await grid.focusCell(rowId, col.id);
  }), { needsEdit: true, key: 'Alt+Shift+Down', shown: '↓' });
  btn('Expand/collapse', onRow(async (rowId) => {
    const id = model.parents.has(rowId) ? rowId : model.rows.get(rowId)?.parentId;
    if (id !== null && id !== undefined) await actions.setExpanded(id, !model.rows.get(id)?.expanded);
  }));
  startGroup('Undo');
  btn('Undo', () => actions.undo(), { needsEdit: true, key: 'Ctrl+Z', shown: '↶' });
  btn('Redo', () => actions.redo(), { needsEdit: true, key: 'Ctrl+Y', shown: '↷' });
  startGroup('Columns and cells');
  const colBtn = btn('Column…', onRow(async (_rowId, col) => columnMenu(ctx, col, colBtn)));
  // a face of words is where the button's name starts (WCAG's label in name)
  btn('Sort A→Z (ascending)', onRow(async (_r, col) => actions.sort(col.id, true)), { needsEdit: true, shown: 'A→Z' });
  btn('Sort Z→A (descending)', onRow(async (_r, col) => actions.sort(col.id, false)), { needsEdit: true, shown: 'Z→A' });
  btn('Filter by value…', onRow(async (_r, col) => columnFilterDialog(ctx, col)), { shown: 'Filter' });
  const linkBtn = btn('Link…', onRow(async (rowId, col) => linkDialog(ctx, rowId, col)), { key: 'Ctrl+K' });
  // Ctrl+K in the grid: the focused cell's link (the browser's own search box otherwise)
  document.addEventListener('keydown', (e) => {
    if (!(e.ctrlKey || e.metaKey) || e.shiftKey || e.altKey || e.key.toLowerCase() !== 'k') return;
    const at = document.activeElement;
    // not from a cell's open editor (its text is not saved yet)
    if ((at !== document.body && !at?.closest('revo-grid')) || at?.matches('input, textarea, select')) return;
    e.preventDefault();
    linkBtn.click();
  }, true);
  applyAccess();
  // the change stream told of other access (a share changed): the buttons and the badge follow
  let shownAccess = model.sheet.accessLevel;
  model.onChange(() => {
    if (model.sheet.accessLevel === shownAccess) return;
    shownAccess = model.sheet.accessLevel;
    access.textContent = accessLabel(shownAccess);
    applyAccess();
  });
  // RevoGrid's header click opens the column's menu too
  grid.el.addEventListener('headerclick', (e: Event) => {
    const prop = (e as CustomEvent<{ prop?: unknown }>).detail?.prop;
    const col = model.columns.find((c) => `c${c.id}` === String(prop));
    if (col) void columnMenu(ctx, col, colBtn);
  });
  void mountOptional(shareSlot, side, ctx);
}

/**
 * A sheet without rows (a new one) shows an empty grid with nothing to type into: it says so
 * over the grid, with a button to the first row for those who may add one.
 */
function mountEmptyNote(ctx: SheetPageContext, addRow: () => Promise<void>): void {
  const { model, grid } = ctx;
  const host = grid.el.parentElement;
  if (!host) return;
  const text = h('p', {});
  const add = h('button', { type: 'button' }, 'Add the first row');
  add.addEventListener('click', () => void addRow());
  const note = h('div', { class: 'empty-sheet', role: 'status', hidden: true }, text, add);
  host.append(note);
  const update = () => {
    const empty = model.order.length === 0;
    note.hidden = !empty;
    if (!empty) return;
    text.textContent = model.canEdit ? 'This sheet has no rows yet.' : 'This sheet has no rows.';
    add.hidden = !model.canEdit;
  };
  update();
  model.onChange((scope) => {
    if (scope !== 'cells') update();
  });
}

/** Focuses the row just inserted; the applied sheet filter would hide a blank new row, but one's own new row stays shown. */
async function focusNew(ctx: SheetPageContext, before: Set<number>, columnId: number): Promise<void> {
  const { model } = ctx;
  // the row this page added (others may add rows meanwhile, which the change stream brings)
  const id = ctx.actions.lastAdded.find((r) => model.rows.has(r)) ?? model.order.find((r) => !before.has(r));
  if (id === undefined) return;
  if (model.sheetFilter && !model.sheetFilter.rowIds.has(id) && !model.keptShown.has(id)) {
    model.keptShown.add(id);
    model.apply({ kind: 'columns', columns: model.columns });
  }
  await ctx.grid.focusCell(id, columnId);
}

function accessLabel(a: string): string {
  return ({ OWNER: 'Owner', ADMIN: 'Admin', EDITOR_SHARE: 'Editor (can share)', EDITOR: 'Editor', COMMENTER: 'Commenter', VIEWER: 'Viewer' } as Record<string, string>)[a] ?? a;
}

/**
 * Applies a sheet filter, or none: it becomes the person's applied filter (Update Filter with
 * `applied`, as any program would set it, kept for their next visit), and the sheet read again
 * with its filters says which rows it hides.
 */
async function applySheetFilter(ctx: SheetPageContext, filterId: number | null): Promise<void> {
  const { model, actions } = ctx;
  const current = model.sheetFilter?.filter.id;
  if (filterId === (current ?? null)) return;
  await actions.structural(async () => {
    await (filterId === null
      ? api.put(`/sheetd/sheets/${ctx.sheetId}/filters/${current}`, { applied: false })
      : api.put(`/sheetd/sheets/${ctx.sheetId}/filters/${filterId}`, { applied: true }));
    // which rows the filter shows: the sheet read again
    await actions.reload();
  });
}

/** The column's menu: add, rename, type and options, hide/show, move, delete. */
async function columnMenu(ctx: SheetPageContext, col: Column, opener: HTMLElement): Promise<void> {
  const { model, actions } = ctx;
  const items: Array<[string, () => Promise<unknown>, boolean]> = [
    ['Add column left', () => addColumn(ctx, col.index), model.canAdmin],
    ['Add column right', () => addColumn(ctx, col.index + 1), model.canAdmin],
    ['Rename', async () => {
      const v = await formDialog(`Rename ${col.title}`, [{ name: 'title', label: 'Title', value: col.title }], 'Rename');
      if (v?.title) await actions.updateColumn(col.id, { title: v.title });
    }, model.canAdmin],
    ['Type and options', async () => {
      // a type the menu does not offer (a project sheet's Duration, Predecessors) stays listed
      // and chosen, so that saving the options does not change it
      const types = COLUMN_TYPES.some(([t]) => t === col.type) ? COLUMN_TYPES : [...COLUMN_TYPES, [col.type, typeLabel(col)] as [string, string]];
      const v = await formDialog(`Column ${col.title}`, [
        { name: 'type', label: 'Type', value: col.type, options: types },
        { name: 'options', label: 'Options (dropdowns: separated by commas)', value: (col.options ?? []).join(', ') },
      ], 'Save');
      if (!v) return;
      const options = v.options!.split(',').map((s) => s.trim()).filter(Boolean);
      const change = { ...(v.type !== col.type ? { type: v.type } : {}), ...(options.length ? { options } : {}) };
      if (Object.keys(change).length > 0) await actions.updateColumn(col.id, change);
    }, model.canAdmin && !col.primary && !col.systemColumnType],
    ['Move left', () => actions.updateColumn(col.id, { index: Math.max(0, col.index - 1) }), model.canAdmin && col.index > 0],
    ['Move right', () => actions.updateColumn(col.id, { index: col.index + 1 }), model.canAdmin && col.index < model.columns.length - 1],
    ['Width…', async () => {
      // the keyboard's way to what dragging the header's edge does
      const v = await formDialog(`Width of ${col.title}`, [{ name: 'width', label: 'Width in pixels', type: 'number', value: String(col.width ?? 150) }], 'Save');
      const width = Math.round(Number(v?.width));
      if (v && Number.isFinite(width) && width > 0) await actions.updateColumn(col.id, { width });
    }, model.canAdmin],
    ['Hide column', () => actions.updateColumn(col.id, { hidden: true }), model.canAdmin && !col.primary],
    ['Show hidden columns', async () => {
      for (const c of model.columns.filter((x) => x.hidden)) await actions.updateColumn(c.id, { hidden: false });
    }, model.canAdmin && model.columns.some((c) => c.hidden)],
    ['Sort ascending', () => actions.sort(col.id, true), model.canEdit],
    ['Sort descending', () => actions.sort(col.id, false), model.canEdit],
    ['Filter by value…', () => columnFilterDialog(ctx, col), true],
    ['Delete column', async () => {
      if (await confirmDialog('Delete column', `Delete the column ${col.title} and every value in it?`)) await actions.deleteColumn(col.id);
    }, model.canAdmin && !col.primary],
  ];
  const offered = items.flatMap(([label, , allowed], i) => (allowed ? [[i, label] as const] : []));
  const chosen = await menuDialog(`${col.title} · ${typeLabel(col)}${col.formula ? ` · column formula ${col.formula}` : ''}`, offered, { label: `Column ${col.title}` });
  if (chosen === null) {
    opener.focus();
    return;
  }
  try {
    await items[chosen]![1]();
  } catch (e) {
    showError(e);
  }
  const f = ctx.grid.focus;
  if (f && model.column(f.columnId)) await ctx.grid.focusCell(f.rowId, f.columnId);
}

async function addColumn(ctx: SheetPageContext, index: number): Promise<void> {
  const v = await formDialog('Add column', [
    { name: 'title', label: 'Title' },
    { name: 'type', label: 'Type', value: 'TEXT_NUMBER', options: COLUMN_TYPES },
    { name: 'options', label: 'Options (dropdowns: separated by commas)' },
  ], 'Add');
  if (!v?.title) return;
  await ctx.actions.addColumn(index, v.title, v.type!, v.options!.split(',').map((s) => s.trim()).filter(Boolean));
}

/** The share dialog (a Share button) and the row panel (beside the grid, following the focused row). */
async function mountOptional(shareSlot: HTMLElement, side: HTMLElement, ctx: SheetPageContext): Promise<void> {
  const { model, grid } = ctx;
  const share = h('button', { type: 'button', class: 'share-button' }, 'Share');
  share.addEventListener('click', () => {
    const d = openShareDialog(document.body, { objectType: 'sheet', objectId: ctx.sheetId, api, objectName: model.sheet.name, access: model.sheet.accessLevel, onClose: () => share.focus() });
    void d.closed;
  });
  shareSlot.append(share);

  let panel: RowPanel | null = null;
  let panelRow: number | null = null;
  /** The panel is open, or being opened (read from the API); each opening counted, the last one wins. */
  let wanted = false;
  let openings = 0;
  const rowLabel = (rowId: number) => {
    const r = model.rows.get(rowId);
    const primary = model.columns.find((c) => c.primary);
    const text = primary ? shownText(r?.cells.get(primary.id)) : '';
    return `Row ${r?.rowNumber ?? ''}${text ? `: ${text}` : ''}`;
  };
  // the change stream refreshes what the open panel shows (live.ts)
  ctx.rowPanel = () => (panel && panelRow !== null ? { rowId: panelRow, panel } : null);
  const shut = () => {
    wanted = false;
    openings++;
    panel = null;
    panelRow = null;
    side.hidden = true;
    side.replaceChildren();
  };
  /**
   * Shows the row's panel in place of the one shown (or being read). It takes the keyboard focus
   * when opened by its button or shortcut, or when the focus was in the panel it replaces; not
   * when it follows the grid's focused row, where the person goes on with the arrow keys.
   */
  const open = async (rowId: number, columnId: number | null, takeFocus: boolean) => {
    const gen = ++openings;
    wanted = true;
    panel = null;
    panelRow = rowId;
    side.replaceChildren();
    side.hidden = false;
    const p = await openRowPanel(side, {
      sheetId: ctx.sheetId, rowId, columnId, access: model.sheet.accessLevel, user: { email: ctx.userEmail }, api, rowLabel: rowLabel(rowId), takeFocus,
      onClose: () => {
        if (gen !== openings) return;
        shut();
        const f = grid.focus;
        if (f) void grid.focusCell(f.rowId, f.columnId);
      },
    });
    if (gen !== openings) return;
    panel = p;
  };
  const toggle = h('button', { type: 'button', class: 'tool', title: 'Attachments, conversations, cell history and proof of the focused row (Ctrl+Shift+R)' }, 'Row panel');
  toggle.addEventListener('click', () => {
    const f = grid.focus;
    if (panel) panel.close();
    else if (wanted) shut();
    else if (f) void open(f.rowId, f.columnId, true);
    else showMessage('Select a cell of the row first.');
  });
  document.querySelector('.toolbar')?.append(h('div', { class: 'tool-group', role: 'group', 'aria-label': 'Row panel' }, toggle));
  document.addEventListener('keydown', (e) => {
    if ((e.ctrlKey || e.metaKey) && e.shiftKey && e.key.toLowerCase() === 'r') {
      e.preventDefault();
      toggle.click();
    }
  }, true);
  // the panel follows the focused cell
  grid.onFocus((f) => {
    if (!wanted || !f) return;
    if (f.rowId !== panelRow) void open(f.rowId, f.columnId, side.contains(document.activeElement));
    else void panel?.focusCell(f.columnId);
  });
}
