import type { Insertable, Selectable } from 'kysely';
import { inParts, IDS_PER_STATEMENT, type Queryable } from './db.ts';
import type { AttachmentTable, CommentTable, DiscussionTable } from './attachmentSchema.ts';

export type AttachmentRow = Selectable<AttachmentTable>;
export type DiscussionRow = Selectable<DiscussionTable>;
export type CommentRow = Selectable<CommentTable>;

/** Newest first, then by id (what a list read in parts is sorted by again). */
const newestFirst = (a: { created_at: number; id: number }, b: { created_at: number; id: number }) => b.created_at - a.created_at || a.id - b.id;
const oldestFirst = (a: { created_at: number; id: number }, b: { created_at: number; id: number }) => a.created_at - b.created_at || a.id - b.id;

/** The rows of a read in parts of `ids`, in `order` (each part comes in that order already). */
async function sortedParts<R>(ids: readonly number[], order: (a: R, b: R) => number, read: (part: number[]) => Promise<R[]>): Promise<R[]> {
  const rows = await inParts(ids, read);
  return ids.length > IDS_PER_STATEMENT ? rows.sort(order) : rows;
}

export async function insertAttachment(db: Queryable, row: Insertable<AttachmentTable>): Promise<void> {
  await db.insertInto('attachments').values(row).execute();
}

export async function findAttachment(db: Queryable, sheetId: number, id: number): Promise<AttachmentRow | undefined> {
  return db.selectFrom('attachments').selectAll().where('sheet_id', '=', sheetId).where('id', '=', id).executeTakeFirst();
}

/** The current attachments of parents (newest first); no parents: every one of the sheet. */
export async function listAttachments(db: Queryable, sheetId: number, parents?: { type: string; ids: number[] }): Promise<AttachmentRow[]> {
  let q = db.selectFrom('attachments').selectAll().where('sheet_id', '=', sheetId).where('current', '=', 1);
  if (parents !== undefined) {
    const ofParents = q.where('parent_type', '=', parents.type);
    return sortedParts(parents.ids, newestFirst, (part) => ofParents.where('parent_id', 'in', part).orderBy('created_at', 'desc').orderBy('id').execute());
  } else {
    // a proof's files and its discussions' files belong to the proof, not to the sheet's list
    q = q.where('parent_type', '!=', 'PROOF').where((eb) => eb.or([
      eb('discussion_id', 'is', null),
      eb('discussion_id', 'not in', eb.selectFrom('discussions').select('id').where('sheet_id', '=', sheetId).where('parent_type', '=', 'PROOF')),
    ]));
  }
  return q.orderBy('created_at', 'desc').orderBy('id').execute();
}

export async function listDiscussionAttachments(db: Queryable, sheetId: number, discussionIds: number[]): Promise<AttachmentRow[]> {
  return sortedParts(discussionIds, newestFirst, (part) => db.selectFrom('attachments').selectAll().where('sheet_id', '=', sheetId).where('current', '=', 1)
    .where('discussion_id', 'in', part).orderBy('created_at', 'desc').orderBy('id').execute());
}

export async function listVersions(db: Queryable, sheetId: number, lineageId: number): Promise<AttachmentRow[]> {
  return db.selectFrom('attachments').selectAll().where('sheet_id', '=', sheetId).where('lineage_id', '=', lineageId)
    .orderBy('created_at', 'desc').orderBy('current', 'desc').execute();
}

/** Deletes attachments; gives back the blob keys they held (for the deletion job). */
export async function deleteAttachments(db: Queryable, sheetId: number, ids: number[]): Promise<string[]> {
  const rows = await inParts(ids, async (part) => {
    const found = await db.selectFrom('attachments').select('blob_key').where('sheet_id', '=', sheetId).where('id', 'in', part).execute();
    await db.deleteFrom('attachments').where('sheet_id', '=', sheetId).where('id', 'in', part).execute();
    return found;
  });
  return rows.flatMap((r) => (r.blob_key === null ? [] : [r.blob_key]));
}

/** Every version, of every attachment, of these parents. */
export async function attachmentIdsOf(db: Queryable, sheetId: number, parentType: string, parentIds: number[]): Promise<number[]> {
  const rows = await inParts(parentIds, (part) => db.selectFrom('attachments').select('id').where('sheet_id', '=', sheetId)
    .where('parent_type', '=', parentType).where('parent_id', 'in', part).execute());
  return rows.map((r) => r.id);
}

/** The blob keys of every attachment of sheets (before the sheets go). */
export async function blobKeysOfSheets(db: Queryable, sheetIds: number[]): Promise<string[]> {
  if (sheetIds.length === 0) return [];
  const rows = await db.selectFrom('attachments').select('blob_key').where('sheet_id', 'in', sheetIds).where('blob_key', 'is not', null).execute();
  return rows.map((r) => r.blob_key!);
}

export async function insertDiscussion(db: Queryable, row: DiscussionRow): Promise<void> {
  await db.insertInto('discussions').values(row).execute();
}

export async function findDiscussion(db: Queryable, sheetId: number, id: number): Promise<DiscussionRow | undefined> {
  return db.selectFrom('discussions').selectAll().where('sheet_id', '=', sheetId).where('id', '=', id).executeTakeFirst();
}

/** Discussions of parents (newest first); no parents: every one of the sheet. */
export async function listDiscussions(db: Queryable, sheetId: number, parents?: { type: string; ids: number[] }): Promise<DiscussionRow[]> {
  let q = db.selectFrom('discussions').selectAll().where('sheet_id', '=', sheetId);
  if (parents !== undefined) {
    const ofParents = q.where('parent_type', '=', parents.type);
    return sortedParts(parents.ids, newestFirst, (part) => ofParents.where('parent_id', 'in', part).orderBy('created_at', 'desc').orderBy('id').execute());
  } else {
    q = q.where('parent_type', '!=', 'PROOF');
  }
  return q.orderBy('created_at', 'desc').orderBy('id').execute();
}

export async function deleteDiscussions(db: Queryable, sheetId: number, ids: number[]): Promise<void> {
  await inParts(ids, async (part) => {
    await db.deleteFrom('discussions').where('sheet_id', '=', sheetId).where('id', 'in', part).execute();
  });
}

export async function insertComment(db: Queryable, row: CommentRow): Promise<void> {
  await db.insertInto('comments').values(row).execute();
}

export async function findComment(db: Queryable, sheetId: number, id: number): Promise<CommentRow | undefined> {
  return db.selectFrom('comments').selectAll().where('sheet_id', '=', sheetId).where('id', '=', id).executeTakeFirst();
}

/** Comments of discussions, oldest first (the order of a conversation). */
export async function listComments(db: Queryable, sheetId: number, discussionIds: number[]): Promise<CommentRow[]> {
  return sortedParts(discussionIds, oldestFirst, (part) => db.selectFrom('comments').selectAll().where('sheet_id', '=', sheetId).where('discussion_id', 'in', part)
    .orderBy('created_at').orderBy('id').execute());
}

export async function updateCommentText(db: Queryable, id: number, text: string, now: number): Promise<void> {
  await db.updateTable('comments').set({ text, modified_at: now }).where('id', '=', id).execute();
}

export async function deleteComments(db: Queryable, sheetId: number, ids: number[]): Promise<void> {
  await inParts(ids, async (part) => {
    await db.deleteFrom('comments').where('sheet_id', '=', sheetId).where('id', 'in', part).execute();
  });
}

/** Makes the newest remaining version of a lineage its current one (after its current went). */
export async function promoteNewest(db: Queryable, sheetId: number, lineageId: number): Promise<void> {
  const newest = await db.selectFrom('attachments').select('id').where('sheet_id', '=', sheetId).where('lineage_id', '=', lineageId)
    .orderBy('created_at', 'desc').orderBy('id', 'desc').executeTakeFirst();
  if (newest !== undefined) await db.updateTable('attachments').set({ current: 1 }).where('id', '=', newest.id).execute();
}

/** How many attachments and comments each row of a sheet has (rows with none are left out). */
export async function threadCounts(db: Queryable, sheetId: number): Promise<{ attachments: Map<number, number>; comments: Map<number, number> }> {
  const a = await db.selectFrom('attachments').select(['parent_id', db.fn.countAll<number>().as('n')])
    .where('sheet_id', '=', sheetId).where('parent_type', '=', 'ROW').where('current', '=', 1).groupBy('parent_id').execute();
  const c = await db.selectFrom('comments as c').innerJoin('discussions as d', 'd.id', 'c.discussion_id')
    .select(['d.parent_id', db.fn.countAll<number>().as('n')])
    .where('d.sheet_id', '=', sheetId).where('d.parent_type', '=', 'ROW').groupBy('d.parent_id').execute();
  return {
    attachments: new Map(a.map((r) => [Number(r.parent_id), Number(r.n)])),
    comments: new Map(c.map((r) => [Number(r.parent_id), Number(r.n)])),
  };
}

export async function findAttachmentsByIds(db: Queryable, ids: number[]): Promise<AttachmentRow[]> {
  return inParts(ids, (part) => db.selectFrom('attachments').selectAll().where('id', 'in', part).execute());
}

/** No version of an attachment is current any more (a new version is about to be). */
export async function retireVersions(db: Queryable, lineageId: number): Promise<void> {
  await db.updateTable('attachments').set({ current: 0 }).where('lineage_id', '=', lineageId).execute();
}

/** A secret of this server by name, created with `make()` the first time (any process may race). */
export async function serverSecret(db: Queryable, name: string, make: () => string): Promise<string> {
  await db.insertInto('server_secrets').values({ name, value: make() }).onConflict((oc) => oc.column('name').doNothing()).execute();
  const row = await db.selectFrom('server_secrets').select('value').where('name', '=', name).executeTakeFirstOrThrow();
  return row.value;
}
