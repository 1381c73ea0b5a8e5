import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { apiError } from '../../errors.ts';
import { storeFile, type StoredFile } from '../../services/collaboration/attachments.ts';
import {
  addProofVersion, attachToProof, checkProofAttachable, checkProofCreatable, checkProofVersionable, createProof, createProofDiscussion,
  createProofRequest, deleteProof, deleteProofRequestsOf, deleteProofVersion, readProof, readProofAttachments, readProofDiscussions,
  readProofRequestActions, readProofs, readProofSettings, readProofVersions, setProofSettings, setProofStatus, type ProofView,
} from '../../services/collaboration/proofs.ts';
import type { AttachmentRow } from '../../store/attachments.ts';
import { paginate } from '../paging.ts';
import { success } from '../present/envelope.ts';
import { paging, pathId, type Query } from '../query.ts';
import { peopleOf, presentAttachment } from '../present/attachments.ts';
import { presentProof, presentProofRequest, presentRequestAction } from '../present/proofs.ts';
import { answeringEarly, isMultipart, readMultipartFiles } from '../uploads.ts';
import { registerUploads, simpleUpload, withMultipartFile } from './attachments.ts';
import { presentDiscussions } from '../present/threads.ts';

type P = Record<string, string>;

/** Files one Create Proof (or version) request may carry. */
export const PROOF_MAX_FILES = 20;

export async function proofRoutes(app: FastifyInstance): Promise<void> {
  const store = () => app.ctx.store;
  await registerUploads(app, PROOF_MAX_FILES);

  const presentProofs = async (req: FastifyRequest, views: ProofView[], include = req.ro.include) => {
    const people = await peopleOf(store().db, views.flatMap((v) => [v.proof.modified_by, ...v.files.map((f) => f.created_by)]));
    return views.map((v) => presentProof(v, { numericDates: req.ro.numericDates, people }, { attachments: include.has('attachments') }));
  };
  const presentFiles = async (req: FastifyRequest, rows: AttachmentRow[]) => {
    const people = await peopleOf(store().db, rows.map((a) => a.created_by));
    return rows.map((a) => presentAttachment(a, { numericDates: req.ro.numericDates, people }));
  };

  /**
   * The files of an upload: a simple upload's body, or every file part of a multipart request
   * (stored as they stream in; removed again when the request fails). `check` runs before any
   * bytes of a multipart request are stored.
   */
  const withUpload = async <T>(req: FastifyRequest, reply: FastifyReply, check: () => Promise<unknown>, use: (input: ReturnType<typeof simpleUpload> | StoredFile[]) => Promise<T>) =>
    answeringEarly(req, reply, async () => {
      if (isMultipart(req)) {
        await check();
        const stored: StoredFile[] = [];
        try {
          await readMultipartFiles(req, async (f) => stored.push(await storeFile(app.ctx.blobs, f)));
        } catch (e) {
          for (const f of stored) await app.ctx.blobs.delete(f.blobKey);
          throw e;
        }
        return use(stored);
      }
      if (!(req.body instanceof Readable)) throw apiError(req.body === undefined ? 1024 : 1051);
      return use(simpleUpload(req));
    });

  const read = { config: { scope: 'READ_SHEETS' as const } };
  const write = { config: { scope: 'WRITE_SHEETS' as const } };
  const upload = { config: { scope: 'WRITE_SHEETS' as const, cost: 10 } };
  const ids = (p: P) => [pathId(p.sheetId), pathId(p.proofId)] as const;

  app.post('/sheets/:sheetId/rows/:rowId/proofs', upload, async (req: FastifyRequest<{ Params: P }>, reply) => {
    const sheetId = pathId(req.params.sheetId);
    const rowId = pathId(req.params.rowId);
    const view = await withUpload(req, reply, () => checkProofCreatable(store().db, req.actor, sheetId, rowId),
      (input) => createProof(store(), app.ctx.blobs, req.actor, sheetId, rowId, input));
    return success((await presentProofs(req, [view], new Set(['attachments'])))[0]);
  });

  // sheetd: the proof of one row (the reference lists only the sheet's, and a Proof names no row)
  app.get('/sheets/:sheetId/rows/:rowId/proofs', read, async (req: FastifyRequest<{ Params: P }>) => {
    const views = await readProofs(store().db, req.actor, pathId(req.params.sheetId), pathId(req.params.rowId));
    return paginate(await presentProofs(req, views), paging(req.query as Query));
  });

  app.get('/sheets/:sheetId/proofs', read, async (req: FastifyRequest<{ Params: P }>) => {
    const views = await readProofs(store().db, req.actor, pathId(req.params.sheetId));
    return paginate(await presentProofs(req, views), paging(req.query as Query));
  });

  app.get('/sheets/:sheetId/proofs/:proofId', read, async (req: FastifyRequest<{ Params: P }>) => {
    const [sheetId, proofId] = ids(req.params);
    const withDiscussions = req.ro.include.has('discussions');
    const { view, level, discussions } = await readProof(store().db, req.actor, sheetId, proofId, withDiscussions);
    const people = await peopleOf(store().db, [view.proof.modified_by, ...view.files.map((f) => f.created_by)]);
    const ro = { ...req.ro, include: new Set([...req.ro.include, 'comments']) };
    const presented = withDiscussions ? await presentDiscussions(store().db, discussions, ro, level) : undefined;
    return presentProof(view, { numericDates: req.ro.numericDates, people }, { attachments: req.ro.include.has('attachments'), ...(presented ? { discussions: presented } : {}) });
  });

  app.put('/sheets/:sheetId/proofs/:proofId', write, async (req: FastifyRequest<{ Params: P }>) => {
    const [sheetId, proofId] = ids(req.params);
    if (req.body instanceof Readable) throw apiError(1124);
    const view = await setProofStatus(store(), req.actor, sheetId, proofId, req.body);
    return success((await presentProofs(req, [view]))[0]);
  });

  app.delete('/sheets/:sheetId/proofs/:proofId', write, async (req: FastifyRequest<{ Params: P }>) => {
    const [sheetId, proofId] = ids(req.params);
    await deleteProof(store(), req.actor, sheetId, proofId);
    return success();
  });

  app.get('/sheets/:sheetId/proofs/:proofId/versions', read, async (req: FastifyRequest<{ Params: P }>) => {
    const [sheetId, proofId] = ids(req.params);
    return paginate(await presentProofs(req, await readProofVersions(store().db, req.actor, sheetId, proofId)), paging(req.query as Query));
  });

  app.post('/sheets/:sheetId/proofs/:proofId/versions', upload, async (req: FastifyRequest<{ Params: P }>, reply) => {
    const [sheetId, proofId] = ids(req.params);
    const view = await withUpload(req, reply, () => checkProofVersionable(store().db, req.actor, sheetId, proofId),
      (input) => addProofVersion(store(), app.ctx.blobs, req.actor, sheetId, proofId, input));
    return success((await presentProofs(req, [view], new Set(['attachments'])))[0]);
  });

  app.delete('/sheets/:sheetId/proofs/:proofId/versions', write, async (req: FastifyRequest<{ Params: P }>) => {
    const [sheetId, proofId] = ids(req.params);
    await deleteProofVersion(store(), req.actor, sheetId, proofId);
    return success();
  });

  app.get('/sheets/:sheetId/proofs/:proofId/attachments', read, async (req: FastifyRequest<{ Params: P }>) => {
    const [sheetId, proofId] = ids(req.params);
    return paginate(await presentFiles(req, await readProofAttachments(store().db, req.actor, sheetId, proofId)), paging(req.query as Query));
  });

  app.post('/sheets/:sheetId/proofs/:proofId/attachments', upload, async (req: FastifyRequest<{ Params: P }>, reply) => {
    const [sheetId, proofId] = ids(req.params);
    const a = await withUpload(req, reply, () => checkProofAttachable(store().db, req.actor, sheetId, proofId),
      (input) => attachToProof(store(), app.ctx.blobs, req.actor, sheetId, proofId, input));
    return success((await presentFiles(req, [a]))[0]);
  });

  app.get('/sheets/:sheetId/proofs/:proofId/discussions', read, async (req: FastifyRequest<{ Params: P }>) => {
    const [sheetId, proofId] = ids(req.params);
    const { level, items } = await readProofDiscussions(store().db, req.actor, sheetId, proofId);
    return paginate(await presentDiscussions(store().db, items, req.ro, level), paging(req.query as Query));
  });

  app.post('/sheets/:sheetId/proofs/:proofId/discussions', write, async (req: FastifyRequest<{ Params: P }>, reply) => {
    const [sheetId, proofId] = ids(req.params);
    const out = await answeringEarly(req, reply, async () => {
      if (isMultipart(req)) {
        return withMultipartFile(app, req, { discussion: true }, false, ({ json, file }) => createProofDiscussion(store(), req.actor, sheetId, proofId, json.discussion, file));
      }
      if (req.body instanceof Readable) throw apiError(1124);
      if (req.body === undefined) throw apiError(1024);
      return createProofDiscussion(store(), req.actor, sheetId, proofId, req.body);
    });
    const ro = { ...req.ro, include: new Set(['comments', 'attachments']) };
    return success((await presentDiscussions(store().db, [out], ro, 'OWNER'))[0]);
  });

  app.post('/sheets/:sheetId/proofs/:proofId/requests', write, async (req: FastifyRequest<{ Params: P }>) => {
    const [sheetId, proofId] = ids(req.params);
    if (req.body instanceof Readable) throw apiError(1124);
    if (req.body === undefined) throw apiError(1024);
    const proof = (p: { sheet_id: number; id: number }) => `${app.ctx.config.publicUrl}${app.prefix}/sheets/${p.sheet_id}/proofs/${p.id}`;
    const review = (token: string) => `${app.ctx.config.publicUrl}/proofreviews/${token}`;
    const { request, sendTo } = await createProofRequest(store(), req.actor, sheetId, proofId, req.body, { proof, review });
    const people = await peopleOf(store().db, [request.sent_by]);
    return success(presentProofRequest(request, { numericDates: req.ro.numericDates, people }, sendTo));
  });

  app.delete('/sheets/:sheetId/proofs/:proofId/requests', write, async (req: FastifyRequest<{ Params: P }>) => {
    const [sheetId, proofId] = ids(req.params);
    await deleteProofRequestsOf(store(), req.actor, sheetId, proofId);
    return success();
  });

  // sheetd's extension: the sheet's proofing switches (docs/proofs.md)
  app.get('/sheetd/sheets/:sheetId/proofing', read, async (req: FastifyRequest<{ Params: P }>) => readProofSettings(store().db, req.actor, pathId(req.params.sheetId)));
  app.put('/sheetd/sheets/:sheetId/proofing', { config: { scope: 'ADMIN_SHEETS' as const, body: 'required' as const } }, async (req: FastifyRequest<{ Params: P }>) => {
    if (req.body instanceof Readable) throw apiError(1124);
    return success(await setProofSettings(store(), req.actor, pathId(req.params.sheetId), req.body));
  });

  app.get('/sheets/:sheetId/proofs/:proofId/requestactions', read, async (req: FastifyRequest<{ Params: P }>) => {
    const [sheetId, proofId] = ids(req.params);
    const actions = await readProofRequestActions(store().db, req.actor, sheetId, proofId);
    return paginate(actions.map(presentRequestAction), paging(req.query as Query));
  });
}
