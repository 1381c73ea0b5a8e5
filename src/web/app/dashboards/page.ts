import './dashboards.css';
import { h } from '../dom.ts';
import { messageOf } from '../api.ts';
import { atLeast, type ApiClient } from '../panels/access.ts';
import { openShareDialog } from '../share/shareDialog.ts';
import { chartData, reportTable, type SourceTable } from './chartData.ts';
import { renderChart } from './chart.ts';
import { mountEditor } from './editor.ts';

/**
 * The dashboard page (/dashboards/{id}): Get Dashboard's widgets laid out on the dashboard's
 * grid (columnCount columns; each widget at xPosition/yPosition, width x height cells). Titles
 * and rich text show their (server-cleaned) HTML, metrics their cells' values, report widgets
 * the report's table, shortcuts their links, images their file, and charts are drawn with
 * Chart.js from the source sheet's or report's rows as the person sees them (chartData.ts),
 * each with its figures as a table for screen readers. ADMIN and OWNER get "Edit dashboard"
 * (editor.ts): add, change, resize, move and remove widgets, then save (the page is drawn again).
 */

type Obj = Record<string, unknown>;
interface Widget { id: number; type: string; title?: string; showTitle?: boolean; xPosition: number; yPosition: number; width: number; height: number; contents: Obj }
interface Sight { id: number; name: string; accessLevel: string; columnCount?: number; backgroundColor?: string; defaultWidgetBackgroundColor?: string; widgets: Widget[] }

/** The app's page for an object a shortcut names (the permalink's page otherwise). */
function appLink(link: Obj | undefined): string | undefined {
  if (!link) return undefined;
  if (typeof link.sheetId === 'number') return `/sheets/${link.sheetId}`;
  if (typeof link.reportId === 'number') return `/reports/${link.reportId}`;
  if (typeof link.sightId === 'number') return `/dashboards/${link.sightId}`;
  return typeof link.url === 'string' && /^https?:\/\//.test(link.url) ? link.url : undefined;
}

function safeHtml(el: HTMLElement, html: string): void {
  // the server cleaned the HTML when the widget was written (engine/sights.ts cleanWidgetHtml)
  // and builds report tables with every text escaped; parse it inert before it goes in
  const doc = new DOMParser().parseFromString(html, 'text/html');
  doc.querySelectorAll('script, iframe, object, embed, style').forEach((n) => n.remove());
  el.replaceChildren(...Array.from(doc.body.childNodes));
}

export async function mountDashboard(root: HTMLElement, id: number, api: ApiClient, focusEdit = false): Promise<void> {
  let sight: Sight;
  try {
    sight = await api.get<Sight>(`/sights/${id}`, { level: 4, include: 'objectValue', accessApiLevel: 1 });
  } catch (e) {
    root.replaceChildren(h('h1', {}, 'Dashboard'), h('p', { class: 'error', role: 'alert' }, messageOf(e)));
    return;
  }
  document.title = `${sight.name} · sheetd`;
  const head = h('div', { class: 'page-head' }, h('h1', {}, sight.name));
  if (atLeast(sight.accessLevel, 'EDITOR_SHARE')) {
    const share = h('button', { type: 'button', class: 'secondary' }, 'Share');
    share.addEventListener('click', () => openShareDialog(document.body, { objectType: 'sight', objectId: sight.id, objectName: sight.name, access: sight.accessLevel, api }));
    head.append(share);
  }
  if (atLeast(sight.accessLevel, 'ADMIN')) {
    const edit = h('button', { type: 'button' }, 'Edit dashboard');
    edit.addEventListener('click', () => {
      edit.hidden = true;
      const host = h('div', { class: 'dashboard-edit' });
      root.replaceChildren(head, host);
      const back = () => void mountDashboard(root, id, api, true);
      mountEditor(host, sight, api, back, back);
    });
    head.append(edit);
    if (focusEdit) queueMicrotask(() => edit.focus());
  }
  const grid = h('div', { class: 'dashboard-grid', role: 'list', 'aria-label': 'Widgets' });
  grid.style.gridTemplateColumns = `repeat(${sight.columnCount ?? 12}, minmax(0, 1fr))`;
  if (sight.backgroundColor) grid.style.backgroundColor = sight.backgroundColor;
  root.replaceChildren(head, grid);
  if (sight.widgets.length === 0) root.append(h('p', { class: 'note' }, 'This dashboard has no widgets yet.'));

  const sources = new Map<string, Promise<SourceTable>>();
  const sourceOf = (c: Obj): Promise<SourceTable> => {
    const key = typeof c.sheetId === 'number' ? `s${c.sheetId}` : `r${String(c.reportId)}`;
    let p = sources.get(key);
    if (!p) {
      p = typeof c.sheetId === 'number'
        ? api.get<SourceTable>(`/sheets/${c.sheetId}`)
        : api.get<Parameters<typeof reportTable>[0]>(`/reports/${String(c.reportId)}`, { pageSize: 10000 }).then(reportTable);
      sources.set(key, p);
    }
    return p;
  };

  for (const w of sight.widgets) {
    const c = w.contents ?? {};
    const title = w.showTitle !== false && w.title ? w.title : '';
    const box = h('section', { class: `widget widget-${w.type.toLowerCase()}`, role: 'listitem', 'data-widget-id': String(w.id), ...(title ? { 'aria-label': title } : {}) });
    box.style.gridColumn = `${w.xPosition + 1} / span ${w.width}`;
    box.style.gridRow = `${w.yPosition + 1} / span ${w.height}`;
    if (sight.defaultWidgetBackgroundColor) box.style.backgroundColor = sight.defaultWidgetBackgroundColor;
    if (title) box.append(h('h2', { class: 'widget-heading' }, title));
    const body = h('div', { class: 'widget-body' });
    box.append(body);
    grid.append(box);
    switch (w.type) {
      case 'TITLE':
      case 'RICHTEXT':
        safeHtml(body, String(c.htmlContent ?? ''));
        if (typeof c.backgroundColor === 'string') box.style.backgroundColor = c.backgroundColor;
        break;
      case 'GRIDGANTT':
        if (typeof c.htmlContent === 'string') safeHtml(body, c.htmlContent);
        else body.append(h('p', { class: 'note' }, 'This report is not available to you.'));
        break;
      case 'METRIC':
      case 'SHEETSUMMARY': {
        const dl = h('dl', { class: 'metrics' });
        for (const d of (c.cellData ?? []) as Obj[]) {
          const cell = (d.cell ?? d.profileField) as Obj | undefined;
          const shown = cell?.displayValue ?? cell?.value ?? '';
          dl.append(h('dt', {}, String(d.label ?? '')), h('dd', {}, String(shown)));
        }
        body.append(dl);
        break;
      }
      case 'SHORTCUT':
      case 'SHORTCUTICON':
      case 'SHORTCUTLIST': {
        const ul = h('ul', { class: 'shortcuts' });
        for (const s of (c.shortcutData ?? []) as Obj[]) {
          const href = appLink(s.hyperlink as Obj | undefined);
          if (href) ul.append(h('li', {}, h('a', { href, ...(href.startsWith('/') ? {} : { rel: 'noopener noreferrer' }) }, String(s.label ?? href))));
        }
        body.append(ul);
        break;
      }
      case 'WEBCONTENT': {
        const url = String(c.url ?? '');
        body.append(/^https?:\/\//.test(url) ? h('a', { href: url, rel: 'noopener noreferrer' }, url) : h('span', {}, url));
        break;
      }
      case 'IMAGE':
        body.append(h('p', { class: 'note' }, `Image${typeof c.fileName === 'string' ? `: ${c.fileName}` : ''}`));
        if (typeof c.privateId === 'string') void showImage(body, sight.id, c.privateId, String(c.fileName ?? title ?? 'Image'), String(c.fit ?? 'FIT'));
        break;
      case 'CHART':
        body.append(h('p', { class: 'note chart-loading' }, 'Drawing the chart…'));
        sourceOf(c).then((table) => {
          body.replaceChildren();
          renderChart(body, title, chartData(c, table));
        }, (e: unknown) => body.replaceChildren(h('p', { class: 'error' }, `This chart cannot be drawn: ${messageOf(e)}`)));
        break;
      default:
        body.append(h('p', { class: 'note' }, `A ${w.type.toLowerCase()} widget.`));
    }
  }
}

/** An IMAGE widget's picture: read with the page's session (an <img> cannot send the CSRF header). */
async function showImage(body: HTMLElement, sightId: number, privateId: string, alt: string, fit: string): Promise<void> {
  const token = document.querySelector<HTMLMetaElement>('meta[name="sheetd-csrf"]')?.content ?? '';
  const res = await fetch(`/2.0/sheetd/sights/${sightId}/images/${encodeURIComponent(privateId)}`, { headers: { 'x-csrf-token': token }, credentials: 'same-origin' });
  if (!res.ok) return;
  const url = URL.createObjectURL(await res.blob());
  // FIT: the whole image in proportion; FILL: the whole box, cropped; ACTUAL_SIZE: as it is (the box scrolls)
  body.classList.add('widget-image-box');
  body.replaceChildren(h('img', { class: `widget-image fit-${fit.toLowerCase().replace(/_/g, '-')}`, src: url, alt }));
}
