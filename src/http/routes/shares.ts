import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Scope } from '../../services/scopes.ts';
import type { ShareObjectType } from '../../store/shares.ts';
import { bool, paging, pathId, type Query } from '../query.ts';
import { paginate } from '../paging.ts';
import { success } from '../present.ts';
import { share } from '../present/shares.ts';
import { createShares, deleteShare, getShareOf, listSharesOf, updateShare } from '../../services/shares.ts';
import { apiError } from '../../errors.ts';

type ObjReq = FastifyRequest<{ Params: { id: string } }>;
type ShareReq = FastifyRequest<{ Params: { id: string; shareId: string } }>;

function shareIdParam(v: string): string {
  if (!/^[A-Za-z0-9]{1,64}$/.test(v)) throw apiError(1027);
  return v;
}

/** Shares of sheets and workspaces: the same operations under /sheets/{id} and /workspaces/{id}. */
export async function shareRoutes(app: FastifyInstance): Promise<void> {
  const db = () => app.ctx.store.db;
  const families: Array<{ base: string; type: ShareObjectType; write: Scope }> = [
    { base: '/sheets/:id/shares', type: 'sheet', write: 'SHARE_SHEETS' },
    { base: '/workspaces/:id/shares', type: 'workspace', write: 'ADMIN_WORKSPACES' },
  ];
  for (const f of families) {
    app.get(f.base, { config: { scope: 'READ_SHEETS' } }, async (req: ObjReq) => {
      const q = req.query as Query;
      const withWs = req.ro.include.has('workspaceShares');
      const all = await listSharesOf(db(), req.actor, f.type, pathId(req.params.id), withWs);
      return paginate(all.map((v) => share(v, req.ro)), paging(q));
    });

    app.post(f.base, { config: { scope: f.write, body: 'required' } }, async (req: ObjReq) => {
      const id = pathId(req.params.id);
      const sendEmail = bool(req.query as Query, 'sendEmail');
      const { single, created } = await db().transaction().execute((tx) => createShares(tx, req.actor, f.type, id, req.body, { accessApiLevel: req.ro.accessApiLevel, sendEmail }));
      const out = created.map((v) => share(v, req.ro));
      return success(single ? out[0] : out);
    });

    app.get(`${f.base}/:shareId`, { config: { scope: 'READ_SHEETS' } }, async (req: ShareReq) => {
      const v = await getShareOf(db(), req.actor, f.type, pathId(req.params.id), shareIdParam(req.params.shareId));
      return share(v, req.ro);
    });

    app.put(`${f.base}/:shareId`, { config: { scope: f.write, body: 'required' } }, async (req: ShareReq) => {
      const id = pathId(req.params.id);
      const shareId = shareIdParam(req.params.shareId);
      const v = await db().transaction().execute((tx) => updateShare(tx, req.actor, f.type, id, shareId, req.body, req.ro.accessApiLevel));
      return success(share(v, req.ro));
    });

    app.delete(`${f.base}/:shareId`, { config: { scope: f.write } }, async (req: ShareReq) => {
      const id = pathId(req.params.id);
      const shareId = shareIdParam(req.params.shareId);
      await db().transaction().execute((tx) => deleteShare(tx, req.actor, f.type, id, shareId));
      return success();
    });
  }
}
