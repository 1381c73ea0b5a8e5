import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  createReport, deleteReport, listReports, readReport, readReportDefinition, updateReportDefinition, type ReportData, type ReportRowRef,
} from '../../services/assets/reports.ts';
import { emailReport, type ReportFile } from '../../services/assets/reportMail.ts';
import {
  addReportColumns, addScopeAssets, createReportFromApi, deleteReportColumn, readDefinitionParts, readReportColumns, readScopeAssets,
  removeScopeAssets, updateDefinitionParts, updateReportColumn,
} from '../../services/assets/reportDefinitions.ts';
import { reportPath } from '../../services/places/paths.ts';
import { pathTree } from '../present/containers.ts';
import type { SheetFormat } from '../../services/outbound/emails.ts';
import type { RowThreads } from '../../render/rowCells.ts';
import { int, one, paging, pathId, tokenPaging, type Query } from '../query.ts';
import { paginate, tokenSlice } from '../paging.ts';
import { success } from '../present/envelope.ts';
import { parseTimestamp } from '../present/dates.ts';
import { apiError } from '../../errors.ts';
import { ownerEmails } from '../../services/identity/users.ts';
import { reportBody, reportCells, reportColumn, reportDefinition, reportDefinitionParts, reportSummary, type ReportCellsOptions } from '../present/reports.ts';
import { shownText, tableCsv } from '../../render/csv.ts';
import { PAPER_SIZES, tablePdf } from '../../render/pdf.ts';
import { XLSX_TYPES, tableXlsx } from '../../render/xlsx.ts';
import { preferredExport } from '../negotiate.ts';
import { dispositionOf } from '../download.ts';
import { threadsFor } from '../present/threads.ts';

/** Rows of Get Report per request: default 100, at most 10,000 (spec 8). */
export const REPORT_PAGE_SIZE = 100;
export const MAX_REPORT_PAGE_SIZE = 10_000;

type IdReq = FastifyRequest<{ Params: { reportId: string } }>;
type ColumnReq = FastifyRequest<{ Params: { reportId: string; columnVirtualId: string } }>;

/** The report's rows as table lines (CSV, Excel): every row, the titles of its columns. */
function tableOf(data: ReportData, o: ReportCellsOptions) {
  return {
    titles: data.definition.columns.map((c) => c.title),
    lines: data.rows.map((ref) => reportCells(data.definition, ref, o).map((c) => ({ shown: c.cell as { value?: unknown; displayValue?: string }, stored: c.stored }))),
  };
}

/**
 * Reports: List Reports, Get Report (JSON, CSV, Excel), report shares, Send Report via Email,
 * and the sheetd extension that defines reports (/sheetd/reports: create, get, update, delete).
 */
export async function reportRoutes(app: FastifyInstance): Promise<void> {
  const store = () => app.ctx.store;
  const db = () => app.ctx.store.db;
  const config = () => app.ctx.config;
  const read = { config: { scope: 'READ_SHEETS' as const } };

  // ---- definitions (sheetd extension)
  app.post('/sheetd/reports', { config: { scope: 'CREATE_SHEETS', body: 'required' } }, async (req) => {
    return success(reportDefinition(config(), await createReport(store(), req.actor, req.body), req.ro));
  });
  app.get('/sheetd/reports/:reportId', read, async (req: IdReq) => {
    return reportDefinition(config(), await readReportDefinition(db(), req.actor, pathId(req.params.reportId)), req.ro);
  });
  app.put('/sheetd/reports/:reportId', { config: { scope: 'ADMIN_SHEETS', body: 'required' } }, async (req: IdReq) => {
    return success(reportDefinition(config(), await updateReportDefinition(store(), req.actor, pathId(req.params.reportId), req.body), req.ro));
  });
  app.delete('/sheetd/reports/:reportId', { config: { scope: 'DELETE_SHEETS' } }, async (req: IdReq) => {
    await deleteReport(store(), req.actor, pathId(req.params.reportId));
    return success();
  });

  // ---- definitions through the public paths (the npm SDK 5.3's report methods)
  app.post('/reports', { config: { scope: 'CREATE_SHEETS', body: 'required' } }, async (req) => {
    const v = await createReportFromApi(store(), req.actor, req.body);
    return success({ ...reportSummary(config(), v.report, v.level, { ...req.ro, include: new Set() }), columns: v.definition.columns.map((c, i) => reportColumn(c, i, req.ro)) });
  });
  app.delete('/reports/:reportId', { config: { scope: 'DELETE_SHEETS' } }, async (req: IdReq) => {
    await deleteReport(store(), req.actor, pathId(req.params.reportId));
    return success();
  });
  app.get('/reports/:reportId/path', read, async (req: IdReq) => {
    const p = await reportPath(db(), req.actor, pathId(req.params.reportId));
    return pathTree(config(), p, req.ro, p);
  });
  app.get('/reports/:reportId/definition', read, async (req: IdReq) => {
    return reportDefinitionParts(await readDefinitionParts(db(), req.actor, pathId(req.params.reportId)));
  });
  app.put('/reports/:reportId/definition', { config: { scope: 'ADMIN_SHEETS', body: 'required' } }, async (req: IdReq) => {
    await updateDefinitionParts(store(), req.actor, pathId(req.params.reportId), req.body);
    return success();
  });
  app.get('/reports/:reportId/scope', read, async (req: IdReq) => {
    const p = tokenPaging(req.query as Query);
    const { page, lastKey } = tokenSlice(await readScopeAssets(db(), req.actor, pathId(req.params.reportId)), p);
    return lastKey === undefined ? { data: page } : { data: page, lastKey };
  });
  app.post('/reports/:reportId/scope', { config: { scope: 'ADMIN_SHEETS', body: 'required' } }, async (req: IdReq) => {
    await addScopeAssets(store(), req.actor, pathId(req.params.reportId), req.body);
    return success();
  });
  app.delete('/reports/:reportId/scope', { config: { scope: 'ADMIN_SHEETS', body: 'required' } }, async (req: IdReq) => {
    await removeScopeAssets(store(), req.actor, pathId(req.params.reportId), req.body);
    return success();
  });
  app.get('/reports/:reportId/columns', read, async (req: IdReq) => {
    const p = tokenPaging(req.query as Query);
    const columns = (await readReportColumns(db(), req.actor, pathId(req.params.reportId))).map((c, i) => reportColumn(c, i, req.ro));
    const { page, lastKey } = tokenSlice(columns, p);
    return lastKey === undefined ? { data: page } : { data: page, lastKey };
  });
  app.post('/reports/:reportId/columns', { config: { scope: 'ADMIN_SHEETS', body: 'required' } }, async (req: IdReq) => {
    const id = pathId(req.params.reportId);
    const added = await addReportColumns(store(), req.actor, id, req.body);
    // as they now stand among the report's columns (their index after the insert)
    const columns = await readReportColumns(db(), req.actor, id);
    return success(added.map((c) => reportColumn(c, columns.findIndex((x) => x.virtualId === c.virtualId), req.ro)));
  });
  app.get('/reports/:reportId/columns/:columnVirtualId', read, async (req: ColumnReq) => {
    const columns = await readReportColumns(db(), req.actor, pathId(req.params.reportId));
    const virtualId = pathId(req.params.columnVirtualId);
    const i = columns.findIndex((c) => c.virtualId === virtualId);
    if (i < 0) throw apiError(1006);
    return reportColumn(columns[i]!, i, req.ro);
  });
  app.put('/reports/:reportId/columns/:columnVirtualId', { config: { scope: 'ADMIN_SHEETS', body: 'required' } }, async (req: ColumnReq) => {
    const v = await updateReportColumn(store(), req.actor, pathId(req.params.reportId), pathId(req.params.columnVirtualId), req.body);
    return success(reportColumn(v.column, v.index, req.ro));
  });
  app.delete('/reports/:reportId/columns/:columnVirtualId', { config: { scope: 'ADMIN_SHEETS' } }, async (req: ColumnReq) => {
    await deleteReportColumn(store(), req.actor, pathId(req.params.reportId), pathId(req.params.columnVirtualId));
    return success();
  });

  // ---- reports
  app.get('/reports', read, async (req) => {
    const q = req.query as Query;
    const since = one(q, 'modifiedSince');
    const all = await listReports(db(), req.actor, since === undefined || since === '' ? undefined : parseTimestamp(since, req.ro.numericDates, 'modifiedSince'));
    const owners = await ownerEmails(db(), req.ro, all.map((x) => x.report.owner_id));
    return paginate(all.map((x) => reportSummary(config(), x.report, x.level, req.ro, { owners })), paging(q));
  });

  app.get('/reports/:reportId', { config: { scope: 'READ_SHEETS', produces: ['text/csv', ...XLSX_TYPES] } }, async (req: IdReq, reply) => {
    const q = req.query as Query;
    const id = pathId(req.params.reportId);
    const page = int(q, 'page', { min: 1 }) ?? 1;
    const pageSize = int(q, 'pageSize', { min: 1, max: MAX_REPORT_PAGE_SIZE }) ?? REPORT_PAGE_SIZE;
    const data = await readReport(db(), req.actor, id);
    const o: ReportCellsOptions = { ro: req.ro, users: data.users, permalinkBase: config().publicUrl };
    const exported = preferredExport(req.headers.accept, XLSX_TYPES);
    // the whole report, named after it, of the type asked for (as Get Sheet's files)
    if (exported !== undefined) {
      const { titles, lines } = tableOf(data, o);
      if (exported === 'text/csv') return reply.type('text/csv; charset=utf-8').header('content-disposition', dispositionOf(`${data.report.name}.csv`)).send(tableCsv(titles, lines.map((l) => l.map((c) => c.shown))));
      return reply.type(exported).header('content-disposition', dispositionOf(`${data.report.name}.xlsx`)).send(await tableXlsx(data.report.name, titles, lines));
    }
    const rows = data.rows.slice((page - 1) * pageSize, page * pageSize);
    return reportBody(config(), data, rows, { ...o, threads: await threadsOf(rows, req.ro) });
  });

  /** include=attachments / discussions: the threads of the page's rows, per source sheet. */
  async function threadsOf(rows: readonly ReportRowRef[], ro: FastifyRequest['ro']): Promise<Map<number, RowThreads> | undefined> {
    if (!ro.include.has('attachments') && !ro.include.has('discussions')) return undefined;
    const bySheet = new Map<number, { level: ReportRowRef['source']['level']; ids: number[] }>();
    for (const r of rows) {
      const e = bySheet.get(r.source.sheet.id) ?? { level: r.source.level, ids: [] };
      e.ids.push(r.row.id);
      bySheet.set(r.source.sheet.id, e);
    }
    const out = new Map<number, RowThreads>();
    for (const [sheetId, e] of bySheet) out.set(sheetId, (await threadsFor(db(), sheetId, e.ids, ro, e.level)).rows);
    return out;
  }

  app.post('/reports/:reportId/emails', { config: { scope: 'SHARE_SHEETS', body: 'required' } }, async (req: IdReq) => {
    const id = pathId(req.params.reportId);
    // the report as the caller sees it now: an Excel workbook, or a PDF of its table (sheetd
    // draws no Gantt chart: PDF_GANTT is the same table)
    const render = async (format: SheetFormat, paperSize: string | undefined): Promise<ReportFile> => {
      const data = await readReport(db(), req.actor, id);
      const { titles, lines } = tableOf(data, { ro: req.ro, users: data.users, permalinkBase: config().publicUrl });
      const name = data.report.name;
      if (format === 'EXCEL') return { bytes: await tableXlsx(name, titles, lines), fileName: `${name}.xlsx`, contentType: XLSX_TYPES[1]! };
      return { bytes: await tablePdf(name, titles, lines.map((l) => l.map((c) => shownText(c.shown) ?? '')), paperSize), fileName: `${name}.pdf`, contentType: 'application/pdf' };
    };
    await emailReport(store(), app.ctx.blobs, req.actor, id, req.body, render, PAPER_SIZES);
    return success();
  });
}
