/** Update requests (migration 0020, store/updateRequests.ts). */
export interface UpdateRequestTable {
  id: number;
  sheet_id: number;
  org_id: number;
  /** JSON number arrays */
  row_ids: string;
  column_ids: string;
  /** JSON: [{ email }] */
  send_to: string;
  subject: string | null;
  message: string | null;
  cc_me: number;
  include_attachments: number;
  include_discussions: number;
  layout: string | null;
  /** JSON: the Schedule as given (engine/schedules.ts), or null for one sent at once */
  schedule: string | null;
  next_send_at: number | null;
  last_sent_at: number | null;
  created_at: number;
  created_by: number;
  modified_at: number;
}

export interface SentUpdateRequestTable {
  id: number;
  sheet_id: number;
  org_id: number;
  update_request_id: number | null;
  rule_id: number | null;
  row_ids: string;
  column_ids: string;
  email: string;
  subject: string;
  message: string;
  include_attachments: number;
  include_discussions: number;
  sent_at: number;
  sent_by: number;
  status: string;
  completed_at: number | null;
}

export interface UpdateRequestTables {
  update_requests: UpdateRequestTable;
  sent_update_requests: SentUpdateRequestTable;
}
