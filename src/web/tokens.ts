import type { FastifyInstance } from 'fastify';
import { createOwnToken, listOwnTokens, revokeOwnToken } from '../services/identity/tokens.ts';
import { listAuthorizedApps, revokeAppAccess } from '../services/identity/oauth.ts';
import { membersForAdmin } from '../services/identity/users.ts';
import type { UserRow } from '../services/platform/context.ts';
import { pageRefusal } from './refusal.ts';
import { page, webAuthor } from './page.ts';

/** "API access": the user's raw tokens (created, shown once, revoked) and the apps they authorized. */
export async function tokenPages(web: FastifyInstance): Promise<void> {
  const { store } = web.ctx;
  const toLogin = '/login?next=%2Fsettings%2Fapi';

  const show = async (user: UserRow) => ({
    title: 'API access',
    tokens: await listOwnTokens(store.db, user.id),
    apps: await listAuthorizedApps(store.db, user.id),
    members: await membersForAdmin(store.db, user),
  });

  web.get('/settings/api', async (req, reply) => {
    if (!req.webUser) return reply.redirect(toLogin, 303);
    return page(req, reply, 'api-access.eta', await show(req.webUser));
  });

  web.post('/settings/api/tokens', { preHandler: web.csrfProtection }, async (req, reply) => {
    if (!req.webUser) return reply.redirect(toLogin, 303);
    const name = (req.body as Record<string, unknown> | undefined)?.name;
    try {
      const tok = await createOwnToken(store, webAuthor(req.webUser), req.webUser.id, typeof name === 'string' ? name : '');
      return page(req, reply, 'api-access.eta', { ...(await show(req.webUser)), created: tok.raw }, 201);
    } catch (e) {
      const refusal = pageRefusal(e);
      if (refusal === undefined) throw e;
      return page(req, reply, 'api-access.eta', { ...(await show(req.webUser)), error: refusal.message }, refusal.statusCode);
    }
  });

  web.post('/settings/api/tokens/:id/revoke', { preHandler: web.csrfProtection }, async (req, reply) => {
    if (!req.webUser) return reply.redirect(toLogin, 303);
    const id = Number((req.params as { id: string }).id);
    await revokeOwnToken(store, webAuthor(req.webUser), req.webUser.id, Number.isSafeInteger(id) ? id : -1);
    return reply.redirect('/settings/api', 303);
  });

  web.post('/settings/api/apps/:id/revoke', { preHandler: web.csrfProtection }, async (req, reply) => {
    if (!req.webUser) return reply.redirect(toLogin, 303);
    const id = Number((req.params as { id: string }).id);
    await revokeAppAccess(store, webAuthor(req.webUser), req.webUser.id, Number.isSafeInteger(id) ? id : -1);
    return reply.redirect('/settings/api', 303);
  });
}
