import type { FastifyInstance, FastifyRequest } from 'fastify';
import { apiError } from '../../errors.ts';
import { presentColumn } from '../../engine/columns.ts';
import { atLeast } from '../../services/access.ts';
import { addColumns, deleteColumn, updateColumn } from '../../services/columns.ts';
import { readSheet } from '../../services/sheetModel.ts';
import { paging, pathId, type Query } from '../query.ts';
import { paginate } from '../paging.ts';
import { success } from '../present.ts';

type P = FastifyRequest<{ Params: { sheetId: string; columnId?: string } }>;

export async function columnRoutes(app: FastifyInstance): Promise<void> {
  const store = () => app.ctx.store;

  app.get('/sheets/:sheetId/columns', { config: { scope: 'READ_SHEETS' } }, async (req: P) => {
    const { level, model } = await readSheet(store().db, req.actor, pathId(req.params.sheetId));
    const opts = { level: req.ro.level, includeFormat: req.ro.include.has('format'), isSheetAdmin: atLeast(level, 'ADMIN') };
    return paginate(model.columns.map((c) => presentColumn(c, opts)), paging(req.query as Query));
  });

  app.get('/sheets/:sheetId/columns/:columnId', { config: { scope: 'READ_SHEETS' } }, async (req: P) => {
    const { level, model } = await readSheet(store().db, req.actor, pathId(req.params.sheetId));
    const c = model.columnsById.get(pathId(req.params.columnId));
    if (!c) throw apiError(1006);
    return presentColumn(c, { level: req.ro.level, includeFormat: req.ro.include.has('format'), isSheetAdmin: atLeast(level, 'ADMIN') });
  });

  app.post('/sheets/:sheetId/columns', { config: { scope: 'ADMIN_SHEETS', body: 'required' } }, async (req: P) => {
    const out = await addColumns(store(), req.actor, pathId(req.params.sheetId), req.body, req.ro.level);
    const cols = out.result.columns.map((c) => presentColumn(c, { level: req.ro.level, isSheetAdmin: true }));
    return success(out.result.single ? cols[0] : cols, out.version);
  });

  app.put('/sheets/:sheetId/columns/:columnId', { config: { scope: 'ADMIN_SHEETS', body: 'required' } }, async (req: P) => {
    const out = await updateColumn(store(), req.actor, pathId(req.params.sheetId), pathId(req.params.columnId), req.body, req.ro.level);
    return success(presentColumn(out.result, { level: req.ro.level, isSheetAdmin: true }), out.version);
  });

  app.delete('/sheets/:sheetId/columns/:columnId', { config: { scope: 'ADMIN_SHEETS' } }, async (req: P) => {
    const out = await deleteColumn(store(), req.actor, pathId(req.params.sheetId), pathId(req.params.columnId));
    return success(undefined, out.version);
  });
}
