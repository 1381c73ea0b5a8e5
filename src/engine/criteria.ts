/**
 * Criteria over rows: what sheet filters and conditional-format rules test. A criterion is
 * `{ columnId?, operator, values? }` (the reference's Filters.query.criteria items); a query
 * joins criteria with AND or OR. Pure: the caller hands in the columns, a row's cells and what
 * is known of the row (locked, the caller's email, today).
 *
 * Matching follows what the grid shows: text compares without regard to case; numbers,
 * dates and date-times compare as such; multi-valued cells (MULTI_PICKLIST,
 * MULTI_CONTACT_LIST) match EQUAL and IS_ONE_OF when any of their values does.
 */
import { InvalidInput } from './errors.ts';
import type { ColumnDef } from './columns.ts';
import type { StoredCell, StoredValue } from './cells.ts';
import { dayOfEpochMs, dayToEpochMs, parseIsoDateTime, parseIsoDay } from './dates.ts';
import { systemCellValue, valueText, type RowSystemInfo } from './display.ts';
import type { StoredContact } from './contacts.ts';

/** Operators that test a cell and take no value. */
const NO_VALUE = ['IS_BLANK', 'IS_NOT_BLANK', 'IS_NUMBER', 'IS_NOT_NUMBER', 'IS_DATE', 'IS_NOT_DATE', 'IS_CHECKED', 'IS_NOT_CHECKED', 'TODAY', 'PAST', 'FUTURE', 'IS_CURRENT_USER', 'IS_NOT_CURRENT_USER'] as const;
/** Operators that test a cell against one value. */
const ONE_VALUE = ['EQUAL', 'NOT_EQUAL', 'GREATER_THAN', 'LESS_THAN', 'GREATER_THAN_OR_EQUAL', 'LESS_THAN_OR_EQUAL', 'CONTAINS', 'DOES_NOT_CONTAIN'] as const;
/** Operators that test a cell against a list of values (one or more). */
const MANY_VALUES = ['IS_ONE_OF', 'IS_NOT_ONE_OF', 'HAS_ANY_OF', 'HAS_NONE_OF', 'HAS_ALL_OF'] as const;
/** Operators that take two bounds, or a count of days. */
const TWO_VALUES = ['BETWEEN', 'NOT_BETWEEN'] as const;
const DAY_COUNT = ['LAST_N_DAYS', 'NEXT_N_DAYS'] as const;
/** Operators about the row, not a cell: no column. */
const ROW_LEVEL = ['IS_LOCKED', 'NOT_LOCKED', 'HAS_ATTACHMENTS', 'NO_ATTACHMENTS', 'HAS_COMMENTS', 'NO_COMMENTS', 'ON_CRITICAL_PATH', 'NOT_ON_CRITICAL_PATH'] as const;

export const CRITERION_OPERATORS: readonly string[] = [...NO_VALUE, ...ONE_VALUE, ...MANY_VALUES, ...TWO_VALUES, ...DAY_COUNT, ...ROW_LEVEL];
export type CriterionOperator = string;

export interface Criterion {
  columnId?: number;
  operator: CriterionOperator;
  values?: string[];
}

export interface CriteriaQuery {
  operator: 'AND' | 'OR';
  criteria: Criterion[];
}

/** What a criterion may know about the row beyond its cells. */
export interface RowFacts {
  locked: boolean;
  system?: RowSystemInfo;
  attachments?: number;
  comments?: number;
  /** On the critical path of a project sheet's schedule (engine/schedule.ts). */
  critical?: boolean;
}

export interface MatchContext {
  /** Today's calendar day, 'YYYY-MM-DD' (UTC). */
  today: string;
  /** The email of the user the criteria are evaluated for (IS_CURRENT_USER). */
  userEmail?: string;
  rowNumberOf?: (rowId: number) => number | undefined;
}

const has = (list: readonly string[], op: string) => list.includes(op);

/**
 * Validates one criterion of a request body against the sheet's columns; `attr` names it in
 * errors. 1031 for an unknown operator or a malformed value, 1012 for a missing columnId or
 * values, 1036 for a column the sheet does not have.
 */
export function parseCriterion(raw: unknown, columns: readonly ColumnDef[], attr: string): Criterion {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new InvalidInput(1031, JSON.stringify(raw), attr);
  const c = raw as Record<string, unknown>;
  const op = c.operator;
  if (op === undefined || op === null) throw new InvalidInput(1012, `${attr}.operator`);
  if (typeof op !== 'string' || !CRITERION_OPERATORS.includes(op)) throw new InvalidInput(1031, String(op), `${attr}.operator`);
  const out: Criterion = { operator: op };
  if (!has(ROW_LEVEL, op)) {
    if (c.columnId === undefined || c.columnId === null) throw new InvalidInput(1012, `${attr}.columnId`);
    if (typeof c.columnId !== 'number' || !columns.some((col) => col.id === c.columnId)) throw new InvalidInput(1036, String(c.columnId));
    out.columnId = c.columnId;
  }
  const values = c.values;
  const need = has(ONE_VALUE, op) ? 1 : has(TWO_VALUES, op) ? 2 : has(DAY_COUNT, op) ? 1 : has(MANY_VALUES, op) ? -1 : 0;
  if (need === 0) return out;
  if (values === undefined || values === null || (Array.isArray(values) && values.length === 0)) throw new InvalidInput(1012, `${attr}.values`);
  if (!Array.isArray(values) || values.some((v) => typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean')) throw new InvalidInput(1031, JSON.stringify(values), `${attr}.values`);
  const texts = values.map((v) => String(v));
  if (need > 0 && texts.length !== need) throw new InvalidInput(1031, JSON.stringify(values), `${attr}.values`);
  if (has(DAY_COUNT, op) && !/^\d{1,5}$/.test(texts[0]!.trim())) throw new InvalidInput(1031, texts[0]!, `${attr}.values`);
  out.values = texts;
  return out;
}

/** Validates a query `{operator, criteria}`; 1183 when there is no criterion. */
export function parseQuery(raw: unknown, columns: readonly ColumnDef[], attr: string): CriteriaQuery {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new InvalidInput(1031, JSON.stringify(raw), attr);
  const q = raw as Record<string, unknown>;
  const op = q.operator ?? 'AND';
  if (op !== 'AND' && op !== 'OR') throw new InvalidInput(1031, String(op), `${attr}.operator`);
  const list = q.criteria;
  if (list === undefined || list === null || (Array.isArray(list) && list.length === 0)) throw new InvalidInput(1183);
  if (!Array.isArray(list)) throw new InvalidInput(1031, JSON.stringify(list), `${attr}.criteria`);
  return { operator: op, criteria: list.map((c, i) => parseCriterion(c, columns, `${attr}.criteria[${i}]`)) };
}

/** The columns a query reads. */
export function columnsOf(q: CriteriaQuery): number[] {
  return q.criteria.map((c) => c.columnId).filter((id): id is number => id !== undefined);
}

// ---- matching

type Scalar = { kind: 'blank' } | { kind: 'number'; n: number } | { kind: 'day'; day: string } | { kind: 'instant'; ms: number } | { kind: 'bool'; b: boolean } | { kind: 'text'; s: string } | { kind: 'contact'; c: StoredContact };

/** The values of a cell as comparable scalars (several for multi-valued cells). */
function scalars(column: ColumnDef, v: StoredValue | undefined, m: MatchContext): Scalar[] {
  if (v === undefined || v === '') return [{ kind: 'blank' }];
  if (typeof v === 'number') return [{ kind: 'number', n: v }];
  if (typeof v === 'boolean') return [{ kind: 'bool', b: v }];
  if (typeof v === 'string') return [{ kind: 'text', s: v }];
  if ('d' in v) return [{ kind: 'day', day: v.d }];
  if ('t' in v) return [{ kind: 'instant', ms: v.t }];
  if ('c' in v) return [{ kind: 'contact', c: v.c }];
  if ('mc' in v) return v.mc.length === 0 ? [{ kind: 'blank' }] : v.mc.map((c) => ({ kind: 'contact', c }) as Scalar);
  if ('mp' in v) return v.mp.length === 0 ? [{ kind: 'blank' }] : v.mp.map((s) => ({ kind: 'text', s }) as Scalar);
  return [{ kind: 'text', s: valueText(column, v, undefined, { rowNumberOf: m.rowNumberOf }) }];
}

function dayOf(s: Scalar): string | undefined {
  if (s.kind === 'day') return s.day;
  if (s.kind === 'instant') return dayOfEpochMs(s.ms) ?? undefined;
  return undefined;
}

function textOf(column: ColumnDef, s: Scalar): string {
  switch (s.kind) {
    case 'blank': return '';
    case 'number': return valueText(column, s.n, undefined);
    case 'bool': return String(s.b);
    case 'text': return s.s;
    case 'day': return s.day;
    case 'instant': return valueText(column, { t: s.ms }, undefined);
    case 'contact': return s.c.name ?? s.c.email;
  }
}

const lower = (s: string) => s.trim().toLowerCase();

/** -1, 0 or 1 comparing a cell scalar with a criterion value; undefined when not comparable. */
function compare(column: ColumnDef, s: Scalar, value: string): number | undefined {
  if (s.kind === 'number') {
    const n = Number(value.trim());
    if (value.trim() === '' || !Number.isFinite(n)) return undefined;
    return Math.sign(s.n - n);
  }
  if (s.kind === 'day' || s.kind === 'instant') {
    if (s.kind === 'instant' && /T|\s\d/.test(value.trim())) {
      const ms = parseIsoDateTime(value);
      return ms === null ? undefined : Math.sign(s.ms - ms);
    }
    const day = parseIsoDay(value);
    const mine = dayOf(s);
    if (day === null || mine === undefined) return undefined;
    return mine < day ? -1 : mine > day ? 1 : 0;
  }
  if (s.kind === 'text') {
    const a = s.s.trim();
    const b = value.trim();
    const na = Number(a);
    const nb = Number(b);
    if (a !== '' && b !== '' && Number.isFinite(na) && Number.isFinite(nb)) return Math.sign(na - nb);
    return undefined;
  }
  return undefined;
}

function equals(column: ColumnDef, s: Scalar, value: string): boolean {
  if (s.kind === 'blank') return value.trim() === '';
  if (s.kind === 'bool') return lower(value) === String(s.b);
  if (s.kind === 'contact') return lower(value) === lower(s.c.email) || (s.c.name !== undefined && lower(value) === lower(s.c.name));
  const c = compare(column, s, value);
  if (c !== undefined) return c === 0;
  return lower(textOf(column, s)) === lower(value);
}

/** The day n days after `day` (n below 100,000, as parseCriterion allows: always a valid day). */
function addDays(day: string, n: number): string {
  return dayOfEpochMs(dayToEpochMs(day) + n * 86_400_000)!;
}

function cellMatches(column: ColumnDef, cell: StoredCell | undefined, v: StoredValue | undefined, c: Criterion, m: MatchContext): boolean {
  const ss = scalars(column, v, m);
  const values = c.values ?? [];
  const any = (f: (s: Scalar) => boolean) => ss.some(f);
  const blank = ss.length === 1 && ss[0]!.kind === 'blank';
  switch (c.operator) {
    case 'IS_BLANK': return blank;
    case 'IS_NOT_BLANK': return !blank;
    case 'IS_NUMBER': return any((s) => s.kind === 'number');
    case 'IS_NOT_NUMBER': return !any((s) => s.kind === 'number');
    case 'IS_DATE': return any((s) => s.kind === 'day' || s.kind === 'instant');
    case 'IS_NOT_DATE': return !any((s) => s.kind === 'day' || s.kind === 'instant');
    case 'IS_CHECKED': return any((s) => s.kind === 'bool' && s.b);
    case 'IS_NOT_CHECKED': return !any((s) => s.kind === 'bool' && s.b);
    case 'IS_CURRENT_USER': return m.userEmail !== undefined && any((s) => s.kind === 'contact' && lower(s.c.email) === lower(m.userEmail!));
    case 'IS_NOT_CURRENT_USER': return !(m.userEmail !== undefined && any((s) => s.kind === 'contact' && lower(s.c.email) === lower(m.userEmail!)));
    case 'TODAY': return any((s) => dayOf(s) === m.today);
    case 'PAST': return any((s) => { const d = dayOf(s); return d !== undefined && d < m.today; });
    case 'FUTURE': return any((s) => { const d = dayOf(s); return d !== undefined && d > m.today; });
    case 'LAST_N_DAYS': {
      const from = addDays(m.today, -Number(values[0]));
      return any((s) => { const d = dayOf(s); return d !== undefined && d >= from && d <= m.today; });
    }
    case 'NEXT_N_DAYS': {
      const to = addDays(m.today, Number(values[0]));
      return any((s) => { const d = dayOf(s); return d !== undefined && d >= m.today && d <= to; });
    }
    case 'EQUAL': return any((s) => equals(column, s, values[0]!));
    case 'NOT_EQUAL': return !any((s) => equals(column, s, values[0]!));
    case 'IS_ONE_OF':
    case 'HAS_ANY_OF': return values.some((x) => any((s) => equals(column, s, x)));
    case 'IS_NOT_ONE_OF':
    case 'HAS_NONE_OF': return !values.some((x) => any((s) => equals(column, s, x)));
    case 'HAS_ALL_OF': return values.every((x) => any((s) => equals(column, s, x)));
    case 'CONTAINS': return any((s) => lower(textOf(column, s)).includes(lower(values[0]!)));
    case 'DOES_NOT_CONTAIN': return !any((s) => lower(textOf(column, s)).includes(lower(values[0]!)));
    case 'GREATER_THAN': return any((s) => compare(column, s, values[0]!) === 1);
    case 'LESS_THAN': return any((s) => compare(column, s, values[0]!) === -1);
    case 'GREATER_THAN_OR_EQUAL': return any((s) => { const r = compare(column, s, values[0]!); return r === 1 || r === 0; });
    case 'LESS_THAN_OR_EQUAL': return any((s) => { const r = compare(column, s, values[0]!); return r === -1 || r === 0; });
    case 'BETWEEN':
    case 'NOT_BETWEEN': {
      const inside = any((s) => {
        const lo = compare(column, s, values[0]!);
        const hi = compare(column, s, values[1]!);
        return lo !== undefined && hi !== undefined && lo >= 0 && hi <= 0;
      });
      return c.operator === 'BETWEEN' ? inside : !inside;
    }
    default:
      void cell;
      return false;
  }
}

function rowMatches(c: Criterion, row: RowFacts): boolean {
  switch (c.operator) {
    case 'IS_LOCKED': return row.locked;
    case 'NOT_LOCKED': return !row.locked;
    case 'HAS_ATTACHMENTS': return (row.attachments ?? 0) > 0;
    case 'NO_ATTACHMENTS': return (row.attachments ?? 0) === 0;
    case 'HAS_COMMENTS': return (row.comments ?? 0) > 0;
    case 'NO_COMMENTS': return (row.comments ?? 0) === 0;
    case 'ON_CRITICAL_PATH': return row.critical === true;
    case 'NOT_ON_CRITICAL_PATH': return row.critical !== true;
    default: return false;
  }
}

/** Does one criterion hold for a row? */
export function criterionMatches(c: Criterion, columnsById: ReadonlyMap<number, ColumnDef>, cells: Readonly<Record<string, StoredCell>>, row: RowFacts, m: MatchContext): boolean {
  if (c.columnId === undefined) return rowMatches(c, row);
  const column = columnsById.get(c.columnId);
  if (column === undefined) return false;
  const cell = cells[String(c.columnId)];
  const v = column.systemColumnType !== undefined && column.systemColumnType !== 'AUTO_NUMBER' && row.system !== undefined ? systemCellValue(column, row.system, cell) : cell?.v;
  return cellMatches(column, cell, v, c, m);
}

/** Does a query (criteria joined by AND or OR) hold for a row? */
export function queryMatches(q: CriteriaQuery, columnsById: ReadonlyMap<number, ColumnDef>, cells: Readonly<Record<string, StoredCell>>, row: RowFacts, m: MatchContext): boolean {
  if (q.operator === 'OR') return q.criteria.some((c) => criterionMatches(c, columnsById, cells, row, m));
  return q.criteria.every((c) => criterionMatches(c, columnsById, cells, row, m));
}
