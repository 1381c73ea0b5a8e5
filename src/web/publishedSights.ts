import type { FastifyInstance, FastifyRequest } from 'fastify';
import { readPublishedSight, readPublishedSightImage } from '../services/assets/sights.ts';
import { cleanWidgetHtml } from '../engine/sights.ts';
import { sightBody } from '../http/present/sights.ts';
import { presentModelColumn } from '../http/present/sheetContents.ts';
import { rowCells } from '../render/rowCells.ts';
import { reportBody } from '../http/present/reports.ts';
import type { ReadOptions } from '../services/platform/context.ts';
import type { SightData } from '../services/assets/sights.ts';
import type { Config } from '../config.ts';
import { chartData, chartSummary, reportTable, type ChartData, type SourceTable } from './app/dashboards/chartData.ts';
import { webAssets } from './assets.ts';
import { page } from './page.ts';

/** What the page shows of one widget: trusted HTML (cleaned), links, or label/value pairs. */
interface WidgetView {
  id: number;
  type: string;
  title?: string;
  html?: string;
  links?: Array<{ label: string; url: string }>;
  metrics?: Array<{ label: string; value: string }>;
  image?: { src: string; alt: string };
  /** A chart's figures (drawn by the page's script; shown as a table without it). */
  chart?: { data: ChartData; json: string; summary: string };
  note?: string;
}

type Json = Record<string, unknown>;
const RO: ReadOptions = { include: new Set(), exclude: new Set(), numericDates: false, level: 4, accessApiLevel: 0 };

/**
 * The rows a CHART widget reads, as the dashboard's owner sees them: its sheet's columns and
 * cells as Get Sheet shows them, or its report's as Get Report does.
 */
function chartSource(config: Config, data: SightData, c: Json): SourceTable | undefined {
  if (typeof c.sheetId === 'number') {
    const src = data.sheets.get(c.sheetId);
    if (!src) return undefined;
    const { model } = src;
    const users = () => undefined;
    return {
      columns: model.columns.map((col) => presentModelColumn(model, col, RO.level, false, false)),
      rows: model.tree.displayOrder().map((id) => {
        const row = model.rows.get(id)!;
        return { id, cells: rowCells(model, row, { ro: RO, level: src.level, users, permalinkBase: config.publicUrl }) };
      }),
    };
  }
  if (typeof c.reportId === 'number') {
    const report = data.reports.get(c.reportId);
    if (!report) return undefined;
    return reportTable(reportBody(config, report, report.rows, { ro: RO, users: report.users, permalinkBase: config.publicUrl }) as Parameters<typeof reportTable>[0]);
  }
  return undefined;
}

function viewOf(w: Json, token: string, source: (c: Json) => SourceTable | undefined): WidgetView {
  const c = (w.contents ?? {}) as Json;
  const type = String(w.type);
  const out: WidgetView = { id: w.id as number, type };
  if (w.showTitle === true && typeof w.title === 'string' && w.title !== '') out.title = w.title;
  switch (type) {
    case 'TITLE':
    case 'RICHTEXT':
      out.html = cleanWidgetHtml(String(c.htmlContent ?? ''), type);
      break;
    case 'GRIDGANTT':
      // built by the presenter from the report's rows, every text escaped
      if (typeof c.htmlContent === 'string') out.html = c.htmlContent;
      else out.note = 'This report is not available.';
      break;
    case 'METRIC':
    case 'SHEETSUMMARY':
      out.metrics = ((c.cellData ?? []) as Json[]).map((d) => {
        const cell = (d.cell ?? d.profileField ?? {}) as Json;
        if (d.profileField !== undefined) return { label: String(d.label ?? ''), value: String(cell.displayValue ?? cell.objectValue ?? '') };
        const shown = cell.displayValue ?? cell.value;
        return { label: String(d.label ?? ''), value: shown === undefined || shown === null ? '' : String(shown) };
      });
      break;
    case 'SHORTCUT':
    case 'SHORTCUTICON':
    case 'SHORTCUTLIST':
      out.links = ((c.shortcutData ?? []) as Json[]).flatMap((s) => {
        const h = (s.hyperlink ?? {}) as Json;
        return typeof h.url === 'string' ? [{ label: String(s.label ?? h.url), url: h.url }] : [];
      });
      break;
    case 'WEBCONTENT':
      out.links = [{ label: String(c.url), url: String(c.url) }];
      break;
    case 'IMAGE':
      if (typeof c.privateId === 'string') out.image = { src: `/published/sights/${encodeURIComponent(token)}/images/${encodeURIComponent(c.privateId)}`, alt: String(c.fileName ?? out.title ?? 'Image') };
      else out.note = `Image${typeof c.fileName === 'string' ? `: ${c.fileName}` : ''}`;
      break;
    case 'CHART': {
      const table = source(c);
      if (!table) {
        out.note = 'The data of this chart is not available.';
        break;
      }
      const data = chartData(c, table);
      const summary = chartSummary(out.title ?? '', data);
      // JSON inside <script type=application/json>: "<" escaped so no text can end the element
      out.chart = { data, json: JSON.stringify(data).replace(/</g, '\\u003c'), summary };
      break;
    }
    default:
      out.note = `A ${type.toLowerCase()} widget.`;
  }
  return out;
}

/**
 * The published dashboard page (/published/sights/{token}): read-only, what the owner's
 * dashboard shows now. An unknown or unpublished token answers the 404 page; a dashboard
 * published to its organization asks for sign-in and shows only to its members.
 */
export async function publishedSightPages(web: FastifyInstance): Promise<void> {
  web.get('/published/sights/:token', async (req: FastifyRequest<{ Params: { token: string } }>, reply) => {
    const viewer = req.webUser ? { orgId: req.webUser.org_id } : null;
    const data = await readPublishedSight(web.ctx.store.db, req.params.token, viewer);
    if (data === 'SIGN_IN') return reply.redirect(`/login?next=${encodeURIComponent(req.url)}`);
    if (data === undefined) return page(req, reply, 'error.eta', { title: 'Not found', message: 'This dashboard is not published, or the link is not right.' }, 404);
    const body = sightBody(web.ctx.config, data, RO);
    const widgets = (body.widgets as Json[]).map((w) => viewOf(w, req.params.token, (c) => chartSource(web.ctx.config, data, c)));
    // the charts are drawn by a bundled script (Chart.js); the page is whole without it
    const files = widgets.some((w) => w.chart) ? (await webAssets()).entries.get('publishedDashboard') : undefined;
    return page(req, reply, 'sight.eta', { title: data.sight.name, name: data.sight.name, widgets, pageScript: files?.script, extraCss: files?.css });
  });

  // the images of its IMAGE widgets, for the page (and only while it is published)
  web.get('/published/sights/:token/images/:imageId', async (req: FastifyRequest<{ Params: { token: string; imageId: string } }>, reply) => {
    const viewer = req.webUser ? { orgId: req.webUser.org_id } : null;
    const img = await readPublishedSightImage(web.ctx.store.db, web.ctx.blobs, req.params.token, req.params.imageId, viewer);
    if (img === undefined) return page(req, reply, 'error.eta', { title: 'Not found', message: 'This image is not published.' }, 404);
    return reply.header('content-type', img.mimeType).header('x-content-type-options', 'nosniff').header('content-length', img.size).send(img.stream);
  });
}
