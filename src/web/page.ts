import type { FastifyReply, FastifyRequest } from 'fastify';
import type { UserRow } from '../services/platform/context.ts';
import type { EventAuthor } from '../services/log/events.ts';

export const SESSION_COOKIE = 'sheetd_session';

/** The event author for what a signed-in user does on the pages. */
export function webAuthor(user: UserRow): EventAuthor {
  return { orgId: user.org_id, userId: user.id, requestUserId: user.id, accessTokenName: null, source: 'WEB_APP' };
}

/** Where to go after signing in: only a path on this server (never an open redirect). */
export function safeNext(v: unknown): string {
  return typeof v === 'string' && /^\/(?![/\\])/.test(v) && !/[\r\n]/.test(v) ? v : '/';
}

/** Sends a page, with the layout, the signed-in user and a fresh CSRF token for its forms. */
export async function page(req: FastifyRequest, reply: FastifyReply, template: string, data: Record<string, unknown> = {}, status = 200) {
  const csrfToken = await reply.generateCsrf();
  return reply.code(status).type('text/html; charset=utf-8').viewAsync(template, { user: req.webUser, csrfToken, title: 'sheetd', ...data });
}

