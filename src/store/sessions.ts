import type { Queryable } from './db.ts';

export async function findPasswordHash(db: Queryable, userId: number): Promise<string | undefined> {
  const r = await db.selectFrom('user_passwords').select('password_hash').where('user_id', '=', userId).executeTakeFirst();
  return r?.password_hash;
}

export async function upsertPassword(db: Queryable, userId: number, hash: string, at: number): Promise<void> {
  await db.insertInto('user_passwords').values({ user_id: userId, password_hash: hash, updated_at: at })
    .onConflict((oc) => oc.column('user_id').doUpdateSet({ password_hash: hash, updated_at: at }))
    .execute();
}

export async function insertSession(db: Queryable, row: { id_hash: string; user_id: number; created_at: number; expires_at: number }): Promise<void> {
  await db.insertInto('web_sessions').values(row).execute();
}

/** The live session's user. */
export async function findSessionUser(db: Queryable, idHash: string, now: number) {
  return db.selectFrom('web_sessions as s').innerJoin('users as u', 'u.id', 's.user_id')
    .selectAll('u')
    .where('s.id_hash', '=', idHash).where('s.expires_at', '>', now)
    .executeTakeFirst();
}

export async function deleteSession(db: Queryable, idHash: string): Promise<void> {
  await db.deleteFrom('web_sessions').where('id_hash', '=', idHash).execute();
}

/** Sessions of a user (on a new password all of them end). */
export async function deleteUserSessions(db: Queryable, userId: number): Promise<void> {
  await db.deleteFrom('web_sessions').where('user_id', '=', userId).execute();
}

export async function deleteExpiredSessions(db: Queryable, now: number): Promise<void> {
  await db.deleteFrom('web_sessions').where('expires_at', '<=', now).execute();
}
