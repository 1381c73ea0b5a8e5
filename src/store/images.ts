import type { Queryable } from './db.ts';

/** Width and height of the given images of a sheet (at most 500 ids per call). */
export async function imageSizes(db: Queryable, sheetId: number, ids: string[]) {
  return db.selectFrom('images').select(['id', 'width', 'height']).where('sheet_id', '=', sheetId).where('id', 'in', ids).execute();
}
