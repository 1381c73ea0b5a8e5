/**
 * Formula text -> tree. References are resolved against the sheet schema at parse time, so
 * the tree holds column and row ids (see ast.ts). Text that does not parse gives a Formula
 * with ok: false (it evaluates to #UNPARSEABLE, or #IMBALANCED for unmatched parentheses);
 * parsing never throws.
 *
 * Grammar, loosest first:
 *   compare := add (( = | <> | < | > | <= | >= ) add)*
 *   add     := mul (( + | - ) mul)*
 *   mul     := pow (( * | / ) pow)*
 *   pow     := unary (^ unary)*
 *   unary   := ( - | + ) unary | primary
 *   primary := number | "text" | true | false | ( compare ) | NAME ( args ) | ref | {xref} | @cell | #REF
 *   ref     := col row? ( : col row? )?      col := $? ( [Title] | BareTitle )   row := $? digits | @row
 *   arg     := ( = | <> | < | > | <= | >= ) add   (a criterion)   | compare | (nothing)
 */
import { InvalidInput } from '../errors.ts';
import type { ColRef, CompareOp, Formula, Node, RowRef, Span } from './ast.ts';
import { isFunctionName } from './functions/names.ts';
import { LexError, tokenize, type Token } from './lexer.ts';
import type { SheetSchema } from './schema.ts';

class ParseError extends Error {}

const COMPARE_OPS: ReadonlySet<string> = new Set(['=', '<>', '<', '>', '<=', '>=']);

/** Throws InvalidInput(1162) unless the text is a formula (starts with '='). */
export function validateFormulaText(text: string): void {
  if (!text.startsWith('=')) throw new InvalidInput(1162);
}

/** Whether a cell value written by a client is a formula (rather than a value). */
export function isFormulaText(text: unknown): text is string {
  return typeof text === 'string' && text.startsWith('=');
}

export function parseFormula(text: string, schema: SheetSchema): Formula {
  return parseRecordingRows(text, schema, undefined);
}

/**
 * parseFormula, also pushing onto `rowNumbers` the source offset of each row number it read
 * (`5` in `[A]5` or `[A]$5`), in the order the tree holds them (parsecache.ts).
 * @internal
 */
export function parseRecordingRows(text: string, schema: SheetSchema, rowNumbers: number[] | undefined): Formula {
  if (!text.startsWith('=')) return { ok: false, text, code: '#UNPARSEABLE', reason: 'a formula starts with =' };
  try {
    const tokens = tokenize(text, 1);
    const root = new Parser(tokens, schema, rowNumbers).parseAll();
    return { ok: true, text, root };
  } catch (e) {
    if (e instanceof LexError) return { ok: false, text, code: e.imbalanced ? '#IMBALANCED' : '#UNPARSEABLE', reason: e.message };
    if (e instanceof ParseError) return { ok: false, text, code: '#UNPARSEABLE', reason: e.message };
    throw e;
  }
}

class Parser {
  private pos = 0;

  constructor(
    private readonly tokens: readonly Token[],
    private readonly schema: SheetSchema,
    private readonly rowNumbers: number[] | undefined,
  ) {}

  parseAll(): Node {
    if (this.peek().type === 'eof') throw new ParseError('empty formula');
    const n = this.compare();
    if (this.peek().type !== 'eof') throw new ParseError(`unexpected ${this.peek().value || this.peek().type}`);
    return n;
  }

  private peek(k = 0): Token {
    return this.tokens[Math.min(this.pos + k, this.tokens.length - 1)] as Token;
  }

  private next(): Token {
    const t = this.peek();
    if (t.type !== 'eof') this.pos++;
    return t;
  }

  private expect(type: Token['type']): Token {
    const t = this.next();
    if (t.type !== type) throw new ParseError(`expected ${type}`);
    return t;
  }

  private isOp(...ops: string[]): boolean {
    const t = this.peek();
    return t.type === 'op' && ops.includes(t.value);
  }

  private compare(): Node {
    let left = this.add();
    while (this.peek().type === 'op' && COMPARE_OPS.has(this.peek().value)) {
      const op = this.next().value as CompareOp;
      left = { type: 'binary', op, left, right: this.add() };
    }
    return left;
  }

  private add(): Node {
    let left = this.mul();
    while (this.isOp('+', '-')) {
      const op = this.next().value as '+' | '-';
      left = { type: 'binary', op, left, right: this.mul() };
    }
    return left;
  }

  private mul(): Node {
    let left = this.pow();
    while (this.isOp('*', '/')) {
      const op = this.next().value as '*' | '/';
      left = { type: 'binary', op, left, right: this.pow() };
    }
    return left;
  }

  private pow(): Node {
    let left = this.unary();
    while (this.isOp('^')) {
      this.next();
      left = { type: 'binary', op: '^', left, right: this.unary() };
    }
    return left;
  }

  private unary(): Node {
    if (this.isOp('-', '+')) {
      const op = this.next().value as '-' | '+';
      return { type: 'unary', op, arg: this.unary() };
    }
    return this.primary();
  }

  private primary(): Node {
    const t = this.peek();
    switch (t.type) {
      case 'number': {
        this.next();
        const value = Number(t.value);
        if (!Number.isFinite(value)) throw new ParseError('bad number');
        return { type: 'number', value };
      }
      case 'string':
        this.next();
        return { type: 'string', value: t.value };
      case 'lparen': {
        this.next();
        const inner = this.compare();
        this.expect('rparen');
        return inner;
      }
      case 'xref':
        this.next();
        return { type: 'xref', name: t.value, span: { start: t.start, end: t.end } };
      case 'at':
        if (t.value !== 'cell') throw new ParseError('@row needs a column');
        this.next();
        return { type: 'atcell' };
      case 'errorLiteral':
        this.next();
        return { type: 'error', code: '#REF', span: { start: t.start, end: t.end } };
      case 'word': {
        const after = this.peek(1);
        if (after.type === 'lparen') return this.call();
        const lower = t.value.toLowerCase();
        if ((lower === 'true' || lower === 'false') && !this.rowFollows(t)) {
          this.next();
          return { type: 'boolean', value: lower === 'true' };
        }
        return this.reference();
      }
      case 'bracket':
      case 'dollar':
        return this.reference();
      default:
        throw new ParseError(`unexpected ${t.value || t.type}`);
    }
  }

  /** A row part written right after a column name (no space): `Status1`, `[A]$2`, `[A]@row`. */
  private rowFollows(col: Token): boolean {
    const n = this.tokens[this.tokens.indexOf(col) + 1];
    if (!n || n.start !== col.end) return false;
    if (n.type === 'number' || (n.type === 'at' && n.value === 'row')) return true;
    if (n.type === 'dollar') {
      const n2 = this.tokens[this.tokens.indexOf(col) + 2];
      return n2 !== undefined && n2.type === 'number' && n2.start === n.end;
    }
    return false;
  }

  private call(): Node {
    const nameTok = this.next();
    const name = nameTok.value.toUpperCase();
    if (!isFunctionName(name)) throw new ParseError(`unknown function ${nameTok.value}`);
    this.expect('lparen');
    const args: Node[] = [];
    if (this.peek().type === 'rparen') {
      this.next();
      return { type: 'call', name, args };
    }
    for (;;) {
      args.push(this.argument());
      const t = this.next();
      if (t.type === 'rparen') break;
      if (t.type !== 'comma') throw new ParseError('expected , or )');
    }
    return { type: 'call', name, args };
  }

  private argument(): Node {
    const t = this.peek();
    if (t.type === 'comma' || t.type === 'rparen') return { type: 'empty' };
    if (t.type === 'op' && COMPARE_OPS.has(t.value)) {
      this.next();
      return { type: 'criterion', op: t.value as CompareOp, arg: this.add() };
    }
    return this.compare();
  }

  private reference(): Node {
    const start = this.peek().start;
    const c1 = this.columnPart();
    const r1 = this.rowPart(c1.end);
    if (this.peek().type === 'colon') {
      this.next();
      const c2 = this.columnPart();
      const r2 = this.rowPart(c2.end);
      if ((r1 === null) !== (r2 === null)) throw new ParseError('a range gives rows at both ends or at neither');
      const span: Span = { start, end: this.tokens[this.pos - 1]?.end ?? start };
      return { type: 'range', c1: c1.ref, c2: c2.ref, r1, r2, span };
    }
    if (r1 === null) throw new ParseError('a cell reference needs a row');
    const span: Span = { start, end: this.tokens[this.pos - 1]?.end ?? start };
    return { type: 'cell', col: c1.ref, row: r1, span };
  }

  private columnPart(): { ref: ColRef; end: number } {
    let abs = false;
    if (this.peek().type === 'dollar') {
      const d = this.next();
      abs = true;
      if (this.peek().start !== d.end) throw new ParseError('$ must touch the column');
    }
    const t = this.next();
    if (t.type !== 'bracket' && t.type !== 'word') throw new ParseError('expected a column');
    const colId = this.schema.columnIdByTitle(t.value);
    if (colId === undefined) throw new ParseError(`unknown column ${t.value}`);
    return { ref: { colId, abs, bracket: t.type === 'bracket' }, end: t.end };
  }

  private rowPart(colEnd: number): RowRef | null {
    let t = this.peek();
    if (t.start !== colEnd) return null;
    if (t.type === 'at' && t.value === 'row') {
      this.next();
      return { kind: 'at' };
    }
    let abs = false;
    if (t.type === 'dollar') {
      const n = this.peek(1);
      if (n.type !== 'number' || n.start !== t.end) return null;
      this.next();
      abs = true;
      t = this.peek();
    }
    if (t.type !== 'number') return null;
    if (!/^[0-9]+$/.test(t.value)) throw new ParseError('a row number is a whole number');
    this.next();
    const rowNumber = Number(t.value);
    if (rowNumber < 1) throw new ParseError('row numbers start at 1');
    this.rowNumbers?.push(t.start);
    const rowId = this.schema.rowIdByNumber(rowNumber);
    return rowId === undefined ? { kind: 'missing', rowNumber, abs } : { kind: 'id', rowId, abs };
  }
}
