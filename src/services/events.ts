import type { Queryable } from '../store/db.ts';
import { appendEvents } from '../store/events.ts';
import { wakeWebhooks, webhookBatch } from '../store/webhooks.ts';
import { clock } from '../clock.ts';
import { eventIds as newEventIds } from '../ids.ts';
import type { Actor } from './context.ts';

/**
 * A change event. Every mutation appends its events in the transaction that makes the change,
 * so the log is the one source for GET /events, webhooks, cell history and cache invalidation.
 */
export interface ChangeEvent {
  objectType: string;
  action: string;
  objectId: number;
  details?: Record<string, unknown>;
  sheetId?: number | null;
  workspaceId?: number | null;
}

/** Who did it, as the event log records it (an actor, or the system / command line). */
export interface EventAuthor {
  orgId: number;
  userId: number | null;
  requestUserId: number | null;
  accessTokenName: string | null;
  source: string;
  /** Smartsheet-Change-Agent of the request, when it sent one. */
  changeAgent?: string | null;
}

export function authorOf(actor: Actor): EventAuthor {
  return {
    orgId: actor.org.id,
    userId: actor.guestEmail !== undefined ? null : actor.user.id,
    requestUserId: actor.guestEmail !== undefined ? null : actor.requestUser.id,
    accessTokenName: actor.tokenName,
    source: actor.source ?? 'API',
    changeAgent: actor.changeAgent ?? null,
  };
}

export async function recordEvents(db: Queryable, author: EventAuthor, events: ChangeEvent[], now = clock.now()): Promise<void> {
  const eventIds = newEventIds(events.length, now);
  await appendEvents(
    db,
    events.map((e, i) => ({
      event_id: eventIds[i]!,
      org_id: author.orgId,
      object_type: e.objectType,
      action: e.action,
      object_id: e.objectId,
      user_id: author.userId,
      request_user_id: author.requestUserId,
      access_token_name: author.accessTokenName,
      source: author.source,
      additional_details: JSON.stringify(e.details ?? {}),
      event_ts: now,
      sheet_id: e.sheetId ?? null,
      workspace_id: e.workspaceId ?? null,
      change_agent: author.changeAgent ?? null,
    })),
  );
  // webhooks watching these sheets deliver them after this commit (a run per commit, after the batch window)
  const sheetIds = [...new Set(events.map((e) => e.sheetId).filter((id): id is number => typeof id === 'number'))];
  await wakeWebhooks(db, sheetIds, clock.now() + webhookBatch.ms);
}
