import type { Cell, Column } from './types.ts';

/**
 * Per column type: which cells take edits, the text an editor starts from, and the cell object
 * an edit sends to Update Rows. The server parses and checks every value (strict columns refuse
 * with the catalogue's message); nothing here decides what is valid.
 */

/** What a cell edit sends: exactly one of value, objectValue or formula (or a clear). */
export type CellInput =
  | { value: string | number | boolean }
  | { objectValue: Record<string, unknown> }
  | { formula: string };

/** System columns, DATETIME (set by the server), column formulas and locked columns take no edits. */
export function readOnlyReason(col: Column): string | null {
  if (col.systemColumnType) return 'a system column';
  if (col.type === 'DATETIME') return 'set by the server';
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
      if (ov && typeof ov.email === 'string') return ov.email;
      return c.value === undefined || c.value === null ? '' : String(c.value);
    }
    case 'DATE':
    case 'ABSTRACT_DATETIME':
      return typeof c.value === 'string' ? c.value.slice(0, col.type === 'DATE' ? 10 : 19) : '';
    case 'MULTI_PICKLIST':
      return multiValues(c).join(', ');
    case 'MULTI_CONTACT_LIST':
      return contactValues(c).map((x) => x.email).join(', ');
    default:
      if (c.value === undefined || c.value === null) return c.displayValue ?? '';
      return String(c.value);
  }
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
 * TEXT_NUMBER sends a number when the text is one; CHECKBOX takes true/false.
 */
export function inputFromText(col: Column, text: string): CellInput {
  if (text.startsWith('=') && text.length > 1) return { formula: text };
  if (text === '') return { value: '' };
  switch (col.type) {
    case 'TEXT_NUMBER':
      return /^-?(\d+\.?\d*|\.\d+)$/.test(text.trim()) ? { value: Number(text.trim()) } : { value: text };
    case 'CHECKBOX':
      return { value: /^(true|1|yes|x|checked)$/i.test(text.trim()) };
    case 'MULTI_PICKLIST':
      return { objectValue: { objectType: 'MULTI_PICKLIST', values: text.split(/\n|,\s*/).map((s) => s.trim()).filter((s) => s) } };
    case 'MULTI_CONTACT_LIST':
      return { objectValue: { objectType: 'MULTI_CONTACT', values: text.split(/[\n,;]\s*/).map((s) => s.trim()).filter((s) => s).map((email) => ({ objectType: 'CONTACT', email })) } };
    default:
      return { value: text };
  }
}

/** The cell of Update Rows for an input (strict: the server checks values against the column's type). */
export function cellPayload(columnId: number, input: CellInput): Record<string, unknown> {
  if ('formula' in input) return { columnId, formula: input.formula };
  if ('objectValue' in input) return { columnId, objectValue: input.objectValue };
  return { columnId, value: input.value };
}

/** The cell shown at once, before the server answers (its answer replaces it). */
export function optimisticCell(col: Column, input: CellInput, old: Cell | undefined): Cell {
  const base: Cell = { columnId: col.id, format: old?.format };
  if ('formula' in input) return { ...base, formula: input.formula, displayValue: '…' };
  if ('objectValue' in input) {
    const ov = input.objectValue as { values?: Array<string | { email?: string }> };
    const shown = (ov.values ?? []).map((v) => (typeof v === 'string' ? v : v.email ?? '')).join(', ');
    return { ...base, objectValue: input.objectValue, displayValue: shown };
  }
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
