/**
 * Tree -> the formula text a client sees. The original text is kept and only the references
 * are re-written from their ids, so spacing and the case of function names survive while a
 * renamed column shows its new title, a moved row its new number, and a deleted row or column
 * shows `#REF`.
 */
import { walk, type ColRef, type Formula, type RefNode, type RowRef } from './ast.ts';
import type { SheetSchema } from './schema.ts';
import { summaryRefTitle } from './lexer.ts';

const BARE_TITLE = /^[A-Za-z_]+$/;

/** A title may be written without brackets only if it is letters/underscores and not a boolean word. */
export function needsBrackets(title: string): boolean {
  if (!BARE_TITLE.test(title)) return true;
  const lower = title.toLowerCase();
  return lower === 'true' || lower === 'false';
}

export function render(formula: Formula, schema: SheetSchema): string {
  if (!formula.ok) return formula.text;
  const refs: RefNode[] = [];
  walk(formula.root, (n) => {
    if (n.type === 'cell' || n.type === 'range' || n.type === 'xref') refs.push(n);
  });
  refs.sort((a, b) => a.span.start - b.span.start);
  let out = '';
  let at = 0;
  for (const r of refs) {
    out += formula.text.slice(at, r.span.start) + renderRef(r, schema);
    at = r.span.end;
  }
  return out + formula.text.slice(at);
}

function renderRef(r: RefNode, schema: SheetSchema): string {
  if (r.type === 'xref') {
    const field = summaryRefTitle(r.name);
    return field === undefined ? `{${r.name}}` : `[${field}]#`;
  }
  if (r.type === 'cell') {
    const col = renderCol(r.col, schema);
    const row = renderRow(r.row, schema);
    return col === undefined || row === undefined ? '#REF' : col + row;
  }
  const c1 = renderCol(r.c1, schema);
  const c2 = renderCol(r.c2, schema);
  if (c1 === undefined || c2 === undefined) return '#REF';
  if (r.r1 === null || r.r2 === null) return `${c1}:${c2}`;
  const r1 = renderRow(r.r1, schema);
  const r2 = renderRow(r.r2, schema);
  if (r1 === undefined || r2 === undefined) return '#REF';
  return `${c1}${r1}:${c2}${r2}`;
}

function renderCol(c: ColRef, schema: SheetSchema): string | undefined {
  const title = schema.columnTitle(c.colId);
  if (title === undefined) return undefined;
  const name = c.bracket || needsBrackets(title) ? `[${title}]` : title;
  return (c.abs ? '$' : '') + name;
}

function renderRow(r: RowRef, schema: SheetSchema): string | undefined {
  if (r.kind === 'at') return '@row';
  if (r.kind === 'missing') return (r.abs ? '$' : '') + String(r.rowNumber);
  const n = schema.rowNumber(r.rowId);
  return n === undefined ? undefined : (r.abs ? '$' : '') + String(n);
}
