import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import formbody from '@fastify/formbody';
import { issueToken, revokeAccessToken, type TokenParams } from '../../services/identity/oauth.ts';
import { errorBody, errorHandler, toApiError } from '../errors.ts';
import { oauthErrorBody } from '../present/oauth.ts';
import { bool, one, type Query } from '../query.ts';
import { success } from '../present/envelope.ts';

const TOKEN_FIELDS = ['grant_type', 'client_id', 'client_secret', 'hash', 'code', 'refresh_token', 'redirect_url', 'redirect_uri'] as const;

/**
 * POST and DELETE /token. The SDKs send the token request form-encoded, or with its fields in
 * the query string and an empty form body (the npm SDK): both are read, the body winning.
 */
export async function oauthRoutes(app: FastifyInstance): Promise<void> {
  await app.register(formbody, { bodyLimit: 16 * 1024 });
  app.setErrorHandler((err: unknown, req: FastifyRequest, reply: FastifyReply) => {
    const e = toApiError(err);
    if (!e || req.method !== 'POST') return errorHandler(err, req, reply);
    req.log.info({ errorCode: e.errorCode }, e.message);
    if (e.headers) for (const [k, v] of Object.entries(e.headers)) reply.header(k, v);
    return reply.code(e.statusCode).type('application/json; charset=utf-8').send(oauthErrorBody(e, errorBody(e)));
  });

  app.post('/token', { config: { public: true } }, async (req) => {
    const query = req.query as Query;
    const body = req.body !== null && typeof req.body === 'object' && !Array.isArray(req.body) ? (req.body as Query) : {};
    const params: TokenParams = {};
    for (const f of TOKEN_FIELDS) {
      const v = one(body, f) ?? one(query, f);
      if (v !== undefined) params[f] = v;
    }
    return issueToken(app.ctx.store, params);
  });

  app.delete('/token', { config: { scope: null } }, async (req) => {
    await revokeAccessToken(app.ctx.store, req.actor, bool(req.query as Query, 'deleteAllForApiClient'));
    return success();
  });
}
