import type { FastifyInstance, FastifyRequest } from 'fastify';
import { paging, pathId, type Query } from '../query.ts';
import { paginate } from '../paging.ts';
import { success } from '../present/envelope.ts';
import { publicTemplateSummary, templateSummary } from '../present/sheets.ts';
import { listPublicTemplates, listUserTemplates, saveAsTemplate } from '../../services/places/templates.ts';

/** List Templates, List Public Templates, and the sheetd extension Save as Template. */
export async function templateRoutes(app: FastifyInstance): Promise<void> {
  app.get('/templates', { config: { scope: 'READ_SHEETS' } }, async (req) => {
    const all = await listUserTemplates(app.ctx.store.db, req.actor);
    return paginate(all.map((x) => templateSummary(x.sheet, x.level, req.ro)), paging(req.query as Query));
  });

  // the templates sheetd ships (services/places/publicTemplates.ts)
  app.get('/templates/public', { config: { scope: 'READ_SHEETS' } }, async (req) =>
    paginate(listPublicTemplates().map((t) => publicTemplateSummary(t, req.ro)), paging(req.query as Query)));

  app.post('/sheetd/sheets/:sheetId/template', { config: { scope: 'CREATE_SHEETS', body: 'required' } }, async (req: FastifyRequest<{ Params: { sheetId: string } }>) => {
    const t = await saveAsTemplate(app.ctx.store, req.actor, pathId(req.params.sheetId), req.body, req.ro.include);
    return success(templateSummary(t, 'OWNER', req.ro));
  });
}
