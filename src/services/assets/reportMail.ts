import type { Store } from '../../store/db.ts';
import type { BlobStore } from '../../blobs/index.ts';
import { asObject } from '../../engine/input.ts';
import type { Actor } from '../platform/context.ts';
import { reportAccess } from '../access/assetAccess.ts';
import { addresses, mailFile, parseFileEmail, type SheetFormat } from '../outbound/emails.ts';

/** The file a report is sent as, made by the HTTP layer's presenters. */
export interface ReportFile {
  bytes: Buffer;
  fileName: string;
  contentType: string;
}

export type ReportFileRenderer = (format: SheetFormat, paperSize: string | undefined) => Promise<ReportFile>;

/**
 * Send Report via Email (VIEWER on the report), as Send Sheet via Email (services/outbound/emails.ts):
 * `sendTo`, `subject`, `message`, `ccMe`, `format` (EXCEL, PDF, PDF_GANTT) and
 * `formatDetails.paperSize`. The file is the report as the sender sees it now, written to the
 * blob store for a `mail` job queued in the transaction that records the event, and removed
 * once the message is sent.
 */
export async function emailReport(store: Store, blobs: BlobStore, actor: Actor, id: number, body: unknown, render: ReportFileRenderer, paperSizes: readonly string[]): Promise<void> {
  const b = asObject(body, 'a ReportEmail object');
  const { email, format, paperSize } = parseFileEmail(b, paperSizes);
  const db = store.db;
  const { asset: report } = await reportAccess.require(db, actor, id, 'VIEWER');
  const to = await addresses(db, actor.org.id, email.sendTo);
  const file = await render(format, paperSize);
  const event = { objectType: 'REPORT', action: 'SEND_AS_ATTACHMENT', objectId: report.id, workspaceId: report.workspace_id, details: { format, recipientCount: to.length } };
  await mailFile(store, blobs, actor, to, email, { kind: 'report', name: report.name }, file, event);
}
