/** Logic and information functions: IF, AND, OR, NOT, IFERROR, IS*, CONTAINS, HAS. */
import type { FnDef } from '../calls.ts';
import { cellsOf, compareText, kindOf, toBoolean, toNumber, toText, truthy, valuesEqual } from '../coerce.ts';
import { err, isError, isMulti, isRange, type Scalar, type Value } from '../values.ts';
import { cellsArg } from './helpers.ts';

function allConditions(values: readonly Value[], every: boolean): Value {
  for (const v of values) {
    for (const c of cellsOf(v)) {
      const b = toBoolean(c);
      if (isError(b)) return b;
      if (b !== every) return !every;
    }
  }
  return every;
}

function parity(v: Scalar, even: boolean): Value {
  if (typeof v !== 'number') return isError(v) ? v : err('#INVALID DATA TYPE');
  const n = toNumber(v);
  if (isError(n)) return n;
  const odd = Math.abs(Math.trunc(n)) % 2 === 1;
  return even ? !odd : odd;
}

export const LOGIC: Record<string, FnDef> = {
  IF: {
    min: 2,
    max: 3,
    impl: (c) => {
      const cond = truthy(c.value(0));
      if (isError(cond)) return cond;
      return cond ? c.value(1) : c.has(2) ? c.value(2) : null;
    },
  },
  AND: { min: 1, max: Infinity, impl: (c) => allConditions(c.nodes.map((_, i) => c.value(i)), true) },
  OR: { min: 1, max: Infinity, impl: (c) => allConditions(c.nodes.map((_, i) => c.value(i)), false) },
  NOT: {
    min: 1,
    max: 1,
    impl: (c) => {
      const b = truthy(c.value(0));
      return isError(b) ? b : !b;
    },
  },
  IFERROR: {
    min: 2,
    max: 2,
    impl: (c) => {
      const v = c.value(0);
      return isError(v) ? c.value(1) : v;
    },
  },
  ISBLANK: { min: 1, max: 1, impl: (c) => kindOf(c.scalar(0)) === 'blank' },
  ISNUMBER: { min: 1, max: 1, impl: (c) => typeof c.scalar(0) === 'number' },
  ISTEXT: { min: 1, max: 1, impl: (c) => kindOf(c.scalar(0)) === 'text' },
  ISDATE: { min: 1, max: 1, impl: (c) => kindOf(c.scalar(0)) === 'date' },
  ISBOOLEAN: { min: 1, max: 1, impl: (c) => typeof c.scalar(0) === 'boolean' },
  ISERROR: {
    min: 1,
    max: 1,
    impl: (c) => {
      const v = c.value(0);
      return isError(v) || (isRange(v) && v.cells.some((x) => isError(x)));
    },
  },
  ISEVEN: { min: 1, max: 1, impl: (c) => parity(c.scalar(0), true) },
  ISODD: { min: 1, max: 1, impl: (c) => parity(c.scalar(0), false) },
  CONTAINS: {
    min: 2,
    max: 2,
    impl: (c) => {
      const needle = c.scalar(0);
      if (isError(needle)) return needle;
      const hay = cellsArg(c, 1);
      if (isError(hay)) return hay;
      const n = toText(needle).toLowerCase();
      return hay.some((cell) => !isError(cell) && toText(cell).toLowerCase().includes(n));
    },
  },
  HAS: {
    min: 2,
    max: 2,
    impl: (c) => {
      const cells = cellsArg(c, 0);
      if (isError(cells)) return cells;
      const want = c.scalar(1);
      if (isError(want)) return want;
      return cells.some((cell) =>
        isMulti(cell) ? cell.items.some((item) => compareText(item, toText(want)) === 0) : valuesEqual(cell, want),
      );
    },
  },
};
