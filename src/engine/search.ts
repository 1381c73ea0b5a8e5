/**
 * Search text: the texts of cells, the words of texts and queries, and the full-text query
 * syntax of each database. Pure: the index (services/log/searchIndex.ts) stores these words.
 */
import type { StoredRowCells } from './cells.ts';
import type { ColumnDef } from './columns.ts';
import { valueText } from './display.ts';

/** The texts of a row's cells: what each shows, in column order, with its column's title. */
export function cellTexts(columns: readonly ColumnDef[], cells: StoredRowCells): Array<{ column: ColumnDef; text: string }> {
  const out: Array<{ column: ColumnDef; text: string }> = [];
  for (const c of columns) {
    const cell = cells[String(c.id)];
    if (cell?.v === undefined) continue;
    const text = valueText(c, cell.v, cell.f ?? c.format);
    if (text !== '') out.push({ column: c, text });
    // a contact matches by address as well as by name
    const v = cell.v;
    if (typeof v === 'object' && 'c' in v) out.push({ column: c, text: v.c.email });
    if (typeof v === 'object' && 'mc' in v) for (const x of v.mc) out.push({ column: c, text: x.email });
  }
  return out;
}

/**
 * Full-text search (the index, services/log/searchIndex.ts). A text is cut into words: runs of
 * letters and digits, lower-cased, accents dropped ("Café" is "cafe"), everything else a
 * separator. Both databases index these words as given (SQLite FTS5, PostgreSQL tsvector),
 * so what matches is decided here and is the same on both.
 */

/** Longest word kept (PostgreSQL keeps lexemes below 2 KB; a longer run is cut). */
export const MAX_WORD_CHARS = 200;

/** The words of a text, in order (repeats kept: phrase positions count them). */
export function textWords(text: string): string[] {
  const out: string[] = [];
  const folded = text.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase();
  for (const m of folded.matchAll(/[\p{L}\p{N}]+/gu)) out.push(m[0].length > MAX_WORD_CHARS ? m[0].slice(0, MAX_WORD_CHARS) : m[0]);
  return out;
}

/**
 * One condition of a query: words that must follow one another in a text. A bare word of the
 * query (`horse`, `zed@example.org`) matches texts with words starting with it, in that order
 * (`hors`, `zed@exam`); a quoted phrase (`"striped horse"`) only the whole words.
 */
export interface SearchTerm {
  words: string[];
  prefix: boolean;
}

/** The conditions of a query, every one of which a match satisfies; empty when it holds no word. */
export function queryTerms(query: string): SearchTerm[] {
  const out: SearchTerm[] = [];
  const seen = new Set<string>();
  for (const m of query.matchAll(/"([^"]*)"?|([^\s"]+)/g)) {
    const prefix = m[1] === undefined;
    const words = textWords(m[1] ?? m[2] ?? '');
    const key = `${prefix ? '*' : '='}${words.join(' ')}`;
    if (words.length > 0 && !seen.has(key)) {
      seen.add(key);
      out.push({ words, prefix });
    }
  }
  return out;
}

/** Does a text (its words) satisfy a term? The same rule as the index's, for choosing what to show. */
export function termMatches(words: readonly string[], term: SearchTerm): boolean {
  const n = term.words.length;
  for (let i = 0; i + n <= words.length; i++) {
    let ok = true;
    for (let k = 0; k < n && ok; k++) {
      const w = words[i + k]!;
      const t = term.words[k]!;
      ok = term.prefix && k === n - 1 ? w.startsWith(t) : w === t;
    }
    if (ok) return true;
  }
  return false;
}

/** SQLite FTS5: the MATCH expression of one term (its words are letters and digits only). */
export function fts5Term(term: SearchTerm): string {
  return `"${term.words.join(' ')}"${term.prefix ? '*' : ''}`;
}

/** PostgreSQL: the tsquery text of one term (words follow one another: <->). */
export function tsqueryTerm(term: SearchTerm): string {
  return term.words.map((w, i) => `'${w}'${term.prefix && i === term.words.length - 1 ? ':*' : ''}`).join(' <-> ');
}

/**
 * Between the words of two cells in a row's doc: a word no text or query can hold (words are
 * cut without accents, this one is an accented letter), so on SQLite it only keeps a phrase from
 * running from one cell into the next. PostgreSQL leaves its position empty instead.
 */
export const CELL_BREAK = '\u00e9';

/**
 * PostgreSQL limits a tsvector to 1 MB: a doc's distinct words stop when they could fill 700 KB,
 * each counted at its largest in UTF-8 (3 bytes a UTF-16 unit) with its entry and a position.
 */
const MAX_TSVECTOR_BYTES = 700_000;

/**
 * PostgreSQL: the tsvector text of a text's words, with their positions (1-based; PostgreSQL
 * keeps at most 16383, so later words share the last one: still found, not as a phrase).
 * CELL_BREAK takes a position and is not indexed.
 */
export function tsvectorText(words: readonly string[]): string {
  const pos = new Map<string, number[]>();
  let bytes = 0;
  words.forEach((w, i) => {
    if (w === CELL_BREAK) return;
    let p = pos.get(w);
    if (p === undefined) {
      const size = w.length * 3 + 6;
      if (bytes + size > MAX_TSVECTOR_BYTES) return;
      bytes += size;
      pos.set(w, (p = []));
    }
    const at = Math.min(i + 1, 16383);
    if (p.length < 256 && p[p.length - 1] !== at) p.push(at);
  });
  return [...pos].map(([w, p]) => `'${w}':${p.join(',')}`).join(' ');
}
