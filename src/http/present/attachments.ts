import type { Queryable } from '../../store/db.ts';
import type { AttachmentRow, CommentRow, DiscussionRow } from '../../store/attachments.ts';
import { usersByIds } from '../../services/identity/users.ts';
import { ATTACHMENT_URL_TTL_MS } from '../../services/collaboration/attachments.ts';
import { presentAccessLevel, type AccessLevel } from '../../services/access/access.ts';
import { fullName } from './users.ts';
import { ts } from './dates.ts';

export interface MiniUser {
  name: string;
  email: string;
}
export type People = (id: number | null) => MiniUser | undefined;

/** Name and email of the given users (creators of attachments, discussions and comments). */
export async function peopleOf(db: Queryable, ids: Iterable<number | null>): Promise<People> {
  const want = [...new Set([...ids].filter((id): id is number => id !== null))];
  const users = want.length === 0 ? [] : await usersByIds(db, want);
  const byId = new Map(users.map((u) => [u.id, { name: fullName(u), email: u.email }]));
  return (id) => (id === null ? undefined : byId.get(id));
}

export interface AttachmentView {
  numericDates: boolean;
  people: People;
  /** Get Attachment only: the temporary URL of a file. */
  url?: string;
}

/** The Attachment object (spec 2.6). */
export function presentAttachment(a: AttachmentRow, v: AttachmentView) {
  const out: Record<string, unknown> = {
    id: a.id,
    name: a.name,
    attachmentType: a.attachment_type,
  };
  if (a.attachment_sub_type !== null) out.attachmentSubType = a.attachment_sub_type;
  if (a.mime_type !== null) out.mimeType = a.mime_type;
  if (a.size !== null) out.sizeInKb = Math.ceil(a.size / 1024);
  out.parentType = a.parent_type;
  out.parentId = a.parent_id;
  out.createdAt = ts(a.created_at, v.numericDates);
  const by = v.people(a.created_by);
  if (by) out.createdBy = by;
  if (a.url !== null) out.url = a.url;
  if (a.description !== null) out.description = a.description;
  if (v.url !== undefined) {
    out.url = v.url;
    out.urlExpiresInMillis = ATTACHMENT_URL_TTL_MS;
  }
  return out;
}

/** The Comment object; `attachments` when they were asked for. */
export function presentComment(c: CommentRow, v: AttachmentView, attachments?: AttachmentRow[]) {
  const out: Record<string, unknown> = {
    id: c.id,
    discussionId: c.discussion_id,
    text: c.text,
    createdAt: ts(c.created_at, v.numericDates),
    modifiedAt: ts(c.modified_at, v.numericDates),
  };
  const by = v.people(c.created_by);
  if (by) out.createdBy = by;
  if (attachments !== undefined) out.attachments = attachments.map((a) => presentAttachment(a, v));
  return out;
}

export interface DiscussionParts {
  comments: CommentRow[];
  /** The attachments of its comments. */
  attachments: AttachmentRow[];
}

/** The Discussion object: comments and commentAttachments with include=comments / attachments. */
export function presentDiscussion(
  d: DiscussionRow, parts: DiscussionParts, v: AttachmentView & { include: ReadonlySet<string>; level: AccessLevel; accessApiLevel: number },
) {
  const last = parts.comments.at(-1);
  const out: Record<string, unknown> = {
    id: d.id,
    title: d.title,
    parentType: d.parent_type,
    parentId: d.parent_id,
    commentCount: parts.comments.length,
    accessLevel: presentAccessLevel(v.level, v.accessApiLevel),
    readOnly: v.level === 'VIEWER',
  };
  const by = v.people(d.created_by);
  if (by) out.createdBy = by;
  if (last) {
    out.lastCommentedAt = ts(last.created_at, v.numericDates);
    const lastBy = v.people(last.created_by);
    if (lastBy) out.lastCommentedUser = lastBy;
  }
  if (v.include.has('comments')) {
    out.comments = parts.comments.map((c) => presentComment(c, v, v.include.has('attachments') ? parts.attachments.filter((a) => a.parent_id === c.id) : undefined));
  }
  if (v.include.has('attachments')) out.commentAttachments = parts.attachments.map((a) => presentAttachment(a, v));
  return out;
}
