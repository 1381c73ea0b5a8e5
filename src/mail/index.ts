import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type nodemailer from 'nodemailer';
import type { MailConfig } from '../config.ts';
import type { BlobStore } from '../blobs/index.ts';
import { clock } from '../clock.ts';

/** Recipients and content of a message; the From address is the server's (SHEETD_MAIL_FROM). */
interface MailContent {
  to: string[];
  cc?: string[];
  bcc?: string[];
  replyTo?: string;
  subject: string;
  text: string;
  html?: string;
}

/** One outgoing message. */
export interface MailMessage extends MailContent {
  attachments?: MailAttachment[];
}

export interface MailAttachment {
  filename: string;
  contentType?: string;
  /** A stream is read as the message is sent, never whole into memory. */
  content: Buffer | Readable;
}

export interface Mailer {
  /** Sends the message (or writes it to the outbox); rejects when it was not accepted. */
  send(message: MailMessage): Promise<void>;
  close(): void;
}

/**
 * The mailer the configuration names: SMTP when SMTP_URL is set, otherwise each message is an
 * RFC 5322 `.eml` file in `<dataDir>/outbox/` (the embedded default, and what a developer
 * testing an integration reads). Messages are sent by the job worker, never inside a request.
 */
export function createMailer(config: MailConfig, dataDir: string): Mailer {
  return config.smtpUrl !== undefined ? smtpMailer(config.smtpUrl, config.from) : outboxMailer(path.join(dataDir, 'outbox'), config.from);
}

function mailOptions(from: string, m: MailMessage) {
  return {
    from,
    to: m.to,
    cc: m.cc,
    bcc: m.bcc,
    replyTo: m.replyTo,
    subject: m.subject,
    text: m.text,
    html: m.html,
    attachments: m.attachments?.map((a) => ({ filename: a.filename, contentType: a.contentType, content: a.content })),
  };
}

/**
 * A transport made when the first message is sent: nodemailer is loaded then, so a server that
 * sends no mail does not hold its code (about 3 MB of heap).
 */
function atFirstMessage<T extends { close(): void }>(make: (mailer: typeof nodemailer) => T): { get(): Promise<T>; close(): void } {
  let made: Promise<T> | undefined;
  return {
    get: () => (made ??= import('nodemailer').then((m) => make(m.default))),
    close: () => void made?.then((t) => t.close(), () => {}),
  };
}

function smtpMailer(url: string, from: string): Mailer {
  const transport = atFirstMessage((mailer) => mailer.createTransport(url));
  return {
    async send(m) {
      await (await transport.get()).sendMail(mailOptions(from, m));
    },
    close: () => transport.close(),
  };
}

/**
 * Writes `<outbox>/<UTC time>-<random>.eml`: to a temporary name first, then renamed, so a
 * reader never sees half a message; files 0600, the directory 0700 (mail is private). The
 * file keeps its Bcc header, as the record of whom the message was for.
 */
function outboxMailer(outbox: string, from: string): Mailer {
  const transport = atFirstMessage((mailer) => mailer.createTransport({ streamTransport: true, buffer: false, newline: 'windows' }));
  return {
    async send(m) {
      await fsp.mkdir(outbox, { recursive: true, mode: 0o700 });
      const info = await (await transport.get()).sendMail(mailOptions(from, m));
      const name = `${new Date(clock.now()).toISOString().replace(/[:.]/g, '-')}-${randomBytes(6).toString('hex')}.eml`;
      const temp = path.join(outbox, `.${name}.tmp`);
      try {
        await pipeline(info.message as Readable, fs.createWriteStream(temp, { flags: 'wx', mode: 0o600, flush: true }));
        await fsp.rename(temp, path.join(outbox, name));
      } catch (e) {
        await fsp.rm(temp, { force: true });
        throw e;
      }
    },
    close: () => transport.close(),
  };
}

/**
 * A mail job's payload: what a service enqueues in its transaction (plain JSON). Attachments
 * name blobs, so a job row never holds file bytes.
 */
export interface MailPayload extends MailContent {
  attachments?: Array<{ filename: string; contentType?: string; blobKey: string }>;
  /** Each address of `to` gets its own copy (recipients do not see each other); cc gets one. */
  separately?: boolean;
  /** Blobs made only for this message (an emailed sheet's file): removed once it is sent. */
  deleteBlobs?: string[];
}

/** The message of a mail job, its attachments streamed from the blob store. */
export async function messageFromPayload(p: MailPayload, blobs: BlobStore): Promise<MailMessage> {
  const attachments: MailAttachment[] = [];
  for (const a of p.attachments ?? []) {
    const blob = await blobs.get(a.blobKey);
    attachments.push({ filename: a.filename, contentType: a.contentType ?? blob.contentType, content: blob.stream });
  }
  const { attachments: _named, separately: _s, deleteBlobs: _d, ...rest } = p;
  return { ...rest, ...(attachments.length > 0 ? { attachments } : {}) };
}

/** The handler of `mail` jobs: `handlers.register('mail', mailJobHandler(mailer, blobs))`. */
export function mailJobHandler(mailer: Mailer, blobs: BlobStore): (payload: MailPayload) => Promise<void> {
  return async (payload) => {
    const { separately, deleteBlobs, ...content } = payload;
    // one message per recipient, or one for all; a retry after a partial failure sends again
    // (jobs run at least once)
    const copies: MailPayload[] = separately
      ? [...content.to.map((to) => ({ ...content, to: [to], cc: undefined })), ...(content.cc?.length ? [{ ...content, to: content.cc, cc: undefined }] : [])]
      : [content];
    for (const copy of copies) await sendOne(mailer, blobs, copy);
    for (const key of deleteBlobs ?? []) await blobs.delete(key);
  };
}

async function sendOne(mailer: Mailer, blobs: BlobStore, payload: MailPayload): Promise<void> {
  const message = await messageFromPayload(payload, blobs);
  try {
    await mailer.send(message);
  } finally {
    // a send that failed early leaves attachment streams unread: let go of their files
    for (const a of message.attachments ?? []) if (!Buffer.isBuffer(a.content)) a.content.destroy();
  }
}
