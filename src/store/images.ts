import { sql, type Insertable } from 'kysely';
import { chunks, type Queryable } from './db.ts';
import type { ImageTable, ImageUrlTable } from './schema.ts';

/** Width and height of the given images of a sheet (at most 500 ids per call). */
export async function imageSizes(db: Queryable, sheetId: number, ids: string[]) {
  return db.selectFrom('images').select(['id', 'width', 'height']).where('sheet_id', '=', sheetId).where('id', 'in', ids).execute();
}

/** A stored image's row (its bytes are on the blob store under blob_key). */
export async function insertImage(db: Queryable, row: Insertable<ImageTable>): Promise<void> {
  await db.insertInto('images').values(row).execute();
}

/** The sheets holding each of the given image ids (an image copied with its sheet is in several). */
export async function sheetsOfImages(db: Queryable, ids: readonly string[]): Promise<Map<string, number[]>> {
  const sheetsOf = new Map<string, number[]>();
  for (const part of chunks(ids)) {
    const found = await db.selectFrom('images').select(['id', 'sheet_id']).where('id', 'in', part).execute();
    for (const f of found) sheetsOf.set(f.id, [...(sheetsOf.get(f.id) ?? []), f.sheet_id]);
  }
  return sheetsOf;
}

/** Profile images by their image ids: their user's organization and their bytes' blob. */
export async function profileImagesByIds(db: Queryable, ids: readonly string[]): Promise<Map<string, { orgId: number; blobKey: string; mimeType: string }>> {
  const out = new Map<string, { orgId: number; blobKey: string; mimeType: string }>();
  for (const part of chunks(ids)) {
    const found = await db.selectFrom('profile_images as p').innerJoin('users as u', 'u.id', 'p.user_id')
      .select(['p.image_id', 'u.org_id', 'p.blob_key', 'p.mime_type']).where('p.image_id', 'in', part).execute();
    for (const f of found) out.set(f.image_id, { orgId: Number(f.org_id), blobKey: f.blob_key, mimeType: f.mime_type });
  }
  return out;
}

/** Stores new image URL tokens, forgetting the expired ones (no use to anyone) as it goes. */
export async function insertImageUrls(db: Queryable, tokens: readonly ImageUrlTable[], now: number): Promise<void> {
  await db.deleteFrom('image_urls').where('expires_at', '<=', now).execute();
  for (const part of chunks(tokens)) await db.insertInto('image_urls').values(part).execute();
}

/** The image a URL token serves while it has not expired. */
export async function imageOfUrlToken(db: Queryable, token: string, now: number) {
  return db
    .selectFrom('image_urls as u')
    .innerJoin('images as i', (j) => j.onRef('i.id', '=', 'u.image_id').onRef('i.sheet_id', '=', 'u.sheet_id'))
    .select(['i.blob_key', 'i.mime_type', 'i.file_name', 'u.expires_at'])
    .where('u.token', '=', token)
    .where('u.expires_at', '>', now)
    .executeTakeFirst();
}

/** Copies the given images of one sheet to another under the same ids (those already there stay). */
export async function copyImagesToSheet(db: Queryable, fromSheetId: number, toSheetId: number, ids: readonly string[]): Promise<void> {
  if (!Number.isSafeInteger(toSheetId)) throw new Error('sheet ids are safe integers');
  for (const part of chunks(ids)) {
    await db
      .insertInto('images')
      .columns(['id', 'sheet_id', 'blob_key', 'size', 'mime_type', 'width', 'height', 'file_name', 'created_at', 'created_by'])
      .expression(
        db.selectFrom('images')
          .select(['id', sql<number>`${sql.lit(toSheetId)}`.as('sheet_id'), 'blob_key', 'size', 'mime_type', 'width', 'height', 'file_name', 'created_at', 'created_by'])
          .where('sheet_id', '=', fromSheetId)
          .where('id', 'in', part),
      )
      .onConflict((oc) => oc.columns(['sheet_id', 'id']).doNothing())
      .execute();
  }
}

/** Images whose bytes are still in the database (stored before migration 0010). */
export async function imagesWithBytes(db: Queryable): Promise<Array<{ sheet_id: number; id: string }>> {
  return db.selectFrom('images').select(['sheet_id', 'id']).where('bytes', 'is not', null).execute();
}

/** The bytes of one image still in the database, if they are. */
export async function imageBytes(db: Queryable, sheetId: number, id: string) {
  return db.selectFrom('images').select(['bytes', 'mime_type']).where('sheet_id', '=', sheetId).where('id', '=', id).where('bytes', 'is not', null).executeTakeFirst();
}

/**
 * Points the rows of an image that still hold exactly these bytes at a blob and drops the bytes;
 * the number of rows moved (0: another process moved them first).
 */
export async function moveImageBytesToBlob(db: Queryable, id: string, bytes: Buffer, blobKey: string): Promise<number> {
  const done = await db.updateTable('images')
    .set({ blob_key: blobKey, size: bytes.length, bytes: null })
    .where('id', '=', id)
    .where('bytes', '=', bytes)
    .executeTakeFirst();
  return Number(done.numUpdatedRows);
}

/**
 * Removes images of a sheet; answers the blob keys no image row (of any sheet: copies share
 * blobs) refers to any more, for deletion by a job.
 */
export async function deleteImagesReleasingBlobs(db: Queryable, sheetId: number, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db.selectFrom('images').select(['id', 'blob_key']).where('sheet_id', '=', sheetId).where('id', 'in', ids).execute();
  await db.deleteFrom('images').where('sheet_id', '=', sheetId).where('id', 'in', ids).execute();
  const keys = rows.map((r) => r.blob_key).filter((k): k is string => k !== null);
  if (keys.length === 0) return [];
  const shared = new Set((await db.selectFrom('images').select('blob_key').where('blob_key', 'in', keys).execute()).map((s) => s.blob_key));
  return keys.filter((k) => !shared.has(k));
}

/** The blobs of the cell and summary-field images of sheets (for their removal with the sheets). */
export async function imageBlobKeysOfSheets(db: Queryable, sheetIds: number[]): Promise<string[]> {
  if (sheetIds.length === 0) return [];
  const rows = await db.selectFrom('images').select('blob_key').where('sheet_id', 'in', sheetIds).where('blob_key', 'is not', null).execute();
  return [...new Set(rows.map((r) => r.blob_key!))];
}
