import { PassThrough, Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { apiError } from '../../errors.ts';
import { addImageToCell, createImageUrls, imageForToken, IMAGE_URL_TTL_MS } from '../../services/images.ts';
import { bool, one, pathId, type Query } from '../query.ts';
import { success } from '../present.ts';
import { errorBody } from '../errors.ts';
import { dispositionOf } from '../download.ts';
import { presentRow } from '../present/sheetData.ts';
import { userLookup } from './sheetData.ts';

type CellRoute = { Params: { sheetId: string; rowId: string; columnId: string } };

const IMAGE_TYPES = ['image/png', 'image/gif', 'image/jpeg', 'image/bmp', 'image/webp'];

/** The file name of `Content-Disposition: attachment; filename="x.png"` (URL-encoded or RFC 5987). */
export function fileNameOf(header: string | undefined): string | null {
  if (header === undefined) return null;
  const decode = (s: string) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  };
  const star = /filename\*\s*=\s*[\w-]*'[\w-]*'([^;\s]+)/i.exec(header);
  const quoted = /filename\s*=\s*"((?:[^"\\]|\\.)*)"/i.exec(header);
  const bare = /filename\s*=\s*([^;"\s]+)/i.exec(header);
  const raw = star ? decode(star[1]!) : quoted ? decode(quoted[1]!.replace(/\\(.)/g, '$1')) : bare ? decode(bare[1]!) : null;
  if (raw === null) return null;
  // a name, not a path; no control characters
  const name = [...raw.replace(/^.*[\\/]/, '')].filter((ch) => ch >= ' ' && ch !== '\u007f').join('').slice(0, 255);
  return name === '' ? null : name;
}

/**
 * Cell images: upload into a cell (raw bytes), temporary URLs for images the caller can see,
 * and the public GET that serves an image at such a URL (no Authorization: browsers open it).
 */
export async function imageRoutes(app: FastifyInstance): Promise<void> {
  const store = () => app.ctx.store;
  const base = () => app.ctx.config.publicUrl;

  // The upload's body is the image itself, handed on as a stream; only routes of this plugin
  // see these parsers. A declared length beyond SHEETD_BODY_LIMIT is refused before reading
  // (the service enforces the limit on what actually arrives). The request goes on through a
  // PassThrough: a failed write destroys the stream it reads, and destroying the request
  // itself would cut the connection before the error response goes out.
  const stream = (req: FastifyRequest, payload: Readable, done: (err: Error | null, body?: Readable) => void) => {
    const declared = Number(req.headers['content-length']);
    const limit = app.ctx.config.bodyLimit;
    if (declared > limit) return done(apiError(1074, `${declared} bytes`, `${limit} bytes`));
    const body = payload.pipe(new PassThrough());
    // pipe() passes no errors on: a client gone mid-upload must end the write, not stall it
    payload.once('close', () => payload.readableEnded || body.destroy(new Error('the request ended before its body')));
    done(null, body);
  };
  app.addContentTypeParser('application/octet-stream', stream);
  app.addContentTypeParser(/^image\/[\w.+-]+$/i, stream);

  app.post<CellRoute>('/sheets/:sheetId/rows/:rowId/columns/:columnId/cellimages', {
    config: { scope: 'WRITE_SHEETS', cost: 10, body: 'required' },
  }, async (req, reply) => {
    // a JSON body (or any other parsed type) is not an image upload
    if (!(req.body instanceof Readable)) throw apiError(1124);
    let out;
    try {
      const sheetId = pathId(req.params.sheetId);
      const rowId = pathId(req.params.rowId);
      const columnId = pathId(req.params.columnId);
      const q = req.query as Query;
      out = await addImageToCell(store(), app.ctx.blobs, req.actor, sheetId, rowId, columnId, {
        body: req.body,
        maxBytes: app.ctx.config.bodyLimit,
        fileName: fileNameOf(req.headers['content-disposition']),
        altText: one(q, 'altText'),
        overrideValidation: bool(q, 'overrideValidation'),
        numericDates: req.ro.numericDates,
        level: req.ro.level,
      });
    } catch (e) {
      // an answer before the whole body has arrived ends the connection: what is left unread
      // must not be taken for the next request
      if (!req.raw.complete) reply.header('connection', 'close');
      throw e;
    }
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
    const maxAge = Math.max(0, Math.floor((img.expiresAt - Date.now()) / 1000));
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
