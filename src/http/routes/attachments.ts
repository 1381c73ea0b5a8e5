import { Readable } from 'node:stream';
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { apiError } from '../../errors.ts';
import {
  ATTACHMENT_MAX_BYTES, attach, attachmentUrlToken, attachVersion, checkAttachable, checkVersionable, deleteAttachment,
  fileForToken, readAttachment, readAttachments, readVersions, storeFile, type FileUpload, type Parent, type StoredFile,
} from '../../services/collaboration/attachments.ts';
import type { AttachmentRow } from '../../store/attachments.ts';
import { paginate } from '../paging.ts';
import { success } from '../present/envelope.ts';
import { paging, pathId, type Query } from '../query.ts';
import { dispositionOf } from '../download.ts';
import { peopleOf, presentAttachment } from '../present/attachments.ts';
import { answeringEarly, fileByDisposition, fileNameOf, isMultipart, readMultipart, streamingParser } from '../uploads.ts';
import { clock } from '../../clock.ts';

type P = Record<string, string>;

/** Multipart limits: one file part and a few JSON parts; the file's size is enforced as it streams. */
export async function registerUploads(app: FastifyInstance, files = 2): Promise<void> {
  await app.register(multipart, { limits: { fileSize: ATTACHMENT_MAX_BYTES + 1, files, parts: files + 8, fieldSize: 1024 * 1024 }, throwFileSizeLimit: true });
  // a simple upload's body is the file, of any type (JSON stays a URL attachment)
  app.addContentTypeParser('*', streamingParser(() => ATTACHMENT_MAX_BYTES));
  app.addHook('onRequest', fileByDisposition);
}

/** The file of a simple upload (the body) as the service takes it. */
export function simpleUpload(req: FastifyRequest): FileUpload {
  if (!(req.body instanceof Readable)) throw apiError(1024);
  return {
    body: req.body,
    fileName: fileNameOf(req.headers['content-disposition']),
    contentType: req.headers['content-type'] === 'application/octet-stream' ? null : req.headers['content-type'] ?? null,
    tooLarge: () => apiError(1074, `more than ${ATTACHMENT_MAX_BYTES} bytes`, `${ATTACHMENT_MAX_BYTES} bytes`),
  };
}

/**
 * Runs `use` with the file of a multipart request, stored on the blob store as it streams in;
 * the blob goes again when the request fails after it was stored.
 */
export async function withMultipartFile<T>(
  app: FastifyInstance, req: FastifyRequest, json: Record<string, boolean>, fileRequired: boolean,
  use: (parts: { json: Record<string, unknown>; file: StoredFile | undefined }) => Promise<T>,
): Promise<T> {
  let stored: StoredFile | undefined;
  try {
    const parts = await readMultipart(req, { json, fileRequired }, async (f) => (stored = await storeFile(app.ctx.blobs, f)));
    return await use(parts);
  } catch (e) {
    if (stored) await app.ctx.blobs.delete(stored.blobKey);
    throw e;
  }
}

export async function attachmentRoutes(app: FastifyInstance): Promise<void> {
  const store = () => app.ctx.store;
  await registerUploads(app);

  const present = async (req: FastifyRequest, rows: AttachmentRow[]) => {
    const people = await peopleOf(store().db, rows.map((a) => a.created_by));
    return rows.map((a) => presentAttachment(a, { numericDates: req.ro.numericDates, people }));
  };
  const presentOne = async (req: FastifyRequest, a: AttachmentRow) => (await present(req, [a]))[0]!;

  /** Attach a file (simple or multipart upload) or a URL (JSON) to a parent. */
  const attachTo = (parentOf: (p: P) => Parent) => async (req: FastifyRequest<{ Params: P }>, reply: FastifyReply) => {
    const sheetId = pathId(req.params.sheetId);
    const parent = parentOf(req.params);
    const a = await answeringEarly(req, reply, async () => {
      if (isMultipart(req)) {
        await checkAttachable(store().db, req.actor, sheetId, parent);
        return withMultipartFile(app, req, {}, true, ({ file }) => attach(store(), app.ctx.blobs, req.actor, sheetId, parent, { stored: file! }));
      }
      if (req.body instanceof Readable) return attach(store(), app.ctx.blobs, req.actor, sheetId, parent, { file: simpleUpload(req) });
      if (req.body === undefined) throw apiError(1024);
      return attach(store(), app.ctx.blobs, req.actor, sheetId, parent, { json: req.body });
    });
    return success(await presentOne(req, a));
  };
  const post = { config: { scope: 'WRITE_SHEETS' as const, cost: 10 } };
  app.post('/sheets/:sheetId/attachments', post, attachTo((p) => ({ type: 'SHEET', id: pathId(p.sheetId) })));
  app.post('/sheets/:sheetId/rows/:rowId/attachments', post, attachTo((p) => ({ type: 'ROW', id: pathId(p.rowId) })));
  app.post('/sheets/:sheetId/comments/:commentId/attachments', post, attachTo((p) => ({ type: 'COMMENT', id: pathId(p.commentId) })));

  const read = { config: { scope: 'READ_SHEETS' as const } };
  app.get('/sheets/:sheetId/attachments', read, async (req: FastifyRequest<{ Params: P }>) => {
    const rows = await readAttachments(store().db, req.actor, pathId(req.params.sheetId), { type: 'SHEET' });
    return paginate(await present(req, rows), paging(req.query as Query));
  });
  app.get('/sheets/:sheetId/rows/:rowId/attachments', read, async (req: FastifyRequest<{ Params: P }>) => {
    const rows = await readAttachments(store().db, req.actor, pathId(req.params.sheetId), { type: 'ROW', id: pathId(req.params.rowId) });
    return paginate(await present(req, rows), paging(req.query as Query));
  });
  app.get('/sheets/:sheetId/discussions/:discussionId/attachments', read, async (req: FastifyRequest<{ Params: P }>) => {
    const rows = await readAttachments(store().db, req.actor, pathId(req.params.sheetId), { type: 'DISCUSSION', id: pathId(req.params.discussionId) });
    return paginate(await present(req, rows), paging(req.query as Query));
  });

  app.get('/sheets/:sheetId/attachments/:attachmentId', read, async (req: FastifyRequest<{ Params: P }>) => {
    const a = await readAttachment(store().db, req.actor, pathId(req.params.sheetId), pathId(req.params.attachmentId));
    const people = await peopleOf(store().db, [a.created_by]);
    const url = a.blob_key === null ? undefined : `${app.ctx.config.publicUrl}${app.prefix}/attachmentfiles/${await attachmentUrlToken(store().db, a)}`;
    return presentAttachment(a, { numericDates: req.ro.numericDates, people, url });
  });

  const write = { config: { scope: 'WRITE_SHEETS' as const } };
  app.delete('/sheets/:sheetId/attachments/:attachmentId', write, async (req: FastifyRequest<{ Params: P }>) => {
    await deleteAttachment(store(), req.actor, pathId(req.params.sheetId), pathId(req.params.attachmentId), false);
    return success();
  });
  app.delete('/sheets/:sheetId/attachments/:attachmentId/versions', write, async (req: FastifyRequest<{ Params: P }>) => {
    await deleteAttachment(store(), req.actor, pathId(req.params.sheetId), pathId(req.params.attachmentId), true);
    return success();
  });
  app.get('/sheets/:sheetId/attachments/:attachmentId/versions', read, async (req: FastifyRequest<{ Params: P }>) => {
    const rows = await readVersions(store().db, req.actor, pathId(req.params.sheetId), pathId(req.params.attachmentId));
    return paginate(await present(req, rows), paging(req.query as Query));
  });
  app.post('/sheets/:sheetId/attachments/:attachmentId/versions', post, async (req: FastifyRequest<{ Params: P }>, reply) => {
    const sheetId = pathId(req.params.sheetId);
    const attachmentId = pathId(req.params.attachmentId);
    const a = await answeringEarly(req, reply, async () => {
      if (isMultipart(req)) {
        await checkVersionable(store().db, req.actor, sheetId, attachmentId);
        return withMultipartFile(app, req, {}, true, ({ file }) => attachVersion(store(), app.ctx.blobs, req.actor, sheetId, attachmentId, file!));
      }
      if (!(req.body instanceof Readable)) throw apiError(req.body === undefined ? 1024 : 1051);
      return attachVersion(store(), app.ctx.blobs, req.actor, sheetId, attachmentId, simpleUpload(req));
    });
    return success(await presentOne(req, a));
  });

  // The temporary URL of Get Attachment: no Authorization (a browser opens it), the token is
  // the permission (signed, expiring).
  app.get('/attachmentfiles/:token', { config: { public: true, produces: ['*/*'] } }, async (req: FastifyRequest<{ Params: { token: string } }>, reply) => {
    const f = await fileForToken(store().db, app.ctx.blobs, req.params.token);
    const maxAge = Math.max(0, Math.floor((f.expiresAt - clock.now()) / 1000));
    return reply
      .header('content-type', f.mimeType)
      .header('cache-control', `private, max-age=${maxAge}`)
      .header('x-content-type-options', 'nosniff')
      .header('content-disposition', dispositionOf(f.fileName))
      .header('content-length', f.size)
      .send(f.stream);
  });
}
