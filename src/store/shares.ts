import { sql, type Selectable } from 'kysely';
import type { Queryable } from './db.ts';
import type { ShareTable } from './containerSchema.ts';

export type ShareRow = Selectable<ShareTable>;
export type ShareObjectType = 'sheet' | 'workspace' | 'report' | 'sight';

/** Who a grant may name: a user (by id or by address) or one of the user's groups. */
export interface Grantee {
  userId: number;
  email: string;
  groupIds: number[];
}

export async function listShares(db: Queryable, objectType: ShareObjectType, objectId: number): Promise<ShareRow[]> {
  return db.selectFrom('shares').selectAll().where('object_type', '=', objectType).where('object_id', '=', objectId).orderBy('created_at').orderBy('id').execute();
}

export async function findShare(db: Queryable, objectType: ShareObjectType, objectId: number, id: string): Promise<ShareRow | undefined> {
  return db.selectFrom('shares').selectAll().where('object_type', '=', objectType).where('object_id', '=', objectId).where('id', '=', id).executeTakeFirst();
}

export async function insertShares(db: Queryable, rows: ShareRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.insertInto('shares').values(rows).execute();
}

export async function deleteSharesOf(db: Queryable, objectType: ShareObjectType, objectIds: number[]): Promise<void> {
  if (objectIds.length === 0) return;
  await db.deleteFrom('shares').where('object_type', '=', objectType).where('object_id', 'in', objectIds).execute();
}

/** The grants naming this grantee on objects of a type (all objects, or the ones listed). */
export async function grantsFor(db: Queryable, g: Grantee, objectType: ShareObjectType, objectIds?: number[]): Promise<Array<{ object_id: number; access_level: string }>> {
  if (objectIds !== undefined && objectIds.length === 0) return [];
  // Of all objects: found through the grantee's indexes (user, address, groups). The type is
  // compared as an expression so SQLite (no statistics) does not read every share of the type
  // through the (object_type, object_id) index instead.
  const type = objectIds === undefined ? sql<string>`${sql.ref('object_type')} || ''` : sql.ref<string>('object_type');
  let q = db
    .selectFrom('shares')
    .select(['object_id', 'access_level'])
    .where(type, '=', objectType)
    .where((eb) => {
      const ors = [eb('user_id', '=', g.userId), eb('email', '=', g.email)];
      if (g.groupIds.length > 0) ors.push(eb('group_id', 'in', g.groupIds));
      return eb.or(ors);
    });
  if (objectIds !== undefined) q = q.where('object_id', 'in', objectIds);
  return q.execute();
}

export async function updateShareLevel(db: Queryable, id: string, level: string, now: number): Promise<void> {
  await db.updateTable('shares').set({ access_level: level, modified_at: now }).where('id', '=', id).execute();
}

/** Drops every share made to a group (its deletion); returns the shares dropped. */
export async function deleteGroupShares(db: Queryable, groupId: number): Promise<ShareRow[]> {
  return db.deleteFrom('shares').where('group_id', '=', groupId).returningAll().execute();
}

export async function deleteShareRow(db: Queryable, id: string): Promise<void> {
  await db.deleteFrom('shares').where('id', '=', id).execute();
}
