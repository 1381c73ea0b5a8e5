import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { apiError } from '../../errors.ts';
import {
  addSummaryFieldImage, addSummaryFields, deleteSummaryFields, getSummary, updateSummaryFields,
  type SummaryWriteResult,
} from '../../services/computed/summary.ts';
import type { ReadOptions } from '../../services/platform/context.ts';
import { paginate } from '../paging.ts';
import { bulkResult, success } from '../present/envelope.ts';
import { errorBody } from '../errors.ts';
import { presentField, presentSummary } from '../present/summary.ts';
import { bool, idList, one, paging, pathId, type Query } from '../query.ts';
import { answeringEarly, fileByDisposition, fileNameOf, streamingParser } from '../uploads.ts';

type SheetReq = FastifyRequest<{ Params: { sheetId: string } }>;
type FieldReq = FastifyRequest<{ Params: { sheetId: string; fieldId: string } }>;

/** Sheet summary: get (whole, or paged fields), add, update, delete fields, add an image to a field. */
export async function summaryRoutes(app: FastifyInstance): Promise<void> {
  const store = () => app.ctx.store;
  const base = () => app.ctx.config.publicUrl;

  // the image upload's body is the image itself, handed on as a stream (this plugin only)
  const stream = streamingParser(() => app.ctx.config.bodyLimit);
  app.addContentTypeParser('application/octet-stream', stream);
  app.addContentTypeParser(/^image\/[\w.+-]+$/i, stream);

  function written(out: SummaryWriteResult, ro: ReadOptions) {
    const failed = out.failures.map((f) => ({ index: f.index, error: errorBody(f.error) }));
    return bulkResult({ result: out.fields.map((f) => presentField(out.read, f, ro, base())) }, failed, out.version);
  }
  function writeOptions(req: FastifyRequest) {
    const q = req.query as Query;
    return { renameIfConflict: bool(q, 'renameIfConflict'), allowPartialSuccess: bool(q, 'allowPartialSuccess'), numericDates: req.ro.numericDates, level: req.ro.level };
  }

  app.get('/sheets/:sheetId/summary', { config: { scope: 'READ_SHEETS' } }, async (req: SheetReq) => {
    const s = await getSummary(store().db, req.actor, pathId(req.params.sheetId));
    return presentSummary(s, req.ro, base());
  });

  app.get('/sheets/:sheetId/summary/fields', { config: { scope: 'READ_SHEETS' } }, async (req: SheetReq) => {
    const s = await getSummary(store().db, req.actor, pathId(req.params.sheetId));
    return paginate(presentSummary(s, req.ro, base()).fields, paging(req.query as Query));
  });

  app.post('/sheets/:sheetId/summary/fields', { config: { scope: 'ADMIN_SHEETS', body: 'required' } }, async (req: SheetReq) =>
    written(await addSummaryFields(store(), req.actor, pathId(req.params.sheetId), req.body, writeOptions(req)), req.ro));

  app.put('/sheets/:sheetId/summary/fields', { config: { scope: 'ADMIN_SHEETS', body: 'required' } }, async (req: SheetReq) =>
    written(await updateSummaryFields(store(), req.actor, pathId(req.params.sheetId), req.body, writeOptions(req)), req.ro));

  app.delete('/sheets/:sheetId/summary/fields', { config: { scope: 'ADMIN_SHEETS' } }, async (req: SheetReq) => {
    const q = req.query as Query;
    if (one(q, 'ids') === undefined) throw apiError(1009, 'ids');
    const out = await deleteSummaryFields(store(), req.actor, pathId(req.params.sheetId), idList(q, 'ids'), bool(q, 'ignoreSummaryFieldsNotFound'));
    return success(out.deleted, out.version);
  });

  app.post('/sheets/:sheetId/summary/fields/:fieldId/images', { config: { scope: 'WRITE_SHEETS', cost: 10, body: 'required' }, onRequest: fileByDisposition }, async (req: FieldReq, reply) => {
    // a JSON body (or any other parsed type) is not an image upload
    if (!(req.body instanceof Readable)) throw apiError(1124);
    const body = req.body;
    const sheetId = pathId(req.params.sheetId);
    const fieldId = pathId(req.params.fieldId);
    const q = req.query as Query;
    const out = await answeringEarly(req, reply, () => addSummaryFieldImage(store(), app.ctx.blobs, req.actor, sheetId, fieldId, {
      body,
      maxBytes: app.ctx.config.bodyLimit,
      fileName: fileNameOf(req.headers['content-disposition']),
      altText: one(q, 'altText'),
    }));
    return success(presentField(out.read, out.fields[0]!, req.ro, base()), out.version);
  });
}
