import type { Queryable } from './db.ts';
import type { PasswordLinkTable } from './oauthSchema.ts';

export type PasswordLinkRow = PasswordLinkTable;

export async function insertPasswordLink(db: Queryable, row: PasswordLinkRow): Promise<void> {
  await db.insertInto('password_links').values(row).execute();
}

export async function findPasswordLink(db: Queryable, idHash: string): Promise<PasswordLinkRow | undefined> {
  return db.selectFrom('password_links').selectAll().where('id_hash', '=', idHash).executeTakeFirst();
}

/**
 * Marks an unused link used; false when it was used already (by a request that got there
 * first: the update's condition decides, so a link works once however many submit it at once).
 */
export async function markPasswordLinkUsed(db: Queryable, idHash: string, at: number): Promise<boolean> {
  const r = await db.updateTable('password_links').set({ used_at: at }).where('id_hash', '=', idHash).where('used_at', 'is', null).executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** A user's links that were not used, and expired links of anyone: a new link replaces the user's earlier ones. */
export async function deleteStalePasswordLinks(db: Queryable, userId: number, now: number): Promise<void> {
  await db.deleteFrom('password_links').where((eb) => eb.or([
    eb.and([eb('user_id', '=', userId), eb('used_at', 'is', null)]),
    eb('expires_at', '<=', now),
  ])).execute();
}
