import type { Selectable } from 'kysely';
import { chunks, type Queryable } from './db.ts';
import type { SummaryFieldTable } from './summarySchema.ts';

export type SummaryFieldRecord = Selectable<SummaryFieldTable>;

/** A sheet's summary fields in index order. */
export async function listSummaryFields(db: Queryable, sheetId: number): Promise<SummaryFieldRecord[]> {
  return db.selectFrom('summary_fields').selectAll().where('sheet_id', '=', sheetId).orderBy('idx').orderBy('id').execute();
}

export async function insertSummaryFields(db: Queryable, records: SummaryFieldRecord[]): Promise<void> {
  for (let i = 0; i < records.length; i += 200) await db.insertInto('summary_fields').values(records.slice(i, i + 200)).execute();
}

export async function updateSummaryField(db: Queryable, r: SummaryFieldRecord): Promise<void> {
  const { id, sheet_id: _s, created_at: _c, created_by: _cb, ...set } = r;
  await db.updateTable('summary_fields').set(set).where('id', '=', id).execute();
}

export async function deleteSummaryFields(db: Queryable, sheetId: number, ids: number[]): Promise<void> {
  for (const part of chunks(ids)) await db.deleteFrom('summary_fields').where('sheet_id', '=', sheetId).where('id', 'in', part).execute();
}

/** Only the positions changed (a field inserted, moved or deleted before others). */
export async function setSummaryFieldIndex(db: Queryable, id: number, idx: number): Promise<void> {
  await db.updateTable('summary_fields').set({ idx }).where('id', '=', id).execute();
}
