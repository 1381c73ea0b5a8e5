import type { FastifyInstance, RouteOptions } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { Config } from '../../config.ts';
import { SCOPES } from '../../services/access/scopes.ts';
import { OPERATIONS, QUERY_TYPES } from './operations.ts';

/**
 * sheetd's own OpenAPI document (GET /2.0/openapi.json) and a browsable reference at /docs.
 *
 * The document describes every route registered under /2.0, as it is registered: the path and
 * its parameters come from the route, the scope from its config, the name and query parameters
 * from the operation table (operations.ts). The table only documents: the routes' input is
 * checked by the services, which answer the catalogued error codes (a JSON-schema validator
 * would answer its own). A test keeps the document and the routes in step.
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

const ERROR_SCHEMA = {
  type: 'object',
  properties: {
    errorCode: { type: 'integer' },
    message: { type: 'string' },
    refId: { type: 'string' },
    detail: {},
  },
};

interface Doc {
  hide?: boolean;
  summary?: string;
  operationId?: string;
  tags?: string[];
  params?: object;
  querystring?: object;
  security?: Array<Record<string, string[]>>;
  response?: object;
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
    response: {
      200: { description: 'Success', type: 'object', additionalProperties: true },
      default: { ...ERROR_SCHEMA, description: 'Failure: the Error object (spec part B)' },
    },
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
    transformObject: (d) => ({ ...('openapiObject' in d ? d.openapiObject : {}), ...urls(config.publicUrl) }),
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { docExpansion: 'none', deepLinking: true },
    staticCSP: true,
  });
}

/** GET /2.0/openapi.json, inside the API plugin. */
export function openApiRoute(api: FastifyInstance): void {
  api.get('/openapi.json', { config: { public: true } }, async () => api.swagger());
}
