import { apiError } from '../errors.ts';
import { isBadText } from '../engine/input.ts';

/**
 * Path parameters and query values with a NUL or an unpaired surrogate (%00, %ED%A0%80) are
 * refused before any route reads them: no object is named by such text (1006), and no
 * parameter accepts it (1018). The JSON body gets the same check in its parser (1008).
 */
export function assertRequestText(params: unknown, query: unknown): void {
  if (typeof params === 'object' && params !== null) {
    for (const v of Object.values(params)) if (typeof v === 'string' && isBadText(v)) throw apiError(1006);
  }
  if (typeof query === 'object' && query !== null) {
    for (const [k, v] of Object.entries(query)) {
      if (isBadText(k)) throw apiError(1018, JSON.stringify(k), 'name');
      for (const x of Array.isArray(v) ? v : [v]) if (typeof x === 'string' && isBadText(x)) throw apiError(1018, JSON.stringify(x), k);
    }
  }
}
