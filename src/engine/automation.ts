/**
 * Automation rules, the pure part: the trigger and action of a rule as sheetd stores them,
 * their validation against the sheet's columns, why a rule cannot run (disabledReason), and
 * the times of time-based triggers and digests. No SQL, no HTTP.
 */
import { InvalidInput } from './errors.ts';
import type { ColumnDef } from './columns.ts';
import { parseCriterion, parseQuery, columnsOf, type CriteriaQuery, type Criterion } from './criteria.ts';
import { bodyId, describe, isObject, type Obj, optionalBodyBool } from './input.ts';
import { isValidEmail } from './contacts.ts';

export const ACTION_TYPES = ['APPROVAL_REQUEST_ACTION', 'NOTIFICATION_ACTION', 'UPDATE_REQUEST_ACTION'] as const;
export type ActionType = (typeof ACTION_TYPES)[number];
export const FREQUENCIES = ['IMMEDIATELY', 'HOURLY', 'DAILY', 'WEEKLY'] as const;
export type Frequency = (typeof FREQUENCIES)[number];
export const TRIGGER_TYPES = ['ROWS_ADDED', 'ROWS_CHANGED', 'COLUMN_CHANGED', 'DATE_REACHED', 'SCHEDULE'] as const;
export type TriggerType = (typeof TRIGGER_TYPES)[number];
export const REPEATS = ['NEVER', 'HOURLY', 'DAILY', 'WEEKLY'] as const;
export type Repeat = (typeof REPEATS)[number];

/** What sets a rule off. Row triggers follow writes; DATE_REACHED and SCHEDULE follow the clock. */
export type Trigger =
  | { type: 'ROWS_ADDED' }
  /** any cell of an existing row changed, or a cell of one of `columnIds` */
  | { type: 'ROWS_CHANGED'; columnIds?: number[] }
  /** a cell of `columnId` changed, and (with `when`) its new value meets the criterion */
  | { type: 'COLUMN_CHANGED'; columnId: number; when?: Criterion }
  /** at `time` (UTC, HH:MM) of each day, the rows whose date in `columnId` plus offsetDays is that day */
  | { type: 'DATE_REACHED'; columnId: number; offsetDays: number; time: string }
  /** at `startAt` and then every period of `repeat`, every row that meets the conditions */
  | { type: 'SCHEDULE'; startAt: number; repeat: Repeat };

export type Recipient = { email: string } | { groupId: number };

/** An AutomationAction as stored: the one recipient group it has, and normalised flags. */
export interface StoredAction {
  type: ActionType;
  frequency: Frequency;
  recipients?: Recipient[];
  recipientColumnIds?: number[];
  notifyAllSharedUsers?: boolean;
  includeAllColumns: boolean;
  includedColumnIds?: number[];
  includeAttachments: boolean;
  includeDiscussions: boolean;
  subject?: string;
  message?: string;
  /** APPROVAL_REQUEST_ACTION: the dropdown column the decision is written to (a sheetd extension). */
  approvalColumnId?: number;
}

export const DISABLED_REASONS = {
  APPROVAL_COLUMN_MISSING: "This rule's approval status column has been deleted.",
  APPROVAL_COLUMN_WRONG_TYPE: 'The approval column must be a dropdown column.',
  AUTOMATION_NOT_ENABLED_FOR_ORG: 'Automation is not enabled for this organization.',
  COLUMN_MISSING: 'A column referenced by this rule has been deleted.',
  COLUMN_TYPE_INCOMPATIBLE: 'A column referenced by this rule has been changed to an incompatible column type.',
  NO_POTENTIAL_RECIPIENTS: "This rule has no recipients that will be able to receive notifications based on this sheet's permission settings.",
  NO_VALID_SELECTED_COLUMNS: 'All selected columns for this rule have been deleted.',
} as const;
export type DisabledReason = keyof typeof DISABLED_REASONS;

/** The values an approval writes to its dropdown column. */
export const APPROVED = 'Approved';
export const DECLINED = 'Declined';

const CONTACT_TYPES = new Set(['CONTACT_LIST', 'MULTI_CONTACT_LIST']);
const DATE_TYPES = new Set(['DATE', 'ABSTRACT_DATETIME', 'DATETIME']);
/** Recipients in one rule at most. */
export const MAX_RULE_RECIPIENTS = 100;

const present = (b: Obj, k: string) => b[k] !== undefined && b[k] !== null;

function bool(b: Obj, k: string, attr: string): boolean | undefined {
  return optionalBodyBool(b[k], attr);
}

function text(b: Obj, k: string, attr: string): string | undefined {
  if (!present(b, k)) return undefined;
  if (typeof b[k] !== 'string') throw new InvalidInput(1031, describe(b[k]), attr);
  return b[k] as string;
}

function ids(b: Obj, k: string, attr: string): number[] | undefined {
  if (!present(b, k)) return undefined;
  const v = b[k];
  if (!Array.isArray(v)) throw new InvalidInput(1031, describe(v), attr);
  return [...new Set(v.map((x) => bodyId(x, attr)))];
}

function oneOf<T extends string>(v: unknown, allowed: readonly T[], attr: string): T {
  if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v)) throw new InvalidInput(1031, describe(v), attr);
  return v as T;
}

function column(columns: ReadonlyMap<number, ColumnDef>, id: number): ColumnDef {
  const c = columns.get(id);
  if (!c) throw new InvalidInput(1036, id);
  return c;
}

/** The trigger of a create or update body, checked against the sheet's columns. */
export function parseTrigger(raw: unknown, columns: ReadonlyMap<number, ColumnDef>, now: number): Trigger {
  if (!isObject(raw)) throw new InvalidInput(1031, describe(raw), 'trigger');
  const type = oneOf(raw.type ?? null, TRIGGER_TYPES, 'trigger.type');
  switch (type) {
    case 'ROWS_ADDED':
      return { type };
    case 'ROWS_CHANGED': {
      const cols = ids(raw, 'columnIds', 'trigger.columnIds');
      for (const id of cols ?? []) column(columns, id);
      return cols !== undefined && cols.length > 0 ? { type, columnIds: cols } : { type };
    }
    case 'COLUMN_CHANGED': {
      if (!present(raw, 'columnId')) throw new InvalidInput(1012, 'trigger.columnId');
      const columnId = bodyId(raw.columnId, 'trigger.columnId');
      column(columns, columnId);
      if (!present(raw, 'when')) return { type, columnId };
      if (!isObject(raw.when)) throw new InvalidInput(1031, describe(raw.when), 'trigger.when');
      const when = parseCriterion({ ...raw.when, columnId }, [...columns.values()], 'trigger.when');
      return { type, columnId, when };
    }
    case 'DATE_REACHED': {
      if (!present(raw, 'columnId')) throw new InvalidInput(1012, 'trigger.columnId');
      const columnId = bodyId(raw.columnId, 'trigger.columnId');
      if (!DATE_TYPES.has(column(columns, columnId).type)) throw new InvalidInput(1031, columnId, 'trigger.columnId');
      const offset = raw.offsetDays ?? 0;
      if (typeof offset !== 'number' || !Number.isInteger(offset) || Math.abs(offset) > 365) throw new InvalidInput(1031, describe(offset), 'trigger.offsetDays');
      const time = raw.time ?? '09:00';
      if (typeof time !== 'string' || !/^([01]\d|2[0-3]):[0-5]\d$/.test(time)) throw new InvalidInput(1031, describe(time), 'trigger.time');
      return { type, columnId, offsetDays: offset, time };
    }
    case 'SCHEDULE': {
      const repeat = present(raw, 'repeat') ? oneOf(raw.repeat, REPEATS, 'trigger.repeat') : 'NEVER';
      const at = raw.startAt;
      let startAt: number;
      if (at === undefined || at === null) startAt = now;
      else if (typeof at === 'number' && Number.isSafeInteger(at) && at >= 0) startAt = at;
      else if (typeof at === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/.test(at) && !Number.isNaN(Date.parse(at))) startAt = Date.parse(at);
      else throw new InvalidInput(1031, describe(at), 'trigger.startAt');
      return { type, startAt, repeat };
    }
  }
}

/** The conditions of a body: a criteria query over the row's cells, or none (every row). */
export function parseConditions(raw: unknown, columns: ReadonlyMap<number, ColumnDef>): CriteriaQuery | null {
  if (raw === undefined || raw === null) return null;
  return parseQuery(raw, [...columns.values()], 'conditions');
}

function parseRecipients(v: unknown): Recipient[] {
  if (!Array.isArray(v)) throw new InvalidInput(1031, describe(v), 'action.recipients');
  if (v.length > MAX_RULE_RECIPIENTS) throw new InvalidInput(1031, `${v.length} recipients (at most ${MAX_RULE_RECIPIENTS})`, 'action.recipients');
  return v.map((r: unknown) => {
    if (!isObject(r)) throw new InvalidInput(1031, describe(r), 'action.recipients');
    const hasEmail = present(r, 'email') && r.email !== '';
    const hasGroup = present(r, 'groupId');
    if (!hasEmail && !hasGroup) throw new InvalidInput(1012, 'action.recipients.email or groupId');
    if (hasEmail && hasGroup) throw new InvalidInput(1178, 'email and groupId');
    if (hasEmail) {
      if (typeof r.email !== 'string' || !isValidEmail(r.email.trim())) throw new InvalidInput(1156);
      return { email: r.email.trim() };
    }
    return { groupId: bodyId(r.groupId, 'action.recipients.groupId') };
  });
}

/**
 * The action of a create body (`existing` undefined) or the action of an update merged over
 * the stored one: attributes given replace the stored ones, and a recipient group given
 * replaces the other groups (1218 when one body names more than one; the same for
 * includeAllColumns true with includedColumnIds).
 */
export function parseAction(raw: unknown, columns: ReadonlyMap<number, ColumnDef>, existing?: StoredAction): StoredAction {
  if (!isObject(raw)) throw new InvalidInput(1031, describe(raw), 'action');
  if (!present(raw, 'type')) throw new InvalidInput(1012, 'action.type');
  const type = oneOf(raw.type, ACTION_TYPES, 'action.type');
  if (existing && existing.type !== type) throw new InvalidInput(1220);
  const groups = ['recipients', 'recipientColumnIds', 'notifyAllSharedUsers'].filter((k) => present(raw, k) && !(k === 'notifyAllSharedUsers' && raw[k] === false));
  if (groups.length > 1) throw new InvalidInput(1218);
  if (raw.includeAllColumns === true && present(raw, 'includedColumnIds')) throw new InvalidInput(1218);
  const out: StoredAction = existing ? { ...existing } : { type, frequency: 'IMMEDIATELY', includeAllColumns: true, includeAttachments: false, includeDiscussions: false };
  if (present(raw, 'frequency')) out.frequency = oneOf(raw.frequency, FREQUENCIES, 'action.frequency');
  if (groups.length === 1 || bool(raw, 'notifyAllSharedUsers', 'action.notifyAllSharedUsers') === false) {
    delete out.recipients;
    delete out.recipientColumnIds;
    delete out.notifyAllSharedUsers;
  }
  if (present(raw, 'recipients')) {
    out.recipients = parseRecipients(raw.recipients);
    if (out.recipients.length === 0) throw new InvalidInput(1012, 'action.recipients');
  }
  if (present(raw, 'recipientColumnIds')) {
    const cols = ids(raw, 'recipientColumnIds', 'action.recipientColumnIds')!;
    if (cols.length === 0) throw new InvalidInput(1012, 'action.recipientColumnIds');
    for (const id of cols) {
      const c = columns.get(id);
      if (!c || !CONTACT_TYPES.has(c.type)) throw new InvalidInput(1221, id);
    }
    out.recipientColumnIds = cols;
  }
  const all = bool(raw, 'notifyAllSharedUsers', 'action.notifyAllSharedUsers');
  if (all === true) out.notifyAllSharedUsers = true;
  if (out.recipients === undefined && out.recipientColumnIds === undefined && out.notifyAllSharedUsers !== true) throw new InvalidInput(1012, 'action.recipients, action.recipientColumnIds or action.notifyAllSharedUsers');
  if (present(raw, 'includedColumnIds')) {
    const cols = ids(raw, 'includedColumnIds', 'action.includedColumnIds')!;
    for (const id of cols) column(columns, id);
    out.includedColumnIds = cols;
    out.includeAllColumns = false;
  }
  const includeAll = bool(raw, 'includeAllColumns', 'action.includeAllColumns');
  if (includeAll === true) {
    out.includeAllColumns = true;
    delete out.includedColumnIds;
  } else if (includeAll === false) {
    out.includeAllColumns = false;
    if (out.includedColumnIds === undefined || out.includedColumnIds.length === 0) throw new InvalidInput(1012, 'action.includedColumnIds');
  }
  // includeAttachments is a string in the reference; true/false and "true"/"false" are accepted
  const att = raw.includeAttachments;
  if (att === true || att === 'true') out.includeAttachments = true;
  else if (att === false || att === 'false') out.includeAttachments = false;
  else if (present(raw, 'includeAttachments')) throw new InvalidInput(1031, describe(att), 'action.includeAttachments');
  const disc = bool(raw, 'includeDiscussions', 'action.includeDiscussions');
  if (disc !== undefined) out.includeDiscussions = disc;
  const subject = text(raw, 'subject', 'action.subject');
  if (subject !== undefined) out.subject = subject;
  const message = text(raw, 'message', 'action.message');
  if (message !== undefined) out.message = message;
  if (type === 'APPROVAL_REQUEST_ACTION') {
    if (present(raw, 'approvalColumnId')) {
      const id = bodyId(raw.approvalColumnId, 'action.approvalColumnId');
      if (column(columns, id).type !== 'PICKLIST') throw new InvalidInput(1031, id, 'action.approvalColumnId');
      out.approvalColumnId = id;
    }
    if (out.approvalColumnId === undefined) throw new InvalidInput(1012, 'action.approvalColumnId');
  } else if (present(raw, 'approvalColumnId')) {
    throw new InvalidInput(1032, 'action.approvalColumnId');
  }
  if (type !== 'NOTIFICATION_ACTION' && out.frequency !== 'IMMEDIATELY') throw new InvalidInput(1031, out.frequency, 'action.frequency');
  return out;
}

/** Columns a rule needs (trigger, conditions, recipient columns); the approval column apart. */
function neededColumns(trigger: Trigger, conditions: CriteriaQuery | null, action: StoredAction): number[] {
  const out: number[] = [];
  if (trigger.type === 'ROWS_CHANGED') out.push(...(trigger.columnIds ?? []));
  if (trigger.type === 'COLUMN_CHANGED' || trigger.type === 'DATE_REACHED') out.push(trigger.columnId);
  if (conditions) out.push(...columnsOf(conditions));
  out.push(...(action.recipientColumnIds ?? []));
  return out;
}

/**
 * Why a rule cannot run on the sheet as it is now (undefined when it can), but for
 * NO_POTENTIAL_RECIPIENTS, which needs the sheet's shares (the service adds it).
 */
export function columnReason(trigger: Trigger, conditions: CriteriaQuery | null, action: StoredAction, columns: ReadonlyMap<number, ColumnDef>): DisabledReason | undefined {
  if (action.type === 'APPROVAL_REQUEST_ACTION' && action.approvalColumnId !== undefined) {
    const c = columns.get(action.approvalColumnId);
    if (!c) return 'APPROVAL_COLUMN_MISSING';
    if (c.type !== 'PICKLIST') return 'APPROVAL_COLUMN_WRONG_TYPE';
  }
  if (neededColumns(trigger, conditions, action).some((id) => !columns.has(id))) return 'COLUMN_MISSING';
  if ((action.recipientColumnIds ?? []).some((id) => !CONTACT_TYPES.has(columns.get(id)!.type))) return 'COLUMN_TYPE_INCOMPATIBLE';
  if (trigger.type === 'DATE_REACHED' && !DATE_TYPES.has(columns.get(trigger.columnId)!.type)) return 'COLUMN_TYPE_INCOMPATIBLE';
  if (!action.includeAllColumns && (action.includedColumnIds ?? []).every((id) => !columns.has(id))) return 'NO_VALID_SELECTED_COLUMNS';
  return undefined;
}

export function isContactColumn(c: ColumnDef): boolean {
  return CONTACT_TYPES.has(c.type);
}

// ---- time

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const WEEK = 7 * DAY;

/** When the digest of rows collected at `now` goes out: the next full hour, next midnight (UTC), next Monday midnight (UTC). */
export function digestDue(frequency: Exclude<Frequency, 'IMMEDIATELY'>, now: number): number {
  if (frequency === 'HOURLY') return Math.floor(now / HOUR) * HOUR + HOUR;
  const midnight = Math.floor(now / DAY) * DAY + DAY;
  if (frequency === 'DAILY') return midnight;
  // 1970-01-01 was a Thursday: Mondays are 4 days after a multiple of a week
  const sinceMonday = (((now - 4 * DAY) % WEEK) + WEEK) % WEEK;
  return now - sinceMonday + WEEK;
}

/** The next firing of a time-based trigger strictly after `after`, or undefined when there is none. */
export function nextFiring(trigger: Trigger, after: number): number | undefined {
  if (trigger.type === 'DATE_REACHED') {
    const [h, m] = trigger.time.split(':').map(Number) as [number, number];
    const today = Math.floor(after / DAY) * DAY + h * HOUR + m * 60_000;
    return today > after ? today : today + DAY;
  }
  if (trigger.type === 'SCHEDULE') {
    if (trigger.startAt > after) return trigger.startAt;
    if (trigger.repeat === 'NEVER') return undefined;
    const period = trigger.repeat === 'HOURLY' ? HOUR : trigger.repeat === 'DAILY' ? DAY : WEEK;
    return trigger.startAt + (Math.floor((after - trigger.startAt) / period) + 1) * period;
  }
  return undefined;
}

/** 'YYYY-MM-DD' of an instant (UTC), moved by `days`. */
export function dayOf(ms: number, days = 0): string {
  return new Date(ms + days * DAY).toISOString().slice(0, 10);
}
