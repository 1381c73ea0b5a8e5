import { apiError } from '../../errors.ts';
import { newId } from '../../ids.ts';
import { clock } from '../../clock.ts';
import { asObject, bodyId, describe, type Obj, optionalBodyBool } from '../../engine/input.ts';
import { cellKey, type StoredValue } from '../../engine/cells.ts';
import type { ColumnDef } from '../../engine/columns.ts';
import { nextSend, parseSchedule, type Schedule } from '../../engine/schedules.ts';
import type { Queryable, Store } from '../../store/db.ts';
import type { SheetStore } from '../sheets/sheetWrites.ts';
import { enqueue } from '../../store/jobs.ts';
import { findSheet, type SheetRow } from '../../store/sheets.ts';
import { findUserByEmail, findUserById, findUsersByIds } from '../../store/users.ts';
import {
  deleteUpdateRequestRow, findSentUpdateRequest, findSentUpdateRequestById, findUpdateRequest, findUpdateRequestById,
  insertSentUpdateRequests, insertUpdateRequest, listScheduledUpdateRequests, listSentUpdateRequestRows, settleSentUpdateRequest,
  updateUpdateRequest, type SentUpdateRequestRow, type UpdateRequestRow,
} from '../../store/updateRequests.ts';
import type { MailPayload } from '../../mail/index.ts';
import { atLeast } from '../access/access.ts';
import { nameOrEmail, type Actor, type UserRow } from '../platform/context.ts';
import { parseEmail, rowExtras, type RowsMail } from '../outbound/emails.ts';
import { authorOf, recordEvents, type ChangeEvent, type EventAuthor } from '../log/events.ts';
import { sheetFor } from '../access/permissions.ts';
import { readModel } from '../sheets/sheetCache.ts';
import type { SheetModel } from '../../engine/model.ts';
import { assertPrimaryEmail } from '../identity/alternateEmails.ts';
import { actorFor } from '../outbound/automation.ts';
import { updateRows } from '../sheets/rows.ts';
import { hasServerSignature, serverSignature } from '../identity/secrets.ts';

/**
 * Update requests: the sender names rows and columns and who should fill them in; each
 * recipient gets a message with the rows and a signed link to a page (src/web/updateRequests.ts)
 * where, without an account, they edit those cells of those rows once. Without a schedule the
 * request is sent in the request's own transaction; with one, an `update-request-send` job is due
 * at each send (clock.ts time). Every send makes one SentUpdateRequest per recipient (PENDING,
 * then COMPLETE when they submit, or CANCELED when the sender deletes it or none of its rows is
 * left). Everything needs EDITOR on the sheet; changing or deleting an update request needs its
 * sender or a sheet ADMIN.
 */

export const UPDATE_REQUEST_JOB = 'update-request-send';
/** How long the link of a sent update request works. */
export const LINK_TTL_MS = 30 * 24 * 3_600_000;
export const DEFAULT_MESSAGE = 'Please update the following rows in my online sheet.';
const MAX_MESSAGE = 10_000;

/** What sending needs from the server: the rows-mail presenter and the public base URL. */
export interface UpdateRequestDeps {
  store: Store;
  render: (m: RowsMail, db: Queryable) => Promise<{ text: string; html: string }>;
  publicUrl: () => string;
}

export type Person = Pick<UserRow, 'id' | 'email' | 'first_name' | 'last_name'>;

export interface UpdateRequestView {
  row: UpdateRequestRow;
  rowIds: number[];
  columnIds: number[];
  sendTo: Array<{ email: string }>;
  schedule: Schedule | null;
  sentBy: Person | undefined;
}

export interface SentUpdateRequestView {
  row: SentUpdateRequestRow;
  rowIds: number[];
  columnIds: number[];
  status: 'PENDING' | 'COMPLETE' | 'CANCELED';
  sentBy: Person | undefined;
}

// ---- input

function optText(b: Obj, attr: string, max: number): string | undefined {
  const v = b[attr];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' || v.length > max) throw apiError(1031, describe(v), attr);
  return v;
}

function optBool(b: Obj, attr: string): boolean | undefined {
  return optionalBodyBool(b[attr], attr);
}

function ids(v: unknown, attr: string): number[] {
  if (!Array.isArray(v)) throw apiError(1031, describe(v), attr);
  if (v.some((x) => x === null)) throw apiError(1176, attr);
  return [...new Set(v.map((x) => bodyId(x, attr)))];
}

/** sendTo: people by primary address only (groups are refused: 1031; an alternate address: 1159). */
async function recipients(db: Queryable, b: Obj): Promise<Array<{ email: string }>> {
  const { sendTo } = parseEmail(b);
  const out = new Map<string, { email: string }>();
  for (const r of sendTo) {
    if (!('email' in r)) throw apiError(1031, 'a group', 'sendTo');
    await assertPrimaryEmail(db, r.email);
    out.set(r.email.toLowerCase(), { email: r.email });
  }
  return [...out.values()];
}

const READ_ONLY = new Set(['id', 'createdAt', 'modifiedAt', 'sentBy']);
const ATTRS = new Set(['rowIds', 'columnIds', 'sendTo', 'subject', 'message', 'ccMe', 'includeAttachments', 'includeDiscussions', 'layout', 'schedule']);

function checkAttrs(b: Obj, allowRowIds: boolean): void {
  const refused = Object.keys(b).filter((k) => READ_ONLY.has(k) || (k === 'rowIds' && !allowRowIds));
  if (refused.length > 0) throw apiError(1032, refused.join(', '));
  for (const k of Object.keys(b)) if (!ATTRS.has(k) && !READ_ONLY.has(k)) throw apiError(1032, k);
}

function columnsOf(model: SheetModel, columnIds: number[] | undefined): number[] {
  if (columnIds === undefined) return model.columns.filter((c) => !c.hidden).map((c) => c.id);
  for (const id of columnIds) if (!model.columnsById.has(id)) throw apiError(1036, id);
  return columnIds;
}

function layoutOf(b: Obj): string | undefined {
  const v = b.layout;
  if (v === undefined || v === null) return undefined;
  if (v !== 'HORIZONTAL' && v !== 'VERTICAL') throw apiError(1031, describe(v), 'layout');
  return v;
}

// ---- reading

const parseIds = (s: string) => JSON.parse(s) as number[];

async function people(db: Queryable, ids: number[]): Promise<Map<number, Person>> {
  return new Map((await findUsersByIds(db, [...new Set(ids)])).map((u) => [u.id, u]));
}

function viewOf(row: UpdateRequestRow, users: Map<number, Person>): UpdateRequestView {
  return {
    row, rowIds: parseIds(row.row_ids), columnIds: parseIds(row.column_ids), sendTo: JSON.parse(row.send_to) as Array<{ email: string }>,
    schedule: row.schedule === null ? null : (JSON.parse(row.schedule) as Schedule), sentBy: users.get(row.created_by),
  };
}

function sentViewOf(row: SentUpdateRequestRow, users: Map<number, Person>, model: SheetModel): SentUpdateRequestView {
  const rowIds = parseIds(row.row_ids);
  // a pending request none of whose rows is left can no longer be completed
  const status = row.status === 'PENDING' && !rowIds.some((id) => model.rows.has(id)) ? 'CANCELED' : (row.status as SentUpdateRequestView['status']);
  return { row, rowIds, columnIds: parseIds(row.column_ids), status, sentBy: users.get(row.sent_by) };
}

/** An update request with a send to come (the others are history: 404, as the reference has it). */
async function scheduledOr404(db: Queryable, sheetId: number, id: number): Promise<UpdateRequestRow> {
  const row = await findUpdateRequest(db, sheetId, id);
  if (!row || row.next_send_at === null) throw apiError(1006);
  return row;
}

function mayChange(actor: Actor, level: Parameters<typeof atLeast>[0], row: UpdateRequestRow): void {
  if (row.created_by !== actor.user.id && !atLeast(level, 'ADMIN')) throw apiError(1004);
}

export async function listUpdateRequests(db: Queryable, actor: Actor, sheetId: number): Promise<UpdateRequestView[]> {
  const { sheet } = await sheetFor(db, actor, sheetId, 'EDITOR');
  const rows = await listScheduledUpdateRequests(db, sheet.id);
  const users = await people(db, rows.map((r) => r.created_by));
  return rows.map((r) => viewOf(r, users));
}

export async function getUpdateRequest(db: Queryable, actor: Actor, sheetId: number, id: number): Promise<UpdateRequestView> {
  const { sheet } = await sheetFor(db, actor, sheetId, 'EDITOR');
  const row = await scheduledOr404(db, sheet.id, id);
  return viewOf(row, await people(db, [row.created_by]));
}

export async function listSentUpdateRequests(db: Queryable, actor: Actor, sheetId: number): Promise<SentUpdateRequestView[]> {
  const { sheet } = await sheetFor(db, actor, sheetId, 'EDITOR');
  const rows = await listSentUpdateRequestRows(db, sheet.id);
  const users = await people(db, rows.map((r) => r.sent_by));
  const model = await readModel(db, sheet);
  return rows.map((r) => sentViewOf(r, users, model));
}

export async function getSentUpdateRequest(db: Queryable, actor: Actor, sheetId: number, id: number): Promise<SentUpdateRequestView> {
  const { sheet } = await sheetFor(db, actor, sheetId, 'EDITOR');
  const row = await findSentUpdateRequest(db, sheet.id, id);
  if (!row) throw apiError(1006);
  return sentViewOf(row, await people(db, [row.sent_by]), await readModel(db, sheet));
}

// ---- writing

function event(sheet: SheetRow, objectType: string, action: string, objectId: number, details: Record<string, unknown>): ChangeEvent {
  return { objectType, action, objectId, sheetId: sheet.id, workspaceId: sheet.workspace_id, details };
}

/** Writes the due job of an update request's next send (keyed by version: a change schedules its own). */
async function scheduleJob(tx: Queryable, row: UpdateRequestRow): Promise<void> {
  if (row.next_send_at === null) return;
  await enqueue(tx, UPDATE_REQUEST_JOB, { id: row.id, version: row.modified_at, at: row.next_send_at }, { runAt: row.next_send_at, key: `${UPDATE_REQUEST_JOB}:${row.id}:${row.modified_at}:${row.next_send_at}` });
}

/** Create an Update Request: sent now without a schedule, else at the schedule's first send. */
export async function createUpdateRequest(deps: UpdateRequestDeps, actor: Actor, sheetId: number, body: unknown): Promise<UpdateRequestView> {
  const b = asObject(body, 'an UpdateRequest object');
  checkAttrs(b, true);
  const db = deps.store.db;
  if (b.rowIds === undefined || b.rowIds === null) throw apiError(1012, 'rowIds');
  const rowIds = ids(b.rowIds, 'rowIds');
  if (rowIds.length === 0) throw apiError(1012, 'rowIds');
  const columnIds = b.columnIds === undefined || b.columnIds === null ? undefined : ids(b.columnIds, 'columnIds');
  const sendTo = await recipients(db, b);
  const subject = optText(b, 'subject', 1000);
  const message = optText(b, 'message', MAX_MESSAGE);
  const ccMe = optBool(b, 'ccMe') ?? false;
  const includeAttachments = optBool(b, 'includeAttachments') ?? false;
  const includeDiscussions = optBool(b, 'includeDiscussions') ?? false;
  const layout = layoutOf(b);
  const now = clock.now();
  const schedule = b.schedule === undefined || b.schedule === null ? null : parseSchedule(b.schedule, now);
  const { sheet } = await sheetFor(db, actor, sheetId, 'EDITOR');
  const model = await readModel(db, sheet);
  for (const id of rowIds) if (!model.rows.has(id)) throw apiError(1006);
  const cols = columnsOf(model, columnIds);
  if (cols.length === 0 && !includeAttachments && !includeDiscussions) throw apiError(1012, 'columnIds');
  let next: number | null = null;
  if (schedule) {
    next = nextSend(schedule, Math.max(now, schedule.startAt - 1)) ?? null;
    if (next === null) throw apiError(1179);
  }
  const row: UpdateRequestRow = {
    id: newId(), sheet_id: sheet.id, org_id: sheet.org_id, row_ids: JSON.stringify(rowIds), column_ids: JSON.stringify(cols),
    send_to: JSON.stringify(sendTo), subject: subject !== undefined && subject.trim() !== '' ? subject : `Update Request: ${sheet.name}`, message: message !== undefined && message !== '' ? message : DEFAULT_MESSAGE, cc_me: ccMe ? 1 : 0,
    include_attachments: includeAttachments ? 1 : 0, include_discussions: includeDiscussions ? 1 : 0, layout: layout ?? null,
    schedule: schedule ? JSON.stringify(schedule) : null, next_send_at: next, last_sent_at: null,
    created_at: now, created_by: actor.user.id, modified_at: now,
  };
  await db.transaction().execute(async (tx) => {
    await insertUpdateRequest(tx, row);
    await recordEvents(tx, authorOf(actor), [event(sheet, 'UPDATE_REQUEST', 'CREATE', row.id, { rowIds, columnIds: cols, recipientCount: sendTo.length, scheduled: schedule !== null })], now);
    if (schedule) await scheduleJob(tx, row);
    else {
      await send(deps, tx, sheet, model, row, actor.user, now);
      row.last_sent_at = now;
      await updateUpdateRequest(tx, row.id, { last_sent_at: now });
    }
  });
  return viewOf(row, new Map([[actor.user.id, actor.user]]));
}

/** Update an Update Request (one with a send to come): the attributes given replace the stored ones. */
export async function changeUpdateRequest(deps: UpdateRequestDeps, actor: Actor, sheetId: number, id: number, body: unknown): Promise<UpdateRequestView> {
  const whole = asObject(body, 'an UpdateRequest object');
  // its own id may come with it, as the Java SDK sends every UpdateRequest (another id: 1029)
  const { id: given, ...b } = whole;
  if (given !== undefined && given !== id) throw apiError(1029);
  checkAttrs(b, false);
  if (Object.keys(b).length === 0) throw apiError(1012, 'ccMe, columnIds, includeAttachments, includeDiscussions, message, schedule, sendTo or subject');
  const db = deps.store.db;
  const { sheet, level } = await sheetFor(db, actor, sheetId, 'EDITOR');
  const row = await scheduledOr404(db, sheet.id, id);
  mayChange(actor, level, row);
  const now = clock.now();
  const patch: Partial<UpdateRequestRow> = { modified_at: Math.max(now, row.modified_at + 1) };
  if (b.sendTo !== undefined) patch.send_to = JSON.stringify(await recipients(db, b));
  if (b.subject !== undefined) patch.subject = optText(b, 'subject', 1000) ?? null;
  if (b.message !== undefined) patch.message = optText(b, 'message', MAX_MESSAGE) ?? null;
  if (b.ccMe !== undefined) patch.cc_me = optBool(b, 'ccMe') ? 1 : 0;
  if (b.includeAttachments !== undefined) patch.include_attachments = optBool(b, 'includeAttachments') ? 1 : 0;
  if (b.includeDiscussions !== undefined) patch.include_discussions = optBool(b, 'includeDiscussions') ? 1 : 0;
  if (b.layout !== undefined) patch.layout = layoutOf(b) ?? null;
  if (b.columnIds !== undefined) {
    const model = await readModel(db, sheet);
    patch.column_ids = JSON.stringify(columnsOf(model, b.columnIds === null ? undefined : ids(b.columnIds, 'columnIds')));
  }
  if (b.schedule !== undefined) {
    if (b.schedule === null) throw apiError(1031, 'null', 'schedule');
    const s = parseSchedule(b.schedule, now);
    const next = nextSend(s, Math.max(now, s.startAt - 1));
    if (next === undefined) throw apiError(1179);
    patch.schedule = JSON.stringify(s);
    patch.next_send_at = next;
  }
  const updated: UpdateRequestRow = { ...row, ...patch };
  await db.transaction().execute(async (tx) => {
    await updateUpdateRequest(tx, row.id, patch);
    await recordEvents(tx, authorOf(actor), [event(sheet, 'UPDATE_REQUEST', 'UPDATE', row.id, { changed: Object.keys(b) })], now);
    // the job of the old version finds the version changed and does nothing
    await scheduleJob(tx, updated);
  });
  return viewOf(updated, await people(db, [row.created_by]));
}

/** Delete an Update Request: no further sends (what was sent stays, with its links). */
export async function deleteUpdateRequest(store: Store, actor: Actor, sheetId: number, id: number): Promise<void> {
  const db = store.db;
  const { sheet, level } = await sheetFor(db, actor, sheetId, 'EDITOR');
  const row = await scheduledOr404(db, sheet.id, id);
  mayChange(actor, level, row);
  await db.transaction().execute(async (tx) => {
    await deleteUpdateRequestRow(tx, row.id);
    await recordEvents(tx, authorOf(actor), [event(sheet, 'UPDATE_REQUEST', 'DELETE', row.id, {})], clock.now());
  });
}

/** Delete Sent Update Request: a pending one is canceled (its link stops working); a completed or canceled one is refused (1004). */
export async function deleteSentUpdateRequest(store: Store, actor: Actor, sheetId: number, id: number): Promise<void> {
  const db = store.db;
  const { sheet, level } = await sheetFor(db, actor, sheetId, 'EDITOR');
  const row = await findSentUpdateRequest(db, sheet.id, id);
  if (!row) throw apiError(1006);
  if (row.sent_by !== actor.user.id && !atLeast(level, 'ADMIN')) throw apiError(1004);
  const now = clock.now();
  await db.transaction().execute(async (tx) => {
    if (!(await settleSentUpdateRequest(tx, row.id, 'CANCELED', now))) throw apiError(1004);
    await recordEvents(tx, authorOf(actor), [event(sheet, 'SENT_UPDATE_REQUEST', 'DELETE', row.id, { email: row.email })], now);
  });
}

// ---- sending

async function linkToken(db: Queryable, id: number): Promise<string> {
  return `${id}.${await serverSignature(db, 'update-request', `update-request.${id}`)}`;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** What one send asks: the fields a SentUpdateRequest copies, and where it comes from. */
export interface Ask {
  updateRequestId: number | null;
  ruleId: number | null;
  rowIds: number[];
  columnIds: number[];
  to: string[];
  subject: string | undefined;
  message: string | undefined;
  ccMe: boolean;
  includeAttachments: boolean;
  includeDiscussions: boolean;
  layout: string | undefined;
  /** who asks: the sender (the rule's creator for automation) */
  sender: Person;
  /** how the sender is named in the message */
  senderName?: string;
}

/**
 * One send, written in `tx`: a SentUpdateRequest and a message with its own link for each
 * recipient (and a copy without links to the sender with ccMe), and their events. Rows and
 * columns no longer in the sheet are left out. Returns the sent update requests.
 */
export async function sendAsk(deps: UpdateRequestDeps, tx: Queryable, sheet: SheetRow, model: SheetModel, a: Ask, now: number, author: EventAuthor): Promise<SentUpdateRequestRow[]> {
  const rows = a.rowIds.map((id) => model.rows.get(id)).filter((r) => r !== undefined)
    .sort((x, y) => (model.tree.rowNumberOf(x.id) ?? 0) - (model.tree.rowNumberOf(y.id) ?? 0));
  if (rows.length === 0 || a.to.length === 0) return [];
  const columns = a.columnIds.map((id) => model.columnsById.get(id)).filter((c): c is ColumnDef => c !== undefined).sort((x, y) => x.index - y.index);
  const extras = await rowExtras(tx, sheet.id, rows.map((r) => r.id), a.includeAttachments, a.includeDiscussions);
  const message = a.message !== undefined && a.message !== '' ? a.message : DEFAULT_MESSAGE;
  const subject = a.subject !== undefined && a.subject.trim() !== '' ? a.subject : `Update Request: ${sheet.name}`;
  const who = a.senderName ?? nameOrEmail(a.sender);
  const layout = a.layout === 'HORIZONTAL' || a.layout === 'VERTICAL' ? a.layout : rows.length > 1 ? 'HORIZONTAL' : 'VERTICAL';
  const { text, html } = await deps.render({
    sheet, model, level: 'VIEWER', rows, columns, layout, sender: { name: who, email: a.sender.email }, message,
    attachments: extras.attachments, discussions: extras.discussions,
  }, tx);
  const n = rows.length;
  const ask = `${who} (${a.sender.email}) asks you to update ${n === 1 ? 'a row' : `${n} rows`} of the sheet "${sheet.name}".`;
  const files = extras.files.length > 0 ? { attachments: extras.files } : {};
  const sent: SentUpdateRequestRow[] = [];
  for (const email of a.to) {
    const row: SentUpdateRequestRow = {
      id: newId(), sheet_id: sheet.id, org_id: sheet.org_id, update_request_id: a.updateRequestId, rule_id: a.ruleId,
      row_ids: JSON.stringify(rows.map((r) => r.id)), column_ids: JSON.stringify(columns.map((c) => c.id)), email, subject, message,
      include_attachments: a.includeAttachments ? 1 : 0, include_discussions: a.includeDiscussions ? 1 : 0,
      sent_at: now, sent_by: a.sender.id, status: 'PENDING', completed_at: null,
    };
    sent.push(row);
    const link = `${deps.publicUrl()}/updaterequests/${await linkToken(tx, row.id)}`;
    const mail: MailPayload = {
      to: [email], replyTo: a.sender.email, subject,
      text: `${ask}\n\nUpdate the rows: ${link}\n(the link works once, for ${Math.round(LINK_TTL_MS / 86_400_000)} days)\n\n${text}`,
      html: html.replace(/<body([^>]*)>/, `<body$1><p>${esc(ask)}</p><p><a href="${esc(link)}">Update the rows</a></p>`),
      separately: true, ...files,
    };
    await enqueue(tx, 'mail', mail);
  }
  if (a.ccMe) {
    const note = `A copy of the update request you sent to ${a.to.join(', ')}.`;
    await enqueue(tx, 'mail', { to: [a.sender.email], subject, text: `${note}\n\n${text}`, html: html.replace(/<body([^>]*)>/, `<body$1><p>${esc(note)}</p>`), separately: true, ...files } satisfies MailPayload);
  }
  await insertSentUpdateRequests(tx, sent);
  await recordEvents(tx, author, sent.map((s) => event(sheet, 'SENT_UPDATE_REQUEST', 'CREATE', s.id, { email: s.email, updateRequestId: s.update_request_id, rowIds: parseIds(s.row_ids) })), now);
  return sent;
}

async function send(deps: UpdateRequestDeps, tx: Queryable, sheet: SheetRow, model: SheetModel, row: UpdateRequestRow, sender: Person, now: number): Promise<void> {
  const v = viewOf(row, new Map());
  const author: EventAuthor = { orgId: sheet.org_id, userId: sender.id, requestUserId: sender.id, accessTokenName: null, source: 'UPDATE_REQUEST' };
  await sendAsk(deps, tx, sheet, model, {
    updateRequestId: row.id, ruleId: null, rowIds: v.rowIds, columnIds: v.columnIds, to: v.sendTo.map((r) => r.email),
    subject: row.subject ?? undefined, message: row.message ?? undefined, ccMe: row.cc_me === 1,
    includeAttachments: row.include_attachments === 1, includeDiscussions: row.include_discussions === 1, layout: row.layout ?? undefined, sender,
  }, now, author);
}

/** The `update-request-send` job: a scheduled send at `at`, and the job of the next one. */
export async function runScheduledSend(deps: UpdateRequestDeps, payload: unknown): Promise<void> {
  const p = payload as { id: number; version: number; at: number };
  const db = deps.store.db;
  const row = await findUpdateRequestById(db, p.id);
  // deleted, or changed since (the change wrote its own job)
  if (!row || row.modified_at !== p.version || row.next_send_at !== p.at || row.schedule === null) return;
  const sheet = await findSheet(db, row.sheet_id);
  const sender = await findUserById(db, row.created_by);
  if (!sheet) return;
  const model = await readModel(db, sheet);
  const now = clock.now();
  const next = nextSend(JSON.parse(row.schedule) as Schedule, p.at) ?? null;
  await db.transaction().execute(async (tx) => {
    // the sender must still be able to edit the sheet; otherwise the send is skipped
    const actor = sender ? await actorFor(tx, sender) : undefined;
    const can = actor ? await sheetFor(tx, actor, sheet.id, 'EDITOR').then(() => true, () => false) : false;
    if (can && sender) await send(deps, tx, sheet, model, row, sender, now);
    await updateUpdateRequest(tx, row.id, { next_send_at: next, ...(can ? { last_sent_at: now } : {}) });
    if (next !== null) await scheduleJob(tx, { ...row, next_send_at: next });
  });
}

// ---- the recipient's page

/** One cell of the page's form. */
export interface FormCell {
  columnId: number;
  title: string;
  type: string;
  /** what the field shows (and is compared with on submit) */
  value: string;
  checked?: boolean;
  options?: string[];
  editable: boolean;
}

export interface UpdateFormView {
  id: number;
  sheetName: string;
  email: string;
  sender: string;
  message: string;
  status: SentUpdateRequestView['status'];
  /** false when the link has expired (the page says so) */
  open: boolean;
  columns: Array<{ id: number; title: string }>;
  rows: Array<{ id: number; locked: boolean; cells: FormCell[] }>;
}

const EDITABLE = new Set(['TEXT_NUMBER', 'DATE', 'PICKLIST', 'CHECKBOX', 'CONTACT_LIST']);

function formValue(c: ColumnDef, v: StoredValue | undefined): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return String(v);
  if ('d' in v) return v.d;
  if ('c' in v) return v.c.email;
  if ('mp' in v) return v.mp.join(', ');
  if ('t' in v) return new Date(v.t).toISOString();
  return c.type;
}

/** The sent update request a token names (1006 when the token is not valid or unknown). */
async function sentOf(db: Queryable, token: string): Promise<SentUpdateRequestRow> {
  const m = /^(\d{1,16})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!m) throw apiError(1006);
  if (!(await hasServerSignature(db, 'update-request', `update-request.${m[1]}`, m[2]!))) throw apiError(1006);
  const row = await findSentUpdateRequestById(db, Number(m[1]));
  if (!row) throw apiError(1006);
  return row;
}

async function formView(db: Queryable, row: SentUpdateRequestRow): Promise<{ view: UpdateFormView; model: SheetModel; sheet: SheetRow }> {
  const sheet = await findSheet(db, row.sheet_id);
  if (!sheet) throw apiError(1006);
  const model = await readModel(db, sheet);
  const sender = await findUserById(db, row.sent_by);
  const v = sentViewOf(row, new Map(sender ? [[sender.id, sender]] : []), model);
  const columns = v.columnIds.map((id) => model.columnsById.get(id)).filter((c): c is ColumnDef => c !== undefined).sort((x, y) => x.index - y.index);
  const rows = v.rowIds.map((id) => model.rows.get(id)).filter((r) => r !== undefined).map((r) => ({
    id: r.id,
    locked: r.locked,
    cells: columns.map((c): FormCell => {
      const cell = r.cells[cellKey(c.id)];
      const editable = !r.locked && !c.locked && EDITABLE.has(c.type) && c.systemColumnType === undefined && c.formula === undefined && cell?.fx === undefined;
      const value = formValue(c, cell?.v);
      return {
        columnId: c.id, title: c.title, type: c.type, value, editable,
        ...(c.type === 'CHECKBOX' ? { checked: cell?.v === true } : {}),
        ...(c.type === 'PICKLIST' && c.options ? { options: c.options } : {}),
      };
    }),
  }));
  return {
    sheet, model,
    view: {
      id: row.id, sheetName: sheet.name, email: row.email, sender: sender ? `${nameOrEmail(sender)} (${sender.email})` : '', message: row.message,
      status: v.status, open: row.sent_at + LINK_TTL_MS > clock.now(), columns: columns.map((c) => ({ id: c.id, title: c.title })), rows,
    },
  };
}

/** GET of the link: the rows and the fields to fill in (shows only; mail scanners open links). */
export async function readUpdateForm(db: Queryable, token: string): Promise<UpdateFormView> {
  return (await formView(db, await sentOf(db, token))).view;
}

/**
 * POST of the link's form: the cells that differ from what the page showed are written through
 * Update Rows, as the recipient (the organization's user with that address; else the address
 * itself: cells, cell history and events record no user but the address), and the sent update request
 * becomes COMPLETE in the same transaction. A link that expired, was canceled or was used answers
 * 1167 and changes nothing.
 */
export async function submitUpdateForm(store: SheetStore, token: string, form: Record<string, unknown>): Promise<UpdateFormView> {
  const db = store.db;
  const sent = await sentOf(db, token);
  const { view } = await formView(db, sent);
  if (!view.open || view.status !== 'PENDING') throw apiError(1167);
  const updates: Array<{ id: number; cells: Array<{ columnId: number; value: unknown }> }> = [];
  for (const r of view.rows) {
    const cells: Array<{ columnId: number; value: unknown }> = [];
    for (const c of r.cells) {
      if (!c.editable) continue;
      const raw = form[`c.${r.id}.${c.columnId}`];
      if (c.type === 'CHECKBOX') {
        const on = raw !== undefined && raw !== '';
        if (on !== (c.checked ?? false)) cells.push({ columnId: c.columnId, value: on });
        continue;
      }
      if (typeof raw !== 'string' || raw === c.value) continue;
      const text = raw.trim();
      cells.push({ columnId: c.columnId, value: c.type === 'TEXT_NUMBER' && /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : text });
    }
    if (cells.length > 0) updates.push({ id: r.id, cells });
  }
  const sender = await findUserById(db, sent.sent_by);
  const own = await findUserByEmail(db, sent.email);
  const user = own && own.org_id === sent.org_id ? own : sender;
  const actor = user ? await actorFor(db, user) : undefined;
  if (!actor) throw apiError(1167);
  // a user of the organization writes as themselves; anyone else as an address of no account
  // (with the sender's rights for the checks of the write, the link being the permission)
  const guest = user === own ? {} : { guestEmail: sent.email };
  const as: Actor = { ...actor, ...guest, tokenName: 'update request', changeAgent: `update-request:${sent.email}`, source: 'UPDATE_REQUEST' };
  const now = clock.now();
  const complete = async (tx: Queryable, events?: ChangeEvent[]) => {
    if (!(await settleSentUpdateRequest(tx, sent.id, 'COMPLETE', now))) throw apiError(1167);
    const e: ChangeEvent = { objectType: 'SENT_UPDATE_REQUEST', action: 'UPDATE', objectId: sent.id, details: { status: 'COMPLETE', email: sent.email, rowIds: updates.map((u) => u.id) } };
    if (events) events.push(e);
    else {
      const sheet = await findSheet(tx, sent.sheet_id);
      await recordEvents(tx, authorOf(as), [{ ...e, sheetId: sent.sheet_id, workspaceId: sheet?.workspace_id ?? null }], now);
    }
  };
  if (updates.length === 0) await db.transaction().execute((tx) => complete(tx));
  else {
    await updateRows(store, as, sent.sheet_id, updates, { allowPartialSuccess: false, overrideValidation: false, numericDates: false, level: 0 }, {
      system: true,
      within: (ctx) => complete(ctx.tx, ctx.events),
    });
  }
  return readUpdateForm(db, token);
}
