/** The function library: every name in names.ts mapped to its arity and implementation. */
import type { FnDef } from '../calls.ts';
import { CRITERIA } from './criteria.ts';
import { DATES } from './dates.ts';
import { HIERARCHY } from './hierarchy.ts';
import { LOGIC } from './logic.ts';
import { LOOKUP } from './lookup.ts';
import { MATH } from './math.ts';
import { FUNCTION_NAMES } from './names.ts';
import { TEXT } from './text.ts';

export const FUNCTIONS: ReadonlyMap<string, FnDef> = new Map(
  Object.entries({ ...LOGIC, ...MATH, ...CRITERIA, ...TEXT, ...DATES, ...LOOKUP, ...HIERARCHY }),
);

/** Names accepted by the parser but missing from the library (a test keeps this empty). */
export function unimplementedFunctions(): string[] {
  return FUNCTION_NAMES.filter((n) => !FUNCTIONS.has(n));
}

export { FUNCTION_NAMES, isFunctionName } from './names.ts';
