import type { FastifyInstance, FastifyRequest } from 'fastify';
import { paging, pathId, type Query } from '../query.ts';
import { paginate } from '../paging.ts';
import { success } from '../present/envelope.ts';
import { createFilter, deleteFilter, getFilter, listFilters, listRules, setRules, updateFilter } from '../../services/sheets/filters.ts';

type SheetParams = FastifyRequest<{ Params: { sheetId: string } }>;
type FilterParams = FastifyRequest<{ Params: { sheetId: string; filterId: string } }>;

/**
 * Defining filters and conditional formatting: a sheetd extension under /2.0/sheetd (the
 * public API only reads them, through Get Sheet and List Columns). See services/sheets/filters.ts.
 *   GET|POST /sheetd/sheets/{sheetId}/filters, GET|PUT|DELETE .../filters/{filterId}
 *   GET /sheets/{sheetId}/filters, GET|DELETE .../filters/{filterId} (the same, where the SDKs read them)
 *   GET|PUT /sheetd/sheets/{sheetId}/conditionalformats
 */
export async function filterRoutes(app: FastifyInstance): Promise<void> {
  const store = () => app.ctx.store;

  // reading and deleting also where the official SDKs call them (the Python SDK's list_filters,
  // get_filter and delete_filter: /sheets/{sheetId}/filters)
  for (const base of ['/sheetd/sheets', '/sheets']) {
    app.get(`${base}/:sheetId/filters`, { config: { scope: 'READ_SHEETS' } }, async (req: SheetParams) => {
      return paginate(await listFilters(store().db, req.actor, pathId(req.params.sheetId)), paging(req.query as Query));
    });
    app.get(`${base}/:sheetId/filters/:filterId`, { config: { scope: 'READ_SHEETS' } }, async (req: FilterParams) => {
      return getFilter(store().db, req.actor, pathId(req.params.sheetId), pathId(req.params.filterId));
    });
    app.delete(`${base}/:sheetId/filters/:filterId`, { config: { scope: 'WRITE_SHEETS' } }, async (req: FilterParams) => {
      const { version, changed } = await deleteFilter(store(), req.actor, pathId(req.params.sheetId), pathId(req.params.filterId));
      return success(undefined, changed ? version : undefined);
    });
  }

  app.post('/sheetd/sheets/:sheetId/filters', { config: { scope: 'WRITE_SHEETS', body: 'required' } }, async (req: SheetParams) => {
    const { filter, version, changed } = await createFilter(store(), req.actor, pathId(req.params.sheetId), req.body);
    return success(filter, changed ? version : undefined);
  });

  app.put('/sheetd/sheets/:sheetId/filters/:filterId', { config: { scope: 'WRITE_SHEETS', body: 'required' } }, async (req: FilterParams) => {
    const { filter, version, changed } = await updateFilter(store(), req.actor, pathId(req.params.sheetId), pathId(req.params.filterId), req.body);
    return success(filter, changed ? version : undefined);
  });

  app.get('/sheetd/sheets/:sheetId/conditionalformats', { config: { scope: 'READ_SHEETS' } }, async (req: SheetParams) => {
    return paginate(await listRules(store().db, req.actor, pathId(req.params.sheetId)), paging(req.query as Query));
  });

  app.put('/sheetd/sheets/:sheetId/conditionalformats', { config: { scope: 'ADMIN_SHEETS', body: 'required' } }, async (req: SheetParams) => {
    const { rules, version } = await setRules(store(), req.actor, pathId(req.params.sheetId), req.body);
    return success(rules, version);
  });
}
