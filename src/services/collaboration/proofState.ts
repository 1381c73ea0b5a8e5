import { apiError } from '../../errors.ts';
import { chunks, type Queryable } from '../../store/db.ts';
import { findProof, listCurrentProofs, proofFileCounts, type ProofRow } from '../../store/proofs.ts';

/**
 * The state rules of a proof that other families meet: an attachment, discussion or comment
 * that hangs off a proof may only change while that proof version is current and not complete.
 * Kept apart from services/collaboration/proofs.ts so attachments, discussions and comments can ask without
 * an import cycle.
 */

/** A version of a live proof of the sheet: 1006 when there is none, 1294 when it was deleted. */
export async function liveProof(db: Queryable, sheetId: number, proofId: number): Promise<ProofRow> {
  const p = await findProof(db, sheetId, proofId);
  if (!p) throw apiError(1006);
  if (p.deleted_at !== null) throw apiError(1294);
  return p;
}

/** `code` unless the version is the current one and the proof is not complete. */
export function requireOpenCurrent(p: ProofRow, code: number): void {
  if (p.current !== 1 || p.is_completed === 1) throw apiError(code);
}

export async function isEmptyProof(db: Queryable, p: ProofRow): Promise<boolean> {
  return !(await proofFileCounts(db, p.sheet_id, [p.id])).has(p.id);
}

/** A discussion or comment on a proof (1316 unless the proof version is current and open). */
export async function checkProofThread(db: Queryable, parent: { sheet_id: number; parent_type: string; parent_id: number }): Promise<void> {
  if (parent.parent_type !== 'PROOF') return;
  requireOpenCurrent(await liveProof(db, parent.sheet_id, parent.parent_id), 1316);
}

/**
 * 1286 when rows about to move to another sheet have proofs: a proof's versions, files, reviews
 * and requests stay with its sheet, and the move would delete them with the source rows.
 */
export async function refuseMovingProofs(db: Queryable, sheetId: number, rowIds: number[]): Promise<void> {
  for (const part of chunks(rowIds)) {
    if ((await listCurrentProofs(db, sheetId, part)).length > 0) throw apiError(1286, 'rows with proofs stay in their sheet; delete the proofs first');
  }
}
