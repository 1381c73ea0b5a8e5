import type { FastifyInstance } from 'fastify';
import { paging, type Query } from '../query.ts';
import { paginate } from '../paging.ts';
import { success } from '../present/envelope.ts';
import { ts } from '../present/dates.ts';
import type { ValidatedDomainRow } from '../../store/domains.ts';
import { addDomain, readDomains, removeDomain } from '../../services/identity/domains.ts';
import { requireSystemAdmin } from '../../services/identity/users.ts';
import { authorOf } from '../../services/log/events.ts';
import { apiError } from '../../errors.ts';

/**
 * The organization's validated email domains (a sheetd extension; the public API has none):
 * GET /validateddomains, POST /validateddomains {"domain": "example.com"},
 * DELETE /validateddomains/{domain}. System admins only.
 */
export async function domainRoutes(app: FastifyInstance): Promise<void> {
  const db = () => app.ctx.store.db;
  const store = () => app.ctx.store;
  const present = (d: ValidatedDomainRow, nd: boolean) => ({ domain: d.domain, createdAt: ts(d.created_at, nd) });

  app.get('/validateddomains', { config: { scope: 'READ_USERS' } }, async (req) => {
    requireSystemAdmin(req.actor);
    const rows = await readDomains(db(), req.actor.org.id);
    return paginate(rows.map((d) => present(d, req.ro.numericDates)), paging(req.query as Query));
  });

  app.post('/validateddomains', { config: { scope: 'ADMIN_USERS', body: 'required' } }, async (req) => {
    requireSystemAdmin(req.actor);
    const b = req.body;
    if (typeof b !== 'object' || b === null || Array.isArray(b)) throw apiError(1008, 'expected an object with domain');
    const raw = (b as Record<string, unknown>).domain;
    if (raw === undefined || raw === null || raw === '') throw apiError(1012, 'domain');
    const row = await addDomain(store(), authorOf(req.actor), raw);
    return success(present(row, req.ro.numericDates));
  });

  app.delete('/validateddomains/:domain', { config: { scope: 'ADMIN_USERS' } }, async (req) => {
    requireSystemAdmin(req.actor);
    const domain = (req.params as { domain: string }).domain;
    await removeDomain(store(), authorOf(req.actor), domain);
    return success();
  });
}
