import type { Selectable } from 'kysely';
import { chunks, type Queryable } from './db.ts';
import { assetRows } from './assets.ts';
import type { SightImageTable, SightTable } from './sightSchema.ts';

export type SightRow = Selectable<SightTable>;
export type SightImageRow = Selectable<SightImageTable>;

// what dashboards share with reports (store/assets.ts)
const sights = assetRows<SightRow>('sights');
export const findSight = sights.find;
export const insertSight = sights.insert;
export const updateSight = sights.update;
export const sightsInWorkspace = sights.inWorkspace;
export const moveSightsOfFolders = sights.moveOfFolders;
export const transferSight = sights.transfer;
/** Dashboards directly in a folder, at the top of a home (its owner's) or of a workspace. */
export const sightsAt = sights.at;
export const sightsInFolders = sights.inFolders;
export const sightsVisibleTo = sights.visibleTo;

/** Deletes dashboards with their shares, favorites and images. */
export function deleteSights(db: Queryable, ids: number[]): Promise<void> {
  return sights.delete(db, ids, async (chunk) => {
    await db.deleteFrom('sight_images').where('sight_id', 'in', chunk).execute();
  });
}

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
  for (const part of chunks(rows)) await db.insertInto('sight_images').values(part.map((r) => ({ ...r, sight_id: toSightId }))).execute();
}

export async function findSightByToken(db: Queryable, token: string): Promise<SightRow | undefined> {
  return db.selectFrom('sights').selectAll().where('publish_token', '=', token).executeTakeFirst();
}
