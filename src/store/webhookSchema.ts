/** Webhooks and their delivery log (migration 0012). Times are epoch ms; booleans 0/1. */
export interface WebhookTable {
  id: number;
  org_id: number;
  owner_id: number;
  api_client_id: number | null;
  api_client_name: string | null;
  name: string;
  callback_url: string;
  /** JSON array of strings (["*.*"]) */
  events: string;
  version: number;
  scope: string;
  scope_object_id: number;
  /** JSON array of column ids, or null for the whole sheet */
  subscope: string | null;
  enabled: number;
  status: string;
  disabled_details: string | null;
  shared_secret: string;
  created_at: number;
  modified_at: number;
  last_attempt_at: number | null;
  last_attempt_retry_count: number | null;
  last_success_at: number | null;
  /** The change-log position (events.pos) read so far. */
  cursor: number;
  callbacks_since_verify: number;
  /** The lease of the delivery run in progress (one per webhook at a time). */
  pump_by: string | null;
  pump_until: number | null;
}

export interface WebhookDeliveryTable {
  id: number;
  /** Order of a webhook's deliveries. */
  id_seq: number;
  webhook_id: number;
  /** EVENTS, STATUS or VERIFICATION */
  kind: string;
  /** The exact JSON text sent. */
  body: string;
  /** PENDING, DELIVERED, FAILED or DROPPED */
  state: string;
  attempts: number;
  next_attempt_at: number;
  replay_of: number | null;
  created_at: number;
  finished_at: number | null;
}

export interface WebhookAttemptTable {
  id: number;
  delivery_id: number;
  at: number;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
}

export interface WebhookTables {
  webhooks: WebhookTable;
  webhook_deliveries: WebhookDeliveryTable;
  webhook_attempts: WebhookAttemptTable;
}
