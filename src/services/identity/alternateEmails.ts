import { lockName, type Queryable, type Store } from '../../store/db.ts';
import {
  deleteAlternateEmail, findAlternateByAddress, findAlternateEmail, insertAlternateEmails, listAlternateEmails,
  updateAlternateEmail, type AlternateEmailRow,
} from '../../store/alternateEmails.ts';
import { findUserByEmail, updateUserRow } from '../../store/users.ts';
import { newId } from '../../ids.ts';
import { apiError, apiErrorWith } from '../../errors.ts';
import { authorOf, recordEvents } from '../log/events.ts';
import { isValidatedDomain } from './domains.ts';
import { isValidEmail, memberOr404, requireSystemAdmin } from '../access/members.ts';
import type { AfterDb } from '../platform/transactions.ts';
import type { Actor, UserRow } from '../platform/context.ts';
import { clock } from '../../clock.ts';

/** Most alternate addresses one user may have (1330). */
export const MAX_ALTERNATE_EMAILS = 10;

/**
 * Holds, until the transaction ends, the right to take addresses (a user's primary or an
 * alternate): on PostgreSQL two requests for the same new address would otherwise both find it
 * free and the second fail on the unique column (a 500, not 1016, 1157 or 1180).
 */
export async function lockAddresses(db: Queryable): Promise<void> {
  await lockName(db, 'sheetd: addresses');
}

/**
 * Refuses an address that is some user's alternate address (1159): Add Group Members, Add User,
 * Share Sheet/Workspace/Report and Create Update Request take primary addresses only.
 * Addresses that belong to nobody pass (they may be invitations).
 */
export async function assertPrimaryEmail(db: Queryable, email: string): Promise<void> {
  const alt = await findAlternateByAddress(db, email.trim().toLowerCase());
  if (alt) throw apiError(1159, email, alt.primary_email);
}

/** Reading a user's alternate addresses: system admins, or the user themselves. */
async function readableUser(db: Queryable, actor: Actor, userId: number): Promise<UserRow> {
  const user = await memberOr404(db, actor, userId);
  if (!actor.user.admin && actor.user.id !== user.id) throw apiError(1004);
  return user;
}

export async function readAlternateEmails(db: Queryable, actor: Actor, userId: number): Promise<AlternateEmailRow[]> {
  const user = await readableUser(db, actor, userId);
  return listAlternateEmails(db, user.id);
}

export async function readAlternateEmail(db: Queryable, actor: Actor, userId: number, id: number): Promise<AlternateEmailRow> {
  const user = await readableUser(db, actor, userId);
  const alt = await findAlternateEmail(db, user.id, id);
  if (!alt) throw apiError(1006);
  return alt;
}

function bulkError(index: number, reason: string): never {
  throw apiErrorWith(1160, { detail: { index, reason } });
}

/**
 * Add Alternate Emails: system admins; a JSON array of {email} (a single object is accepted
 * too). All or nothing. An address in a validated domain is confirmed at once; any other waits
 * unconfirmed, and no address can be added while one waits (1360).
 */
export function addAlternateEmails(store: Store, ...a: AfterDb<typeof addAlternateEmailsIn>) {
  return store.db.transaction().execute((tx) => addAlternateEmailsIn(tx, ...a));
}

async function addAlternateEmailsIn(db: Queryable, actor: Actor, userId: number, body: unknown, now = clock.now()): Promise<AlternateEmailRow[]> {
  requireSystemAdmin(actor);
  const user = await memberOr404(db, actor, userId);
  const items = Array.isArray(body) ? body : [body];
  if (items.length === 0) bulkError(0, 'no addresses given');
  const emails: string[] = [];
  items.forEach((it: unknown, index) => {
    if (typeof it !== 'object' || it === null || Array.isArray(it)) bulkError(index, 'expected an object with email');
    const e = (it as Record<string, unknown>).email;
    if (e === undefined || e === null || e === '') throw apiError(1012, 'email');
    if (!isValidEmail(e)) throw apiError(1156);
    const lower = e.toLowerCase();
    if (emails.includes(lower)) bulkError(index, `${lower} appears more than once`);
    emails.push(lower);
  });
  if (user.status !== 'ACTIVE') throw apiError(1188);
  await lockAddresses(db);
  const existing = await listAlternateEmails(db, user.id);
  for (const [index, email] of emails.entries()) {
    if (email === user.email || existing.some((a) => a.email === email)) bulkError(index, `${email} is already an address of the user`);
    const owner = await findUserByEmail(db, email);
    if (owner) throw apiError(1157);
    if (await findAlternateByAddress(db, email)) throw apiError(1180);
  }
  if (existing.some((a) => !a.confirmed)) throw apiError(1360);
  if (existing.length + emails.length > MAX_ALTERNATE_EMAILS) {
    throw apiError(1330, MAX_ALTERNATE_EMAILS, emails.length === 1 ? emails[0]! : `${emails.length} addresses`);
  }
  const rows: AlternateEmailRow[] = [];
  for (const email of emails) {
    rows.push({ id: newId(), user_id: user.id, email, confirmed: (await isValidatedDomain(db, actor.org.id, email)) ? 1 : 0, created_at: now });
  }
  await insertAlternateEmails(db, rows);
  await recordEvents(db, authorOf(actor), rows.map((r) => ({ objectType: 'USER', action: 'ADD_ALTERNATE_EMAIL', objectId: user.id, details: { alternateEmailId: r.id, email: r.email } })), now);
  return rows;
}

/** Delete Alternate Email: system admins, or the user themselves. */
export function removeAlternateEmail(store: Store, ...a: AfterDb<typeof removeAlternateEmailIn>) {
  return store.db.transaction().execute((tx) => removeAlternateEmailIn(tx, ...a));
}

async function removeAlternateEmailIn(db: Queryable, actor: Actor, userId: number, id: number, now = clock.now()): Promise<void> {
  const user = await readableUser(db, actor, userId);
  const alt = await findAlternateEmail(db, user.id, id);
  if (!alt) throw apiError(1006);
  await deleteAlternateEmail(db, alt.id);
  await recordEvents(db, authorOf(actor), [{ objectType: 'USER', action: 'REMOVE_ALTERNATE_EMAIL', objectId: user.id, details: { alternateEmailId: alt.id, email: alt.email } }], now);
}

/**
 * Make Alternate Email Primary: system admins of enterprise organizations (1189). The primary
 * address's domain must be validated (1186); the alternate must be confirmed or in a validated
 * domain (1158). The two addresses swap: the alternate keeps its id and now holds the former
 * primary address, confirmed.
 */
export function makePrimary(store: Store, ...a: AfterDb<typeof makePrimaryIn>) {
  return store.db.transaction().execute((tx) => makePrimaryIn(tx, ...a));
}

async function makePrimaryIn(db: Queryable, actor: Actor, userId: number, id: number, now = clock.now()): Promise<AlternateEmailRow> {
  requireSystemAdmin(actor);
  const user = await memberOr404(db, actor, userId);
  const alt = await findAlternateEmail(db, user.id, id);
  if (!alt) throw apiError(1006);
  if (actor.org.plan !== 'ENTERPRISE') throw apiError(1189);
  if (user.status !== 'ACTIVE') throw apiError(1188);
  if (!(await isValidatedDomain(db, actor.org.id, user.email))) throw apiError(1186);
  if (!alt.confirmed && !(await isValidatedDomain(db, actor.org.id, alt.email))) throw apiError(1158);
  const oldPrimary = user.email;
  // the unique address columns never hold one address twice, even for a moment
  await updateAlternateEmail(db, alt.id, { email: `swap.${alt.id}@invalid` });
  await updateUserRow(db, user.id, { email: alt.email, modified_at: now });
  await updateAlternateEmail(db, alt.id, { email: oldPrimary, confirmed: 1 });
  await recordEvents(db, authorOf(actor), [{ objectType: 'USER', action: 'UPDATE_PRIMARY_EMAIL', objectId: user.id, details: { oldEmail: oldPrimary, newEmail: alt.email } }], now);
  return { ...alt, email: oldPrimary, confirmed: 1 };
}
