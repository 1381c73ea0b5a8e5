import type { Insertable } from 'kysely';
import type { Queryable } from './db.ts';
import type { ImageTable } from './schema.ts';

/** Width and height of the given images of a sheet (at most 500 ids per call). */
export async function imageSizes(db: Queryable, sheetId: number, ids: string[]) {
  return db.selectFrom('images').select(['id', 'width', 'height']).where('sheet_id', '=', sheetId).where('id', 'in', ids).execute();
}

/** A stored image's row (its bytes are on the blob store under blob_key). */
export async function insertImage(db: Queryable, row: Insertable<ImageTable>): Promise<void> {
  await db.insertInto('images').values(row).execute();
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
