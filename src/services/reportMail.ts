import { Readable } from 'node:stream';
import type { Store } from '../store/db.ts';
import { enqueue } from '../store/jobs.ts';
import { findGroup, groupMembers } from '../store/groups.ts';
import { newBlobKey, type BlobStore } from '../blobs/index.ts';
import type { MailPayload } from '../mail/index.ts';
import { apiError } from '../errors.ts';
import { asObject, bodyId, isObject } from '../engine/input.ts';
import type { Actor } from './context.ts';
import { authorOf, recordEvents } from './events.ts';
import { reportFor } from './reportAccess.ts';
import { isValidEmail } from './users.ts';
import { DELETE_BLOBS_JOB } from './attachments.ts';
import { groupTablesExist } from './containers.ts';

/** The formats Send Report via Email takes. */
export const REPORT_MAIL_FORMATS = ['EXCEL', 'PDF', 'PDF_GANTT'] as const;
export type ReportMailFormat = (typeof REPORT_MAIL_FORMATS)[number];
/** `formatDetails.paperSize` of the PDF formats (the reference's list). */
export const REPORT_PAPER_SIZES = ['LETTER', 'LEGAL', 'WIDE', 'ARCHD', 'A4', 'A3', 'A2', 'A1', 'A0'] as const;
export type ReportPaperSize = (typeof REPORT_PAPER_SIZES)[number];

/** The file a report is sent as, made by the caller (the HTTP layer renders reports). */
export interface ReportFile {
  bytes: Buffer;
  filename: string;
  contentType: string;
}

/** How long the file of a sent report is kept for the mail job (its retries included). */
export const REPORT_MAIL_FILE_TTL_MS = 3 * 24 * 3600 * 1000;

/** At most this many recipients (addresses and groups' members) in one send. */
export const MAX_REPORT_RECIPIENTS = 1000;

function optionalText(v: unknown, attr: string, max: number): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw apiError(1031, String(v), attr);
  if (v.length > max) throw apiError(1041, attr, max, v.length);
  return v;
}

/**
 * Send Report via Email (VIEWER on the report): `sendTo` addresses and groups (their members),
 * `subject`, `message`, `ccMe`, `format` (EXCEL; PDF and PDF_GANTT with
 * `formatDetails.paperSize`). The file is rendered now, as the caller sees the
 * report, stored on the blob store and mailed by a `mail` job queued in the transaction that
 * records the event; a later job removes the file.
 */
export async function emailReport(
  store: Store, blobs: BlobStore, actor: Actor, id: number, body: unknown, render: (format: ReportMailFormat, paperSize: ReportPaperSize) => Promise<ReportFile>,
): Promise<void> {
  const { report } = await reportFor(store.db, actor, id, 'VIEWER');
  const b = asObject(body, 'a ReportEmail object');
  if (b.sendTo === undefined || b.sendTo === null || (Array.isArray(b.sendTo) && b.sendTo.length === 0)) throw apiError(1012, 'sendTo');
  if (!Array.isArray(b.sendTo)) throw apiError(1031, JSON.stringify(b.sendTo), 'sendTo');
  const format = b.format ?? 'EXCEL';
  if (typeof format !== 'string' || !(REPORT_MAIL_FORMATS as readonly string[]).includes(format)) throw apiError(1031, String(format), 'format');
  let paperSize: ReportPaperSize = 'LETTER';
  if (b.formatDetails !== undefined && b.formatDetails !== null) {
    const d = asObject(b.formatDetails, 'a FormatDetails object');
    if (d.paperSize !== undefined && d.paperSize !== null) {
      if (typeof d.paperSize !== 'string' || !(REPORT_PAPER_SIZES as readonly string[]).includes(d.paperSize)) throw apiError(1031, String(d.paperSize), 'formatDetails.paperSize');
      paperSize = d.paperSize as ReportPaperSize;
    }
  }
  const subject = optionalText(b.subject, 'subject', 4000) ?? `${report.name}`;
  const message = optionalText(b.message, 'message', 4000);
  if (b.ccMe !== undefined && b.ccMe !== null && typeof b.ccMe !== 'boolean') throw apiError(1031, String(b.ccMe), 'ccMe');
  const to = new Set<string>();
  for (const [i, r] of b.sendTo.entries()) {
    if (!isObject(r)) throw apiError(1031, JSON.stringify(r) ?? String(r), `sendTo[${i}]`);
    if (r.email !== undefined && r.email !== null) {
      if (!isValidEmail(r.email)) throw apiError(1156);
      to.add(r.email.trim().toLowerCase());
    } else if (r.groupId !== undefined && r.groupId !== null) {
      const gid = bodyId(r.groupId, `sendTo[${i}].groupId`);
      if (!(await groupTablesExist(store.db)) || !(await findGroup(store.db, actor.org.id, gid))) throw apiError(1106);
      for (const m of await groupMembers(store.db, gid)) to.add(m.email.toLowerCase());
    } else {
      throw apiError(1012, `sendTo[${i}].email or groupId`);
    }
  }
  if (to.size > MAX_REPORT_RECIPIENTS) throw apiError(1066, MAX_REPORT_RECIPIENTS);
  const file = await render(format as ReportMailFormat, paperSize);
  const blobKey = newBlobKey();
  await blobs.put(blobKey, Readable.from([file.bytes]), { contentType: file.contentType, maxBytes: file.bytes.length });
  const sender = actor.user.email;
  const payload: MailPayload = {
    to: [...to],
    ...(b.ccMe === true ? { cc: [sender] } : {}),
    replyTo: sender,
    subject,
    text: `${message !== undefined ? `${message}\n\n` : ''}${sender} sent you the report "${report.name}" (attached).\n`,
    attachments: [{ filename: file.filename, contentType: file.contentType, blobKey }],
  };
  try {
    await store.db.transaction().execute(async (tx) => {
      const now = Date.now();
      await enqueue(tx, 'mail', payload);
      await enqueue(tx, DELETE_BLOBS_JOB, { keys: [blobKey] }, { runAt: now + REPORT_MAIL_FILE_TTL_MS });
      await recordEvents(tx, authorOf(actor), [{ objectType: 'REPORT', action: 'SEND_AS_ATTACHMENT', objectId: report.id, workspaceId: report.workspace_id, details: { format, recipientCount: to.size } }], now);
    });
  } catch (e) {
    await blobs.delete(blobKey);
    throw e;
  }
}
