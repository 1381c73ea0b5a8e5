/**
 * Parsing many formulas that differ only by their row numbers (a sheet's cell-to-cell running
 * total: `=C1 + B2`, `=C2 + B3`, ... 25,000 of them) once per shape. A formula's shape is its
 * text with every run of digits taken out; the first formula of a shape is parsed (recording
 * which runs are row numbers), and a later one of the same shape whose other runs (number
 * literals, digits in text or titles) are the same is the first one's tree with its row
 * references read from its own row numbers and its spans moved by the runs that grew or shrank.
 *
 * This gives what parseFormula gives, tree for tree (test/engine/formula/parsecache.test.ts):
 * the lexer reads a run of digits whole, and its tokens do not depend on which digits they are,
 * so the two texts give the same tokens but for the row numbers' values; the parser does
 * nothing with a row number but check it (at least 1) and look its row up. The schema must not
 * change while a cache is used (one cache serves one load).
 */
import type { Formula, Node, RowRef, Span } from './ast.ts';
import { parseRecordingRows } from './parser.ts';
import type { SheetSchema } from './schema.ts';

/** Stands for a run of digits in a shape (a text holding it is not cached). */
const RUN = '\u0001';
const RUN_CODE = 1;

interface Template {
  readonly formula: Formula & { readonly ok: true };
  /** The template's runs of digits: [start, end) offsets and their text. */
  readonly starts: readonly number[];
  readonly ends: readonly number[];
  readonly values: readonly string[];
  /** Per run: whether it is a row number. */
  readonly isRow: readonly boolean[];
  /** The runs that are row numbers, in the order the tree holds them. */
  readonly rowRuns: readonly number[];
}

export class FormulaParseCache {
  private readonly templates = new Map<string, Template | null>();
  // the runs of the text being parsed (scratch)
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];
  // while instantiating: the row numbers' runs in tree order, the next one, and the shift of offsets
  private rowIndex = 0;
  private template: Template | null = null;
  private text = '';
  private shifted = false;

  constructor(private readonly schema: SheetSchema) {}

  parse(text: string): Formula {
    const shape = this.shape(text);
    if (shape === undefined) return parseRecordingRows(text, this.schema, undefined);
    const t = this.templates.get(shape);
    if (t === undefined) {
      const rows: number[] = [];
      const f = parseRecordingRows(text, this.schema, rows);
      this.templates.set(shape, f.ok ? this.makeTemplate(f, rows) : null);
      return f;
    }
    if (t !== null) {
      const f = this.instantiate(t, text);
      if (f !== undefined) return f;
    }
    return parseRecordingRows(text, this.schema, undefined);
  }

  /** The text with its runs of digits replaced (their offsets in this.starts/ends), or undefined when it holds RUN. */
  private shape(text: string): string | undefined {
    const starts = this.starts;
    const ends = this.ends;
    starts.length = 0;
    ends.length = 0;
    let out = '';
    let from = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === RUN_CODE) return undefined;
      if (!isDigit(c)) continue;
      const s = i;
      while (i + 1 < text.length && isDigit(text.charCodeAt(i + 1))) i++;
      starts.push(s);
      ends.push(i + 1);
      out += text.slice(from, s) + RUN;
      from = i + 1;
    }
    return from === 0 ? text : out + text.slice(from);
  }

  private makeTemplate(formula: Formula & { readonly ok: true }, rowStarts: readonly number[]): Template | null {
    const starts = this.starts.slice();
    const ends = this.ends.slice();
    const values = starts.map((s, k) => formula.text.slice(s, ends[k]));
    const isRow = starts.map(() => false);
    const rowRuns: number[] = [];
    for (const at of rowStarts) {
      const k = starts.indexOf(at);
      if (k < 0) return null; // not a run of its own: never reused
      isRow[k] = true;
      rowRuns.push(k);
    }
    return { formula, starts, ends, values, isRow, rowRuns };
  }

  /** The template's tree for `text` (same shape), or undefined when it does not serve (then text is parsed). */
  private instantiate(t: Template, text: string): Formula | undefined {
    const starts = this.starts;
    const ends = this.ends;
    if (starts.length !== t.starts.length) return undefined;
    let shifted = false;
    for (let k = 0; k < starts.length; k++) {
      const len = ends[k]! - starts[k]!;
      if (len !== t.values[k]!.length) shifted = true;
      if (t.isRow[k]) {
        if (Number(text.slice(starts[k], ends[k])) < 1) return undefined;
      } else if (len !== t.values[k]!.length || !text.startsWith(t.values[k]!, starts[k])) return undefined;
    }
    this.template = t;
    this.text = text;
    this.shifted = shifted;
    this.rowIndex = 0;
    const root = this.copy(t.formula.root);
    this.template = null;
    return { ok: true, text, root };
  }

  /** The next row number of the text, read as the parser reads it. */
  private nextRow(r: RowRef): RowRef {
    if (r.kind === 'at') return r;
    const t = this.template!;
    const k = t.rowRuns[this.rowIndex++]!;
    const rowNumber = Number(this.text.slice(this.starts[k], this.ends[k]));
    const rowId = this.schema.rowIdByNumber(rowNumber);
    return rowId === undefined ? { kind: 'missing', rowNumber, abs: r.abs } : { kind: 'id', rowId, abs: r.abs };
  }

  /** A template offset in the text (runs before it may have grown or shrunk). */
  private offset(at: number): number {
    const t = this.template!;
    let d = 0;
    for (let k = 0; k < t.ends.length && t.ends[k]! <= at; k++) d += this.ends[k]! - this.starts[k]! - (t.ends[k]! - t.starts[k]!);
    return at + d;
  }

  private span(s: Span): Span {
    return this.shifted ? { start: this.offset(s.start), end: this.offset(s.end) } : s;
  }

  /** The template's tree with this text's rows and offsets; parts that hold neither are shared. */
  private copy(n: Node): Node {
    switch (n.type) {
      case 'cell':
        if (n.row.kind === 'at' && !this.shifted) return n;
        return { type: 'cell', col: n.col, row: this.nextRow(n.row), span: this.span(n.span) };
      case 'range': {
        const r1 = n.r1 === null ? null : this.nextRow(n.r1);
        const r2 = n.r2 === null ? null : this.nextRow(n.r2);
        return { type: 'range', c1: n.c1, c2: n.c2, r1, r2, span: this.span(n.span) };
      }
      case 'xref':
        return this.shifted ? { type: 'xref', name: n.name, span: this.span(n.span) } : n;
      case 'error':
        return this.shifted ? { type: 'error', code: n.code, span: this.span(n.span) } : n;
      case 'unary': {
        const arg = this.copy(n.arg);
        return arg === n.arg ? n : { type: 'unary', op: n.op, arg };
      }
      case 'criterion': {
        const arg = this.copy(n.arg);
        return arg === n.arg ? n : { type: 'criterion', op: n.op, arg };
      }
      case 'binary': {
        const left = this.copy(n.left);
        const right = this.copy(n.right);
        return left === n.left && right === n.right ? n : { type: 'binary', op: n.op, left, right };
      }
      case 'call': {
        let args: Node[] | undefined;
        for (let i = 0; i < n.args.length; i++) {
          const a = n.args[i]!;
          const b = this.copy(a);
          if (b !== a) (args ??= n.args.slice())[i] = b;
        }
        return args === undefined ? n : { type: 'call', name: n.name, args };
      }
      default:
        return n;
    }
  }
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}
