import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { apiError } from '../../errors.ts';
import { addImageToCell, createImageUrls, imageForToken, IMAGE_URL_TTL_MS } from '../../services/sheets/images.ts';
import { bool, one, pathId, type Query } from '../query.ts';
import { success } from '../present/envelope.ts';
import { errorBody } from '../errors.ts';
import { dispositionOf } from '../download.ts';
import { answeringEarly, fileByDisposition, fileNameOf, streamingParser } from '../uploads.ts';
import { presentRow } from '../present/sheetContents.ts';
import { userLookup } from '../../services/sheets/sheetReads.ts';
import { clock } from '../../clock.ts';

type CellRoute = { Params: { sheetId: string; rowId: string; columnId: string } };

const IMAGE_TYPES = ['image/png', 'image/gif', 'image/jpeg', 'image/bmp', 'image/webp'];

/**
 * Cell images: upload into a cell (raw bytes), temporary URLs for images the caller can see,
 * and the public GET that serves an image at such a URL (no Authorization: browsers open it).
 */
export async function imageRoutes(app: FastifyInstance): Promise<void> {
  const store = () => app.ctx.store;
  const base = () => app.ctx.config.publicUrl;

  // The upload's body is the image itself, handed on as a stream; only routes of this plugin
  // see these parsers.
  const stream = streamingParser(() => app.ctx.config.bodyLimit);
  app.addContentTypeParser('application/octet-stream', stream);
  app.addContentTypeParser(/^image\/[\w.+-]+$/i, stream);

  app.post<CellRoute>('/sheets/:sheetId/rows/:rowId/columns/:columnId/cellimages', {
    config: { scope: 'WRITE_SHEETS', cost: 10, body: 'required' }, onRequest: fileByDisposition,
  }, async (req, reply) => {
    // a JSON body (or any other parsed type) is not an image upload
    if (!(req.body instanceof Readable)) throw apiError(1124);
    const body = req.body;
    const out = await answeringEarly(req, reply, async () => {
      const sheetId = pathId(req.params.sheetId);
      const rowId = pathId(req.params.rowId);
      const columnId = pathId(req.params.columnId);
      const q = req.query as Query;
      return addImageToCell(store(), app.ctx.blobs, req.actor, sheetId, rowId, columnId, {
        body,
        maxBytes: app.ctx.config.bodyLimit,
        fileName: fileNameOf(req.headers['content-disposition']),
        altText: one(q, 'altText'),
        overrideValidation: bool(q, 'overrideValidation'),
        numericDates: req.ro.numericDates,
        level: req.ro.level,
      });
    });
    const users = await userLookup(store().db, [out.result]);
    return success(presentRow(out.model, out.result, { ro: req.ro, level: out.level, users, permalinkBase: base() }), out.version);
  });

  app.post('/imageurls', { config: { scope: 'READ_SHEETS', body: 'required' } }, async (req) => {
    const items = await createImageUrls(store().db, req.actor, req.body);
    return {
      urlExpiresInMillis: IMAGE_URL_TTL_MS,
      imageUrls: items.map((i) => ('error' in i
        ? { imageId: i.imageId, error: errorBody(i.error) }
        : { imageId: i.imageId, url: `${base()}${app.prefix}/imageurls/${i.token}` })),
    };
  });

  app.get('/imageurls/:token', { config: { public: true, produces: IMAGE_TYPES } }, async (req: FastifyRequest<{ Params: { token: string } }>, reply) => {
    const img = await imageForToken(store().db, app.ctx.blobs, req.params.token);
    const maxAge = Math.max(0, Math.floor((img.expiresAt - clock.now()) / 1000));
    return reply
      .header('content-type', img.mimeType)
      .header('cache-control', `private, max-age=${maxAge}`)
      .header('expires', new Date(img.expiresAt).toUTCString())
      .header('x-content-type-options', 'nosniff')
      .header('content-disposition', dispositionOf(img.fileName, 'inline'))
      .header('content-length', img.size)
      .send(img.stream);
  });
}
