import { hasServerSignature, serverSignature } from '../identity/secrets.ts';
import type { Readable } from 'node:stream';
import mime from 'mime-types';
import { BlobNotFound, BlobTooLarge, newBlobKey, type BlobStore } from '../../blobs/index.ts';
import { apiError } from '../../errors.ts';
import { newId } from '../../ids.ts';
import { enqueue } from '../../store/jobs.ts';
import { lockName, type Queryable, type Store } from '../../store/db.ts';
import { rowExists } from '../../store/sheets.ts';
import {
  attachmentIdsOf, deleteAttachments, findAttachmentsByIds, listDiscussions, retireVersions, findAttachment, findComment, findDiscussion, insertAttachment, listAttachments,
  listDiscussionAttachments, listVersions, promoteNewest, threadCounts, type AttachmentRow, type CommentRow,
} from '../../store/attachments.ts';
import { atLeast, type AccessLevel } from '../access/access.ts';
import type { AfterDb } from '../platform/transactions.ts';
import type { Actor } from '../platform/context.ts';
import { authorOf, recordEvents, type ChangeEvent } from '../log/events.ts';
import { peek } from '../sheets/images.ts';
import { sheetFor } from '../access/permissions.ts';
import { checkProofThread, liveProof, requireOpenCurrent } from './proofState.ts';
import { clock } from '../../clock.ts';

/** Spec section 8: the largest file an upload may carry. */
export const ATTACHMENT_MAX_BYTES = 30 * 1024 * 1024;
/** How long the `url` of Get Attachment serves the file. */
export const ATTACHMENT_URL_TTL_MS = 2 * 60 * 1000;
/** The job that removes blobs nothing refers to any more (after their attachments went). */
export const DELETE_BLOBS_JOB = 'blobs.delete';

/** file-type recognises every format it knows within this many bytes. */
const SNIFF_BYTES = 4100;

export type ParentType = 'SHEET' | 'ROW' | 'COMMENT' | 'PROOF';
export interface Parent {
  type: ParentType;
  /** the row or comment id; the sheet id for SHEET */
  id: number;
}

/** A file as it arrives: a simple upload's body or a multipart upload's file part. */
export interface FileUpload {
  body: Readable;
  fileName: string | null;
  /** The Content-Type the client gave (may be blank). */
  contentType: string | null;
  /** The error of an oversized file: 1074 for a simple upload, 1128 for a multipart one. */
  tooLarge: () => Error;
}

export type AttachInput = { file: FileUpload } | { json: unknown } | { stored: StoredFile };

const LINK_TYPES = ['LINK', 'BOX_COM', 'DROPBOX', 'EGNYTE', 'EVERNOTE', 'GOOGLE_DRIVE', 'ONEDRIVE', 'TRELLO'] as const;
/** The sub-types each provider takes (the rest take none). */
const SUB_TYPES: Record<string, readonly string[]> = {
  GOOGLE_DRIVE: ['DOCUMENT', 'DRAWING', 'PDF', 'PRESENTATION', 'SPREADSHEET'],
  EGNYTE: ['FOLDER'],
};

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export interface StoredFile {
  blobKey: string;
  size: number;
  mimeType: string;
  name: string;
}

/**
 * Streams a file onto the blob store, its type recognised from its first bytes (falling back
 * to its name's extension, then to what the client said). Nothing is stored when it fails.
 */
export async function storeFile(blobs: BlobStore, f: FileUpload): Promise<StoredFile> {
  if (f.fileName === null) {
    f.body.resume();
    throw apiError(1338);
  }
  const { head, body } = await peek(f.body, SNIFF_BYTES, (b) => b.length >= SNIFF_BYTES);
  // imported when first used (an upload): its modules stay out of memory until then
  const { fileTypeFromBuffer } = await import('file-type');
  const sniffed = await fileTypeFromBuffer(head);
  const given = f.contentType?.split(';')[0]?.trim().toLowerCase() || null;
  const mimeType = sniffed?.mime ?? (mime.lookup(f.fileName) || null) ?? given ?? 'application/octet-stream';
  const blobKey = newBlobKey();
  try {
    const { size } = await blobs.put(blobKey, body, { contentType: mimeType, maxBytes: ATTACHMENT_MAX_BYTES });
    return { blobKey, size, mimeType, name: f.fileName };
  } catch (e) {
    if (e instanceof BlobTooLarge) throw f.tooLarge();
    throw e;
  }
}

type LinkAttachment = ReturnType<typeof readUrlAttachment>;

/** A URL attachment (URLAttachmentRequest): LINK or a cloud-storage provider's link. */
function readUrlAttachment(body: unknown) {
  if (!isObject(body)) throw apiError(1008, 'expected a URLAttachmentRequest object');
  const type = body.attachmentType;
  if (type === undefined || type === null) throw apiError(1012, 'attachmentType');
  if (type === 'FILE') throw apiError(1051);
  if (typeof type !== 'string' || !(LINK_TYPES as readonly string[]).includes(type)) throw apiError(1255, String(type));
  const url = body.url;
  if (url === undefined || url === null || url === '') throw apiError(1012, 'url');
  if (typeof url !== 'string' || !/^https?:\/\/[^\s]+$/i.test(url) || url.length > 4000) throw apiError(1031, String(url), 'url');
  const sub = body.attachmentSubType ?? null;
  if (sub !== null && (typeof sub !== 'string' || !(SUB_TYPES[type] ?? []).includes(sub))) throw apiError(1031, String(sub), 'attachmentSubType');
  const name = body.name ?? url;
  if (typeof name !== 'string' || name.length > 255) throw apiError(1031, String(name), 'name');
  const description = body.description ?? null;
  if (description !== null && typeof description !== 'string') throw apiError(1031, String(description), 'description');
  return { type, url, sub, name: name === '' ? url : name, description };
}

/** The sheet, and the discussion of a comment parent, after the caller's access is checked. */
async function parentFor(db: Queryable, actor: Actor, sheetId: number, parent: Parent, needed: AccessLevel) {
  const { sheet, level } = await sheetFor(db, actor, sheetId, needed);
  let comment: CommentRow | undefined;
  if (parent.type === 'ROW') {
    if (!(await rowExists(db, sheetId, parent.id))) throw apiError(1006);
  } else if (parent.type === 'COMMENT') {
    comment = await findComment(db, sheetId, parent.id);
    if (!comment) throw apiError(1006);
    // a comment of a proof's discussion takes files only while the proof is open (1316)
    const d = await findDiscussion(db, sheetId, comment.discussion_id);
    if (d) await checkProofThread(db, d);
  }
  return { sheet, level, comment };
}

/** 1006 / 1004 when the caller may not attach to this parent (before any bytes are stored). */
export async function checkAttachable(db: Queryable, actor: Actor, sheetId: number, parent: Parent): Promise<void> {
  await parentFor(db, actor, sheetId, parent, parent.type === 'COMMENT' ? 'COMMENTER' : 'EDITOR');
}

/** Only its author (or a sheet admin) changes what hangs off a comment. */
export function requireAuthor(actor: Actor, createdBy: number | null, level: AccessLevel): void {
  if (createdBy !== actor.user.id && !atLeast(level, 'ADMIN')) throw apiError(1081);
}

function attachmentEvent(a: AttachmentRow, action: string): ChangeEvent {
  return { objectType: 'ATTACHMENT', action, objectId: a.id, sheetId: a.sheet_id, details: { parentType: a.parent_type, parentId: a.parent_id, attachmentType: a.attachment_type, name: a.name } };
}

/**
 * Attach a file or URL to the sheet, a row (EDITOR) or a comment (COMMENTER, the comment's
 * author). The file is stored before the transaction and removed again when it fails.
 */
export async function attach(store: Store, blobs: BlobStore, actor: Actor, sheetId: number, parent: Parent, input: AttachInput): Promise<AttachmentRow> {
  // the sheet is checked before the file is read: no bytes are stored for a caller who may not
  await checkAttachable(store.db, actor, sheetId, parent);
  const link = 'json' in input ? readUrlAttachment(input.json) : null;
  const file = 'file' in input ? await storeFile(blobs, input.file) : 'stored' in input ? input.stored : null;
  try {
    return await store.db.transaction().execute((tx) => attachIn(tx, actor, sheetId, parent, link ?? file!));
  } catch (e) {
    if (file) await blobs.delete(file.blobKey);
    throw e;
  }
}

/** Adds an attachment (a link, or a file already on the blob store) in the caller's transaction. */
export async function attachIn(tx: Queryable, actor: Actor, sheetId: number, parent: Parent, what: LinkAttachment | StoredFile, now = clock.now()): Promise<AttachmentRow> {
  const { level, comment } = await parentFor(tx, actor, sheetId, parent, parent.type === 'COMMENT' ? 'COMMENTER' : 'EDITOR');
  if (comment) requireAuthor(actor, comment.created_by, level);
  const link = 'url' in what ? what : null;
  const file = 'blobKey' in what ? what : null;
  const id = newId();
  const row: AttachmentRow = {
    id, sheet_id: sheetId, parent_type: parent.type, parent_id: parent.id, discussion_id: comment?.discussion_id ?? null,
    lineage_id: id, current: 1,
    attachment_type: link?.type ?? 'FILE', attachment_sub_type: link?.sub ?? null,
    name: link?.name ?? file!.name, description: link?.description ?? null, url: link?.url ?? null,
    blob_key: file?.blobKey ?? null, size: file?.size ?? null, mime_type: file?.mimeType ?? null,
    created_at: now, created_by: actor.user.id,
  };
  await insertAttachment(tx, row);
  await recordEvents(tx, authorOf(actor), [attachmentEvent(row, 'CREATE')], now);
  return row;
}

/** Attach New Version: a FILE attachment of the sheet or a row gets a newer file (EDITOR). */
export async function checkVersionable(db: Queryable, actor: Actor, sheetId: number, attachmentId: number): Promise<AttachmentRow> {
  await sheetFor(db, actor, sheetId, 'EDITOR');
  const prev = await findAttachment(db, sheetId, attachmentId);
  if (!prev) throw apiError(1006);
  if (prev.parent_type === 'COMMENT') throw apiError(1100);
  if (prev.parent_type === 'PROOF') throw apiError(1296);
  if (prev.attachment_type !== 'FILE') throw apiError(1101);
  return prev;
}

export async function attachVersion(store: Store, blobs: BlobStore, actor: Actor, sheetId: number, attachmentId: number, upload: FileUpload | StoredFile): Promise<AttachmentRow> {
  if ('body' in upload) await checkVersionable(store.db, actor, sheetId, attachmentId);
  const file = 'body' in upload ? await storeFile(blobs, upload) : upload;
  try {
    return await store.db.transaction().execute(async (tx) => {
      const prev = await checkVersionable(tx, actor, sheetId, attachmentId);
      // two new versions of one attachment at once: the second waits, then retires the first's
      // too and comes after it (on PostgreSQL both stayed current)
      await lockName(tx, `sheetd: versions of attachment ${prev.lineage_id}`);
      const now = clock.now();
      // the lineage's versions, newest first (prev among them)
      const newest = (await listVersions(tx, sheetId, prev.lineage_id))[0] ?? prev;
      await retireVersions(tx, prev.lineage_id);
      const row: AttachmentRow = {
        ...prev, id: newId(), current: 1, name: file.name, blob_key: file.blobKey, size: file.size, mime_type: file.mimeType,
        created_at: Math.max(now, newest.created_at + 1), created_by: actor.user.id,
      };
      await insertAttachment(tx, row);
      await recordEvents(tx, authorOf(actor), [attachmentEvent(row, 'CREATE')], now);
      return row;
    });
  } catch (e) {
    await blobs.delete(file.blobKey);
    throw e;
  }
}

/** Queues the removal of blobs whose attachments went in this transaction. */
export async function queueBlobDeletion(db: Queryable, keys: string[]): Promise<void> {
  for (let i = 0; i < keys.length; i += 200) await enqueue(db, DELETE_BLOBS_JOB, { keys: keys.slice(i, i + 200) });
}

/** Removes attachments in a transaction (events, blob deletion queued). */
export async function removeAttachments(db: Queryable, actor: Actor, rows: AttachmentRow[], now = clock.now()): Promise<void> {
  if (rows.length === 0) return;
  const keys = await deleteAttachments(db, rows[0]!.sheet_id, rows.map((r) => r.id));
  await queueBlobDeletion(db, keys);
  await recordEvents(db, authorOf(actor), rows.map((r) => attachmentEvent(r, 'DELETE')), now);
}

/**
 * Delete Attachment: this version (EDITOR; a comment's attachment only by the comment's author
 * or an admin). When it was the current version, the newest older one takes its place.
 */
export function deleteAttachment(store: Store, ...a: AfterDb<typeof deleteAttachmentIn>) {
  return store.db.transaction().execute((tx) => deleteAttachmentIn(tx, ...a));
}

async function deleteAttachmentIn(db: Queryable, actor: Actor, sheetId: number, attachmentId: number, allVersions: boolean): Promise<void> {
  const { level } = await sheetFor(db, actor, sheetId, 'COMMENTER');
  const a = await findAttachment(db, sheetId, attachmentId);
  if (!a) throw apiError(1006);
  if (a.parent_type === 'COMMENT') requireAuthor(actor, a.created_by, level);
  else if (!atLeast(level, 'EDITOR')) throw apiError(1004);
  // a proof's file goes only from the current version of a proof that is not complete
  if (a.parent_type === 'PROOF') requireOpenCurrent(await liveProof(db, sheetId, a.parent_id), 1309);
  const rows = allVersions ? await listVersions(db, sheetId, a.lineage_id) : [a];
  await removeAttachments(db, actor, rows);
  if (!allVersions && a.current === 1) await promoteNewest(db, sheetId, a.lineage_id);
}

/** Removes the attachments of rows or comments about to be deleted (in the same transaction). */
export async function removeAttachmentsOf(db: Queryable, actor: Actor, sheetId: number, parentType: ParentType, ids: number[]): Promise<void> {
  const attachmentIds = await attachmentIdsOf(db, sheetId, parentType, ids);
  if (attachmentIds.length === 0) return;
  const rows = await findAttachmentsByIds(db, attachmentIds);
  await removeAttachments(db, actor, rows);
}

export async function readAttachment(db: Queryable, actor: Actor, sheetId: number, attachmentId: number): Promise<AttachmentRow> {
  await sheetFor(db, actor, sheetId, 'VIEWER');
  const a = await findAttachment(db, sheetId, attachmentId);
  if (!a) throw apiError(1006);
  return a;
}

export async function readVersions(db: Queryable, actor: Actor, sheetId: number, attachmentId: number): Promise<AttachmentRow[]> {
  const a = await readAttachment(db, actor, sheetId, attachmentId);
  return listVersions(db, sheetId, a.lineage_id);
}

/**
 * List Attachments: of the sheet (every attachment in it: sheet, rows, comments), of a row (its
 * own and those of its discussions' comments), or of a discussion (its comments').
 */
export async function readAttachments(db: Queryable, actor: Actor, sheetId: number, of: { type: 'SHEET' } | { type: 'ROW' | 'DISCUSSION'; id: number }): Promise<AttachmentRow[]> {
  await sheetFor(db, actor, sheetId, 'VIEWER');
  if (of.type === 'SHEET') return listAttachments(db, sheetId);
  if (of.type === 'DISCUSSION') {
    if (!(await findDiscussion(db, sheetId, of.id))) throw apiError(1006);
    return listDiscussionAttachments(db, sheetId, [of.id]);
  }
  if (!(await rowExists(db, sheetId, of.id))) throw apiError(1006);
  const discussions = await listDiscussions(db, sheetId, { type: 'ROW', ids: [of.id] });
  const own = await listAttachments(db, sheetId, { type: 'ROW', ids: [of.id] });
  const ofComments = await listDiscussionAttachments(db, sheetId, discussions.map((d) => d.id));
  return [...own, ...ofComments].sort((x, y) => y.created_at - x.created_at);
}

// ---- Temporary URLs --------------------------------------------------------------------------

/** A token naming the attachment and when it stops working, signed with the server's key. */
export async function attachmentUrlToken(db: Queryable, a: AttachmentRow, now = clock.now()): Promise<string> {
  const payload = `${a.sheet_id}.${a.id}.${now + ATTACHMENT_URL_TTL_MS}`;
  return `${payload}.${await serverSignature(db, 'attachment-url', payload)}`;
}

export interface ServedFile {
  stream: Readable;
  size: number;
  mimeType: string;
  fileName: string;
  expiresAt: number;
}

/** The file a temporary URL serves while it has not expired (1006 otherwise: nothing is revealed). */
export async function fileForToken(db: Queryable, blobs: BlobStore, token: string, now = clock.now()): Promise<ServedFile> {
  const m = /^(\d{1,16})\.(\d{1,16})\.(\d{1,16})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!m) throw apiError(1006);
  if (!(await hasServerSignature(db, 'attachment-url', `${m[1]}.${m[2]}.${m[3]}`, m[4]!))) throw apiError(1006);
  const expiresAt = Number(m[3]);
  if (expiresAt <= now) throw apiError(1006);
  const a = await findAttachment(db, Number(m[1]), Number(m[2]));
  if (!a || a.blob_key === null) throw apiError(1006);
  try {
    const blob = await blobs.get(a.blob_key);
    return { stream: blob.stream, size: blob.size, mimeType: a.mime_type ?? 'application/octet-stream', fileName: a.name, expiresAt };
  } catch (e) {
    if (e instanceof BlobNotFound) throw apiError(1006);
    throw e;
  }
}

/** Attachments and comments per row of a sheet (filters on HAS_ATTACHMENTS / HAS_COMMENTS). */
export async function rowThreadCounts(db: Queryable, sheetId: number) {
  return threadCounts(db, sheetId);
}

/** The current attachments of a sheet, its rows and discussions (include=attachments). */
export async function sheetAttachments(db: Queryable, sheetId: number): Promise<AttachmentRow[]> {
  return listAttachments(db, sheetId);
}
