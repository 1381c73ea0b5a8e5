import type { Insertable, Updateable } from 'kysely';
import { keptRead, selectShaped, stampedRead, type NOT_KEPT, type Queryable } from './db.ts';
import type { UserTable } from './schema.ts';

export async function findUserByEmail(db: Queryable, email: string) {
  return db.selectFrom('users').selectAll().where('email', '=', email.toLowerCase()).executeTakeFirst();
}

/** The names of an organization's users by their addresses (lower-case), for at most a few hundred addresses at once. */
export async function findOrgUserNames(db: Queryable, orgId: number, emails: string[]) {
  if (emails.length === 0) return [];
  return db.selectFrom('users').select(['email', 'first_name', 'last_name']).where('org_id', '=', orgId).where('email', 'in', emails).execute();
}

export async function findUserById(db: Queryable, id: number) {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertUser(db: Queryable, row: Insertable<UserTable>): Promise<void> {
  await db.insertInto('users').values(row).execute();
}

export async function findOrgById(db: Queryable, id: number) {
  return db.selectFrom('orgs').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertOrg(db: Queryable, org: { id: number; name: string; plan: string; created_at: number }): Promise<void> {
  await db.insertInto('orgs').values(org).execute();
}

export async function firstOrg(db: Queryable) {
  return db.selectFrom('orgs').selectAll().orderBy('created_at').limit(1).executeTakeFirst();
}

export async function countOrgUsers(db: Queryable, orgId: number, emails?: string[]): Promise<number> {
  let q = db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).where('org_id', '=', orgId);
  if (emails && emails.length > 0) q = q.where('email', 'in', emails);
  const r = await q.executeTakeFirstOrThrow();
  return Number(r.n);
}

export async function listOrgUsers(db: Queryable, orgId: number, opts: { emails?: string[]; offset: number; limit: number | null }) {
  let q = db.selectFrom('users').selectAll().where('org_id', '=', orgId);
  if (opts.emails && opts.emails.length > 0) q = q.where('email', 'in', opts.emails);
  q = q.orderBy('email').orderBy('id');
  if (opts.limit !== null) q = q.limit(opts.limit).offset(opts.offset);
  return q.execute();
}

/** Status of a user who was removed from the organization (never shown: removed users are not listed). */
export const REMOVED = 'REMOVED';

/** Members of the organization: every user but the removed ones. */
export async function findOrgMember(db: Queryable, orgId: number, id: number) {
  return db.selectFrom('users').selectAll().where('id', '=', id).where('org_id', '=', orgId).where('status', '!=', REMOVED).executeTakeFirst();
}

/**
 * The system admin who owns the organization: its earliest system admin still in it (the one
 * bootstrap made, while they remain). Undefined when it has none.
 */
export async function orgOwnerAdmin(db: Queryable, orgId: number): Promise<{ id: number } | undefined> {
  return db.selectFrom('users').select('id').where('org_id', '=', orgId).where('admin', '=', 1).where('status', '=', 'ACTIVE')
    .orderBy('created_at').orderBy('id').limit(1).executeTakeFirst();
}

export async function countOrgMembers(db: Queryable, orgId: number, emails?: string[]): Promise<number> {
  let q = db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).where('org_id', '=', orgId).where('status', '!=', REMOVED);
  if (emails && emails.length > 0) q = q.where('email', 'in', emails);
  const r = await q.executeTakeFirstOrThrow();
  return Number(r.n);
}

export async function listOrgMembers(db: Queryable, orgId: number, opts: { emails?: string[]; offset: number; limit: number | null; modifiedSince?: number }) {
  let q = db.selectFrom('users').selectAll().where('org_id', '=', orgId).where('status', '!=', REMOVED);
  if (opts.emails && opts.emails.length > 0) q = q.where('email', 'in', opts.emails);
  if (opts.modifiedSince !== undefined) q = q.where('modified_at', '>=', opts.modifiedSince);
  q = q.orderBy('email').orderBy('id');
  if (opts.limit !== null) q = q.limit(opts.limit).offset(opts.offset);
  return q.execute();
}

export async function updateUserRow(db: Queryable, id: number, patch: Updateable<UserTable>): Promise<void> {
  await db.updateTable('users').set(patch).where('id', '=', id).execute();
}

/** Sheets owned by each of the given users. */
export async function sheetCounts(db: Queryable, userIds: number[]): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  if (userIds.length === 0) return out;
  const rows = await db
    .selectFrom('sheets')
    .select(['owner_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('owner_id', 'in', userIds)
    .groupBy('owner_id')
    .execute();
  for (const r of rows) out.set(Number(r.owner_id), Number(r.n));
  return out;
}

/** Sheets owned by members of the organization (List Org Sheets). */
export async function listOrgSheets(db: Queryable, orgId: number, opts: { modifiedSince?: number; offset: number; limit: number | null }) {
  let q = db
    .selectFrom('sheets as s')
    .innerJoin('users as u', 'u.id', 's.owner_id')
    .select(['s.id', 's.name', 's.owner_id', 'u.email as owner_email', 's.modified_at'])
    .where('s.org_id', '=', orgId)
    .where('u.status', '!=', REMOVED);
  if (opts.modifiedSince !== undefined) q = q.where('s.modified_at', '>=', opts.modifiedSince);
  q = q.orderBy('s.name').orderBy('s.id');
  if (opts.limit !== null) q = q.limit(opts.limit).offset(opts.offset);
  return q.execute();
}

/** Revokes every live token of a user (removal from the organization). */
export async function revokeUserTokens(db: Queryable, userId: number, at: number): Promise<void> {
  await db.updateTable('api_tokens').set({ revoked_at: at }).where('user_id', '=', userId).where('revoked_at', 'is', null).execute();
}

export async function findUsersByIds(db: Queryable, ids: number[]) {
  if (ids.length === 0) return [];
  return db.selectFrom('users').select(['id', 'email', 'first_name', 'last_name']).where('id', 'in', ids).execute();
}

/** Gives every sheet a user owns to another user; returns how many there were. */
/** A removed user's sheets, reports and dashboards go to another owner; answers how many moved. */
export async function transferOwnedItems(db: Queryable, fromUserId: number, toUserId: number): Promise<number> {
  let n = 0;
  for (const table of ['sheets', 'reports', 'sights'] as const) {
    const r = await db.updateTable(table).set({ owner_id: toUserId }).where('owner_id', '=', fromUserId).executeTakeFirst();
    n += Number(r.numUpdatedRows);
  }
  return n;
}

export async function findProfileImage(db: Queryable, userId: number) {
  // read by every Get Current User: compiled once, kept until the database may have changed
  return stampedRead(db, 'profile image of user', userId, async () => {
    const rows = await selectShaped(db, 'profile image of user', () => db.selectFrom('profile_images').select(['image_id', 'width', 'height', 'blob_key']).where('user_id', '=', userId), [userId]);
    return rows[0];
  });
}

/** findProfileImage's answer when it is kept (SQLite, nothing changed since), else NOT_KEPT. */
export function keptProfileImage(db: Queryable, userId: number): Awaited<ReturnType<typeof findProfileImage>> | typeof NOT_KEPT {
  return keptRead<Awaited<ReturnType<typeof findProfileImage>>>(db, 'profile image of user', userId);
}

export async function deleteProfileImage(db: Queryable, userId: number): Promise<void> {
  await db.deleteFrom('profile_images').where('user_id', '=', userId).execute();
}

export async function insertProfileImage(db: Queryable, row: { user_id: number; image_id: string; blob_key: string; mime_type: string; width: number; height: number; created_at: number }): Promise<void> {
  await db.insertInto('profile_images').values(row).execute();
}
