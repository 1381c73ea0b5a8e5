import type { FastifyInstance, FastifyRequest } from 'fastify';
import { followDeleted } from '../../services/computed/propagation.ts';
import { bool, list, paging, pathId, type Query } from '../query.ts';
import { paginate } from '../paging.ts';
import { success } from '../present/envelope.ts';
import { contents, folderSummary, workspaceMetadata, workspaceSummary } from '../present/containers.ts';
import { workspaceFor } from '../../services/access/containers.ts';
import { childrenOf, createFolder, loadTree, treeOwnerIds } from '../../services/places/folders.ts';
import { ownerEmails } from '../../services/identity/users.ts';
import { childrenPage, childrenQuery } from './folders.ts';
import { copyWorkspace, createWorkspace, deleteWorkspace, listWorkspaces, readWorkspaceFolders, renameWorkspace } from '../../services/places/workspaces.ts';
import { favoriteKeys } from '../../services/places/favorites.ts';

type WsReq = FastifyRequest<{ Params: { workspaceId: string } }>;

export async function workspaceRoutes(app: FastifyInstance): Promise<void> {
  const db = () => app.ctx.store.db;
  const store = () => app.ctx.store;
  const config = () => app.ctx.config;

  app.get('/workspaces', { config: { scope: 'READ_SHEETS' } }, async (req) => {
    const all = await listWorkspaces(db(), req.actor);
    const favs = await favoriteKeys(db(), req.actor);
    return paginate(all.map((x) => workspaceSummary(config(), x.ws, x.level, req.ro, { favorite: favs.has(`workspace:${x.ws.id}`) })), paging(req.query as Query));
  });

  app.post('/workspaces', { config: { scope: 'ADMIN_WORKSPACES', body: 'required' } }, async (req) => {
    const ws = await createWorkspace(store(), req.actor, req.body);
    return success(workspaceSummary(config(), ws, 'OWNER', req.ro));
  });

  // Get Workspace: top-level contents; loadAll=true loads every folder level.
  app.get('/workspaces/:workspaceId', { config: { scope: 'READ_SHEETS' } }, async (req: WsReq) => {
    const d = db();
    const { ws, level } = await workspaceFor(d, req.actor, pathId(req.params.workspaceId), 'VIEWER');
    const loadAll = bool(req.query as Query, 'loadAll');
    const tree = await loadTree(d, req.actor, { workspaceTop: ws.id }, loadAll ? Number.MAX_SAFE_INTEGER : 0);
    const favs = await favoriteKeys(d, req.actor);
    const owners = await ownerEmails(d, req.ro, treeOwnerIds(tree));
    return { ...workspaceSummary(config(), ws, level, req.ro, { favorite: favs.has(`workspace:${ws.id}`) }), ...contents(config(), tree, req.ro, favs, owners) };
  });

  app.get('/workspaces/:workspaceId/metadata', { config: { scope: 'READ_SHEETS' } }, async (req: WsReq) => {
    const { ws, level } = await workspaceFor(db(), req.actor, pathId(req.params.workspaceId), 'VIEWER');
    return workspaceMetadata(config(), ws, level, req.ro);
  });

  app.get('/workspaces/:workspaceId/children', { config: { scope: 'READ_SHEETS' } }, async (req: WsReq) => {
    const q = childrenQuery(req.query as Query);
    const { ws, level } = await workspaceFor(db(), req.actor, pathId(req.params.workspaceId), 'VIEWER');
    return childrenPage(db(), config(), await childrenOf(db(), req.actor, { workspaceTop: ws.id }, level, q.types), q.page, req.ro);
  });

  app.put('/workspaces/:workspaceId', { config: { scope: 'ADMIN_WORKSPACES', body: 'required' } }, async (req: WsReq) => {
    const id = pathId(req.params.workspaceId);
    const { ws, level } = await renameWorkspace(store(), req.actor, id, req.body);
    return success(workspaceSummary(config(), ws, level, req.ro));
  });

  app.delete('/workspaces/:workspaceId', { config: { scope: 'ADMIN_WORKSPACES' } }, async (req: WsReq) => {
    const id = pathId(req.params.workspaceId);
    const deleted = await deleteWorkspace(store(), req.actor, id);
    await followDeleted(app.ctx.store, req.actor, deleted);
    return success();
  });

  app.get('/workspaces/:workspaceId/folders', { config: { scope: 'READ_SHEETS' } }, async (req: WsReq) => {
    const top = await readWorkspaceFolders(db(), req.actor, pathId(req.params.workspaceId));
    return paginate(top.map((f) => folderSummary(config(), f)), paging(req.query as Query));
  });

  app.post('/workspaces/:workspaceId/folders', { config: { scope: 'ADMIN_WORKSPACES', body: 'required' } }, async (req: WsReq) => {
    const id = pathId(req.params.workspaceId);
    const folder = await createFolder(store(), req.actor, { type: 'workspace', id }, req.body);
    return success(folderSummary(config(), folder));
  });

  app.post('/workspaces/:workspaceId/copy', { config: { scope: 'ADMIN_WORKSPACES', body: 'required' } }, async (req: WsReq) => {
    const id = pathId(req.params.workspaceId);
    const q = req.query as Query;
    const ws = await copyWorkspace(store(), req.actor, id, req.body, req.ro.include, list(q, 'skipRemap'));
    return success(workspaceSummary(config(), ws, 'OWNER', req.ro));
  });
}
