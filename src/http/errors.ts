import fs from 'node:fs';
import path from 'node:path';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, apiError, apiErrorWith } from '../errors.ts';
import { apiErrorOf } from '../services/platform/errors.ts';
import { randomString } from '../ids.ts';
import type { ErrorBody } from './present/envelope.ts';

// The test suite's catalogue coverage (scripts/catalogue.mjs): when set, every error code this
// process answers is noted, once, in a file of that directory. Unset in production: one check.
const errorLogDir = process.env.SHEETD_ERROR_LOG || undefined;
const noted = new Set<number>();

/** Notes a code answered otherwise than through errorBody (a web page showing a refusal). */
export function noteErrorCode(code: number): void {
  if (errorLogDir === undefined || noted.has(code)) return;
  noted.add(code);
  fs.appendFileSync(path.join(errorLogDir!, `codes-${process.pid}.txt`), `${code}\n`);
}

export function errorBody(e: ApiError): ErrorBody {
  if (errorLogDir !== undefined) noteErrorCode(e.errorCode);
  const body: ErrorBody = { errorCode: e.errorCode, message: e.message, refId: randomString(12) };
  if (e.detail !== undefined) body.detail = e.detail;
  return body;
}

/**
 * A failure to which HTTP gives its own status (408, 414, 431, a malformed request) and for which
 * part B has no code: the closest catalogued one, 1008 "Unable to parse request", with the
 * protocol's status (docs/decisions.md).
 */
export function protocolError(status: number, reason: string): ApiError {
  const e = apiError(1008, reason);
  return new ApiError(e.errorCode, e.message, status);
}

/**
 * Fastify's own failures and the engine's refusals (through services/platform/errors.ts, the one mapping)
 * in the catalogue, so that no response has another shape.
 */
export function toApiError(err: unknown): ApiError | null {
  const refusal = apiErrorOf(err);
  if (refusal !== undefined) return refusal;
  const fe = err as Partial<FastifyError> & { type?: string };
  switch (fe.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return apiError(1124);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return apiError(1024);
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return apiError(1008, 'the request body is larger than this server accepts');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return apiError(1008, 'Content-Length does not match the request body');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return apiError(1008, fe.message ?? 'invalid JSON');
    case 'FST_ERR_VALIDATION':
      return apiError(1008, fe.message ?? 'invalid request');
    case 'FST_ERR_BAD_URL':
      return apiError(1006);
    default:
      break;
  }
  if (err instanceof SyntaxError) return apiError(1008, err.message);
  if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    if (fe.statusCode === 404) return apiError(1006);
    if (fe.statusCode === 405) return apiError(1010);
    if (fe.statusCode === 406) return apiError(1052);
    if (fe.statusCode === 415) return apiError(1124);
    if (fe.statusCode === 429) return apiError(4003);
    return apiError(1008, fe.message ?? 'bad request');
  }
  return null;
}

export function sendError(reply: FastifyReply, e: ApiError): FastifyReply {
  if (e.headers) for (const [k, v] of Object.entries(e.headers)) reply.header(k, v);
  return reply.code(e.statusCode).type('application/json; charset=utf-8').send(errorBody(e));
}

export function errorHandler(this: unknown, err: unknown, req: FastifyRequest, reply: FastifyReply): FastifyReply {
  const mapped = toApiError(err);
  if (mapped) {
    req.log.info({ errorCode: mapped.errorCode }, mapped.message);
    return sendError(reply, mapped);
  }
  const e = apiErrorWith(4000, {});
  const body = errorBody(e);
  req.log.error({ err, refId: body.refId }, 'unexpected error');
  return reply.code(500).type('application/json; charset=utf-8').send(body);
}
