import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { addRows, deleteRows, sortSheet, updateRows, type RowFailure, type RowWriteOptions } from '../../services/sheets/rows.ts';
import { bool, idList, pathId, type Query } from '../query.ts';
import { bulkResult, success, type BulkItemFailure } from '../present/envelope.ts';
import { errorBody } from '../errors.ts';
import { JsonWriter, presentRow, writeRowsJson } from '../present/sheetContents.ts';
import { SPARE_MIN_BYTES } from '../present/bodyBuffers.ts';
import { writersOf } from '../../services/sheets/sheetReads.ts';
import type { RowState, SheetModel } from '../../engine/model.ts';
import type { RowPresentOptions } from '../../render/rowCells.ts';

type SheetParams = FastifyRequest<{ Params: { sheetId: string } }>;

/** From this estimate on, a rows answer is written into a spare body Buffer (below 128 KB malloc reuses memory itself). */
const LARGE_ANSWER = 128 * 1024;

function writeOptions(req: FastifyRequest): RowWriteOptions {
  const q = req.query as Query;
  return {
    allowPartialSuccess: bool(q, 'allowPartialSuccess'),
    overrideValidation: bool(q, 'overrideValidation'),
    numericDates: req.ro.numericDates,
    level: req.ro.level,
  };
}

function failures(list: RowFailure[]): BulkItemFailure[] {
  return list.map((f) => ({ index: f.index, rowId: f.rowId, error: errorBody(f.error) }));
}

export async function rowRoutes(app: FastifyInstance): Promise<void> {
  const store = () => app.ctx.store;
  const base = () => app.ctx.config.publicUrl;

  async function rowsResult(req: FastifyRequest, reply: FastifyReply, out: Awaited<ReturnType<typeof addRows>>) {
    const { result, version, model, level } = out;
    const users = await writersOf(store().db, model, result.rows, req.ro);
    const opts = { ro: req.ro, level, users, permalinkBase: base() };
    const failed = failures(result.failures);
    if (result.single) return bulkResult({ result: result.rows.length > 0 ? presentRow(model, result.rows[0]!, opts) : undefined }, failed, version);
    // many rows: the envelope's JSON written around the rows' JSON (writeRowsJson), no Row objects
    const { result: _r, ...rest } = bulkResult({ result: [] }, failed, version);
    const head = JSON.stringify({ message: rest.message, resultCode: rest.resultCode });
    const tail = JSON.stringify(rest);
    return sendRows(reply, `${head.slice(0, -1)},"result":`, model, result.rows, opts, tail.slice(head.length - 1));
  }

  /**
   * Answers `before`, the JSON of `rows` as presentRow gives them (writeRowsJson: no Row
   * objects), then `after`. The answer (500 rows of 20 cells: about 800 KB) is written into a
   * spare body Buffer (present/bodyBuffers.ts), given back once it is sent: a fresh one of that
   * size is memory of its own from the system, a page fault per 4 KB written (the growing
   * writer made two: 512 KB, then 768 KB).
   */
  function sendRows(reply: FastifyReply, before: string, model: SheetModel, rows: readonly RowState[], opts: RowPresentOptions, after: string) {
    const estimate = rows.length * 1024;
    const w = new JsonWriter(estimate >= LARGE_ANSWER ? Math.max(estimate, SPARE_MIN_BYTES) : estimate);
    w.write(before);
    writeRowsJson(w, model, rows, opts);
    w.write(after);
    reply.raw.once('close', () => {
      // all of it written out (not an aborted answer): nothing reads the Buffer any more
      if (reply.raw.writableFinished) w.release();
    });
    return reply.type('application/json; charset=utf-8').send(w.toBuffer());
  }

  app.post('/sheets/:sheetId/rows', { config: { scope: 'WRITE_SHEETS', body: 'required' } }, async (req: SheetParams, reply) => {
    const out = await addRows(store(), req.actor, pathId(req.params.sheetId), req.body, writeOptions(req));
    return rowsResult(req, reply, out);
  });

  app.put('/sheets/:sheetId/rows', { config: { scope: 'WRITE_SHEETS', body: 'required' } }, async (req: SheetParams, reply) => {
    const out = await updateRows(store(), req.actor, pathId(req.params.sheetId), req.body, writeOptions(req));
    return rowsResult(req, reply, out);
  });

  app.delete('/sheets/:sheetId/rows', { config: { scope: 'WRITE_SHEETS' } }, async (req: SheetParams) => {
    const q = req.query as Query;
    const out = await deleteRows(store(), req.actor, pathId(req.params.sheetId), idList(q, 'ids'), bool(q, 'ignoreRowsNotFound'));
    return { ...success(undefined, out.version), result: out.result };
  });

  // Delete Row, the Java SDK's deprecated deleteRow: Delete Rows of that one row (ids=rowId; its
  // children go with it; a row not in the sheet is 404/1006). The Result has no `result`: that
  // method reads `result` as one Row, and a list of ids would make it throw.
  app.delete('/sheets/:sheetId/rows/:rowId', { config: { scope: 'WRITE_SHEETS' } }, async (req: FastifyRequest<{ Params: { sheetId: string; rowId: string } }>) => {
    const out = await deleteRows(store(), req.actor, pathId(req.params.sheetId), [pathId(req.params.rowId)], false);
    return success(undefined, out.version);
  });

  // Sort Rows in Sheet: the sheet's rows in their new order (the whole sheet: written as Get Sheet writes its rows)
  app.post('/sheets/:sheetId/sort', { config: { scope: 'WRITE_SHEETS', body: 'required' } }, async (req: SheetParams, reply) => {
    const out = await sortSheet(store(), req.actor, pathId(req.params.sheetId), req.body);
    const m = out.model;
    const rows = m.tree.displayOrder().map((id) => m.rows.get(id)!);
    const users = await writersOf(store().db, m, rows, req.ro);
    const head = JSON.stringify({ id: out.sheet.id, name: out.sheet.name, version: out.version, totalRowCount: m.rows.size });
    return sendRows(reply, `${head.slice(0, -1)},"rows":`, m, rows, { ro: req.ro, level: out.level, users, permalinkBase: base() }, '}');
  });
}
