import { apiError } from '../../errors.ts';
import { newId } from '../../ids.ts';
import { chunks, type Queryable, type Store } from '../../store/db.ts';
import { rowExists } from '../../store/sheets.ts';
import {
  attachmentIdsOf, findAttachmentsByIds, insertAttachment as insertAttachmentRow, deleteDiscussions, findDiscussion, insertComment, insertDiscussion, listComments, listDiscussionAttachments, listDiscussions,
  type AttachmentRow, type CommentRow, type DiscussionRow,
} from '../../store/attachments.ts';
import type { AccessLevel } from '../access/access.ts';
import { attachIn, removeAttachmentsOf, requireAuthor, type StoredFile } from './attachments.ts';
import type { AfterDb } from '../platform/transactions.ts';
import type { Actor } from '../platform/context.ts';
import { authorOf, recordEvents, type ChangeEvent } from '../log/events.ts';
import { sheetFor } from '../access/permissions.ts';
import { checkProofThread } from './proofState.ts';
import type { WriteContext } from '../sheets/sheetWrites.ts';
import { clock } from '../../clock.ts';

export interface DiscussionData {
  discussion: DiscussionRow;
  comments: CommentRow[];
  /** the attachments of its comments */
  attachments: AttachmentRow[];
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The text of a comment body ({text}); 1012 / 1031 when missing or not text. */
export function commentText(body: unknown): string {
  if (!isObject(body)) throw apiError(1008, 'expected a Comment object');
  const text = body.text;
  if (text === undefined || text === null || text === '') throw apiError(1012, 'text');
  if (typeof text !== 'string') throw apiError(1031, String(text), 'text');
  if (text.length > 4000) throw apiError(1041, 'text', 4000, text.length);
  return text;
}

export function discussionEvent(d: DiscussionRow, action: string): ChangeEvent {
  return { objectType: 'DISCUSSION', action, objectId: d.id, sheetId: d.sheet_id, details: { parentType: d.parent_type, parentId: d.parent_id } };
}

export function commentEvent(c: CommentRow, action: string): ChangeEvent {
  return { objectType: 'COMMENT', action, objectId: c.id, sheetId: c.sheet_id, details: { discussionId: c.discussion_id } };
}

/** 1006 unless the row is in the sheet. */
export async function requireRow(db: Queryable, sheetId: number, rowId: number): Promise<void> {
  if (!(await rowExists(db, sheetId, rowId))) throw apiError(1006);
}

/** Writes a comment (and its file, when there is one) into a discussion, in the caller's transaction. */
export async function writeComment(
  tx: Queryable, actor: Actor, d: DiscussionRow, text: string, file: StoredFile | undefined, now: number,
): Promise<{ comment: CommentRow; attachments: AttachmentRow[] }> {
  const comment: CommentRow = { id: newId(), sheet_id: d.sheet_id, discussion_id: d.id, text, created_at: now, created_by: actor.user.id, modified_at: now };
  await insertComment(tx, comment);
  await recordEvents(tx, authorOf(actor), [commentEvent(comment, 'CREATE')], now);
  const attachments = file === undefined ? [] : [await attachIn(tx, actor, d.sheet_id, { type: 'COMMENT', id: comment.id }, file, now)];
  return { comment, attachments };
}

/**
 * Create Discussion on the sheet or a row with its first comment (COMMENTER), optionally with a
 * file for that comment (a multipart request). The title is the one given, else the comment.
 */
export async function createDiscussion(
  store: Store, actor: Actor, sheetId: number, parent: { type: 'SHEET' | 'ROW' | 'PROOF'; id: number }, body: unknown, file?: StoredFile,
): Promise<DiscussionData> {
  if (!isObject(body)) throw apiError(1008, 'expected a Discussion object');
  if (body.comment === undefined || body.comment === null) throw apiError(1012, 'comment');
  const text = commentText(body.comment);
  const title = body.title ?? text;
  if (typeof title !== 'string' || title === '') throw apiError(1031, String(title), 'title');
  return store.db.transaction().execute(async (tx) => {
    const now = clock.now();
    await sheetFor(tx, actor, sheetId, 'COMMENTER');
    if (parent.type === 'ROW') await requireRow(tx, sheetId, parent.id);
    if (parent.type === 'PROOF') await checkProofThread(tx, { sheet_id: sheetId, parent_type: 'PROOF', parent_id: parent.id });
    const discussion: DiscussionRow = { id: newId(), sheet_id: sheetId, parent_type: parent.type, parent_id: parent.id, title: title.slice(0, 4000), created_at: now, created_by: actor.user.id };
    await insertDiscussion(tx, discussion);
    await recordEvents(tx, authorOf(actor), [discussionEvent(discussion, 'CREATE')], now);
    const { comment, attachments } = await writeComment(tx, actor, discussion, text, file, now);
    return { discussion, comments: [comment], attachments };
  });
}

/** Comments and comment attachments of discussions, grouped by discussion. */
export async function discussionData(db: Queryable, sheetId: number, discussions: DiscussionRow[]): Promise<DiscussionData[]> {
  const ids = discussions.map((d) => d.id);
  const comments = await listComments(db, sheetId, ids);
  const attachments = await listDiscussionAttachments(db, sheetId, ids);
  return discussions.map((d) => ({
    discussion: d,
    comments: comments.filter((c) => c.discussion_id === d.id),
    attachments: attachments.filter((a) => a.discussion_id === d.id),
  }));
}

/** List Discussions of the sheet (every one, rows' included) or of a row (VIEWER). */
export async function readDiscussions(db: Queryable, actor: Actor, sheetId: number, rowId?: number): Promise<{ level: AccessLevel; items: DiscussionData[] }> {
  const { level } = await sheetFor(db, actor, sheetId, 'VIEWER');
  if (rowId !== undefined) await requireRow(db, sheetId, rowId);
  const discussions = await listDiscussions(db, sheetId, rowId === undefined ? undefined : { type: 'ROW', ids: [rowId] });
  return { level, items: await discussionData(db, sheetId, discussions) };
}

export async function readDiscussion(db: Queryable, actor: Actor, sheetId: number, discussionId: number): Promise<{ level: AccessLevel; item: DiscussionData }> {
  const { level } = await sheetFor(db, actor, sheetId, 'VIEWER');
  const d = await findDiscussion(db, sheetId, discussionId);
  if (!d) throw apiError(1006);
  return { level, item: (await discussionData(db, sheetId, [d]))[0]! };
}

/** Removes discussions with their comments and the comments' attachments (blobs by a job). */
export async function removeDiscussions(db: Queryable, actor: Actor, sheetId: number, discussions: DiscussionRow[], now = clock.now()): Promise<void> {
  if (discussions.length === 0) return;
  const comments = await listComments(db, sheetId, discussions.map((d) => d.id));
  await removeAttachmentsOf(db, actor, sheetId, 'COMMENT', comments.map((c) => c.id));
  await deleteDiscussions(db, sheetId, discussions.map((d) => d.id));
  await recordEvents(db, authorOf(actor), discussions.map((d) => discussionEvent(d, 'DELETE')), now);
}

/** Delete Discussion: its author or a sheet admin (1081 for other commenters). */
export function deleteDiscussion(store: Store, ...a: AfterDb<typeof deleteDiscussionIn>) {
  return store.db.transaction().execute((tx) => deleteDiscussionIn(tx, ...a));
}

async function deleteDiscussionIn(db: Queryable, actor: Actor, sheetId: number, discussionId: number): Promise<void> {
  const { level } = await sheetFor(db, actor, sheetId, 'COMMENTER');
  const d = await findDiscussion(db, sheetId, discussionId);
  if (!d) throw apiError(1006);
  requireAuthor(actor, d.created_by, level);
  await removeDiscussions(db, actor, sheetId, [d]);
}

/** Rows deleted by a sheet write take their discussions and attachments along (same transaction). */
export async function removeThreadsOfRows(db: Queryable, actor: Actor, sheetId: number, rowIds: number[]): Promise<void> {
  for (const part of chunks(rowIds)) {
    await removeDiscussions(db, actor, sheetId, await listDiscussions(db, sheetId, { type: 'ROW', ids: part }));
    await removeAttachmentsOf(db, actor, sheetId, 'ROW', part);
  }
}

/** Write step (written): rows a write deletes take their discussions and attachments along. */
export async function removeThreadsOfDeletedRows(ctx: WriteContext): Promise<void> {
  if (ctx.changes.deleted.size > 0) await removeThreadsOfRows(ctx.tx, ctx.actor, ctx.sheet.id, [...ctx.changes.deleted]);
}

/**
 * Copy or move rows with include=attachments / discussions: the rows' attachments (every
 * version) and discussions (comments and their attachments) are copied onto the new rows of the
 * destination, sharing the files' blobs (a blob is kept while anything refers to it; a move then
 * deletes the source rows, whose deletion leaves the shared blobs alone).
 */
export async function copyThreads(
  tx: Queryable, actor: Actor, fromSheetId: number, toSheetId: number, rowMap: ReadonlyMap<number, number>,
  include: { attachments: boolean; discussions: boolean }, sheetLevel = false,
): Promise<void> {
  const rowIds = [...rowMap.keys()];
  if (rowIds.length === 0 && !sheetLevel) return;
  // the new parent of a row's or (a sheet copy) the sheet's attachment or discussion
  const parentOf = (x: { parent_type: string; parent_id: number }) => (x.parent_type === 'SHEET' ? toSheetId : rowMap.get(x.parent_id)!);
  const sheetToo = async <T extends { parent_type: string }>(list: T[], read: () => Promise<T[]>) => (sheetLevel ? [...list, ...(await read())] : list);
  const now = clock.now();
  const events: ChangeEvent[] = [];
  const copyAttachments = async (rows: AttachmentRow[], parentOf: (a: AttachmentRow) => number, discussionOf: (a: AttachmentRow) => number | null) => {
    const ids = new Map(rows.map((a) => [a.id, newId()] as const));
    for (const a of rows) {
      const copy: AttachmentRow = { ...a, id: ids.get(a.id)!, sheet_id: toSheetId, parent_id: parentOf(a), discussion_id: discussionOf(a), lineage_id: ids.get(a.lineage_id) ?? ids.get(a.id)! };
      await insertAttachmentRow(tx, copy);
      events.push({ objectType: 'ATTACHMENT', action: 'CREATE', objectId: copy.id, sheetId: toSheetId, details: { parentType: copy.parent_type, parentId: copy.parent_id } });
    }
  };
  if (include.attachments) {
    const ids = [...await attachmentIdsOf(tx, fromSheetId, 'ROW', rowIds), ...(sheetLevel ? await attachmentIdsOf(tx, fromSheetId, 'SHEET', [fromSheetId]) : [])];
    const rows = ids.length === 0 ? [] : await findAttachmentsByIds(tx, ids);
    await copyAttachments(rows, parentOf, () => null);
  }
  if (include.discussions) {
    const discussions = await sheetToo(await listDiscussions(tx, fromSheetId, { type: 'ROW', ids: rowIds }), () => listDiscussions(tx, fromSheetId, { type: 'SHEET', ids: [fromSheetId] }));
    for (const item of await discussionData(tx, fromSheetId, discussions)) {
      const d: DiscussionRow = { ...item.discussion, id: newId(), sheet_id: toSheetId, parent_id: parentOf(item.discussion) };
      await insertDiscussion(tx, d);
      events.push(discussionEvent(d, 'CREATE'));
      const commentIds = new Map<number, number>();
      for (const c of item.comments) {
        const copy: CommentRow = { ...c, id: newId(), sheet_id: toSheetId, discussion_id: d.id };
        commentIds.set(c.id, copy.id);
        await insertComment(tx, copy);
        events.push(commentEvent(copy, 'CREATE'));
      }
      if (include.attachments) await copyAttachments(item.attachments, (a) => commentIds.get(a.parent_id)!, () => d.id);
    }
  }
  await recordEvents(tx, authorOf(actor), events, now);
}

/** The discussions of a sheet and its rows (include=discussions). */
export async function sheetDiscussions(db: Queryable, sheetId: number): Promise<DiscussionRow[]> {
  return listDiscussions(db, sheetId);
}
