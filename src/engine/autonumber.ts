/**
 * AUTO_NUMBER system columns: validation of AutoNumberFormat and generation of values.
 * prefix/suffix may hold the date tokens {YY} {YYYY} {MM} {DD}; fill is 0..10 '0' characters
 * (zero padding of the number); prefix + fill + suffix is at most 40 characters (counting the
 * tokens as written).
 */
import { InvalidInput, LimitExceeded } from './errors.ts';
import { MAX_AUTO_NUMBER_FILL, MAX_AUTO_NUMBER_LENGTH } from './limits.ts';

export interface AutoNumberFormat {
  prefix?: string;
  suffix?: string;
  fill?: string;
  startingNumber?: number;
}

const TOKEN = /\{(YYYY|YY|MM|DD)\}/g;

/**
 * Validate a written AutoNumberFormat: 1084 when a field has the wrong type, fill is not 0..10
 * zeros or startingNumber is not a non-negative integer; 1088 when the concatenated format is
 * longer than 40. Returns a normalised copy (absent fields dropped).
 */
export function validateAutoNumberFormat(v: unknown): AutoNumberFormat {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new InvalidInput(1084);
  const o = v as Record<string, unknown>;
  const out: AutoNumberFormat = {};
  for (const k of ['prefix', 'suffix', 'fill'] as const) {
    const x = o[k];
    if (x === undefined || x === null) continue;
    if (typeof x !== 'string') throw new InvalidInput(1084);
    out[k] = x;
  }
  if (out.fill !== undefined && (!/^0*$/.test(out.fill) || out.fill.length > MAX_AUTO_NUMBER_FILL)) throw new InvalidInput(1084);
  const sn = o.startingNumber;
  if (sn !== undefined && sn !== null) {
    if (typeof sn !== 'number' || !Number.isSafeInteger(sn) || sn < 0) throw new InvalidInput(1084);
    out.startingNumber = sn;
  }
  for (const k of ['prefix', 'suffix'] as const) {
    const s = out[k];
    // A '{' or '}' outside a known token is a malformed token.
    if (s !== undefined && /[{}]/.test(s.replace(TOKEN, ''))) throw new InvalidInput(1084);
  }
  const concatenated = (out.prefix ?? '') + (out.fill ?? '') + (out.suffix ?? '');
  if (concatenated.length > MAX_AUTO_NUMBER_LENGTH) throw new LimitExceeded(1088, concatenated, concatenated.length);
  return out;
}

function expandTokens(s: string, at: Date): string {
  const y = at.getUTCFullYear();
  return s.replace(TOKEN, (_w, tok: string) => {
    switch (tok) {
      case 'YYYY': return String(y).padStart(4, '0');
      case 'YY': return String(y % 100).padStart(2, '0');
      case 'MM': return String(at.getUTCMonth() + 1).padStart(2, '0');
      default: return String(at.getUTCDate()).padStart(2, '0');
    }
  });
}

/** The text of auto number `n` (dates expanded at `atMs`, UTC). */
export function renderAutoNumber(fmt: AutoNumberFormat, n: number, atMs: number): string {
  const at = new Date(atMs);
  const digits = String(n).padStart((fmt.fill ?? '').length, '0');
  return expandTokens(fmt.prefix ?? '', at) + digits + expandTokens(fmt.suffix ?? '', at);
}

/**
 * Hand out `count` consecutive numbers: the first is max(next, startingNumber). Returns the
 * numbers and the next counter value to persist with the column.
 */
export function allocateAutoNumbers(fmt: AutoNumberFormat, next: number | undefined, count: number): { numbers: number[]; next: number } {
  let n = Math.max(next ?? 0, fmt.startingNumber ?? 1);
  const numbers: number[] = [];
  for (let i = 0; i < count; i++) numbers.push(n++);
  return { numbers, next: n };
}

/** The part of a column the auto-number assignment needs. */
export interface AutoNumberColumn {
  id: number;
  systemColumnType?: string;
  autoNumberFormat?: AutoNumberFormat;
  nextAutoNumber?: number;
}

/**
 * Values of the AUTO_NUMBER columns for `rowCount` new rows (in display order of creation):
 * per column id, the rendered text of each row, and the counter to persist
 * (column.nextAutoNumber). Rows get these as ordinary stored text values.
 */
export function assignAutoNumbers(columns: readonly AutoNumberColumn[], rowCount: number, atMs: number): Map<number, { values: string[]; next: number }> {
  const out = new Map<number, { values: string[]; next: number }>();
  for (const c of columns) {
    if (c.systemColumnType !== 'AUTO_NUMBER') continue;
    const fmt = c.autoNumberFormat ?? {};
    const { numbers, next } = allocateAutoNumbers(fmt, c.nextAutoNumber, rowCount);
    out.set(c.id, { values: numbers.map((n) => renderAutoNumber(fmt, n, atMs)), next });
  }
  return out;
}
