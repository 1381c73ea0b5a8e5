import type { FastifyInstance, FastifyRequest } from 'fastify';
import { presentCell } from '../../engine/display.ts';
import { readCellHistory } from '../../services/sheets/cellHistory.ts';
import { paging, pathId, type Query } from '../query.ts';
import { paginate } from '../paging.ts';
import { ts } from '../present/dates.ts';
import { fullName } from '../present/users.ts';
import { permalink } from '../../render/permalinks.ts';

type P = FastifyRequest<{ Params: { sheetId: string; rowId: string; columnId: string } }>;

/**
 * Cell history, newest first: the cell as it is now (when it was ever written), then each
 * earlier state kept when it was overwritten. Costs 10 toward the rate limit.
 */
export async function cellHistoryRoutes(app: FastifyInstance): Promise<void> {
  const db = () => app.ctx.store.db;
  app.get('/sheets/:sheetId/rows/:rowId/columns/:columnId/history', { config: { scope: 'READ_SHEETS', cost: 10 } }, async (req: P) => {
    const sheetId = pathId(req.params.sheetId);
    const rowId = pathId(req.params.rowId);
    const columnId = pathId(req.params.columnId);
    const { model, column, entries, users } = await readCellHistory(db(), req.actor, sheetId, rowId, columnId);
    const byId = new Map(users.map((u) => [u.id, { email: u.email, name: fullName(u) }]));
    const ro = req.ro;
    const all = entries.map((e) => {
      const c: Record<string, unknown> = { ...presentCell(column, e.cell, {
        level: ro.level, numericDates: ro.numericDates,
        includeObjectValue: ro.include.has('objectValue'), includeColumnType: ro.include.has('columnType'), includeFormat: ro.include.has('format'),
        rowId, rowNumberOf: (id) => model.tree.rowNumberOf(id),
        permalinkOf: (kind, id) => permalink(app.ctx.config, kind, id),
      }) };
      c.modifiedAt = ts(e.at, ro.numericDates);
      const u = e.by === null ? undefined : byId.get(e.by);
      if (u) c.modifiedBy = u;
      else if (e.email !== undefined) c.modifiedBy = { email: e.email };
      return c;
    });
    return paginate(all, paging(req.query as Query));
  });
}
