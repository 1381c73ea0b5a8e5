import { threadsFor } from './threads.ts';
import { rowThreadCounts } from '../../services/attachments.ts';
import { summaryOfModel } from '../../services/summary.ts';
import { presentSummary } from '../present/summary.ts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { linksOut } from '../../services/cellLinks.ts';
import { listRefs, presentRefs } from '../../services/crossSheet.ts';
import { apiError } from '../../errors.ts';
import { readSheet, type RowState, type SheetModel } from '../../services/sheetModel.ts';
import { createSheetFromColumns } from '../../services/sheets.ts';
import { usersByIds } from '../../services/users.ts';
import type { Queryable } from '../../store/db.ts';
import type { StoredContact } from '../../engine/contacts.ts';
import { idList, int, one, paging, pathId, type Query } from '../query.ts';
import { parseTimestamp, success } from '../present.ts';
import { presentColumns, presentRow, rowsJsonKey, writeRowsJson, sheetSummary, type UserLookup } from '../present/sheetData.ts';
import { pageWindow } from '../paging.ts';
import { SheetBodies } from '../present/sheetBodies.ts';
import { sheetCsv } from '../present/csv.ts';
import { acceptsGzip, preferredExport } from '../negotiate.ts';
import { dispositionOf } from '../download.ts';
import { XLSX_TYPES, sheetXlsx } from '../present/xlsx.ts';
import { PAPER_SIZES, sheetPdf } from '../present/pdf.ts';
import { presentColumn } from '../../engine/columns.ts';
import { fullName } from '../present/users.ts';
import { settingsOf, userSettingsFor } from '../../services/sheetObjects.ts';
import { conditionalFormats, filterForRead, hiddenRows, presentFilter, readRules } from '../../services/filters.ts';
import type { Actor, ReadOptions } from '../../services/context.ts';

/** How the rows of a model look through the caller's filter and the sheet's conditional formats. */
async function rowViews(db: Queryable, actor: Actor, ro: ReadOptions, model: SheetModel, q: Query) {
  const view = await filterForRead(db, actor, model.sheetId, one(q, 'filterId'), ro.include.has('filters'));
  const rules = ro.include.has('format') ? await readRules(db, model.sheetId) : [];
  // filters and rules may read who created or modified any row
  const users = view?.applied !== undefined || rules.length > 0 ? await userLookup(db, model.rows.values()) : undefined;
  const system = (r: RowState) => ({ createdAt: r.createdAt, modifiedAt: r.modifiedAt, createdBy: users?.(r.createdBy), modifiedBy: users?.(r.modifiedBy) });
  const counts = view?.applied !== undefined && /"(HAS|NO)_(ATTACHMENTS|COMMENTS)"/.test(JSON.stringify(view.applied)) ? await rowThreadCounts(db, model.sheetId) : undefined;
  const hidden = view === undefined ? undefined : view.applied === undefined ? new Set<number>() : hiddenRows(model, view.applied, actor, system, Date.now(), counts);
  return { view, rules, users, system, hidden };
}

/** Name and email of every user that created or last modified a row of the model. */
export async function userLookup(db: Queryable, rows: Iterable<RowState>): Promise<UserLookup> {
  const ids = new Set<number>();
  for (const r of rows) {
    if (r.createdBy !== null) ids.add(r.createdBy);
    if (r.modifiedBy !== null) ids.add(r.modifiedBy);
  }
  const users = await usersByIds(db, [...ids]);
  const byId = new Map<number, StoredContact>(users.map((u) => [u.id, { email: u.email, name: fullName(u) }]));
  return (id) => (id === null ? undefined : byId.get(id));
}

function selectedRows(model: SheetModel, q: Query, numericDates: boolean): RowState[] {
  const order = model.tree.displayOrder();
  let ids: readonly number[] = order;
  const rowIds = idList(q, 'rowIds');
  const rowNumbers = idList(q, 'rowNumbers');
  if (rowIds.length > 0) {
    const want = new Set(rowIds);
    ids = order.filter((id) => want.has(id));
  } else if (rowNumbers.length > 0) {
    ids = rowNumbers.map((n) => model.tree.rowIdAt(n)).filter((id): id is number => id !== undefined).sort((a, b) => model.tree.rowNumberOf(a)! - model.tree.rowNumberOf(b)!);
  }
  const since = one(q, 'rowsModifiedSince');
  if (since !== undefined) {
    const from = parseTimestamp(since, numericDates, 'rowsModifiedSince');
    return ids.map((id) => model.rows.get(id)!).filter((r) => r.modifiedAt >= from);
  }
  return ids.map((id) => model.rows.get(id)!);
}

export async function sheetDataRoutes(app: FastifyInstance): Promise<void> {
  const db = () => app.ctx.store.db;
  const store = () => app.ctx.store;
  const base = () => app.ctx.config.publicUrl;
  const bodies = new SheetBodies(app.ctx.config.bodyMemory);

  // Create Sheet in home belongs to the sheet-object routes; this is its fallback form (from
  // columns only) for when those are not registered before this plugin.
  if (!app.hasRoute({ method: 'POST', url: `${app.prefix}/sheets` })) {
    app.post('/sheets', { config: { scope: 'CREATE_SHEETS', body: 'required' } }, async (req) => {
      const { sheet, columns } = await createSheetFromColumns(store(), req.actor, { type: 'home' }, req.body, { level: req.ro.level });
      return success({ ...sheetSummary(sheet, 'OWNER', req.ro, base()), columns: columns.map((c) => presentColumn(c, { level: req.ro.level })) });
    });
  }

  // Get Sheet: the whole sheet, or the rows asked for, with include/exclude.
  app.get('/sheets/:sheetId', { config: { scope: 'READ_SHEETS', produces: ['text/csv', 'application/pdf', ...XLSX_TYPES] } }, async (req: FastifyRequest<{ Params: { sheetId: string } }>, reply) => {
    const q = req.query as Query;
    const sheetId = pathId(req.params.sheetId);
    const paperSize = one(q, 'paperSize');
    if (paperSize !== undefined && !PAPER_SIZES.includes(paperSize)) throw apiError(1053, paperSize);
    const ifVersionAfter = int(q, 'ifVersionAfter');
    const { sheet, level, model } = await readSheet(db(), req.actor, sheetId);
    if (ifVersionAfter !== undefined && sheet.version <= ifVersionAfter) {
      return reply.send({ id: sheet.id, version: sheet.version });
    }
    const columnIds = idList(q, 'columnIds');
    const cols = columnIds.length > 0 ? model.columns.filter((c) => columnIds.includes(c.id)) : undefined;
    let rows = selectedRows(model, q, req.ro.numericDates);
    const views = await rowViews(db(), req.actor, req.ro, model, q);
    const { hidden } = views;
    // exclude=filteredOutRows: the rows a filter hides are left out and not counted
    const dropHidden = hidden !== undefined && hidden.size > 0 && req.ro.exclude.has('filteredOutRows');
    if (dropHidden) rows = rows.filter((r) => !hidden.has(r.id));
    const hasPaging = one(q, 'page') !== undefined || one(q, 'pageSize') !== undefined;
    if (hasPaging) {
      const p = paging(q);
      const w = pageWindow(rows.length, p);
      rows = w.limit === null ? rows : rows.slice(w.offset, w.offset + w.limit);
    }
    const users = views.users ?? (await userLookup(db(), rows));
    const cf = views.rules.length > 0 ? conditionalFormats(model, views.rules, req.actor, rows, views.system) : undefined;
    const threads = await threadsFor(db(), sheetId, 'all', req.ro, level);
    const opts = { ro: req.ro, level, users, permalinkBase: base(), columns: cols, linksOut: await linksOut(db(), sheetId), filteredOut: hidden, conditionalFormats: cf, threads: threads.rows };
    const exported = preferredExport(req.headers.accept, XLSX_TYPES);
    // a file named after the sheet, of the type asked for (Excel's two types name the same .xlsx)
    if (exported === 'text/csv') return reply.type('text/csv; charset=utf-8').header('content-disposition', dispositionOf(`${sheet.name}.csv`)).send(sheetCsv(model, rows, opts));
    if (exported === 'application/pdf') return reply.type(exported).header('content-disposition', dispositionOf(`${sheet.name}.pdf`)).send(await sheetPdf(model, sheet.name, rows, opts, paperSize));
    if (exported !== undefined) return reply.type(exported).header('content-disposition', dispositionOf(`${sheet.name}.xlsx`)).send(await sheetXlsx(model, sheet.name, rows, opts));
    const { projectSettings } = settingsOf(sheet);
    const out: Record<string, unknown> = {
      ...sheetSummary(sheet, level, req.ro, base()),
      totalRowCount: dropHidden ? model.rows.size - hidden.size : model.rows.size,
      effectiveAttachmentOptions: ['FILE', 'LINK'],
      ganttEnabled: false,
      dependenciesEnabled: false,
      resourceManagementEnabled: false,
      cellImageUploadEnabled: true,
      userSettings: userSettingsFor(sheet, req.actor.user.id),
      userPermissions: { summaryPermissions: level === 'OWNER' || level === 'ADMIN' ? 'ADMIN' : level === 'VIEWER' || level === 'COMMENTER' ? 'READ_ONLY' : 'READ_WRITE' },
      ...(projectSettings ? { projectSettings } : {}),
      ...(views.view?.applied !== undefined ? { showParentRowsForFilters: views.view.applied.include_parent === 1 } : {}),
      columns: presentColumns(model, req.ro, level, cols),
    };
    // what follows the rows
    const tail: Record<string, unknown> = {};
    if (req.ro.include.has('ownerInfo')) {
      const owner = await usersByIds(db(), [sheet.owner_id]);
      if (owner[0]) {
        tail.owner = owner[0].email;
        tail.ownerId = owner[0].id;
      }
    }
    if (req.ro.include.has('source') && sheet.source) tail.source = JSON.parse(sheet.source) as unknown;
    if (req.ro.include.has('discussions')) tail.discussions = threads.sheet.discussions;
    if (req.ro.include.has('attachments')) tail.attachments = threads.sheet.attachments;
    if (req.ro.include.has('summary')) tail.summary = presentSummary(await summaryOfModel(db(), model, level), req.ro, base());
    if (req.ro.include.has('crossSheetReferences')) tail.crossSheetReferences = await presentRefs(db(), await listRefs(db(), sheetId));
    if (req.ro.include.has('filterDefinitions') || req.ro.include.has('filters')) {
      const v = views.view ?? (await filterForRead(db(), req.actor, sheetId, undefined, true))!;
      tail.filters = v.visible.map((f) => presentFilter(f, v.appliedId, req.ro.include.has('filterDefinitions')));
    }
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
    const rowId = pathId(req.params.rowId);
    const { level, model } = await readSheet(db(), req.actor, sheetId);
    const row = model.rows.get(rowId);
    if (!row) throw apiError(1006);
    const views = await rowViews(db(), req.actor, req.ro, model, req.query as Query);
    const users = views.users ?? (await userLookup(db(), [row]));
    const cf = views.rules.length > 0 ? conditionalFormats(model, views.rules, req.actor, [row], views.system) : undefined;
    const threads = await threadsFor(db(), sheetId, [rowId], req.ro, level);
    const out = presentRow(model, row, { ro: req.ro, level, users, permalinkBase: base(), linksOut: await linksOut(db(), sheetId), filteredOut: views.hidden, conditionalFormats: cf, threads: threads.rows });
    if (req.ro.include.has('columns')) out.columns = presentColumns(model, req.ro, level);
    return out;
  });
}
