import type { FastifyInstance } from 'fastify';
import { user, userProfile } from '../present/users.ts';
import { list, paging, type Query } from '../query.ts';
import { indexResult, pageWindow } from '../paging.ts';
import { success } from '../present.ts';
import { countOrgUsers, listOrgUsers } from '../../store/users.ts';
import { addUser } from '../../services/users.ts';

export async function userRoutes(app: FastifyInstance): Promise<void> {
  const db = () => app.ctx.store.db;

  // Any valid token may call Get Current User, whatever its scopes (spec section 5).
  app.get('/users/me', { config: { scope: null } }, async (req) => {
    const { user: me, org } = req.actor;
    const profile = userProfile(me, org, req.ro, { viewerIsAdmin: !!me.admin });
    if (req.ro.include.has('groups')) profile.groups = [];
    return profile;
  });

  app.get('/users', { config: { scope: 'READ_USERS' } }, async (req) => {
    const q = req.query as Query;
    const p = paging(q);
    const emails = list(q, 'email').map((e) => e.toLowerCase());
    const total = await countOrgUsers(db(), req.actor.org.id, emails);
    const w = pageWindow(total, p);
    const rows = await listOrgUsers(db(), req.actor.org.id, { emails, offset: w.offset, limit: w.limit });
    return indexResult(total, p, rows.map((u) => user(u, req.ro)));
  });

  app.post('/users', { config: { scope: 'ADMIN_USERS', body: 'required' } }, async (req) => {
    const created = await db().transaction().execute((tx) => addUser(tx, req.actor, req.body));
    return success(user(created, req.ro));
  });
}
