import type { FastifyInstance, FastifyRequest } from 'fastify';
import { followDeleted } from '../../services/follow.ts';
import { list, paging, pathId, type Query } from '../query.ts';
import { paginate } from '../paging.ts';
import { success } from '../present.ts';
import { contents, folderSummary } from '../present/containers.ts';
import { childFolders } from '../../store/containers.ts';
import { folderFor } from '../../services/containers.ts';
import { copyFolder, createFolder, deleteFolder, loadTree, moveFolder, renameFolder } from '../../services/folders.ts';
import { favoriteKeys } from '../../services/favorites.ts';

type FolderReq = FastifyRequest<{ Params: { folderId: string } }>;

export async function folderRoutes(app: FastifyInstance): Promise<void> {
  const db = () => app.ctx.store.db;
  const config = () => app.ctx.config;

  // Get Folder: its sheets, folders (abbreviated), reports and dashboards.
  app.get('/folders/:folderId', { config: { scope: 'READ_SHEETS' } }, async (req: FolderReq) => {
    const d = db();
    const { folder } = await folderFor(d, req.actor, pathId(req.params.folderId), 'VIEWER');
    const tree = await loadTree(d, req.actor, { folderId: folder.id }, 0);
    const favs = await favoriteKeys(d, req.actor);
    return { ...folderSummary(config(), folder, { favorite: favs.has(`folder:${folder.id}`) }), ...contents(config(), tree, req.ro, favs) };
  });

  app.put('/folders/:folderId', { config: { scope: 'ADMIN_WORKSPACES', body: 'required' } }, async (req: FolderReq) => {
    const id = pathId(req.params.folderId);
    const folder = await db().transaction().execute((tx) => renameFolder(tx, req.actor, id, req.body));
    return success(folderSummary(config(), folder));
  });

  app.delete('/folders/:folderId', { config: { scope: 'ADMIN_WORKSPACES' } }, async (req: FolderReq) => {
    const id = pathId(req.params.folderId);
    const deleted = await db().transaction().execute((tx) => deleteFolder(tx, req.actor, id));
    await followDeleted(app.ctx.store, req.actor, deleted);
    return success();
  });

  app.get('/folders/:folderId/folders', { config: { scope: 'READ_SHEETS' } }, async (req: FolderReq) => {
    const { folder } = await folderFor(db(), req.actor, pathId(req.params.folderId), 'VIEWER');
    const sub = await childFolders(db(), { parentId: folder.id });
    return paginate(sub.map((f) => folderSummary(config(), f)), paging(req.query as Query));
  });

  app.post('/folders/:folderId/folders', { config: { scope: 'ADMIN_WORKSPACES', body: 'required' } }, async (req: FolderReq) => {
    const id = pathId(req.params.folderId);
    const folder = await db().transaction().execute((tx) => createFolder(tx, req.actor, { type: 'folder', id }, req.body));
    return success(folderSummary(config(), folder));
  });

  app.post('/folders/:folderId/copy', { config: { scope: 'ADMIN_WORKSPACES', body: 'required' } }, async (req: FolderReq) => {
    const id = pathId(req.params.folderId);
    const q = req.query as Query;
    const folder = await db().transaction().execute((tx) => copyFolder(tx, req.actor, id, req.body, req.ro.include, list(q, 'skipRemap')));
    return success(folderSummary(config(), folder));
  });

  app.post('/folders/:folderId/move', { config: { scope: 'ADMIN_WORKSPACES', body: 'required' } }, async (req: FolderReq) => {
    const id = pathId(req.params.folderId);
    const folder = await db().transaction().execute((tx) => moveFolder(tx, req.actor, id, req.body));
    return success(folderSummary(config(), folder));
  });
}
