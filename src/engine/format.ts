/**
 * Format descriptors of spec section 1.1: 17 comma-separated positions, each empty (unset) or
 * the index of an option in FORMAT_TABLES. Plus the number display that the descriptor drives
 * (formatNumber) and the baseline rule for row and column formats (rule 3).
 *
 * A bad descriptor is error 1031 ("Value {0} invalid for attribute {1}", {1} = "format"):
 * `format` travels as an attribute of a cell, row or column body, not as a query parameter
 * (which would be 1018).
 */
import { InvalidInput } from './errors.ts';
import { FORMAT_POSITIONS, FORMAT_TABLES, optionCount } from './formatTables.ts';

export const FORMAT_LENGTH = FORMAT_POSITIONS.length; // 17

/** Positions of the descriptor, by name (colors have three distinct positions). */
export const FMT = {
  fontFamily: 0, fontSize: 1, bold: 2, italic: 3, underline: 4, strikethrough: 5,
  horizontalAlign: 6, verticalAlign: 7, textColor: 8, backgroundColor: 9, taskbarColor: 10,
  currency: 11, decimalCount: 12, thousandsSeparator: 13, numberFormat: 14, textWrap: 15,
  dateFormat: 16,
} as const;

/** A parsed descriptor: one option index or null (unset) per position. */
export type FormatSpec = (number | null)[];

export function emptyFormat(): FormatSpec {
  return new Array<number | null>(FORMAT_LENGTH).fill(null);
}

/**
 * Parse and validate a descriptor. Fewer than 17 positions are padded with unset ones (a
 * client that drops trailing commas still means the same); more than 17, a non-integer or an
 * index outside the position's table is 1031.
 */
export function parseFormat(desc: unknown, attribute = 'format'): FormatSpec {
  if (typeof desc !== 'string') throw new InvalidInput(1031, String(desc), attribute);
  const parts = desc.split(',');
  if (parts.length > FORMAT_LENGTH) throw new InvalidInput(1031, desc, attribute);
  const spec = emptyFormat();
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]!.trim();
    if (p === '') continue;
    if (!/^\d{1,3}$/.test(p)) throw new InvalidInput(1031, desc, attribute);
    const n = Number(p);
    if (n >= optionCount(i)) throw new InvalidInput(1031, desc, attribute);
    spec[i] = n;
  }
  return spec;
}

/** The 17-position text of a spec (trailing empties kept). */
export function formatToString(spec: FormatSpec): string {
  const out: string[] = [];
  for (let i = 0; i < FORMAT_LENGTH; i++) {
    const v = spec[i];
    out.push(v === null || v === undefined ? '' : String(v));
  }
  return out.join(',');
}

/** Validate a written descriptor and return its canonical 17-position form. */
export function normaliseFormat(desc: unknown, attribute = 'format'): string {
  return formatToString(parseFormat(desc, attribute));
}

/** True when no position is set: such a format is never stored nor returned. */
export function isDefaultFormat(desc: string | null | undefined): boolean {
  return desc === null || desc === undefined || /^,*$/.test(desc);
}

/**
 * The stored form of a format: undefined for the default, else the canonical descriptor.
 * Services store what this returns and present `format` only when it is defined.
 */
export function storedFormat(desc: string | null | undefined): string | undefined {
  if (isDefaultFormat(desc)) return undefined;
  return formatToString(parseFormat(desc));
}

/**
 * Merge descriptors left to right: a set position of a later one overrides the earlier ones.
 * Undefined/empty inputs are skipped. Returns undefined when the result is default.
 */
export function mergeFormats(...descs: (string | null | undefined)[]): string | undefined {
  // the common case (nothing formatted) without building a descriptor
  if (descs.every((d) => isDefaultFormat(d))) return undefined;
  const spec = emptyFormat();
  for (const d of descs) {
    if (isDefaultFormat(d)) continue;
    const s = parseFormat(d);
    for (let i = 0; i < FORMAT_LENGTH; i++) if (s[i] !== null) spec[i] = s[i]!;
  }
  const out = formatToString(spec);
  return isDefaultFormat(out) ? undefined : out;
}

/**
 * Spec 1.1 rule 3: the format a cell gets when a value is written to it.
 * - A cell that was blank (new row or empty cell) starts from the baseline: column format,
 *   then row format on top, then the cell's own format, then the format written with it.
 * - A cell that already held a value keeps its own format (plus the written one).
 */
export function formatForWrittenCell(opts: {
  wasBlank: boolean;
  columnFormat?: string | undefined;
  rowFormat?: string | undefined;
  cellFormat?: string | undefined;
  writtenFormat?: string | undefined;
}): string | undefined {
  // nothing formatted (most cells): no merge
  if (opts.columnFormat === undefined && opts.rowFormat === undefined && opts.cellFormat === undefined && opts.writtenFormat === undefined) return undefined;
  if (opts.wasBlank) return mergeFormats(opts.columnFormat, opts.rowFormat, opts.cellFormat, opts.writtenFormat);
  return mergeFormats(opts.cellFormat, opts.writtenFormat);
}

/**
 * Spec 1.1 rule 3, when a row or column format is set: blank cells of that row or column
 * take the new baseline; cells holding a value are unchanged (returns their format as is).
 */
export function formatAfterBaselineChange(cellFormat: string | undefined, cellHasValue: boolean, baseline: string | undefined): string | undefined {
  if (cellHasValue) return cellFormat;
  return mergeFormats(cellFormat, baseline);
}

// ---------------------------------------------------------------------------------------
// Number display

function optionAt(spec: FormatSpec, pos: number): number | null {
  const v = spec[pos];
  return v === undefined ? null : v;
}

function groupThousands(intDigits: string): string {
  return intDigits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** Plain decimal text of a finite number without exponent notation. */
function plainDecimal(n: number): string {
  const s = String(n);
  if (!/e/i.test(s)) return s;
  // Exponent form: expand with toFixed (exact enough for display), trimming zeros.
  if (Math.abs(n) >= 1) return BigInt(Math.round(n)).toString();
  return n.toFixed(20).replace(/\.?0+$/, '');
}

/**
 * displayValue of a number in a TEXT_NUMBER or PICKLIST cell, following the cell's format
 * (falling back to the column's): numberFormat (NUMBER, CURRENCY, PERCENT), decimalCount,
 * thousandsSeparator, currency.
 *  - PERCENT multiplies by 100 and appends '%'.
 *  - CURRENCY prefixes the currency symbol ('$' when the currency position is unset or
 *    'none'); without decimalCount it shows 2 decimals.
 *  - decimalCount rounds half away from zero to that many places; unset shows the number's
 *    own digits (12 significant digits at most, to hide binary noise).
 *  - Negative amounts read '-$1,234.50' / '-12%'.
 */
export function formatNumber(n: number, format?: string | FormatSpec | null): string {
  if (!Number.isFinite(n)) return String(n);
  // the common case, an unformatted whole number, is its own text
  if ((format === undefined || format === null || (typeof format === 'string' && isDefaultFormat(format))) && Number.isInteger(n) && Math.abs(n) < 1e12) return String(n);
  const spec = format === undefined || format === null ? emptyFormat()
    : typeof format === 'string' ? (isDefaultFormat(format) ? emptyFormat() : parseFormat(format)) : format;
  const nf = FORMAT_TABLES.numberFormat[optionAt(spec, FMT.numberFormat) ?? 0] ?? 'none';
  const dcIdx = optionAt(spec, FMT.decimalCount);
  const thousands = optionAt(spec, FMT.thousandsSeparator) === 1;
  let x = nf === 'PERCENT' ? n * 100 : n;
  let decimals: number | null = dcIdx;
  if (decimals === null && nf === 'CURRENCY') decimals = 2;
  const negative = x < 0;
  x = Math.abs(x);
  let body: string;
  if (decimals !== null) {
    const factor = 10 ** decimals;
    const rounded = Math.round((x + Number.EPSILON * x) * factor) / factor;
    body = rounded.toFixed(decimals);
  } else {
    body = plainDecimal(Number(x.toPrecision(12)));
  }
  if (thousands) {
    const dot = body.indexOf('.');
    const intPart = dot < 0 ? body : body.slice(0, dot);
    body = groupThousands(intPart) + (dot < 0 ? '' : body.slice(dot));
  }
  let out = body;
  if (nf === 'CURRENCY') {
    const cur = FORMAT_TABLES.currency[optionAt(spec, FMT.currency) ?? 0];
    const symbol = cur === undefined || cur.code === 'none' ? '$' : cur.symbol;
    out = symbol + out;
  } else if (nf === 'PERCENT') {
    out += '%';
  }
  const isZero = /^[^1-9]*$/.test(body);
  return negative && !isZero ? '-' + out : out;
}
