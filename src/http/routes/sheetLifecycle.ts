import type { FastifyInstance, FastifyRequest } from 'fastify';
import { followDeleted } from '../../services/computed/propagation.ts';
import { one, paging, pathId, type Query } from '../query.ts';
import { paginate } from '../paging.ts';
import { success } from '../present/envelope.ts';
import { parseTimestamp } from '../present/dates.ts';
import { sheetResult, sheetSummary } from '../present/sheets.ts';
import { pathTree } from '../present/containers.ts';
import { sheetPath } from '../../services/places/paths.ts';
import { presentColumn } from '../../engine/columns.ts';
import { withFormulaText } from '../../engine/formulaBridge.ts';
import type { Actor, ReadOptions } from '../../services/platform/context.ts';
import { sheetFor } from '../../services/access/permissions.ts';
import { favoriteKeys } from '../../services/places/favorites.ts';
import { ownerEmails } from '../../services/identity/users.ts';
import {
  copySheetObject,
  createSheetObject,
  deleteSheetObject,
  listVisibleSheets,
  moveSheetObject,
  settingsOf,
  updateSheetObject,
  userSettingsFor,
} from '../../services/sheets/sheetLifecycle.ts';

type SheetReq = FastifyRequest<{ Params: { sheetId: string } }>;

/** Sheets as objects: list, create (home, folder, workspace), update, delete, copy, move, version, path. */
export async function sheetLifecycleRoutes(app: FastifyInstance): Promise<void> {
  const db = () => app.ctx.store.db;
  const store = () => app.ctx.store;
  const config = () => app.ctx.config;

  app.get('/sheets', { config: { scope: 'READ_SHEETS' } }, async (req) => {
    const q = req.query as Query;
    const since = one(q, 'modifiedSince');
    const modifiedSince = since === undefined || since === '' ? undefined : parseTimestamp(since, req.ro.numericDates, 'modifiedSince');
    const all = await listVisibleSheets(db(), req.actor, modifiedSince);
    const favs = await favoriteKeys(db(), req.actor);
    const owners = await ownerEmails(db(), req.ro, all.map((x) => x.sheet.owner_id));
    return paginate(all.map((x) => sheetSummary(config(), x.sheet, x.level, req.ro, { favorite: favs.has(`sheet:${x.sheet.id}`), owners })), paging(q));
  });

  async function create(actor: Actor, ro: ReadOptions, where: { type: 'home' | 'folder' | 'workspace'; id: number | null }, body: unknown) {
    const { sheet, columns } = await createSheetObject(store(), actor, where, body, ro);
    const out: Record<string, unknown> = sheetResult(config(), sheet, 'OWNER', ro);
    if (columns) out.columns = withFormulaText(columns).map((c) => presentColumn(c, { level: ro.level }));
    return success(out);
  }

  app.post('/sheets', { config: { scope: 'CREATE_SHEETS', body: 'required' } }, async (req) => create(req.actor, req.ro, { type: 'home', id: null }, req.body));
  app.post('/folders/:folderId/sheets', { config: { scope: 'CREATE_SHEETS', body: 'required' } }, async (req: FastifyRequest<{ Params: { folderId: string } }>) =>
    create(req.actor, req.ro, { type: 'folder', id: pathId(req.params.folderId) }, req.body));
  app.post('/workspaces/:workspaceId/sheets', { config: { scope: 'CREATE_SHEETS', body: 'required' } }, async (req: FastifyRequest<{ Params: { workspaceId: string } }>) =>
    create(req.actor, req.ro, { type: 'workspace', id: pathId(req.params.workspaceId) }, req.body));

  app.put('/sheets/:sheetId', { config: { scope: 'ADMIN_SHEETS', body: 'required' } }, async (req: SheetReq) => {
    const id = pathId(req.params.sheetId);
    const { sheet, level } = await updateSheetObject(store(), req.actor, id, req.body);
    const out: Record<string, unknown> = { ...sheetResult(config(), sheet, level, req.ro), userSettings: userSettingsFor(sheet, req.actor.user.id) };
    const project = settingsOf(sheet).projectSettings;
    if (project) out.projectSettings = project;
    return success(out, sheet.version);
  });

  app.delete('/sheets/:sheetId', { config: { scope: 'DELETE_SHEETS' } }, async (req: SheetReq) => {
    const id = pathId(req.params.sheetId);
    await deleteSheetObject(store(), req.actor, id);
    await followDeleted(app.ctx.store, req.actor, [id]);
    return success();
  });

  app.post('/sheets/:sheetId/copy', { config: { scope: 'CREATE_SHEETS', body: 'required' } }, async (req: SheetReq) => {
    const id = pathId(req.params.sheetId);
    const sheet = await copySheetObject(store(), req.actor, id, req.body, req.ro.include);
    return success(sheetResult(config(), sheet, 'OWNER', req.ro));
  });

  app.post('/sheets/:sheetId/move', { config: { scope: 'CREATE_SHEETS', body: 'required' } }, async (req: SheetReq) => {
    const id = pathId(req.params.sheetId);
    const { sheet, level } = await moveSheetObject(store(), req.actor, id, req.body);
    return success(sheetResult(config(), sheet, level, req.ro));
  });

  app.get('/sheets/:sheetId/version', { config: { scope: 'READ_SHEETS' } }, async (req: SheetReq) => {
    const { sheet } = await sheetFor(db(), req.actor, pathId(req.params.sheetId), 'VIEWER');
    return { version: sheet.version };
  });

  // Get Sheet Path: the workspace and folders that hold the sheet (as far as the caller sees them).
  app.get('/sheets/:sheetId/path', { config: { scope: 'READ_SHEETS' } }, async (req: SheetReq) => {
    const p = await sheetPath(db(), req.actor, pathId(req.params.sheetId));
    return pathTree(config(), p, req.ro, p);
  });
}
