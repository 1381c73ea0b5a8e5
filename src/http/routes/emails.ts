import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sendRowByEmail, sendRowsByEmail, sendSheetByEmail, type RowsMailRenderer, type SheetFileRenderer } from '../../services/outbound/emails.ts';
import { success } from '../present/envelope.ts';
import { pathId } from '../query.ts';
import { rowsMailBody } from '../../render/mailBodies.ts';
import { PAPER_SIZES, sheetPdf } from '../../render/pdf.ts';
import { sheetXlsx } from '../../render/xlsx.ts';
import { userLookup } from '../../services/sheets/sheetReads.ts';

type SheetReq = FastifyRequest<{ Params: { sheetId: string } }>;

/** Send Sheet via Email and Send Rows via Email (the mail goes out through the job worker). */
export async function emailRoutes(app: FastifyInstance): Promise<void> {
  const ctx = () => app.ctx;
  const base = () => ctx().config.publicUrl;

  app.post('/sheets/:sheetId/emails', { config: { scope: 'SHARE_SHEETS', body: 'required' } }, async (req: SheetReq) => {
    const render: SheetFileRenderer = async (model, sheet, level, format, paperSize) => {
      const rows = model.tree.displayOrder().map((id) => model.rows.get(id)!);
      const opts = { ro: req.ro, level, users: await userLookup(ctx().store.db, rows), permalinkBase: base() };
      if (format === 'EXCEL') {
        return { fileName: `${sheet.name}.xlsx`, contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', bytes: await sheetXlsx(model, sheet.name, rows, opts) };
      }
      return { fileName: `${sheet.name}.pdf`, contentType: 'application/pdf', bytes: await sheetPdf(model, sheet.name, rows, opts, paperSize) };
    };
    await sendSheetByEmail(ctx().store, ctx().blobs, req.actor, pathId(req.params.sheetId), req.body, render, PAPER_SIZES);
    return success();
  });

  const rowsMail = (req: FastifyRequest): RowsMailRenderer => async (m) => {
    const users = await userLookup(ctx().store.db, m.rows);
    return rowsMailBody(m, { ro: req.ro, level: m.level, users, permalinkBase: base() });
  };

  app.post('/sheets/:sheetId/rows/emails', { config: { scope: 'SHARE_SHEETS', body: 'required' } }, async (req: SheetReq) => {
    await sendRowsByEmail(ctx().store, req.actor, pathId(req.params.sheetId), req.body, rowsMail(req));
    return success();
  });

  // Send Row via Email, the Java SDK's deprecated sendRow: Send Rows of that one row
  app.post('/sheets/:sheetId/rows/:rowId/emails', { config: { scope: 'SHARE_SHEETS', body: 'required' } }, async (req: FastifyRequest<{ Params: { sheetId: string; rowId: string } }>) => {
    await sendRowByEmail(ctx().store, req.actor, pathId(req.params.sheetId), pathId(req.params.rowId), req.body, rowsMail(req));
    return success();
  });
}
