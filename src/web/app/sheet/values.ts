import type { Cell, Column, Hyperlink } from './types.ts';
import { contactsText, contactText, resolveContact, resolveContacts, type Person } from './contacts.ts';
import { parseTypedDay, type DayOrder } from './dates.ts';

/**
 * Per column type: which cells take edits, the text an editor starts from, and the cell object
 * an edit sends to Update Rows. Typed text is read as the page shows values: days in the
 * locale's order, contacts by name; what cannot be read as one is refused here in words (a
 * Refusal), the rest the server parses and checks (strict columns refuse with the catalogue's
 * message).
 */

/**
 * What a cell edit sends: exactly one of value, objectValue or formula (or a clear); or a link
 * (null: the link removed) with the text to show (none: the server shows the address).
 */
export type CellInput =
  | { value: string | number | boolean }
  | { objectValue: Record<string, unknown> }
  | { formula: string }
  | { hyperlink: Hyperlink | null; value?: string };

/** Typed text that is no value of its column: why, in words (refusalMessage names the cell). Nothing is sent. */
export interface Refusal {
  refused: string;
}

/** What reading typed text needs to know: the people contacts are matched with, the locale's order of days. */
export interface TextContext {
  people?: readonly Person[];
  order?: DayOrder;
}

/** System columns, DATETIME (set by the server), column formulas and locked columns take no edits. */
export function readOnlyReason(col: Column): string | null {
  if (col.systemColumnType) return 'a system column';
  if (col.type === 'DATETIME') return 'set by the server';
  // a project sheet's end dates follow from Start and Duration (the server refuses them: 1080)
  if (col.tags?.includes('GANTT_END_DATE')) return 'worked out from Start and Duration';
  if (col.formula) return 'a column formula';
  if (col.lockedForUser) return 'locked';
  return null;
}

/** The text an editor opens with: the formula of a formula cell, else the value as typed. */
export function editText(col: Column, c: Cell | undefined): string {
  if (!c) return '';
  if (c.formula) return c.formula;
  switch (col.type) {
    case 'CHECKBOX':
      return c.value === true ? 'true' : '';
    case 'CONTACT_LIST': {
      const ov = c.objectValue;
      if (ov && typeof ov.email === 'string') return contactText({ email: ov.email, name: typeof ov.name === 'string' ? ov.name : undefined });
      return c.value === undefined || c.value === null ? '' : String(c.value);
    }
    case 'DATE':
    case 'ABSTRACT_DATETIME':
      return typeof c.value === 'string' ? c.value.slice(0, col.type === 'DATE' ? 10 : 19) : '';
    case 'MULTI_PICKLIST':
      return multiValues(c).join(', ');
    case 'MULTI_CONTACT_LIST':
      return contactsText(contactValues(c));
    default:
      if (c.value === undefined || c.value === null) return c.displayValue ?? '';
      return String(c.value);
  }
}

/**
 * The text a copied cell puts on the clipboard: what it shows, except contacts, which are
 * copied as `Name <email>` so that pasting them (here or in a mail program) keeps who they are.
 */
export function copyText(col: Column, c: Cell | undefined, shown: string): string {
  if (!c || c.formula) return shown;
  if (col.type === 'CONTACT_LIST' || col.type === 'MULTI_CONTACT_LIST') {
    const cs = contactValues(c);
    if (cs.length > 0) return contactsText(cs);
  }
  return shown;
}

/** The options of a MULTI_PICKLIST cell. */
export function multiValues(c: Cell | undefined): string[] {
  const ov = c?.objectValue;
  if (ov && Array.isArray(ov.values)) return ov.values.map((v) => String(v));
  const d = c?.displayValue ?? (c?.value !== undefined && c?.value !== null ? String(c.value) : '');
  return d ? d.split(/\n|, /).filter((s) => s) : [];
}

/** The contacts of a MULTI_CONTACT_LIST (or CONTACT_LIST) cell. */
export function contactValues(c: Cell | undefined): Array<{ email: string; name?: string }> {
  const ov = c?.objectValue;
  if (ov && Array.isArray(ov.values)) {
    return ov.values.map((v) => v as { email?: string; name?: string }).filter((v) => v.email).map((v) => ({ email: v.email!, name: v.name }));
  }
  if (ov && typeof ov.email === 'string') return [{ email: ov.email, name: typeof ov.name === 'string' ? ov.name : undefined }];
  return [];
}

/**
 * What to send for text typed into a cell of this column: `=...` is a formula; empty clears;
 * TEXT_NUMBER sends a number when the text is one; CHECKBOX takes true/false; a day is sent as
 * its ISO day (dates.ts); contacts are matched with `ctx.people` (contacts.ts).
 */
export function inputFromText(col: Column, text: string, ctx: TextContext = {}): CellInput | Refusal {
  if (text.startsWith('=') && text.length > 1) return { formula: text };
  if (text === '') return { value: '' };
  switch (col.type) {
    case 'TEXT_NUMBER':
      return /^-?(\d+\.?\d*|\.\d+)$/.test(text.trim()) ? { value: Number(text.trim()) } : { value: text };
    case 'CHECKBOX':
      return { value: /^(true|1|yes|x|checked)$/i.test(text.trim()) };
    case 'MULTI_PICKLIST':
      return { objectValue: { objectType: 'MULTI_PICKLIST', values: text.split(/\n|,\s*/).map((s) => s.trim()).filter((s) => s) } };
    case 'DATE':
    case 'ABSTRACT_DATETIME': {
      if (text.trim() === '') return { value: '' };
      const d = parseTypedDay(text, ctx.order ?? 'MDY');
      if ('error' in d) return { refused: d.error };
      return { value: 'day' in d ? d.day : d.iso };
    }
    case 'CONTACT_LIST': {
      if (text.trim() === '') return { value: '' };
      const r = resolveContact(text, ctx.people ?? []);
      return 'error' in r ? { refused: r.error } : { objectValue: { ...r.contact } };
    }
    case 'MULTI_CONTACT_LIST': {
      if (text.trim() === '') return { value: '' };
      const r = resolveContacts(text, ctx.people ?? []);
      return 'error' in r ? { refused: r.error } : { objectValue: { objectType: 'MULTI_CONTACT', values: r.contacts } };
    }
    default:
      return { value: text };
  }
}

/** A refusal as the page shows it: the column (and row) and why. */
export function refusalMessage(col: Column, r: Refusal, rowNumber?: number): string {
  return `${rowNumber !== undefined ? `Row ${rowNumber}, column` : 'Column'} “${col.title}”: ${r.refused}`;
}

/** Whether reading typed text gave a refusal rather than something to send. */
export function isRefusal(x: CellInput | Refusal): x is Refusal {
  return 'refused' in x;
}

/** The cell of Update Rows for an input (strict: the server checks values against the column's type). */
export function cellPayload(columnId: number, input: CellInput): Record<string, unknown> {
  if ('formula' in input) return { columnId, formula: input.formula };
  if ('objectValue' in input) return { columnId, objectValue: input.objectValue };
  // a link without text shows its address (the server's choice); a link taken away leaves the text given (or none)
  if ('hyperlink' in input) return { columnId, hyperlink: input.hyperlink, ...(input.hyperlink === null || (input.value !== undefined && input.value !== '') ? { value: input.value ?? '' } : {}) };
  return { columnId, value: input.value };
}

/** The cell shown at once, before the server answers (its answer replaces it). */
export function optimisticCell(col: Column, input: CellInput, old: Cell | undefined): Cell {
  const base: Cell = { columnId: col.id, format: old?.format };
  if ('formula' in input) return { ...base, formula: input.formula, displayValue: '…' };
  if ('objectValue' in input) {
    const ov = input.objectValue as { values?: Array<string | { email?: string; name?: string }>; email?: string; name?: string };
    const who = (v: { email?: string; name?: string }) => v.name || v.email || '';
    const shown = ov.values ? ov.values.map((v) => (typeof v === 'string' ? v : who(v))).join(', ') : who(ov);
    return { ...base, objectValue: input.objectValue, displayValue: shown };
  }
  if ('hyperlink' in input) {
    const text = input.value || input.hyperlink?.url || old?.displayValue || '';
    return { ...base, ...(text ? { value: text, displayValue: text } : {}), ...(input.hyperlink ? { hyperlink: input.hyperlink } : {}) };
  }
  // a new value keeps the cell's link (the server keeps it)
  if (old?.hyperlink) base.hyperlink = old.hyperlink;
  const v = input.value;
  if (v === '') return base;
  if (col.type === 'CHECKBOX') return { ...base, value: v };
  return { ...base, value: v, displayValue: String(v) };
}

/** Symbols of PICKLIST and CHECKBOX columns: a glyph and a colour per option. */
const SYMBOLS: Record<string, Record<string, [string, string]>> = {
  RYG: { Red: ['●', '#d62b1f'], Yellow: ['●', '#e8b400'], Green: ['●', '#2e8540'] },
  RYGB: { Red: ['●', '#d62b1f'], Yellow: ['●', '#e8b400'], Green: ['●', '#2e8540'], Blue: ['●', '#1f5fbf'] },
  RYGG: { Red: ['●', '#d62b1f'], Yellow: ['●', '#e8b400'], Green: ['●', '#2e8540'], Gray: ['●', '#8a93a3'] },
  HARVEY_BALLS: { Empty: ['○', '#555'], Quarter: ['◔', '#555'], Half: ['◑', '#555'], 'Three Quarter': ['◕', '#555'], Full: ['●', '#555'] },
  PRIORITY: { High: ['!', '#d62b1f'], Low: ['↓', '#1f5fbf'] },
  PRIORITY_HML: { High: ['▲', '#d62b1f'], Medium: ['■', '#e8b400'], Low: ['▼', '#1f5fbf'] },
  DECISION_SYMBOLS: { Yes: ['✔', '#2e8540'], Hold: ['⏸', '#e8b400'], No: ['✖', '#d62b1f'] },
  DECISION_SHAPES: { Yes: ['●', '#2e8540'], Hold: ['◆', '#e8b400'], No: ['■', '#d62b1f'] },
  VCR: { Stop: ['■', '#d62b1f'], Pause: ['⏸', '#e8b400'], Play: ['▶', '#2e8540'], 'Fast Forward': ['⏩', '#1f5fbf'], Rewind: ['⏪', '#1f5fbf'] },
  WEATHER: { Sunny: ['☀', '#e8b400'], 'Partly Sunny': ['⛅', '#8a93a3'], Cloudy: ['☁', '#8a93a3'], Stormy: ['⛈', '#555'] },
  ARROWS_3_WAY: { Up: ['↑', '#2e8540'], Unchanged: ['→', '#e8b400'], Down: ['↓', '#d62b1f'] },
  ARROWS_4_WAY: { Up: ['↑', '#2e8540'], 'Angle Up': ['↗', '#2e8540'], 'Angle Down': ['↘', '#d62b1f'], Down: ['↓', '#d62b1f'] },
  ARROWS_5_WAY: { Up: ['↑', '#2e8540'], 'Angle Up': ['↗', '#2e8540'], Unchanged: ['→', '#e8b400'], 'Angle Down': ['↘', '#d62b1f'], Down: ['↓', '#d62b1f'] },
  STAR: { true: ['★', '#e8b400'], false: ['☆', '#8a93a3'] },
  FLAG: { true: ['⚑', '#d62b1f'], false: ['⚐', '#8a93a3'] },
};

/** The glyph and colour of a symbol column's value, if it has one. */
export function symbolOf(col: Column, c: Cell | undefined): [string, string] | null {
  if (!col.symbol) return null;
  const table = SYMBOLS[col.symbol];
  if (col.type === 'CHECKBOX') return (table ?? SYMBOLS.STAR!)[c?.value === true ? 'true' : 'false'] ?? null;
  const v = c?.value;
  if (v === undefined || v === null || v === '') return null;
  return table?.[String(v)] ?? ['●', '#5b6475'];
}

/** The names the page gives column types (the column menu, the header's title, messages). */
export const TYPE_LABELS: Record<string, string> = {
  TEXT_NUMBER: 'Text/Number', DATE: 'Date', DATETIME: 'Date and time', ABSTRACT_DATETIME: 'Date', PICKLIST: 'Dropdown',
  MULTI_PICKLIST: 'Multi-select dropdown', CONTACT_LIST: 'Contact', MULTI_CONTACT_LIST: 'Multiple contacts', CHECKBOX: 'Checkbox',
  DURATION: 'Duration', PREDECESSOR: 'Predecessors',
};

/** A value the server quoted as JSON, in words: a contact as `Name <email>`, a list joined, a value as itself. */
function jsonInWords(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v !== 'object') return String(v);
  if (Array.isArray(v)) return v.map(jsonInWords).filter((s) => s !== '').join(', ');
  const o = v as Record<string, unknown>;
  if (typeof o.email === 'string') return contactText({ email: o.email, name: typeof o.name === 'string' ? o.name : undefined });
  if (Array.isArray(o.values)) return jsonInWords(o.values);
  if ('value' in o) return jsonInWords(o.value);
  return Object.entries(o).filter(([k]) => k !== 'objectType').map(([, x]) => jsonInWords(x)).filter((s) => s !== '').join(', ');
}

/** The end (exclusive) of the JSON object or array starting at `i`, or -1. */
function jsonEnd(s: string, i: number): number {
  let depth = 0;
  let inString = false;
  for (let j = i; j < s.length; j++) {
    const ch = s[j];
    if (inString) {
      if (ch === '\\') j++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === '{' || ch === '[') depth++;
    else if (ch === '}' || ch === ']') {
      depth--;
      if (depth === 0) return j + 1;
    }
  }
  return -1;
}

/**
 * A refusal of the server as the page shows it: the catalogue's message, with a column named
 * by its title where the message has its id, a value the message quotes as JSON (a contact
 * object, say) in words, and a column type by the name the page gives it. Never raw JSON.
 */
export function readableRefusal(message: string, columnTitle: (id: number) => string | undefined): string {
  let out = '';
  for (let i = 0; i < message.length; i++) {
    const ch = message[i]!;
    if ((ch === '{' || ch === '[') && /["{[\]}]/.test(message[i + 1] ?? '')) {
      const end = jsonEnd(message, i);
      if (end > 0) {
        try {
          out += `“${jsonInWords(JSON.parse(message.slice(i, end)))}”`;
          i = end - 1;
          continue;
        } catch {
          // not JSON: kept as written
        }
      }
    }
    out += ch;
  }
  out = out.replace(/\b(column|columnId)\s+(\d+)\b/gi, (m: string, _w: string, id: string) => {
    const title = columnTitle(Number(id));
    return title !== undefined ? `column “${title}”` : m;
  });
  return out.replace(/\bof type ([A-Z_]+)\b/g, (m: string, t: string) => (TYPE_LABELS[t] ? `of type ${TYPE_LABELS[t]}` : m));
}

/** The schemes a cell's link may open from the grid (a javascript: address is shown as text, never opened). */
const LINK_SCHEMES = new Set(['http:', 'https:', 'mailto:', 'ftp:']);

/** Where a cell's link goes, if it is one the page may open. */
export function linkTarget(link: Hyperlink | undefined): string | null {
  if (!link?.url) return null;
  try {
    return LINK_SCHEMES.has(new URL(link.url).protocol) ? link.url : null;
  } catch {
    return null;
  }
}

/**
 * A web address typed into the link dialog: taken as it is with a scheme the grid opens, with
 * https:// before it when it has none (example.com/page); null when it is no address.
 */
export function typedLink(text: string): string | null {
  const t = text.trim();
  if (t === '' || /\s/.test(t)) return null;
  const withScheme = /^[a-z][a-z0-9+.-]*:/i.test(t) ? t : `https://${t}`;
  try {
    const u = new URL(withScheme);
    if (!LINK_SCHEMES.has(u.protocol)) return null;
    if ((u.protocol === 'http:' || u.protocol === 'https:') && !u.hostname.includes('.') && u.hostname !== 'localhost') return null;
    return withScheme;
  } catch {
    return null;
  }
}

/** A link sent back as it is: a sheet's, report's or dashboard's by its id (the server gives its address). */
export function linkAsSent(link: Hyperlink): Hyperlink {
  if (link.sheetId !== undefined) return { sheetId: link.sheetId };
  if (link.reportId !== undefined) return { reportId: link.reportId };
  if (link.sightId !== undefined) return { sightId: link.sightId };
  return { url: link.url };
}
