import type { FastifyInstance, FastifyRequest } from 'fastify';
import { reportPublishStatus, setReportPublishStatus, setSheetPublishStatus, sheetPublishStatus } from '../../services/collaboration/publish.ts';
import { pathId } from '../query.ts';
import { success } from '../present/envelope.ts';
import { presentPublish } from '../present/publish.ts';

/** Get and Set Sheet / Report Publish Status; the published views are pages at the root (web/published.ts). */
export async function publishRoutes(app: FastifyInstance): Promise<void> {
  const store = () => app.ctx.store;
  const config = () => app.ctx.config;
  const base = () => config().publicUrl;

  app.get('/sheets/:sheetId/publish', { config: { scope: 'READ_SHEETS' } }, async (req: FastifyRequest<{ Params: { sheetId: string } }>) =>
    presentPublish(await sheetPublishStatus(store().db, req.actor, pathId(req.params.sheetId)), base()));
  app.put('/sheets/:sheetId/publish', { config: { scope: 'ADMIN_SHEETS', body: 'required' } }, async (req: FastifyRequest<{ Params: { sheetId: string } }>) =>
    success(presentPublish(await setSheetPublishStatus(store(), req.actor, pathId(req.params.sheetId), req.body, config().publish), base())));

  app.get('/reports/:reportId/publish', { config: { scope: 'READ_SHEETS' } }, async (req: FastifyRequest<{ Params: { reportId: string } }>) =>
    presentPublish(await reportPublishStatus(store().db, req.actor, pathId(req.params.reportId)), base()));
  app.put('/reports/:reportId/publish', { config: { scope: 'ADMIN_SHEETS', body: 'required' } }, async (req: FastifyRequest<{ Params: { reportId: string } }>) =>
    success(presentPublish(await setReportPublishStatus(store(), req.actor, pathId(req.params.reportId), req.body, config().publish), base())));
}
