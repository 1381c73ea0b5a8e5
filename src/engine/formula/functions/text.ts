/** Text functions. Positions are 1-based; FIND and SUBSTITUTE are case-sensitive. */
import type { Call, FnDef } from '../calls.ts';
import { toNumber, toText } from '../coerce.ts';
import { err, isError, type ErrorValue, type Scalar, type Value } from '../values.ts';
import { cellsArg, intArg } from './helpers.ts';

function textArg(call: Call, i: number): string | ErrorValue {
  const v = call.scalar(i);
  return isError(v) ? v : toText(v);
}

function textFn(f: (s: string) => Value): FnDef {
  return {
    min: 1,
    max: 1,
    impl: (c) => {
      const s = textArg(c, 0);
      return isError(s) ? s : f(s);
    },
  };
}

function side(fromLeft: boolean): FnDef {
  return {
    min: 1,
    max: 2,
    impl: (c) => {
      const s = textArg(c, 0);
      if (isError(s)) return s;
      const n = intArg(c, 1, 1);
      if (isError(n)) return n;
      if (n < 0) return err('#INVALID VALUE');
      const chars = Array.from(s);
      return (fromLeft ? chars.slice(0, n) : chars.slice(Math.max(0, chars.length - n))).join('');
    },
  };
}

/** VALUE: text as a number, allowing a leading currency sign, thousands separators and a trailing %. */
export function parseNumberText(s: string): number | undefined {
  let t = s.trim().replace(/,/g, '');
  let scale = 1;
  if (t.endsWith('%')) {
    scale = 0.01;
    t = t.slice(0, -1).trim();
  }
  let sign = 1;
  if (t.startsWith('-')) {
    sign = -1;
    t = t.slice(1);
  }
  t = t.replace(/^\$/, '');
  if (!/^(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(t)) return undefined;
  return sign * Number(t) * scale;
}

export const TEXT: Record<string, FnDef> = {
  LEN: textFn((s) => Array.from(s).length),
  LEFT: side(true),
  RIGHT: side(false),
  MID: {
    min: 3,
    max: 3,
    impl: (c) => {
      const s = textArg(c, 0);
      if (isError(s)) return s;
      const start = intArg(c, 1);
      if (isError(start)) return start;
      const n = intArg(c, 2);
      if (isError(n)) return n;
      if (start < 1 || n < 0) return err('#INVALID VALUE');
      return Array.from(s).slice(start - 1, start - 1 + n).join('');
    },
  },
  FIND: {
    min: 2,
    max: 3,
    impl: (c) => {
      const needle = textArg(c, 0);
      if (isError(needle)) return needle;
      const hay = textArg(c, 1);
      if (isError(hay)) return hay;
      const start = intArg(c, 2, 1);
      if (isError(start)) return start;
      if (start < 1) return err('#INVALID VALUE');
      if (start > hay.length) return 0;
      return hay.indexOf(needle, start - 1) + 1;
    },
  },
  SUBSTITUTE: {
    min: 3,
    max: 4,
    impl: (c) => {
      const s = textArg(c, 0);
      if (isError(s)) return s;
      const oldT = textArg(c, 1);
      if (isError(oldT)) return oldT;
      const newT = textArg(c, 2);
      if (isError(newT)) return newT;
      if (oldT === '') return s;
      if (!c.has(3)) return s.split(oldT).join(newT);
      const nth = intArg(c, 3);
      if (isError(nth)) return nth;
      if (nth < 1) return err('#INVALID VALUE');
      let at = -1;
      for (let k = 0; k < nth; k++) {
        at = s.indexOf(oldT, at + (k === 0 ? 0 : oldT.length));
        if (at < 0) return s;
      }
      return s.slice(0, at) + newT + s.slice(at + oldT.length);
    },
  },
  REPLACE: {
    min: 4,
    max: 4,
    impl: (c) => {
      const s = textArg(c, 0);
      if (isError(s)) return s;
      const start = intArg(c, 1);
      if (isError(start)) return start;
      const n = intArg(c, 2);
      if (isError(n)) return n;
      const rep = textArg(c, 3);
      if (isError(rep)) return rep;
      if (start < 1 || n < 0) return err('#INVALID VALUE');
      const chars = Array.from(s);
      return chars.slice(0, start - 1).join('') + rep + chars.slice(start - 1 + n).join('');
    },
  },
  UPPER: textFn((s) => s.toUpperCase()),
  LOWER: textFn((s) => s.toLowerCase()),
  JOIN: {
    min: 1,
    max: 2,
    impl: (c) => {
      const cells = cellsArg(c, 0);
      if (isError(cells)) return cells;
      const sep = c.has(1) ? textArg(c, 1) : '';
      if (isError(sep)) return sep;
      const parts: string[] = [];
      for (const v of cells) {
        if (isError(v)) return v;
        if (v !== null && v !== '') parts.push(toText(v));
      }
      return parts.join(sep);
    },
  },
  CHAR: {
    min: 1,
    max: 1,
    impl: (c) => {
      const n = toNumber(c.scalar(0));
      if (isError(n)) return n;
      const code = Math.trunc(n);
      if (code < 1 || code > 0xffff) return err('#INVALID VALUE');
      return String.fromCharCode(code);
    },
  },
  UNICHAR: {
    min: 1,
    max: 1,
    impl: (c) => {
      const n = toNumber(c.scalar(0));
      if (isError(n)) return n;
      const code = Math.trunc(n);
      if (code < 1 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return err('#INVALID VALUE');
      return String.fromCodePoint(code);
    },
  },
  VALUE: {
    min: 1,
    max: 1,
    impl: (c) => {
      const v: Scalar = c.scalar(0);
      if (isError(v) || typeof v === 'number') return v;
      if (typeof v !== 'string') return v === null ? 0 : err('#INVALID DATA TYPE');
      const n = parseNumberText(v);
      return n === undefined ? err('#INVALID VALUE') : n;
    },
  },
  REPT: {
    min: 2,
    max: 2,
    impl: (c) => {
      const s = textArg(c, 0);
      if (isError(s)) return s;
      const n = intArg(c, 1);
      if (isError(n)) return n;
      if (n < 0) return err('#INVALID VALUE');
      if (s.length * n > 4000) return err('#TOO BIG');
      return s.repeat(n);
    },
  },
};
