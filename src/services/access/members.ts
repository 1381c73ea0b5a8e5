import type { Queryable } from '../../store/db.ts';
import { findOrgMember } from '../../store/users.ts';
import { apiError } from '../../errors.ts';
import type { Actor, UserRow } from '../platform/context.ts';

// Checks shared by users.ts and alternateEmails.ts (which users.ts calls), kept apart so that
// neither imports the other.

// A pragmatic address check: one @, a dotted domain, no spaces.
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function isValidEmail(email: unknown): email is string {
  return typeof email === 'string' && email.length <= 254 && EMAIL.test(email);
}

/** Only system admins manage users (the assumed user under Assume-User is never one). */
export function requireSystemAdmin(actor: Actor): void {
  if (!actor.user.admin) throw apiError(1004);
}

/**
 * Whether the caller sees a user's private profile (roles, alternate addresses) and may set its
 * profile image: their own, or anyone's for a system admin.
 */
export function seesPrivateProfile(actor: Actor, userId: number): boolean {
  return !!actor.user.admin || actor.user.id === userId;
}

/** A member of the caller's organization by id: 1020 when there is none. */
export async function memberOr404(db: Queryable, actor: Actor, id: number): Promise<UserRow> {
  const u = await findOrgMember(db, actor.org.id, id);
  if (!u) throw apiError(1020);
  return u;
}
