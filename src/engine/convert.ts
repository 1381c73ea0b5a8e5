/**
 * What happens to existing cell values when a column's type changes (update column): each
 * value is re-read for the new type when it fits, otherwise it stays as text (its display
 * text). Numbers stay numbers where the new type takes numbers (TEXT_NUMBER, PICKLIST).
 *
 *   -> TEXT_NUMBER / PICKLIST   numbers kept; everything else becomes its display text
 *   -> CHECKBOX                 booleans kept; "true"/"false" text becomes a boolean
 *   -> DATE                     dates kept; instants to their day; text read leniently
 *   -> ABSTRACT_DATETIME        instants kept; dates to 08:00 of the day; text read leniently
 *   -> CONTACT_LIST             contacts kept; one-contact lists unwrap; email text becomes a contact
 *   -> MULTI_CONTACT_LIST       contact lists kept; a contact becomes a one-item list;
 *                               text of comma-separated emails becomes a list
 *   -> MULTI_PICKLIST           option lists kept; text becomes a one-item list
 *   -> DURATION                 durations kept; duration text read; numbers as days
 *   -> PREDECESSOR              predecessor lists kept; text read with the row numbers given
 * Formats, formulas, hyperlinks and images are untouched.
 */
import type { StoredCell, StoredValue } from './cells.ts';
import type { ColumnDef } from './columns.ts';
import { isValidEmail, normaliseEmail } from './contacts.ts';
import { dayOfEpochMs, parseLenientDay } from './dates.ts';
import { valueText } from './display.ts';
import { durationFromDays, parseDuration } from './duration.ts';
import { parsePredecessorText } from './predecessors.ts';
import { projectDayStart } from './values.ts';

export interface ConvertContext {
  /** Row number -> row id, for text converted to predecessors. */
  rowIdOfNumber?: (rowNumber: number) => number | undefined;
  /** Row id -> row number, for predecessors converted to text. */
  rowNumberOf?: (rowId: number) => number | undefined;
}

function asText(from: ColumnDef, v: StoredValue, format: string | undefined, ctx: ConvertContext): string | undefined {
  const t = valueText(from, v, format, ctx);
  return t === '' ? undefined : t;
}

/** The value of a cell after its column changes from `from` to `to`. */
export function convertValue(v: StoredValue | undefined, from: ColumnDef, to: ColumnDef, format?: string, ctx: ConvertContext = {}): StoredValue | undefined {
  if (v === undefined) return undefined;
  const text = (): string | undefined => asText(from, v, format, ctx);
  const obj = typeof v === 'object' ? v : undefined;
  switch (to.type) {
    case 'TEXT_NUMBER':
    case 'PICKLIST':
      return typeof v === 'number' ? v : text();
    case 'CHECKBOX': {
      if (typeof v === 'boolean') return v;
      const t = text();
      const l = t?.trim().toLowerCase();
      return l === 'true' ? true : l === 'false' ? false : t;
    }
    case 'DATE': {
      if (obj && 'd' in obj) return obj;
      if (obj && 't' in obj) {
        const d = dayOfEpochMs(obj.t);
        return d === null ? text() : { d };
      }
      const t = text();
      const d = t === undefined || typeof v === 'number' ? null : parseLenientDay(t);
      return d === null ? t : { d };
    }
    case 'ABSTRACT_DATETIME':
    case 'DATETIME': {
      if (obj && 't' in obj) return obj;
      if (obj && 'd' in obj) return { t: projectDayStart(obj.d) };
      const t = text();
      const d = t === undefined || typeof v === 'number' ? null : parseLenientDay(t);
      return d === null ? t : { t: projectDayStart(d) };
    }
    case 'CONTACT_LIST': {
      if (obj && 'c' in obj) return obj;
      if (obj && 'mc' in obj && obj.mc.length === 1) return { c: { ...obj.mc[0]! } };
      const t = text();
      return t !== undefined && typeof v === 'string' && isValidEmail(t) ? { c: { email: normaliseEmail(t) } } : t;
    }
    case 'MULTI_CONTACT_LIST': {
      if (obj && 'mc' in obj) return obj;
      if (obj && 'c' in obj) return { mc: [{ ...obj.c }] };
      const t = text();
      if (t === undefined || typeof v !== 'string') return t;
      const parts = t.split(/[,;]/).map((p) => p.trim()).filter((p) => p !== '');
      return parts.length > 0 && parts.every(isValidEmail) ? { mc: parts.map((e) => ({ email: normaliseEmail(e) })) } : t;
    }
    case 'MULTI_PICKLIST': {
      if (obj && 'mp' in obj) return obj;
      const t = text();
      return t === undefined ? undefined : { mp: [t] };
    }
    case 'DURATION': {
      if (obj && 'du' in obj) return obj;
      if (typeof v === 'number' && v >= 0) return { du: durationFromDays(v) };
      const t = text();
      const d = t === undefined ? null : parseDuration(t);
      return d === null ? t : { du: d };
    }
    case 'PREDECESSOR': {
      if (obj && 'p' in obj) return obj;
      const t = text();
      if (t === undefined || ctx.rowIdOfNumber === undefined) return t;
      const list = parsePredecessorText(t, ctx.rowIdOfNumber);
      return list === null ? t : list.length === 0 ? undefined : { p: list };
    }
  }
}

/** A stored cell after a type change (the value converted, everything else kept). */
export function convertCell(cell: StoredCell, from: ColumnDef, to: ColumnDef, ctx: ConvertContext = {}): StoredCell {
  const v = convertValue(cell.v, from, to, cell.f ?? from.format, ctx);
  const out: StoredCell = { ...cell };
  if (v === undefined) delete out.v;
  else out.v = v;
  return out;
}
