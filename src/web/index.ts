import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import cookie from '@fastify/cookie';
import csrf from '@fastify/csrf-protection';
import formbody from '@fastify/formbody';
import view from '@fastify/view';
import { Eta } from 'eta';
import { pageRefusal } from './refusal.ts';
import { cookieSecret, sessionUser } from '../services/identity/sessions.ts';
import type { UserRow } from '../services/platform/context.ts';
import { SESSION_COOKIE, page } from './page.ts';
import { sessionRoutes } from './sessions.ts';
import { oauthPages } from './oauth.ts';
import { tokenPages } from './tokens.ts';
import { passwordPages } from './passwords.ts';
import { publishedPages } from './published.ts';
import { updateRequestPages } from './updateRequests.ts';
import { proofReviewPages } from './proofReviews.ts';
import { publishedSightPages } from './publishedSights.ts';
import { appPages } from './appPages.ts';
import { FAVICON_SVG } from '../http/openapi/brand.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in user of a page request, or null. */
    webUser: UserRow | null;
  }
}

const here = path.dirname(fileURLToPath(import.meta.url));
const VIEWS = path.join(here, 'views');
const STYLESHEET = fs.readFileSync(path.join(here, 'static', 'sheetd.css'));

/**
 * The server-rendered pages: sign-in, consent, apps, API access. One encapsulated plugin with
 * its own body parser (forms), signed HttpOnly SameSite cookies, CSRF protection on every form
 * and HTML errors; sessions live in the database so every process knows them.
 */
export async function webPlugin(web: FastifyInstance): Promise<void> {
  const { config, store } = web.ctx;
  const secure = !!(config.tlsCert && config.tlsKey) || config.publicUrl.startsWith('https:');
  web.removeAllContentTypeParsers();
  await web.register(formbody, { bodyLimit: 64 * 1024 });
  await web.register(cookie, { secret: await cookieSecret(store.db) });
  await web.register(csrf, { cookieKey: 'sheetd_csrf', cookieOpts: { signed: true, httpOnly: true, sameSite: 'lax', path: '/', secure } });
  await web.register(view, {
    engine: { eta: new Eta({ views: VIEWS, cache: true }) },
    root: VIEWS,
    viewExt: 'eta',
    layout: 'layout.eta',
    production: true,
  });
  web.decorateRequest('webUser', null);
  web.decorate('sessionCookie', { httpOnly: true, sameSite: 'lax' as const, path: '/', secure, signed: true, maxAge: Math.floor(config.sessionTtlMs / 1000) });

  web.addHook('onRequest', async (req, reply) => {
    // the app's bundle: content-hashed names, cached for a year (appPages.ts)
    if (req.url.startsWith('/assets/')) return;
    reply.header('cache-control', 'no-store');
    // the consent page must not be framed by another site (clickjacking)
    reply.header('x-frame-options', 'DENY');
    reply.header('content-security-policy', "default-src 'self'; frame-ancestors 'none'; form-action 'self' http: https:");
    reply.header('referrer-policy', 'no-referrer');
    const raw = req.cookies[SESSION_COOKIE];
    if (raw) {
      const u = req.unsignCookie(raw);
      if (u.valid && u.value) req.webUser = (await sessionUser(store.db, u.value)) ?? null;
    }
  });

  web.setErrorHandler(async (err: unknown, req, reply) => {
    const refusal = pageRefusal(err);
    const e = (refusal ?? err) as { statusCode?: number; code?: string; message?: string };
    let status = refusal !== undefined ? refusal.statusCode : typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500 ? e.statusCode : 500;
    let message = refusal !== undefined || status < 500 ? (e.message ?? 'Bad request') : 'Something went wrong on the server.';
    if (e.code?.startsWith('FST_CSRF')) {
      status = 403;
      message = 'This form has expired or did not come from this site. Go back, reload the page and try again.';
    }
    if (status >= 500) req.log.error({ err }, 'page error');
    return page(req, reply, 'error.eta', { title: 'Error', message }, status);
  });

  web.get('/static/sheetd.css', async (_req, reply) => {
    reply.header('cache-control', 'public, max-age=3600');
    return reply.type('text/css; charset=utf-8').send(STYLESHEET);
  });
  // the pages name it; /favicon.ico is where a browser looks for a page that names none (the API's JSON)
  for (const url of ['/static/favicon.svg', '/favicon.ico']) {
    web.get(url, async (_req, reply) => {
      reply.header('cache-control', 'public, max-age=86400');
      return reply.type('image/svg+xml').send(FAVICON_SVG);
    });
  }


  await web.register(sessionRoutes);
  await web.register(oauthPages);
  await web.register(tokenPages);
  await web.register(passwordPages);
  await web.register(publishedPages);
  await web.register(updateRequestPages);
  await web.register(proofReviewPages);
  await web.register(publishedSightPages);
  await web.register(appPages);
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Options of the session cookie (signed, HttpOnly, SameSite=Lax; Secure behind TLS). */
    sessionCookie: import('@fastify/cookie').CookieSerializeOptions;
  }
}
