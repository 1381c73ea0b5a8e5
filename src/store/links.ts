import type { Selectable } from 'kysely';
import type { Queryable } from './db.ts';
import type { CellLinkTable, CrossSheetRefTable } from './linkTables.ts';

export type CrossSheetRefRow = Selectable<CrossSheetRefTable>;

// ---- Cross-sheet references --------------------------------------------------------------

export async function listCrossSheetRefs(db: Queryable, sheetId: number): Promise<CrossSheetRefRow[]> {
  return db.selectFrom('cross_sheet_refs').selectAll().where('sheet_id', '=', sheetId).orderBy('created_at').orderBy('id').execute();
}

export async function findCrossSheetRef(db: Queryable, sheetId: number, refId: number): Promise<CrossSheetRefRow | undefined> {
  return db.selectFrom('cross_sheet_refs').selectAll().where('sheet_id', '=', sheetId).where('id', '=', refId).executeTakeFirst();
}

export async function insertCrossSheetRef(db: Queryable, ref: CrossSheetRefRow): Promise<void> {
  await db.insertInto('cross_sheet_refs').values(ref).execute();
}

/** The sheets whose references read from `sheetId`. */
export async function sheetsReferencing(db: Queryable, sheetId: number): Promise<number[]> {
  const rows = await db.selectFrom('cross_sheet_refs').select('sheet_id').distinct().where('source_sheet_id', '=', sheetId).execute();
  return rows.map((r) => r.sheet_id);
}

// ---- Cell links --------------------------------------------------------------------------

export type CellLinkRecord = CellLinkTable;

/** Forgets the links into the given rows of a sheet (at most 500 ids per call). */
export async function deleteCellLinksOfRows(db: Queryable, sheetId: number, rowIds: number[]): Promise<void> {
  await db.deleteFrom('cell_links').where('target_sheet_id', '=', sheetId).where('target_row_id', 'in', rowIds).execute();
}

/** Forgets the links into columns of a sheet that are not among `columnIds`. */
export async function deleteCellLinksOutside(db: Queryable, sheetId: number, columnIds: number[]): Promise<void> {
  await db.deleteFrom('cell_links').where('target_sheet_id', '=', sheetId).where('target_column_id', 'not in', columnIds).execute();
}

/** At most 200 records per call. */
export async function insertCellLinks(db: Queryable, recs: CellLinkRecord[]): Promise<void> {
  await db.insertInto('cell_links').values(recs).execute();
}

/** The sheets holding cells that link from `sheetId`. */
export async function linkTargetSheets(db: Queryable, sheetId: number): Promise<number[]> {
  const rows = await db.selectFrom('cell_links').select('target_sheet_id').distinct().where('source_sheet_id', '=', sheetId).execute();
  return rows.map((r) => r.target_sheet_id);
}

/** The links from cells of a sheet, with the name of the sheet each lands in. */
export async function linksFromSheet(db: Queryable, sheetId: number) {
  return db
    .selectFrom('cell_links')
    .innerJoin('sheets', 'sheets.id', 'cell_links.target_sheet_id')
    .select(['cell_links.target_sheet_id', 'cell_links.target_row_id', 'cell_links.target_column_id', 'cell_links.source_row_id', 'cell_links.source_column_id', 'sheets.name'])
    .where('cell_links.source_sheet_id', '=', sheetId)
    .execute();
}

/** Links into and references of deleted sheets go with them (at most 500 ids per call). */
export async function deleteLinksOfSheets(db: Queryable, sheetIds: number[]): Promise<void> {
  await db.deleteFrom('cell_links').where('target_sheet_id', 'in', sheetIds).execute();
  await db.deleteFrom('cross_sheet_refs').where('sheet_id', 'in', sheetIds).execute();
}
