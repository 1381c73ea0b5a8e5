import { createReadStream, type ReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { xlsxValue, type ImportValue } from '../../engine/imports.ts';
import { apiError } from '../../errors.ts';
import { apiErrorOf } from '../platform/errors.ts';

/**
 * The rows of an XLSX workbook's first sheet, read part by part through the zip's central
 * directory: the workbook and its relationships, the shared strings and the styles first, then
 * the worksheet, whatever order the parts have in the file.
 *
 * exceljs's own streaming reader reads the zip front to back (unzipper's Parse), keeping a
 * worksheet that comes before the shared strings in a temporary file until they are read. But
 * Parse reports its end as soon as its input is used up, which can be before the parts it
 * queued meanwhile are taken; exceljs stops at that end and the parts still queued are never read.
 * A worksheet stored before the shared strings (as spreadsheet programs write it) then read
 * without them, every text cell empty, and more often the busier the server (issue 34). Here the
 * zip is opened by its central directory (unzipper's Open), and exceljs parses the small parts
 * (workbook, relationships, shared strings, styles) as it does in its own reader.
 *
 * The worksheet itself, the bulk of the file, is read by WorksheetScanner below: one pass over its
 * XML text, cells turned into import values where they are read. exceljs's worksheet reader (a
 * SAX parser, then a Row and Cell object per cell) took half of a 100,000-row import. The values
 * are exceljs's: shared strings as it read them, dates by the cell's number format (or its
 * row's), the 1904 date system, formula results, booleans and errors; the few places its reader
 * was wrong are not copied (a rich inline string kept its last run only, text was decoded twice
 * and kept the white space after a value, t="d" cells read as a year).
 */

/** A part of the zip, as unzipper's Open lists it. */
type ZipPart = import('unzipper').File;

/** What of exceljs's WorkbookReader (4.x) is used: the parsers of its parts. */
interface PartParsers {
  workbookRels?: Array<{ Id: string; Target: string }>;
  model?: { sheets?: Array<{ rId: string }> };
  _parseRels(entry: Readable): Promise<void>;
  _parseWorkbook(entry: Readable): Promise<void>;
  _parseSharedStrings(entry: Readable): AsyncGenerator<unknown>;
  _parseStyles(entry: Readable): Promise<void>;
  sharedStrings?: unknown[];
  styles?: { getStyleModel(id: number): { numFmt?: unknown } | null | undefined };
  properties?: { model?: { date1904?: boolean } };
}

/** A worksheet row: its zero-based index (row number - 1) and its values from column A on (null: blank). */
export type SheetRow = [number, ImportValue[]];

/** Not a workbook: not a zip, or a zip without a workbook's parts, or parts that do not parse. */
function invalid(why: string) {
  return apiError(1095, why);
}

/** The parts of the zip at `file`; the streams it opens are closed by `close`. */
async function openZip(file: string): Promise<{ parts: Map<string, ZipPart>; close(): void }> {
  const { default: unzipper } = await import('unzipper');
  const opened = new Set<ReadStream>();
  const source = {
    stream(offset: number, length?: number) {
      const s = createReadStream(file, { start: offset, ...(length ? { end: offset + length } : {}) });
      opened.add(s);
      s.once('close', () => opened.delete(s));
      return s;
    },
    size: async () => (await stat(file)).size,
  };
  const close = () => {
    for (const s of opened) s.destroy();
  };
  try {
    const directory = await unzipper.Open.custom(source);
    return { parts: new Map(directory.files.filter((f) => f.type === 'File').map((f) => [f.path, f])), close };
  } catch (e) {
    close();
    throw invalid(`not a zip file (${(e as Error).message})`);
  }
}

/** The worksheet part of the workbook's first sheet, and its number (sheetN.xml). */
function firstSheet(reader: PartParsers, parts: Map<string, ZipPart>): { path: string; sheetNo: string } | undefined {
  const rId = reader.model?.sheets?.[0]?.rId;
  const target = reader.workbookRels?.find((r) => r.Id === rId)?.Target;
  if (target !== undefined) {
    const path = target.startsWith('/') ? target.slice(1) : `xl/${target}`;
    const no = /sheet(\d+)\.xml$/.exec(path)?.[1];
    if (no !== undefined && parts.has(path)) return { path, sheetNo: no };
  }
  // no usable relationship: the lowest-numbered worksheet, as exceljs would name it
  const numbered = [...parts.keys()]
    .map((p) => /^xl\/worksheets\/sheet(\d+)\.xml$/.exec(p))
    .filter((m) => m !== null)
    .sort((a, b) => Number(a[1]) - Number(b[1]));
  return numbered[0] ? { path: numbered[0][0], sheetNo: numbered[0][1]! } : undefined;
}

/** The first sheet's rows, in batches (those of a chunk of the worksheet's XML). */
export async function* xlsxSheetRows(file: string): AsyncGenerator<SheetRow[]> {
  // loaded on first use: exceljs takes a fifth of a second to load, and most servers never import XLSX
  const { default: ExcelJS } = await import('exceljs');
  const zip = await openZip(file);
  try {
    const reader = new ExcelJS.stream.xlsx.WorkbookReader(file, {
      worksheets: 'emit', sharedStrings: 'cache', styles: 'cache', hyperlinks: 'ignore', entries: 'ignore',
    }) as unknown as PartParsers;
    if (typeof reader._parseStyles !== 'function') throw new Error('this exceljs has no part parsers (WorkbookReader._parseStyles)');
    const part = (path: string) => zip.parts.get(path)?.stream();
    let sheet: Readable;
    try {
      const workbook = part('xl/workbook.xml');
      if (workbook === undefined) throw invalid('the zip holds no workbook (xl/workbook.xml)');
      const rels = part('xl/_rels/workbook.xml.rels');
      if (rels !== undefined) await reader._parseRels(rels);
      await reader._parseWorkbook(workbook);
      const strings = part('xl/sharedStrings.xml');
      if (strings !== undefined) for await (const _ of reader._parseSharedStrings(strings));
      const styles = part('xl/styles.xml');
      if (styles !== undefined) await reader._parseStyles(styles);
      const first = firstSheet(reader, zip.parts);
      if (first === undefined) throw invalid('the workbook has no worksheet');
      sheet = part(first.path)!;
    } catch (e) {
      throw apiErrorOf(e) ?? invalid(`the workbook: ${(e as Error).message}`);
    }
    const scanner = new WorksheetScanner(reader.sharedStrings ?? [], (id) => reader.styles?.getStyleModel(id)?.numFmt, reader.properties?.model?.date1904 === true);
    const decoder = new StringDecoder('utf8');
    try {
      for await (const chunk of sheet as AsyncIterable<Buffer>) {
        const rows = scanner.push(decoder.write(chunk));
        if (rows.length > 0) yield rows;
      }
      const rows = scanner.push(decoder.end());
      scanner.end();
      if (rows.length > 0) yield rows;
    } catch (e) {
      throw apiErrorOf(e) ?? invalid(`the worksheet: ${(e as Error).message}`);
    } finally {
      sheet.destroy();
    }
  } finally {
    zip.close();
  }
}

/** exceljs's test of a number format for a date (utils.isDateFmt): y m d h s b outside quotes and brackets. */
function isDateFormat(fmt: unknown): boolean {
  if (typeof fmt !== 'string' || fmt === '') return false;
  return /[ymdhMsb]+/.test(fmt.replace(/\[[^\]]*]/g, '').replace(/"[^"]*"/g, ''));
}

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/** XML text with its entity and character references replaced. */
function xmlText(s: string): string {
  if (s.indexOf('&') < 0) return s;
  return s.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);/g, (all, name: string) => {
    if (name.charCodeAt(0) === 35) {
      const code = name.charCodeAt(1) === 120 ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return code <= 0x10ffff ? String.fromCodePoint(code) : all;
    }
    return ENTITIES[name] ?? all;
  });
}

/** The value of attribute `name` in a tag's attribute text, undefined when it has none. */
function attribute(attrs: string, name: string): string | undefined {
  let at = 0;
  for (;;) {
    at = attrs.indexOf(name, at);
    if (at < 0) return undefined;
    const before = at === 0 ? 32 : attrs.charCodeAt(at - 1);
    let k = at + name.length;
    while (attrs.charCodeAt(k) === 32) k++;
    if ((before === 32 || before === 9 || before === 10 || before === 13) && attrs.charCodeAt(k) === 61) {
      k++;
      while (attrs.charCodeAt(k) === 32) k++;
      const q = attrs.charCodeAt(k);
      if (q === 34 || q === 39) {
        const end = attrs.indexOf(q === 34 ? '"' : "'", k + 1);
        if (end > 0) return xmlText(attrs.slice(k + 1, end));
      }
    }
    at += name.length;
  }
}

/** A cell reference's column number (A1 -> 1), 0 when it has no letters. */
function columnOf(ref: string): number {
  let col = 0;
  for (let i = 0; i < ref.length; i++) {
    const c = ref.charCodeAt(i);
    if (c >= 65 && c <= 90) col = col * 26 + (c - 64);
    else if (c >= 97 && c <= 122) col = col * 26 + (c - 96);
    else break;
  }
  return col;
}

// the elements the scanner looks at
const ROW = 1, C = 2, V = 3, F = 4, T = 5, IS = 6, RPH = 7, SHEET_DATA = 8;

/** Which of the elements above `text` names from `from` to `to` (0: another). */
function tagOf(text: string, from: number, to: number): number {
  const c0 = text.charCodeAt(from);
  switch (to - from) {
    case 1:
      return c0 === 99 ? C : c0 === 118 ? V : c0 === 102 ? F : c0 === 116 ? T : 0;
    case 2:
      return c0 === 105 && text.charCodeAt(from + 1) === 115 ? IS : 0;
    case 3:
      return c0 !== 114 ? 0 : text.startsWith('row', from) ? ROW : text.startsWith('rPh', from) ? RPH : 0;
    case 9:
      return text.startsWith('sheetData', from) ? SHEET_DATA : 0;
    default:
      return 0;
  }
}

const DAY_MS = 86_400_000;

/** YYYY-MM-DD of a day counted from 1970-01-01, for years 1 to 9999 (else undefined). */
function dayText(days: number): string | undefined {
  // Howard Hinnant's civil_from_days
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  if (y < 1 || y > 9999) return undefined;
  return `${String(y).padStart(4, '0')}-${m < 10 ? '0' : ''}${m}-${d < 10 ? '0' : ''}${d}`;
}

/**
 * A worksheet's XML text, fed in chunks, to rows of import values: the <row>s of <sheetData>
 * and their <c>ells (r: the reference; t: s shared string, str / inlineStr text, b boolean, e
 * error, d ISO date, else a number, a date when the cell's number format is one; a cell with an
 * <f> is its formula's result, the <v>).
 */
export class WorksheetScanner {
  private rest = '';
  private inSheetData = false;
  private row: { index: number; values: ImportValue[] } | undefined;
  private lastRow = 0;
  private lastCol = 0;
  // the cell being read
  private col = 0;
  private style = 0;
  private type: string | undefined;
  private formula = false;
  private value: string | undefined;
  /** Where text goes: 0 nowhere, 1 the <v>, 2 a <t> of an inline string. */
  private into = 0;
  private inPhonetic = false;
  private rowStyle = 0;
  private readonly strings: Array<ImportValue | undefined> = [];
  private readonly dateStyles = new Map<number, boolean>();

  constructor(
    private readonly sharedStrings: readonly unknown[],
    private readonly numFmtOf: (styleId: number) => unknown,
    private readonly date1904: boolean,
  ) {}

  /** The rows the chunk completes. */
  push(chunk: string): SheetRow[] {
    const out: SheetRow[] = [];
    const text = this.rest + chunk;
    const n = text.length;
    let i = 0;
    while (i < n) {
      const lt = text.indexOf('<', i);
      if (lt < 0) {
        // text up to the end; kept whole if it is a value's (it may go on in the next chunk)
        if (this.into === 0) i = n;
        break;
      }
      if (lt > i && this.into !== 0) this.text(text.slice(i, lt));
      i = lt;
      let k = lt + 1;
      if (k >= n) break;
      let c = text.charCodeAt(k);
      if (c === 33 || c === 63) {
        // <!-- comment -->, <![CDATA[text]]>, <?instruction?> or <!DECLARATION>
        if (n - lt < 9 && ('<![CDATA['.startsWith(text.slice(lt)) || '<!--'.startsWith(text.slice(lt)))) break;
        const cdata = text.startsWith('<![CDATA[', lt);
        const close = text.startsWith('<!--', lt) ? '-->' : cdata ? ']]>' : c === 63 ? '?>' : '>';
        const end = text.indexOf(close, lt + 2);
        if (end < 0) break;
        if (cdata && this.into !== 0) this.text(text.slice(lt + 9, end), true);
        i = end + close.length;
        continue;
      }
      const closing = c === 47;
      if (closing) k++;
      const nameFrom = k;
      while (k < n) {
        c = text.charCodeAt(k);
        if (c === 62 || c === 47 || c === 32 || c === 9 || c === 10 || c === 13) break;
        k++;
      }
      const nameTo = k;
      // the end of the tag ('>' in a quoted value is not it)
      while (k < n) {
        c = text.charCodeAt(k);
        if (c === 62) break;
        if (c === 34 || c === 39) {
          const q = text.indexOf(c === 34 ? '"' : "'", k + 1);
          if (q < 0) {
            k = n;
            break;
          }
          k = q;
        }
        k++;
      }
      if (k >= n) break; // cut by the end of the chunk
      i = k + 1;
      const tag = tagOf(text, nameFrom, nameTo);
      if (tag === 0) continue;
      if (closing) this.close(tag, out);
      else {
        const selfClosing = text.charCodeAt(k - 1) === 47;
        this.open(tag, tag === ROW || tag === C ? text.slice(nameTo, selfClosing ? k - 1 : k) : '');
        if (selfClosing) this.close(tag, out);
      }
    }
    this.rest = i >= n ? '' : text.slice(i);
    if (this.rest.length > 64 * 1024 * 1024) throw new Error('a cell or tag longer than 64 MB');
    return out;
  }

  /** At the end of the text: what is left must be nothing but white space. */
  end(): void {
    if (this.rest.trim() !== '' || this.inSheetData) throw new Error('the worksheet ends before its data does');
  }

  private text(s: string, raw = false): void {
    const t = raw ? s : xmlText(s);
    this.value = this.value === undefined ? t : this.value + t;
  }

  private open(tag: number, attrs: string): void {
    switch (tag) {
      case SHEET_DATA:
        this.inSheetData = true;
        break;
      case ROW: {
        if (!this.inSheetData) break;
        const r = attribute(attrs, 'r');
        const number = r === undefined ? this.lastRow + 1 : parseInt(r, 10);
        this.lastRow = number;
        this.lastCol = 0;
        this.rowStyle = parseInt(attribute(attrs, 's') ?? '0', 10) || 0;
        this.row = { index: number - 1, values: [] };
        break;
      }
      case C: {
        if (this.row === undefined) break;
        const r = attribute(attrs, 'r');
        const col = r === undefined ? 0 : columnOf(r);
        this.col = col > 0 ? col : this.lastCol + 1;
        this.lastCol = this.col;
        this.style = parseInt(attribute(attrs, 's') ?? '0', 10) || 0;
        this.type = attribute(attrs, 't');
        this.formula = false;
        this.value = undefined;
        this.into = 0;
        break;
      }
      case F:
        if (this.row !== undefined) this.formula = true;
        break;
      case V:
        if (this.row !== undefined) {
          this.value = '';
          this.into = 1;
        }
        break;
      case IS:
        if (this.row !== undefined) this.value = '';
        break;
      case RPH:
        this.inPhonetic = true;
        break;
      case T:
        if (this.row !== undefined && !this.inPhonetic) {
          this.value ??= '';
          this.into = 2;
        }
        break;
      default:
        break;
    }
  }

  private close(tag: number, out: SheetRow[]): void {
    switch (tag) {
      case SHEET_DATA:
        this.inSheetData = false;
        break;
      case ROW:
        if (this.row !== undefined) {
          const values = this.row.values;
          for (let j = 0; j < values.length; j++) if (values[j] === undefined) values[j] = null;
          out.push([this.row.index, values]);
          this.row = undefined;
        }
        break;
      case V:
      case T:
        this.into = 0;
        break;
      case RPH:
        this.inPhonetic = false;
        break;
      case C:
        if (this.row !== undefined) {
          const v = this.cellValue();
          if (v !== null) this.row.values[this.col - 1] = v;
          this.into = 0;
        }
        break;
      default:
        break;
    }
  }

  private cellValue(): ImportValue {
    const text = this.value;
    if (text === undefined) return null;
    if (this.formula) return this.type === 'str' ? xlsxValue(text) : xlsxValue(parseFloat(text));
    switch (this.type) {
      case 's': {
        const k = parseInt(text, 10);
        let v = this.strings[k];
        if (v === undefined) v = this.strings[k] = xlsxValue(this.sharedStrings[k]);
        return v;
      }
      case 'inlineStr':
      case 'str':
        return xlsxValue(text);
      case 'e':
        return xlsxValue({ error: text });
      case 'b':
        return parseInt(text, 10) !== 0;
      case 'd':
        return xlsxValue(new Date(text));
      default: {
        const n = parseFloat(text);
        if (!this.isDate()) return Number.isFinite(n) ? n : null;
        // exceljs's excelToDate: days since 1899-12-30 (1904-01-01 in the 1904 system)
        const ms = Math.round((n - 25569 + (this.date1904 ? 1462 : 0)) * DAY_MS);
        const day = ms % DAY_MS === 0 ? dayText(ms / DAY_MS) : undefined;
        return day !== undefined ? { date: day } : xlsxValue(new Date(ms));
      }
    }
  }

  /** Whether the cell's number format (its own style's, else its row's) is a date's. */
  private isDate(): boolean {
    const id = this.style !== 0 ? this.style : this.rowStyle;
    if (id === 0) return false;
    let d = this.dateStyles.get(id);
    if (d === undefined) {
      d = isDateFormat(this.numFmtOf(id));
      this.dateStyles.set(id, d);
    }
    return d;
  }
}
