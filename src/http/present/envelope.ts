// The envelope of the API's answers: a write's result, a list's data, bulk results with their failures.

export interface ResultEnvelope<T> {
  message: 'SUCCESS' | 'PARTIAL_SUCCESS';
  resultCode: 0 | 3;
  result?: T;
  data?: T[];
  version?: number;
  failedItems?: BulkItemFailure[];
}

export interface ErrorBody {
  errorCode: number;
  message: string;
  refId: string;
  detail?: Record<string, unknown>;
}

export interface BulkItemFailure {
  index: number;
  rowId?: number | null;
  error: ErrorBody;
}

export function success<T>(result?: T, version?: number): ResultEnvelope<T> {
  const out: ResultEnvelope<T> = { message: 'SUCCESS', resultCode: 0 };
  if (result !== undefined) out.result = result;
  if (version !== undefined) out.version = version;
  return out;
}

export function successData<T>(data: T[], version?: number): ResultEnvelope<T> {
  const out: ResultEnvelope<T> = { message: 'SUCCESS', resultCode: 0, data };
  if (version !== undefined) out.version = version;
  return out;
}

/** Result of a bulk operation run with allowPartialSuccess: PARTIAL_SUCCESS when anything failed. */
export function bulkResult<T>(items: { result?: T; data?: T[] }, failed: BulkItemFailure[], version?: number): ResultEnvelope<T> {
  const out: ResultEnvelope<T> = failed.length > 0 ? { message: 'PARTIAL_SUCCESS', resultCode: 3 } : { message: 'SUCCESS', resultCode: 0 };
  if (items.result !== undefined) out.result = items.result;
  if (items.data !== undefined) out.data = items.data;
  if (version !== undefined) out.version = version;
  if (failed.length > 0) out.failedItems = failed;
  return out;
}
