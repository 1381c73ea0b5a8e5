import type { FastifyInstance, RouteOptions } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { Config } from '../../config.ts';
import { SCOPES } from '../../services/access/scopes.ts';
import { OPERATIONS, QUERY_TYPES } from './operations.ts';
import { FAVICON_SVG, LOGO_SVG } from './brand.ts';
import { COMPONENTS, ERROR_REF, operationBodies } from './bodies.ts';
import type { Content } from './schema.ts';

/**
 * sheetd's own OpenAPI document (GET /2.0/openapi.json) and a browsable reference at /docs.
 *
 * The document describes every route registered under /2.0, as it is registered: the path and
 * its parameters come from the route, the scope from its config, the name and query parameters
 * from the operation table (operations.ts), the request and response bodies from bodies.ts. The
 * tables only document: the routes' input is checked by the services, which answer the catalogued
 * error codes (a JSON-schema validator would answer its own), and the answers are serialized as
 * they are. Tests keep the document and the routes in step (test/api/openapi.test.ts) and check
 * every JSON answer of the test suite against its operation's schema (conformance.ts).
 */

const API_PREFIX = '/2.0';
const byKey = new Map(OPERATIONS.map(([key, summary, tag, query]) => [key, { summary, tag, query: query ? query.split(' ') : [] }]));

/** '/2.0/users/:userId(^\\d+$)/alternateemails' -> '/users/{userId}/alternateemails' */
export function openApiPath(url: string): string {
  const rest = url.startsWith(API_PREFIX) ? url.slice(API_PREFIX.length) : url;
  return rest.replace(/:([A-Za-z0-9_]+)(\([^)]*\))?/g, '{$1}');
}

function pathParams(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
}

/** Ids are integers, tokens and names (favorite types, domains) are strings. */
function paramType(name: string): 'integer' | 'string' {
  return /Id$/.test(name) && name !== 'favoriteId' ? 'integer' : 'string';
}

function words(path: string): string {
  return path.split('/').filter((p) => p && !p.startsWith('{')).join(' ');
}

interface Doc {
  hide?: boolean;
  summary?: string;
  operationId?: string;
  tags?: string[];
  params?: object;
  querystring?: object;
  security?: Array<Record<string, string[]>>;
}

function describe(route: RouteOptions, url: string): { schema: Doc; url: string } {
  const methods = (Array.isArray(route.method) ? route.method : [route.method]).filter((m) => m !== 'HEAD' && m !== 'OPTIONS');
  if (!url.startsWith(API_PREFIX + '/') || methods.length === 0) return { schema: { hide: true }, url };
  const path = openApiPath(url);
  const method = methods[0]!;
  const op = byKey.get(`${method} ${path}`);
  const params = pathParams(path);
  const cfg = (route.config ?? {}) as { public?: boolean; scope?: string | null };
  const schema: Doc = {
    summary: op?.summary ?? `${method} ${words(path)}`,
    tags: [op?.tag ?? (path.startsWith('/sheetd/') ? 'sheetd' : path.split('/')[1] ?? 'misc')],
    operationId: `${method.toLowerCase()}${path.replace(/[{}]/g, '').split('/').map((p) => p.charAt(0).toUpperCase() + p.slice(1)).join('')}`,
    security: cfg.public ? [] : [{ APIToken: [] }, { OAuth2: cfg.scope ? [cfg.scope] : [] }],
  };
  if (params.length > 0) {
    schema.params = {
      type: 'object',
      required: params,
      properties: Object.fromEntries(params.map((p) => [p, { type: paramType(p) }])),
    };
  }
  if (op && op.query.length > 0) {
    schema.querystring = {
      type: 'object',
      properties: Object.fromEntries(op.query.map((q) => [q, { type: QUERY_TYPES[q] ?? 'string' }])),
    };
  }
  return { schema, url: path };
}

function urls(base: string) {
  return {
    servers: [{ url: `${base}${API_PREFIX}` }],
    components: {
      securitySchemes: {
        APIToken: { type: 'http' as const, scheme: 'bearer' },
        OAuth2: {
          type: 'oauth2' as const,
          flows: {
            authorizationCode: {
              authorizationUrl: `${base}/b/authorize`,
              tokenUrl: `${base}${API_PREFIX}/token`,
              refreshUrl: `${base}${API_PREFIX}/token`,
              scopes: Object.fromEntries(SCOPES.map((s) => [s, s])),
            },
          },
        },
      },
    },
  };
}

function content(c: Content): Record<string, { schema: object }> {
  return Object.fromEntries(Object.entries(c).map(([type, schema]) => [type, { schema }]));
}

type Paths = Record<string, Record<string, unknown> | undefined>;

/** Each operation's request body and responses (bodies.ts), the Error object for failures. */
function withBodies(paths: Paths): Paths {
  const out: Paths = {};
  for (const [path, ops] of Object.entries(paths)) {
    if (!ops) continue;
    out[path] = Object.fromEntries(Object.entries(ops).map(([method, op]) => {
      const bodies = operationBodies(`${method.toUpperCase()} ${path}`);
      const responses: Record<string, object> = {};
      for (const [status, c] of Object.entries(bodies?.responses ?? { 200: {} })) {
        responses[status] = { description: bodies ? 'Success' : 'Success (the body is not described yet)', ...(Object.keys(c).length > 0 ? { content: content(c) } : {}) };
      }
      responses.default = { description: 'Failure: the Error object (spec part B)', content: { 'application/json': { schema: ERROR_REF } } };
      const described: Record<string, unknown> = { ...(op as object), responses };
      if (bodies?.request) described.requestBody = { required: true, content: content(bodies.request) };
      return [method, described];
    }));
  }
  return out;
}

/** Registers the document's collector on the root, before any route, and the /docs pages. */
export async function installOpenApi(app: FastifyInstance, config: Config): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'sheetd: Sheet Collaboration Service API',
        version: '2.0',
        description: 'The API served by this sheetd. Authenticate with a raw API token or an OAuth 2.0 access token as a Bearer token.',
      },
      ...urls(config.publicUrl),
    },
    // the routes validate nothing through these schemas (see above): describe them only here
    transform: ({ route, url }) => describe(route, url),
    // the public URL is known only once the server listens (when SHEETD_PUBLIC_URL is unset)
    transformObject: (d) => {
      const doc = 'openapiObject' in d ? d.openapiObject : {};
      // the component schemas join here, past @fastify/swagger's own processing of schemas
      const u = urls(config.publicUrl);
      return { ...doc, paths: withBodies((doc.paths ?? {}) as Paths), ...u, components: { schemas: COMPONENTS, ...u.components } };
    },
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { docExpansion: 'none', deepLinking: true },
    staticCSP: true,
    // sheetd's name, not the framework's: the page title, the top bar's logo and the favicon
    logo: { type: 'image/svg+xml', content: LOGO_SVG, href: '/docs', target: '_self' },
    theme: {
      title: 'sheetd API reference',
      favicon: [{ filename: 'favicon.svg', rel: 'icon', type: 'image/svg+xml', sizes: 'any', content: FAVICON_SVG }],
    },
  });
}

/** GET /2.0/openapi.json, inside the API plugin. */
export function openApiRoute(api: FastifyInstance): void {
  api.get('/openapi.json', { config: { public: true } }, async () => api.swagger());
}
