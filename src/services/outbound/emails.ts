import { Readable } from 'node:stream';
import type { BlobStore } from '../../blobs/index.ts';
import { newBlobKey } from '../../blobs/index.ts';
import type { ColumnDef } from '../../engine/columns.ts';
import { apiError } from '../../errors.ts';
import { asObject, bodyId, describe, type Obj, optionalBodyBool } from '../../engine/input.ts';
import { findGroup, groupMembers } from '../../store/groups.ts';
import { findUsersByIds } from '../../store/users.ts';
import { enqueue } from '../../store/jobs.ts';
import type { Queryable, Store } from '../../store/db.ts';
import { listAttachments, listDiscussions, type AttachmentRow } from '../../store/attachments.ts';
import type { MailPayload } from '../../mail/index.ts';
import { nameOrEmail, type Actor } from '../platform/context.ts';
import { authorOf, recordEvents, type ChangeEvent } from '../log/events.ts';
import { readSheet } from '../computed/currentValues.ts';
import type { RowState, SheetModel } from '../../engine/model.ts';
import type { SheetRow } from '../../store/sheets.ts';
import type { AccessLevel } from '../access/access.ts';
import { discussionData } from '../collaboration/discussions.ts';
import { isValidEmail } from '../identity/users.ts';

/**
 * Sending by email: Send Sheet via Email (the sheet as a file), Send Rows via Email (rows in the
 * message, with their attachments and discussions) and the notice of a new share. Nothing is
 * sent inside the request: the message is a `mail` job written in a transaction and sent by the
 * job worker (SMTP, or an .eml file in the outbox).
 */

/** Recipients of one message at most (each is sent its own copy). */
export const MAX_RECIPIENTS = 100;
/** Files of rows' attachments carried by one message at most; larger ones are named, not attached. */
export const MAX_ATTACHED_BYTES = 25 * 1024 * 1024;

export const SHEET_FORMATS = ['PDF', 'PDF_GANTT', 'EXCEL'] as const;
export type SheetFormat = (typeof SHEET_FORMATS)[number];

/** The Email part every send shares: sendTo, subject, message, ccMe. */
export interface EmailInput {
  sendTo: Array<{ email: string } | { groupId: number }>;
  subject?: string;
  message?: string;
  ccMe: boolean;
}

function optionalText(b: Obj, attr: string): string | undefined {
  const v = b[attr];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw apiError(1031, describe(v), attr);
  return v;
}

function optionalBool(b: Obj, attr: string): boolean | undefined {
  return optionalBodyBool(b[attr], attr);
}

export function parseEmail(b: Obj): EmailInput {
  const raw = b.sendTo;
  if (raw === undefined || raw === null) throw apiError(1012, 'sendTo');
  if (!Array.isArray(raw)) throw apiError(1031, describe(raw), 'sendTo');
  if (raw.length === 0) throw apiError(1012, 'sendTo');
  if (raw.length > MAX_RECIPIENTS) throw apiError(1031, `${raw.length} recipients (at most ${MAX_RECIPIENTS})`, 'sendTo');
  const sendTo = raw.map((r: unknown) => {
    if (r === null) throw apiError(1176, 'sendTo');
    if (typeof r !== 'object' || Array.isArray(r)) throw apiError(1031, describe(r), 'sendTo');
    const o = r as Obj;
    const hasEmail = o.email !== undefined && o.email !== null && o.email !== '';
    const hasGroup = o.groupId !== undefined && o.groupId !== null;
    if (!hasEmail && !hasGroup) throw apiError(1012, 'email or groupId');
    if (hasEmail && hasGroup) throw apiError(1178, 'email and groupId');
    if (hasEmail) {
      if (!isValidEmail(o.email)) throw apiError(1156);
      return { email: o.email.trim() };
    }
    return { groupId: bodyId(o.groupId, 'groupId') };
  });
  return { sendTo, subject: optionalText(b, 'subject'), message: optionalText(b, 'message'), ccMe: optionalBool(b, 'ccMe') ?? false };
}

/** Every address the recipients name, groups expanded to their members, each once (1106 for a group not in the organization). */
export async function addresses(db: Queryable, orgId: number, sendTo: EmailInput['sendTo']): Promise<string[]> {
  const out = new Map<string, string>();
  for (const r of sendTo) {
    if ('email' in r) {
      out.set(r.email.toLowerCase(), r.email);
      continue;
    }
    const g = await findGroup(db, orgId, r.groupId);
    if (!g) throw apiError(1106);
    for (const m of await groupMembers(db, r.groupId)) out.set(m.email.toLowerCase(), m.email);
  }
  return [...out.values()];
}

export function senderName(actor: Actor): string {
  return nameOrEmail(actor.user);
}

/** A message to each recipient (and the sender with ccMe), replies going to the sender. */
export function payload(actor: Actor, to: string[], e: EmailInput, subject: string, text: string, html: string | undefined): MailPayload {
  return {
    to,
    ...(e.ccMe ? { cc: [actor.user.email] } : {}),
    replyTo: actor.user.email,
    subject: e.subject !== undefined && e.subject.trim() !== '' ? e.subject : subject,
    text,
    ...(html !== undefined ? { html } : {}),
    separately: true,
  };
}

/** The file of a sheet in a format, made by the HTTP layer's presenters. */
export type SheetFileRenderer = (model: SheetModel, sheet: SheetRow, level: AccessLevel, format: SheetFormat, paperSize: string | undefined) => Promise<{ fileName: string; contentType: string; bytes: Buffer }>;

/**
 * Send Sheet via Email: the sheet (rows the sender can see) as a PDF or Excel file attached to a
 * message for each recipient. VIEWER may send (it is a copy of what the sender can read, as an
 * export is). The file is written to the blob store for the mail job and removed once sent.
 */
export async function sendSheetByEmail(store: Store, blobs: BlobStore, actor: Actor, sheetId: number, body: unknown, render: SheetFileRenderer, paperSizes: readonly string[]): Promise<void> {
  const b = asObject(body, 'a SheetEmail object');
  const { email, format, paperSize } = parseFileEmail(b, paperSizes);
  const db = store.db;
  const { sheet, level, model } = await readSheet(db, actor, sheetId);
  const to = await addresses(db, actor.org.id, email.sendTo);
  const file = await render(model, sheet, level, format, paperSize);
  const event: ChangeEvent = { objectType: 'SHEET', action: 'SEND_AS_ATTACHMENT', objectId: sheet.id, sheetId: sheet.id, workspaceId: sheet.workspace_id, details: { format, recipientCount: to.length } };
  await mailFile(store, blobs, actor, to, email, { kind: 'sheet', name: sheet.name }, file, event);
}

/** The Email part plus `format` and `formatDetails.paperSize` of SheetEmail and ReportEmail. */
export function parseFileEmail(b: Obj, paperSizes: readonly string[]): { email: EmailInput; format: SheetFormat; paperSize: string | undefined } {
  const email = parseEmail(b);
  const format = b.format;
  if (format === undefined || format === null) throw apiError(1012, 'format');
  if (!(SHEET_FORMATS as readonly unknown[]).includes(format)) throw apiError(1031, describe(format), 'format');
  let paperSize: string | undefined;
  if (b.formatDetails !== undefined && b.formatDetails !== null) {
    const p = asObject(b.formatDetails, 'a FormatDetails object').paperSize;
    if (p !== undefined && p !== null) {
      if (typeof p !== 'string' || !paperSizes.includes(p)) throw apiError(1053, describe(p));
      paperSize = p;
    }
  }
  return { email, format: format as SheetFormat, paperSize };
}

/**
 * A sheet's or a report's file sent to each recipient: the file is written to the blob store
 * for a `mail` job queued in the transaction that records the event, and removed once sent.
 */
export async function mailFile(
  store: Store,
  blobs: BlobStore,
  actor: Actor,
  to: string[],
  email: EmailInput,
  what: { kind: 'sheet' | 'report'; name: string },
  file: { fileName: string; contentType: string; bytes: Buffer },
  event: ChangeEvent,
): Promise<void> {
  const key = newBlobKey();
  await blobs.put(key, Readable.from([file.bytes]), { contentType: file.contentType, maxBytes: Number.MAX_SAFE_INTEGER });
  try {
    const who = senderName(actor);
    const text = [`${who} (${actor.user.email}) sent you the ${what.kind} "${what.name}".`, email.message ?? '', `The ${what.kind} is attached as ${file.fileName}.`].filter((x) => x !== '').join('\n\n');
    const p = payload(actor, to, email, `${who} sent you "${what.name}"`, text, undefined);
    p.attachments = [{ filename: file.fileName, contentType: file.contentType, blobKey: key }];
    p.deleteBlobs = [key];
    await store.db.transaction().execute(async (tx) => {
      await enqueue(tx, 'mail', p);
      await recordEvents(tx, authorOf(actor), [event]);
    });
  } catch (e) {
    await blobs.delete(key);
    throw e;
  }
}

export type RowsLayout = 'HORIZONTAL' | 'VERTICAL';

/** What a rows message shows, for the HTTP layer's presenter to lay out. */
export interface RowsMail {
  sheet: SheetRow;
  model: SheetModel;
  level: AccessLevel;
  rows: RowState[];
  columns: ColumnDef[];
  layout: RowsLayout;
  sender: { name: string; email: string };
  message?: string;
  /** Each row's attachments (with includeAttachments): files attached or named, links listed. */
  attachments: Map<number, Array<{ name: string; url?: string; attached: boolean }>>;
  /** Each row's discussions (with includeDiscussions): title and comments. */
  discussions: Map<number, Array<{ title: string; comments: Array<{ author: string; text: string; at: number }> }>>;
}

export type RowsMailRenderer = (m: RowsMail) => Promise<{ text: string; html: string }>;

function idArray(v: unknown, attr: string): number[] {
  if (!Array.isArray(v)) throw apiError(1031, describe(v), attr);
  return v.map((x) => bodyId(x, attr));
}

/** What a rows message carries beside the cells: rows' attachments (files attached while they fit) and discussions. */
export interface RowExtras {
  files: Array<{ filename: string; contentType: string; blobKey: string }>;
  attachments: RowsMail['attachments'];
  discussions: RowsMail['discussions'];
}

/** The attachments and discussions of rows, for a rows message (Send Rows via Email, automation). */
export async function rowExtras(db: Queryable, sheetId: number, rowIds: number[], includeAttachments: boolean, includeDiscussions: boolean): Promise<RowExtras> {
  const files: Array<{ filename: string; contentType: string; blobKey: string }> = [];
  const attachments = new Map<number, Array<{ name: string; url?: string; attached: boolean }>>();
  if (includeAttachments) {
    let budget = MAX_ATTACHED_BYTES;
    const all: AttachmentRow[] = await listAttachments(db, sheetId, { type: 'ROW', ids: rowIds });
    for (const a of all.filter((x) => x.current)) {
      const list = attachments.get(a.parent_id) ?? [];
      if (a.blob_key !== null) {
        const size = a.size ?? 0;
        const fits = size <= budget;
        if (fits) {
          budget -= size;
          files.push({ filename: a.name, contentType: a.mime_type ?? 'application/octet-stream', blobKey: a.blob_key });
        }
        list.push({ name: a.name, attached: fits });
      } else {
        list.push({ name: a.name, ...(a.url !== null ? { url: a.url } : {}), attached: false });
      }
      attachments.set(a.parent_id, list);
    }
  }
  const discussions = new Map<number, Array<{ title: string; comments: Array<{ author: string; text: string; at: number }> }>>();
  if (includeDiscussions) {
    const items = await discussionData(db, sheetId, await listDiscussions(db, sheetId, { type: 'ROW', ids: rowIds }));
    const authors = new Map((await findUsersByIds(db, [...new Set(items.flatMap((i) => i.comments.map((c) => c.created_by)).filter((x): x is number => x !== null))])).map((u) => [u.id, u]));
    for (const item of items) {
      const list = discussions.get(item.discussion.parent_id) ?? [];
      const comments = item.comments.map((c) => {
        const u = c.created_by === null ? undefined : authors.get(c.created_by);
        return { author: u ? nameOrEmail(u) : '', text: c.text, at: c.created_at };
      });
      list.push({ title: item.discussion.title, comments });
      discussions.set(item.discussion.parent_id, list);
    }
  }
  return { files, attachments, discussions };
}

/**
 * Send Rows via Email: the rows asked for, with the columns asked for (all visible ones when
 * columnIds is absent, none when it is empty: then attachments or discussions must be
 * included), in the sheet's order, laid out as a grid (HORIZONTAL, the default for several rows) or as cards
 * (VERTICAL, the default for one). VIEWER may send.
 */
export async function sendRowsByEmail(store: Store, actor: Actor, sheetId: number, body: unknown, render: RowsMailRenderer): Promise<void> {
  const b = asObject(body, 'a MultiRowEmail object');
  const email = parseEmail(b);
  if (b.rowIds === undefined || b.rowIds === null) throw apiError(1012, 'rowIds');
  const rowIds = [...new Set(idArray(b.rowIds, 'rowIds'))];
  if (rowIds.length === 0) throw apiError(1012, 'rowIds');
  const columnIds = b.columnIds === undefined || b.columnIds === null ? undefined : [...new Set(idArray(b.columnIds, 'columnIds'))];
  const includeAttachments = optionalBool(b, 'includeAttachments') ?? false;
  const includeDiscussions = optionalBool(b, 'includeDiscussions') ?? false;
  if (columnIds !== undefined && columnIds.length === 0 && !includeAttachments && !includeDiscussions) throw apiError(1012, 'columnIds, includeAttachments or includeDiscussions');
  const layoutRaw = b.layout;
  if (layoutRaw !== undefined && layoutRaw !== null && layoutRaw !== 'HORIZONTAL' && layoutRaw !== 'VERTICAL') throw apiError(1031, describe(layoutRaw), 'layout');

  const db = store.db;
  const { sheet, level, model } = await readSheet(db, actor, sheetId);
  const rows = rowIds.map((id) => {
    const r = model.rows.get(id);
    if (!r) throw apiError(1006);
    return r;
  }).sort((x, y) => (model.tree.rowNumberOf(x.id) ?? 0) - (model.tree.rowNumberOf(y.id) ?? 0));
  const byId = new Map(model.columns.map((c) => [c.id, c]));
  const columns = columnIds === undefined
    ? model.columns.filter((c) => !c.hidden)
    : columnIds.map((id) => {
      const c = byId.get(id);
      if (!c) throw apiError(1006);
      return c;
    }).sort((x, y) => model.columns.indexOf(x) - model.columns.indexOf(y));
  const to = await addresses(db, actor.org.id, email.sendTo);

  const { files, attachments, discussions } = await rowExtras(db, sheetId, rowIds, includeAttachments, includeDiscussions);
  const layout: RowsLayout = layoutRaw === 'HORIZONTAL' || layoutRaw === 'VERTICAL' ? layoutRaw : rows.length > 1 ? 'HORIZONTAL' : 'VERTICAL';
  const who = senderName(actor);
  const { text, html } = await render({ sheet, model, level, rows, columns, layout, sender: { name: who, email: actor.user.email }, message: email.message, attachments, discussions });
  const n = rows.length;
  const p = payload(actor, to, email, `${who} sent you ${n === 1 ? 'a row' : `${n} rows`} from "${sheet.name}"`, text, html);
  if (files.length > 0) p.attachments = files;
  await db.transaction().execute(async (tx) => {
    await enqueue(tx, 'mail', p);
    await recordEvents(tx, authorOf(actor), [{ objectType: 'SHEET', action: 'SEND_ROW', objectId: sheet.id, sheetId: sheet.id, workspaceId: sheet.workspace_id, details: { rowIds: rows.map((r) => r.id), recipientCount: to.length } }]);
  });
}

/**
 * Send Row via Email (POST /sheets/{id}/rows/{rowId}/emails, the Java SDK's deprecated sendRow):
 * Send Rows of the row in the path. The body is a RowEmail, Send Rows' body without `rowIds`
 * (1032 when it has them: the path names the row).
 */
export async function sendRowByEmail(store: Store, actor: Actor, sheetId: number, rowId: number, body: unknown, render: RowsMailRenderer): Promise<void> {
  const b = asObject(body, 'a RowEmail object');
  if (b.rowIds !== undefined) throw apiError(1032, 'rowIds');
  await sendRowsByEmail(store, actor, sheetId, { ...b, rowIds: [rowId] }, render);
}

/** What a share notice names: the shared sheet or workspace and where to open it. */
export interface SharedThing {
  kind: 'sheet' | 'workspace' | 'report' | 'sight';
  name: string;
  link?: string;
}

/**
 * The notice of a new share (Share Sheet / Share Workspace with sendEmail=true), to the person
 * shared with or each member of the group, with the Share object's subject and message and a
 * copy to the sharer with ccMe. Enqueued in the sharing transaction.
 */
export async function enqueueShareNotice(
  tx: Queryable,
  actor: Actor,
  thing: SharedThing,
  to: { email: string } | { groupId: number },
  note: { subject?: string; message?: string; ccMe: boolean },
  accessLevel: string,
): Promise<void> {
  const recipients = await addresses(tx, actor.org.id, [to]);
  if (recipients.length === 0) return;
  const who = senderName(actor);
  const level = accessLevel.charAt(0) + accessLevel.slice(1).toLowerCase();
  const text = [
    `${who} (${actor.user.email}) shared the ${thing.kind === 'sight' ? 'dashboard' : thing.kind} "${thing.name}" with you (${level}).`,
    note.message ?? '',
    thing.link ? `Open it: ${thing.link}` : '',
  ].filter((x) => x !== '').join('\n\n') + '\n';
  const e: EmailInput = { sendTo: [], ccMe: note.ccMe, ...(note.subject !== undefined ? { subject: note.subject } : {}) };
  await enqueue(tx, 'mail', payload(actor, recipients, e, `${who} shared "${thing.name}" with you`, text, undefined));
}

/** subject, message and ccMe of a Share object (all optional). */
export function shareNote(b: Obj): { subject?: string; message?: string; ccMe: boolean } {
  const subject = optionalText(b, 'subject');
  const message = optionalText(b, 'message');
  return { ...(subject !== undefined ? { subject } : {}), ...(message !== undefined ? { message } : {}), ccMe: optionalBool(b, 'ccMe') ?? false };
}
