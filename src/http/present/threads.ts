import type { Queryable } from '../../store/db.ts';
import { sheetAttachments } from '../../services/collaboration/attachments.ts';
import { discussionData, sheetDiscussions, type DiscussionData } from '../../services/collaboration/discussions.ts';
import type { ReadOptions } from '../../services/platform/context.ts';
import type { AccessLevel } from '../../services/access/access.ts';
import { peopleOf, presentAttachment, presentDiscussion } from './attachments.ts';
import type { RowThreads } from '../../render/rowCells.ts';

/** Discussions as the API shows them (include=comments, attachments). */
export async function presentDiscussions(db: Queryable, items: DiscussionData[], ro: ReadOptions, level: AccessLevel) {
  const people = await peopleOf(db, items.flatMap((i) => [i.discussion.created_by, ...i.comments.map((c) => c.created_by), ...i.attachments.map((a) => a.created_by)]));
  return items.map((i) => presentDiscussion(i.discussion, i, { numericDates: ro.numericDates, people, include: ro.include, level, accessApiLevel: ro.accessApiLevel }));
}

/**
 * include=attachments / discussions of Get Sheet and Get Row: the sheet's own (for the sheet
 * object) and each row's, presented. The caller has checked access to the sheet; nothing is
 * read unless asked for.
 */
export async function threadsFor(db: Queryable, sheetId: number, rowIds: number[] | 'all', ro: ReadOptions, level: AccessLevel) {
  const withAttachments = ro.include.has('attachments');
  const withDiscussions = ro.include.has('discussions');
  const sheet = { attachments: [] as unknown[], discussions: [] as unknown[] };
  const rows: RowThreads = { attachments: new Map(), discussions: new Map() };
  if (!withAttachments && !withDiscussions) return { sheet, rows };
  const ofRow = (x: { parent_type: string; parent_id: number }) => x.parent_type === 'ROW' && (rowIds === 'all' || rowIds.includes(x.parent_id));
  if (withAttachments) {
    const all = (await sheetAttachments(db, sheetId)).filter((a) => a.parent_type !== 'COMMENT');
    const people = await peopleOf(db, all.map((a) => a.created_by));
    const v = { numericDates: ro.numericDates, people };
    if (rowIds === 'all') sheet.attachments = all.filter((a) => a.parent_type === 'SHEET').map((a) => presentAttachment(a, v));
    for (const a of all.filter(ofRow)) push(rows.attachments as Map<number, unknown[]>, a.parent_id, presentAttachment(a, v));
  }
  if (withDiscussions) {
    const all = await sheetDiscussions(db, sheetId);
    const wanted = all.filter((d) => (d.parent_type === 'SHEET' && rowIds === 'all') || ofRow(d));
    const items = await discussionData(db, sheetId, wanted);
    const presented = await presentDiscussions(db, items, ro, level);
    items.forEach((item, i) => {
      if (item.discussion.parent_type === 'SHEET') sheet.discussions.push(presented[i]);
      else push(rows.discussions as Map<number, unknown[]>, item.discussion.parent_id, presented[i]);
    });
  }
  return { sheet, rows };
}

function push(m: Map<number, unknown[]>, k: number, v: unknown): void {
  const list = m.get(k);
  if (list) list.push(v);
  else m.set(k, [v]);
}
