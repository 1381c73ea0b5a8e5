import type { RuleUser, RuleView } from '../../services/outbound/automation.ts';
import { ts } from './dates.ts';

function who(u: RuleUser | undefined): { name?: string; email: string } | undefined {
  if (!u) return undefined;
  const name = [u.first_name, u.last_name].filter((x) => x).join(' ');
  return { ...(name !== '' ? { name } : {}), email: u.email };
}

/** The AutomationRule object (2.7), with sheetd's trigger and conditions beside the action. */
export function presentRule(r: RuleView, numericDates: boolean): Record<string, unknown> {
  const trigger = r.trigger.type === 'SCHEDULE' ? { ...r.trigger, startAt: ts(r.trigger.startAt, numericDates) } : r.trigger;
  const { approvalColumnId, ...action } = r.action;
  return {
    id: r.row.id,
    name: r.row.name,
    enabled: r.row.enabled === 1 && r.disabledReason === undefined,
    action: { ...action, ...(approvalColumnId !== undefined ? { approvalColumnId } : {}) },
    trigger,
    ...(r.conditions !== null ? { conditions: r.conditions } : {}),
    createdAt: ts(r.row.created_at, numericDates),
    ...(who(r.createdBy) ? { createdBy: who(r.createdBy) } : {}),
    modifiedAt: ts(r.row.modified_at, numericDates),
    ...(who(r.modifiedBy) ? { modifiedBy: who(r.modifiedBy) } : {}),
    userCanModify: r.userCanModify,
    ...(r.disabledReason !== undefined ? { disabledReason: r.disabledReason, disabledReasonText: r.disabledReasonText } : {}),
  };
}
