import type { FastifyInstance, FastifyRequest } from 'fastify';
import { threadsFor } from '../present/threads.ts';
import { presentSummary } from '../present/summary.ts';
import { apiError } from '../../errors.ts';
import { getRow, getSheet } from '../../services/sheets/sheetReads.ts';
import { createSheetFromColumns } from '../../services/sheets/sheetCreation.ts';
import { idList, int, one, paging, pathId, type Query } from '../query.ts';
import { success } from '../present/envelope.ts';
import { parseTimestamp } from '../present/dates.ts';
import { presentColumns, presentRow, rowsJsonKey, writeRowsJson, sheetSummary } from '../present/sheetContents.ts';
import { SheetBodies } from '../present/sheetBodies.ts';
import { sheetCsv } from '../../render/csv.ts';
import { acceptsGzip, preferredExport } from '../negotiate.ts';
import { dispositionOf } from '../download.ts';
import { XLSX_TYPES, sheetXlsx } from '../../render/xlsx.ts';
import { PAPER_SIZES, sheetPdf } from '../../render/pdf.ts';
import { presentColumn } from '../../engine/columns.ts';
import { withFormulaText } from '../../engine/formulaBridge.ts';
import { settingsOf, userSettingsFor } from '../../services/sheets/sheetLifecycle.ts';

export async function sheetContentRoutes(app: FastifyInstance): Promise<void> {
  const db = () => app.ctx.store.db;
  const store = () => app.ctx.store;
  const base = () => app.ctx.config.publicUrl;
  const bodies = new SheetBodies(app.ctx.config.bodyMemory);
  app.addHook('onClose', async () => bodies.close());

  // Create Sheet in home belongs to the sheet-object routes; this is its fallback form (from
  // columns only) for when those are not registered before this plugin.
  if (!app.hasRoute({ method: 'POST', url: `${app.prefix}/sheets` })) {
    app.post('/sheets', { config: { scope: 'CREATE_SHEETS', body: 'required' } }, async (req) => {
      const { sheet, columns } = await createSheetFromColumns(store(), req.actor, { type: 'home' }, req.body, { level: req.ro.level });
      return success({ ...sheetSummary(sheet, 'OWNER', req.ro, base()), columns: withFormulaText(columns).map((c) => presentColumn(c, { level: req.ro.level })) });
    });
  }

  // Get Sheet: the whole sheet, or the rows asked for, with include/exclude.
  app.get('/sheets/:sheetId', { config: { scope: 'READ_SHEETS', produces: ['text/csv', 'application/pdf', ...XLSX_TYPES] } }, async (req: FastifyRequest<{ Params: { sheetId: string } }>, reply) => {
    const q = req.query as Query;
    const sheetId = pathId(req.params.sheetId);
    const paperSize = one(q, 'paperSize');
    if (paperSize !== undefined && !PAPER_SIZES.includes(paperSize)) throw apiError(1053, paperSize);
    const since = one(q, 'rowsModifiedSince');
    const hasPaging = one(q, 'page') !== undefined || one(q, 'pageSize') !== undefined;
    const v = await getSheet(db(), req.actor, sheetId, req.ro, {
      filterId: one(q, 'filterId'),
      rowIds: idList(q, 'rowIds'),
      rowNumbers: idList(q, 'rowNumbers'),
      rowsModifiedSince: since === undefined ? undefined : parseTimestamp(since, req.ro.numericDates, 'rowsModifiedSince'),
      columnIds: idList(q, 'columnIds'),
      paging: hasPaging ? paging(q) : undefined,
      ifVersionAfter: int(q, 'ifVersionAfter'),
    });
    if (v.unchanged) return reply.send({ id: v.id, version: v.version });
    const { sheet, level, model, rows } = v;
    const threads = await threadsFor(db(), sheetId, 'all', req.ro, level);
    const opts = { ro: req.ro, level, users: v.users, permalinkBase: base(), columns: v.columns, linksOut: v.linksOut, filteredOut: v.hidden, conditionalFormats: v.conditionalFormats, threads: threads.rows };
    const exported = preferredExport(req.headers.accept, XLSX_TYPES);
    // a file named after the sheet, of the type asked for (Excel's two types name the same .xlsx)
    if (exported === 'text/csv') return reply.type('text/csv; charset=utf-8').header('content-disposition', dispositionOf(`${sheet.name}.csv`)).send(sheetCsv(model, rows, opts));
    if (exported === 'application/pdf') return reply.type(exported).header('content-disposition', dispositionOf(`${sheet.name}.pdf`)).send(await sheetPdf(model, sheet.name, rows, opts, paperSize));
    if (exported !== undefined) return reply.type(exported).header('content-disposition', dispositionOf(`${sheet.name}.xlsx`)).send(await sheetXlsx(model, sheet.name, rows, opts));
    const { projectSettings, dependenciesEnabled } = settingsOf(sheet);
    const out: Record<string, unknown> = {
      ...sheetSummary(sheet, level, req.ro, base()),
      totalRowCount: v.totalRowCount,
      effectiveAttachmentOptions: ['FILE', 'LINK'],
      ganttEnabled: false,
      dependenciesEnabled: dependenciesEnabled === true,
      resourceManagementEnabled: false,
      cellImageUploadEnabled: true,
      userSettings: userSettingsFor(sheet, req.actor.user.id),
      userPermissions: { summaryPermissions: level === 'OWNER' || level === 'ADMIN' ? 'ADMIN' : level === 'VIEWER' || level === 'COMMENTER' ? 'READ_ONLY' : 'READ_WRITE' },
      ...(projectSettings ? { projectSettings } : {}),
      ...(v.showParentRowsForFilters !== undefined ? { showParentRowsForFilters: v.showParentRowsForFilters } : {}),
      columns: presentColumns(model, req.ro, level, v.columns),
    };
    // what follows the rows
    const tail: Record<string, unknown> = {};
    if (v.owner) {
      tail.owner = v.owner.email;
      tail.ownerId = v.owner.id;
    }
    if (req.ro.include.has('source') && sheet.source) tail.source = JSON.parse(sheet.source) as unknown;
    if (req.ro.include.has('discussions')) tail.discussions = threads.sheet.discussions;
    if (req.ro.include.has('attachments')) tail.attachments = threads.sheet.attachments;
    if (v.summary) tail.summary = presentSummary(v.summary, req.ro, base());
    if (v.crossSheetReferences) tail.crossSheetReferences = v.crossSheetReferences;
    if (v.filters) tail.filters = v.filters;
    // the rows are written as JSON text directly (the largest responses of the API): the
    // object above, then "rows", then the tail, as JSON.stringify would order them
    const head = JSON.stringify(out);
    const rest = JSON.stringify(tail);
    const before = `${head.slice(0, -1)},"rows":`;
    const after = `${rest === '{}' ? '' : ',' + rest.slice(1, -1)}}`;
    const { body, gzipped } = await bodies.body({
      model,
      rows,
      key: `${before}\n${after}\n${rowsJsonKey(model, rows, opts)}`,
      around: before.length + after.length,
      write: (w) => {
        w.write(before);
        writeRowsJson(w, model, rows, opts);
        w.write(after);
      },
      gzip: acceptsGzip(req.headers['accept-encoding'], req.headers['x-no-compression'] !== undefined),
    }, reply.raw);
    reply.type('application/json; charset=utf-8');
    if (gzipped) return reply.header('content-encoding', 'gzip').header('vary', 'accept-encoding').send(body);
    return reply.send(body);
  });

  app.get('/sheets/:sheetId/rows/:rowId', { config: { scope: 'READ_SHEETS' } }, async (req: FastifyRequest<{ Params: { sheetId: string; rowId: string } }>) => {
    const sheetId = pathId(req.params.sheetId);
    const v = await getRow(db(), req.actor, sheetId, pathId(req.params.rowId), req.ro, one(req.query as Query, 'filterId'));
    const threads = await threadsFor(db(), sheetId, [v.row.id], req.ro, v.level);
    const out = presentRow(v.model, v.row, { ro: req.ro, level: v.level, users: v.users, permalinkBase: base(), linksOut: v.linksOut, filteredOut: v.hidden, conditionalFormats: v.conditionalFormats, threads: threads.rows });
    if (req.ro.include.has('columns')) out.columns = presentColumns(v.model, req.ro, v.level);
    return out;
  });
}
