import type { FastifyInstance, FastifyRequest } from 'fastify';
import { paging, pathId, type Query } from '../query.ts';
import { paginate } from '../paging.ts';
import { success } from '../present/envelope.ts';
import { sheetFor } from '../../services/access/permissions.ts';
import { createRef, getRef, listRefs, presentRefs } from '../../services/computed/crossSheet.ts';

type SheetParams = FastifyRequest<{ Params: { sheetId: string } }>;

/** /sheets/{sheetId}/crosssheetreferences: list, create, get one. */
export async function crossSheetRefRoutes(app: FastifyInstance): Promise<void> {
  const store = () => app.ctx.store;

  app.get('/sheets/:sheetId/crosssheetreferences', { config: { scope: 'READ_SHEETS' } }, async (req: SheetParams) => {
    const sheetId = pathId(req.params.sheetId);
    await sheetFor(store().db, req.actor, sheetId, 'VIEWER');
    const refs = await presentRefs(store().db, await listRefs(store().db, sheetId));
    return paginate(refs, paging(req.query as Query));
  });

  app.post('/sheets/:sheetId/crosssheetreferences', { config: { scope: 'CREATE_SHEETS', body: 'required' } }, async (req: SheetParams) => {
    const { ref, version } = await createRef(store(), req.actor, pathId(req.params.sheetId), req.body);
    return success(ref, version);
  });

  app.get('/sheets/:sheetId/crosssheetreferences/:refId', { config: { scope: 'READ_SHEETS' } }, async (req: FastifyRequest<{ Params: { sheetId: string; refId: string } }>) => {
    return getRef(store().db, req.actor, pathId(req.params.sheetId), pathId(req.params.refId));
  });
}
