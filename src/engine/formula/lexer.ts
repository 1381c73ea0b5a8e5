/** Splits formula text (after the leading '=') into tokens with their source offsets. */

export type TokenType =
  | 'number' // 12, 1.5, .5
  | 'string' // "text"
  | 'bracket' // [Column Title]
  | 'word' // letters and underscores: function names, bare column titles, true/false
  | 'xref' // {Reference Name}
  | 'dollar'
  | 'at' // @row, @cell (value is the lower-case word)
  | 'op' // + - * / ^ = <> < > <= >=
  | 'lparen'
  | 'rparen'
  | 'comma'
  | 'colon'
  | 'errorLiteral' // #REF
  | 'eof';

/**
 * The name a summary field reference `[Title]#` carries as a cross-sheet node: a prefix no
 * `{Reference Name}` can hold (names are free text, but not control characters).
 */
export const SUMMARY_REF_PREFIX = '\u0000#';

/** The summary field title of a cross-sheet name, or undefined for a `{Reference Name}`. */
export function summaryRefTitle(name: string): string | undefined {
  return name.startsWith(SUMMARY_REF_PREFIX) ? name.slice(SUMMARY_REF_PREFIX.length) : undefined;
}

export interface Token {
  readonly type: TokenType;
  readonly value: string;
  readonly start: number;
  readonly end: number;
}

export class LexError extends Error {
  constructor(
    message: string,
    readonly imbalanced = false,
  ) {
    super(message);
  }
}

const WORD = /[A-Za-z_]/;
const DIGIT = /[0-9]/;

export function tokenize(text: string, from: number): Token[] {
  const out: Token[] = [];
  let i = from;
  while (i < text.length) {
    const c = text[i] as string;
    const start = i;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
      continue;
    }
    if (DIGIT.test(c) || (c === '.' && DIGIT.test(text[i + 1] ?? ''))) {
      while (i < text.length && DIGIT.test(text[i] as string)) i++;
      if (text[i] === '.' && DIGIT.test(text[i + 1] ?? '')) {
        i++;
        while (i < text.length && DIGIT.test(text[i] as string)) i++;
      } else if (text[i] === '.') {
        i++;
      }
      out.push({ type: 'number', value: text.slice(start, i), start, end: i });
      continue;
    }
    if (c === '"') {
      const close = text.indexOf('"', i + 1);
      if (close < 0) throw new LexError('unterminated string');
      i = close + 1;
      out.push({ type: 'string', value: text.slice(start + 1, close), start, end: i });
      continue;
    }
    if (c === '[') {
      const close = text.indexOf(']', i + 1);
      if (close < 0) throw new LexError('unterminated column name');
      i = close + 1;
      // `[Field Name]#` names a sheet summary field: read like a cross-sheet reference
      if (text[i] === '#' && !/^#REF\b/i.test(text.slice(i))) {
        i++;
        out.push({ type: 'xref', value: SUMMARY_REF_PREFIX + text.slice(start + 1, close), start, end: i });
        continue;
      }
      out.push({ type: 'bracket', value: text.slice(start + 1, close), start, end: i });
      continue;
    }
    if (c === '{') {
      const close = text.indexOf('}', i + 1);
      if (close < 0) throw new LexError('unterminated cross-sheet reference');
      i = close + 1;
      out.push({ type: 'xref', value: text.slice(start + 1, close), start, end: i });
      continue;
    }
    if (WORD.test(c)) {
      while (i < text.length && WORD.test(text[i] as string)) i++;
      out.push({ type: 'word', value: text.slice(start, i), start, end: i });
      continue;
    }
    if (c === '@') {
      i++;
      while (i < text.length && WORD.test(text[i] as string)) i++;
      const w = text.slice(start + 1, i).toLowerCase();
      if (w !== 'row' && w !== 'cell') throw new LexError(`unknown @${w}`);
      out.push({ type: 'at', value: w, start, end: i });
      continue;
    }
    if (c === '#') {
      const m = /^#REF\b/i.exec(text.slice(i));
      if (!m) throw new LexError('unexpected #');
      i += m[0].length;
      out.push({ type: 'errorLiteral', value: '#REF', start, end: i });
      continue;
    }
    if (c === '<' || c === '>') {
      i++;
      if (text[i] === '=' || (c === '<' && text[i] === '>')) i++;
      out.push({ type: 'op', value: text.slice(start, i), start, end: i });
      continue;
    }
    i++;
    switch (c) {
      case '+':
      case '-':
      case '*':
      case '/':
      case '^':
      case '=':
        out.push({ type: 'op', value: c, start, end: i });
        break;
      case '$':
        out.push({ type: 'dollar', value: c, start, end: i });
        break;
      case '(':
        out.push({ type: 'lparen', value: c, start, end: i });
        break;
      case ')':
        out.push({ type: 'rparen', value: c, start, end: i });
        break;
      case ',':
        out.push({ type: 'comma', value: c, start, end: i });
        break;
      case ':':
        out.push({ type: 'colon', value: c, start, end: i });
        break;
      default:
        throw new LexError(`unexpected character ${c}`);
    }
  }
  out.push({ type: 'eof', value: '', start: i, end: i });
  let depth = 0;
  for (const t of out) {
    if (t.type === 'lparen') depth++;
    else if (t.type === 'rparen' && --depth < 0) break;
  }
  if (depth !== 0) throw new LexError('parentheses do not balance', true);
  return out;
}
