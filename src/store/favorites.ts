import type { Selectable } from 'kysely';
import type { Queryable } from './db.ts';
import type { FavoriteTable } from './containerSchema.ts';

export type FavoriteRow = Selectable<FavoriteTable>;

export async function listFavorites(db: Queryable, userId: number): Promise<FavoriteRow[]> {
  return db.selectFrom('favorites').selectAll().where('user_id', '=', userId).orderBy('created_at').orderBy('object_type').orderBy('object_id').execute();
}

export async function findFavorite(db: Queryable, userId: number, type: string, objectId: number): Promise<FavoriteRow | undefined> {
  return db.selectFrom('favorites').selectAll().where('user_id', '=', userId).where('object_type', '=', type).where('object_id', '=', objectId).executeTakeFirst();
}

export async function insertFavorite(db: Queryable, row: FavoriteRow): Promise<void> {
  await db.insertInto('favorites').values(row).execute();
}

export async function deleteFavorites(db: Queryable, userId: number, type: string, objectIds: number[]): Promise<number> {
  if (objectIds.length === 0) return 0;
  const r = await db.deleteFrom('favorites').where('user_id', '=', userId).where('object_type', '=', type).where('object_id', 'in', objectIds).executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** Removes every user's favorites of deleted objects. */
export async function deleteFavoritesOf(db: Queryable, type: string, objectIds: number[]): Promise<void> {
  if (objectIds.length === 0) return;
  await db.deleteFrom('favorites').where('object_type', '=', type).where('object_id', 'in', objectIds).execute();
}
