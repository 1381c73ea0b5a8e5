import type { Selectable } from 'kysely';
import type { Queryable } from './db.ts';
import { assetsAt, assetsInFolders, assetsVisibleTo, type AssetPlace } from './assets.ts';
import type { SightImageTable, SightTable } from './sightSchema.ts';

export type SightRow = Selectable<SightTable>;
export type SightImageRow = Selectable<SightImageTable>;

export async function insertSightImage(db: Queryable, row: SightImageRow): Promise<void> {
  await db.insertInto('sight_images').values(row).execute();
}

export async function findSightImage(db: Queryable, sightId: number, id: string): Promise<SightImageRow | undefined> {
  return db.selectFrom('sight_images').selectAll().where('sight_id', '=', sightId).where('id', '=', id).executeTakeFirst();
}

/** The ids of a dashboard's images. */
export async function sightImageIds(db: Queryable, sightId: number): Promise<Set<string>> {
  return new Set((await db.selectFrom('sight_images').select('id').where('sight_id', '=', sightId).execute()).map((r) => r.id));
}

/** A copy of a dashboard gets its images under the same ids (the same blobs). */
export async function copySightImages(db: Queryable, fromSightId: number, toSightId: number): Promise<void> {
  const rows = await db.selectFrom('sight_images').selectAll().where('sight_id', '=', fromSightId).execute();
  for (let i = 0; i < rows.length; i += 500) await db.insertInto('sight_images').values(rows.slice(i, i + 500).map((r) => ({ ...r, sight_id: toSightId }))).execute();
}

export async function findSight(db: Queryable, id: number): Promise<SightRow | undefined> {
  return db.selectFrom('sights').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findSightByToken(db: Queryable, token: string): Promise<SightRow | undefined> {
  return db.selectFrom('sights').selectAll().where('publish_token', '=', token).executeTakeFirst();
}

export async function insertSight(db: Queryable, row: SightRow): Promise<void> {
  await db.insertInto('sights').values(row).execute();
}

export async function updateSight(db: Queryable, id: number, set: Partial<Omit<SightRow, 'id'>>): Promise<void> {
  await db.updateTable('sights').set(set).where('id', '=', id).execute();
}

export async function deleteSights(db: Queryable, ids: number[]): Promise<void> {
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    await db.deleteFrom('shares').where('object_type', '=', 'sight').where('object_id', 'in', chunk).execute();
    await db.deleteFrom('favorites').where('object_type', '=', 'sight').where('object_id', 'in', chunk).execute();
    await db.deleteFrom('sight_images').where('sight_id', 'in', chunk).execute();
    await db.deleteFrom('sights').where('id', 'in', chunk).execute();
  }
}



/** Dashboards anywhere in a workspace. */
export async function sightsInWorkspace(db: Queryable, workspaceId: number): Promise<SightRow[]> {
  return db.selectFrom('sights').selectAll().where('workspace_id', '=', workspaceId).execute();
}


/** The dashboards of folders follow them into a workspace (or out of one). */
export async function moveSightsOfFolders(db: Queryable, folderIds: number[], workspaceId: number | null): Promise<void> {
  await db.updateTable('sights').set({ workspace_id: workspaceId }).where('folder_id', 'in', folderIds).execute();
}

/** A dashboard gets a new owner and, as a sheet does, leaves the old owner's home folders unless it is in a workspace. */
export async function transferSight(db: Queryable, sightId: number, ownerId: number, now: number): Promise<void> {
  const s = await db.selectFrom('sights').select(['folder_id', 'workspace_id']).where('id', '=', sightId).executeTakeFirstOrThrow();
  await db.updateTable('sights').set({ owner_id: ownerId, folder_id: s.workspace_id === null ? null : s.folder_id, modified_at: now }).where('id', '=', sightId).execute();
}

/** Dashboards directly in a folder, at the top of a home (its owner's) or of a workspace (store/assets.ts). */
export const sightsAt = (db: Queryable, where: AssetPlace) => assetsAt(db, 'sights', where) as Promise<SightRow[]>;
export const sightsInFolders = (db: Queryable, folderIds: number[]) => assetsInFolders(db, 'sights', folderIds) as Promise<SightRow[]>;
export const sightsVisibleTo = (db: Queryable, orgId: number, userId: number, sharedIds: number[], workspaceIds: number[]) =>
  assetsVisibleTo(db, 'sights', orgId, userId, sharedIds, workspaceIds) as Promise<SightRow[]>;
