import { apiError } from '../../errors.ts';

/**
 * Access levels of spec section 2.2, weakest to strongest. The effective level of a caller on
 * an object is the strongest of its grants; each operation names the least level it needs.
 */
export const ACCESS_LEVELS = ['VIEWER', 'COMMENTER', 'EDITOR', 'EDITOR_SHARE', 'ADMIN', 'OWNER'] as const;
export type AccessLevel = (typeof ACCESS_LEVELS)[number];

export function isAccessLevel(s: unknown): s is AccessLevel {
  return typeof s === 'string' && (ACCESS_LEVELS as readonly string[]).includes(s);
}

export function rank(level: AccessLevel): number {
  return ACCESS_LEVELS.indexOf(level);
}

export function atLeast(level: AccessLevel | null | undefined, needed: AccessLevel): boolean {
  return level != null && rank(level) >= rank(needed);
}

export function strongest(levels: Iterable<AccessLevel | null | undefined>): AccessLevel | null {
  let best: AccessLevel | null = null;
  for (const l of levels) if (l && (best === null || rank(l) > rank(best))) best = l;
  return best;
}

/**
 * Throws 1006 when the caller has no access at all (an object the caller cannot see is not
 * revealed), 1004 when it has some but not enough.
 */
export function requireAccess(level: AccessLevel | null | undefined, needed: AccessLevel): void {
  if (level == null) throw apiError(1006);
  if (!atLeast(level, needed)) throw apiError(1004);
}

/** COMMENTER is exposed only with accessApiLevel=1; otherwise it reads as VIEWER. */
export function presentAccessLevel(level: AccessLevel, accessApiLevel: number): AccessLevel {
  return level === 'COMMENTER' && accessApiLevel < 1 ? 'VIEWER' : level;
}
