/** Small helpers shared by the function library. */
import type { Call } from '../calls.ts';
import { cellsOf, toNumber } from '../coerce.ts';
import { err, isError, isRange, type ErrorValue, type Scalar } from '../values.ts';

/**
 * The numbers in arguments from..end: ranges and single references contribute their numbers
 * and skip text, booleans, dates and blanks; a number typed into the formula counts; an error
 * stops everything.
 */
export function numbersOf(call: Call, from = 0, to = call.nodes.length): number[] | ErrorValue {
  const out: number[] = [];
  for (let i = from; i < to; i++) {
    for (const c of cellsOf(call.value(i))) {
      if (typeof c === 'number') out.push(c);
      else if (isError(c)) return c;
    }
  }
  return out;
}

/** The cells of argument i (a scalar is one cell). */
export function cellsArg(call: Call, i: number): readonly Scalar[] | ErrorValue {
  const v = call.value(i);
  if (isError(v)) return v;
  return isRange(v) ? v.cells : [v];
}

/** A numeric argument, or its default when omitted. */
export function numArg(call: Call, i: number, dflt?: number): number | ErrorValue {
  if (!call.has(i)) return dflt ?? 0;
  return toNumber(call.scalar(i));
}

/** A whole-number argument (truncated toward zero). */
export function intArg(call: Call, i: number, dflt?: number): number | ErrorValue {
  const n = numArg(call, i, dflt);
  return typeof n === 'number' ? Math.trunc(n) : n;
}

/** Ranges of a multi-range function must hold the same number of cells. */
export function sameSizes(lists: readonly (readonly Scalar[])[]): ErrorValue | undefined {
  const n = lists[0]?.length ?? 0;
  return lists.every((l) => l.length === n) ? undefined : err('#INCORRECT ARGUMENT SET');
}

export function firstError(...vs: readonly unknown[]): ErrorValue | undefined {
  for (const v of vs) {
    if (v !== null && typeof v === 'object' && (v as { kind?: unknown }).kind === 'error') return v as ErrorValue;
  }
  return undefined;
}
