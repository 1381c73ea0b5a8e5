/**
 * Search text: the words of texts and queries, and the full-text query
 * syntax of each database. Pure: the index (services/log/searchIndex.ts) stores these words.
 */

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
  pushWords(text, out);
  return out;
}

/**
 * Appends the words of a text to `out` (textWords); returns how many. Most texts are ASCII,
 * which NFKD and dropping marks leave as they are and whose letters and digits are [A-Za-z0-9]:
 * those are cut in one pass over their char codes, without the normalization and the Unicode
 * regular expressions (catching up with an add of 500 rows x 20 cells cuts 10,000 texts).
 * Anything else takes the general path, which the ASCII pass agrees with (test/engine/search-words).
 */
export function pushWords(text: string, out: string[]): number {
  const before = out.length;
  let start = -1;
  let upper = false;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x80) {
      out.length = before;
      return unicodeWords(text, out);
    }
    const capital = c >= 0x41 && c <= 0x5a;
    if (capital || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39)) {
      if (start < 0) start = i;
      if (capital) upper = true;
    } else if (start >= 0) {
      out.push(asciiWord(text, start, i, upper));
      start = -1;
      upper = false;
    }
  }
  if (start >= 0) out.push(asciiWord(text, start, n, upper));
  return out.length - before;
}

function asciiWord(text: string, start: number, end: number, upper: boolean): string {
  const w = text.slice(start, end - start > MAX_WORD_CHARS ? start + MAX_WORD_CHARS : end);
  return upper ? w.toLowerCase() : w;
}

/** The general path of pushWords: any Unicode text. */
function unicodeWords(text: string, out: string[]): number {
  const before = out.length;
  const folded = text.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase();
  for (const m of folded.matchAll(/[\p{L}\p{N}]+/gu)) out.push(m[0].length > MAX_WORD_CHARS ? m[0].slice(0, MAX_WORD_CHARS) : m[0]);
  return out.length - before;
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
