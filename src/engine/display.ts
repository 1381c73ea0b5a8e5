/**
 * Reading cells: the API Cell object of a stored cell, per the displayValue table of spec 2.2,
 * the `level` gate of spec 9 (MULTI_* read as TEXT_NUMBER text below their version),
 * numericDates, include=objectValue / format / columnType.
 */
import type { StoredCell, StoredCellLink, StoredValue } from './cells.ts';
import { typeAtLevel, type ColumnDef, type ColumnType } from './columns.ts';
import { contactDisplay, contactObject, type ContactObject, type StoredContact } from './contacts.ts';
import { dayToEpochMs, formatProjectDateTime, formatTimestamp } from './dates.ts';
import { formatDuration, type Duration } from './duration.ts';
import { formatNumber, isDefaultFormat } from './format.ts';
import { formatPredecessors, presentPredecessorList, type PredecessorList } from './predecessors.ts';

export interface PresentCellOptions {
  level?: number;
  numericDates?: boolean;
  /** include=objectValue */
  includeObjectValue?: boolean;
  /** include=format */
  includeFormat?: boolean;
  /** include=columnType */
  includeColumnType?: boolean;
  /** Row of the cell (predecessor validity keys). */
  rowId?: number;
  /** Current row number of a row id (predecessor text); undefined when not in the sheet. */
  rowNumberOf?: (rowId: number) => number | undefined;
  /** Invalid predecessor edges of the sheet (findInvalidPredecessors). */
  invalidPredecessors?: ReadonlySet<string>;
  /** Predecessor edges on the sheet's critical path (engine/schedule.ts). */
  criticalPredecessors?: ReadonlySet<string>;
  /** Conditional format that applies to this cell, when include=format. */
  conditionalFormat?: string;
  /** The permalink of a sheet, report or dashboard: the `url` of hyperlinks to one. */
  permalinkOf?: (kind: 'sheets' | 'reports' | 'sights', id: number) => string;
}

export type ApiObjectValue =
  | string | number | boolean
  | ContactObject
  | { objectType: 'MULTI_CONTACT'; values: ContactObject[] }
  | { objectType: 'MULTI_PICKLIST'; values: string[] }
  | { objectType: 'DATE' | 'DATETIME' | 'ABSTRACT_DATETIME'; value: string | number }
  | Duration
  | PredecessorList;

export interface ApiCell {
  columnId: number;
  columnType?: ColumnType;
  value?: string | number | boolean;
  displayValue?: string;
  objectValue?: ApiObjectValue;
  format?: string;
  conditionalFormat?: string;
  formula?: string;
  hyperlink?: { url?: string; sheetId?: number; reportId?: number; sightId?: number };
  linkInFromCell?: Partial<StoredCellLink> & { sheetId: number };
  linksOutToCells?: Array<Partial<StoredCellLink> & { sheetId: number }>;
  image?: { id: string; height?: number; width?: number; altText?: string };
}

/** Column types whose cells carry a displayValue (spec 2.2 table). */
const HAS_DISPLAY: ReadonlySet<ColumnType> = new Set<ColumnType>([
  'TEXT_NUMBER', 'PICKLIST', 'CONTACT_LIST', 'MULTI_CONTACT_LIST', 'MULTI_PICKLIST', 'DURATION', 'PREDECESSOR',
]);

function joinContacts(cs: readonly StoredContact[]): string {
  return cs.map(contactDisplay).join(', ');
}

/**
 * The text the grid shows for a stored value (numbers formatted with `format`). Used for
 * displayValue, for MULTI_* values, for sorting text and for type conversion to text.
 */
export function valueText(column: Pick<ColumnDef, 'type'>, v: StoredValue, format: string | undefined, opts: Pick<PresentCellOptions, 'rowNumberOf'> = {}): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return formatNumber(v, format);
  if (typeof v === 'boolean') return String(v);
  if ('d' in v) return v.d;
  if ('t' in v) return column.type === 'ABSTRACT_DATETIME' ? formatProjectDateTime(v.t) : formatTimestamp(v.t);
  if ('c' in v) return contactDisplay(v.c);
  if ('mc' in v) return joinContacts(v.mc);
  if ('mp' in v) return v.mp.join(', ');
  if ('du' in v) return formatDuration(v.du);
  return formatPredecessors(v.p, opts.rowNumberOf ?? (() => undefined));
}

function rawValue(type: ColumnType, v: StoredValue, text: string, opts: PresentCellOptions): string | number | boolean {
  if (typeof v !== 'object') return v;
  if ('d' in v) return opts.numericDates === true ? dayToEpochMs(v.d) : v.d;
  if ('t' in v) {
    if (opts.numericDates === true) return v.t;
    return type === 'ABSTRACT_DATETIME' ? formatProjectDateTime(v.t) : formatTimestamp(v.t);
  }
  if ('c' in v) return v.c.email;
  return text;
}

function objectValueOf(column: ColumnDef, v: StoredValue, opts: PresentCellOptions): ApiObjectValue {
  if (typeof v !== 'object') return v;
  if ('d' in v) return { objectType: 'DATE', value: opts.numericDates === true ? dayToEpochMs(v.d) : v.d };
  if ('t' in v) {
    const abstract = column.type === 'ABSTRACT_DATETIME';
    const when = opts.numericDates === true ? v.t : abstract ? formatProjectDateTime(v.t) : formatTimestamp(v.t);
    return { objectType: abstract ? 'ABSTRACT_DATETIME' : 'DATETIME', value: when };
  }
  if ('c' in v) return contactObject(v.c);
  if ('mc' in v) return { objectType: 'MULTI_CONTACT', values: v.mc.map(contactObject) };
  if ('mp' in v) return { objectType: 'MULTI_PICKLIST', values: [...v.mp] };
  if ('du' in v) return { ...v.du };
  return presentPredecessorList(opts.rowId ?? 0, v.p, opts.rowNumberOf ?? (() => undefined), opts.invalidPredecessors, opts.criticalPredecessors);
}

/**
 * The API Cell of `cell` in `column`. A blank cell is `{ columnId }` (plus format/columnType
 * when asked). Hyperlink, linkInFromCell, image and formula are returned when present.
 */
/** A stored hyperlink as the API shows it: one to a sheet, report or dashboard carries its permalink as `url`. */
function hyperlinkOf(h: NonNullable<StoredCell['h']>, opts: PresentCellOptions): NonNullable<ApiCell['hyperlink']> {
  const out = { ...h };
  if (opts.permalinkOf !== undefined) {
    if (h.sheetId !== undefined) out.url = opts.permalinkOf('sheets', h.sheetId);
    else if (h.reportId !== undefined) out.url = opts.permalinkOf('reports', h.reportId);
    else if (h.sightId !== undefined) out.url = opts.permalinkOf('sights', h.sightId);
  }
  return out;
}

export function presentCell(column: ColumnDef, cell: StoredCell | undefined, opts: PresentCellOptions = {}): ApiCell {
  const type = typeAtLevel(column, opts.level);
  const out: ApiCell = { columnId: column.id };
  if (opts.includeColumnType === true) out.columnType = type;
  const format = cell?.f ?? column.format;
  const v = cell?.v;
  if (v !== undefined) {
    const text = valueText(column, v, format, opts);
    const degraded = type !== column.type;
    const value = degraded ? text : rawValue(column.type, v, text, opts);
    out.value = value;
    if (HAS_DISPLAY.has(type)) out.displayValue = typeof v === 'boolean' || degraded ? text : valueTextForDisplay(v, text);
    if (opts.includeObjectValue === true) out.objectValue = degraded ? text : objectValueOf(column, v, opts);
  }
  if (cell !== undefined && opts.includeFormat === true && cell.f !== undefined && !isDefaultFormat(cell.f)) out.format = cell.f;
  // a rule formats blank cells of a matching row too
  if (opts.includeFormat === true && opts.conditionalFormat !== undefined && !isDefaultFormat(opts.conditionalFormat)) out.conditionalFormat = opts.conditionalFormat;
  if (cell === undefined) return out;
  if (cell.fx !== undefined) out.formula = cell.fx;
  if (cell.h !== undefined) out.hyperlink = hyperlinkOf(cell.h, opts);
  if (cell.li !== undefined) out.linkInFromCell = { ...cell.li, status: cell.li.status ?? 'OK' };
  if (cell.img !== undefined) out.image = { ...cell.img };
  return out;
}

function valueTextForDisplay(_v: StoredValue, text: string): string {
  return text;
}

/**
 * JSON text of cells as presentCell would give them, for one column of one response, set up
 * once: `json(cell, formula, rowId)` writes the cells directly (blank, or a value with an
 * optional format and formula); it returns null for a cell it does not handle (hyperlink, cell
 * link, image: present those with presentCell) and '' for a cell without content when
 * `skipEmpty` (exclude=nonexistentCells). `formula` is the text the formula engine gives for the
 * cell, which replaces the stored one. Object values (dates, contacts, durations, predecessors)
 * take their texts from the functions presentCell uses; a date's, which repeats down a column,
 * is made once per response. `cellJson` is null for a column it does not handle at all (a type
 * shown as another at this level).
 */
export class CellJson {
  private readonly head: string;
  private readonly blank: string;
  private readonly display: boolean;
  private readonly withObject: boolean;
  private readonly withFormat: boolean;
  private readonly columnFormat: string | undefined;
  private readonly column: ColumnDef;
  /** The response's options, with the row of the cell being written (predecessors name it). */
  private readonly opts: PresentCellOptions;
  /** The value's part of a date cell's text, by the date: the same for every cell of that date. */
  private readonly dates = new Map<number | string, string>();

  constructor(column: ColumnDef, type: ColumnType, opts: PresentCellOptions, skipEmpty: boolean) {
    this.column = column;
    this.opts = { ...opts };
    this.head = `{"columnId":${JSON.stringify(column.id)}${opts.includeColumnType === true ? `,"columnType":${JSON.stringify(type)}` : ''}`;
    this.blank = skipEmpty ? '' : this.head + '}';
    this.display = HAS_DISPLAY.has(type);
    this.withObject = opts.includeObjectValue === true;
    this.withFormat = opts.includeFormat === true;
    this.columnFormat = column.format;
  }

  json(cell: StoredCell | undefined, formula: string | undefined, rowId?: number): string | null {
    const head = this.head;
    if (cell === undefined) return formula === undefined ? this.blank : `${head},"formula":${JSON.stringify(formula)}}`;
    if (cell.h !== undefined || cell.li !== undefined || cell.img !== undefined) return null;
    let s = head;
    const v = cell.v;
    if (typeof v === 'object') s += this.objectValuePart(v, rowId);
    else if (v !== undefined) {
      let value: string;
      let text: string;
      if (typeof v === 'string') {
        value = JSON.stringify(v);
        text = value;
      } else if (typeof v === 'number') {
        value = Number.isFinite(v) ? `${v}` : 'null';
        const format = cell.f ?? this.columnFormat;
        // formatNumber's own shortcut: an unformatted whole number is its own text
        text = format === undefined && Number.isInteger(v) && Math.abs(v) < 1e12 ? `"${value}"` : this.display ? JSON.stringify(formatNumber(v, format)) : '';
      } else {
        value = v ? 'true' : 'false';
        text = v ? '"true"' : '"false"';
      }
      s += this.display ? `,"value":${value},"displayValue":${text}` : `,"value":${value}`;
      if (this.withObject) s += `,"objectValue":${value}`;
    }
    if (this.withFormat && cell.f !== undefined && !isDefaultFormat(cell.f)) s += `,"format":${JSON.stringify(cell.f)}`;
    const fx = formula ?? cell.fx;
    if (fx !== undefined) s += `,"formula":${JSON.stringify(fx)}`;
    return s === head ? this.blank : s + '}';
  }

  /** `,"value":...` and what follows it of an object value, as presentCell gives them. */
  private objectValuePart(v: Extract<StoredValue, object>, rowId: number | undefined): string {
    const date = 't' in v ? v.t : 'd' in v ? v.d : undefined;
    if (date !== undefined) {
      const kept = this.dates.get(date);
      if (kept !== undefined) return kept;
    }
    const opts = this.opts;
    opts.rowId = rowId;
    const column = this.column;
    const text = valueText(column, v, undefined, opts);
    let s = `,"value":${JSON.stringify(rawValue(column.type, v, text, opts))}`;
    if (this.display) s += `,"displayValue":${JSON.stringify(valueTextForDisplay(v, text))}`;
    if (this.withObject) s += `,"objectValue":${JSON.stringify(objectValueOf(column, v, opts))}`;
    if (date !== undefined) this.dates.set(date, s);
    return s;
  }
}

export function cellJson(column: ColumnDef, opts: PresentCellOptions, skipEmpty: boolean): CellJson | null {
  const type = typeAtLevel(column, opts.level);
  if (type !== column.type || opts.conditionalFormat !== undefined) return null;
  return new CellJson(column, type, opts, skipEmpty);
}

/** Cell values the system fills in: created/modified date and user of the row. */
export interface RowSystemInfo {
  createdAt: number;
  modifiedAt: number;
  createdBy?: StoredContact;
  modifiedBy?: StoredContact;
}

/**
 * The stored value of a system column's cell, derived from the row (AUTO_NUMBER cells are
 * stored like any other cell: the service writes the number when the row is created).
 */
export function systemCellValue(column: ColumnDef, row: RowSystemInfo, stored?: StoredCell): StoredValue | undefined {
  switch (column.systemColumnType) {
    case 'CREATED_DATE': return { t: row.createdAt };
    case 'MODIFIED_DATE': return { t: row.modifiedAt };
    case 'CREATED_BY': return row.createdBy === undefined ? undefined : { c: { ...row.createdBy } };
    case 'MODIFIED_BY': return row.modifiedBy === undefined ? undefined : { c: { ...row.modifiedBy } };
    default: return stored?.v;
  }
}

/**
 * The `cells` array of an API Row: one Cell per column in column order (blank cells as
 * `{ columnId }`), system columns filled from the row's creation/modification info.
 * `columns` must be sorted by index.
 */
export function presentRowCells(
  columns: readonly ColumnDef[],
  cells: Readonly<Record<string, StoredCell>> | undefined,
  opts: PresentCellOptions & { system?: RowSystemInfo; conditionalFormats?: ReadonlyMap<number, string> } = {},
): ApiCell[] {
  return columns.map((c) => {
    let cell = cells?.[String(c.id)];
    if (c.systemColumnType !== undefined && c.systemColumnType !== 'AUTO_NUMBER' && opts.system !== undefined) {
      const v = systemCellValue(c, opts.system, cell);
      cell = v === undefined ? cell : { ...cell, v };
    }
    const cf = opts.conditionalFormats?.get(c.id);
    return presentCell(c, cell, cf === undefined ? opts : { ...opts, conditionalFormat: cf });
  });
}
