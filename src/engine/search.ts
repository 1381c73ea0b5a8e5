/**
 * Search text: what a query asks for and whether a text holds it. A query is words, or phrases
 * in double quotes ("exact phrase"); a text matches when it contains every word and phrase,
 * without regard to case. Pure: the service finds candidates in the store and checks them here.
 */
import type { StoredRowCells } from './cells.ts';
import type { ColumnDef } from './columns.ts';
import { valueText } from './display.ts';

/** The words and phrases of a query, lower-cased; empty when it holds none. */
export function searchTerms(query: string): string[] {
  const out: string[] = [];
  for (const m of query.matchAll(/"([^"]*)"|(\S+)/g)) {
    const t = (m[1] ?? m[2] ?? '').trim().toLowerCase();
    if (t !== '' && !out.includes(t)) out.push(t);
  }
  return out;
}

/** Does the text (or the texts together) contain every term? */
export function matchesAll(texts: readonly string[], terms: readonly string[]): boolean {
  const all = texts.map((t) => t.toLowerCase());
  return terms.every((term) => all.some((t) => t.includes(term)));
}

/** The term the store looks for first: the longest (the fewest candidates). */
export function leadTerm(terms: readonly string[]): string {
  return terms.reduce((a, b) => (b.length > a.length ? b : a), '');
}

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
