import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Queryable } from '../../store/db.ts';
import {
  changeUpdateRequest, createUpdateRequest, deleteSentUpdateRequest, deleteUpdateRequest, getSentUpdateRequest, getUpdateRequest,
  listSentUpdateRequests, listUpdateRequests, type UpdateRequestDeps,
} from '../../services/collaboration/updateRequests.ts';
import type { RowsMail } from '../../services/outbound/emails.ts';
import { paging, pathId, type Query } from '../query.ts';
import { paginate } from '../paging.ts';
import { success } from '../present/envelope.ts';
import { rowsMailBody } from '../../render/mailBodies.ts';
import { presentSentUpdateRequest, presentUpdateRequest } from '../present/updateRequests.ts';
import { userLookup } from '../../services/sheets/sheetReads.ts';

type SheetReq = FastifyRequest<{ Params: { sheetId: string } }>;
type OneReq = FastifyRequest<{ Params: { sheetId: string; updateRequestId: string } }>;
type SentReq = FastifyRequest<{ Params: { sheetId: string; sentUpdateRequestId: string } }>;

/**
 * Update requests (tag updateRequests): create, list, get, change and delete update requests;
 * list, get and delete (cancel) sent update requests. The recipient's page is src/web/updateRequests.ts.
 */
export async function updateRequestRoutes(app: FastifyInstance): Promise<void> {
  const store = () => app.ctx.store;
  const deps = (req: FastifyRequest): UpdateRequestDeps => ({
    store: store(),
    render: async (m: RowsMail, db: Queryable) => rowsMailBody(m, { ro: req.ro, level: m.level, users: await userLookup(db, m.rows), permalinkBase: app.ctx.config.publicUrl }),
    publicUrl: () => app.ctx.config.publicUrl,
  });

  app.get('/sheets/:sheetId/updaterequests', { config: { scope: 'READ_SHEETS' } }, async (req: SheetReq) => {
    const list = await listUpdateRequests(store().db, req.actor, pathId(req.params.sheetId));
    return paginate(list.map((v) => presentUpdateRequest(v, req.ro.numericDates, true)), paging(req.query as Query));
  });

  app.post('/sheets/:sheetId/updaterequests', { config: { scope: 'WRITE_SHEETS', body: 'required' } }, async (req: SheetReq) => {
    return success(presentUpdateRequest(await createUpdateRequest(deps(req), req.actor, pathId(req.params.sheetId), req.body), req.ro.numericDates));
  });

  app.get('/sheets/:sheetId/updaterequests/:updateRequestId', { config: { scope: 'READ_SHEETS' } }, async (req: OneReq) => {
    return presentUpdateRequest(await getUpdateRequest(store().db, req.actor, pathId(req.params.sheetId), pathId(req.params.updateRequestId)), req.ro.numericDates);
  });

  app.put('/sheets/:sheetId/updaterequests/:updateRequestId', { config: { scope: 'WRITE_SHEETS', body: 'required' } }, async (req: OneReq) => {
    return success(presentUpdateRequest(await changeUpdateRequest(deps(req), req.actor, pathId(req.params.sheetId), pathId(req.params.updateRequestId), req.body), req.ro.numericDates));
  });

  app.delete('/sheets/:sheetId/updaterequests/:updateRequestId', { config: { scope: 'WRITE_SHEETS' } }, async (req: OneReq) => {
    await deleteUpdateRequest(store(), req.actor, pathId(req.params.sheetId), pathId(req.params.updateRequestId));
    return success();
  });

  app.get('/sheets/:sheetId/sentupdaterequests', { config: { scope: 'READ_SHEETS' } }, async (req: SheetReq) => {
    const list = await listSentUpdateRequests(store().db, req.actor, pathId(req.params.sheetId));
    return paginate(list.map((v) => presentSentUpdateRequest(v, req.ro.numericDates, true)), paging(req.query as Query));
  });

  app.get('/sheets/:sheetId/sentupdaterequests/:sentUpdateRequestId', { config: { scope: 'READ_SHEETS' } }, async (req: SentReq) => {
    return presentSentUpdateRequest(await getSentUpdateRequest(store().db, req.actor, pathId(req.params.sheetId), pathId(req.params.sentUpdateRequestId)), req.ro.numericDates);
  });

  app.delete('/sheets/:sheetId/sentupdaterequests/:sentUpdateRequestId', { config: { scope: 'WRITE_SHEETS' } }, async (req: SentReq) => {
    await deleteSentUpdateRequest(store(), req.actor, pathId(req.params.sheetId), pathId(req.params.sentUpdateRequestId));
    return success();
  });
}
