import type { ReadOptions } from '../../services/platform/context.ts';
import type { DeliveryWithAttempts } from '../../services/outbound/webhooks.ts';
import type { WebhookRow } from '../../store/webhooks.ts';
import { optTs, ts } from './dates.ts';

/** The Webhook object of the reference. */
export function webhook(h: WebhookRow, ro: ReadOptions) {
  const stats: Record<string, unknown> = {};
  if (h.last_attempt_at !== null) stats.lastCallbackAttempt = ts(h.last_attempt_at, ro.numericDates);
  if (h.last_attempt_retry_count !== null) stats.lastCallbackAttemptRetryCount = h.last_attempt_retry_count;
  if (h.last_success_at !== null) stats.lastSuccessfulCallback = ts(h.last_success_at, ro.numericDates);
  return {
    id: h.id,
    name: h.name,
    apiClientId: h.api_client_id ?? undefined,
    apiClientName: h.api_client_name ?? undefined,
    callbackUrl: h.callback_url,
    scope: h.scope,
    scopeObjectId: h.scope_object_id,
    subscope: h.subscope === null ? undefined : { columnIds: JSON.parse(h.subscope) as number[] },
    events: JSON.parse(h.events) as string[],
    version: h.version,
    enabled: h.enabled === 1,
    status: h.status,
    disabledDetails: h.enabled === 1 ? undefined : h.disabled_details ?? undefined,
    sharedSecret: h.shared_secret,
    stats,
    createdAt: ts(h.created_at, ro.numericDates),
    modifiedAt: ts(h.modified_at, ro.numericDates),
  };
}

/** A delivery of the sheetd delivery log: what was sent and each attempt. */
export function delivery(d: DeliveryWithAttempts, ro: ReadOptions) {
  const x = d.delivery;
  return {
    id: x.id,
    kind: x.kind,
    state: x.state,
    createdAt: ts(x.created_at, ro.numericDates),
    finishedAt: optTs(x.finished_at, ro.numericDates),
    nextAttemptAt: x.state === 'PENDING' ? ts(x.next_attempt_at, ro.numericDates) : undefined,
    replayOf: x.replay_of ?? undefined,
    body: x.body,
    attempts: d.attempts.map((a) => ({
      at: ts(a.at, ro.numericDates),
      statusCode: a.status_code ?? undefined,
      latencyMs: a.latency_ms,
      error: a.error ?? undefined,
    })),
  };
}
