import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { apiError } from '../../errors.ts';
import { answeringEarly, fileByDisposition, fileNameOf, streamingParser } from '../uploads.ts';
import { dispositionOf } from '../download.ts';
import {
  addSightImage, readSightImage,
  copySight, createSight, deleteSight, listSights, moveSight, readSight, readSightPublish,
  renameSight, setSightPublish, updateSightDefinition,
} from '../../services/assets/sights.ts';
import { one, paging, pathId, tokenPaging, type Query } from '../query.ts';
import { paginate, tokenSlice } from '../paging.ts';
import { success } from '../present/envelope.ts';
import { parseTimestamp } from '../present/dates.ts';
import { ownerEmails } from '../../services/identity/users.ts';
import { sightBody, sightDefinition, sightPublish, sightSummary } from '../present/sights.ts';
import { pathTree } from '../present/containers.ts';
import { sightPath } from '../../services/places/paths.ts';

type IdReq = FastifyRequest<{ Params: { sightId: string } }>;
type ImageReq = FastifyRequest<{ Params: { sightId: string; imageId: string } }>;

const IMAGE_TYPES = ['image/png', 'image/gif', 'image/jpeg', 'image/bmp', 'image/webp'];

/**
 * Dashboards (sights): List, Get, Update (rename), Delete, Copy, Move, publish status, shares,
 * and the sheetd extension that defines them (/sheetd/sights: create, set widgets).
 */
export async function sightRoutes(app: FastifyInstance): Promise<void> {
  const store = () => app.ctx.store;
  const db = () => app.ctx.store.db;
  const config = () => app.ctx.config;
  const read = { config: { scope: 'READ_SIGHTS' as const } };

  // ---- definitions (sheetd extension)
  app.post('/sheetd/sights', { config: { scope: 'CREATE_SIGHTS', body: 'required' } }, async (req) => {
    return success(sightDefinition(config(), await createSight(store(), req.actor, req.body), req.ro));
  });
  app.put('/sheetd/sights/:sightId', { config: { scope: 'ADMIN_SIGHTS', body: 'required' } }, async (req: IdReq) => {
    return success(sightDefinition(config(), await updateSightDefinition(store(), req.actor, pathId(req.params.sightId), req.body), req.ro));
  });

  // ---- images of IMAGE widgets (sheetd extension): the upload's body is the image itself,
  // handed on as a stream; only routes of this plugin see these parsers
  const stream = streamingParser(() => app.ctx.config.bodyLimit);
  app.addContentTypeParser('application/octet-stream', stream);
  app.addContentTypeParser(/^image\/[\w.+-]+$/i, stream);
  app.post('/sheetd/sights/:sightId/images', { config: { scope: 'ADMIN_SIGHTS', cost: 10, body: 'required' }, onRequest: fileByDisposition }, async (req: IdReq, reply) => {
    if (!(req.body instanceof Readable)) throw apiError(1124);
    const body = req.body;
    const img = await answeringEarly(req, reply, () => addSightImage(store(), app.ctx.blobs, req.actor, pathId(req.params.sightId), { body, maxBytes: config().bodyLimit, fileName: fileNameOf(req.headers['content-disposition']) }));
    return success({ privateId: img.id, fileName: img.file_name ?? undefined, mimeType: img.mime_type, width: img.width, height: img.height, size: img.size });
  });
  app.get('/sheetd/sights/:sightId/images/:imageId', { config: { scope: 'READ_SIGHTS', produces: IMAGE_TYPES } }, async (req: ImageReq, reply) => {
    const img = await readSightImage(db(), app.ctx.blobs, req.actor, pathId(req.params.sightId), req.params.imageId);
    return reply
      .header('content-type', img.mimeType)
      .header('x-content-type-options', 'nosniff')
      .header('content-disposition', dispositionOf(img.fileName ?? 'image', 'inline'))
      .header('content-length', img.size)
      .send(img.stream);
  });

  // ---- dashboards
  app.get('/sights', read, async (req) => {
    const q = req.query as Query;
    const since = one(q, 'modifiedSince');
    const all = await listSights(db(), req.actor, since === undefined || since === '' ? undefined : parseTimestamp(since, req.ro.numericDates, 'modifiedSince'));
    const owners = await ownerEmails(db(), req.ro, all.map((x) => x.sight.owner_id));
    const items = all.map((x) => sightSummary(config(), x.sight, x.level, req.ro, { owners }));
    // the newer SDKs page this list with maxItems/lastKey ({data, lastKey}); the older ones with page/pageSize
    if (one(q, 'maxItems') !== undefined || one(q, 'lastKey') !== undefined) {
      const { page, lastKey } = tokenSlice(items, tokenPaging(q));
      return { data: page, ...(lastKey !== undefined ? { lastKey } : {}) };
    }
    return paginate(items, paging(q));
  });
  app.get('/sights/:sightId', read, async (req: IdReq) => {
    return sightBody(config(), await readSight(db(), req.actor, pathId(req.params.sightId)), req.ro);
  });
  app.put('/sights/:sightId', { config: { scope: 'ADMIN_SIGHTS', body: 'required' } }, async (req: IdReq) => {
    const v = await renameSight(store(), req.actor, pathId(req.params.sightId), req.body);
    return success(sightBody(config(), await readSight(db(), req.actor, v.sight.id), req.ro));
  });
  app.delete('/sights/:sightId', { config: { scope: 'DELETE_SIGHTS' } }, async (req: IdReq) => {
    await deleteSight(store(), req.actor, pathId(req.params.sightId));
    return success();
  });
  app.post('/sights/:sightId/copy', { config: { scope: 'CREATE_SIGHTS', body: 'required' } }, async (req: IdReq) => {
    const v = await copySight(store(), req.actor, pathId(req.params.sightId), req.body);
    return success(sightSummary(config(), v.sight, v.level, req.ro));
  });
  app.post('/sights/:sightId/move', { config: { scope: 'CREATE_SIGHTS', body: 'required' } }, async (req: IdReq) => {
    const v = await moveSight(store(), req.actor, pathId(req.params.sightId), req.body);
    return success(sightSummary(config(), v.sight, v.level, req.ro));
  });

  // Get Dashboard Path: the workspace and folders that hold it (as far as the caller sees them).
  app.get('/sights/:sightId/path', read, async (req: IdReq) => {
    const p = await sightPath(db(), req.actor, pathId(req.params.sightId));
    return pathTree(config(), p, req.ro, p);
  });

  // ---- publishing
  app.get('/sights/:sightId/publish', read, async (req: IdReq) => {
    return sightPublish(config(), await readSightPublish(db(), req.actor, pathId(req.params.sightId)));
  });
  app.put('/sights/:sightId/publish', { config: { scope: 'ADMIN_SIGHTS', body: 'required' } }, async (req: IdReq) => {
    return success(sightPublish(config(), await setSightPublish(store(), req.actor, pathId(req.params.sightId), req.body)));
  });
}
