import type { Selectable } from 'kysely';
import type { Queryable } from './db.ts';
import type { ProofRequestActionTable, ProofRequestTable, ProofTable } from './proofSchema.ts';

export type ProofRow = Selectable<ProofTable>;
export type ProofRequestRow = Selectable<ProofRequestTable>;
export type ProofRequestActionRow = Selectable<ProofRequestActionTable>;

export async function insertProof(db: Queryable, row: ProofRow): Promise<void> {
  await db.insertInto('proofs').values(row).execute();
}

/** A version of a proof of the sheet (deleted ones included: the caller tells them apart). */
export async function findProof(db: Queryable, sheetId: number, id: number): Promise<ProofRow | undefined> {
  return db.selectFrom('proofs').selectAll().where('sheet_id', '=', sheetId).where('id', '=', id).executeTakeFirst();
}

/** The current versions of the sheet's live proofs, or of some rows' (oldest first). */
export async function listCurrentProofs(db: Queryable, sheetId: number, rowIds?: number[]): Promise<ProofRow[]> {
  let q = db.selectFrom('proofs').selectAll().where('sheet_id', '=', sheetId).where('current', '=', 1).where('deleted_at', 'is', null);
  if (rowIds !== undefined) {
    if (rowIds.length === 0) return [];
    q = q.where('row_id', 'in', rowIds);
  }
  return q.orderBy('created_at').orderBy('id').execute();
}

/** Every version of a proof, newest first. */
export async function listProofVersions(db: Queryable, sheetId: number, originalId: number): Promise<ProofRow[]> {
  return db.selectFrom('proofs').selectAll().where('sheet_id', '=', sheetId).where('original_id', '=', originalId).orderBy('version', 'desc').execute();
}

export async function setCurrentVersion(db: Queryable, originalId: number, id: number | null): Promise<void> {
  await db.updateTable('proofs').set({ current: 0 }).where('original_id', '=', originalId).execute();
  if (id !== null) await db.updateTable('proofs').set({ current: 1 }).where('id', '=', id).execute();
}

export async function setProofCompleted(db: Queryable, originalId: number, completed: boolean, now: number, by: number): Promise<void> {
  await db.updateTable('proofs').set({ is_completed: completed ? 1 : 0, modified_at: now, modified_by: by }).where('original_id', '=', originalId).execute();
}

export async function touchProof(db: Queryable, id: number, now: number, by: number): Promise<void> {
  await db.updateTable('proofs').set({ modified_at: now, modified_by: by }).where('id', '=', id).execute();
}

export async function markProofDeleted(db: Queryable, originalId: number, now: number): Promise<void> {
  await db.updateTable('proofs').set({ deleted_at: now, current: 0 }).where('original_id', '=', originalId).execute();
}

export async function deleteProofVersionRow(db: Queryable, id: number): Promise<void> {
  await db.deleteFrom('proofs').where('id', '=', id).execute();
}

/** How many files each proof version has (versions with none are left out). */
export async function proofFileCounts(db: Queryable, sheetId: number, proofIds: number[]): Promise<Map<number, number>> {
  if (proofIds.length === 0) return new Map();
  const rows = await db.selectFrom('attachments').select(['parent_id', db.fn.countAll<number>().as('n')])
    .where('sheet_id', '=', sheetId).where('parent_type', '=', 'PROOF').where('current', '=', 1).where('parent_id', 'in', proofIds)
    .groupBy('parent_id').execute();
  return new Map(rows.map((r) => [Number(r.parent_id), Number(r.n)]));
}

export async function insertProofRequest(db: Queryable, row: ProofRequestRow, emails: string[]): Promise<void> {
  await db.insertInto('proof_requests').values(row).execute();
  if (emails.length > 0) {
    await db.insertInto('proof_request_actions').values(emails.map((email) => ({ request_id: row.id, email, action_status: 'PENDING', acted_at: null }))).execute();
  }
}

export async function findProofRequest(db: Queryable, id: number): Promise<ProofRequestRow | undefined> {
  return db.selectFrom('proof_requests').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findProofRequestAction(db: Queryable, requestId: number, email: string): Promise<ProofRequestActionRow | undefined> {
  return db.selectFrom('proof_request_actions').selectAll().where('request_id', '=', requestId).where('email', '=', email).executeTakeFirst();
}

/** A reviewer's decision on a request. */
export async function setProofRequestAction(db: Queryable, requestId: number, email: string, status: string, now: number): Promise<void> {
  await db.updateTable('proof_request_actions').set({ action_status: status, acted_at: now }).where('request_id', '=', requestId).where('email', '=', email).execute();
}

export async function listProofRequests(db: Queryable, proofId: number): Promise<ProofRequestRow[]> {
  return db.selectFrom('proof_requests').selectAll().where('proof_id', '=', proofId).orderBy('sent_at').orderBy('id').execute();
}

export async function deleteProofRequests(db: Queryable, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  await db.deleteFrom('proof_request_actions').where('request_id', 'in', ids).execute();
  await db.deleteFrom('proof_requests').where('id', 'in', ids).execute();
}

export async function setProofRequestStatus(db: Queryable, proofId: number, status: string): Promise<void> {
  await db.updateTable('proof_requests').set({ status }).where('proof_id', '=', proofId).execute();
}

/** The reviewers' actions on a proof's requests, in the order the requests were sent. */
export async function listProofRequestActions(db: Queryable, proofId: number): Promise<Array<ProofRequestActionRow & { sent_at: number }>> {
  return db.selectFrom('proof_request_actions as a').innerJoin('proof_requests as r', 'r.id', 'a.request_id')
    .select(['a.request_id', 'a.email', 'a.action_status', 'a.acted_at', 'r.sent_at'])
    .where('r.proof_id', '=', proofId).orderBy('r.sent_at').orderBy('a.request_id').orderBy('a.email').execute();
}

/** A sheet's proofing switches (both on when the sheet has never set them). */
export async function proofSettingsOf(db: Queryable, sheetId: number): Promise<{ enabled: boolean; multiImage: boolean }> {
  const row = await db.selectFrom('proof_settings').selectAll().where('sheet_id', '=', sheetId).executeTakeFirst();
  return { enabled: row ? row.enabled === 1 : true, multiImage: row ? row.multi_image === 1 : true };
}

export async function saveProofSettings(db: Queryable, sheetId: number, s: { enabled: boolean; multiImage: boolean }): Promise<void> {
  const values = { sheet_id: sheetId, enabled: s.enabled ? 1 : 0, multi_image: s.multiImage ? 1 : 0 };
  await db.insertInto('proof_settings').values(values)
    .onConflict((oc) => oc.column('sheet_id').doUpdateSet({ enabled: values.enabled, multi_image: values.multi_image })).execute();
}
