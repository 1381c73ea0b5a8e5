import { hasServerSignature, serverSignature } from '../identity/secrets.ts';
import { AsyncLocalStorage } from 'node:async_hooks';
import { apiError } from '../../errors.ts';
import { newId, newIds } from '../../ids.ts';
import { clock } from '../../clock.ts';
import { cellKey, type StoredCell, type StoredValue } from '../../engine/cells.ts';
import { criterionMatches, queryMatches } from '../../engine/criteria.ts';
import { APPROVED, DECLINED, dayOf, digestDue, nextFiring, type StoredAction } from '../../engine/automation.ts';
import type { Queryable, Store } from '../../store/db.ts';
import { enqueue } from '../../store/jobs.ts';
import {
  addDigestRows, decideApproval as storeDecision, findApproval, findRuleById, insertApprovals, listRuleRows, markFired,
  requestDecision, takeDigestRows, type ApprovalRow,
} from '../../store/automation.ts';
import { findSheet, type SheetRow } from '../../store/sheets.ts';
import { findUserById } from '../../store/users.ts';
import type { MailPayload } from '../../mail/index.ts';
import { AUTOMATION_TIMER_JOB, actorFor, canReceive, disabledReasonOf, fixedRecipients, parseRule, type AutomationSettings, type Rule } from './automation.ts';
import { rowExtras, type RowsMail } from './emails.ts';
import { recordEvents, type EventAuthor } from '../log/events.ts';
import { readModel } from '../sheets/sheetCache.ts';
import type { WriteContext, SheetStore } from '../sheets/sheetWrites.ts';
import type { SheetModel } from '../../engine/model.ts';
import { updateRows } from '../sheets/rows.ts';
import { sendAsk } from '../collaboration/updateRequests.ts';

/**
 * Running automation rules. A sheet write that adds or changes rows of a sheet with enabled
 * row-triggered rules writes an `automation` job in its own transaction, carrying what changed
 * (rows added; for changed rows each changed cell's old and new value, which the change log's
 * events do not hold). The job evaluates each rule's trigger and conditions on the sheet as it
 * is then and acts: mail now (IMMEDIATELY, one message per recipient and commit), or rows kept
 * for a digest job due at the next hour, midnight or Monday (HOURLY, DAILY, WEEKLY; UTC).
 * DATE_REACHED and SCHEDULE rules have an `automation-timer` job due at their next firing.
 * Approval requests mail a signed link per recipient; its page writes the decision to the
 * approval column as the rule's creator, and that write does not set the same rule off again.
 * Every firing is recorded in the change log (AUTOMATION_RULE RUN). Times come from clock.ts.
 */

export const AUTOMATION_JOB = 'automation';
export const AUTOMATION_DIGEST_JOB = 'automation-digest';
const ROW_TRIGGERS = new Set(['ROWS_ADDED', 'ROWS_CHANGED', 'COLUMN_CHANGED']);
/** How long an approval link works. */
export const APPROVAL_TTL_MS = 30 * 24 * 3_600_000;

/** The rule whose own action is writing (an approval): its writes do not set it off. */
const ruleWrites = new AsyncLocalStorage<{ ruleId: number }>();

interface ChangePayload {
  sheetId: number;
  at: number;
  skipRuleIds: number[];
  added: number[];
  /** per changed row, per column id: [old value, new value] */
  changed: Array<{ rowId: number; cells: Record<string, [StoredValue | null, StoredValue | null]> }>;
}

/** What the job handlers need from their server. */
export interface AutomationDeps {
  store: Store;
  settings: AutomationSettings;
  /** Lays out the rows of a message (the HTTP layer's rows-mail presenter), reading through `db` (the job's transaction). */
  render: (m: RowsMail, db: Queryable) => Promise<{ text: string; html: string }>;
  /** The server's public base URL (approval links, sheet links). */
  publicUrl: () => string;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** An event of a row added, or of a row whose cells changed (what recordAutomationChanges gathers). */
function isRowChange(e: WriteContext['events'][number]): boolean {
  if (e.objectType !== 'ROW') return false;
  if (e.action === 'CREATE') return true;
  const cols = e.details?.columnIds;
  return e.action === 'UPDATE' && Array.isArray(cols) && cols.length > 0;
}

/**
 * Write step (written): a write that added or changed rows of a sheet with enabled row-triggered
 * rules enqueues an automation job, in its transaction, with what changed.
 */
export async function recordAutomationChanges(ctx: WriteContext): Promise<void> {
  // the rules are looked up first: the rows' changes are gathered only for a sheet that has some
  if (!ctx.events.some(isRowChange)) return;
  // none enabled, as the sheet's lock read (PostgreSQL)
  if (ctx.watchers?.rules === false) return;
  const rules = (await listRuleRows(ctx.tx, ctx.sheet.id, { enabledOnly: true })).filter((r) => ROW_TRIGGERS.has((JSON.parse(r.trigger) as { type: string }).type));
  if (rules.length === 0) return;
  const added: number[] = [];
  const updated = new Map<number, Set<number>>();
  for (const e of ctx.events) {
    if (e.objectType !== 'ROW') continue;
    if (e.action === 'CREATE') added.push(e.objectId);
    if (e.action === 'UPDATE') {
      const cols = e.details?.columnIds;
      if (!Array.isArray(cols) || cols.length === 0) continue;
      const set = updated.get(e.objectId) ?? new Set<number>();
      for (const c of cols) if (typeof c === 'number') set.add(c);
      updated.set(e.objectId, set);
    }
  }
  const before = new Map<string, StoredCell | undefined>();
  for (const e of ctx.changes.cells) {
    const k = `${e.rowId}:${e.columnId}`;
    if (!before.has(k)) before.set(k, e.before);
  }
  const changed: ChangePayload['changed'] = [];
  for (const [rowId, cols] of updated) {
    const row = ctx.model.rows.get(rowId);
    if (!row) continue;
    const cells: Record<string, [StoredValue | null, StoredValue | null]> = {};
    for (const c of cols) {
      const k = `${rowId}:${c}`;
      // a written cell the changeset does not name was written with the content it had
      if (!before.has(k)) continue;
      const old = before.get(k)?.v ?? null;
      const now = row.cells[cellKey(c)]?.v ?? null;
      if (!same(old, now)) cells[String(c)] = [old, now];
    }
    if (Object.keys(cells).length > 0) changed.push({ rowId, cells });
  }
  if (added.length === 0 && changed.length === 0) return;
  const own = ruleWrites.getStore();
  const payload: ChangePayload = { sheetId: ctx.sheet.id, at: ctx.now, skipRuleIds: own ? [own.ruleId] : [], added, changed };
  await enqueue(ctx.tx, AUTOMATION_JOB, payload);
}

// ---- evaluation

function conditionsHold(rule: Rule, model: SheetModel, rowId: number, now: number): boolean {
  const row = model.rows.get(rowId);
  if (!row) return false;
  if (rule.conditions === null) return true;
  return queryMatches(rule.conditions, model.columnsById, row.cells, { locked: row.locked }, { today: dayOf(now) });
}

function rowsForChange(rule: Rule, model: SheetModel, p: ChangePayload, now: number): number[] {
  const t = rule.trigger;
  let ids: number[] = [];
  if (t.type === 'ROWS_ADDED') ids = p.added;
  if (t.type === 'ROWS_CHANGED') ids = p.changed.filter((c) => t.columnIds === undefined || t.columnIds.some((id) => c.cells[String(id)] !== undefined)).map((c) => c.rowId);
  if (t.type === 'COLUMN_CHANGED') {
    ids = p.changed.filter((c) => {
      if (c.cells[String(t.columnId)] === undefined) return false;
      if (t.when === undefined) return true;
      const row = model.rows.get(c.rowId);
      return row !== undefined && criterionMatches(t.when, model.columnsById, row.cells, { locked: row.locked }, { today: dayOf(now) });
    }).map((c) => c.rowId);
  }
  return [...new Set(ids)].filter((id) => conditionsHold(rule, model, id, now));
}

/** The `automation` job: the rules a commit sets off. */
export async function runChanges(deps: AutomationDeps, payload: unknown): Promise<void> {
  const p = payload as ChangePayload;
  const db = deps.store.db;
  const sheet = await findSheet(db, p.sheetId);
  if (!sheet) return;
  const model = await readModel(db, sheet);
  const now = clock.now();
  for (const row of await listRuleRows(db, sheet.id, { enabledOnly: true })) {
    if (p.skipRuleIds.includes(row.id)) continue;
    const rule = parseRule(row);
    if (!ROW_TRIGGERS.has(rule.trigger.type)) continue;
    if (await disabledReasonOf(db, sheet, model.columnsById, rule, deps.settings)) continue;
    const rowIds = rowsForChange(rule, model, p, now);
    if (rowIds.length === 0) continue;
    await deps.store.db.transaction().execute((tx) => act(deps, tx, sheet, model, rule, rowIds, now));
  }
}

/** The `automation-timer` job: a DATE_REACHED or SCHEDULE rule's firing at `at`, and the job of the next one. */
export async function runTimer(deps: AutomationDeps, payload: unknown): Promise<void> {
  const p = payload as { ruleId: number; version: number; at: number };
  const db = deps.store.db;
  const row = await findRuleById(db, p.ruleId);
  // gone, or changed since (the change scheduled its own timer)
  if (!row || row.modified_at !== p.version) return;
  const rule = parseRule(row);
  const sheet = await findSheet(db, row.sheet_id);
  if (!sheet) return;
  const model = await readModel(db, sheet);
  const now = clock.now();
  const runs = row.enabled === 1 && !(await disabledReasonOf(db, sheet, model.columnsById, rule, deps.settings));
  let rowIds: number[] = [];
  if (runs) {
    const t = rule.trigger;
    if (t.type === 'DATE_REACHED') {
      const day = dayOf(p.at, -t.offsetDays);
      rowIds = [...model.tree.displayOrder()].filter((id) => {
        const v = model.rows.get(id)?.cells[cellKey(t.columnId)]?.v;
        if (v === undefined || v === null || typeof v !== 'object') return false;
        if ('d' in v) return v.d === day;
        if ('t' in v) return dayOf(v.t) === day;
        return false;
      });
    } else {
      rowIds = [...model.tree.displayOrder()];
    }
    rowIds = rowIds.filter((id) => conditionsHold(rule, model, id, now));
  }
  await db.transaction().execute(async (tx) => {
    if (rowIds.length > 0 && (await markFired(tx, rule.row.id, String(p.at), now))) await act(deps, tx, sheet, model, rule, rowIds, now);
    const next = nextFiring(rule.trigger, p.at);
    if (next !== undefined) await enqueue(tx, AUTOMATION_TIMER_JOB, { ruleId: row.id, version: row.modified_at, at: next }, { runAt: next, key: `${AUTOMATION_TIMER_JOB}:${row.id}:${row.modified_at}:${next}` });
  });
}

/** The `automation-digest` job: the rows a rule collected since its last digest, in one message per recipient. */
export async function runDigest(deps: AutomationDeps, payload: unknown): Promise<void> {
  const p = payload as { ruleId: number };
  const db = deps.store.db;
  const row = await findRuleById(db, p.ruleId);
  if (!row) return;
  const rule = parseRule(row);
  const sheet = await findSheet(db, row.sheet_id);
  if (!sheet) return;
  const model = await readModel(db, sheet);
  const reason = row.enabled !== 1 || (await disabledReasonOf(db, sheet, model.columnsById, rule, deps.settings));
  await db.transaction().execute(async (tx) => {
    const rowIds = (await takeDigestRows(tx, row.id)).filter((id) => model.rows.has(id));
    if (reason || rowIds.length === 0) return;
    await send(deps, tx, sheet, model, rule, rowIds, clock.now());
  });
}

/** A rule fired for these rows: mail now, or keep them for the digest. */
async function act(deps: AutomationDeps, tx: Queryable, sheet: SheetRow, model: SheetModel, rule: Rule, rowIds: number[], now: number): Promise<void> {
  const f = rule.action.frequency;
  if (rule.action.type === 'NOTIFICATION_ACTION' && f !== 'IMMEDIATELY') {
    await addDigestRows(tx, rule.row.id, rowIds, now);
    // one job per rule and due time: a row collected while the job of the last due time runs
    // gets the job of the next one
    const due = digestDue(f, now);
    await enqueue(tx, AUTOMATION_DIGEST_JOB, { ruleId: rule.row.id }, { runAt: due, key: `${AUTOMATION_DIGEST_JOB}:${rule.row.id}:${due}` });
    return;
  }
  await send(deps, tx, sheet, model, rule, rowIds, now);
}

// ---- messages

async function contactsOf(model: SheetModel, rowId: number, columnIds: readonly number[]): Promise<string[]> {
  const out: string[] = [];
  const row = model.rows.get(rowId);
  for (const id of columnIds) {
    const v = row?.cells[cellKey(id)]?.v;
    if (v === undefined || v === null || typeof v !== 'object') continue;
    if ('c' in v) out.push(v.c.email);
    if ('mc' in v) out.push(...v.mc.map((c) => c.email));
  }
  return out;
}

/** Who gets mail about which rows: recipients with the same rows share a message. */
async function recipientsByRows(db: Queryable, sheet: SheetRow, model: SheetModel, action: StoredAction, rowIds: number[]): Promise<Array<{ to: string[]; rowIds: number[] }>> {
  const perAddress = new Map<string, { email: string; rows: number[] }>();
  const add = (email: string, rowId: number) => {
    const k = email.toLowerCase();
    const e = perAddress.get(k) ?? { email, rows: [] };
    if (!e.rows.includes(rowId)) e.rows.push(rowId);
    perAddress.set(k, e);
  };
  if (action.recipientColumnIds) {
    const allowed = new Map<string, boolean>();
    for (const rowId of rowIds) {
      for (const email of await contactsOf(model, rowId, action.recipientColumnIds)) {
        const k = email.toLowerCase();
        if (!allowed.has(k)) allowed.set(k, await canReceive(db, sheet, email));
        if (allowed.get(k)) add(email, rowId);
      }
    }
  } else {
    const fixed = await fixedRecipients(db, sheet, action);
    for (const email of fixed) for (const rowId of rowIds) add(email, rowId);
  }
  const groups = new Map<string, { to: string[]; rowIds: number[] }>();
  for (const { email, rows } of perAddress.values()) {
    const k = rows.join(',');
    const g = groups.get(k) ?? { to: [], rowIds: rows };
    g.to.push(email);
    groups.set(k, g);
  }
  return [...groups.values()];
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

async function body(deps: AutomationDeps, tx: Queryable, sheet: SheetRow, model: SheetModel, rule: Rule, rowIds: number[]) {
  const a = rule.action;
  const rows = rowIds.map((id) => model.rows.get(id)!).sort((x, y) => (model.tree.rowNumberOf(x.id) ?? 0) - (model.tree.rowNumberOf(y.id) ?? 0));
  const columns = a.includeAllColumns
    ? model.columns.filter((c) => !c.hidden)
    : (a.includedColumnIds ?? []).map((id) => model.columnsById.get(id)).filter((c) => c !== undefined).sort((x, y) => x.index - y.index);
  const extras = await rowExtras(tx, sheet.id, rows.map((r) => r.id), a.includeAttachments, a.includeDiscussions);
  const creator = await findUserById(tx, rule.row.created_by);
  const { text, html } = await deps.render({
    sheet, model, level: 'VIEWER', rows, columns, layout: rows.length > 1 ? 'HORIZONTAL' : 'VERTICAL',
    sender: { name: `The automation rule "${rule.row.name}"`, email: creator?.email ?? '' },
    ...(a.message !== undefined && a.message !== '' ? { message: a.message } : {}),
    attachments: extras.attachments, discussions: extras.discussions,
  }, tx);
  return { text, html, files: extras.files, creator, rows };
}

function subjectOf(rule: Rule, sheet: SheetRow, n: number, what: string): string {
  const s = rule.action.subject;
  return s !== undefined && s.trim() !== '' ? s : `${what}: ${n === 1 ? 'a row' : `${n} rows`} in "${sheet.name}" (${rule.row.name})`;
}

/** The rule's messages for these rows, written as mail jobs in `tx`, and its RUN event. */
async function send(deps: AutomationDeps, tx: Queryable, sheet: SheetRow, model: SheetModel, rule: Rule, rowIds: number[], now: number): Promise<void> {
  const a = rule.action;
  const groups = await recipientsByRows(tx, sheet, model, a, rowIds);
  let messages = 0;
  for (const g of groups) {
    if (a.type === 'APPROVAL_REQUEST_ACTION') {
      // one request per row, one signed link pair per recipient
      for (const rowId of g.rowIds) {
        const b = await body(deps, tx, sheet, model, rule, [rowId]);
        const requestId = newId();
        const ids = newIds(g.to.length);
        const approvals: ApprovalRow[] = g.to.map((email, i) => ({ id: ids[i]!, request_id: requestId, rule_id: rule.row.id, sheet_id: sheet.id, row_id: rowId, email, created_at: now, decided_at: null, decision: null }));
        await insertApprovals(tx, approvals);
        for (const ap of approvals) {
          const link = `${deps.publicUrl()}/2.0/sheetd/approvals/${await approvalToken(tx, ap.id)}`;
          const text = `${b.text}\nApprove: ${link}?decision=APPROVED\nDecline: ${link}?decision=DECLINED\n`;
          const html = b.html.replace('</body>', `<p><a href="${esc(link)}?decision=APPROVED">Approve</a> &nbsp; <a href="${esc(link)}?decision=DECLINED">Decline</a></p></body>`);
          const mail: MailPayload = { to: [ap.email], subject: subjectOf(rule, sheet, 1, 'Approval request'), text, html, separately: true, ...(b.files.length > 0 ? { attachments: b.files } : {}) };
          await enqueue(tx, 'mail', mail);
          messages++;
        }
      }
      continue;
    }
    if (a.type === 'UPDATE_REQUEST_ACTION') {
      // a real update request: a sent update request and a signed link per recipient
      const creator = await findUserById(tx, rule.row.created_by);
      if (!creator) continue;
      const columnIds = a.includeAllColumns ? model.columns.filter((c) => !c.hidden).map((c) => c.id) : (a.includedColumnIds ?? []);
      const sent = await sendAsk(deps, tx, sheet, model, {
        updateRequestId: null, ruleId: rule.row.id, rowIds: g.rowIds, columnIds, to: g.to,
        subject: subjectOf(rule, sheet, g.rowIds.length, 'Update request'), message: a.message, ccMe: false,
        includeAttachments: a.includeAttachments, includeDiscussions: a.includeDiscussions, layout: undefined, sender: creator,
      }, now, { orgId: sheet.org_id, userId: rule.row.created_by, requestUserId: null, accessTokenName: null, source: 'AUTOMATION' });
      messages += sent.length;
      continue;
    }
    const b = await body(deps, tx, sheet, model, rule, g.rowIds);
    const mail: MailPayload = { to: g.to, subject: subjectOf(rule, sheet, g.rowIds.length, 'Notification'), text: b.text, html: b.html, separately: true, ...(b.creator ? { replyTo: b.creator.email } : {}), ...(b.files.length > 0 ? { attachments: b.files } : {}) };
    await enqueue(tx, 'mail', mail);
    messages += g.to.length;
  }
  const author: EventAuthor = { orgId: sheet.org_id, userId: rule.row.created_by, requestUserId: null, accessTokenName: null, source: 'AUTOMATION' };
  await recordEvents(tx, author, [{ objectType: 'AUTOMATION_RULE', action: 'RUN', objectId: rule.row.id, sheetId: sheet.id, workspaceId: sheet.workspace_id, details: { actionType: a.type, rowIds, messages } }], now);
}

// ---- approvals

async function approvalToken(db: Queryable, id: number): Promise<string> {
  return `${id}.${await serverSignature(db, 'automation-approval', `approval.${id}`)}`;
}

/** What an approval page shows. */
export interface ApprovalView {
  sheetName: string;
  /** The row's primary value. */
  rowName: string;
  ruleName: string;
  email: string;
  /** Set once someone decided. */
  decision?: 'APPROVED' | 'DECLINED';
  decidedBy?: string;
}

/** The approval a token names (1006 when the token is not valid, has expired, or its rule is gone). */
async function approvalOf(db: Queryable, token: string): Promise<ApprovalRow> {
  const m = /^(\d{1,16})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!m) throw apiError(1006);
  if (!(await hasServerSignature(db, 'automation-approval', `approval.${m[1]}`, m[2]!))) throw apiError(1006);
  const a = await findApproval(db, Number(m[1]));
  if (!a || a.created_at + APPROVAL_TTL_MS <= clock.now()) throw apiError(1006);
  return a;
}

async function approvalView(db: Queryable, a: ApprovalRow): Promise<ApprovalView> {
  const rule = await findRuleById(db, a.rule_id);
  const sheet = await findSheet(db, a.sheet_id);
  if (!rule || !sheet) throw apiError(1006);
  const model = await readModel(db, sheet);
  const primary = model.columns.find((c) => c.primary);
  const v = primary ? model.rows.get(a.row_id)?.cells[cellKey(primary.id)]?.v : undefined;
  const done = await requestDecision(db, a.request_id);
  return {
    sheetName: sheet.name, rowName: typeof v === 'string' || typeof v === 'number' ? String(v) : '', ruleName: rule.name, email: a.email,
    ...(done ? { decision: done.decision as 'APPROVED' | 'DECLINED', decidedBy: done.email } : {}),
  };
}

/** Thrown inside a decision's write to roll it back: another decision of the request came first. */
const DECIDED_MEANWHILE = new Error('decided meanwhile');

/** GET of an approval link: what is asked, and whether it was decided. */
export async function getApproval(db: Queryable, token: string): Promise<ApprovalView> {
  return approvalView(db, await approvalOf(db, token));
}

/**
 * POST of an approval link: writes Approved or Declined to the rule's approval column (as the
 * rule's creator; this rule does not fire on it), once per request: a later decision, by this
 * or another recipient, changes nothing and answers the first one.
 */
export async function decide(store: SheetStore, token: string, decision: unknown): Promise<ApprovalView> {
  if (decision !== 'APPROVED' && decision !== 'DECLINED') throw apiError(1018, String(decision), 'decision');
  const db = store.db;
  const a = await approvalOf(db, token);
  const current = await approvalView(db, a);
  if (current.decision) return current;
  const row = await findRuleById(db, a.rule_id);
  if (!row) throw apiError(1006);
  const rule = parseRule(row);
  const creator = await findUserById(db, row.created_by);
  const actor = creator ? await actorFor(db, creator) : undefined;
  const columnId = rule.action.approvalColumnId;
  if (!actor || columnId === undefined) throw apiError(1006);
  // the decision is stored in the write of the cell, under the sheet's lock: of two decisions
  // at once, the second finds the first and changes nothing (both had passed the check above)
  try {
    await ruleWrites.run({ ruleId: row.id }, () => updateRows(store, actor, a.sheet_id, [{ id: a.row_id, cells: [{ columnId, value: decision === 'APPROVED' ? APPROVED : DECLINED }] }], { allowPartialSuccess: false, overrideValidation: false, numericDates: false, level: 0 }, {
      within: async (ctx) => {
        if (await requestDecision(ctx.tx, a.request_id)) throw DECIDED_MEANWHILE;
        await storeDecision(ctx.tx, a.id, decision, ctx.now);
      },
    }));
  } catch (e) {
    if (e !== DECIDED_MEANWHILE) throw e;
  }
  return approvalView(db, a);
}
