import fs from 'node:fs';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import compress from '@fastify/compress';
import type { BlobStore } from '../blobs/index.ts';
import type { Config } from '../config.ts';
import type { SheetStore } from '../services/sheets/sheetWrites.ts';
import { requestArrived } from '../services/identity/auth.ts';
import { apiError } from '../errors.ts';
import type { Scope } from '../services/access/scopes.ts';
import type { CallbackSender } from '../callbacks/index.ts';
import type { TestMode } from '../services/platform/testmode.ts';
import type { LiveHub } from '../services/live/hub.ts';
import { eventsRecorded } from '../services/log/events.ts';
import type { Actor, ReadOptions } from '../services/platform/context.ts';
import { errorHandler, sendError, toApiError } from './errors.ts';
import { edgeOptions, installEdge } from './edge.ts';
import { acceptable, COMPRESSION_LEVEL } from './negotiate.ts';
import { LARGE_BODY } from './present/sheetBodies.ts';
import { installMetrics } from './metrics.ts';
import { watchIdle } from '../idleMemory.ts';
import { checkHealth } from '../services/platform/metrics.ts';
import type { RateLimiter } from './ratelimit.ts';
import { API_PREFIX, apiPlugin, jsonBodyOnly, knownRoutes, notFound } from './api.ts';
import { webPlugin } from '../web/index.ts';
import { installOpenApi } from './openapi/index.ts';
import { installResponseCheck } from './openapi/conformance.ts';

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
    /** The page's CSRF token may come as ?csrf= (a change stream: EventSource sends no headers). */
    csrfInQuery?: boolean;
    /** Media types this route can produce besides application/json. */
    produces?: string[];
  }
  interface FastifyRequest {
    actor: Actor;
    ro: ReadOptions;
    /** The caller's credentials checked again (a token revoked or a session ended since throws the catalogued error); call it on the request. */
    reauthenticate: (this: FastifyRequest) => Promise<Actor>;
    /** services/log/events.ts eventsRecorded() when the request arrived. */
    recordedAtArrival: number;
    /**
     * The route's config (`routeOptions.config`, with its url), read once when the request
     * arrives: Fastify's routeOptions getter builds a new object on every read. Null when a hook
     * before it failed the request (a URI too long).
     */
    routeSettings: (FastifyContextConfig & { url?: string }) | null;
  }
}

/** What the routes reach: the database, configuration and shared helpers. */
export interface AppContext {
  /** The database and the write pipeline server.ts composed (services/sheets/sheetWrites.ts). */
  store: SheetStore;
  /** Where uploaded files live. */
  blobs: BlobStore;
  config: Config;
  limiter: RateLimiter;
  /** Outgoing webhook requests (verification on enabling). */
  callbacks: CallbackSender;
  /** Only when the operator enabled test mode: the /2.0/sheetd/test controls' state. */
  testMode?: TestMode;
  /** The change streams and presence of this process. */
  live: LiveHub;
}

declare module 'fastify' {
  interface FastifyInstance {
    ctx: AppContext;
    /** Every registered method and path (HEAD and OPTIONS left out), in registration order, and whether it needs a body. */
    routeTable: Array<{ method: string; url: string; body?: 'required' }>;
  }
}

export interface BuildOptions {
  /** A pino logger to use, or false for none. */
  logger?: FastifyServerOptions['loggerInstance'] | false;
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
    // `/favorites/` is `/favorites`: the Java SDK writes some paths with a trailing slash
    // (deleteRows: DELETE /sheets/{id}/rows/?ids=..., addFavorites: POST /favorites/)
    routerOptions: { ignoreTrailingSlash: true },
    forceCloseConnections: 'idle' as const,
    // a path that does not decode (e.g. %ED%A0%80) fails before routing, where setErrorHandler
    // does not reach: without this it answers Fastify's own error shape
    frameworkErrors: (err: Error, _req: FastifyRequest, reply: FastifyReply) => sendError(reply, toApiError(err) ?? apiError(1006)),
    ...(opts.logger ? { loggerInstance: opts.logger } : { logger: false }),
  };
  const app = (https ? Fastify({ ...common, https: { ...https, ...edge.node } }) : Fastify(common)) as unknown as FastifyInstance;
  installEdge(app, config, (req) => {
    // a request's stamped reads (store/db.ts) see what other processes committed before it came
    requestArrived(req.raw.socket);
    req.recordedAtArrival = eventsRecorded();
    req.routeSettings = req.routeOptions.config ?? null;
  });
  // one hook after every answer (each hook costs every request): counted for /metrics, and
  // events recorded while this request ran may be its own, now committed: the change streams read the log
  const metrics = installMetrics(ctx.store);
  app.addHook('onResponse', (req, reply, done) => {
    metrics.onResponse(req, reply);
    if (eventsRecorded() !== req.recordedAtArrival) ctx.live.committed();
    done();
  });
  const stopWatching = watchIdle();
  app.addHook('onClose', async () => stopWatching());

  app.decorate('ctx', ctx);
  app.decorateRequest('actor', null as unknown as Actor);
  app.decorateRequest('ro', null as unknown as ReadOptions);
  app.decorateRequest('recordedAtArrival', 0);
  app.decorateRequest('routeSettings', null);
  app.decorateRequest('reauthenticate', null as unknown as (this: FastifyRequest) => Promise<Actor>);

  // Every registered path (the API's and the root's), for the fuzz suite and for 405 answers.
  const known = knownRoutes();
  const routeTable: FastifyInstance['routeTable'] = [];
  app.decorate('routeTable', routeTable);
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    // a request without a body has nothing to decompress: no @fastify/compress preParsing hook
    // on GET and HEAD routes (a hook costs every request)
    if (route.decompress === undefined && methods.every((m) => m === 'GET' || m === 'HEAD')) route.decompress = false;
    for (const m of methods) {
      if (m === 'HEAD' || m === 'OPTIONS') continue;
      const body = (route.config as { body?: 'required' } | undefined)?.body;
      routeTable.push({ method: m, url: route.url, ...(body ? { body } : {}) });
      try {
        known.on(m as 'GET', route.url, () => undefined);
      } catch {
        // the same method and path registered twice (e.g. prefix variants): already known
      }
    }
  });

  // the test suite's conformance check (SHEETD_RESPONSE_CHECK, openapi/conformance.ts): it reads
  // each answer before compression does; unset, nothing is added
  if (process.env.SHEETD_RESPONSE_CHECK) installResponseCheck(app, process.env.SHEETD_RESPONSE_CHECK);
  // zlib's fastest level, as for large sheet bodies (present/sheetBodies.ts): the answer of an
  // add or update of 500 rows (about 800 KB of JSON) cost about 6 ms more CPU at the default level
  // 6, for a body about a sixth smaller (COMPRESSION_LEVEL). Answers up to LARGE_BODY are
  // compressed in one call, sent with their length: the plugin's default on 2 cores (8 KB) sent
  // such an answer through a zlib stream, chunk by chunk between the event loop and the thread
  // pool, and took about 6% longer and 9% more server CPU to add 25,000 rows in 500-row batches
  // (docs/speed.md). Larger sheet bodies are gzipped by sheetBodies, the rest still stream.
  await app.register(compress, { global: true, threshold: 1024, syncThreshold: LARGE_BODY, encodings: ['gzip', 'deflate'], zlibOptions: { level: COMPRESSION_LEVEL } });

  // The root: operational endpoints, and whatever no plugin claims (other API versions, typos).
  jsonBodyOnly(app);
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler((req, reply) => notFound(req, reply, known, config.retiredVersions));
  await app.register(async (ops) => {
    ops.addHook('onRequest', async (req, reply) => {
      if (!acceptable(req.headers.accept, req.routeOptions.config.produces)) throw apiError(1052);
      reply.header('cache-control', 'no-store');
    });
    ops.get('/health', { config: { public: true } }, async () => {
      await checkHealth(ctx.store);
      return { status: 'ok' };
    });
    ops.get('/metrics', { config: { public: true, produces: ['text/plain', 'application/openmetrics-text'] } }, metrics.scrape);
  });

  // the OpenAPI document's collector sees every route registered after it
  await installOpenApi(app, config);
  await app.register(apiPlugin, { prefix: API_PREFIX, known });
  await app.register(webPlugin);
  return app;
}
