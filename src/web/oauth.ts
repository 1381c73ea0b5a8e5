import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { checkAuthorize, createApp, decideAuthorize, listOwnApps, regenerateSecret, type AuthorizeParams } from '../services/identity/oauth.ts';
import { pageRefusal } from './refusal.ts';
import type { Scope } from '../services/access/scopes.ts';
import { page, webAuthor } from './page.ts';

/** What each scope lets an app do, in the words the consent page uses. */
export const SCOPE_WORDS: Record<Scope, string> = {
  ADMIN_SHEETS: 'Change the structure of your sheets: columns and publishing',
  ADMIN_SIGHTS: 'Change the structure of your dashboards',
  ADMIN_USERS: 'Add and remove users of your organization, create groups and manage their members',
  ADMIN_WEBHOOKS: 'Create, change, list and delete webhooks',
  ADMIN_WORKSPACES: 'Create and manage workspaces and folders, and share them',
  CREATE_SHEETS: 'Create sheets',
  CREATE_SIGHTS: 'Create dashboards',
  DELETE_SHEETS: 'Delete sheets',
  DELETE_SIGHTS: 'Delete dashboards',
  READ_CONTACTS: 'See your contacts',
  READ_EVENTS: 'See the events (activity) of your organization',
  READ_SHEETS: 'See your sheets and everything in them, including attachments and discussions',
  READ_SIGHTS: 'See your dashboards',
  READ_USERS: 'See the users and groups of your organization',
  SHARE_SHEETS: 'Share your sheets and send them as attachments',
  SHARE_SIGHTS: 'Share your dashboards',
  WRITE_SHEETS: 'Add and change the data of your sheets, including attachments, discussions and cells',
};

const AUTH_FIELDS = ['client_id', 'response_type', 'scope', 'state', 'redirect_uri'] as const;

function authParams(src: unknown): AuthorizeParams {
  const o = src !== null && typeof src === 'object' ? (src as Record<string, unknown>) : {};
  const p: AuthorizeParams = {};
  for (const f of AUTH_FIELDS) if (o[f] !== undefined) p[f] = o[f];
  return p;
}

function loginFirst(reply: FastifyReply, p: AuthorizeParams) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(p)) if (typeof v === 'string') q.set(k, v);
  return reply.redirect(`/login?next=${encodeURIComponent(`/b/authorize?${q.toString()}`)}`, 303);
}

/** The authorization request of spec 5, the consent page and the developer's apps. */
export async function oauthPages(web: FastifyInstance): Promise<void> {
  const { store } = web.ctx;

  // GET or POST (spec 5): the app's own request, so no CSRF token; it changes nothing.
  const authorize = async (req: FastifyRequest, reply: FastifyReply) => {
    const p = authParams(req.method === 'GET' ? req.query : req.body);
    const check = await checkAuthorize(store.db, p);
    if (!check.ok) {
      if ('redirect' in check) return reply.redirect(check.redirect, 303);
      return page(req, reply, 'error.eta', { title: 'Authorization request refused', message: check.problem }, 400);
    }
    if (!req.webUser) return loginFirst(reply, p);
    return page(req, reply, 'consent.eta', {
      title: `Allow ${check.app.name}?`, app: check.app, params: p,
      scopes: check.scopes.map((s) => ({ name: s, words: SCOPE_WORDS[s] })),
    });
  };
  web.get('/b/authorize', authorize);
  web.post('/b/authorize', authorize);

  web.post('/b/consent', { preHandler: web.csrfProtection }, async (req, reply) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const p = authParams(body);
    if (!req.webUser) return loginFirst(reply, p);
    const out = await decideAuthorize(store, req.webUser.id, p, body.decision === 'allow');
    if ('redirect' in out) return reply.redirect(out.redirect, 303);
    return page(req, reply, 'error.eta', { title: 'Authorization request refused', message: 'problem' in out ? out.problem : 'Bad request.' }, 400);
  });

  web.get('/apps', async (req, reply) => {
    if (!req.webUser) return reply.redirect('/login?next=%2Fapps', 303);
    return page(req, reply, 'apps.eta', { title: 'Apps', apps: await listOwnApps(store.db, req.webUser.id), form: {} });
  });

  web.post('/apps', { preHandler: web.csrfProtection }, async (req, reply) => {
    if (!req.webUser) return reply.redirect('/login?next=%2Fapps', 303);
    const f = (req.body ?? {}) as Record<string, unknown>;
    try {
      const made = await createApp(store, webAuthor(req.webUser), req.webUser.id, {
        name: f.name, description: f.description, launchUrl: f.launchUrl, contact: f.contact, redirectUrl: f.redirectUrl,
      });
      return page(req, reply, 'app-secret.eta', { title: `App ${made.app.name}`, app: made.app, secret: made.clientSecret }, 201);
    } catch (e) {
      const refusal = pageRefusal(e);
      if (refusal === undefined) throw e;
      return page(req, reply, 'apps.eta', { title: 'Apps', apps: await listOwnApps(store.db, req.webUser.id), form: f, error: refusal.message }, refusal.statusCode);
    }
  });

  web.post('/apps/:id/secret', { preHandler: web.csrfProtection }, async (req, reply) => {
    if (!req.webUser) return reply.redirect('/login?next=%2Fapps', 303);
    const id = Number((req.params as { id: string }).id);
    const made = await regenerateSecret(store, webAuthor(req.webUser), req.webUser.id, Number.isSafeInteger(id) ? id : -1);
    return page(req, reply, 'app-secret.eta', { title: `App ${made.app.name}`, app: made.app, secret: made.clientSecret });
  });
}
