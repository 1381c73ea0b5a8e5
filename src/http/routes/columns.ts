import type { FastifyInstance, FastifyRequest } from 'fastify';
import { apiError } from '../../errors.ts';
import { presentModelColumn } from '../present/sheetContents.ts';
import { atLeast } from '../../services/access/access.ts';
import { addColumns, deleteColumn, updateColumn } from '../../services/sheets/columns.ts';
import { readSheet } from '../../services/computed/currentValues.ts';
import { paging, pathId, type Query } from '../query.ts';
import { paginate } from '../paging.ts';
import { success } from '../present/envelope.ts';
import { columnFilters } from '../../services/sheets/filters.ts';

type P = FastifyRequest<{ Params: { sheetId: string; columnId?: string } }>;

export async function columnRoutes(app: FastifyInstance): Promise<void> {
  const store = () => app.ctx.store;

  app.get('/sheets/:sheetId/columns', { config: { scope: 'READ_SHEETS' } }, async (req: P) => {
    const { level, model } = await readSheet(store().db, req.actor, pathId(req.params.sheetId));
    const filters = req.ro.include.has('filters') ? await columnFilters(store().db, req.actor, model.sheetId) : undefined;
    const cols = model.columns.map((c) => {
      const out: Record<string, unknown> = { ...presentModelColumn(model, c, req.ro.level, req.ro.include.has('format'), atLeast(level, 'ADMIN')) };
      const f = filters?.get(c.id);
      if (f !== undefined) out.filter = f;
      return out;
    });
    return paginate(cols, paging(req.query as Query));
  });

  app.get('/sheets/:sheetId/columns/:columnId', { config: { scope: 'READ_SHEETS' } }, async (req: P) => {
    const { level, model } = await readSheet(store().db, req.actor, pathId(req.params.sheetId));
    const c = model.columnsById.get(pathId(req.params.columnId));
    if (!c) throw apiError(1006);
    return presentModelColumn(model, c, req.ro.level, req.ro.include.has('format'), atLeast(level, 'ADMIN'));
  });

  app.post('/sheets/:sheetId/columns', { config: { scope: 'ADMIN_SHEETS', body: 'required' } }, async (req: P) => {
    const out = await addColumns(store(), req.actor, pathId(req.params.sheetId), req.body, req.ro.level);
    const cols = out.result.columns.map((c) => presentModelColumn(out.model, c, req.ro.level, false, true));
    return success(out.result.single ? cols[0] : cols, out.version);
  });

  app.put('/sheets/:sheetId/columns/:columnId', { config: { scope: 'ADMIN_SHEETS', body: 'required' } }, async (req: P) => {
    const out = await updateColumn(store(), req.actor, pathId(req.params.sheetId), pathId(req.params.columnId), req.body, req.ro.level);
    return success(presentModelColumn(out.model, out.result, req.ro.level, false, true), out.version);
  });

  app.delete('/sheets/:sheetId/columns/:columnId', { config: { scope: 'ADMIN_SHEETS' } }, async (req: P) => {
    const out = await deleteColumn(store(), req.actor, pathId(req.params.sheetId), pathId(req.params.columnId));
    return success(undefined, out.version);
  });
}
