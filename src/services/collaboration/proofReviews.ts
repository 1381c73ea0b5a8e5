import type { Readable } from 'node:stream';
import { BlobNotFound, type BlobStore } from '../../blobs/index.ts';
import { clock } from '../../clock.ts';
import { apiError } from '../../errors.ts';
import type { Queryable, Store } from '../../store/db.ts';
import { findAttachment, listAttachments } from '../../store/attachments.ts';
import { enqueue } from '../../store/jobs.ts';
import {
  findProofRequest, findProofRequestAction, listProofVersions, setProofRequestAction,
  type ProofRequestActionRow, type ProofRequestRow, type ProofRow,
} from '../../store/proofs.ts';
import { findSheet, type SheetRow } from '../../store/sheets.ts';
import { findUserByEmail, findUserById } from '../../store/users.ts';
import type { MailPayload } from '../../mail/index.ts';
import { nameOrEmail } from '../platform/context.ts';
import { recordEvents } from '../log/events.ts';
import { proofKind, proofName } from './proofs.ts';
import { isReviewSignature } from './proofReviewLinks.ts';

/**
 * The reviewer's side of a proof request: each reviewer's mail carries a link of their own
 * (signed with the server's key, naming the request and the address), and the link's page
 * shows the proof's current version and takes the reviewer's decision: APPROVED or REJECTED
 * (the actionStatus of List Proof Request Actions). A reviewer may change their mind while the
 * request is ACTIVE and the proof open; the sender is told by mail of each decision.
 */

interface Review {
  request: ProofRequestRow;
  action: ProofRequestActionRow;
  sheet: SheetRow;
  /** the proof's current version (undefined once the proof was deleted) */
  proof: ProofRow | undefined;
}

/** The reviewer's action a token names (1006 when the token is not valid, or its request was deleted). */
async function reviewOf(db: Queryable, token: string): Promise<Review> {
  const m = /^(\d{1,16})\.([A-Za-z0-9_-]{1,700})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!m) throw apiError(1006);
  const requestId = Number(m[1]);
  const email = Buffer.from(m[2]!, 'base64url').toString('utf8');
  if (!(await isReviewSignature(db, requestId, email, m[3]!))) throw apiError(1006);
  const request = await findProofRequest(db, requestId);
  const action = request ? await findProofRequestAction(db, requestId, email) : undefined;
  const sheet = request ? await findSheet(db, request.sheet_id) : undefined;
  if (!request || !action || !sheet) throw apiError(1006);
  const versions = request.status === 'PROOF_DELETED' ? [] : await listProofVersions(db, request.sheet_id, request.proof_id);
  const proof = versions.find((v) => v.current === 1 && v.deleted_at === null);
  return { request, action, sheet, proof };
}

export interface ReviewFile {
  id: number;
  name: string;
  mimeType: string;
  kind: 'IMAGE' | 'DOCUMENT' | 'VIDEO';
}

/** What a reviewer's page shows. */
export interface ProofReviewView {
  sheetName: string;
  /** the proof's name (its row's primary value; the sheet's name when blank) */
  proofName: string;
  version: number | null;
  email: string;
  /** "Name (address)" of whoever sent the request */
  sender: string;
  subject: string | null;
  message: string | null;
  actionStatus: string;
  actedAt: number | null;
  /** ACTIVE, EXPIRED or PROOF_DELETED */
  requestStatus: string;
  completed: boolean;
  /** whether the reviewer may still decide (or change a decision) */
  open: boolean;
  downloadable: boolean;
  files: ReviewFile[];
}

async function viewOf(db: Queryable, r: Review): Promise<ProofReviewView> {
  const sender = r.request.sent_by === null ? undefined : await findUserById(db, r.request.sent_by);
  const files = r.proof ? (await listAttachments(db, r.sheet.id, { type: 'PROOF', ids: [r.proof.id] })).reverse() : [];
  const completed = r.proof?.is_completed === 1;
  const senderName = sender ? nameOrEmail(sender) : '';
  return {
    sheetName: r.sheet.name,
    proofName: r.proof ? (await proofName(db, r.sheet, r.proof)) || r.sheet.name : r.sheet.name,
    version: r.proof?.version ?? null,
    email: r.action.email,
    sender: sender ? (senderName === sender.email ? sender.email : `${senderName} (${sender.email})`) : '',
    subject: r.request.subject,
    message: r.request.message,
    actionStatus: r.action.action_status,
    actedAt: r.action.acted_at,
    requestStatus: r.request.status,
    completed,
    open: r.request.status === 'ACTIVE' && r.proof !== undefined && !completed,
    downloadable: r.request.is_downloadable === 1,
    files: files.map((f) => ({ id: f.id, name: f.name, mimeType: f.mime_type ?? 'application/octet-stream', kind: kindOf(f) })),
  };
}

function kindOf(f: { name: string; mime_type: string | null }): ReviewFile['kind'] {
  try {
    return proofKind(f);
  } catch {
    return 'DOCUMENT';
  }
}

/** GET of a reviewer's link: the proof and the reviewer's decision so far (changes nothing). */
export async function readProofReview(db: Queryable, token: string): Promise<ProofReviewView> {
  return viewOf(db, await reviewOf(db, token));
}

/**
 * POST of a reviewer's link: the reviewer's decision, in one transaction with its PROOF_REQUEST
 * UPDATE event and a mail to the sender. 1018 for a decision other than APPROVED or REJECTED;
 * 1167 when the request is no longer open (deleted proof, completed proof, expired request).
 * The same decision again changes nothing.
 */
export async function decideProofReview(store: Store, token: string, decision: unknown): Promise<ProofReviewView> {
  if (decision !== 'APPROVED' && decision !== 'REJECTED') throw apiError(1018, String(decision), 'decision');
  return store.db.transaction().execute(async (tx) => {
    const r = await reviewOf(tx, token);
    const before = await viewOf(tx, r);
    if (!before.open) throw apiError(1167);
    if (r.action.action_status === decision) return before;
    const now = clock.now();
    await setProofRequestAction(tx, r.request.id, r.action.email, decision, now);
    const reviewer = await findUserByEmail(tx, r.action.email);
    const userId = reviewer && reviewer.org_id === r.sheet.org_id ? reviewer.id : null;
    await recordEvents(tx, { orgId: r.sheet.org_id, userId, requestUserId: userId, accessTokenName: null, source: 'PROOF_REVIEW' }, [{
      objectType: 'PROOF_REQUEST', action: 'UPDATE', objectId: r.request.id, sheetId: r.sheet.id,
      details: { proofId: r.request.proof_id, email: r.action.email, actionStatus: decision },
    }], now);
    const sender = r.request.sent_by === null ? undefined : await findUserById(tx, r.request.sent_by);
    if (sender) {
      const verb = decision === 'APPROVED' ? 'approved' : 'asked for changes to';
      // no link: the reviewer's link is the reviewer's permission, not the sender's
      const text = `${r.action.email} ${verb} the proof "${before.proofName}" (version ${before.version}) in the sheet "${r.sheet.name}".\n`;
      const mail: MailPayload = { to: [sender.email], subject: `${r.action.email} ${verb} "${before.proofName}"`, text, separately: true };
      await enqueue(tx, 'mail', mail);
    }
    return { ...before, actionStatus: decision, actedAt: now };
  });
}

export interface ReviewedFile {
  stream: Readable;
  size: number;
  mimeType: string;
  fileName: string;
}

/**
 * A file of the proof's current version, for the reviewer's page: any of them while the review
 * link works (the proof is there to be looked at); `download` only when the request allows
 * downloads (1004 otherwise). 1006 for a file that is not the current version's.
 */
export async function reviewedFile(db: Queryable, blobs: BlobStore, token: string, attachmentId: number, download: boolean): Promise<ReviewedFile> {
  const r = await reviewOf(db, token);
  if (download && r.request.is_downloadable !== 1) throw apiError(1004);
  const a = r.proof ? await findAttachment(db, r.sheet.id, attachmentId) : undefined;
  if (!a || !r.proof || a.parent_type !== 'PROOF' || a.parent_id !== r.proof.id || a.blob_key === null) throw apiError(1006);
  try {
    const blob = await blobs.get(a.blob_key);
    return { stream: blob.stream, size: blob.size, mimeType: a.mime_type ?? 'application/octet-stream', fileName: a.name };
  } catch (e) {
    if (e instanceof BlobNotFound) throw apiError(1006);
    throw e;
  }
}
