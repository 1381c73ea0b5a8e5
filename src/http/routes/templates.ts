import type { FastifyInstance } from 'fastify';
import { paging, type Query } from '../query.ts';
import { paginate } from '../paging.ts';
import { templateSummary } from '../present/sheets.ts';
import { listUserTemplates } from '../../services/templates.ts';

export async function templateRoutes(app: FastifyInstance): Promise<void> {
  app.get('/templates', { config: { scope: 'READ_SHEETS' } }, async (req) => {
    const all = await listUserTemplates(app.ctx.store.db, req.actor);
    return paginate(all.map((x) => templateSummary(x.sheet, x.level, req.ro)), paging(req.query as Query));
  });

  // sheetd ships no public templates.
  app.get('/templates/public', { config: { scope: 'READ_SHEETS' } }, async (req) => paginate([], paging(req.query as Query)));
}
