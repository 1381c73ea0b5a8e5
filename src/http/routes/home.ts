import type { FastifyInstance, FastifyRequest } from 'fastify';
import { paging, type Query } from '../query.ts';
import { paginate } from '../paging.ts';
import { success } from '../present.ts';
import { contents, folderSummary, workspaceSummary } from '../present/containers.ts';
import { childFolders } from '../../store/containers.ts';
import { createFolder, loadTree } from '../../services/folders.ts';
import { favoriteKeys } from '../../services/favorites.ts';
import { listWorkspaces } from '../../services/workspaces.ts';
import { sheetLevels } from '../../services/containers.ts';
import { sharedHomeReports } from '../../services/reportAccess.ts';

/** The caller's home: its folders and sheets (GET /home/folders, POST /home/folders, GET /folders/personal). */
export async function homeRoutes(app: FastifyInstance): Promise<void> {
  const db = () => app.ctx.store.db;
  const config = () => app.ctx.config;

  app.get('/home/folders', { config: { scope: 'READ_SHEETS' } }, async (req) => {
    const folders = await childFolders(db(), { homeOf: req.actor.user.id });
    return paginate(folders.map((f) => folderSummary(config(), f)), paging(req.query as Query));
  });

  app.post('/home/folders', { config: { scope: 'ADMIN_WORKSPACES', body: 'required' } }, async (req) => {
    const folder = await db().transaction().execute((tx) => createFolder(tx, req.actor, { type: 'home', id: null }, req.body));
    return success(folderSummary(config(), folder));
  });

  // Home contents, nested: the caller's own sheets and folders, the sheets shared to it that
  // live outside workspaces, and its workspaces. The SDKs' "list contents" calls GET /home,
  // the reference's GET /folders/personal; both answer the same Home object.
  app.get('/home', { config: { scope: 'READ_SHEETS' } }, async (req) => homeContents(req));
  app.get('/folders/personal', { config: { scope: 'READ_SHEETS' } }, async (req) => homeContents(req));

  async function homeContents(req: FastifyRequest) {
    const d = db();
    const tree = await loadTree(d, req.actor, { homeOf: req.actor.user.id }, Number.MAX_SAFE_INTEGER);
    const shared = await d
      .selectFrom('sheets')
      .innerJoin('shares', (j) => j.onRef('shares.object_id', '=', 'sheets.id').on('shares.object_type', '=', 'sheet'))
      .selectAll('sheets')
      .where('sheets.org_id', '=', req.actor.org.id)
      .where('sheets.owner_id', '<>', req.actor.user.id)
      .where('sheets.workspace_id', 'is', null)
      .distinct()
      .execute();
    const visible = await sheetLevels(d, req.actor, shared);
    tree.sheets.push(...visible.filter((x) => !x.sheet.is_template));
    tree.templates.push(...visible.filter((x) => !!x.sheet.is_template));
    tree.reports.push(...(await sharedHomeReports(d, req.actor)));
    const favs = await favoriteKeys(d, req.actor);
    const out = contents(config(), tree, req.ro, favs);
    out.workspaces = (await listWorkspaces(d, req.actor)).map((x) => workspaceSummary(config(), x.ws, x.level, req.ro, { favorite: favs.has(`workspace:${x.ws.id}`) }));
    return out;
  }
}
