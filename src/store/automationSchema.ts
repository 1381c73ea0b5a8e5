/** Automation rules (migration 0016, store/automation.ts). */
export interface AutomationRuleTable {
  id: number;
  sheet_id: number;
  org_id: number;
  name: string;
  /** 0/1: what the owner chose; a rule with a disabledReason does not run either way. */
  enabled: number;
  /** JSON: the trigger (engine/automation.ts Trigger) */
  trigger: string;
  /** JSON: a criteria query (engine/criteria.ts), or null for every row */
  conditions: string | null;
  /** JSON: the AutomationAction as stored */
  action: string;
  created_at: number;
  created_by: number;
  modified_at: number;
  modified_by: number;
}

export interface AutomationDigestTable {
  rule_id: number;
  row_id: number;
  added_at: number;
}

export interface AutomationFiredTable {
  rule_id: number;
  fire_key: string;
  fired_at: number;
}

export interface AutomationApprovalTable {
  id: number;
  request_id: number;
  rule_id: number;
  sheet_id: number;
  row_id: number;
  email: string;
  created_at: number;
  decided_at: number | null;
  decision: string | null;
}

export interface AutomationTables {
  automation_rules: AutomationRuleTable;
  automation_digest: AutomationDigestTable;
  automation_fired: AutomationFiredTable;
  automation_approvals: AutomationApprovalTable;
}
