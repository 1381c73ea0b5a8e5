import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { MIN_PASSWORD_LENGTH, changeOwnPassword, signOut } from '../services/identity/sessions.ts';
import { readPasswordLink, usePasswordLink, PASSWORD_LINK_TTL_MS } from '../services/identity/passwordLinks.ts';
import { clock } from '../clock.ts';
import { SESSION_COOKIE, page } from './page.ts';

const GONE = `This link does not work any more: it was used already, or it has expired (a link works once, for ${Math.round(PASSWORD_LINK_TTL_MS / 86_400_000)} days), or the account is no longer active. Ask an administrator of your organization for a new link.`;

/** The two new-password fields agree and are long enough; the words of the first problem, or undefined. */
function newPasswordProblem(password: string, repeat: string): string | undefined {
  if (password.length < MIN_PASSWORD_LENGTH) return `The new password is too short: use at least ${MIN_PASSWORD_LENGTH} characters.`;
  if (password !== repeat) return 'The two new passwords are not the same. Type the same password twice.';
  return undefined;
}

const field = (body: unknown, name: string): string => {
  const v = (body as Record<string, unknown> | undefined)?.[name];
  return typeof v === 'string' ? v : '';
};

/**
 * Passwords on the pages: the page of a password link (an admin made it for the person; it
 * works once: services/identity/passwordLinks.ts) and "Change password" for a signed-in person.
 * GET shows a form and changes nothing (mail scanners open links); the forms post with a CSRF
 * token. A wrong current password counts against the sign-in limits (per account and per
 * address), so this form is no way round them.
 */
export async function passwordPages(web: FastifyInstance): Promise<void> {
  const { config, store, limiter } = web.ctx;
  const showLink = (req: FastifyRequest, reply: FastifyReply, token: string, email: string, error?: string, status = 200) =>
    page(req, reply, 'set-password.eta', { title: 'Choose your password', token, email, minLength: MIN_PASSWORD_LENGTH, error }, status);

  web.get<{ Params: { token: string } }>('/password/:token', async (req, reply) => {
    const link = await readPasswordLink(store.db, req.params.token);
    if (!link) return page(req, reply, 'error.eta', { title: 'Link expired', message: GONE }, 404);
    return showLink(req, reply, req.params.token, link.email);
  });

  web.post<{ Params: { token: string } }>('/password/:token', { preHandler: web.csrfProtection }, async (req, reply) => {
    const token = req.params.token;
    const link = await readPasswordLink(store.db, token);
    if (!link) return page(req, reply, 'error.eta', { title: 'Link expired', message: GONE }, 404);
    const problem = newPasswordProblem(field(req.body, 'password'), field(req.body, 'repeat'));
    if (problem) return showLink(req, reply, token, link.email, problem, 400);
    const user = await usePasswordLink(store, token, field(req.body, 'password'));
    if (!user) return page(req, reply, 'error.eta', { title: 'Link expired', message: GONE }, 404);
    // whoever was signed in in this browser is not the person who now has a password
    const raw = req.cookies[SESSION_COOKIE];
    const u = raw ? req.unsignCookie(raw) : null;
    if (u?.valid && u.value) await signOut(store, u.value);
    reply.clearCookie(SESSION_COOKIE, { path: '/' });
    return reply.redirect('/login?done=password', 303);
  });

  const toLogin = '/login?next=%2Fsettings%2Fpassword';
  const showChange = (req: FastifyRequest, reply: FastifyReply, extra: Record<string, unknown> = {}, status = 200) =>
    page(req, reply, 'change-password.eta', { title: 'Change password', minLength: MIN_PASSWORD_LENGTH, ...extra }, status);

  web.get('/settings/password', async (req, reply) => {
    if (!req.webUser) return reply.redirect(toLogin, 303);
    return showChange(req, reply, { done: (req.query as Record<string, unknown>).done === '1' });
  });

  web.post('/settings/password', { preHandler: web.csrfProtection }, async (req, reply) => {
    const user = req.webUser;
    if (!user) return reply.redirect(toLogin, 303);
    const limits: Array<[string, number]> = [[`login:account:${user.email}`, config.loginRateLimitPerMinute], [`login:address:${req.ip}`, config.loginRateLimitPerAddress]];
    const room = await Promise.all(limits.map(([key, limit]) => limiter.check(key, 1, limit, clock.now())));
    if (room.some((r) => !r.allowed)) {
      reply.header('retry-after', String(Math.max(...room.map((r) => r.retryAfter))));
      return showChange(req, reply, { error: 'Too many wrong passwords. Wait a minute and try again.' }, 429);
    }
    const password = field(req.body, 'password');
    const problem = newPasswordProblem(password, field(req.body, 'repeat'));
    if (problem) return showChange(req, reply, { error: problem }, 400);
    const session = await changeOwnPassword(store, user, field(req.body, 'current'), password, config.sessionTtlMs);
    if (!session) {
      await Promise.all(limits.map(([key, limit]) => limiter.consume(key, 1, limit, clock.now())));
      return showChange(req, reply, { error: 'Your current password is not right. Nothing was changed.' }, 401);
    }
    reply.setCookie(SESSION_COOKIE, session.value, web.sessionCookie);
    return reply.redirect('/settings/password?done=1', 303);
  });
}
