import type { FastifyInstance, FastifyRequest } from 'fastify';
import { paging, type Query } from '../query.ts';
import { paginate } from '../paging.ts';
import { success } from '../present/envelope.ts';
import { contents, folderSummary, workspaceSummary } from '../present/containers.ts';
import { createFolder } from '../../services/places/folders.ts';
import { readHome, readHomeFolders } from '../../services/places/home.ts';
import { treeOwnerIds } from '../../services/places/folders.ts';
import { ownerEmails } from '../../services/identity/users.ts';

/** The caller's home: its folders and sheets (GET /home/folders, POST /home/folders, GET /folders/personal). */
export async function homeRoutes(app: FastifyInstance): Promise<void> {
  const db = () => app.ctx.store.db;
  const store = () => app.ctx.store;
  const config = () => app.ctx.config;

  app.get('/home/folders', { config: { scope: 'READ_SHEETS' } }, async (req) => {
    const folders = await readHomeFolders(db(), req.actor);
    return paginate(folders.map((f) => folderSummary(config(), f)), paging(req.query as Query));
  });

  app.post('/home/folders', { config: { scope: 'ADMIN_WORKSPACES', body: 'required' } }, async (req) => {
    const folder = await createFolder(store(), req.actor, { type: 'home', id: null }, req.body);
    return success(folderSummary(config(), folder));
  });

  // Home contents, nested: the caller's own sheets and folders, the sheets shared to it that
  // live outside workspaces, and its workspaces. The SDKs' "list contents" calls GET /home,
  // the reference's GET /folders/personal; both answer the same Home object.
  app.get('/home', { config: { scope: 'READ_SHEETS' } }, async (req) => homeContents(req));
  app.get('/folders/personal', { config: { scope: 'READ_SHEETS' } }, async (req) => homeContents(req));

  async function homeContents(req: FastifyRequest) {
    const { tree, favs, workspaces } = await readHome(db(), req.actor);
    const out = contents(config(), tree, req.ro, favs, await ownerEmails(db(), req.ro, treeOwnerIds(tree)));
    out.workspaces = workspaces.map((x) => workspaceSummary(config(), x.ws, x.level, req.ro, { favorite: favs.has(`workspace:${x.ws.id}`) }));
    return out;
  }
}
