/**
 * The column model: types, symbols, system columns, and the validation of column definitions
 * written through create sheet, add columns and update column, plus the `level` gate of spec
 * section 9 (version 0 text, 1 MULTI_CONTACT_LIST, 2 MULTI_PICKLIST).
 *
 * Functions here take already-JSON-parsed input (`unknown` fields are checked) and throw the
 * engine error (engine/errors.ts) on the first violated rule.
 */
import { InvalidInput, LimitExceeded, NotFound, NotPermitted } from './errors.ts';
import { validateAutoNumberFormat, type AutoNumberFormat } from './autonumber.ts';
import { isValidEmail } from './contacts.ts';
import { normaliseFormat, isDefaultFormat } from './format.ts';
import { MAX_COLUMNS_PER_SHEET, MAX_COLUMN_TITLE_CHARS } from './limits.ts';

export const COLUMN_TYPES = [
  'ABSTRACT_DATETIME', 'CHECKBOX', 'CONTACT_LIST', 'DATE', 'DATETIME', 'DURATION',
  'MULTI_CONTACT_LIST', 'MULTI_PICKLIST', 'PICKLIST', 'PREDECESSOR', 'TEXT_NUMBER',
] as const;
export type ColumnType = (typeof COLUMN_TYPES)[number];

export const SYSTEM_COLUMN_TYPES = ['AUTO_NUMBER', 'CREATED_BY', 'CREATED_DATE', 'MODIFIED_BY', 'MODIFIED_DATE'] as const;
export type SystemColumnType = (typeof SYSTEM_COLUMN_TYPES)[number];

/** The column type each system column type requires (1079 otherwise). */
export const SYSTEM_COLUMN_TYPE_OF: Record<SystemColumnType, ColumnType> = {
  AUTO_NUMBER: 'TEXT_NUMBER', CREATED_BY: 'CONTACT_LIST', MODIFIED_BY: 'CONTACT_LIST',
  CREATED_DATE: 'DATETIME', MODIFIED_DATE: 'DATETIME',
};

export const CHECKBOX_SYMBOLS = ['FLAG', 'STAR'] as const;
export const PICKLIST_SYMBOLS = [
  'ARROWS_3_WAY', 'ARROWS_4_WAY', 'ARROWS_5_WAY', 'DECISION_SHAPES', 'DECISION_SYMBOLS',
  'DIRECTIONS_3_WAY', 'DIRECTIONS_4_WAY', 'EFFORT', 'HARVEY_BALLS', 'HEARTS', 'MONEY', 'PAIN',
  'PRIORITY', 'PRIORITY_HML', 'PROGRESS', 'RYG', 'RYGB', 'RYGG', 'SIGNAL', 'SKI', 'STAR_RATING',
  'VCR', 'WEATHER',
] as const;

/**
 * Values of the symbol sets, in the order the grid lists them. Used to order symbol columns
 * when sorting (lowest first). Strict parsing does not check values against these: a symbol
 * column without explicit options accepts any string.
 */
export const SYMBOL_VALUES: Partial<Record<string, readonly string[]>> = {
  RYG: ['Red', 'Yellow', 'Green'],
  RYGB: ['Red', 'Yellow', 'Green', 'Blue'],
  RYGG: ['Red', 'Yellow', 'Green', 'Gray'],
  HARVEY_BALLS: ['Empty', 'Quarter', 'Half', 'Three Quarter', 'Full'],
  PROGRESS: ['Empty', 'Quarter', 'Half', 'Three Quarter', 'Full'],
  PRIORITY: ['High', 'Low'],
  PRIORITY_HML: ['High', 'Medium', 'Low'],
  DECISION_SYMBOLS: ['Yes', 'Hold', 'No'],
  DECISION_SHAPES: ['Yes', 'Hold', 'No'],
  ARROWS_3_WAY: ['Up', 'Unchanged', 'Down'],
  ARROWS_4_WAY: ['Up', 'Angle Up', 'Angle Down', 'Down'],
  ARROWS_5_WAY: ['Up', 'Angle Up', 'Unchanged', 'Angle Down', 'Down'],
  DIRECTIONS_3_WAY: ['Up', 'Down', 'Unchanged'],
  DIRECTIONS_4_WAY: ['Up', 'Down', 'Left', 'Right'],
  VCR: ['Stop', 'Pause', 'Play', 'Fast Forward', 'Rewind'],
  SKI: ['Easiest', 'Intermediate', 'Advanced', 'Expert'],
  STAR_RATING: ['One', 'Two', 'Three', 'Four', 'Five'],
};

export interface ContactOption {
  email?: string;
  name?: string;
}

/**
 * A column as stored. `version` is derived from `type` (columnVersion) and kept for
 * convenience; `nextAutoNumber` is the AUTO_NUMBER counter (never presented).
 */
export interface ColumnDef {
  id: number;
  index: number;
  title: string;
  type: ColumnType;
  version: 0 | 1 | 2;
  primary?: boolean;
  hidden?: boolean;
  locked?: boolean;
  width?: number;
  description?: string;
  options?: string[];
  contactOptions?: ContactOption[];
  symbol?: string;
  systemColumnType?: SystemColumnType;
  autoNumberFormat?: AutoNumberFormat;
  nextAutoNumber?: number;
  validation?: boolean;
  format?: string;
  formula?: string;
  tags?: string[];
}

/** A column as written by a client (create sheet, add columns, update column). */
export interface ColumnInput {
  [k: string]: unknown;
  id?: unknown;
  index?: unknown;
  title?: unknown;
  type?: unknown;
  primary?: unknown;
  hidden?: unknown;
  locked?: unknown;
  width?: unknown;
  description?: unknown;
  options?: unknown;
  contactOptions?: unknown;
  symbol?: unknown;
  systemColumnType?: unknown;
  autoNumberFormat?: unknown;
  validation?: unknown;
  format?: unknown;
  formula?: unknown;
}

/** A column definition checked and normalised, not yet given an id. */
export type ValidColumn = Omit<ColumnDef, 'id'>;

export interface ColumnRulesOptions {
  /** Dependencies enabled on the sheet: DURATION, ABSTRACT_DATETIME, PREDECESSOR allowed. */
  projectSheet?: boolean;
  /** The request's `level` query parameter (0 when absent). */
  level?: number;
}

export function columnVersion(type: ColumnType): 0 | 1 | 2 {
  return type === 'MULTI_CONTACT_LIST' ? 1 : type === 'MULTI_PICKLIST' ? 2 : 0;
}

function isColumnType(v: unknown): v is ColumnType {
  return typeof v === 'string' && (COLUMN_TYPES as readonly string[]).includes(v);
}

function isSystemColumnType(v: unknown): v is SystemColumnType {
  return typeof v === 'string' && (SYSTEM_COLUMN_TYPES as readonly string[]).includes(v);
}

function present(v: unknown): boolean {
  return v !== undefined && v !== null;
}

function bool(v: unknown, attr: string): boolean | undefined {
  if (!present(v)) return undefined;
  if (typeof v !== 'boolean') throw new InvalidInput(1031, String(v), attr);
  return v;
}

function title(v: unknown): string {
  if (typeof v !== 'string' || v.trim() === '') throw new InvalidInput(1012, 'title');
  const t = v.trim();
  if (t.length > MAX_COLUMN_TITLE_CHARS) throw new LimitExceeded(1041, 'title', MAX_COLUMN_TITLE_CHARS, t.length);
  return t;
}

function stringArray(v: unknown, attr: string): string[] {
  if (!Array.isArray(v)) throw new InvalidInput(1031, String(v), attr);
  const out: string[] = [];
  for (const x of v) {
    if (x === null) throw new InvalidInput(1176, attr);
    if (typeof x !== 'string' && typeof x !== 'number') throw new InvalidInput(1031, String(x), attr);
    out.push(String(x));
  }
  return out;
}

function contactOptions(v: unknown): ContactOption[] {
  if (!Array.isArray(v)) throw new InvalidInput(1031, String(v), 'contactOptions');
  return v.map((x: unknown) => {
    if (x === null) throw new InvalidInput(1176, 'contactOptions');
    if (typeof x !== 'object' || Array.isArray(x)) throw new InvalidInput(1031, String(x), 'contactOptions');
    const o = x as Record<string, unknown>;
    const c: ContactOption = {};
    if (present(o.email)) {
      if (typeof o.email !== 'string' || !isValidEmail(o.email)) throw new InvalidInput(1156);
      c.email = o.email.trim();
    }
    if (present(o.name)) {
      if (typeof o.name !== 'string') throw new InvalidInput(1031, String(o.name), 'contactOptions.name');
      c.name = o.name;
    }
    if (c.email === undefined && c.name === undefined) throw new InvalidInput(1031, '{}', 'contactOptions');
    return c;
  });
}

const PROJECT_TYPES: readonly ColumnType[] = ['ABSTRACT_DATETIME', 'DURATION', 'PREDECESSOR'];
/** The types whose values column validation restricts (values.ts violatesValidation); 1210 on others. */
const VALIDATED_TYPES: readonly ColumnType[] = ['CHECKBOX', 'CONTACT_LIST', 'DATE', 'MULTI_CONTACT_LIST', 'MULTI_PICKLIST', 'PICKLIST'];

/**
 * The type rules shared by new and updated columns, on the merged definition `c` (existing
 * column with the written attributes applied). `written` says which attributes the request set.
 */
function checkTypeRules(c: ValidColumn, written: ColumnInput, columnRef: string | number, opts: ColumnRulesOptions): void {
  const t = c.type;
  if (c.primary === true && t !== 'TEXT_NUMBER') throw new InvalidInput(1057);
  if (c.primary === true && c.systemColumnType !== undefined) throw new InvalidInput(1078, c.systemColumnType, 'primary column', columnRef);
  if (PROJECT_TYPES.includes(t) && opts.projectSheet !== true && present(written.type)) throw new InvalidInput(1142, t);
  if (c.systemColumnType !== undefined) {
    if (SYSTEM_COLUMN_TYPE_OF[c.systemColumnType] !== t) throw new InvalidInput(1079, t, c.systemColumnType);
  } else if (t === 'DATETIME') {
    throw new InvalidInput(1089);
  }
  if (c.symbol !== undefined) {
    const ok = t === 'CHECKBOX' ? (CHECKBOX_SYMBOLS as readonly string[]).includes(c.symbol)
      : t === 'PICKLIST' ? (PICKLIST_SYMBOLS as readonly string[]).includes(c.symbol) : false;
    if (!ok) throw new InvalidInput(1058, c.symbol, t);
    if (present(written.options) && c.options !== undefined && c.options.length > 0) throw new InvalidInput(1059);
  }
  if (c.options !== undefined && c.options.length > 0 && t !== 'PICKLIST' && t !== 'MULTI_PICKLIST') throw new InvalidInput(1060, t);
  if (c.contactOptions !== undefined && c.contactOptions.length > 0 && t !== 'CONTACT_LIST' && t !== 'MULTI_CONTACT_LIST') throw new InvalidInput(1060, t);
  if (c.autoNumberFormat !== undefined && c.systemColumnType !== 'AUTO_NUMBER') throw new InvalidInput(1083, columnRef);
  if (c.validation === true && (!VALIDATED_TYPES.includes(t) || c.systemColumnType !== undefined)) throw new InvalidInput(1210, c.systemColumnType ?? t);
}

/** Read the attributes common to add and update into `c` (mutates and returns it). */
function applyAttributes(c: ValidColumn, v: ColumnInput): ValidColumn {
  if (present(v.title)) c.title = title(v.title);
  if (present(v.type)) {
    if (!isColumnType(v.type)) throw new InvalidInput(1031, String(v.type), 'type');
    c.type = v.type;
    c.version = columnVersion(v.type);
  }
  if (present(v.primary)) c.primary = bool(v.primary, 'primary') === true ? true : undefined;
  const hidden = bool(v.hidden, 'hidden');
  if (hidden !== undefined) c.hidden = hidden;
  const locked = bool(v.locked, 'locked');
  if (locked !== undefined) c.locked = locked;
  const validation = bool(v.validation, 'validation');
  if (validation !== undefined) c.validation = validation;
  if (present(v.width)) {
    if (typeof v.width !== 'number' || !Number.isFinite(v.width) || v.width < 0) throw new InvalidInput(1031, String(v.width), 'width');
    c.width = Math.round(v.width);
  }
  if (v.description !== undefined) {
    if (v.description === null || v.description === '') delete c.description;
    else if (typeof v.description !== 'string') throw new InvalidInput(1031, String(v.description), 'description');
    else c.description = v.description;
  }
  if (v.options !== undefined) {
    if (v.options === null) delete c.options;
    else c.options = stringArray(v.options, 'options');
  }
  if (v.contactOptions !== undefined) {
    if (v.contactOptions === null) delete c.contactOptions;
    else c.contactOptions = contactOptions(v.contactOptions);
  }
  if (v.symbol !== undefined) {
    if (v.symbol === null) delete c.symbol;
    else if (typeof v.symbol !== 'string') throw new InvalidInput(1031, String(v.symbol), 'symbol');
    else c.symbol = v.symbol;
  }
  if (v.systemColumnType !== undefined) {
    if (v.systemColumnType === null) delete c.systemColumnType;
    else if (!isSystemColumnType(v.systemColumnType)) throw new InvalidInput(1031, String(v.systemColumnType), 'systemColumnType');
    else c.systemColumnType = v.systemColumnType;
  }
  if (v.autoNumberFormat !== undefined) {
    if (v.autoNumberFormat === null) delete c.autoNumberFormat;
    else c.autoNumberFormat = validateAutoNumberFormat(v.autoNumberFormat);
  }
  if (v.format !== undefined) {
    if (v.format === null || (typeof v.format === 'string' && isDefaultFormat(v.format))) delete c.format;
    else c.format = normaliseFormat(v.format);
  }
  if (v.formula !== undefined) {
    if (v.formula === null || v.formula === '') delete c.formula;
    // blanks before the equal sign are not part of it (the public service takes " = TODAY()")
    else if (typeof v.formula !== 'string' || !v.formula.trimStart().startsWith('=')) throw new InvalidInput(1162);
    else c.formula = v.formula.trimStart();
  }
  if (c.primary === undefined) delete c.primary;
  return c;
}

function index(v: unknown, max: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > max) throw new InvalidInput(1031, String(v), 'index');
  return v;
}

/**
 * Create sheet: validate the full column list of a new sheet. Exactly one primary
 * TEXT_NUMBER column (1055, 1057); titles unique among the input (1133); system column types
 * unique among the input (1134); per-column type rules. Indexes are the array order.
 */
export function validateNewSheetColumns(inputs: readonly ColumnInput[], opts: ColumnRulesOptions = {}): ValidColumn[] {
  if (inputs.length === 0) throw new InvalidInput(1054);
  if (inputs.length > MAX_COLUMNS_PER_SHEET) throw new LimitExceeded(1061, 'columns');
  const out = inputs.map((v, i) => newColumn(v, i, opts, true));
  if (out.filter((c) => c.primary === true).length !== 1) throw new InvalidInput(1055);
  uniqueAmongInputs(out);
  return out;
}

/**
 * Add columns: validate columns inserted into an existing sheet. All inputs share one index
 * (1135), within 0..columns.length; titles unique against the sheet (1056) and among inputs
 * (1133); system column types likewise (1077, 1134); no new primary (1055). Returns the new
 * definitions with their final indexes (inputs inserted in order at the shared index).
 */
export function validateAddColumns(existing: readonly ColumnDef[], inputs: readonly ColumnInput[], opts: ColumnRulesOptions = {}): ValidColumn[] {
  if (inputs.length === 0) throw new InvalidInput(1012, 'columns');
  if (existing.length + inputs.length > MAX_COLUMNS_PER_SHEET) throw new LimitExceeded(1061, 'columns');
  const first = inputs[0]!.index;
  if (!present(first)) throw new InvalidInput(1012, 'index');
  const at = index(first, existing.length);
  for (const v of inputs) {
    if (!present(v.index)) throw new InvalidInput(1012, 'index');
    if (v.index !== first) throw new InvalidInput(1135, String(v.index), String(first));
  }
  const out = inputs.map((v, i) => newColumn(v, at + i, opts, false));
  if (out.some((c) => c.primary === true)) throw new InvalidInput(1055);
  const titles = new Set(existing.map((c) => c.title));
  const systems = new Set(existing.map((c) => c.systemColumnType).filter((s) => s !== undefined));
  for (const c of out) {
    if (titles.has(c.title)) throw new InvalidInput(1056);
    if (c.systemColumnType !== undefined && systems.has(c.systemColumnType)) throw new InvalidInput(1077, c.systemColumnType);
  }
  uniqueAmongInputs(out);
  return out;
}

function uniqueAmongInputs(cols: readonly ValidColumn[]): void {
  const titles = new Set<string>();
  const systems = new Set<string>();
  for (const c of cols) {
    if (titles.has(c.title)) throw new InvalidInput(1133);
    titles.add(c.title);
    if (c.systemColumnType !== undefined) {
      if (systems.has(c.systemColumnType)) throw new InvalidInput(1134);
      systems.add(c.systemColumnType);
    }
  }
}

function newColumn(v: ColumnInput, idx: number, opts: ColumnRulesOptions, inNewSheet: boolean): ValidColumn {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new InvalidInput(1008, 'column must be an object');
  if (!present(v.title)) throw new InvalidInput(1012, 'title');
  if (!present(v.type)) throw new InvalidInput(1012, 'type');
  const c = applyAttributes({ index: idx, title: '', type: 'TEXT_NUMBER', version: 0 }, v);
  if (!inNewSheet) delete c.primary;
  if (present(v.primary) && v.primary === true && !inNewSheet) c.primary = true;
  checkTypeRules(c, v, c.title, opts);
  if (c.systemColumnType === 'AUTO_NUMBER' && c.autoNumberFormat === undefined) c.autoNumberFormat = {};
  return c;
}

/** What an update changed, for the service to act on (value conversion, moving). */
export interface ColumnUpdate {
  column: ColumnDef;
  typeChanged: boolean;
  moved: boolean;
}

/**
 * Update column: validate a change to `existing.find(id)`. Rules: 1239 when the column's
 * version is above the request level; 1090 when symbol, systemColumnType or options change
 * without `type` (1082 instead when options are written to a non-picklist column); primary
 * cannot change or be retyped (1055, 1057); title unique (1056); system column type unique
 * (1077); index within the sheet (1031); the type rules of new columns. A type change clears
 * `validation` unless written with it (and options/symbol that the new type does not take are dropped).
 */
export function validateColumnUpdate(existing: readonly ColumnDef[], columnId: number, v: ColumnInput, opts: ColumnRulesOptions = {}): ColumnUpdate {
  const old = existing.find((c) => c.id === columnId);
  if (old === undefined) throw new NotFound(1006);
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new InvalidInput(1008, 'column must be an object');
  assertColumnLevel(old, opts.level);
  if (present(v.id) && v.id !== columnId) throw new InvalidInput(1029);
  const typeWritten = present(v.type);
  if (!typeWritten) {
    if (present(v.options) && old.type !== 'PICKLIST' && old.type !== 'MULTI_PICKLIST') throw new InvalidInput(1082, columnId);
    if (v.symbol !== undefined || v.systemColumnType !== undefined || v.options !== undefined) throw new InvalidInput(1090);
  }
  if (present(v.primary) && (v.primary === true) !== (old.primary === true)) throw new InvalidInput(1055);
  const c: ColumnDef = structuredClone(old);
  applyAttributes(c, { ...v, primary: undefined });
  if (old.primary === true) c.primary = true;
  const typeChanged = c.type !== old.type;
  if (typeChanged) {
    if (!present(v.validation)) delete c.validation;
    if (c.type !== 'PICKLIST' && c.type !== 'MULTI_PICKLIST' && !present(v.options)) delete c.options;
    if (c.type !== 'CONTACT_LIST' && c.type !== 'MULTI_CONTACT_LIST' && !present(v.contactOptions)) delete c.contactOptions;
    if (!present(v.symbol)) delete c.symbol;
    if (!present(v.systemColumnType)) delete c.systemColumnType;
  }
  if (typeWritten && old.systemColumnType !== undefined && v.systemColumnType === undefined && typeChanged) delete c.systemColumnType;
  if (c.systemColumnType !== 'AUTO_NUMBER' && v.autoNumberFormat === undefined) delete c.autoNumberFormat;
  if (c.systemColumnType === 'AUTO_NUMBER' && c.autoNumberFormat === undefined) c.autoNumberFormat = {};
  checkTypeRules(c, v, columnId, opts);
  if (c.title !== old.title && existing.some((o) => o.id !== columnId && o.title === c.title)) throw new InvalidInput(1056);
  if (c.systemColumnType !== undefined && c.systemColumnType !== old.systemColumnType
    && existing.some((o) => o.id !== columnId && o.systemColumnType === c.systemColumnType)) throw new InvalidInput(1077, c.systemColumnType);
  let moved = false;
  if (present(v.index)) {
    c.index = index(v.index, existing.length - 1);
    moved = c.index !== old.index;
  }
  return { column: c, typeChanged, moved };
}

/**
 * Column order after inserting new columns at `at` or moving one: returns ids in index order.
 * Services renumber `index` from the result.
 */
export function insertColumnIds(orderedIds: readonly number[], at: number, ids: readonly number[]): number[] {
  const out = orderedIds.filter((id) => !ids.includes(id));
  out.splice(Math.min(at, out.length), 0, ...ids);
  return out;
}

/** Delete column checks: the primary column (1065) and the last visible column (1260). */
export function assertColumnDeletable(columns: readonly ColumnDef[], columnId: number): void {
  const c = columns.find((x) => x.id === columnId);
  if (c === undefined) throw new NotFound(1006);
  if (c.primary === true) throw new InvalidInput(1065);
  if (c.hidden !== true && !columns.some((x) => x.id !== columnId && x.hidden !== true)) throw new InvalidInput(1260);
}

/** 1039: a locked column can be edited (cells or definition) only by sheet admins/owners. */
export function assertColumnEditable(column: ColumnDef, isSheetAdmin: boolean): void {
  if (column.locked === true && !isSheetAdmin) throw new NotPermitted(1039, column.id);
}

/**
 * 1239: a client that asks for an older `level` than the column's version sees the column as
 * TEXT_NUMBER and must not redefine it, nor write plain values into it.
 */
export function assertColumnLevel(column: ColumnDef, level: number | undefined): void {
  if (column.version > (level ?? 0)) throw new InvalidInput(1239);
}

/** The type a client at `level` sees: MULTI_* read as TEXT_NUMBER below their version. */
export function typeAtLevel(column: Pick<ColumnDef, 'type' | 'version'>, level: number | undefined): ColumnType {
  return column.version > (level ?? 0) ? 'TEXT_NUMBER' : column.type;
}

export interface PresentColumnOptions {
  level?: number;
  /** include=format */
  includeFormat?: boolean;
  /** Requesting user cannot edit locked columns (adds lockedForUser). */
  isSheetAdmin?: boolean;
}

/** The API Column object. */
export interface ApiColumn {
  id: number;
  version: number;
  index: number;
  title: string;
  type: ColumnType;
  primary?: boolean;
  hidden: boolean;
  locked?: boolean;
  lockedForUser?: boolean;
  width: number;
  validation: boolean;
  description?: string;
  options?: string[];
  contactOptions?: ContactOption[];
  symbol?: string;
  systemColumnType?: SystemColumnType;
  autoNumberFormat?: AutoNumberFormat;
  format?: string;
  formula?: string;
  tags?: string[];
}

export const DEFAULT_COLUMN_WIDTH = 150;

/** Present a column for a client at `level` (spec 9): MULTI_* below their version read as TEXT_NUMBER. */
export function presentColumn(c: ColumnDef, opts: PresentColumnOptions = {}): ApiColumn {
  const type = typeAtLevel(c, opts.level);
  const degraded = type !== c.type;
  const out: ApiColumn = {
    id: c.id, version: c.version, index: c.index, title: c.title, type,
    hidden: c.hidden === true, width: c.width ?? DEFAULT_COLUMN_WIDTH, validation: c.validation === true,
  };
  if (c.primary === true) out.primary = true;
  if (c.locked === true) {
    out.locked = true;
    out.lockedForUser = opts.isSheetAdmin !== true;
  }
  if (c.description !== undefined) out.description = c.description;
  if (!degraded && c.options !== undefined && c.options.length > 0) out.options = [...c.options];
  if (!degraded && c.contactOptions !== undefined && c.contactOptions.length > 0) out.contactOptions = c.contactOptions.map((o) => ({ ...o }));
  if (c.symbol !== undefined) out.symbol = c.symbol;
  if (c.systemColumnType !== undefined) out.systemColumnType = c.systemColumnType;
  if (c.autoNumberFormat !== undefined) out.autoNumberFormat = { ...c.autoNumberFormat };
  if (opts.includeFormat === true && c.format !== undefined && !isDefaultFormat(c.format)) out.format = c.format;
  if (c.formula !== undefined) out.formula = c.formula;
  if (c.tags !== undefined && c.tags.length > 0) out.tags = [...c.tags];
  return out;
}

/** True for columns whose cells the system fills (1046 on write). */
export function isSystemColumn(c: Pick<ColumnDef, 'systemColumnType'>): boolean {
  return c.systemColumnType !== undefined;
}
