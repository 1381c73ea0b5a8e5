import { extname } from 'node:path';
import type { BlobStore } from '../../blobs/index.ts';
import { clock } from '../../clock.ts';
import { cellKey } from '../../engine/cells.ts';
import { asObject, bodyBool, optionalBodyBool } from '../../engine/input.ts';
import { apiError } from '../../errors.ts';
import { newId } from '../../ids.ts';
import { chunks, type Queryable, type Store } from '../../store/db.ts';
import { listAttachments, listDiscussions, type AttachmentRow } from '../../store/attachments.ts';
import {
  deleteProofRequests, deleteProofVersionRow, findProof, insertProof, insertProofRequest, listCurrentProofs, listProofRequestActions,
  listProofRequests, listProofVersions, markProofDeleted, proofSettingsOf, saveProofSettings, setCurrentVersion, setProofCompleted,
  setProofRequestStatus, touchProof,
  type ProofRequestRow, type ProofRow,
} from '../../store/proofs.ts';
import { rowExists, type SheetRow } from '../../store/sheets.ts';
import { findUserByEmail } from '../../store/users.ts';
import { enqueue } from '../../store/jobs.ts';
import type { AccessLevel } from '../access/access.ts';
import { attachIn, removeAttachmentsOf, storeFile, type FileUpload, type StoredFile } from './attachments.ts';
import { nameOrEmail, type Actor } from '../platform/context.ts';
import { createDiscussion, discussionData, removeDiscussions, requireRow, type DiscussionData } from './discussions.ts';
import { addresses, parseEmail, payload, senderName, type EmailInput } from '../outbound/emails.ts';
import { authorOf, recordEvents, type ChangeEvent } from '../log/events.ts';
import { sheetFor } from '../access/permissions.ts';
import { reviewToken } from './proofReviewLinks.ts';
import { isEmptyProof, liveProof, requireOpenCurrent } from './proofState.ts';
import { readModel } from '../sheets/sheetCache.ts';
import { lockSheets, type WriteContext } from '../sheets/sheetWrites.ts';

/**
 * Proofs: a file (or several images) on a row for review, in versions. A proof's files are
 * attachments with parent PROOF (blob store, temporary URLs, blob cleanup as for any
 * attachment); its discussions are discussions with parent PROOF. The rules of codes 1280 to
 * 1327 that a self-hosted server has are kept here and in proofState.ts.
 */

export type ProofKind = 'IMAGE' | 'DOCUMENT' | 'VIDEO';

/** The files a proof takes, by type, and the extensions each may carry (1281 otherwise). */
const KINDS: Record<string, { kind: ProofKind; ext: string[] }> = {
  'image/jpeg': { kind: 'IMAGE', ext: ['.jpg', '.jpeg'] },
  'image/png': { kind: 'IMAGE', ext: ['.png'] },
  'image/gif': { kind: 'IMAGE', ext: ['.gif'] },
  'image/bmp': { kind: 'IMAGE', ext: ['.bmp'] },
  'application/pdf': { kind: 'DOCUMENT', ext: ['.pdf'] },
  'video/mp4': { kind: 'VIDEO', ext: ['.mp4', '.m4v'] },
  'video/x-m4v': { kind: 'VIDEO', ext: ['.m4v', '.mp4'] },
  'video/quicktime': { kind: 'VIDEO', ext: ['.mov'] },
  'video/webm': { kind: 'VIDEO', ext: ['.webm'] },
};

/** What a proof file is: its type (recognised from its bytes) and its name's extension must agree with a proofable kind. */
export function proofKind(f: { name: string; mime_type?: string | null; mimeType?: string }): ProofKind {
  const mime = (f.mimeType ?? f.mime_type ?? '').toLowerCase();
  const k = KINDS[mime];
  if (!k || !k.ext.includes(extname(f.name).toLowerCase())) throw apiError(1281);
  return k.kind;
}

/** Several files make a proof only when every one is an image (1307) and the sheet allows several (1308). */
async function checkFileSet(db: Queryable, sheetId: number, kinds: ProofKind[]): Promise<void> {
  if (kinds.length <= 1) return;
  if (kinds.some((k) => k !== 'IMAGE')) throw apiError(1307);
  if (!(await proofSettingsOf(db, sheetId)).multiImage) throw apiError(1308);
}

/** 1279 when the sheet's proofing is switched off (no new proofs, versions, files or requests). */
async function requireProofing(db: Queryable, sheetId: number): Promise<void> {
  if (!(await proofSettingsOf(db, sheetId)).enabled) throw apiError(1279, 'proofing is switched off for this sheet');
}

export function proofTypeOf(files: AttachmentRow[]): string {
  const kinds = new Set(files.map((f) => KINDS[(f.mime_type ?? '').toLowerCase()]?.kind ?? 'DOCUMENT'));
  if (kinds.size === 0) return 'NONE';
  return kinds.size === 1 ? [...kinds][0]! : 'MIXED';
}

/** A proof version as the API shows it. */
export interface ProofView {
  proof: ProofRow;
  /** the primary value of its row */
  name: string;
  files: AttachmentRow[];
}

function proofEvent(p: ProofRow, action: string, details: Record<string, unknown> = {}): ChangeEvent {
  return { objectType: 'PROOF', action, objectId: p.id, sheetId: p.sheet_id, details: { rowId: p.row_id, originalId: p.original_id, version: p.version, ...details } };
}

/** A proof's name: the primary value of its row. */
export async function proofName(db: Queryable, sheet: SheetRow, p: ProofRow): Promise<string> {
  return (await rowNames(db, sheet, [p.row_id])).get(p.row_id) ?? '';
}

/** The primary values of rows (the proofs' names). */
async function rowNames(db: Queryable, sheet: SheetRow, rowIds: number[]): Promise<Map<number, string>> {
  const model = await readModel(db, sheet);
  const primary = model.columns.find((c) => c.primary);
  const out = new Map<number, string>();
  for (const id of rowIds) {
    const v = primary ? model.rows.get(id)?.cells[cellKey(primary.id)]?.v : undefined;
    out.set(id, typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : '');
  }
  return out;
}

async function views(db: Queryable, sheet: SheetRow, proofs: ProofRow[]): Promise<ProofView[]> {
  const names = await rowNames(db, sheet, proofs.map((p) => p.row_id));
  const files = await listAttachments(db, sheet.id, { type: 'PROOF', ids: proofs.map((p) => p.id) });
  return proofs.map((p) => ({ proof: p, name: names.get(p.row_id) ?? '', files: files.filter((f) => f.parent_id === p.id).reverse() }));
}

/** Stores uploads (a simple upload, or multipart files already stored); every blob goes again when `use` fails. */
async function withFiles<T>(db: Queryable, sheetId: number, blobs: BlobStore, input: FileUpload | StoredFile[], use: (files: StoredFile[]) => Promise<T>): Promise<T> {
  const files = Array.isArray(input) ? input : [await storeFile(blobs, input)];
  try {
    if (files.length === 0) throw apiError(1127, 'file');
    await checkFileSet(db, sheetId, files.map(proofKind));
    return await use(files);
  } catch (e) {
    for (const f of files) await blobs.delete(f.blobKey);
    throw e;
  }
}

/** A version's files, a millisecond apart so that they list in the order they were uploaded. */
async function attachFiles(tx: Queryable, actor: Actor, sheetId: number, proofId: number, files: StoredFile[], now: number): Promise<AttachmentRow[]> {
  const out: AttachmentRow[] = [];
  for (const [i, f] of files.entries()) out.push(await attachIn(tx, actor, sheetId, { type: 'PROOF', id: proofId }, f, now - files.length + 1 + i));
  return out;
}

// ---- Create, read, status, delete --------------------------------------------------------------

/** 1006 / 1004 / 1280 before any bytes are stored: the caller may add a proof to this row, which has none. */
export async function checkProofCreatable(db: Queryable, actor: Actor, sheetId: number, rowId: number): Promise<SheetRow> {
  const { sheet } = await sheetFor(db, actor, sheetId, 'EDITOR');
  if (!(await rowExists(db, sheetId, rowId))) throw apiError(1006);
  await requireProofing(db, sheetId);
  // one proof per row: further files are versions or attachments of that proof
  if ((await listCurrentProofs(db, sheetId, [rowId])).length > 0) throw apiError(1280);
  return sheet;
}

/** Create Proof: a file, or several images, on a row (EDITOR). */
export async function createProof(store: Store, blobs: BlobStore, actor: Actor, sheetId: number, rowId: number, input: FileUpload | StoredFile[]): Promise<ProofView> {
  if (!Array.isArray(input)) await checkProofCreatable(store.db, actor, sheetId, rowId);
  return withFiles(store.db, sheetId, blobs, input, (files) => store.db.transaction().execute(async (tx) => {
    // two requests for the same row: the second waits here and then finds the first's proof (1280)
    await lockSheets(tx, store, [sheetId]);
    const sheet = await checkProofCreatable(tx, actor, sheetId, rowId);
    const now = clock.now();
    const id = newId();
    const proof: ProofRow = {
      id, sheet_id: sheetId, row_id: rowId, original_id: id, version: 1, current: 1, is_completed: 0,
      created_at: now, created_by: actor.user.id, modified_at: now, modified_by: actor.user.id, deleted_at: null,
    };
    await insertProof(tx, proof);
    await recordEvents(tx, authorOf(actor), [proofEvent(proof, 'CREATE')], now);
    await attachFiles(tx, actor, sheetId, id, files, now);
    return (await views(tx, sheet, [proof]))[0]!;
  }));
}

/** List Proofs: the current version of each proof of the sheet, or of one row (VIEWER; a row the sheet does not have is 1006). */
export async function readProofs(db: Queryable, actor: Actor, sheetId: number, rowId?: number): Promise<ProofView[]> {
  const { sheet } = await sheetFor(db, actor, sheetId, 'VIEWER');
  if (rowId !== undefined) await requireRow(db, sheetId, rowId);
  return views(db, sheet, await listCurrentProofs(db, sheetId, rowId === undefined ? undefined : [rowId]));
}

/** Get Proof: any version (VIEWER), with its discussions when asked. */
export async function readProof(db: Queryable, actor: Actor, sheetId: number, proofId: number, withDiscussions: boolean): Promise<{ view: ProofView; level: AccessLevel; discussions: DiscussionData[] }> {
  const { sheet, level } = await sheetFor(db, actor, sheetId, 'VIEWER');
  const p = await liveProof(db, sheetId, proofId);
  const view = (await views(db, sheet, [p]))[0]!;
  const discussions = withDiscussions ? await discussionData(db, sheetId, await listDiscussions(db, sheetId, { type: 'PROOF', ids: [p.id] })) : [];
  return { view, level, discussions };
}

/** Update Proof Status: isCompleted on the current version of a proof that has files (EDITOR; 1315). */
export async function setProofStatus(store: Store, actor: Actor, sheetId: number, proofId: number, body: unknown): Promise<ProofView> {
  const b = asObject(body, 'a JSON object');
  if (b.isCompleted === undefined || b.isCompleted === null) throw apiError(1012, 'isCompleted');
  const completed = bodyBool(b.isCompleted, 'isCompleted');
  return store.db.transaction().execute(async (tx) => {
    const { sheet } = await sheetFor(tx, actor, sheetId, 'EDITOR');
    const p = await liveProof(tx, sheetId, proofId);
    if (p.current !== 1 || (await isEmptyProof(tx, p))) throw apiError(1315);
    const now = clock.now();
    if ((p.is_completed === 1) !== completed) {
      await setProofCompleted(tx, p.original_id, completed, now, actor.user.id);
      await recordEvents(tx, authorOf(actor), [proofEvent(p, 'UPDATE', { isCompleted: completed })], now);
    }
    return (await views(tx, sheet, [(await findProof(tx, sheetId, p.id))!]))[0]!;
  });
}

/** Removes a version's files and discussions (blobs by the deletion job). */
async function removeVersionContent(tx: Queryable, actor: Actor, p: ProofRow, now: number): Promise<void> {
  await removeDiscussions(tx, actor, p.sheet_id, await listDiscussions(tx, p.sheet_id, { type: 'PROOF', ids: [p.id] }), now);
  await removeAttachmentsOf(tx, actor, p.sheet_id, 'PROOF', [p.id]);
}

/** Deletes a whole proof: every version's files and discussions go, the ids stay as tombstones (1294), requests end. */
async function removeProof(tx: Queryable, actor: Actor, original: ProofRow, now: number): Promise<void> {
  for (const v of await listProofVersions(tx, original.sheet_id, original.original_id)) await removeVersionContent(tx, actor, v, now);
  await markProofDeleted(tx, original.original_id, now);
  await setProofRequestStatus(tx, original.original_id, 'PROOF_DELETED');
  await recordEvents(tx, authorOf(actor), [proofEvent(original, 'DELETE')], now);
}

/** Delete Proof: the proof with every version; the id must be the original's (EDITOR). */
export async function deleteProof(store: Store, actor: Actor, sheetId: number, proofId: number): Promise<void> {
  await store.db.transaction().execute(async (tx) => {
    await sheetFor(tx, actor, sheetId, 'EDITOR');
    const p = await liveProof(tx, sheetId, proofId);
    if (p.original_id !== p.id) throw apiError(1006, 'the id of the original version names the proof');
    await removeProof(tx, actor, p, clock.now());
  });
}

// ---- Versions ---------------------------------------------------------------------------------

/** List Proof Versions: newest first (VIEWER). */
export async function readProofVersions(db: Queryable, actor: Actor, sheetId: number, proofId: number): Promise<ProofView[]> {
  const { sheet } = await sheetFor(db, actor, sheetId, 'VIEWER');
  const p = await liveProof(db, sheetId, proofId);
  return views(db, sheet, await listProofVersions(db, sheetId, p.original_id));
}

/** 1298 unless the id is the original's, the proof is not complete and its current version has files. */
async function checkVersionable(db: Queryable, actor: Actor, sheetId: number, proofId: number): Promise<{ sheet: SheetRow; original: ProofRow; current: ProofRow }> {
  const { sheet } = await sheetFor(db, actor, sheetId, 'EDITOR');
  const original = await liveProof(db, sheetId, proofId);
  if (original.id !== original.original_id || original.is_completed === 1) throw apiError(1298);
  await requireProofing(db, sheetId);
  const current = (await listProofVersions(db, sheetId, original.original_id))[0]!;
  if (await isEmptyProof(db, current)) throw apiError(1298);
  return { sheet, original, current };
}

export async function checkProofVersionable(db: Queryable, actor: Actor, sheetId: number, proofId: number): Promise<void> {
  await checkVersionable(db, actor, sheetId, proofId);
}

/** Create Proof Version: new files become the current version; the previous one keeps its files and discussions. */
export async function addProofVersion(store: Store, blobs: BlobStore, actor: Actor, sheetId: number, proofId: number, input: FileUpload | StoredFile[]): Promise<ProofView> {
  if (!Array.isArray(input)) await checkVersionable(store.db, actor, sheetId, proofId);
  return withFiles(store.db, sheetId, blobs, input, (files) => store.db.transaction().execute(async (tx) => {
    // versions are numbered from the current one: one new version of a sheet's proofs at a time
    await lockSheets(tx, store, [sheetId]);
    const { sheet, original, current } = await checkVersionable(tx, actor, sheetId, proofId);
    const now = Math.max(clock.now(), current.created_at + 1);
    const proof: ProofRow = {
      ...original, id: newId(), version: current.version + 1, current: 1, is_completed: 0,
      created_at: now, created_by: actor.user.id, modified_at: now, modified_by: actor.user.id, deleted_at: null,
    };
    await setCurrentVersion(tx, original.original_id, null);
    await insertProof(tx, proof);
    await recordEvents(tx, authorOf(actor), [proofEvent(proof, 'CREATE')], now);
    await attachFiles(tx, actor, sheetId, proof.id, files, now);
    return (await views(tx, sheet, [proof]))[0]!;
  }));
}

/** Delete Proof Version: the current version, when there is an older one to take its place (1299). */
export async function deleteProofVersion(store: Store, actor: Actor, sheetId: number, proofId: number): Promise<void> {
  await store.db.transaction().execute(async (tx) => {
    await lockSheets(tx, store, [sheetId]);
    await sheetFor(tx, actor, sheetId, 'EDITOR');
    const p = await liveProof(tx, sheetId, proofId);
    if (p.current !== 1 || p.version === 1) throw apiError(1299);
    const now = clock.now();
    await removeVersionContent(tx, actor, p, now);
    await deleteProofVersionRow(tx, p.id);
    const previous = (await listProofVersions(tx, sheetId, p.original_id))[0]!;
    await setCurrentVersion(tx, p.original_id, previous.id);
    await recordEvents(tx, authorOf(actor), [proofEvent(p, 'DELETE')], now);
  });
}

// ---- Attachments and discussions ------------------------------------------------------------

/** List Proof Attachments: the version's files, not its discussions' (VIEWER). */
export async function readProofAttachments(db: Queryable, actor: Actor, sheetId: number, proofId: number): Promise<AttachmentRow[]> {
  await sheetFor(db, actor, sheetId, 'VIEWER');
  const p = await liveProof(db, sheetId, proofId);
  return listAttachments(db, sheetId, { type: 'PROOF', ids: [p.id] });
}

/** 1306 unless the version is current and the proof open. */
export async function checkProofAttachable(db: Queryable, actor: Actor, sheetId: number, proofId: number): Promise<ProofRow> {
  await sheetFor(db, actor, sheetId, 'EDITOR');
  const p = await liveProof(db, sheetId, proofId);
  requireOpenCurrent(p, 1306);
  await requireProofing(db, sheetId);
  return p;
}

/** Attach File to Proof: one more file on the current version; a proof of several files holds images only (1307). */
export async function attachToProof(store: Store, blobs: BlobStore, actor: Actor, sheetId: number, proofId: number, input: FileUpload | StoredFile[]): Promise<AttachmentRow> {
  if (!Array.isArray(input)) await checkProofAttachable(store.db, actor, sheetId, proofId);
  return withFiles(store.db, sheetId, blobs, input, (files) => store.db.transaction().execute(async (tx) => {
    const p = await checkProofAttachable(tx, actor, sheetId, proofId);
    const existing = await listAttachments(tx, sheetId, { type: 'PROOF', ids: [p.id] });
    await checkFileSet(tx, sheetId, [...existing.map((a) => proofKind({ name: a.name, mime_type: a.mime_type })), ...files.map(proofKind)]);
    const now = clock.now();
    const added = await attachFiles(tx, actor, sheetId, p.id, files, now);
    await touchProof(tx, p.id, now, actor.user.id);
    return added.at(-1)!;
  }));
}

/** List Proof Discussions (VIEWER). */
export async function readProofDiscussions(db: Queryable, actor: Actor, sheetId: number, proofId: number): Promise<{ level: AccessLevel; items: DiscussionData[] }> {
  const { level } = await sheetFor(db, actor, sheetId, 'VIEWER');
  const p = await liveProof(db, sheetId, proofId);
  return { level, items: await discussionData(db, sheetId, await listDiscussions(db, sheetId, { type: 'PROOF', ids: [p.id] })) };
}

/** Create Proof Discussion (COMMENTER): only on the current version of an open proof (1316, checked in the discussion's transaction). */
export async function createProofDiscussion(store: Store, actor: Actor, sheetId: number, proofId: number, body: unknown, file?: StoredFile): Promise<DiscussionData> {
  await sheetFor(store.db, actor, sheetId, 'COMMENTER');
  await liveProof(store.db, sheetId, proofId);
  return createDiscussion(store, actor, sheetId, { type: 'PROOF', id: proofId }, body, file);
}

// ---- Requests -----------------------------------------------------------------------------------

function optionalBool(b: Record<string, unknown>, attr: string): boolean | undefined {
  return optionalBodyBool(b[attr], attr);
}

/**
 * Create Proof Request (EDITOR): each reviewer (groups expanded) gets a PENDING action and a
 * message with a link of their own (`links.review`), where they approve or reject the proof
 * (services/collaboration/proofReviews.ts); with ccMe the sender gets a copy that links the proof in the API.
 * 1295 on an empty proof; 1300 when the recipients name nobody who can be sent to (an empty group).
 */
export async function createProofRequest(
  store: Store, actor: Actor, sheetId: number, proofId: number, body: unknown,
  links: { proof: (p: ProofRow) => string; review: (token: string) => string },
): Promise<{ request: ProofRequestRow; sendTo: EmailInput['sendTo'] }> {
  const b = asObject(body, 'a JSON object');
  const email = parseEmail(b);
  const isDownloadable = optionalBool(b, 'isDownloadable') ?? false;
  return store.db.transaction().execute(async (tx) => {
    const { sheet } = await sheetFor(tx, actor, sheetId, 'EDITOR');
    const p = await liveProof(tx, sheetId, proofId);
    const current = (await listProofVersions(tx, sheetId, p.original_id))[0]!;
    if (await isEmptyProof(tx, current)) throw apiError(1295);
    await requireProofing(tx, sheetId);
    const to = await addresses(tx, actor.org.id, email.sendTo);
    if (to.length === 0) throw apiError(1300, 'the recipients name nobody to send to');
    const now = clock.now();
    const request: ProofRequestRow = {
      id: newId(), sheet_id: sheetId, proof_id: p.original_id, sent_by: actor.user.id, sent_at: now,
      subject: email.subject ?? null, message: email.message ?? null, cc_me: email.ccMe ? 1 : 0, is_downloadable: isDownloadable ? 1 : 0, status: 'ACTIVE',
    };
    await insertProofRequest(tx, request, to);
    const name = (await proofName(tx, sheet, p)) || sheet.name;
    const who = senderName(actor);
    const textFor = (link: string, what: string) => [
      `${who} (${actor.user.email}) asks you to review the proof "${name}" (version ${current.version}) in the sheet "${sheet.name}".`,
      email.message ?? '',
      `${what}: ${link}`,
    ].filter((x) => x !== '').join('\n\n') + '\n';
    const subject = `${who} asks you to review "${name}"`;
    for (const address of to) {
      const text = textFor(links.review(await reviewToken(tx, request.id, address)), 'Review it (approve or reject)');
      await enqueue(tx, 'mail', payload(actor, [address], { ...email, ccMe: false }, subject, text, undefined));
    }
    if (email.ccMe) {
      await enqueue(tx, 'mail', payload(actor, [actor.user.email], { ...email, ccMe: false }, subject, textFor(links.proof(current), 'The proof'), undefined));
    }
    await recordEvents(tx, authorOf(actor), [{ objectType: 'PROOF_REQUEST', action: 'CREATE', objectId: request.id, sheetId, details: { proofId: p.original_id, recipientCount: to.length } }], now);
    return { request, sendTo: email.sendTo };
  });
}

/** Delete Proof Requests: every request of the proof (EDITOR); 1327 when it has none. */
export async function deleteProofRequestsOf(store: Store, actor: Actor, sheetId: number, proofId: number): Promise<void> {
  await store.db.transaction().execute(async (tx) => {
    await sheetFor(tx, actor, sheetId, 'EDITOR');
    const p = await liveProof(tx, sheetId, proofId);
    const requests = await listProofRequests(tx, p.original_id);
    if (requests.length === 0) throw apiError(1327, 'the proof has no requests');
    await deleteProofRequests(tx, requests.map((r) => r.id));
    await recordEvents(tx, authorOf(actor), requests.map((r) => ({ objectType: 'PROOF_REQUEST', action: 'DELETE', objectId: r.id, sheetId, details: { proofId: p.original_id } })), clock.now());
  });
}

export interface RequestAction {
  name: string;
  email: string;
  actionStatus: string;
}

/** List Proof Request Actions: one line per reviewer of each request (VIEWER). */
export async function readProofRequestActions(db: Queryable, actor: Actor, sheetId: number, proofId: number): Promise<RequestAction[]> {
  await sheetFor(db, actor, sheetId, 'VIEWER');
  const p = await liveProof(db, sheetId, proofId);
  const out: RequestAction[] = [];
  for (const a of await listProofRequestActions(db, p.original_id)) {
    const u = await findUserByEmail(db, a.email);
    out.push({ name: u ? nameOrEmail(u) : a.email, email: a.email, actionStatus: a.action_status });
  }
  return out;
}

// ---- Settings (a sheetd extension) ------------------------------------------------------------

export interface ProofSettings {
  enabled: boolean;
  multiImage: boolean;
}

/** The sheet's proofing switches (VIEWER). */
export async function readProofSettings(db: Queryable, actor: Actor, sheetId: number): Promise<ProofSettings> {
  await sheetFor(db, actor, sheetId, 'VIEWER');
  return proofSettingsOf(db, sheetId);
}

/**
 * Set the sheet's proofing switches (sheet admins): `enabled` (off: no new proofs, versions,
 * files or requests, 1279; not while the sheet has proofs, 1289) and `multiImage` (off: a proof
 * holds one file, 1308). Either may be left out.
 */
export async function setProofSettings(store: Store, actor: Actor, sheetId: number, body: unknown): Promise<ProofSettings> {
  const b = asObject(body, 'a ProofSettings object');
  for (const k of Object.keys(b)) if (k !== 'enabled' && k !== 'multiImage') throw apiError(1032, k);
  const enabled = optionalBool(b, 'enabled');
  const multiImage = optionalBool(b, 'multiImage');
  if (enabled === undefined && multiImage === undefined) throw apiError(1012, 'enabled or multiImage');
  return store.db.transaction().execute(async (tx) => {
    const { sheet } = await sheetFor(tx, actor, sheetId, 'ADMIN');
    const before = await proofSettingsOf(tx, sheetId);
    const after = { enabled: enabled ?? before.enabled, multiImage: multiImage ?? before.multiImage };
    if (before.enabled && !after.enabled && (await listCurrentProofs(tx, sheetId)).length > 0) throw apiError(1289);
    if (after.enabled !== before.enabled || after.multiImage !== before.multiImage) {
      await saveProofSettings(tx, sheetId, after);
      await recordEvents(tx, authorOf(actor), [{ objectType: 'SHEET', action: 'UPDATE', objectId: sheetId, sheetId, workspaceId: sheet.workspace_id, details: { proofing: after } }], clock.now());
    }
    return after;
  });
}

// ---- Rows going -----------------------------------------------------------------------------------

/** Write step (written): a row a write deletes takes its proofs along. */
export async function removeProofsOfDeletedRows(ctx: WriteContext): Promise<void> {
  if (ctx.changes.deleted.size === 0) return;
  for (const part of chunks([...ctx.changes.deleted])) {
    for (const p of await listCurrentProofs(ctx.tx, ctx.sheet.id, part)) {
      await removeProof(ctx.tx, ctx.actor, (await findProof(ctx.tx, ctx.sheet.id, p.original_id))!, ctx.now);
    }
  }
}
