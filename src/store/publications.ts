import type { Selectable } from 'kysely';
import { chunks, type Queryable } from './db.ts';
import type { PublicationTable } from './publishSchema.ts';

export type PublicationRow = Selectable<PublicationTable>;
export type PublishedType = 'sheet' | 'report';

/** The published views of a sheet or report. */
export async function publicationsOf(db: Queryable, type: PublishedType, id: number): Promise<PublicationRow[]> {
  return db.selectFrom('publications').selectAll().where('object_type', '=', type).where('object_id', '=', id).execute();
}

export async function findPublication(db: Queryable, token: string): Promise<PublicationRow | undefined> {
  return db.selectFrom('publications').selectAll().where('token', '=', token).executeTakeFirst();
}

export async function insertPublication(db: Queryable, row: PublicationRow): Promise<void> {
  await db.insertInto('publications').values(row).execute();
}

export async function deletePublication(db: Queryable, type: PublishedType, id: number, kind: string): Promise<void> {
  await db.deleteFrom('publications').where('object_type', '=', type).where('object_id', '=', id).where('kind', '=', kind).execute();
}

/** Everything published of these sheets or reports goes (they are being deleted). */
export async function deletePublicationsOf(db: Queryable, type: PublishedType, ids: number[]): Promise<void> {
  for (const part of chunks(ids)) {
    await db.deleteFrom('publications').where('object_type', '=', type).where('object_id', 'in', part).execute();
    await db.deleteFrom('publish_settings').where('object_type', '=', type).where('object_id', 'in', part).execute();
  }
}

export async function publishSettingsOf(db: Queryable, type: PublishedType, id: number): Promise<string | undefined> {
  const r = await db.selectFrom('publish_settings').select('settings').where('object_type', '=', type).where('object_id', '=', id).executeTakeFirst();
  return r?.settings;
}

export async function savePublishSettings(db: Queryable, type: PublishedType, id: number, settings: string): Promise<void> {
  await db
    .insertInto('publish_settings')
    .values({ object_type: type, object_id: id, settings })
    .onConflict((oc) => oc.columns(['object_type', 'object_id']).doUpdateSet({ settings }))
    .execute();
}

/** PostgreSQL: holds the sheet's or report's row until the transaction ends, so two publish requests take turns. */
export async function lockPublished(db: Queryable, type: PublishedType, id: number): Promise<void> {
  await db.selectFrom(type === 'sheet' ? 'sheets' : 'reports').select('id').where('id', '=', id).forUpdate().execute();
}
