import { api, showError } from '../api.ts';
import { h, nextFrame } from '../dom.ts';
import { SheetModel } from './model.ts';
import { SheetActions, SHEET_QUERY } from './actions.ts';
import { SheetGrid } from './grid.ts';
import { mountToolbar } from './toolbar.ts';
import type { Sheet } from './types.ts';
import type { RowPanel } from '../panels/rowPanel.ts';
import { LiveSheet } from './live.ts';

/** What the page shares with its parts (the row panel, the share dialog) and with tests. */
export interface SheetPageContext {
  sheetId: number;
  model: SheetModel;
  actions: SheetActions;
  grid: SheetGrid;
  userId: number;
  userEmail: string;
  /** The row panel, when open, and its row. */
  rowPanel?: () => { rowId: number; panel: RowPanel } | null;
  /** The change stream and presence (live.ts). */
  live?: LiveSheet;
}

declare global {
  interface Window {
    /** The open sheet page (for the browser tests and the live-collaboration module). */
    sheetd?: { page?: SheetPageContext };
  }
}

const FIRST_ROWS = 100;

/** The sheet page: the toolbar and edit bar above the grid. */
export async function mountSheet(root: HTMLElement, sheetId: number, who: { userId: number; userEmail: string }): Promise<void> {
  let sheet: Sheet;
  let palette: string[] = [];
  try {
    const [s, info] = await Promise.all([
      // the first rows at once (the first cells drawn soon), the rest after
      api.get<Sheet>(`/sheets/${sheetId}`, { ...SHEET_QUERY, pageSize: FIRST_ROWS, page: 1 }),
      api.get<{ formats?: { color?: string[] } }>('/serverinfo').catch(() => ({ formats: { color: [] } })),
    ]);
    sheet = s;
    palette = info.formats?.color ?? [];
  } catch (e) {
    root.replaceChildren(h('h1', {}, 'Sheet'), h('p', { class: 'error', role: 'alert' }, e instanceof Error ? e.message : 'This sheet cannot be opened.'));
    showError(e);
    return;
  }
  document.title = `${sheet.name} · sheetd`;
  const model = new SheetModel(sheet);
  const actions = new SheetActions(model);
  const head = h('div', { class: 'sheet-head' });
  const bar = h('div', { class: 'sheet-bar' });
  const gridHost = h('div', { class: 'grid-host' });
  const side = h('div', { class: 'sheet-side', hidden: true });
  const body = h('div', { class: 'sheet-body' }, gridHost, side);
  root.replaceChildren(head, bar, body);
  root.classList.add('sheet-page');
  const grid = new SheetGrid(gridHost, model, actions, { palette });
  // RevoGrid hears every key on the document: keys typed elsewhere (edit bar, toolbar, dialogs) stay there
  document.body.addEventListener('keydown', (e) => {
    const t = e.target as HTMLElement;
    if (t !== document.body && !t.closest('revo-grid')) e.stopPropagation();
  });
  const ctx: SheetPageContext = { sheetId, model, actions, grid, ...who };
  window.sheetd = { page: ctx };
  mountToolbar(head, bar, side, ctx);
  // others' changes as they come, and who else has the sheet open
  const banner = h('p', { class: 'live-banner', role: 'alert', hidden: true });
  root.insertBefore(banner, bar);
  ctx.live = new LiveSheet(ctx, banner);
  head.querySelector('.sheet-tools')?.prepend(ctx.live.presence.el);
  ctx.live.start();
  // a large sheet: the rest of its rows, then the whole sheet in the model (edits made meanwhile kept by the server's answer)
  const total = sheet.totalRowCount ?? sheet.rows.length;
  if (total > sheet.rows.length) {
    const status = h('p', { class: 'note loading-rows', role: 'status' }, `Showing the first ${sheet.rows.length} of ${total} rows; loading the rest…`);
    head.append(status);
    try {
      // after the first cells are drawn (fetching and reading the rest competes with drawing)
      for (let i = 0; i < 120 && !gridHost.querySelector('[role="gridcell"]'); i++) await new Promise((r) => setTimeout(r, 25));
      await new Promise((r) => setTimeout(r, 50));
      await actions.settled();
      // the change stream's events wait meanwhile; the grid keeps the focused cell and the rows in view
      await actions.reload();
      status.remove();
    } catch (e) {
      status.textContent = 'Not every row could be loaded. Reload the page to try again.';
      showError(e);
    }
  }
  // opened from a search result: the row, focused
  const rowId = Number(new URLSearchParams(location.search).get('rowId'));
  if (rowId && model.rows.has(rowId)) {
    await nextFrame();
    const primary = model.columns.find((c) => c.primary) ?? model.columns[0];
    if (primary) await grid.focusCell(rowId, primary.id);
  }
  document.body.dataset.sheetReady = 'true';
}
