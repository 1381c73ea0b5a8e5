import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { apiError } from '../../errors.ts';
import { addComment } from '../../services/collaboration/comments.ts';
import { createDiscussion, deleteDiscussion, readDiscussion, readDiscussions } from '../../services/collaboration/discussions.ts';
import type { StoredFile } from '../../services/collaboration/attachments.ts';
import { paginate } from '../paging.ts';
import { success } from '../present/envelope.ts';
import { paging, pathId, type Query } from '../query.ts';
import { peopleOf, presentComment } from '../present/attachments.ts';
import { presentDiscussions } from '../present/threads.ts';
import { answeringEarly, isMultipart } from '../uploads.ts';
import { registerUploads, withMultipartFile } from './attachments.ts';

type P = Record<string, string>;


/**
 * The JSON of a create request and its optional file: a JSON body, or a multipart request with
 * the JSON in the part `part` and the file in `file` (stored as it streams; removed on failure).
 */
async function withBody<T>(app: FastifyInstance, req: FastifyRequest, reply: FastifyReply, part: string, use: (body: unknown, file: StoredFile | undefined) => Promise<T>): Promise<T> {
  return answeringEarly(req, reply, async () => {
    if (isMultipart(req)) return withMultipartFile(app, req, { [part]: true }, false, ({ json, file }) => use(json[part], file));
    if (req.body instanceof Readable) throw apiError(1124);
    if (req.body === undefined) throw apiError(1024);
    return use(req.body, undefined);
  });
}

export async function discussionRoutes(app: FastifyInstance): Promise<void> {
  const store = () => app.ctx.store;
  await registerUploads(app);
  const read = { config: { scope: 'READ_SHEETS' as const } };
  const post = { config: { scope: 'WRITE_SHEETS' as const } };

  const create = (parentOf: (p: P) => { type: 'SHEET' | 'ROW'; id: number }) => async (req: FastifyRequest<{ Params: P }>, reply: FastifyReply) => {
    const sheetId = pathId(req.params.sheetId);
    const parent = parentOf(req.params);
    const out = await withBody(app, req, reply, 'discussion', (body, file) => createDiscussion(store(), req.actor, sheetId, parent, body, file));
    const ro = { ...req.ro, include: new Set(['comments', 'attachments']) };
    return success((await presentDiscussions(store().db, [out], ro, 'OWNER'))[0]);
  };
  app.post('/sheets/:sheetId/discussions', post, create((p) => ({ type: 'SHEET', id: pathId(p.sheetId) })));
  app.post('/sheets/:sheetId/rows/:rowId/discussions', post, create((p) => ({ type: 'ROW', id: pathId(p.rowId) })));

  app.get('/sheets/:sheetId/discussions', read, async (req: FastifyRequest<{ Params: P }>) => {
    const { level, items } = await readDiscussions(store().db, req.actor, pathId(req.params.sheetId));
    return paginate(await presentDiscussions(store().db, items, req.ro, level), paging(req.query as Query));
  });
  app.get('/sheets/:sheetId/rows/:rowId/discussions', read, async (req: FastifyRequest<{ Params: P }>) => {
    const { level, items } = await readDiscussions(store().db, req.actor, pathId(req.params.sheetId), pathId(req.params.rowId));
    return paginate(await presentDiscussions(store().db, items, req.ro, level), paging(req.query as Query));
  });
  app.get('/sheets/:sheetId/discussions/:discussionId', read, async (req: FastifyRequest<{ Params: P }>) => {
    const { level, item } = await readDiscussion(store().db, req.actor, pathId(req.params.sheetId), pathId(req.params.discussionId));
    // a single discussion always shows its comments (as the service does)
    const ro = { ...req.ro, include: new Set([...req.ro.include, 'comments']) };
    return (await presentDiscussions(store().db, [item], ro, level))[0];
  });
  app.delete('/sheets/:sheetId/discussions/:discussionId', post, async (req: FastifyRequest<{ Params: P }>) => {
    await deleteDiscussion(store(), req.actor, pathId(req.params.sheetId), pathId(req.params.discussionId));
    return success();
  });

  app.post('/sheets/:sheetId/discussions/:discussionId/comments', post, async (req: FastifyRequest<{ Params: P }>, reply) => {
    const sheetId = pathId(req.params.sheetId);
    const discussionId = pathId(req.params.discussionId);
    const out = await withBody(app, req, reply, 'comment', (body, file) => addComment(store(), req.actor, sheetId, discussionId, body, file));
    const people = await peopleOf(store().db, [out.comment.created_by]);
    return success(presentComment(out.comment, { numericDates: req.ro.numericDates, people }, out.attachments));
  });
}
