import type { FastifyInstance, FastifyRequest } from 'fastify';
import { deleteComment, editComment, readComment, type CommentData } from '../../services/collaboration/comments.ts';
import { success } from '../present/envelope.ts';
import { pathId } from '../query.ts';
import { peopleOf, presentComment } from '../present/attachments.ts';

type P = Record<string, string>;

export async function commentRoutes(app: FastifyInstance): Promise<void> {
  const db = () => app.ctx.store.db;
  const store = () => app.ctx.store;
  const present = async (req: FastifyRequest, c: CommentData) => {
    const people = await peopleOf(db(), [c.comment.created_by, ...c.attachments.map((a) => a.created_by)]);
    return presentComment(c.comment, { numericDates: req.ro.numericDates, people }, c.attachments);
  };

  app.get('/sheets/:sheetId/comments/:commentId', { config: { scope: 'READ_SHEETS' } }, async (req: FastifyRequest<{ Params: P }>) => {
    return present(req, await readComment(db(), req.actor, pathId(req.params.sheetId), pathId(req.params.commentId)));
  });
  app.put('/sheets/:sheetId/comments/:commentId', { config: { scope: 'WRITE_SHEETS', body: 'required' } }, async (req: FastifyRequest<{ Params: P }>) => {
    const c = await editComment(store(), req.actor, pathId(req.params.sheetId), pathId(req.params.commentId), req.body);
    return success(await present(req, c));
  });
  app.delete('/sheets/:sheetId/comments/:commentId', { config: { scope: 'WRITE_SHEETS' } }, async (req: FastifyRequest<{ Params: P }>) => {
    await deleteComment(store(), req.actor, pathId(req.params.sheetId), pathId(req.params.commentId));
    return success();
  });
}
