/**
 * What a column change does to the sheet's automation rules (spec 2.7 disabledReason): a rule
 * that could run before the change and cannot after it (a column it names deleted or retyped,
 * its approval column gone or no longer a dropdown, every included column gone) is switched off
 * in the column write's own transaction, with an AUTOMATION_RULE UPDATE event naming the
 * reason. It stays off until someone enables it again (Update Automation Rule), even if the
 * cause goes away; its disabledReason is read from the sheet as it is then.
 */
import type { ColumnDef } from '../../engine/columns.ts';
import { columnReason, type DisabledReason, type StoredAction, type Trigger } from '../../engine/automation.ts';
import type { CriteriaQuery } from '../../engine/criteria.ts';
import type { Queryable } from '../../store/db.ts';
import { listRuleRows, updateRuleRow, type RuleRow } from '../../store/automation.ts';
import type { ChangeEvent } from '../log/events.ts';

function reasonOf(row: RuleRow, columns: ReadonlyMap<number, ColumnDef>): DisabledReason | undefined {
  return columnReason(JSON.parse(row.trigger) as Trigger, row.conditions === null ? null : (JSON.parse(row.conditions) as CriteriaQuery), JSON.parse(row.action) as StoredAction, columns);
}

/** The enabled rules of the sheet that its columns let run now (call before the change). */
export async function runnableRules(db: Queryable, sheetId: number, columns: ReadonlyMap<number, ColumnDef>): Promise<RuleRow[]> {
  return (await listRuleRows(db, sheetId, { enabledOnly: true })).filter((r) => reasonOf(r, columns) === undefined);
}

/**
 * Switches off the rules of `before` (runnableRules before the change) that the columns as they
 * are now stop, and answers their events.
 */
export async function disableBrokenRules(db: Queryable, before: readonly RuleRow[], columns: ReadonlyMap<number, ColumnDef>, now: number, sheet: { id: number; workspace_id: number | null }): Promise<ChangeEvent[]> {
  const events: ChangeEvent[] = [];
  for (const row of before) {
    const reason = reasonOf(row, columns);
    if (reason === undefined) continue;
    // a later modified_at: a timer job of the rule's earlier version finds it changed and stops
    await updateRuleRow(db, row.id, { enabled: 0, modified_at: Math.max(now, row.modified_at + 1) });
    events.push({ objectType: 'AUTOMATION_RULE', action: 'UPDATE', objectId: row.id, sheetId: sheet.id, workspaceId: sheet.workspace_id, details: { name: row.name, enabled: false, disabledReason: reason } });
  }
  return events;
}
