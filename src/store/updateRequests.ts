import type { Selectable } from 'kysely';
import type { Queryable } from './db.ts';
import type { SentUpdateRequestTable, UpdateRequestTable } from './updateRequestSchema.ts';

export type UpdateRequestRow = Selectable<UpdateRequestTable>;
export type SentUpdateRequestRow = Selectable<SentUpdateRequestTable>;

export async function insertUpdateRequest(db: Queryable, row: UpdateRequestRow): Promise<void> {
  await db.insertInto('update_requests').values(row).execute();
}

export async function updateUpdateRequest(db: Queryable, id: number, patch: Partial<Omit<UpdateRequestRow, 'id' | 'sheet_id' | 'org_id'>>): Promise<void> {
  await db.updateTable('update_requests').set(patch).where('id', '=', id).execute();
}

export async function deleteUpdateRequestRow(db: Queryable, id: number): Promise<void> {
  await db.deleteFrom('update_requests').where('id', '=', id).execute();
}

export async function findUpdateRequest(db: Queryable, sheetId: number, id: number): Promise<UpdateRequestRow | undefined> {
  return db.selectFrom('update_requests').selectAll().where('sheet_id', '=', sheetId).where('id', '=', id).executeTakeFirst();
}

export async function findUpdateRequestById(db: Queryable, id: number): Promise<UpdateRequestRow | undefined> {
  return db.selectFrom('update_requests').selectAll().where('id', '=', id).executeTakeFirst();
}

/** A sheet's update requests with a send still to come, oldest first. */
export async function listScheduledUpdateRequests(db: Queryable, sheetId: number): Promise<UpdateRequestRow[]> {
  return db.selectFrom('update_requests').selectAll().where('sheet_id', '=', sheetId).where('next_send_at', 'is not', null)
    .orderBy('created_at').orderBy('id').execute();
}

export async function insertSentUpdateRequests(db: Queryable, rows: SentUpdateRequestRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.insertInto('sent_update_requests').values(rows).execute();
}

export async function findSentUpdateRequest(db: Queryable, sheetId: number, id: number): Promise<SentUpdateRequestRow | undefined> {
  return db.selectFrom('sent_update_requests').selectAll().where('sheet_id', '=', sheetId).where('id', '=', id).executeTakeFirst();
}

export async function findSentUpdateRequestById(db: Queryable, id: number): Promise<SentUpdateRequestRow | undefined> {
  return db.selectFrom('sent_update_requests').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listSentUpdateRequestRows(db: Queryable, sheetId: number): Promise<SentUpdateRequestRow[]> {
  return db.selectFrom('sent_update_requests').selectAll().where('sheet_id', '=', sheetId).orderBy('sent_at').orderBy('id').execute();
}

/** Moves a sent update request from PENDING to `status`; false when it was no longer pending (a concurrent submit or cancel). */
export async function settleSentUpdateRequest(db: Queryable, id: number, status: 'COMPLETE' | 'CANCELED', at: number): Promise<boolean> {
  const r = await db.updateTable('sent_update_requests').set({ status, completed_at: at }).where('id', '=', id).where('status', '=', 'PENDING').executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}
