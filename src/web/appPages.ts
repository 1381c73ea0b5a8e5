import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fastifyStatic from '@fastify/static';
import { apiCsrfToken, cookieSecret } from '../services/identity/sessions.ts';
import { SESSION_COOKIE, page } from './page.ts';
import { webAssets, type Entry } from './assets.ts';

/**
 * The web app's pages: Home at / (for a signed-in person), a sheet, a report, a dashboard, People. Each
 * is the layout with an empty mount point and one bundled script (src/web/app/<entry>.ts) that
 * draws the page from the API (/2.0, authenticated by the session cookie and the CSRF token in
 * the page's meta tag). The bundle is served from /assets/ with content hashes in the names, so
 * it may be cached for a year.
 */
export async function appPages(web: FastifyInstance): Promise<void> {
  const assets = await webAssets();
  const secret = await cookieSecret(web.ctx.store.db);
  await web.register(fastifyStatic, {
    root: assets.dir,
    prefix: '/assets/',
    decorateReply: false,
    immutable: true,
    maxAge: 365 * 24 * 3600 * 1000,
    index: false,
    allowedPath: (p) => !p.endsWith('manifest.json'),
  });

  async function appPage(req: FastifyRequest, reply: FastifyReply, entry: Entry, title: string, objectId: string | null, data: Record<string, string> = {}) {
    const files = assets.entries.get(entry);
    if (!files) throw new Error(`no bundle for ${entry}`);
    const raw = req.cookies[SESSION_COOKIE];
    const session = raw ? req.unsignCookie(raw) : null;
    const apiCsrf = session?.valid && session.value ? apiCsrfToken(secret, session.value) : '';
    // the grid's component (Stencil) puts its styles in <style> elements
    reply.header('content-security-policy', "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; frame-ancestors 'none'; form-action 'self'");
    return page(req, reply, 'app.eta', { title, entry, objectId, script: files.script, extraCss: files.css, apiCsrf, wide: true, data });
  }

  function signedIn(req: FastifyRequest, reply: FastifyReply): boolean {
    if (req.webUser) return true;
    void reply.redirect(`/login?next=${encodeURIComponent(req.url)}`, 303);
    return false;
  }

  web.get('/', async (req, reply) => {
    if (!req.webUser) return page(req, reply, 'home.eta', { title: 'sheetd' });
    return appPage(req, reply, 'home', 'Home', null);
  });
  // People: the organization's users and groups, for system admins (the API refuses others anyway)
  web.get('/people', async (req, reply) => {
    if (!signedIn(req, reply)) return reply;
    if (!req.webUser!.admin) {
      return page(req, reply, 'error.eta', { title: 'People', message: 'The People page is for the system admins of your organization. Ask one of them to add people or change their roles.' }, 403);
    }
    // whether the server mails (SMTP_URL) or only writes messages to its outbox: the page says whether a link was delivered
    return appPage(req, reply, 'people', 'People', null, { mail: web.ctx.config.mail.smtpUrl !== undefined ? 'smtp' : 'outbox' });
  });
  for (const [entry, prefix, title] of [['sheet', 'sheets', 'Sheet'], ['report', 'reports', 'Report'], ['dashboard', 'dashboards', 'Dashboard']] as const) {
    if (!assets.entries.has(entry)) continue;
    web.get(`/${prefix}/:id`, async (req, reply) => {
      if (!signedIn(req, reply)) return reply;
      const id = (req.params as { id: string }).id;
      if (!/^\d{1,16}$/.test(id)) return page(req, reply, 'error.eta', { title: 'Not found', message: 'There is no such page.' }, 404);
      return appPage(req, reply, entry, title, id);
    });
  }
}
