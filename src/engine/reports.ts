/**
 * Report definitions: which columns a report shows, which rows it keeps and in what order.
 * Pure: the service hands in each source sheet's columns and rows; this says which column of a
 * sheet a report column stands for, whether a row passes the filter, and how rows compare.
 *
 * A report column names columns of its source sheets the way the service's report builder
 * does: by title and type (a sheet's column counts when its title matches, ignoring case and
 * surrounding spaces, and its type is the one named), or as the sheets' primary column, a
 * system column, or the special "Sheet Name" column. The filter and the sort name columns the
 * same way, so they need not be columns the report shows.
 */
import { InvalidInput, LimitExceeded } from './errors.ts';
import { COLUMN_TYPES, SYSTEM_COLUMN_TYPES, columnVersion, type ColumnDef, type ColumnType, type SystemColumnType } from './columns.ts';
import type { StoredCell, StoredRowCells } from './cells.ts';
import { criterionMatches, parseCriterion, type MatchContext, type RowFacts } from './criteria.ts';
import { systemCellValue } from './display.ts';
import { compareSortKeys, sortKey, type SortDirection, type SortKey } from './sort.ts';
import { isObject, type Obj } from './input.ts';

/** How a definition names a column of the source sheets (the SDK's ReportColumnIdentifier). */
export interface ColumnRef {
  title?: string;
  type?: ColumnType;
  primary?: boolean;
  sheetNameColumn?: boolean;
  systemColumnType?: SystemColumnType;
}

/** A column of the report, with the id the report gives it (`virtualId`). */
export interface ReportColumnDef extends ColumnRef {
  virtualId: number;
  title: string;
  type: ColumnType;
  width?: number;
  hidden?: boolean;
}

export interface ReportCriterion {
  column: ColumnRef;
  operator: string;
  values?: string[];
  /**
   * The operator and values as the client sent them, when they differ from the ones applied: a
   * value `{objectType: 'DATE', value}` is applied as its date, `{objectType: 'CURRENT_USER'}`
   * as IS_CURRENT_USER / IS_NOT_CURRENT_USER.
   */
  sent?: { operator: string; values: unknown[] };
}

export interface ReportFilter {
  operator: 'AND' | 'OR';
  criteria: ReportCriterion[];
  nestedCriteria: ReportFilter[];
}

export interface ReportSortCriterion {
  column: ColumnRef;
  sortingDirection: SortDirection;
}

/** A grouping criterion (kept and answered; sheetd does not group the rows it answers). */
export interface ReportGroupingCriterion {
  column: ColumnRef;
  sortingDirection: SortDirection;
  isExpanded?: boolean;
}

/** A summarizing criterion (kept and answered; sheetd does not summarize). */
export interface ReportSummarizingCriterion {
  column: ColumnRef;
  aggregationType: string;
}

/** What a report stores besides its name, place and sources. */
export interface ReportDefinition {
  columns: ReportColumnDef[];
  filters?: ReportFilter;
  sortingCriteria?: ReportSortCriterion[];
  groupingCriteria?: ReportGroupingCriterion[];
  summarizingCriteria?: ReportSummarizingCriterion[];
}

export const AGGREGATION_TYPES = ['SUM', 'AVG', 'MIN', 'MAX', 'COUNT', 'FIRST', 'LAST'] as const;

/** The title of the special column that shows each row's sheet. */
export const SHEET_NAME_TITLE = 'Sheet Name';
/** At most this many columns in a report, and criteria in its filter (all levels). */
export const MAX_REPORT_COLUMNS = 400;
export const MAX_FILTER_CRITERIA = 100;

function text(v: unknown, attr: string, max = 4000): string {
  if (typeof v !== 'string' || v.trim() === '') throw new InvalidInput(1031, String(v), attr);
  if (v.length > max) throw new LimitExceeded(1041, attr, max, v.length);
  return v;
}

function flag(v: unknown, attr: string): boolean {
  if (v === undefined || v === null) return false;
  if (typeof v !== 'boolean') throw new InvalidInput(1031, String(v), attr);
  return v;
}

/** Reads a ColumnRef: one of sheetNameColumn, primary, systemColumnType, or a title (with or without type). */
export function parseColumnRef(raw: unknown, attr: string): ColumnRef {
  if (!isObject(raw)) throw new InvalidInput(1031, JSON.stringify(raw) ?? String(raw), attr);
  const out: ColumnRef = {};
  if (flag(raw.sheetNameColumn, `${attr}.sheetNameColumn`)) out.sheetNameColumn = true;
  if (flag(raw.primary, `${attr}.primary`)) out.primary = true;
  if (raw.systemColumnType !== undefined && raw.systemColumnType !== null) {
    if (typeof raw.systemColumnType !== 'string' || !(SYSTEM_COLUMN_TYPES as readonly string[]).includes(raw.systemColumnType)) throw new InvalidInput(1031, String(raw.systemColumnType), `${attr}.systemColumnType`);
    out.systemColumnType = raw.systemColumnType as SystemColumnType;
  }
  if (raw.type !== undefined && raw.type !== null) {
    if (typeof raw.type !== 'string' || !(COLUMN_TYPES as readonly string[]).includes(raw.type)) throw new InvalidInput(1031, String(raw.type), `${attr}.type`);
    out.type = raw.type as ColumnType;
  }
  if (raw.title !== undefined && raw.title !== null) out.title = text(raw.title, `${attr}.title`, 1000);
  const kinds = [out.sheetNameColumn, out.primary, out.systemColumnType !== undefined].filter(Boolean).length;
  if (kinds > 1) throw new InvalidInput(1031, JSON.stringify(raw), attr);
  if (kinds === 0 && out.title === undefined) throw new InvalidInput(1012, `${attr}.title`);
  return out;
}

function refKey(r: ColumnRef): string {
  if (r.sheetNameColumn) return 'sheetName';
  if (r.primary) return 'primary';
  if (r.systemColumnType !== undefined) return `system:${r.systemColumnType}`;
  return `title:${r.title!.trim().toLowerCase()}:${r.type ?? ''}`;
}

/**
 * Reads the `columns` of a definition. A column keeps the virtualId of the column of `previous`
 * that names the same source columns; new ones get ids from `newId`.
 */
export function parseReportColumns(raw: unknown, previous: readonly ReportColumnDef[], newId: () => number): ReportColumnDef[] {
  if (raw === undefined || raw === null || (Array.isArray(raw) && raw.length === 0)) throw new InvalidInput(1012, 'columns');
  if (!Array.isArray(raw)) throw new InvalidInput(1031, JSON.stringify(raw), 'columns');
  if (raw.length > MAX_REPORT_COLUMNS) throw new InvalidInput(1031, `${raw.length} columns`, 'columns');
  const old = new Map(previous.map((c) => [refKey(c), c]));
  const seen = new Set<string>();
  return raw.map((item: unknown, i) => {
    const attr = `columns[${i}]`;
    const ref = parseColumnRef(item, attr);
    const key = refKey(ref);
    if (seen.has(key)) throw new InvalidInput(1031, JSON.stringify(item), attr);
    seen.add(key);
    const o = item as Obj;
    let type: ColumnType = ref.type ?? 'TEXT_NUMBER';
    if (ref.sheetNameColumn) type = 'TEXT_NUMBER';
    else if (ref.systemColumnType === 'CREATED_DATE' || ref.systemColumnType === 'MODIFIED_DATE') type = ref.type ?? 'DATETIME';
    else if (ref.systemColumnType === 'CREATED_BY' || ref.systemColumnType === 'MODIFIED_BY') type = ref.type ?? 'CONTACT_LIST';
    const title = ref.title ?? (ref.sheetNameColumn ? SHEET_NAME_TITLE : ref.primary ? 'Primary Column' : ref.systemColumnType!);
    const out: ReportColumnDef = { ...ref, virtualId: old.get(key)?.virtualId ?? newId(), title, type };
    if (o.width !== undefined && o.width !== null) {
      if (typeof o.width !== 'number' || !Number.isInteger(o.width) || o.width < 1 || o.width > 10_000) throw new InvalidInput(1031, String(o.width), `${attr}.width`);
      out.width = o.width;
    }
    if (flag(o.hidden, `${attr}.hidden`)) out.hidden = true;
    return out;
  });
}

/** Reads one column for a report that has `existing` columns (Add Report Columns); 1031 when it names one already there. */
export function parseAddedColumn(raw: unknown, existing: readonly ReportColumnDef[], newId: () => number, attr: string): ReportColumnDef {
  const [col] = parseReportColumns([raw], [], newId);
  const key = refKey(col!);
  if (existing.some((c) => refKey(c) === key)) throw new InvalidInput(1031, JSON.stringify(raw), attr);
  return col!;
}

/** The key two report columns that stand for the same source columns share. */
export function columnKey(r: ColumnRef): string {
  return refKey(r);
}

/**
 * A filter value as the public API's report definitions send it: text, a number, null, or an
 * object `{objectType: 'DATE', value}` or `{objectType: 'CURRENT_USER'}`. Answers the operator
 * and values to apply, or undefined when nothing needs translating.
 */
function translateValues(operator: unknown, values: unknown, at: string): { operator: unknown; values: unknown } | undefined {
  if (!Array.isArray(values) || !values.some((v) => v === null || isObject(v))) return undefined;
  const objects = values.filter(isObject);
  if (objects.some((v) => v.objectType === 'CURRENT_USER')) {
    if (values.length !== 1) throw new InvalidInput(1031, JSON.stringify(values), `${at}.values`);
    if (operator === 'EQUAL' || operator === 'CONTAINS' || operator === 'HAS_ANY_OF' || operator === 'IS_ONE_OF') return { operator: 'IS_CURRENT_USER', values: undefined };
    if (operator === 'NOT_EQUAL' || operator === 'DOES_NOT_CONTAIN' || operator === 'HAS_NONE_OF' || operator === 'IS_NOT_ONE_OF') return { operator: 'IS_NOT_CURRENT_USER', values: undefined };
    throw new InvalidInput(1031, String(operator), `${at}.operator`);
  }
  return {
    operator,
    values: values.map((v) => {
      if (v === null) return '';
      if (!isObject(v)) return v;
      if (v.objectType !== 'DATE' || typeof v.value !== 'string') throw new InvalidInput(1031, JSON.stringify(v), `${at}.values`);
      return v.value;
    }),
  };
}

/** A stand-in column of a type, to check a criterion's operator and values against. */
function probeColumn(id: number, type: ColumnType): ColumnDef {
  return { id, index: 0, title: '', type, version: columnVersion(type) };
}

/** Reads a filter expression {operator, criteria, nestedCriteria}; 1183 when it holds no criterion. */
export function parseReportFilter(raw: unknown, attr = 'filters'): ReportFilter {
  let count = 0;
  const read = (r: unknown, at: string, depth: number): ReportFilter => {
    if (!isObject(r)) throw new InvalidInput(1031, JSON.stringify(r) ?? String(r), at);
    const op = r.operator ?? 'AND';
    if (op !== 'AND' && op !== 'OR') throw new InvalidInput(1031, String(op), `${at}.operator`);
    if (depth > 5) throw new InvalidInput(1031, 'nesting deeper than 5', at);
    const list = r.criteria ?? [];
    const nested = r.nestedCriteria ?? [];
    if (!Array.isArray(list)) throw new InvalidInput(1031, JSON.stringify(list), `${at}.criteria`);
    if (!Array.isArray(nested)) throw new InvalidInput(1031, JSON.stringify(nested), `${at}.nestedCriteria`);
    const criteria = list.map((c: unknown, i) => {
      const ca = `${at}.criteria[${i}]`;
      if (++count > MAX_FILTER_CRITERIA) throw new InvalidInput(1031, `more than ${MAX_FILTER_CRITERIA} criteria`, attr);
      if (!isObject(c)) throw new InvalidInput(1031, JSON.stringify(c) ?? String(c), ca);
      if (c.column === undefined || c.column === null) throw new InvalidInput(1012, `${ca}.column`);
      const column = parseColumnRef(c.column, `${ca}.column`);
      const type = column.sheetNameColumn ? 'TEXT_NUMBER' : column.type ?? 'TEXT_NUMBER';
      const translated = translateValues(c.operator, c.values, ca);
      const checked = parseCriterion({ columnId: 1, operator: translated?.operator ?? c.operator, values: translated ? translated.values : c.values }, [probeColumn(1, type)], ca);
      const out: ReportCriterion = { column, operator: checked.operator };
      if (checked.values !== undefined) out.values = checked.values;
      if (translated) out.sent = { operator: String(c.operator), values: c.values as unknown[] };
      return out;
    });
    const out: ReportFilter = { operator: op, criteria, nestedCriteria: nested.map((n: unknown, i) => read(n, `${at}.nestedCriteria[${i}]`, depth + 1)) };
    if (out.criteria.length === 0 && out.nestedCriteria.length === 0) throw new InvalidInput(1183);
    return out;
  };
  return read(raw, attr, 0);
}

export function parseReportSort(raw: unknown): ReportSortCriterion[] {
  if (!Array.isArray(raw)) throw new InvalidInput(1031, JSON.stringify(raw) ?? String(raw), 'sortingCriteria');
  if (raw.length > 20) throw new InvalidInput(1031, `${raw.length} criteria`, 'sortingCriteria');
  return raw.map((s: unknown, i) => {
    const at = `sortingCriteria[${i}]`;
    if (!isObject(s)) throw new InvalidInput(1031, JSON.stringify(s) ?? String(s), at);
    if (s.column === undefined || s.column === null) throw new InvalidInput(1012, `${at}.column`);
    const d = s.sortingDirection ?? 'ASCENDING';
    if (d !== 'ASCENDING' && d !== 'DESCENDING') throw new InvalidInput(1031, String(d), `${at}.sortingDirection`);
    return { column: parseColumnRef(s.column, `${at}.column`), sortingDirection: d };
  });
}

export function parseReportGrouping(raw: unknown): ReportGroupingCriterion[] {
  if (!Array.isArray(raw)) throw new InvalidInput(1031, JSON.stringify(raw) ?? String(raw), 'groupingCriteria');
  if (raw.length > 20) throw new InvalidInput(1031, `${raw.length} criteria`, 'groupingCriteria');
  return raw.map((g: unknown, i) => {
    const at = `groupingCriteria[${i}]`;
    if (!isObject(g)) throw new InvalidInput(1031, JSON.stringify(g) ?? String(g), at);
    if (g.column === undefined || g.column === null) throw new InvalidInput(1012, `${at}.column`);
    const d = g.sortingDirection ?? 'ASCENDING';
    if (d !== 'ASCENDING' && d !== 'DESCENDING') throw new InvalidInput(1031, String(d), `${at}.sortingDirection`);
    const out: ReportGroupingCriterion = { column: parseColumnRef(g.column, `${at}.column`), sortingDirection: d };
    if (g.isExpanded !== undefined && g.isExpanded !== null) out.isExpanded = flag(g.isExpanded, `${at}.isExpanded`);
    return out;
  });
}

export function parseReportSummarizing(raw: unknown): ReportSummarizingCriterion[] {
  if (!Array.isArray(raw)) throw new InvalidInput(1031, JSON.stringify(raw) ?? String(raw), 'summarizingCriteria');
  if (raw.length > MAX_REPORT_COLUMNS) throw new InvalidInput(1031, `${raw.length} criteria`, 'summarizingCriteria');
  return raw.map((g: unknown, i) => {
    const at = `summarizingCriteria[${i}]`;
    if (!isObject(g)) throw new InvalidInput(1031, JSON.stringify(g) ?? String(g), at);
    if (g.column === undefined || g.column === null) throw new InvalidInput(1012, `${at}.column`);
    if (g.aggregationType === undefined || g.aggregationType === null) throw new InvalidInput(1012, `${at}.aggregationType`);
    if (typeof g.aggregationType !== 'string' || !(AGGREGATION_TYPES as readonly string[]).includes(g.aggregationType)) throw new InvalidInput(1031, String(g.aggregationType), `${at}.aggregationType`);
    return { column: parseColumnRef(g.column, `${at}.column`), aggregationType: g.aggregationType };
  });
}

// ---- reading a source sheet through the definition

/** The id of the stand-in column that holds a row's sheet name in filters and sorts. */
const SHEET_NAME_ID = -1;

/** The column of a sheet a reference stands for; undefined when the sheet has none. */
export function resolveColumn(ref: ColumnRef, columns: readonly ColumnDef[]): ColumnDef | undefined {
  if (ref.sheetNameColumn) return undefined;
  if (ref.primary) return columns.find((c) => c.primary === true);
  if (ref.systemColumnType !== undefined) {
    // the sheet's column of that type with the report column's title, else its first one of
    // that type (a column named by its type alone is titled after the type, which no sheet's
    // "Modified" column is)
    const ofType = columns.filter((c) => c.systemColumnType === ref.systemColumnType);
    return (ref.title === undefined ? undefined : ofType.find((c) => sameTitle(c.title, ref.title!))) ?? ofType[0];
  }
  return columns.find((c) => sameTitle(c.title, ref.title!) && (ref.type === undefined || c.type === ref.type));
}

function sameTitle(a: string, b: string): boolean {
  return a.trim().toLowerCase() === b.trim().toLowerCase();
}

/** A row of a source sheet as the definition reads it. */
export interface SourceRow {
  cells: StoredRowCells;
  facts: RowFacts;
}

/** One source sheet, compiled: its filter as a test and its sort keys. */
export interface CompiledSource {
  /** The sheet's column for each report column (undefined: the sheet has none; or the Sheet Name column). */
  columns: Array<ColumnDef | undefined>;
  matches(row: SourceRow): boolean;
  sortKeys(row: SourceRow): SortKey[];
}

export function compileSource(def: ReportDefinition, sheetName: string, columns: readonly ColumnDef[], m: MatchContext): CompiledSource {
  const byId = new Map(columns.map((c) => [c.id, c]));
  const sheetNameColumn = probeColumn(SHEET_NAME_ID, 'TEXT_NUMBER');
  byId.set(SHEET_NAME_ID, sheetNameColumn);
  const nameCell: StoredCell = { v: sheetName };
  // a column the sheet lacks reads as blank: a stand-in of the named type with no cells
  let missing = -2;
  const target = (ref: ColumnRef): ColumnDef => {
    if (ref.sheetNameColumn) return sheetNameColumn;
    const found = resolveColumn(ref, columns);
    if (found) return found;
    const probe = probeColumn(missing--, ref.type ?? 'TEXT_NUMBER');
    byId.set(probe.id, probe);
    return probe;
  };
  const cellsOf = (row: SourceRow): Readonly<Record<string, StoredCell>> => ({ ...row.cells, [String(SHEET_NAME_ID)]: nameCell });
  type Test = (cells: Readonly<Record<string, StoredCell>>, facts: RowFacts) => boolean;
  const compile = (f: ReportFilter): Test => {
    const tests: Test[] = f.criteria.map((c) => {
      const col = target(c.column);
      const criterion = { columnId: col.id, operator: c.operator, ...(c.values !== undefined ? { values: c.values } : {}) };
      return (cells, facts) => criterionMatches(criterion, byId, cells, facts, m);
    });
    tests.push(...f.nestedCriteria.map(compile));
    return f.operator === 'OR' ? (cells, facts) => tests.some((t) => t(cells, facts)) : (cells, facts) => tests.every((t) => t(cells, facts));
  };
  const test = def.filters === undefined ? undefined : compile(def.filters);
  const sortCols = (def.sortingCriteria ?? []).map((s) => target(s.column));
  return {
    columns: def.columns.map((c) => (c.sheetNameColumn ? undefined : resolveColumn(c, columns))),
    matches: (row) => (test === undefined ? true : test(cellsOf(row), row.facts)),
    sortKeys: (row) => sortCols.map((col) => {
      if (col.id === SHEET_NAME_ID) return sortKey(col, sheetName);
      const cell = row.cells[String(col.id)];
      const v = col.systemColumnType !== undefined && col.systemColumnType !== 'AUTO_NUMBER' && row.facts.system !== undefined ? systemCellValue(col, row.facts.system, cell) : cell?.v;
      return sortKey(col, v, cell?.f ?? col.format);
    }),
  };
}

/** Orders rows by the definition's sorting criteria (stable: ties keep their order). */
export function compareRows(def: ReportDefinition, a: SortKey[], b: SortKey[]): number {
  const crit = def.sortingCriteria ?? [];
  for (let i = 0; i < crit.length; i++) {
    const c = compareSortKeys(a[i]!, b[i]!, crit[i]!.sortingDirection);
    if (c !== 0) return c;
  }
  return 0;
}
