import { apiError } from '../../errors.ts';
import type { Queryable, Store } from '../../store/db.ts';
import { deleteComments, findComment, findDiscussion, listComments, listDiscussionAttachments, updateCommentText, type AttachmentRow, type CommentRow } from '../../store/attachments.ts';
import { removeAttachmentsOf, requireAuthor, type StoredFile } from './attachments.ts';
import type { AfterDb } from '../platform/transactions.ts';
import type { Actor } from '../platform/context.ts';
import { commentEvent, commentText, removeDiscussions, writeComment } from './discussions.ts';
import { authorOf, recordEvents } from '../log/events.ts';
import { sheetFor } from '../access/permissions.ts';
import { checkProofThread } from './proofState.ts';
import { clock } from '../../clock.ts';

export interface CommentData {
  comment: CommentRow;
  attachments: AttachmentRow[];
}

/** Add Comment to a discussion (COMMENTER), with a file from a multipart request. */
export async function addComment(store: Store, actor: Actor, sheetId: number, discussionId: number, body: unknown, file?: StoredFile): Promise<CommentData> {
  const text = commentText(body);
  return store.db.transaction().execute(async (tx) => {
    await sheetFor(tx, actor, sheetId, 'COMMENTER');
    const d = await findDiscussion(tx, sheetId, discussionId);
    if (!d) throw apiError(1006);
    await checkProofThread(tx, d);
    return writeComment(tx, actor, d, text, file, clock.now());
  });
}

async function commentOf(db: Queryable, sheetId: number, commentId: number): Promise<CommentData> {
  const comment = await findComment(db, sheetId, commentId);
  if (!comment) throw apiError(1006);
  const attachments = (await listDiscussionAttachments(db, sheetId, [comment.discussion_id])).filter((a) => a.parent_id === comment.id);
  return { comment, attachments };
}

export async function readComment(db: Queryable, actor: Actor, sheetId: number, commentId: number): Promise<CommentData> {
  await sheetFor(db, actor, sheetId, 'VIEWER');
  return commentOf(db, sheetId, commentId);
}

/** Edit Comment: its author only, not even an admin (1081). */
export function editComment(store: Store, ...a: AfterDb<typeof editCommentIn>) {
  return store.db.transaction().execute((tx) => editCommentIn(tx, ...a));
}

async function editCommentIn(db: Queryable, actor: Actor, sheetId: number, commentId: number, body: unknown): Promise<CommentData> {
  const text = commentText(body);
  await sheetFor(db, actor, sheetId, 'COMMENTER');
  const c = await findComment(db, sheetId, commentId);
  if (!c) throw apiError(1006);
  if (c.created_by !== actor.user.id) throw apiError(1081);
  const now = clock.now();
  await updateCommentText(db, c.id, text, now);
  await recordEvents(db, authorOf(actor), [commentEvent(c, 'UPDATE')], now);
  return commentOf(db, sheetId, commentId);
}

/** Delete Comment: its author or a sheet admin; the last comment of a discussion takes the discussion along. */
export function deleteComment(store: Store, ...a: AfterDb<typeof deleteCommentIn>) {
  return store.db.transaction().execute((tx) => deleteCommentIn(tx, ...a));
}

async function deleteCommentIn(db: Queryable, actor: Actor, sheetId: number, commentId: number): Promise<void> {
  const { level } = await sheetFor(db, actor, sheetId, 'COMMENTER');
  const c = await findComment(db, sheetId, commentId);
  if (!c) throw apiError(1006);
  requireAuthor(actor, c.created_by, level);
  const siblings = await listComments(db, sheetId, [c.discussion_id]);
  if (siblings.length === 1) {
    const d = await findDiscussion(db, sheetId, c.discussion_id);
    await removeDiscussions(db, actor, sheetId, [d!]);
    return;
  }
  await removeAttachmentsOf(db, actor, sheetId, 'COMMENT', [c.id]);
  await deleteComments(db, sheetId, [c.id]);
  await recordEvents(db, authorOf(actor), [commentEvent(c, 'DELETE')], clock.now());
}
