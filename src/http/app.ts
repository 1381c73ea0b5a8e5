import fs from 'node:fs';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import compress from '@fastify/compress';
import FindMyWay from 'find-my-way';
import type { BlobStore } from '../blobs/index.ts';
import type { Config } from '../config.ts';
import type { Store } from '../store/db.ts';
import { apiError, apiErrorWith } from '../errors.ts';
import { authenticate } from '../services/auth.ts';
import { hasScope, type Scope } from '../services/scopes.ts';
import type { CallbackSender } from '../callbacks/index.ts';
import type { Actor, ReadOptions } from '../services/context.ts';
import { errorHandler, sendError, toApiError } from './errors.ts';
import { edgeOptions, installEdge } from './edge.ts';
import { acceptable } from './negotiate.ts';
import { installMetrics } from './metrics.ts';
import { readOptions } from './query.ts';
import { assertRequestText } from './text.ts';
import { assertJsonText } from '../engine/input.ts';
import type { RateLimiter } from './ratelimit.ts';
import { registerRoutes } from './routes/index.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** OAuth scope the route needs; null = any valid token; undefined with public = no auth. */
    scope?: Scope | null;
    /** No Authorization needed (health, server info, token endpoint). */
    public?: boolean;
    /** Cost toward the rate limit (default 1; attachment uploads and cell history 10). */
    cost?: number;
    /** 'required': a missing body answers 1024. */
    body?: 'required';
    /** Media types this route can produce besides application/json. */
    produces?: string[];
  }
  interface FastifyRequest {
    actor: Actor;
    ro: ReadOptions;
  }
}

/** What the routes reach: the database, configuration and shared helpers. */
export interface AppContext {
  store: Store;
  /** Where uploaded files live. */
  blobs: BlobStore;
  config: Config;
  limiter: RateLimiter;
  /** Outgoing webhook requests (verification on enabling). */
  callbacks: CallbackSender;
}

declare module 'fastify' {
  interface FastifyInstance {
    ctx: AppContext;
    /** Every registered method and path (HEAD and OPTIONS left out), in registration order. */
    routeTable: Array<{ method: string; url: string }>;
  }
}

const API_PREFIX = '/2.0';
const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'] as const;

export interface BuildOptions {
  /** A pino logger to use, or false for none. */
  logger?: FastifyServerOptions['loggerInstance'] | false;
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

export async function buildApp(ctx: AppContext, opts: BuildOptions = {}): Promise<FastifyInstance> {
  const { config } = ctx;
  const https = config.tlsCert && config.tlsKey
    ? { cert: fs.readFileSync(config.tlsCert), key: fs.readFileSync(config.tlsKey) }
    : null;
  const edge = edgeOptions(config);
  const common = {
    ...edge.fastify,
    http: edge.node,
    bodyLimit: config.bodyLimit,
    return503OnClosing: true,
    forceCloseConnections: 'idle' as const,
    // a path that does not decode (e.g. %ED%A0%80) fails before routing, where setErrorHandler
    // does not reach: without this it answers Fastify's own error shape
    frameworkErrors: (err: Error, _req: FastifyRequest, reply: FastifyReply) => sendError(reply, toApiError(err) ?? apiError(1006)),
    ...(opts.logger ? { loggerInstance: opts.logger } : { logger: false }),
  };
  const app = (https ? Fastify({ ...common, https: { ...https, ...edge.node } }) : Fastify(common)) as unknown as FastifyInstance;
  installEdge(app, config);

  app.decorate('ctx', ctx);
  app.decorateRequest('actor', null as unknown as Actor);
  app.decorateRequest('ro', null as unknown as ReadOptions);

  // Every registered path, to tell "wrong verb" (405) from "no such URL" (404).
  const known = FindMyWay({ ignoreTrailingSlash: false });
  const routeTable: FastifyInstance['routeTable'] = [];
  app.decorate('routeTable', routeTable);
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const m of methods) {
      if (m === 'HEAD' || m === 'OPTIONS') continue;
      routeTable.push({ method: m, url: route.url });
      try {
        known.on(m as 'GET', route.url, () => undefined);
      } catch {
        // the same method and path registered twice (e.g. prefix variants): already known
      }
    }
  });

  // JSON is the only body type of the API (uploads register their own parsers on their routes).
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

  await app.register(compress, { global: true, threshold: 1024, encodings: ['gzip', 'deflate'] });

  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler((req, reply) => notFound(req, reply, known, config.retiredVersions));

  app.addHook('onRequest', async (req, reply) => {
    if (req.is404) return;
    const cfg = req.routeOptions.config;
    if (!acceptable(req.headers.accept, cfg.produces)) throw apiError(1052);
    reply.header('cache-control', 'no-store');
    if (cfg.public) return;
    const assume = req.headers['assume-user'];
    req.actor = await authenticate(ctx.store.db, req.headers.authorization, Array.isArray(assume) ? assume[0] : assume);
    if (cfg.scope && !hasScope(req.actor.scopes, cfg.scope)) throw apiError(1004);
    req.actor.changeAgent = changeAgent(req.headers['smartsheet-change-agent']);
    const decision = await ctx.limiter.consume(String(req.actor.tokenId), cfg.cost ?? 1, config.rateLimitPerMinute);
    if (!decision.allowed) throw apiErrorWith(4003, { headers: { 'retry-after': String(decision.retryAfter) } });
  });

  app.addHook('preHandler', async (req) => {
    assertRequestText(req.params, req.query);
    req.ro = readOptions(req.query as Record<string, string>);
    if (req.routeOptions.config.body === 'required' && req.body === undefined) throw apiError(1024);
  });

  installMetrics(app, ctx.store);

  app.get('/health', { config: { public: true } }, async () => {
    await ctx.store.db.selectFrom('orgs').select('id').limit(1).execute();
    return { status: 'ok' };
  });

  await app.register(registerRoutes, { prefix: API_PREFIX });
  return app;
}

function notFound(req: FastifyRequest, reply: FastifyReply, known: ReturnType<typeof FindMyWay>, retired: string[]): FastifyReply {
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
