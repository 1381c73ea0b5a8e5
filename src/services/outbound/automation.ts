import { apiError } from '../../errors.ts';
import { newId } from '../../ids.ts';
import { asObject, type Obj, optionalBodyBool } from '../../engine/input.ts';
import type { ColumnDef } from '../../engine/columns.ts';
import type { CriteriaQuery } from '../../engine/criteria.ts';
import {
  columnReason, nextFiring, parseAction, parseConditions, parseTrigger,
  DISABLED_REASONS, type DisabledReason, type StoredAction, type Trigger,
} from '../../engine/automation.ts';
import { clock } from '../../clock.ts';
import type { Queryable, Store } from '../../store/db.ts';
import { enqueue } from '../../store/jobs.ts';
import { deleteRuleRow, findRule, insertRule, listRuleRows, updateRuleRow, type RuleRow } from '../../store/automation.ts';
import { findOrgById, findUserByEmail, findUsersByIds } from '../../store/users.ts';
import { groupMembers } from '../../store/groups.ts';
import { listShares } from '../../store/shares.ts';
import type { SheetRow } from '../../store/sheets.ts';
import { atLeast, type AccessLevel } from '../access/access.ts';
import type { Actor, UserRow } from '../platform/context.ts';
import { addresses } from './emails.ts';
import { authorOf, recordEvents } from '../log/events.ts';
import { sheetAccessLevel, sheetFor } from '../access/permissions.ts';
import { readModel } from '../sheets/sheetCache.ts';

/**
 * Automation rules: the sheetd extension that creates them (POST /2.0/sheetd/sheets/{id}/automationrules)
 * and List, Get, Update and Delete of spec 4.6. Reading and creating need EDITOR; a rule can be
 * changed or deleted by its creator (while an EDITOR) or by a sheet ADMIN (`userCanModify`).
 * Whether a rule can run is worked out whenever it is read or run (`disabledReason`), from the
 * sheet's columns and shares as they are then, so it never goes stale as columns are deleted
 * or change type, or recipients lose access. Running them is services/outbound/automationRuns.ts.
 */

/** What the server decides about automation as a whole (SHEETD_AUTOMATION). */
export interface AutomationSettings {
  /** false: every rule reads AUTOMATION_NOT_ENABLED_FOR_ORG and none runs. */
  enabled: boolean;
}

/** A rule as stored, its JSON parsed. */
export interface Rule {
  row: RuleRow;
  trigger: Trigger;
  conditions: CriteriaQuery | null;
  action: StoredAction;
}

/** A rule as a reader sees it (http/present/automation.ts makes the JSON). */
/** Who created or last changed a rule. */
export type RuleUser = Pick<UserRow, 'id' | 'email' | 'first_name' | 'last_name'>;

export interface RuleView extends Rule {
  createdBy: RuleUser | undefined;
  modifiedBy: RuleUser | undefined;
  userCanModify: boolean;
  disabledReason?: DisabledReason;
  disabledReasonText?: string;
}

export function parseRule(row: RuleRow): Rule {
  return {
    row,
    trigger: JSON.parse(row.trigger) as Trigger,
    conditions: row.conditions === null ? null : (JSON.parse(row.conditions) as CriteriaQuery),
    action: JSON.parse(row.action) as StoredAction,
  };
}

/** An actor for a user of the organization (access checks of recipients, writes of approvals). */
export async function actorFor(db: Queryable, user: UserRow): Promise<Actor | undefined> {
  const org = await findOrgById(db, user.org_id);
  if (!org) return undefined;
  return { user, requestUser: user, org, tokenId: 0, tokenName: 'automation', scopes: 'ALL', apiClientId: null };
}

/** Whether mail about the sheet may go to this address: a user who can see the sheet, or an address it is shared with. */
export async function canReceive(db: Queryable, sheet: SheetRow, email: string): Promise<boolean> {
  const user = await findUserByEmail(db, email);
  if (user && user.org_id === sheet.org_id) {
    const actor = await actorFor(db, user);
    return actor !== undefined && (await sheetAccessLevel(db, actor, sheet)) !== null;
  }
  const lower = email.toLowerCase();
  const direct = await listShares(db, 'sheet', sheet.id);
  if (direct.some((s) => s.email === lower)) return true;
  if (sheet.workspace_id !== null) return (await listShares(db, 'workspace', sheet.workspace_id)).some((s) => s.email === lower);
  return false;
}

/** Every address that can see the sheet: its owner and whoever it (or its workspace) is shared with, groups expanded. */
export async function sharedAddresses(db: Queryable, sheet: SheetRow): Promise<string[]> {
  const found = new Map<string, string>();
  const owner = (await findUsersByIds(db, [sheet.owner_id]))[0];
  if (owner) found.set(owner.email.toLowerCase(), owner.email);
  const shares = [...(await listShares(db, 'sheet', sheet.id)), ...(sheet.workspace_id !== null ? await listShares(db, 'workspace', sheet.workspace_id) : [])];
  for (const s of shares) {
    if (s.email) found.set(s.email.toLowerCase(), s.email);
    if (s.user_id !== null) for (const u of await findUsersByIds(db, [s.user_id])) found.set(u.email.toLowerCase(), u.email);
    if (s.group_id !== null) for (const m of await groupMembers(db, s.group_id)) found.set(m.email.toLowerCase(), m.email);
  }
  const out: string[] = [];
  for (const email of found.values()) if (await canReceive(db, sheet, email)) out.push(email);
  return out;
}

/** The addresses a rule's fixed recipients name (groups expanded; groups gone are skipped) that can receive mail about the sheet. */
export async function fixedRecipients(db: Queryable, sheet: SheetRow, action: StoredAction): Promise<string[]> {
  if (action.notifyAllSharedUsers) return sharedAddresses(db, sheet);
  const out: string[] = [];
  for (const r of action.recipients ?? []) {
    let list: string[];
    try {
      list = await addresses(db, sheet.org_id, [r]);
    } catch {
      list = []; // a group deleted since
    }
    for (const email of list) if (!out.includes(email) && (await canReceive(db, sheet, email))) out.push(email);
  }
  return out;
}

/** Why the rule cannot run now, or undefined. */
export async function disabledReasonOf(db: Queryable, sheet: SheetRow, columns: ReadonlyMap<number, ColumnDef>, rule: Rule, settings: AutomationSettings): Promise<DisabledReason | undefined> {
  if (!settings.enabled) return 'AUTOMATION_NOT_ENABLED_FOR_ORG';
  const r = columnReason(rule.trigger, rule.conditions, rule.action, columns);
  if (r) return r;
  if (rule.action.recipients !== undefined && (await fixedRecipients(db, sheet, rule.action)).length === 0) return 'NO_POTENTIAL_RECIPIENTS';
  return undefined;
}

async function view(db: Queryable, actor: Actor, sheet: SheetRow, level: AccessLevel, columns: ReadonlyMap<number, ColumnDef>, rule: Rule, settings: AutomationSettings): Promise<RuleView> {
  const users = new Map((await findUsersByIds(db, [...new Set([rule.row.created_by, rule.row.modified_by])])).map((u) => [u.id, u]));
  const reason = await disabledReasonOf(db, sheet, columns, rule, settings);
  return {
    ...rule,
    createdBy: users.get(rule.row.created_by),
    modifiedBy: users.get(rule.row.modified_by),
    userCanModify: canModify(actor, level, rule.row),
    ...(reason ? { disabledReason: reason, disabledReasonText: DISABLED_REASONS[reason] } : {}),
  };
}

function canModify(actor: Actor, level: AccessLevel, row: RuleRow): boolean {
  return atLeast(level, 'ADMIN') || (atLeast(level, 'EDITOR') && row.created_by === actor.user.id);
}

/** The rule or 1006 (a rule of another sheet is not revealed). */
async function ruleOf(db: Queryable, sheetId: number, ruleId: number): Promise<Rule> {
  const row = await findRule(db, sheetId, ruleId);
  if (!row) throw apiError(1006);
  return parseRule(row);
}

export async function listRules(db: Queryable, actor: Actor, sheetId: number, settings: AutomationSettings): Promise<RuleView[]> {
  const { sheet, level } = await sheetFor(db, actor, sheetId, 'EDITOR');
  const model = await readModel(db, sheet);
  const out: RuleView[] = [];
  for (const row of await listRuleRows(db, sheetId)) out.push(await view(db, actor, sheet, level, model.columnsById, parseRule(row), settings));
  return out;
}

export async function getRule(db: Queryable, actor: Actor, sheetId: number, ruleId: number, settings: AutomationSettings): Promise<RuleView> {
  const { sheet, level } = await sheetFor(db, actor, sheetId, 'EDITOR');
  const rule = await ruleOf(db, sheetId, ruleId);
  const model = await readModel(db, sheet);
  return view(db, actor, sheet, level, model.columnsById, rule, settings);
}

function ruleName(b: Obj, required: boolean): string | undefined {
  const v = b.name;
  if (v === undefined || v === null) {
    if (required) throw apiError(1012, 'name');
    return undefined;
  }
  if (typeof v !== 'string') throw apiError(1031, JSON.stringify(v), 'name');
  const name = v.trim();
  if (name === '') throw apiError(1012, 'name');
  if (name.length > 255) throw apiError(1031, `${name.length} characters (at most 255)`, 'name');
  return name;
}

function enabledOf(b: Obj): boolean | undefined {
  return optionalBodyBool(b.enabled, 'enabled');
}

/** Time-based triggers: the job of the rule's next firing (a job of an older version of the rule finds it changed and stops). */
async function scheduleTimer(tx: Queryable, row: RuleRow): Promise<void> {
  const trigger = JSON.parse(row.trigger) as Trigger;
  const at = nextFiring(trigger, clock.now());
  if (at === undefined) return;
  await enqueue(tx, AUTOMATION_TIMER_JOB, { ruleId: row.id, version: row.modified_at, at }, { runAt: at, key: `${AUTOMATION_TIMER_JOB}:${row.id}:${row.modified_at}:${at}` });
}

export const AUTOMATION_TIMER_JOB = 'automation-timer';

/** The attributes a rule's answers carry that no request sets. */
const READ_ONLY_ATTRS = ['createdAt', 'createdBy', 'modifiedAt', 'modifiedBy', 'userCanModify', 'disabledReason', 'disabledReasonText'];

function readOnlyAttrs(b: Obj): void {
  for (const k of READ_ONLY_ATTRS) {
    if (b[k] !== undefined && b[k] !== null) throw apiError(1032, k);
  }
}

/** Create an automation rule (sheetd extension): name, enabled, trigger, conditions, one action. */
export async function createRule(store: Store, actor: Actor, sheetId: number, body: unknown, settings: AutomationSettings): Promise<RuleView> {
  const b = asObject(body, 'an AutomationRule object');
  // several actions make a multistep workflow: the API does not handle those
  if (Array.isArray(b.actions) && b.actions.length > 1) throw apiError(1266);
  if (b.id !== undefined && b.id !== null) throw apiError(1032, 'id');
  readOnlyAttrs(b);
  const name = ruleName(b, true)!;
  const enabled = enabledOf(b) ?? true;
  if (b.trigger === undefined || b.trigger === null) throw apiError(1012, 'trigger');
  const rawAction = b.action ?? (Array.isArray(b.actions) ? b.actions[0] : undefined);
  if (rawAction === undefined || rawAction === null) throw apiError(1012, 'action');
  return store.db.transaction().execute(async (tx) => {
    const { sheet, level } = await sheetFor(tx, actor, sheetId, 'EDITOR');
    const model = await readModel(tx, sheet);
    const now = clock.now();
    const trigger = parseTrigger(b.trigger, model.columnsById, now);
    const conditions = parseConditions(b.conditions, model.columnsById);
    const action = parseAction(rawAction, model.columnsById);
    const row: RuleRow = {
      id: newId(), sheet_id: sheetId, org_id: sheet.org_id, name, enabled: enabled ? 1 : 0,
      trigger: JSON.stringify(trigger), conditions: conditions === null ? null : JSON.stringify(conditions), action: JSON.stringify(action),
      created_at: now, created_by: actor.user.id, modified_at: now, modified_by: actor.user.id,
    };
    await insertRule(tx, row);
    await recordEvents(tx, authorOf(actor), [{ objectType: 'AUTOMATION_RULE', action: 'CREATE', objectId: row.id, sheetId, workspaceId: sheet.workspace_id, details: { name, actionType: action.type } }], now);
    await scheduleTimer(tx, row);
    return view(tx, actor, sheet, level, model.columnsById, { row, trigger, conditions, action }, settings);
  });
}

/**
 * Update an automation rule (4.6): `action.type` is required and must be the rule's type
 * (1220); name, enabled, the action's other attributes and (sheetd) trigger and conditions
 * replace the stored ones when given.
 */
export async function updateRule(store: Store, actor: Actor, sheetId: number, ruleId: number, body: unknown, settings: AutomationSettings): Promise<RuleView> {
  const b = asObject(body, 'an AutomationRule object');
  if (Array.isArray(b.actions) && b.actions.length > 1) throw apiError(1266);
  if (b.id !== undefined && b.id !== null && b.id !== ruleId) throw apiError(1029);
  // the reference's request body is the AutomationRule object as Get gives it: a rule read,
  // changed and sent back (the Python SDK's update_automation_rule) carries the read-only
  // attributes too, which are left as they are (creating a rule still refuses them)
  const name = ruleName(b, false);
  const enabled = enabledOf(b);
  if (b.action === undefined || b.action === null) throw apiError(1012, 'action.type');
  return store.db.transaction().execute(async (tx) => {
    const { sheet, level } = await sheetFor(tx, actor, sheetId, 'EDITOR');
    const rule = await ruleOf(tx, sheetId, ruleId);
    if (!canModify(actor, level, rule.row)) throw apiError(1004);
    const model = await readModel(tx, sheet);
    const now = Math.max(clock.now(), rule.row.modified_at + 1);
    const action = parseAction(b.action, model.columnsById, rule.action);
    const trigger = b.trigger === undefined ? rule.trigger : parseTrigger(b.trigger, model.columnsById, now);
    const conditions = b.conditions === undefined ? rule.conditions : parseConditions(b.conditions, model.columnsById);
    const row: RuleRow = {
      ...rule.row,
      name: name ?? rule.row.name,
      enabled: enabled === undefined ? rule.row.enabled : enabled ? 1 : 0,
      trigger: JSON.stringify(trigger), conditions: conditions === null ? null : JSON.stringify(conditions), action: JSON.stringify(action),
      modified_at: now, modified_by: actor.user.id,
    };
    await updateRuleRow(tx, ruleId, { name: row.name, enabled: row.enabled, trigger: row.trigger, conditions: row.conditions, action: row.action, modified_at: now, modified_by: row.modified_by });
    await recordEvents(tx, authorOf(actor), [{ objectType: 'AUTOMATION_RULE', action: 'UPDATE', objectId: ruleId, sheetId, workspaceId: sheet.workspace_id, details: { name: row.name } }], now);
    await scheduleTimer(tx, row);
    return view(tx, actor, sheet, level, model.columnsById, { row, trigger, conditions, action }, settings);
  });
}

export async function deleteRule(store: Store, actor: Actor, sheetId: number, ruleId: number): Promise<void> {
  await store.db.transaction().execute(async (tx) => {
    const { sheet, level } = await sheetFor(tx, actor, sheetId, 'EDITOR');
    const rule = await ruleOf(tx, sheetId, ruleId);
    if (!canModify(actor, level, rule.row)) throw apiError(1004);
    await deleteRuleRow(tx, ruleId);
    await recordEvents(tx, authorOf(actor), [{ objectType: 'AUTOMATION_RULE', action: 'DELETE', objectId: ruleId, sheetId, workspaceId: sheet.workspace_id, details: { name: rule.row.name } }], clock.now());
  });
}
