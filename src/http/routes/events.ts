import type { FastifyInstance } from 'fastify';
import { publicEventName, publicSource, readEvents } from '../../services/log/eventReports.ts';
import { publicDetails } from '../../services/log/recomputed.ts';
import { int, one, type Query } from '../query.ts';
import { parseTimestamp, ts } from '../present/dates.ts';

export async function eventRoutes(app: FastifyInstance): Promise<void> {
  app.get('/events', { config: { scope: 'READ_EVENTS' } }, async (req) => {
    const q = req.query as Query;
    const nd = req.ro.numericDates;
    const sinceRaw = one(q, 'since');
    const toRaw = one(q, 'to');
    // epoch milliseconds are taken without numericDates too: the C# SDK's ListEvents(since: 0)
    // sends since=0 alone, and its test against the public service expects events back
    const time = (raw: string, name: string) => parseTimestamp(raw, nd || /^\d{1,15}$/.test(raw), name);
    const r = await readEvents(app.ctx.store, req.actor, {
      since: sinceRaw !== undefined ? time(sinceRaw, 'since') : undefined,
      to: toRaw !== undefined ? time(toRaw, 'to') : undefined,
      streamPosition: one(q, 'streamPosition'),
      maxCount: int(q, 'maxCount', { min: 1, max: 10000 }) ?? 1000,
    });
    return {
      nextStreamPosition: r.nextStreamPosition,
      moreAvailable: r.moreAvailable,
      data: r.events.map((e) => {
        const { source, origin } = publicSource(e.source);
        const name = publicEventName(e, r.orgId);
        let details = publicDetails(JSON.parse(e.additional_details)) as Record<string, unknown>;
        if (origin !== undefined) details = { ...details, origin };
        if (name.recorded !== undefined) details = { ...details, sheetdEvent: name.recorded };
        return {
          eventId: e.event_id,
          objectType: name.objectType,
          action: name.action,
          objectId: name.objectId,
          eventTimeStamp: ts(e.event_ts, nd),
          // the same time under the name the Python SDK reads
          eventTimestamp: ts(e.event_ts, nd),
          userId: e.user_id ?? r.systemUserId,
          requestUserId: e.request_user_id ?? e.user_id ?? r.systemUserId,
          accessTokenName: e.access_token_name ?? undefined,
          source,
          additionalDetails: details,
        };
      }),
    };
  });
}
