import { permalink } from '../../render/permalinks.ts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { hasScope, type Scope } from '../../services/access/scopes.ts';
import type { ShareObjectType } from '../../store/shares.ts';
import { bool, list, one, paging, pathId, tokenPaging, type Query } from '../query.ts';
import { paginate, tokenSlice } from '../paging.ts';
import { success } from '../present/envelope.ts';
import { share } from '../present/shares.ts';
import { createShares, deleteShare, getShareOf, listSharesOf, updateShare } from '../../services/access/shares.ts';
import { apiError } from '../../errors.ts';

type ObjReq = FastifyRequest<{ Params: { id: string } }>;
type ShareReq = FastifyRequest<{ Params: { id: string; shareId: string } }>;

export function shareIdParam(v: string): string {
  if (!/^[A-Za-z0-9]{1,64}$/.test(v)) throw apiError(1027);
  return v;
}

/** Shares of sheets, workspaces, reports and dashboards: the same five operations under each. */
export async function shareRoutes(app: FastifyInstance): Promise<void> {
  const db = () => app.ctx.store.db;
  const store = () => app.ctx.store;
  const families: Array<{ base: string; type: ShareObjectType; read: Scope; write: Scope; link: 'sheets' | 'workspaces' | 'reports' | 'sights' }> = [
    { base: '/sheets/:id/shares', type: 'sheet', read: 'READ_SHEETS', write: 'SHARE_SHEETS', link: 'sheets' },
    { base: '/workspaces/:id/shares', type: 'workspace', read: 'READ_SHEETS', write: 'ADMIN_WORKSPACES', link: 'workspaces' },
    { base: '/reports/:id/shares', type: 'report', read: 'READ_SHEETS', write: 'SHARE_SHEETS', link: 'reports' },
    { base: '/sights/:id/shares', type: 'sight', read: 'READ_SIGHTS', write: 'SHARE_SIGHTS', link: 'sights' },
  ];
  for (const f of families) {
    app.get(f.base, { config: { scope: f.read } }, async (req: ObjReq) => {
      const q = req.query as Query;
      const withWs = req.ro.include.has('workspaceShares') || one(q, 'sharingInclude')?.includes('workspaceShares') === true;
      const all = await listSharesOf(db(), req.actor, f.type, pathId(req.params.id), withWs);
      return paginate(all.map((v) => share(v, req.ro)), paging(q));
    });

    app.post(f.base, { config: { scope: f.write, body: 'required' } }, async (req: ObjReq) => {
      const id = pathId(req.params.id);
      const sendEmail = bool(req.query as Query, 'sendEmail');
      const { single, created } = await createShares(store(), req.actor, f.type, id, req.body, { accessApiLevel: req.ro.accessApiLevel, sendEmail, link: permalink(app.ctx.config, f.link, id) });
      const out = created.map((v) => share(v, req.ro));
      return success(single ? out[0] : out);
    });

    app.get(`${f.base}/:shareId`, { config: { scope: f.read } }, async (req: ShareReq) => {
      const v = await getShareOf(db(), req.actor, f.type, pathId(req.params.id), shareIdParam(req.params.shareId));
      return share(v, req.ro);
    });

    app.put(`${f.base}/:shareId`, { config: { scope: f.write, body: 'required' } }, async (req: ShareReq) => {
      const id = pathId(req.params.id);
      const shareId = shareIdParam(req.params.shareId);
      const v = await updateShare(store(), req.actor, f.type, id, shareId, req.body, req.ro.accessApiLevel);
      return success(share(v, req.ro));
    });

    app.delete(`${f.base}/:shareId`, { config: { scope: f.write } }, async (req: ShareReq) => {
      const id = pathId(req.params.id);
      const shareId = shareIdParam(req.params.shareId);
      await deleteShare(store(), req.actor, f.type, id, shareId);
      return success();
    });
  }

  /**
   * The asset-sharing form the newer SDKs use: /shares?assetType=sheet|workspace&assetId=…
   * (list with maxItems/lastKey, create, get, PATCH, delete), over the same shares. Collections
   * and files hold nothing here yet: 1006.
   */
  function asset(q: Query): { type: ShareObjectType; id: number; write: Scope } {
    const t = one(q, 'assetType');
    if (t === undefined) throw apiError(1009, 'assetType');
    const idText = one(q, 'assetId');
    if (idText === undefined) throw apiError(1009, 'assetId');
    const id = pathId(idText);
    if (t === 'sheet') return { type: 'sheet', id, write: 'SHARE_SHEETS' };
    if (t === 'workspace') return { type: 'workspace', id, write: 'ADMIN_WORKSPACES' };
    if (t === 'report') return { type: 'report', id, write: 'SHARE_SHEETS' };
    if (t === 'sight') return { type: 'sight', id, write: 'SHARE_SIGHTS' };
    if (['collection', 'file'].includes(t)) throw apiError(1006);
    throw apiError(1018, t, 'assetType');
  }
  type AssetReq = FastifyRequest<{ Params: { shareId: string } }>;
  /** The asset of a changing request, after the token's scope for that asset type is checked. */
  function writable(req: FastifyRequest) {
    const a = asset(req.query as Query);
    if (!hasScope(req.actor.scopes, a.write)) throw apiError(1004);
    return a;
  }

  /** The asset of a reading request: dashboards are read with READ_SIGHTS, the others with READ_SHEETS. */
  function readable(req: FastifyRequest) {
    const a = asset(req.query as Query);
    if (!hasScope(req.actor.scopes, a.type === 'sight' ? 'READ_SIGHTS' : 'READ_SHEETS')) throw apiError(1004);
    return a;
  }

  app.get('/shares', { config: { scope: null } }, async (req) => {
    const q = req.query as Query;
    const a = readable(req);
    const p = tokenPaging(q);
    const all = await listSharesOf(db(), req.actor, a.type, a.id, list(q, 'sharingInclude').includes('workspaceShares'));
    const { page, lastKey } = tokenSlice(all, p);
    return { items: page.map((v) => share(v, req.ro)), ...(lastKey !== undefined ? { lastKey } : {}) };
  });

  app.post('/shares', { config: { scope: null, body: 'required' } }, async (req) => {
    const q = req.query as Query;
    const a = writable(req);
    const body = Array.isArray(req.body) ? req.body : [req.body];
    const { created } = await createShares(store(), req.actor, a.type, a.id, body, { accessApiLevel: req.ro.accessApiLevel, sendEmail: bool(q, 'sendEmail'), link: permalink(app.ctx.config, a.type === 'sheet' ? 'sheets' : a.type === 'report' ? 'reports' : a.type === 'sight' ? 'sights' : 'workspaces', a.id) });
    return success(created.map((v) => share(v, req.ro)));
  });

  app.get('/shares/:shareId', { config: { scope: null } }, async (req: AssetReq) => {
    const a = readable(req);
    return share(await getShareOf(db(), req.actor, a.type, a.id, shareIdParam(req.params.shareId)), req.ro);
  });

  app.patch('/shares/:shareId', { config: { scope: null, body: 'required' } }, async (req: AssetReq) => {
    const a = writable(req);
    const shareId = shareIdParam(req.params.shareId);
    const v = await updateShare(store(), req.actor, a.type, a.id, shareId, req.body, req.ro.accessApiLevel);
    return share(v, req.ro);
  });

  app.delete('/shares/:shareId', { config: { scope: null } }, async (req: AssetReq) => {
    const a = writable(req);
    const shareId = shareIdParam(req.params.shareId);
    await deleteShare(store(), req.actor, a.type, a.id, shareId);
    return success();
  });
}
