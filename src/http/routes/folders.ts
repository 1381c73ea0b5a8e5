import type { FastifyInstance, FastifyRequest } from 'fastify';
import { followDeleted } from '../../services/computed/propagation.ts';
import { enumList, list, paging, pathId, tokenPaging, type Query, type TokenPaging } from '../query.ts';
import { paginate, tokenSlice } from '../paging.ts';
import { success } from '../present/envelope.ts';
import { childReference, contents, folderMetadata, folderSummary, pathTree } from '../present/containers.ts';
import { folderFor } from '../../services/access/containers.ts';
import { CHILD_TYPES, childOwnerId, childrenOf, treeOwnerIds, copyFolder, createFolder, deleteFolder, loadTree, moveFolder, readSubfolders, renameFolder, type Child, type ChildType } from '../../services/places/folders.ts';
import { folderPath } from '../../services/places/paths.ts';
import { favoriteKeys } from '../../services/places/favorites.ts';
import type { Config } from '../../config.ts';
import type { Queryable } from '../../store/db.ts';
import { ownerEmails } from '../../services/identity/users.ts';
import type { ReadOptions } from '../../services/platform/context.ts';

type FolderReq = FastifyRequest<{ Params: { folderId: string } }>;

/** What a children listing asks for: childrenResourceTypes (every type when absent) and its token page. */
export function childrenQuery(q: Query): { types: Set<ChildType>; page: TokenPaging } {
  const types = enumList(q, 'childrenResourceTypes', CHILD_TYPES);
  return { types: new Set(types.length > 0 ? types : CHILD_TYPES), page: tokenPaging(q) };
}

/** One page of children as `{data, lastKey}` (lastKey only while more follow); the page's owners read at once (ownerInfo). */
export async function childrenPage(db: Queryable, config: Config, children: Child[], p: TokenPaging, ro: ReadOptions) {
  const { page, lastKey } = tokenSlice(children, p);
  const owners = await ownerEmails(db, ro, page.flatMap((c) => childOwnerId(c) ?? []));
  return { data: page.map((c) => childReference(config, c, ro, owners)), ...(lastKey !== undefined ? { lastKey } : {}) };
}

export async function folderRoutes(app: FastifyInstance): Promise<void> {
  const db = () => app.ctx.store.db;
  const store = () => app.ctx.store;
  const config = () => app.ctx.config;

  // Get Folder: its sheets, folders (abbreviated), reports and dashboards.
  app.get('/folders/:folderId', { config: { scope: 'READ_SHEETS' } }, async (req: FolderReq) => {
    const d = db();
    const { folder } = await folderFor(d, req.actor, pathId(req.params.folderId), 'VIEWER');
    const tree = await loadTree(d, req.actor, { folderId: folder.id }, 0);
    const favs = await favoriteKeys(d, req.actor);
    const owners = await ownerEmails(d, req.ro, treeOwnerIds(tree));
    return { ...folderSummary(config(), folder, { favorite: favs.has(`folder:${folder.id}`) }), ...contents(config(), tree, req.ro, favs, owners) };
  });

  app.get('/folders/:folderId/metadata', { config: { scope: 'READ_SHEETS' } }, async (req: FolderReq) => {
    const { folder } = await folderFor(db(), req.actor, pathId(req.params.folderId), 'VIEWER');
    return folderMetadata(config(), folder, req.ro);
  });

  app.get('/folders/:folderId/children', { config: { scope: 'READ_SHEETS' } }, async (req: FolderReq) => {
    const q = childrenQuery(req.query as Query);
    const { folder, level } = await folderFor(db(), req.actor, pathId(req.params.folderId), 'VIEWER');
    return childrenPage(db(), config(), await childrenOf(db(), req.actor, { folderId: folder.id }, level, q.types), q.page, req.ro);
  });

  app.get('/folders/:folderId/path', { config: { scope: 'READ_SHEETS' } }, async (req: FolderReq) => {
    return pathTree(config(), await folderPath(db(), req.actor, pathId(req.params.folderId)), req.ro);
  });

  app.put('/folders/:folderId', { config: { scope: 'ADMIN_WORKSPACES', body: 'required' } }, async (req: FolderReq) => {
    const id = pathId(req.params.folderId);
    const folder = await renameFolder(store(), req.actor, id, req.body);
    return success(folderSummary(config(), folder));
  });

  app.delete('/folders/:folderId', { config: { scope: 'ADMIN_WORKSPACES' } }, async (req: FolderReq) => {
    const id = pathId(req.params.folderId);
    const deleted = await deleteFolder(store(), req.actor, id);
    await followDeleted(app.ctx.store, req.actor, deleted);
    return success();
  });

  app.get('/folders/:folderId/folders', { config: { scope: 'READ_SHEETS' } }, async (req: FolderReq) => {
    const sub = await readSubfolders(db(), req.actor, pathId(req.params.folderId));
    return paginate(sub.map((f) => folderSummary(config(), f)), paging(req.query as Query));
  });

  app.post('/folders/:folderId/folders', { config: { scope: 'ADMIN_WORKSPACES', body: 'required' } }, async (req: FolderReq) => {
    const id = pathId(req.params.folderId);
    const folder = await createFolder(store(), req.actor, { type: 'folder', id }, req.body);
    return success(folderSummary(config(), folder));
  });

  app.post('/folders/:folderId/copy', { config: { scope: 'ADMIN_WORKSPACES', body: 'required' } }, async (req: FolderReq) => {
    const id = pathId(req.params.folderId);
    const q = req.query as Query;
    const folder = await copyFolder(store(), req.actor, id, req.body, req.ro.include, list(q, 'skipRemap'));
    return success(folderSummary(config(), folder));
  });

  app.post('/folders/:folderId/move', { config: { scope: 'ADMIN_WORKSPACES', body: 'required' } }, async (req: FolderReq) => {
    const id = pathId(req.params.folderId);
    const folder = await moveFolder(store(), req.actor, id, req.body);
    return success(folderSummary(config(), folder));
  });
}
