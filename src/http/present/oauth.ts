import type { ApiError } from '../../errors.ts';
import type { ErrorBody } from './envelope.ts';

/** The OAuth error type (spec part B) of each catalogued token-endpoint error. */
const OAUTH_TYPES: Record<number, string> = {
  1067: 'invalid_client',
  1068: 'unsupported_grant_type',
  1069: 'invalid_grant',
  1070: 'invalid_request',
  1071: 'invalid_grant',
  1072: 'invalid_grant',
  1073: 'invalid_grant',
  1132: 'invalid_grant',
  1236: 'invalid_client',
  1237: 'invalid_request',
  1238: 'invalid_client',
};

export interface OAuthErrorBody extends ErrorBody {
  error: string;
  error_description: string;
  error_code: number;
}

/**
 * The token endpoint answers the Error object and, in the same body, the OAuth error fields
 * (`error`, `error_description`, `error_code`) that OAuth clients and the Python SDK's OAuthError read.
 */
export function oauthErrorBody(e: ApiError, body: ErrorBody): ErrorBody | OAuthErrorBody {
  const type = OAUTH_TYPES[e.errorCode] ?? (e.statusCode < 500 ? 'invalid_request' : undefined);
  if (type === undefined) return body;
  return { ...body, error: type, error_description: body.message, error_code: body.errorCode };
}
