/**
 * Writing cells: turn a Cell object of an add/update rows request into the stored form, by
 * column type, with the strict/lenient rules of the public service, the hyperlink, cell link
 * and image rules, and the column validation / overrideValidation rules.
 *
 * Strict (default): a value that does not fit the column type is 1042 ("Cell value in column
 * {columnId}, {value}, violates strict requirements of type {type}"). Lenient (strict=false):
 * formatted numbers, loose dates and the like are recognised; anything else is kept as text.
 */
import { bodyId, isObject } from './input.ts';
import { InvalidInput, LimitExceeded, NotFound, NotPermitted } from './errors.ts';
import type { CellLinkStatus, StoredCell, StoredCellLink, StoredHyperlink, StoredImage, StoredRowCells, StoredValue } from './cells.ts';
import { CELL_LINK_STATUSES, cellHasData, cellKey, cellsObject, isEmptyCell, markFreshCells } from './cells.ts';
import { assertColumnEditable, assertColumnLevel, type ColumnDef } from './columns.ts';
import { isValidEmail, normaliseEmail, resolveContactName, type StoredContact } from './contacts.ts';
import { dayOfEpochMs, dayToEpochMs, parseIsoDateTime, parseIsoDay, parseLenientDay } from './dates.ts';
import { durationFromDays, normaliseDurationObject, parseDuration } from './duration.ts';
import { formatForWrittenCell, mergeFormats, normaliseFormat, storedFormat } from './format.ts';
import { MAX_ALT_TEXT_CHARS, MAX_CELL_CHARS, MAX_CELL_NUMBER, MAX_CONTACTS_PER_CELL, MAX_MULTI_PICKLIST_VALUES, MIN_CELL_NUMBER } from './limits.ts';
import { inCellNumberRange, parseLenientNumber } from './numbers.ts';
import { parsePredecessorObject, parsePredecessorText } from './predecessors.ts';

/** A Cell object as written by a client (JSON-parsed, unchecked). */
export interface CellInput {
  [k: string]: unknown;
  columnId?: unknown;
  value?: unknown;
  objectValue?: unknown;
  displayValue?: unknown;
  strict?: unknown;
  overrideValidation?: unknown;
  hyperlink?: unknown;
  linkInFromCell?: unknown;
  image?: unknown;
  formula?: unknown;
  format?: unknown;
}

/** What the engine needs to know about the request and the sheet to parse a cell. */
export interface CellWriteContext {
  /** numericDates=true: dates are written as epoch milliseconds. */
  numericDates?: boolean;
  /** The request's `level` (spec 9); plain values into MULTI_* columns need it (1239). */
  level?: number;
  /** The caller is a sheet admin/owner: may edit locked columns, may override validation. */
  isSheetAdmin?: boolean;
  /** Query parameter overrideValidation=true (applies to every cell of the request). */
  overrideValidation?: boolean;
  /** Adding a new row: linkInFromCell is not allowed there (1032). */
  isNewRow?: boolean;
  /** Id of the sheet being written (a cell cannot link in from its own sheet: 1116). */
  sheetId?: number;
  /** Row being written (for messages such as 1161). */
  rowId?: number;
  /** Images in cells allowed by the organisation (default true; 1164 otherwise). */
  imagesEnabled?: boolean;
  /** An image of the sheet by id (its size), undefined when the sheet has no such image (1006). */
  imageInfo?: (id: string) => { width: number; height: number } | undefined;
  /** Row number -> row id of the sheet, to read predecessor text "12FS +2d". */
  rowIdOfNumber?: (rowNumber: number) => number | undefined;
  /** Best-guess contact name for an email (caller's contacts, users, column contactOptions). */
  lookupContactName?: (email: string) => string | undefined;
  /**
   * Resolve a hyperlink target; undefined when it does not exist or is not visible (1114).
   * Its name becomes the value of a hyperlink cell written without a value.
   */
  hyperlinkTarget?: (kind: 'sheet' | 'report' | 'sight', id: number) => { name: string; permalink?: string } | undefined;
  /** Baseline formats (spec 1.1 rule 3) applied when a blank cell receives a value. */
  rowFormat?: string;
  columnFormat?: string;
}

export interface ParsedCell {
  columnId: number;
  /** The cell after the write (merged with the existing cell); undefined when it became empty. */
  cell: StoredCell | undefined;
  /** The write touched a cell link (the 1115 rule is about mixing these with value writes). */
  linkWrite: boolean;
}

function present(v: unknown): boolean {
  return v !== undefined && v !== null;
}

function strictError(column: ColumnDef, value: unknown): never {
  throw new InvalidInput(1042, column.id, typeof value === 'object' ? JSON.stringify(value) : String(value), column.type);
}

function truncate(s: string): string {
  return s.length > MAX_CELL_CHARS ? s.slice(0, MAX_CELL_CHARS) : s;
}

/** Free text in a cell (lenient fallback); an empty string is a blank cell. */
function text(s: string): StoredValue | undefined {
  const t = truncate(s);
  return t === '' ? undefined : t;
}

function numberText(n: number): string {
  return String(n);
}

/** Result of parsing a value: the stored value plus a format implied by lenient parsing. */
interface ValueResult {
  v: StoredValue | undefined;
  impliedFormat?: string;
}

const OBJECT_TYPES_BY_COLUMN: Record<string, readonly string[]> = {
  CONTACT_LIST: ['CONTACT'],
  MULTI_CONTACT_LIST: ['MULTI_CONTACT', 'CONTACT'],
  MULTI_PICKLIST: ['MULTI_PICKLIST'],
  PREDECESSOR: ['PREDECESSOR_LIST'],
  DURATION: ['DURATION'],
  DATE: ['DATE'],
  ABSTRACT_DATETIME: ['ABSTRACT_DATETIME', 'DATE', 'DATETIME'],
};

/** Hours added to a bare day written to an ABSTRACT_DATETIME (project) cell: start of a working day. */
export const PROJECT_DAY_START_HOUR = 8;

/** A day written to a project date: the start of its working day (epoch ms, read as UTC). */
export function projectDayStart(day: string): number {
  return dayToEpochMs(day) + PROJECT_DAY_START_HOUR * 3_600_000;
}

// ---------------------------------------------------------------------------------------
// Per-type value parsing

function parseNumberValue(column: ColumnDef, n: number, strict: boolean): ValueResult {
  if (!Number.isFinite(n) || !inCellNumberRange(n)) {
    if (strict) throw new InvalidInput(1148, MIN_CELL_NUMBER, MAX_CELL_NUMBER);
    return { v: text(numberText(n)) };
  }
  void column;
  return { v: n };
}

function parseTextNumber(column: ColumnDef, x: string | number | boolean, strict: boolean): ValueResult {
  if (typeof x === 'number') return parseNumberValue(column, x, strict);
  if (typeof x === 'boolean') return { v: String(x) };
  if (!strict) {
    const n = parseLenientNumber(x);
    if (n !== null && inCellNumberRange(n.value)) return n.format === undefined ? { v: n.value } : { v: n.value, impliedFormat: n.format };
  }
  return { v: text(x) };
}

function parsePicklist(column: ColumnDef, x: string | number | boolean, strict: boolean): ValueResult {
  const options = column.options ?? [];
  if (strict) {
    if (typeof x === 'boolean') strictError(column, x);
    const s = typeof x === 'number' ? numberText(x) : x;
    if (s === '') return { v: undefined };
    // A column without options (e.g. a symbol column) takes any string.
    if (options.length > 0 && !options.includes(s)) strictError(column, x);
    if (typeof x === 'number') return parseNumberValue(column, x, true);
    return { v: text(s) };
  }
  if (typeof x === 'string' && options.includes(x)) return { v: text(x) };
  return parseTextNumber(column, x, false);
}

function parseCheckbox(column: ColumnDef, x: string | number | boolean, strict: boolean): ValueResult {
  if (typeof x === 'boolean') return { v: x };
  // an empty string clears the box: unchecked (the SDKs' shared scenario "Update Rows - Clear
  // Value - Checkbox" sends it and reads false)
  if (typeof x === 'string' && x.trim() === '') return { v: false };
  if (strict) strictError(column, x);
  if (typeof x === 'string') {
    const l = x.trim().toLowerCase();
    if (l === 'true') return { v: true };
    if (l === 'false') return { v: false };
    return { v: text(x) };
  }
  return { v: text(numberText(x)) };
}

function parseDate(column: ColumnDef, x: string | number | boolean, strict: boolean, ctx: CellWriteContext): ValueResult {
  if (typeof x === 'number' && ctx.numericDates === true) {
    const day = dayOfEpochMs(x);
    if (day !== null) return { v: { d: day } };
    if (strict) strictError(column, x);
    return { v: text(numberText(x)) };
  }
  if (typeof x === 'string') {
    if (x.trim() === '') return { v: undefined };
    const day = strict ? parseIsoDay(x) : parseLenientDay(x);
    if (day !== null) return { v: { d: day } };
  }
  if (strict) strictError(column, x);
  return { v: text(String(x)) };
}

function parseAbstractDateTime(column: ColumnDef, x: string | number | boolean, strict: boolean, ctx: CellWriteContext): ValueResult {
  if (typeof x === 'number' && ctx.numericDates === true && Number.isFinite(x) && dayOfEpochMs(x) !== null) return { v: { t: x } };
  if (typeof x === 'string') {
    const s = x.trim();
    if (s === '') return { v: undefined };
    const bare = /^\d{4}-\d{2}-\d{2}$/.test(s);
    let ms = parseIsoDateTime(s);
    if (ms !== null && bare) ms += PROJECT_DAY_START_HOUR * 3_600_000;
    if (ms === null && !strict) {
      const day = parseLenientDay(s);
      if (day !== null) ms = projectDayStart(day);
    }
    if (ms !== null) return { v: { t: ms } };
  }
  if (strict) strictError(column, x);
  return { v: text(String(x)) };
}

function parseContactValue(column: ColumnDef, x: string | number | boolean, strict: boolean, input: CellInput, ctx: CellWriteContext): ValueResult {
  if (typeof x === 'string' && x.trim() === '') return { v: undefined };
  if (typeof x === 'string' && isValidEmail(x)) {
    const email = normaliseEmail(x);
    const c: StoredContact = { email };
    const name = resolveContactName(email, input.displayValue, contactNameLookup(column, ctx));
    if (name !== undefined) c.name = truncate(name);
    return { v: { c } };
  }
  if (strict) strictError(column, x);
  return { v: text(String(x)) };
}

/** A contact's name for an address given without one: the column's contact options first, then the writer's lookup (the organization's users). */
function contactNameLookup(column: ColumnDef, ctx: CellWriteContext): (email: string) => string | undefined {
  return (email) => column.contactOptions?.find((o) => o.email?.toLowerCase() === email.toLowerCase())?.name ?? ctx.lookupContactName?.(email);
}

function parseContactObject(column: ColumnDef, o: Record<string, unknown>, ctx: CellWriteContext): StoredContact {
  const email = o.email;
  if (typeof email !== 'string' || !isValidEmail(email)) strictError(column, o);
  const c: StoredContact = { email: normaliseEmail(email) };
  if (present(o.name)) {
    if (typeof o.name !== 'string') throw new InvalidInput(1241);
    if (o.name !== '') c.name = truncate(o.name);
  } else {
    const found = (contactNameLookup(column, ctx))(c.email);
    if (found !== undefined && found !== '') c.name = found;
  }
  return c;
}

function parseDurationValue(column: ColumnDef, x: string | number | boolean, strict: boolean): ValueResult {
  if (typeof x === 'string') {
    if (x.trim() === '') return { v: undefined };
    const d = parseDuration(x);
    if (d !== null) return { v: { du: d } };
  }
  if (strict) strictError(column, x);
  if (typeof x === 'number' && Number.isFinite(x) && x >= 0) return { v: { du: durationFromDays(x) } };
  return { v: text(String(x)) };
}

function parsePredecessorValue(column: ColumnDef, x: string | number | boolean, strict: boolean, ctx: CellWriteContext): ValueResult {
  const s = typeof x === 'string' ? x : String(x);
  if (s.trim() === '') return { v: undefined };
  const list = typeof x === 'boolean' ? null : parsePredecessorText(s, ctx.rowIdOfNumber ?? (() => undefined));
  if (list !== null) return { v: list.length === 0 ? undefined : { p: list } };
  if (strict) strictError(column, x);
  return { v: text(s) };
}

function parseMultiPicklistValue(column: ColumnDef, x: string | number | boolean, strict: boolean): ValueResult {
  const s = typeof x === 'string' ? x : String(x);
  if (s.trim() === '') return { v: undefined };
  const options = column.options ?? [];
  if (options.length === 0 || options.includes(s)) return { v: { mp: [truncate(s)] } };
  if (strict) strictError(column, x);
  return { v: text(s) };
}

function parseMultiContactValue(column: ColumnDef, x: string | number | boolean, strict: boolean, ctx: CellWriteContext): ValueResult {
  const s = typeof x === 'string' ? x : String(x);
  if (s.trim() === '') return { v: undefined };
  const parts = s.split(/[,;]/).map((p) => p.trim()).filter((p) => p !== '');
  if (parts.length > 0 && parts.every(isValidEmail)) {
    if (parts.length > MAX_CONTACTS_PER_CELL) throw new LimitExceeded(1240);
    const lookup = contactNameLookup(column, ctx);
    return {
      v: {
        mc: parts.map((e) => {
          const c: StoredContact = { email: normaliseEmail(e) };
          const n = lookup(c.email);
          if (n !== undefined && n !== '') c.name = n;
          return c;
        }),
      },
    };
  }
  if (strict) strictError(column, x);
  return { v: text(s) };
}

function parsePrimitive(column: ColumnDef, x: string | number | boolean, strict: boolean, input: CellInput, ctx: CellWriteContext): ValueResult {
  const xs = typeof x === 'string' ? truncate(x) : x;
  switch (column.type) {
    case 'TEXT_NUMBER': return parseTextNumber(column, xs, strict);
    case 'PICKLIST': return parsePicklist(column, xs, strict);
    case 'CHECKBOX': return parseCheckbox(column, xs, strict);
    case 'DATE': return parseDate(column, xs, strict, ctx);
    case 'ABSTRACT_DATETIME': return parseAbstractDateTime(column, xs, strict, ctx);
    case 'DATETIME': throw new InvalidInput(1046, column.id);
    case 'CONTACT_LIST': return parseContactValue(column, xs, strict, input, ctx);
    case 'DURATION': return parseDurationValue(column, xs, strict);
    case 'PREDECESSOR': return parsePredecessorValue(column, xs, strict, ctx);
    case 'MULTI_PICKLIST': return parseMultiPicklistValue(column, xs, strict);
    case 'MULTI_CONTACT_LIST': return parseMultiContactValue(column, xs, strict, ctx);
  }
}

function wrongObjectType(column: ColumnDef): never {
  throw new InvalidInput(1131, 'objectValue', column.id, (OBJECT_TYPES_BY_COLUMN[column.type] ?? []).join(', ') || 'string, number, boolean');
}

function parseObjectValue(column: ColumnDef, ov: unknown, strict: boolean, input: CellInput, ctx: CellWriteContext): ValueResult {
  if (typeof ov === 'string' || typeof ov === 'number' || typeof ov === 'boolean') return parsePrimitive(column, ov, strict, input, ctx);
  if (!isObject(ov)) throw new InvalidInput(1038);
  const allowed = OBJECT_TYPES_BY_COLUMN[column.type] ?? [];
  const ot = ov.objectType;
  if (typeof ot !== 'string' || !allowed.includes(ot)) wrongObjectType(column);
  switch (ot) {
    case 'CONTACT': {
      const c = parseContactObject(column, ov, ctx);
      return { v: column.type === 'MULTI_CONTACT_LIST' ? { mc: [c] } : { c } };
    }
    case 'MULTI_CONTACT': {
      const values = ov.values;
      if (!Array.isArray(values)) throw new InvalidInput(1012, 'objectValue.values');
      if (values.length > MAX_CONTACTS_PER_CELL) throw new LimitExceeded(1240);
      if (values.length === 0) return { v: undefined };
      return {
        v: {
          mc: values.map((x: unknown) => {
            if (x === null) throw new InvalidInput(1177);
            if (!isObject(x)) strictError(column, x);
            if (x.objectType !== undefined && x.objectType !== 'CONTACT') wrongObjectType(column);
            return parseContactObject(column, x, ctx);
          }),
        },
      };
    }
    case 'MULTI_PICKLIST': {
      const values = ov.values;
      if (!Array.isArray(values)) throw new InvalidInput(1012, 'objectValue.values');
      if (values.length > MAX_MULTI_PICKLIST_VALUES) throw new InvalidInput(1277);
      if (values.length === 0) return { v: undefined };
      const out: string[] = [];
      for (const x of values as unknown[]) {
        if (x === null) throw new InvalidInput(1177);
        if (typeof x !== 'string' && typeof x !== 'number') strictError(column, x);
        const s = truncate(String(x));
        if (!out.includes(s)) out.push(s);
      }
      return { v: { mp: out } };
    }
    case 'PREDECESSOR_LIST': {
      const list = parsePredecessorObject(ov);
      if (list === null) throw new InvalidInput(1031, JSON.stringify(ov), 'objectValue');
      return { v: list.length === 0 ? undefined : { p: list } };
    }
    case 'DURATION': {
      const d = normaliseDurationObject(ov);
      if (d === null) throw new InvalidInput(1031, JSON.stringify(ov), 'objectValue');
      return { v: { du: d } };
    }
    default: {
      // DATE / DATETIME / ABSTRACT_DATETIME objects carry their `value`.
      const x = ov.value;
      if (typeof x !== 'string' && typeof x !== 'number') throw new InvalidInput(1012, 'objectValue.value');
      return column.type === 'DATE' ? parseDate(column, x, true, ctx) : parseAbstractDateTime(column, x, true, ctx);
    }
  }
}

// ---------------------------------------------------------------------------------------
// Column validation (column.validation = true)

function violatesValidation(column: ColumnDef, v: StoredValue | undefined): boolean {
  if (column.validation !== true || v === undefined) return false;
  switch (column.type) {
    case 'PICKLIST': {
      const opts = column.options ?? [];
      return opts.length > 0 && !opts.includes(typeof v === 'number' ? String(v) : typeof v === 'string' ? v : '\u0000');
    }
    case 'MULTI_PICKLIST': {
      const opts = column.options ?? [];
      if (typeof v !== 'object' || !('mp' in v)) return true;
      return opts.length > 0 && v.mp.some((x) => !opts.includes(x));
    }
    case 'CONTACT_LIST': {
      if (typeof v !== 'object' || !('c' in v)) return true;
      const opts = column.contactOptions ?? [];
      const email = v.c.email.toLowerCase();
      return opts.length > 0 && !opts.some((o) => o.email?.toLowerCase() === email);
    }
    case 'MULTI_CONTACT_LIST': {
      if (typeof v !== 'object' || !('mc' in v)) return true;
      const opts = column.contactOptions ?? [];
      return opts.length > 0 && v.mc.some((c) => !opts.some((o) => o.email?.toLowerCase() === c.email.toLowerCase()));
    }
    case 'DATE': return typeof v !== 'object' || !('d' in v);
    case 'CHECKBOX': return typeof v !== 'boolean';
    default: return false;
  }
}

// ---------------------------------------------------------------------------------------
// Hyperlinks, cell links, images

function parseHyperlink(h: unknown, value: unknown, ctx: CellWriteContext): { h: StoredHyperlink; derivedValue?: string } {
  if (!isObject(h)) throw new InvalidInput(1031, String(h), 'hyperlink');
  const ids: ['sheet' | 'report' | 'sight', number][] = [];
  for (const [kind, key] of [['sheet', 'sheetId'], ['report', 'reportId'], ['sight', 'sightId']] as const) {
    const x = h[key];
    if (!present(x)) continue;
    ids.push([kind, bodyId(x, `hyperlink.${key}`)]);
  }
  if (ids.length > 1) throw new InvalidInput(1111);
  const url = h.url;
  if (present(url) && typeof url !== 'string') throw new InvalidInput(1031, String(url), 'hyperlink.url');
  if (ids.length === 1 && present(url)) throw new InvalidInput(1112);
  if (ids.length === 0 && (!present(url) || url === '')) throw new InvalidInput(1117);
  if (present(value) && typeof value !== 'string') throw new InvalidInput(1113);
  if (ids.length === 0) return { h: { url: url as string }, derivedValue: url as string };
  const [kind, id] = ids[0]!;
  const target = ctx.hyperlinkTarget?.(kind, id);
  if (ctx.hyperlinkTarget !== undefined && target === undefined) throw new NotFound(1114, id);
  const out: StoredHyperlink = kind === 'sheet' ? { sheetId: id } : kind === 'report' ? { reportId: id } : { sightId: id };
  if (target?.permalink !== undefined) out.url = target.permalink;
  return target === undefined ? { h: out } : { h: out, derivedValue: target.name };
}

function parseCellLink(l: unknown, ctx: CellWriteContext): StoredCellLink {
  if (ctx.isNewRow === true) throw new InvalidInput(1032, 'linkInFromCell');
  if (!isObject(l)) throw new InvalidInput(1031, String(l), 'linkInFromCell');
  const out: Partial<StoredCellLink> = {};
  for (const k of ['sheetId', 'rowId', 'columnId'] as const) {
    const x = l[k];
    if (!present(x)) throw new InvalidInput(1012, `linkInFromCell.${k}`);
    out[k] = bodyId(x, `linkInFromCell.${k}`);
  }
  if (ctx.sheetId !== undefined && out.sheetId === ctx.sheetId) throw new InvalidInput(1116);
  const status = l.status;
  const link: StoredCellLink = { sheetId: out.sheetId!, rowId: out.rowId!, columnId: out.columnId!, status: 'OK' };
  if (typeof status === 'string' && (CELL_LINK_STATUSES as readonly string[]).includes(status)) link.status = status as CellLinkStatus;
  return link;
}

function parseImage(img: unknown, existing: StoredCell | undefined, column: ColumnDef, ctx: CellWriteContext): StoredImage {
  if (ctx.imagesEnabled === false) throw new InvalidInput(1164);
  if (!isObject(img)) throw new InvalidInput(1031, String(img), 'image');
  const alt = img.altText;
  if (present(alt) && typeof alt !== 'string') throw new InvalidInput(1031, String(alt), 'image.altText');
  if (typeof alt === 'string' && alt.length > MAX_ALT_TEXT_CHARS) throw new LimitExceeded(1165);
  const id = img.id;
  if (present(id) && typeof id !== 'string') throw new InvalidInput(1031, String(id), 'image.id');
  const isNew = typeof id === 'string' && id !== '' && id !== existing?.img?.id;
  const base = isNew ? { id: id as string } : existing?.img;
  if (base === undefined) {
    if (typeof alt === 'string') throw new InvalidInput(1161, ctx.rowId ?? '', column.id);
    throw new InvalidInput(1012, 'image.id');
  }
  const out: StoredImage = { ...base, id: base.id };
  if (isNew && ctx.imageInfo !== undefined) {
    // an image of this sheet: its size is the stored image's, not what the client says
    const info = ctx.imageInfo(base.id);
    if (info === undefined) throw new NotFound(1006);
    out.width = info.width;
    out.height = info.height;
  } else if (ctx.imageInfo === undefined) {
    for (const k of ['height', 'width'] as const) {
      const x = img[k];
      if (typeof x === 'number' && Number.isFinite(x) && x >= 0) out[k] = x;
    }
  }
  if (typeof alt === 'string') {
    if (alt === '') delete out.altText;
    else out.altText = alt;
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// The cell write

/**
 * A deep copy of plain JSON data (stored cells: objects, arrays, strings, numbers, booleans),
 * the same as structuredClone gives for it without its serialisation round trip per cell.
 */
function cloneData<T>(x: T): T {
  if (typeof x !== 'object' || x === null) return x;
  if (Array.isArray(x)) return x.map(cloneData) as T;
  const out: Record<string, unknown> = {};
  for (const k in x) out[k] = cloneData((x as Record<string, unknown>)[k]);
  return out as T;
}

/**
 * Parse one written cell of `column` over its existing content. Checks, in order: system
 * column (1046), locked column (1039), formula syntax (1162), hyperlink vs cell link (1109),
 * value vs objectValue (1130), value type (1038), image rules (1163, 1164, 1165, 1161),
 * cell link rules (1032 on new rows, 1110, 1116), hyperlink rules (1111, 1112, 1113, 1114,
 * 1117), level (1239 for plain values into a MULTI_* column at an older level),
 * overrideValidation by non-admins (1212), then the value by column type (1042, 1148,
 * 1131, 1240, 1241, 1277) and column validation (1235 unless overridden; an image in a
 * validating column alike).
 */
export function parseCellWrite(column: ColumnDef, input: CellInput, existing: StoredCell | undefined, ctx: CellWriteContext = {}): ParsedCell {
  if (!isObject(input)) throw new InvalidInput(1008, 'cell must be an object');
  if (column.systemColumnType !== undefined) throw new InvalidInput(1046, column.id);
  assertColumnEditable(column, ctx.isSheetAdmin === true);

  const value = input.value;
  // most cells written: a plain value, nothing else asked, into a cell that holds at most a value
  if (
    (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') &&
    input.objectValue === undefined && input.formula === undefined && input.hyperlink === undefined && input.linkInFromCell === undefined &&
    input.image === undefined && input.format === undefined && input.overrideValidation === undefined && onlyValue(existing)
  ) return plainValueWrite(column, value, existing === undefined || existing.v === undefined, input, ctx);

  const objectValue = input.objectValue;
  const strict = input.strict !== false;
  const override = input.overrideValidation === true || ctx.overrideValidation === true;

  if (present(input.formula) && (typeof input.formula !== 'string' || !input.formula.trimStart().startsWith('='))) throw new InvalidInput(1162);
  if (present(input.hyperlink) && present(input.linkInFromCell)) throw new InvalidInput(1109);
  if (present(value) && present(objectValue)) throw new InvalidInput(1130);
  if (present(value) && typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') throw new InvalidInput(1038);
  if (present(input.image) && (present(value) || present(objectValue) || present(input.hyperlink) || present(input.linkInFromCell))) throw new InvalidInput(1163);
  if (present(input.linkInFromCell) && present(value)) throw new InvalidInput(1110);
  if (override && ctx.isSheetAdmin !== true) throw new NotPermitted(1212);

  const cell: StoredCell = existing === undefined ? {} : cloneData(existing);
  const wasBlank = !cellHasData(existing);
  let linkWrite = false;
  let writesValue = false;
  let result: ValueResult = { v: cell.v };

  if (present(input.image)) {
    // an image is no value a validating column (strict DATE, PICKLIST, contacts...) accepts:
    // as for a value that fails validation, it takes overrideValidation=true
    if (column.validation === true && !override) throw new InvalidInput(1235);
    cell.img = parseImage(input.image, existing, column, ctx);
    delete cell.v;
    delete cell.h;
    delete cell.li;
    delete cell.fx;
    result = { v: undefined };
  } else if (present(input.linkInFromCell)) {
    cell.li = parseCellLink(input.linkInFromCell, ctx);
    linkWrite = true;
    delete cell.fx;
    delete cell.img;
    // The value arrives from the source cell when the service resolves the link.
    result = { v: existing?.li !== undefined ? cell.v : undefined };
  } else {
    let derived: string | undefined;
    if (input.hyperlink === null) delete cell.h;
    else if (present(input.hyperlink)) {
      const hl = parseHyperlink(input.hyperlink, value, ctx);
      cell.h = hl.h;
      derived = hl.derivedValue;
    }
    if (present(input.formula)) {
      // blanks before the equal sign are not part of it (the public service takes " = TODAY()")
      cell.fx = (input.formula as string).trimStart();
      delete cell.li;
      delete cell.img;
      // The formula engine computes the value; keep the previous one until it does.
    } else if ('value' in input || 'objectValue' in input || derived !== undefined) {
      writesValue = true;
      if (input.formula === null || 'value' in input || 'objectValue' in input) delete cell.fx;
      delete cell.li;
      delete cell.img;
      if (present(objectValue)) {
        result = parseObjectValue(column, objectValue, strict, input, ctx);
      } else if (present(value)) {
        if (column.version > 0) assertColumnLevel(column, ctx.level);
        result = parsePrimitive(column, value as string | number | boolean, strict, input, ctx);
      } else if (derived !== undefined) {
        result = { v: text(derived) };
      } else {
        result = { v: undefined };
      }
    } else if (input.formula === null) {
      delete cell.fx;
    }
  }

  if (writesValue && violatesValidation(column, result.v) && !override) throw new InvalidInput(1235);

  if (result.v === undefined) delete cell.v;
  else cell.v = result.v;

  let format = cell.f;
  if (input.format !== undefined) format = input.format === null ? undefined : storedFormat(normaliseFormat(input.format));
  if (result.impliedFormat !== undefined) format = mergeFormats(result.impliedFormat, format);
  format = cellHasData(cell)
    ? formatForWrittenCell({ wasBlank, columnFormat: ctx.columnFormat, rowFormat: ctx.rowFormat, cellFormat: format })
    : format;
  if (format === undefined) delete cell.f;
  else cell.f = format;

  return { columnId: column.id, cell: isEmptyCell(cell) ? undefined : cell, linkWrite };
}

/** A cell that is blank or holds nothing but a value (no format, formula, hyperlink, link or image). */
function onlyValue(c: StoredCell | undefined): boolean {
  if (c === undefined) return true;
  for (const k in c) if (k !== 'v') return false;
  return true;
}

/**
 * parseCellWrite of a cell holding only a value (string, number or boolean) into a cell that
 * holds at most a value (`wasBlank`: not even that): the same checks in the same order, the
 * same cell, without the general path's tests of what else a cell write may carry and its copy
 * of the cell written over (10,000 cells of 500 new rows pass here).
 */
function plainValueWrite(column: ColumnDef, value: string | number | boolean, wasBlank: boolean, input: CellInput, ctx: CellWriteContext): ParsedCell {
  const override = ctx.overrideValidation === true;
  if (override && ctx.isSheetAdmin !== true) throw new NotPermitted(1212);
  if (column.version > 0) assertColumnLevel(column, ctx.level);
  const result = parsePrimitive(column, value, input.strict !== false, input, ctx);
  const v = result.v;
  if (!override && violatesValidation(column, v)) throw new InvalidInput(1235);
  let format = result.impliedFormat === undefined ? undefined : mergeFormats(result.impliedFormat, undefined);
  if (v !== undefined && (format !== undefined || ctx.columnFormat !== undefined || ctx.rowFormat !== undefined)) {
    format = formatForWrittenCell({ wasBlank, columnFormat: ctx.columnFormat, rowFormat: ctx.rowFormat, cellFormat: format });
  }
  const cell: StoredCell | undefined = format === undefined ? (v === undefined ? undefined : { v }) : v === undefined ? { f: format } : { v, f: format };
  return { columnId: column.id, cell, linkWrite: false };
}

/**
 * Parse the cells of one written row against the sheet's columns and merge them into the
 * row's existing cells. Checks 1036 (unknown or missing columnId), 1037 (a column twice in
 * the row) and 1115 (cell link writes mixed with value writes). Returns the new cells and the
 * ids of columns whose cells were written.
 */
export function parseRowCells(
  columnsById: ReadonlyMap<number, ColumnDef>,
  cells: unknown,
  existing: StoredRowCells | undefined,
  ctx: CellWriteContext = {},
): {
  cells: StoredRowCells;
  changed: number[];
  /** A new row's (no `existing`): the keys of its cells, in the order written, and whether one holds a formula. */
  keys?: readonly string[];
  formulas?: boolean;
} {
  if (!Array.isArray(cells)) throw new InvalidInput(1031, String(cells), 'cells');
  const n = cells.length;
  // a column twice: a scan of the few columns so far, a set beyond them
  const seen = n > 32 ? new Set<number>() : undefined;
  // a new row's cells, in the order written, made into one object at the end (cellsObject);
  // arrays of their final size, filled by index (a write of 500 rows x 20 cells made 30,000
  // growing arrays)
  const out: StoredRowCells | undefined = existing === undefined ? undefined : { ...existing };
  const keys: string[] = out === undefined ? new Array<string>(n) : [];
  const written: StoredCell[] = out === undefined ? new Array<StoredCell>(n) : [];
  let kept = 0;
  const changed: number[] = new Array<number>(n);
  let links = 0;
  let values = 0;
  let formulas = false;
  // an update's copy given a key the row did not have, or losing one: its shape is no longer the
  // spread's (markFreshCells)
  let reshaped = false;
  for (let i = 0; i < n; i++) {
    const raw: unknown = cells[i];
    if (!isObject(raw)) throw new InvalidInput(1008, 'cell must be an object');
    const id = raw.columnId;
    const column = typeof id === 'number' ? columnsById.get(id) : undefined;
    if (column === undefined) throw new InvalidInput(1036, String(id));
    if (seen === undefined) {
      for (let j = 0; j < i; j++) if (changed[j] === column.id) throw new InvalidInput(1037, id);
    } else {
      if (seen.has(column.id)) throw new InvalidInput(1037, id);
      seen.add(column.id);
    }
    const key = cellKey(column.id);
    const before = existing?.[key];
    const parsed = parseCellWrite(column, raw, before, ctx);
    if (parsed.linkWrite) links++;
    else values++;
    if (out !== undefined) {
      if (before === undefined) reshaped = true;
      if (parsed.cell === undefined) {
        if (before !== undefined) reshaped = true;
        delete out[key];
      } else out[key] = parsed.cell;
    } else if (parsed.cell !== undefined) {
      keys[kept] = key;
      written[kept] = parsed.cell;
      kept++;
      if (parsed.cell.fx !== undefined) formulas = true;
    }
    changed[i] = column.id;
  }
  if (out === undefined && kept < n) {
    keys.length = kept;
    written.length = kept;
  }
  if (links > 0 && values > 0) throw new InvalidInput(1115);
  if (out !== undefined && !reshaped) markFreshCells(out);
  return out !== undefined ? { cells: out, changed } : { cells: cellsObject(keys, written), changed, keys, formulas };
}
