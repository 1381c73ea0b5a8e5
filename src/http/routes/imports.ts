import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { apiError } from '../../errors.ts';
import { IMPORT_MAX_BYTES, IMPORT_TYPES, importSheet, type ImportFormat } from '../../services/sheets/imports.ts';
import { success } from '../present/envelope.ts';
import { sheetResult } from '../present/sheets.ts';
import { int, one, pathId, type Query } from '../query.ts';
import { answeringEarly, streamingParser } from '../uploads.ts';

/** Import Sheet from CSV / XLSX into home, a folder or a workspace: the body is the file. */
export async function importRoutes(app: FastifyInstance): Promise<void> {
  // the file is handed on as a stream (this plugin only)
  const stream = streamingParser(() => IMPORT_MAX_BYTES);
  app.addContentTypeParser(IMPORT_TYPES.csv, stream);
  app.addContentTypeParser(IMPORT_TYPES.xlsx, stream);

  async function run(req: FastifyRequest, reply: Parameters<typeof answeringEarly>[1], where: { type: 'home' | 'folder' | 'workspace'; id: number | null }) {
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    const format = (Object.keys(IMPORT_TYPES) as ImportFormat[]).find((k) => IMPORT_TYPES[k] === type);
    // JSON or any other parsed type is not a file to import
    if (format === undefined || !(req.body instanceof Readable)) throw apiError(1124);
    const body = req.body;
    const q = req.query as Query;
    const sheet = await answeringEarly(req, reply, () => importSheet(app.ctx.store, req.actor, where, {
      body,
      format,
      sheetName: one(q, 'sheetName'),
      headerRowIndex: int(q, 'headerRowIndex', { min: 0 }),
      primaryColumnIndex: int(q, 'primaryColumnIndex', { min: 0 }),
      level: req.ro.level,
    }));
    return success({ ...sheetResult(app.ctx.config, sheet, 'OWNER', req.ro), type: 'sheet' });
  }

  const config = { scope: 'CREATE_SHEETS' as const, body: 'required' as const };
  app.post('/sheets/import', { config }, async (req, reply) => run(req, reply, { type: 'home', id: null }));
  app.post('/folders/:folderId/sheets/import', { config }, async (req: FastifyRequest<{ Params: { folderId: string } }>, reply) =>
    run(req, reply, { type: 'folder', id: pathId(req.params.folderId) }));
  app.post('/workspaces/:workspaceId/sheets/import', { config }, async (req: FastifyRequest<{ Params: { workspaceId: string } }>, reply) =>
    run(req, reply, { type: 'workspace', id: pathId(req.params.workspaceId) }));
}
