import { api, showError } from '../api.ts';
import { h } from '../dom.ts';
import { SheetModel } from '../sheet/model.ts';
import { SheetGrid } from '../sheet/grid.ts';
import { atLeast } from '../panels/access.ts';
import { openShareDialog } from '../share/shareDialog.ts';
import { openReportDialog } from './definitionDialog.ts';
import { downloadMenu, REPORT_FILES } from '../download.ts';
import { ReportActions, REPORT_QUERY, reportAsSheet, type Report } from './actions.ts';

/**
 * The report page (/reports/{id}): the report's rows in the sheet page's grid (the same
 * RevoGrid configuration, ARIA roles and editors), read with Get Report. An edit goes to the
 * row's source sheet (reports/actions.ts); cells of sheets the person may only view stay as
 * they are.
 */
export async function mountReport(root: HTMLElement, reportId: number, who: { userId: number; userEmail: string }): Promise<void> {
  let report: Report;
  let palette: string[] = [];
  try {
    const [r, info] = await Promise.all([
      api.get<Report>(`/reports/${reportId}`, REPORT_QUERY),
      api.get<{ formats?: { color?: string[] } }>('/serverinfo').catch(() => ({ formats: { color: [] } })),
    ]);
    report = r;
    palette = info.formats?.color ?? [];
  } catch (e) {
    root.replaceChildren(h('h1', {}, 'Report'), h('p', { class: 'error', role: 'alert' }, e instanceof Error ? e.message : 'This report cannot be opened.'));
    showError(e);
    return;
  }
  document.title = `${report.name} · sheetd`;
  const model = new SheetModel(reportAsSheet(report));
  const actions = new ReportActions(model, reportId, report);
  const title = h('h1', {}, report.name);
  const head = h('div', { class: 'page-head' }, title);
  const count = () => report.totalRowCount ?? report.rows.length;
  const countText = () => `${count()} ${count() === 1 ? 'row' : 'rows'} from its sheets. ${model.canEdit ? 'Edits go to the rows’ sheets, where you may edit them.' : 'You may view these rows.'}`;
  if (atLeast(report.accessLevel, 'ADMIN')) {
    const edit = h('button', { type: 'button', class: 'secondary', 'aria-haspopup': 'dialog' }, 'Edit report…');
    edit.addEventListener('click', () => void (async () => {
      try {
        const saved = await openReportDialog({ reportId });
        if (saved !== null) {
          // the new definition's rows and columns, read again
          await actions.reload();
          report = actions.report;
          title.textContent = report.name;
          document.title = `${report.name} · sheetd`;
          grid.el.setAttribute('aria-label', `${report.name}: report`);
          note.textContent = countText();
        }
      } catch (e) {
        showError(e);
      }
      edit.focus();
    })());
    head.append(edit);
  }
  if (atLeast(report.accessLevel, 'EDITOR_SHARE')) {
    const share = h('button', { type: 'button', class: 'secondary' }, 'Share');
    share.addEventListener('click', () => openShareDialog(document.body, { objectType: 'report', objectId: reportId, objectName: report.name, access: report.accessLevel, api, onClose: () => share.focus() }));
    head.append(share);
  }
  // every row of the report, as Get Report answers it
  const download = h('button', { type: 'button', class: 'secondary', 'aria-haspopup': 'dialog' }, 'Download…');
  download.addEventListener('click', () => void downloadMenu(download, { noun: 'report', name: report.name, path: `/reports/${reportId}`, formats: REPORT_FILES }));
  head.append(download);
  const note = h('p', { class: 'note' }, countText());
  const gridHost = h('div', { class: 'grid-host' });
  root.replaceChildren(head, note, h('div', { class: 'sheet-body' }, gridHost));
  root.classList.add('sheet-page', 'report-page');
  const grid = new SheetGrid(gridHost, model, actions, { palette, moves: false });
  grid.el.setAttribute('aria-label', `${report.name}: report`);
  // RevoGrid hears every key on the document: keys typed elsewhere (dialogs) stay there
  document.body.addEventListener('keydown', (e) => {
    const t = e.target as HTMLElement;
    if (t !== document.body && !t.closest('revo-grid')) e.stopPropagation();
  });
  window.sheetd = { page: { sheetId: reportId, model, actions, grid, ...who } };
  document.body.dataset.sheetReady = 'true';
}
