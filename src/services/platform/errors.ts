import { apiError, isApiError, type ApiError } from '../../errors.ts';
import { isEngineError, type EngineError } from '../../engine/errors.ts';

/**
 * The one mapping from the engine's refusals to the catalogue: an engine error names its code and
 * the arguments of the message, the catalogue gives the status and the message. Nothing else in
 * sheetd turns an EngineError into an answer (docs/architecture.md "Engine errors").
 */
export function fromEngineError(e: EngineError): ApiError {
  return apiError(e.errorCode, ...e.args);
}

/**
 * The catalogued error that `e` stands for: an ApiError as it is, an engine error mapped, a
 * foreign key naming a row deleted meanwhile 1006, anything else (a bug, a database failure)
 * undefined. Code that decides by "is this a refusal?" (partial
 * success of bulk writes, the API's error handler) asks this rather than isApiError.
 */
export function apiErrorOf(e: unknown): ApiError | undefined {
  if (isApiError(e)) return e;
  if (isEngineError(e)) return fromEngineError(e);
  if (vanishedMeanwhile(e)) return apiError(1006);
  return undefined;
}

/**
 * A foreign key that names no row: every service checks that what it writes under exists, so
 * this is an object deleted by another request between that check and the write (a comment on
 * a sheet deleted at that moment). 1006, as the same request a moment later would get.
 */
function vanishedMeanwhile(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY';
}
