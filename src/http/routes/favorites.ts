import type { FastifyInstance, FastifyRequest } from 'fastify';
import { idList, paging, pathId, type Query } from '../query.ts';
import { paginate } from '../paging.ts';
import { success } from '../present/envelope.ts';
import { apiError } from '../../errors.ts';
import type { FavoriteRow } from '../../store/favorites.ts';
import { addFavorites, favoriteObjectName, favoriteTypeParam, isFavorite, isFavoriteType, readFavorites, removeFavorites } from '../../services/places/favorites.ts';

function favorite(f: FavoriteRow, name?: string | null) {
  const out: Record<string, unknown> = { type: f.object_type, objectId: f.object_id };
  if (typeof name === 'string') out.name = name;
  return out;
}

export async function favoriteRoutes(app: FastifyInstance): Promise<void> {
  const db = () => app.ctx.store.db;
  const store = () => app.ctx.store;

  app.get('/favorites', { config: { scope: 'READ_SHEETS' } }, async (req) => {
    const all = await readFavorites(db(), req.actor);
    const withName = req.ro.include.has('name');
    const out = [];
    for (const f of all) {
      const name = withName && isFavoriteType(f.object_type) ? await favoriteObjectName(db(), req.actor, f.object_type, f.object_id) : undefined;
      out.push(favorite(f, name));
    }
    return paginate(out, paging(req.query as Query));
  });

  app.post('/favorites', { config: { scope: 'ADMIN_WORKSPACES', body: 'required' } }, async (req) => {
    const { single, added } = await addFavorites(store(), req.actor, req.body);
    const out = added.map((f) => favorite(f));
    return success(single ? out[0] : out);
  });

  app.delete('/favorites/:favoriteType', { config: { scope: 'ADMIN_WORKSPACES' } }, async (req: FastifyRequest<{ Params: { favoriteType: string } }>) => {
    const type = favoriteTypeParam(req.params.favoriteType);
    const ids = idList(req.query as Query, 'objectIds');
    if (ids.length === 0) throw apiError(1009, 'objectIds');
    await removeFavorites(store(), req.actor, type, ids, { single: false });
    return success();
  });

  app.delete('/favorites/:favoriteType/:favoriteId', { config: { scope: 'ADMIN_WORKSPACES' } }, async (req: FastifyRequest<{ Params: { favoriteType: string; favoriteId: string } }>) => {
    const type = favoriteTypeParam(req.params.favoriteType);
    const id = pathId(req.params.favoriteId);
    await removeFavorites(store(), req.actor, type, [id], { single: true });
    return success();
  });

  app.get('/favorites/:favoriteType/:favoriteId', { config: { scope: 'READ_SHEETS' } }, async (req: FastifyRequest<{ Params: { favoriteType: string; favoriteId: string } }>) => {
    const type = favoriteTypeParam(req.params.favoriteType);
    const id = pathId(req.params.favoriteId);
    if (!(await isFavorite(db(), req.actor, type, id))) throw apiError(1006);
    return { type, objectId: id };
  });
}
