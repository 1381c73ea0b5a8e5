/**
 * Lookup functions: INDEX, MATCH, VLOOKUP, XLOOKUP. Positions count across a row, then down
 * (row-major), starting at 1. A value that is not found is #NO MATCH; an index outside the
 * range is #INVALID VALUE.
 */
import type { Call, FnDef } from '../calls.ts';
import { asRange, compareValues, toScalar, valuesEqual } from '../coerce.ts';
import { err, isError, type ErrorValue, type Scalar, type Value } from '../values.ts';
import { cellsArg, intArg } from './helpers.ts';

/** 0-based position per MATCH's search_type (1: largest <= x, sorted ascending; 0: exact; -1: smallest >= x, descending). */
export function matchPosition(x: Scalar, cells: readonly Scalar[], type: number): number {
  if (type === 0) return cells.findIndex((c) => valuesEqual(c, x));
  let best = -1;
  for (let i = 0; i < cells.length; i++) {
    const c = compareValues(cells[i] as Scalar, x);
    if (c === undefined || cells[i] === null) continue;
    if (type > 0 ? c <= 0 : c >= 0) best = i;
    else break;
  }
  return best;
}

function lookupValue(call: Call, i: number): Scalar | ErrorValue {
  const v = call.scalar(i);
  return v;
}

export const LOOKUP: Record<string, FnDef> = {
  INDEX: {
    min: 2,
    max: 3,
    impl: (c) => {
      const v = c.value(0);
      if (isError(v)) return v;
      const r = asRange(v);
      const row = intArg(c, 1);
      if (isError(row)) return row;
      const col = intArg(c, 2, 1);
      if (isError(col)) return col;
      // a one-column or one-row range is indexed by position
      if (!c.has(2) && (r.width === 1 || r.height === 1)) {
        if (row < 1 || row > r.cells.length) return err('#INVALID VALUE');
        return r.cells[row - 1] as Scalar;
      }
      if (row < 1 || row > r.height || col < 1 || col > r.width) return err('#INVALID VALUE');
      return r.cells[(row - 1) * r.width + (col - 1)] as Scalar;
    },
  },
  MATCH: {
    min: 2,
    max: 3,
    impl: (c) => {
      const x = lookupValue(c, 0);
      if (isError(x)) return x;
      const cells = cellsArg(c, 1);
      if (isError(cells)) return cells;
      const type = intArg(c, 2, 1);
      if (isError(type)) return type;
      const p = matchPosition(x, cells, Math.sign(type));
      return p < 0 ? err('#NO MATCH') : p + 1;
    },
  },
  VLOOKUP: {
    min: 3,
    max: 4,
    impl: (c) => {
      const x = lookupValue(c, 0);
      if (isError(x)) return x;
      const t = c.value(1);
      if (isError(t)) return t;
      const table = asRange(t);
      const col = intArg(c, 2);
      if (isError(col)) return col;
      if (col < 1 || col > table.width) return err('#INVALID VALUE');
      let exact = false;
      if (c.has(3)) {
        const m = c.scalar(3);
        if (isError(m)) return m;
        exact = m === false || m === 0;
      }
      const first: Scalar[] = [];
      for (let r = 0; r < table.height; r++) first.push(table.cells[r * table.width] as Scalar);
      const p = matchPosition(x, first, exact ? 0 : 1);
      if (p < 0) return err('#NO MATCH');
      return table.cells[p * table.width + col - 1] as Scalar;
    },
  },
  XLOOKUP: {
    min: 3,
    max: 6,
    impl: (c): Value => {
      const x = lookupValue(c, 0);
      if (isError(x)) return x;
      const keys = cellsArg(c, 1);
      if (isError(keys)) return keys;
      const results = cellsArg(c, 2);
      if (isError(results)) return results;
      if (keys.length !== results.length) return err('#INCORRECT ARGUMENT SET');
      const mode = intArg(c, 4, 0);
      if (isError(mode)) return mode;
      const search = intArg(c, 5, 1);
      if (isError(search)) return search;
      if (![0, 1, -1].includes(mode) || (search !== 1 && search !== -1)) return err('#INVALID VALUE');
      const order = keys.map((_, i) => (search === 1 ? i : keys.length - 1 - i));
      let found = -1;
      for (const i of order) {
        if (valuesEqual(keys[i] as Scalar, x)) {
          found = i;
          break;
        }
      }
      if (found < 0 && mode !== 0) {
        // the closest smaller (-1) or larger (1) value
        let best: Scalar | undefined;
        for (const i of order) {
          const k = keys[i] as Scalar;
          const cmp = compareValues(k, x);
          if (cmp === undefined || k === null || cmp === 0 || Math.sign(cmp) !== mode) continue;
          if (best === undefined || (compareValues(k, best) ?? 0) * mode < 0) {
            best = k;
            found = i;
          }
        }
      }
      if (found < 0) return c.has(3) ? toScalar(c.value(3)) : err('#NO MATCH');
      return results[found] as Scalar;
    },
  },
};

