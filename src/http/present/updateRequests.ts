import type { Schedule } from '../../engine/schedules.ts';
import { DEFAULT_MESSAGE, type Person, type SentUpdateRequestView, type UpdateRequestView } from '../../services/collaboration/updateRequests.ts';
import { ts } from './dates.ts';

function who(u: Person | undefined): { name?: string; email: string } | undefined {
  if (!u) return undefined;
  const name = [u.first_name, u.last_name].filter((x) => x).join(' ');
  return { ...(name !== '' ? { name } : {}), email: u.email };
}

/** The Schedule object: instants in UTC (or numbers), with the last and next send. */
function presentSchedule(s: Schedule, v: UpdateRequestView, numericDates: boolean): Record<string, unknown> {
  const { offsetMinutes: _offset, startAt, endAt, ...rest } = s;
  return {
    ...rest,
    startAt: ts(startAt, numericDates),
    ...(endAt !== undefined ? { endAt: ts(endAt, numericDates) } : {}),
    ...(v.row.last_sent_at !== null ? { lastSentAt: ts(v.row.last_sent_at, numericDates) } : {}),
    ...(v.row.next_send_at !== null ? { nextSendAt: ts(v.row.next_send_at, numericDates) } : {}),
  };
}

/** The UpdateRequest object; `summary` is the list's form (the reference names its fields). */
export function presentUpdateRequest(v: UpdateRequestView, numericDates: boolean, summary = false): Record<string, unknown> {
  const r = v.row;
  const full = summary ? {} : {
    rowIds: v.rowIds, columnIds: v.columnIds, includeAttachments: r.include_attachments === 1, includeDiscussions: r.include_discussions === 1,
    ...(r.layout !== null ? { layout: r.layout } : {}),
  };
  return {
    id: r.id,
    ...full,
    sendTo: v.sendTo,
    ...(r.subject !== null ? { subject: r.subject } : {}),
    message: r.message ?? DEFAULT_MESSAGE,
    ccMe: r.cc_me === 1,
    ...(v.schedule ? { schedule: presentSchedule(v.schedule, v, numericDates) } : {}),
    ...(who(v.sentBy) ? { sentBy: who(v.sentBy) } : {}),
    createdAt: ts(r.created_at, numericDates),
    modifiedAt: ts(r.modified_at, numericDates),
  };
}

/** The SentUpdateRequest object; `summary` is the list's form. */
export function presentSentUpdateRequest(v: SentUpdateRequestView, numericDates: boolean, summary = false): Record<string, unknown> {
  const r = v.row;
  const full = summary ? {} : {
    rowIds: v.rowIds, columnIds: v.columnIds, includeAttachments: r.include_attachments === 1, includeDiscussions: r.include_discussions === 1,
  };
  return {
    id: r.id,
    ...(r.update_request_id !== null ? { updateRequestId: r.update_request_id } : {}),
    ...full,
    sentTo: { email: r.email },
    subject: r.subject,
    message: r.message,
    sentAt: ts(r.sent_at, numericDates),
    ...(who(v.sentBy) ? { sentBy: who(v.sentBy) } : {}),
    status: v.status,
  };
}
