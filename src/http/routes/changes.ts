import type { FastifyInstance, FastifyRequest } from 'fastify';
import { apiError } from '../../errors.ts';
import type { StreamSink } from '../../services/live/hub.ts';
import { pathId } from '../query.ts';
import { success } from '../present/envelope.ts';
import { presentChanges, sseEvent } from '../present/changes.ts';

/**
 * Live collaboration (docs/changes-stream.md):
 *
 *   GET  /sheetd/sheets/{sheetId}/changes    the sheet's committed changes as Server-Sent Events
 *   POST /sheetd/sheets/{sheetId}/presence   the cell the caller has focused
 *   GET  /sheetd/sheets/{sheetId}/presence   who has the sheet open
 */

type P = FastifyRequest<{ Params: { sheetId: string } }>;

/** A stream whose client reads slower than its changes come is ended past this; it resumes by Last-Event-ID. */
const MAX_UNSENT = 8 * 1024 * 1024;

function position(v: unknown, name: string): number | undefined {
  if (v === undefined || v === '') return undefined;
  const s = Array.isArray(v) ? v[0] : v;
  if (typeof s !== 'string' || !/^\d{1,16}$/.test(s) || !Number.isSafeInteger(Number(s))) throw apiError(1018, String(s), name);
  return Number(s);
}

export async function changeRoutes(app: FastifyInstance): Promise<void> {
  const { config } = app.ctx;

  app.get('/sheetd/sheets/:sheetId/changes', { config: { scope: 'READ_SHEETS', produces: ['text/event-stream'], csrfInQuery: true } }, async (req: P, reply) => {
    const sheetId = pathId(req.params.sheetId);
    const q = req.query as Record<string, unknown>;
    const after = position(req.headers['last-event-id'], 'Last-Event-ID') ?? position(q.after, 'after');
    const reauth = () => req.reauthenticate();
    const stream = await app.ctx.live.open({ actor: req.actor, sheetId, after, reauth });
    // the read options of the query shape rows and columns as Get Row and Get Column would
    const roKey = JSON.stringify([...req.ro.include].sort()) + JSON.stringify([...req.ro.exclude].sort()) + `${req.ro.numericDates}|${req.ro.level}|${req.ro.accessApiLevel}`;
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'x-accel-buffering': 'no',
      connection: 'close',
    });
    res.write(`retry: 2000\n\n`);
    const write = (text: string) => {
      if (res.writableEnded || res.destroyed) return;
      res.write(text);
      if (res.writableLength > MAX_UNSENT) res.destroy();
    };
    const sink: StreamSink = {
      changes: async (batch, changes, level) => write(await presentChanges(batch, changes, level, req.ro, roKey, config.publicUrl)),
      event: (kind, id, data) => write(sseEvent(kind, id, data)),
      comment: () => write(': keep-alive\n\n'),
      end: () => {
        if (!res.writableEnded) res.end();
      },
    };
    res.on('close', () => stream.close());
    res.on('error', () => stream.close());
    stream.start(sink);
  });

  app.post('/sheetd/sheets/:sheetId/presence', { config: { scope: 'READ_SHEETS' } }, async (req: P) => {
    return success(await app.ctx.live.reportFocus(req.actor, pathId(req.params.sheetId), req.body));
  });

  app.get('/sheetd/sheets/:sheetId/presence', { config: { scope: 'READ_SHEETS' } }, async (req: P) => {
    return { sheetId: pathId(req.params.sheetId), viewers: await app.ctx.live.viewers(req.actor, pathId(req.params.sheetId)) };
  });
}
