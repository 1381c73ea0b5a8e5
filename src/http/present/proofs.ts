import type { ProofRequestRow } from '../../store/proofs.ts';
import { proofTypeOf, type ProofView, type RequestAction } from '../../services/collaboration/proofs.ts';
import { ts } from './dates.ts';
import { presentAttachment, type AttachmentView } from './attachments.ts';

/** The Proof object (reference schema Proof); `attachments` and `discussions` when asked for. */
export function presentProof(v: ProofView, view: AttachmentView, extra: { attachments?: boolean; discussions?: unknown[] } = {}) {
  const p = v.proof;
  const out: Record<string, unknown> = {
    id: p.id,
    originalId: p.original_id,
    name: v.name,
    proofType: proofTypeOf(v.files),
    version: p.version,
    lastUpdatedAt: ts(p.modified_at, view.numericDates),
    isCompleted: p.is_completed === 1,
  };
  const by = view.people(p.modified_by);
  if (by) out.lastUpdatedBy = by;
  if (extra.attachments) out.attachments = v.files.map((a) => presentAttachment(a, view));
  if (extra.discussions !== undefined) out.discussions = extra.discussions;
  return out;
}

/** The ProofRequest object. */
export function presentProofRequest(r: ProofRequestRow, view: AttachmentView, sendTo: unknown) {
  const out: Record<string, unknown> = {
    id: r.id,
    proofId: r.proof_id,
    sendTo,
    ccMe: r.cc_me === 1,
    isDownloadable: r.is_downloadable === 1,
    sentAt: ts(r.sent_at, view.numericDates),
    status: r.status,
  };
  if (r.subject !== null) out.subject = r.subject;
  if (r.message !== null) out.message = r.message;
  const by = view.people(r.sent_by);
  if (by) out.sentBy = by;
  return out;
}

/** The ProofRequestAction object. */
export function presentRequestAction(a: RequestAction) {
  return { user: { name: a.name, email: a.email }, actionStatus: a.actionStatus };
}
