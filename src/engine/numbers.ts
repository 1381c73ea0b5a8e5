/**
 * Numbers in cells: range check and the lenient (strict=false) reading of formatted numbers
 * such as "$5,000", "50%", "1,234.5", "(12)".
 */
import { FORMAT_TABLES } from './formatTables.ts';
import { FMT, emptyFormat, formatToString } from './format.ts';
import { MAX_CELL_NUMBER, MIN_CELL_NUMBER } from './limits.ts';

export function inCellNumberRange(n: number): boolean {
  return Number.isFinite(n) && n >= MIN_CELL_NUMBER && n <= MAX_CELL_NUMBER;
}

/** Result of a lenient number parse: the number and the display format it implies. */
export interface LenientNumber {
  value: number;
  /** Descriptor with the number format the text implied (currency, percent, separator), if any. */
  format?: string;
}

// Symbol -> currency code preferred when several currencies share the symbol.
const PREFERRED: Record<string, string> = { '$': 'USD', '¥': 'JPY', 'kr': 'SEK', 'kr.': 'DKK' };

function currencyIndexForSymbol(sym: string): number {
  const code = PREFERRED[sym];
  const list = FORMAT_TABLES.currency;
  if (code !== undefined) return list.findIndex((c) => c.code === code);
  return list.findIndex((c) => c.symbol === sym && c.code !== 'none');
}

const SYMBOLS = [...new Set(FORMAT_TABLES.currency.filter((c) => c.code !== 'none').map((c) => c.symbol))]
  .sort((a, b) => b.length - a.length);

/**
 * Parse text as a number the way the grid does for a user typing it (en-US separators).
 * Returns null when the text is not a number. Plain numerals ("42", "-1.5e3") give no format.
 */
export function parseLenientNumber(text: string): LenientNumber | null {
  let s = text.trim();
  if (s === '') return null;
  let negative = false;
  if (/^\(.*\)$/.test(s)) {
    negative = true;
    s = s.slice(1, -1).trim();
  }
  if (s.startsWith('-')) {
    negative = !negative;
    s = s.slice(1).trim();
  } else if (s.startsWith('+')) {
    s = s.slice(1).trim();
  }
  let currency = -1;
  for (const sym of SYMBOLS) {
    if (s.startsWith(sym)) {
      currency = currencyIndexForSymbol(sym);
      s = s.slice(sym.length).trim();
      break;
    }
    if (s.endsWith(sym) && /\d/.test(s.slice(0, -sym.length))) {
      currency = currencyIndexForSymbol(sym);
      s = s.slice(0, -sym.length).trim();
      break;
    }
  }
  if (currency < 0) {
    const code = /^([A-Z]{3})\s*(.*)$/.exec(s);
    if (code) {
      const idx = FORMAT_TABLES.currency.findIndex((c) => c.code === code[1]);
      if (idx > 0) {
        currency = idx;
        s = code[2]!;
      }
    }
  }
  if (s.startsWith('-') && currency >= 0) {
    negative = !negative;
    s = s.slice(1).trim();
  }
  let percent = false;
  if (s.endsWith('%')) {
    percent = true;
    s = s.slice(0, -1).trim();
  }
  let thousands = false;
  if (/^\d{1,3}(,\d{3})+(\.\d*)?$/.test(s)) {
    thousands = true;
    s = s.replace(/,/g, '');
  }
  if (!/^(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(s)) return null;
  let value = Number(s);
  if (!Number.isFinite(value)) return null;
  if (percent) value = Number((value / 100).toPrecision(15));
  if (negative) value = -value;
  if (currency < 0 && !percent && !thousands) return { value };
  const spec = emptyFormat();
  if (currency >= 0) {
    spec[FMT.numberFormat] = FORMAT_TABLES.numberFormat.indexOf('CURRENCY');
    spec[FMT.currency] = currency;
    spec[FMT.thousandsSeparator] = 1;
  } else if (percent) {
    spec[FMT.numberFormat] = FORMAT_TABLES.numberFormat.indexOf('PERCENT');
  }
  if (thousands) spec[FMT.thousandsSeparator] = 1;
  return { value, format: formatToString(spec) };
}
