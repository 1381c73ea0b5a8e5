import type { Selectable } from 'kysely';
import type { Queryable } from './db.ts';
import type { AutomationApprovalTable, AutomationRuleTable } from './automationSchema.ts';

export type RuleRow = Selectable<AutomationRuleTable>;
export type ApprovalRow = Selectable<AutomationApprovalTable>;

export async function insertRule(db: Queryable, row: RuleRow): Promise<void> {
  await db.insertInto('automation_rules').values(row).execute();
}

export async function updateRuleRow(db: Queryable, id: number, patch: Partial<Omit<RuleRow, 'id' | 'sheet_id' | 'org_id'>>): Promise<void> {
  await db.updateTable('automation_rules').set(patch).where('id', '=', id).execute();
}

export async function deleteRuleRow(db: Queryable, id: number): Promise<void> {
  await db.deleteFrom('automation_rules').where('id', '=', id).execute();
}

export async function findRule(db: Queryable, sheetId: number, id: number): Promise<RuleRow | undefined> {
  return db.selectFrom('automation_rules').selectAll().where('sheet_id', '=', sheetId).where('id', '=', id).executeTakeFirst();
}

export async function findRuleById(db: Queryable, id: number): Promise<RuleRow | undefined> {
  return db.selectFrom('automation_rules').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listRuleRows(db: Queryable, sheetId: number, opts: { enabledOnly?: boolean } = {}): Promise<RuleRow[]> {
  let q = db.selectFrom('automation_rules').selectAll().where('sheet_id', '=', sheetId);
  if (opts.enabledOnly) q = q.where('enabled', '=', 1);
  return q.orderBy('created_at').orderBy('id').execute();
}

/** Rows waiting for a rule's digest (a row already waiting is not added twice). */
export async function addDigestRows(db: Queryable, ruleId: number, rowIds: readonly number[], now: number): Promise<void> {
  if (rowIds.length === 0) return;
  await db.insertInto('automation_digest').values(rowIds.map((row_id) => ({ rule_id: ruleId, row_id, added_at: now })))
    .onConflict((oc) => oc.columns(['rule_id', 'row_id']).doNothing()).execute();
}

/** Takes (reads and removes) the rows waiting for a rule's digest, oldest first. */
export async function takeDigestRows(db: Queryable, ruleId: number): Promise<number[]> {
  const rows = await db.selectFrom('automation_digest').select('row_id').where('rule_id', '=', ruleId).orderBy('added_at').orderBy('row_id').execute();
  await db.deleteFrom('automation_digest').where('rule_id', '=', ruleId).execute();
  return rows.map((r) => Number(r.row_id));
}

/** Records a firing of a time-based trigger; false when it was recorded before (a retried job). */
export async function markFired(db: Queryable, ruleId: number, key: string, now: number): Promise<boolean> {
  const r = await db.insertInto('automation_fired').values({ rule_id: ruleId, fire_key: key, fired_at: now })
    .onConflict((oc) => oc.columns(['rule_id', 'fire_key']).doNothing()).executeTakeFirst();
  return Number(r.numInsertedOrUpdatedRows ?? 0n) > 0;
}

export async function insertApprovals(db: Queryable, rows: ApprovalRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.insertInto('automation_approvals').values(rows).execute();
}

export async function findApproval(db: Queryable, id: number): Promise<ApprovalRow | undefined> {
  return db.selectFrom('automation_approvals').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The decision already taken on a request (by any of its recipients), if any. */
export async function requestDecision(db: Queryable, requestId: number): Promise<ApprovalRow | undefined> {
  return db.selectFrom('automation_approvals').selectAll().where('request_id', '=', requestId).where('decided_at', 'is not', null).executeTakeFirst();
}

export async function decideApproval(db: Queryable, id: number, decision: string, now: number): Promise<void> {
  await db.updateTable('automation_approvals').set({ decision, decided_at: now }).where('id', '=', id).execute();
}
