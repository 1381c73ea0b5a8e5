/**
 * User plans (the npm SDK's listUserPlans, upgradeUser, downgradeUser, removeUserFromPlan). A
 * sheetd organization is one plan, whose id is the organization's id: every user of the
 * organization is on it, with a seat type that follows their license (a licensed sheet creator
 * is a MEMBER, anyone else a VIEWER). Upgrading and downgrading set the license through Update
 * User's rules (and its event); sheetd has no external users (GUEST), provisional members or
 * other plans to move users to.
 */
import type { Store, Queryable } from '../../store/db.ts';
import { apiError } from '../../errors.ts';
import { asObject } from '../../engine/input.ts';
import { memberOr404, requireSystemAdmin, updateUser } from './users.ts';
import type { Actor, UserRow } from '../platform/context.ts';

export const SEAT_TYPES = ['MEMBER', 'PROVISIONAL_MEMBER', 'GUEST', 'VIEWER', 'CONTRIBUTOR'] as const;

export interface UserPlan {
  planId: number;
  planName: string;
  seatType: 'MEMBER' | 'VIEWER';
  isInternal: true;
}

function planOf(actor: Actor, user: UserRow): UserPlan {
  return { planId: actor.org.id, planName: actor.org.name, seatType: user.licensed_sheet_creator || user.admin ? 'MEMBER' : 'VIEWER', isInternal: true };
}

/** List User Plans (system admins): the organization's plan, with the user's seat type. */
export async function listUserPlans(db: Queryable, actor: Actor, userId: number): Promise<UserPlan[]> {
  requireSystemAdmin(actor);
  return [planOf(actor, await memberOr404(db, actor, userId))];
}

function checkPlan(actor: Actor, planId: number): void {
  if (planId !== actor.org.id) throw apiError(1006);
}

function seatTypeOf(body: unknown, dflt: string | undefined): string {
  const b = body === undefined || body === null ? {} : asObject(body, 'a seat type body');
  const extra = Object.keys(b).filter((k) => k !== 'seatType');
  if (extra.length > 0) throw apiError(1032, extra.join(', '));
  const v = b.seatType ?? dflt;
  if (v === undefined || v === null || v === '') throw apiError(1012, 'seatType');
  if (typeof v !== 'string' || !(SEAT_TYPES as readonly string[]).includes(v)) throw apiError(1031, String(v), 'seatType');
  return v;
}

/**
 * Upgrade User (system admins): to MEMBER (the default), which licenses the user; the seat type
 * they have already is no error. GUEST is for external users only and PROVISIONAL_MEMBER does not
 * exist in sheetd (1031), as VIEWER and CONTRIBUTOR are no upgrade (1031).
 */
export async function upgradeUserPlan(store: Store, actor: Actor, userId: number, planId: number, body: unknown): Promise<UserPlan> {
  requireSystemAdmin(actor);
  checkPlan(actor, planId);
  const seat = seatTypeOf(body, 'MEMBER');
  if (seat !== 'MEMBER') throw apiError(1031, seat, 'seatType');
  const user = await memberOr404(store.db, actor, userId);
  if (user.licensed_sheet_creator || user.admin) return planOf(actor, user);
  return planOf(actor, await updateUser(store, actor, userId, { licensedSheetCreator: true }));
}

/**
 * Downgrade User (system admins): to VIEWER (CONTRIBUTOR, its newer name, alike), which takes the
 * license away under Update User's rules: a system admin stays a member (1031), a group admin or
 * resource viewer needs the license (1102, 1097), a user who owns sheets keeps it (1076). GUEST is
 * for external users only (1031).
 */
export async function downgradeUserPlan(store: Store, actor: Actor, userId: number, planId: number, body: unknown): Promise<UserPlan> {
  requireSystemAdmin(actor);
  checkPlan(actor, planId);
  const seat = seatTypeOf(body, undefined);
  if (seat !== 'VIEWER' && seat !== 'CONTRIBUTOR') throw apiError(1031, seat, 'seatType');
  const user = await memberOr404(store.db, actor, userId);
  if (!user.licensed_sheet_creator && !user.admin) return planOf(actor, user);
  if (user.admin) throw apiError(1031, seat, 'seatType');
  return planOf(actor, await updateUser(store, actor, userId, { licensedSheetCreator: false }));
}

/**
 * Remove User from Plan: a sheetd user is on the organization's one plan for as long as they are
 * in the organization, so there is no plan to leave (403/1013); Remove User (DELETE
 * /users/{id}) takes a user out of the organization.
 */
export async function removeUserFromPlan(db: Queryable, actor: Actor, userId: number, planId: number): Promise<never> {
  requireSystemAdmin(actor);
  await memberOr404(db, actor, userId);
  checkPlan(actor, planId);
  throw apiError(1013);
}
