import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay from 'find-my-way';
import { apiError, apiErrorWith } from '../errors.ts';
import type { Actor } from '../services/platform/context.ts';
import { fastifyCookie } from '@fastify/cookie';
import { authenticateHash, authenticateSession, bearerTokenHash } from '../services/identity/auth.ts';
import { cookieSecret } from '../services/identity/sessions.ts';
import { SESSION_COOKIE } from '../web/page.ts';
import { hasScope } from '../services/access/scopes.ts';
import { assertJsonText } from '../engine/input.ts';
import { errorHandler, sendError } from './errors.ts';
import { acceptable } from './negotiate.ts';
import type { RateDecision } from './ratelimit.ts';
import { readOptions } from './query.ts';
import { assertRequestText } from './text.ts';
import { registerRoutes } from './routes/index.ts';
import { clock } from '../clock.ts';
import { openApiRoute } from './openapi/index.ts';
import { installTestModeHooks, testModeRoutes } from './testmode.ts';

export const API_PREFIX = '/2.0';
const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'] as const;

/** Every registered method and path, to tell "wrong verb" (405) from "no such URL" (404). */
export type KnownRoutes = ReturnType<typeof FindMyWay>;

export function knownRoutes(): KnownRoutes {
  return FindMyWay({ ignoreTrailingSlash: true });
}

/** JSON is the only body type of the API (uploads register their own parsers on their routes). */
export function jsonBodyOnly(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = body as string;
    if (text.trim() === '') return done(null, undefined);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (e) {
      return done(apiError(1008, (e as Error).message), undefined);
    }
    try {
      assertJsonText(text, parsed);
    } catch (e) {
      return done(e as Error, undefined);
    }
    done(null, parsed);
  });
}

/**
 * The API: one encapsulated plugin, registered with prefix /2.0. Its hooks (Accept negotiation,
 * cache-control, authentication, scope, rate limit, text checks), body parsers, error handler and
 * not-found handling apply to its routes only, leaving the root free for pages.
 */
export async function apiPlugin(api: FastifyInstance, opts: { known: KnownRoutes }): Promise<void> {
  const { ctx } = api;
  const { config } = ctx;
  jsonBodyOnly(api);
  api.setErrorHandler(errorHandler);
  api.setNotFoundHandler((req, reply) => notFound(req, reply, opts.known, config.retiredVersions));
  // test mode (only when the operator enabled it): faults answer before authentication, as an
  // overloaded service would; every request goes to the journal
  if (ctx.testMode) installTestModeHooks(api, ctx.testMode);

  const secret = await cookieSecret(ctx.store.db);
  /** Who sent the request: its page session (with its CSRF token) or its API token (and Assume-User). */
  const whoSent = (req: FastifyRequest): Actor | Promise<Actor> => {
    const session = req.headers.authorization === undefined ? sessionOf(req, secret) : undefined;
    if (session !== undefined) {
      // the web app: the page's session cookie and its CSRF token (never an API token in a page);
      // EventSource sends no headers of its own, so a stream takes the token as ?csrf=
      const header = req.headers['x-csrf-token'];
      const csrf = (Array.isArray(header) ? header[0] : header) ?? (req.routeOptions.config.csrfInQuery ? queryCsrf(req) : undefined);
      return authenticateSession(ctx.store.db, session, csrf, secret);
    }
    const assume = req.headers['assume-user'];
    return authenticateHash(ctx.store.db, tokenHashOn(req.raw.socket, req.headers.authorization), Array.isArray(assume) ? assume[0] : assume, clock.now());
  };
  // a long response (a change stream) asks again later whether its caller still may; one
  // function for every request (it reads the request it is called on), none made per request
  async function reauthenticate(this: FastifyRequest): Promise<Actor> {
    const actor = await whoSent(this);
    const scope = this.routeOptions.config.scope;
    if (scope && !hasScope(actor.scopes, scope)) throw apiError(1004);
    return actor;
  }
  // A callback hook that goes on in the same turn when the actor and the rate limit's decision are
  // at hand (a kept token, the memory limiter), and waits only for what must be read: GET
  // /users/me spent a few percent of its CPU on the promises of an async hook.
  api.addHook('onRequest', (req, reply, done) => {
    let actor: Actor | Promise<Actor>;
    try {
      if (req.is404) return done();
      const cfg = req.routeSettings ?? req.routeOptions.config;
      if (!acceptable(req.headers.accept, cfg.produces)) throw apiError(1052);
      reply.header('cache-control', 'no-store');
      if (cfg.public) return done();
      actor = whoSent(req);
    } catch (e) {
      return done(e as Error);
    }
    if (actor instanceof Promise) actor.then((a) => admit(req, a, done), done);
    else admit(req, actor, done);
  });
  /** The request's actor is known: its scope, then its rate limit. */
  const admit = (req: FastifyRequest, actor: Actor, done: (e?: Error) => void): void => {
    let decision: RateDecision | Promise<RateDecision>;
    try {
      const cfg = req.routeSettings ?? req.routeOptions.config;
      req.actor = actor;
      req.reauthenticate = reauthenticate;
      if (cfg.scope && !hasScope(actor.scopes, cfg.scope)) throw apiError(1004);
      actor.changeAgent = changeAgent(req.headers['smartsheet-change-agent']);
      const bucket = actor.source === 'WEB_APP' ? `session:${actor.user.id}` : String(actor.tokenId);
      decision = ctx.limiter.consume(bucket, cfg.cost ?? 1, config.rateLimitPerMinute);
    } catch (e) {
      return done(e as Error);
    }
    if (decision instanceof Promise) decision.then((d) => done(refusal(d)), done);
    else done(refusal(decision));
  };

  api.addHook('preHandler', (req, _reply, done) => {
    try {
      assertRequestText(req.params, req.query);
      req.ro = readOptions(req.query as Record<string, string>);
      if ((req.routeSettings ?? req.routeOptions.config).body === 'required' && req.body === undefined) throw apiError(1024);
    } catch (e) {
      done(e as Error);
      return;
    }
    done();
  });

  openApiRoute(api);
  await api.register(registerRoutes);
  if (ctx.testMode) await api.register(testModeRoutes);
}

/**
 * The Authorization header each connection sent last, with its token's hash: a client sends the
 * same header on every request of a connection, and its SHA-256 (with the header's parsing) was
 * about 3,000 of the server's 139,000 instructions for GET /users/me (docs/speed.md). Kept only
 * while the connection lives, and each connection holds only what it sent itself (unlike a
 * process-wide map of tokens, which would hold every recent caller's credential).
 */
const lastAuthorization = new WeakMap<object, { header: string; hash: string }>();

function tokenHashOn(connection: object, header: string | undefined): string {
  const last = lastAuthorization.get(connection);
  if (last !== undefined && last.header === header) return last.hash;
  const hash = bearerTokenHash(header);
  lastAuthorization.set(connection, { header: header!, hash });
  return hash;
}

/** The error of a request the rate limit refuses (4003, with Retry-After), else undefined. */
function refusal(d: RateDecision): Error | undefined {
  return d.allowed ? undefined : apiErrorWith(4003, { headers: { 'retry-after': String(d.retryAfter) } });
}

function queryCsrf(req: FastifyRequest): string | undefined {
  const v = (req.query as Record<string, unknown> | undefined)?.csrf;
  return typeof v === 'string' ? v : undefined;
}

/** The value of the request's signed session cookie (the pages' sign-in), if it has a valid one. */
function sessionOf(req: FastifyRequest, secret: string): string | undefined {
  const header = req.headers.cookie;
  if (!header || !header.includes(SESSION_COOKIE)) return undefined;
  const raw = fastifyCookie.parse(header)[SESSION_COOKIE];
  if (!raw) return undefined;
  const u = fastifyCookie.unsign(raw, secret);
  return u.valid && u.value ? u.value : undefined;
}

/**
 * Smartsheet-Change-Agent (the reference's "Preventing Infinite Loops"): at most 512 characters,
 * the excess trimmed from the front so that the most recent agents remain.
 */
function changeAgent(h: string | string[] | undefined): string | null {
  const v = Array.isArray(h) ? h.join(',') : h;
  if (v === undefined || v.trim() === '') return null;
  return v.length > 512 ? v.slice(v.length - 512) : v;
}

/** Unknown URLs: other API versions (retired 4005, unknown 1007), a known path with another verb (405), else 404. */
export function notFound(req: FastifyRequest, reply: FastifyReply, known: KnownRoutes, retired: string[]): FastifyReply {
  const path = req.url.split('?')[0] ?? '/';
  const v = /^\/(\d+(?:\.\d+)*)(?:\/|$)/.exec(path);
  if (v && v[1] !== '2.0') return sendError(reply, apiError(retired.includes(v[1]!) ? 4005 : 1007));
  const allowed = METHODS.filter((m) => m !== req.method && known.find(m, path) !== null);
  if (allowed.length > 0) {
    const allow = allowed.includes('GET') ? [...allowed, 'HEAD'] : allowed;
    return sendError(reply, apiErrorWith(1010, { headers: { allow: allow.join(', ') } }));
  }
  return sendError(reply, apiError(1006));
}
