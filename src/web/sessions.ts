import type { FastifyInstance } from 'fastify';
import { signIn, signOut } from '../services/identity/sessions.ts';
import { clock } from '../clock.ts';
import { SESSION_COOKIE, page, safeNext } from './page.ts';

/** Sign-in and sign-out. Failed attempts are limited per account and per client address. */
export async function sessionRoutes(web: FastifyInstance): Promise<void> {
  const { config, store, limiter } = web.ctx;

  web.get('/login', async (req, reply) => {
    const query = req.query as Record<string, unknown>;
    const next = safeNext(query.next);
    if (req.webUser) return reply.redirect(next, 303);
    // after a password link (web/passwords.ts) the person signs in with the new password
    const notice = query.done === 'password' ? 'Your password is set. Sign in with your email address and the new password.' : undefined;
    return page(req, reply, 'login.eta', { title: 'Sign in', next, email: '', notice });
  });

  web.post('/login', { preHandler: web.csrfProtection }, async (req, reply) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const email = typeof body.email === 'string' ? body.email.trim().toLowerCase() : '';
    const password = typeof body.password === 'string' ? body.password : '';
    const next = safeNext(body.next);
    // failed attempts count, per account and per client address (a rolling limit a minute);
    // once either is used up, even the right password waits until a failure would pass again
    const limits: Array<[string, number]> = [[`login:account:${email}`, config.loginRateLimitPerMinute], [`login:address:${req.ip}`, config.loginRateLimitPerAddress]];
    const room = await Promise.all(limits.map(([key, limit]) => limiter.check(key, 1, limit, clock.now())));
    if (room.some((r) => !r.allowed)) {
      reply.header('retry-after', String(Math.max(...room.map((r) => r.retryAfter))));
      return page(req, reply, 'login.eta', { title: 'Sign in', next, email, error: 'Too many failed sign-in attempts. Wait a minute and try again.' }, 429);
    }
    const session = email && password ? await signIn(store, email, password, config.sessionTtlMs) : null;
    if (!session) {
      await Promise.all(limits.map(([key, limit]) => limiter.consume(key, 1, limit, clock.now())));
      return page(req, reply, 'login.eta', { title: 'Sign in', next, email, error: 'The email address or password is not right.' }, 401);
    }
    reply.setCookie(SESSION_COOKIE, session.value, web.sessionCookie);
    return reply.redirect(next, 303);
  });

  web.post('/logout', { preHandler: web.csrfProtection }, async (req, reply) => {
    const raw = req.cookies[SESSION_COOKIE];
    const u = raw ? req.unsignCookie(raw) : null;
    if (u?.valid && u.value) await signOut(store, u.value);
    reply.clearCookie(SESSION_COOKIE, { path: '/' });
    return reply.redirect('/login', 303);
  });
}
