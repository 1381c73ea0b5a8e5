/**
 * Import of CSV and XLSX data into a new sheet: what a read value becomes, which type a column
 * gets, the titles of the columns. The readers (services/sheets/imports.ts) turn each file's cells into
 * ImportValues; this module knows nothing of the formats.
 *
 * Column types: the primary column is TEXT_NUMBER; another column whose values are all dates
 * (YYYY-MM-DD text, or XLSX date cells without a time) becomes DATE, all true/false CHECKBOX,
 * anything else TEXT_NUMBER, where plain numbers are numbers and the rest text.
 */
import type { StoredCell } from './cells.ts';
import type { ColumnType } from './columns.ts';
import { MAX_CELL_CHARS, MAX_CELL_NUMBER, MIN_CELL_NUMBER } from './limits.ts';

export type ImportValue = string | number | boolean | { date: string } | null;

const NUMBER = /^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * A real day written YYYY-MM-DD (years 0100-9999, as Date.UTC reads them). Checked by arithmetic:
 * every text field of an import comes here, and a Date and its ISO text for each took a tenth of
 * a 100,000-row import.
 */
function isDay(s: string): boolean {
  if (s.length !== 10 || s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45) return false;
  const m = DATE.exec(s);
  if (!m) return false;
  const y = Number(m[1]), mo = Number(m[2]), d = Number(m[3]);
  if (y < 100 || mo < 1 || mo > 12 || d < 1) return false;
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  return d <= (mo === 2 && leap ? 29 : DAYS_IN_MONTH[mo - 1]!);
}

/**
 * A CSV field as a value: blank is null; plain numbers (not with leading zeros, which are codes
 * such as "007") are numbers; true/false booleans; YYYY-MM-DD dates; the rest text as written.
 */
export function csvValue(field: string): ImportValue {
  const s = field.trim();
  if (s === '') return null;
  if (NUMBER.test(s) && !/^[-+]?0\d/.test(s)) {
    const n = Number(s);
    if (Number.isFinite(n) && n >= MIN_CELL_NUMBER && n <= MAX_CELL_NUMBER) return n;
  }
  const lower = s.toLowerCase();
  if (lower === 'true' || lower === 'false') return lower === 'true';
  if (isDay(s)) return { date: s };
  return field;
}

/** An XLSX cell's value (as exceljs reads it) as a value. */
export function xlsxValue(v: unknown): ImportValue {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') return v === '' ? null : v;
  if (v instanceof Date) {
    if (Number.isNaN(v.getTime())) return null;
    const iso = v.toISOString();
    return iso.endsWith('T00:00:00.000Z') ? { date: iso.slice(0, 10) } : iso.slice(0, 19);
  }
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if (Array.isArray(o.richText)) return xlsxValue((o.richText as Array<{ text?: unknown }>).map((r) => String(r.text ?? '')).join(''));
    if ('result' in o) return xlsxValue(o.result);
    if ('formula' in o || 'sharedFormula' in o) return null;
    if (typeof o.text === 'string') return xlsxValue(o.text);
    if (typeof o.error === 'string') return o.error;
  }
  return null;
}

/** What a column's values were, as far as its type goes. */
export class ColumnGuess {
  private dates = 0;
  private booleans = 0;
  private others = 0;

  see(v: ImportValue): void {
    if (v === null) return;
    if (typeof v === 'boolean') this.booleans++;
    else if (typeof v === 'object') this.dates++;
    else this.others++;
  }

  type(primary: boolean): ColumnType {
    if (primary || this.others > 0) return 'TEXT_NUMBER';
    if (this.dates > 0 && this.booleans === 0) return 'DATE';
    if (this.booleans > 0 && this.dates === 0) return 'CHECKBOX';
    return 'TEXT_NUMBER';
  }
}

function text(v: Exclude<ImportValue, null>): string {
  if (typeof v === 'object') return v.date;
  return String(v);
}

/** The stored cell of a value in a column of `type` (undefined: blank). Text is cut at 4,000 characters. */
export function importCell(type: ColumnType, v: ImportValue): StoredCell | undefined {
  if (v === null) return undefined;
  if (type === 'CHECKBOX' && typeof v === 'boolean') return { v };
  if (type === 'DATE' && typeof v === 'object') return { v: { d: v.date } };
  if (typeof v === 'number') return { v };
  const t = text(v);
  const cut = t.length > MAX_CELL_CHARS ? t.slice(0, MAX_CELL_CHARS) : t;
  return cut === '' ? undefined : { v: cut };
}

/**
 * The JSON text of importCell(type, v) (undefined: blank), built without the cell object: an
 * import writes up to 500,000 cells, and building each as an object to stringify a row of them
 * took a tenth of a CSV import. The same text JSON.stringify gives for the cell.
 */
export function importCellJson(type: ColumnType, v: ImportValue): string | undefined {
  if (v === null) return undefined;
  if (typeof v === 'number') return `{"v":${JSON.stringify(v)}}`;
  if (typeof v === 'boolean') return type === 'CHECKBOX' ? (v ? '{"v":true}' : '{"v":false}') : v ? '{"v":"true"}' : '{"v":"false"}';
  if (typeof v === 'object') return type === 'DATE' ? `{"v":{"d":${JSON.stringify(v.date)}}}` : `{"v":${JSON.stringify(v.date)}}`;
  const cut = v.length > MAX_CELL_CHARS ? v.slice(0, MAX_CELL_CHARS) : v;
  return cut === '' ? undefined : `{"v":${JSON.stringify(cut)}}`;
}

/**
 * Column titles: from the header row when there is one (blank titles become ColumnN), else
 * Column1, Column2, ...; titles already taken (case aside) get " (n)" appended.
 */
export function importTitles(count: number, header: readonly ImportValue[] | undefined): string[] {
  const taken = new Set<string>();
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const h = header?.[i];
    const base = h === undefined || h === null ? `Column${i + 1}` : text(h).trim().slice(0, 4000) || `Column${i + 1}`;
    let t = base;
    for (let n = 1; taken.has(t.toLowerCase()); n++) t = `${base} (${n})`;
    taken.add(t.toLowerCase());
    out.push(t);
  }
  return out;
}
