import type { FastifyInstance, FastifyRequest } from 'fastify';
import { copyRows, moveRows, type TransferOptions } from '../../services/sheets/rowTransfer.ts';
import { bool, pathId, type Query } from '../query.ts';

type SheetParams = FastifyRequest<{ Params: { sheetId: string } }>;

function options(req: FastifyRequest): TransferOptions {
  return { include: req.ro.include, ignoreRowsNotFound: bool(req.query as Query, 'ignoreRowsNotFound') };
}

/** Copy / Move Rows to Another Sheet: the CopyOrMoveRowResult itself is the response (no Result wrapper). */
export default async function rowTransferRoutes(app: FastifyInstance): Promise<void> {
  const store = () => app.ctx.store;

  app.post('/sheets/:sheetId/rows/copy', { config: { scope: 'WRITE_SHEETS', body: 'required' } }, async (req: SheetParams) => {
    return copyRows(store(), req.actor, pathId(req.params.sheetId), req.body, options(req));
  });

  app.post('/sheets/:sheetId/rows/move', { config: { scope: 'WRITE_SHEETS', body: 'required' } }, async (req: SheetParams) => {
    return moveRows(store(), req.actor, pathId(req.params.sheetId), req.body, options(req));
  });
}
