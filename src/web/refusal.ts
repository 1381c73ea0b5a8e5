import type { ApiError } from '../errors.ts';
import { noteErrorCode } from '../http/errors.ts';
import { apiErrorOf } from '../services/platform/errors.ts';

/**
 * The catalogued refusal a page shows (its message, with its status), or undefined for another
 * failure. Noted like the API's error bodies, for the catalogue coverage (scripts/catalogue.mjs).
 */
export function pageRefusal(e: unknown): ApiError | undefined {
  const refusal = apiErrorOf(e);
  if (refusal !== undefined) noteErrorCode(refusal.errorCode);
  return refusal;
}
