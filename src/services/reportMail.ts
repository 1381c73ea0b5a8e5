import { Readable } from 'node:stream';
import type { Store } from '../store/db.ts';
import { enqueue } from '../store/jobs.ts';
import { newBlobKey, type BlobStore } from '../blobs/index.ts';
import { apiError } from '../errors.ts';
import { asObject, describe } from '../engine/input.ts';
import type { Actor } from './context.ts';
import { authorOf, recordEvents } from './events.ts';
import { reportFor } from './reportAccess.ts';
import { addresses, parseEmail, payload, senderName, SHEET_FORMATS, type SheetFormat } from './emails.ts';

/** The file a report is sent as, made by the HTTP layer's presenters. */
export interface ReportFile {
  bytes: Buffer;
  fileName: string;
  contentType: string;
}

export type ReportFileRenderer = (format: SheetFormat, paperSize: string | undefined) => Promise<ReportFile>;

/**
 * Send Report via Email (VIEWER on the report), as Send Sheet via Email (services/emails.ts):
 * `sendTo`, `subject`, `message`, `ccMe`, `format` (EXCEL, PDF, PDF_GANTT) and
 * `formatDetails.paperSize`. The file is the report as the sender sees it now, written to the
 * blob store for a `mail` job queued in the transaction that records the event, and removed
 * once the message is sent.
 */
export async function emailReport(store: Store, blobs: BlobStore, actor: Actor, id: number, body: unknown, render: ReportFileRenderer, paperSizes: readonly string[]): Promise<void> {
  const b = asObject(body, 'a ReportEmail object');
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
  const db = store.db;
  const { report } = await reportFor(db, actor, id, 'VIEWER');
  const to = await addresses(db, actor, email.sendTo);
  const file = await render(format as SheetFormat, paperSize);
  const key = newBlobKey();
  await blobs.put(key, Readable.from([file.bytes]), { contentType: file.contentType, maxBytes: Number.MAX_SAFE_INTEGER });
  try {
    const who = senderName(actor);
    const text = [`${who} (${actor.user.email}) sent you the report "${report.name}".`, email.message ?? '', `The report is attached as ${file.fileName}.`].filter((x) => x !== '').join('\n\n');
    const p = payload(actor, to, email, `${who} sent you "${report.name}"`, text, undefined);
    p.attachments = [{ filename: file.fileName, contentType: file.contentType, blobKey: key }];
    p.deleteBlobs = [key];
    await db.transaction().execute(async (tx) => {
      const now = Date.now();
      await enqueue(tx, 'mail', p);
      await recordEvents(tx, authorOf(actor), [{ objectType: 'REPORT', action: 'SEND_AS_ATTACHMENT', objectId: report.id, workspaceId: report.workspace_id, details: { format, recipientCount: to.length } }], now);
    });
  } catch (e) {
    await blobs.delete(key);
    throw e;
  }
}
