import { apiError } from '../errors.ts';
import { isBadText } from '../engine/input.ts';

/**
 * Path parameters and query values with a NUL or an unpaired surrogate (%00, %ED%A0%80) are
 * refused before any route reads them: no object is named by such text (1006), and no
 * parameter accepts it (1018). The JSON body gets the same check in its parser (1008).
 */
export function assertRequestText(params: unknown, query: unknown): void {
  // own enumerable keys, in order, without the arrays of Object.entries (every request passes here)
  if (typeof params === 'object' && params !== null) {
    const p = params as Record<string, unknown>;
    for (const k in p) {
      if (!Object.hasOwn(p, k)) continue;
      const v = p[k];
      if (typeof v === 'string' && isBadText(v)) throw apiError(1006);
    }
  }
  if (typeof query === 'object' && query !== null) {
    const q = query as Record<string, unknown>;
    for (const k in q) {
      if (!Object.hasOwn(q, k)) continue;
      if (isBadText(k)) throw apiError(1018, JSON.stringify(k), 'name');
      const v = q[k];
      if (Array.isArray(v)) {
        for (const x of v) if (typeof x === 'string' && isBadText(x)) throw apiError(1018, JSON.stringify(x), k);
      } else if (typeof v === 'string' && isBadText(v)) throw apiError(1018, JSON.stringify(v), k);
    }
  }
}
