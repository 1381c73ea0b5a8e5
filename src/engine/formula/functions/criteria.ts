/**
 * Criteria functions: COUNTIF(S), SUMIF(S), AVERAGEIF(S), COLLECT, DISTINCT. A criterion is a
 * value (equality, text case-insensitive), a bare comparison (`> 5`, `<> "Done"`), or an
 * expression using `@cell` (`YEAR(@cell) = 2024`). All ranges in one call hold the same number
 * of cells, else #INCORRECT ARGUMENT SET. A criterion that reads a cross-sheet range
 * (`HAS({Tags}, "x")` instead of `HAS(@cell, "x")`, or `{Range}` itself) is #NESTED CRITERIA.
 */
import { readsCrossSheet, type Node } from '../ast.ts';
import type { Call, FnDef, Matcher } from '../calls.ts';
import { checkNumber, compareText, toText } from '../coerce.ts';
import { err, isError, range, type ErrorValue, type Scalar, type Value } from '../values.ts';
import { cellsArg } from './helpers.ts';

/** Pairs (range i, criterion i+1) for i = from, from+2, ...: which positions match all of them. */
function matchingPositions(call: Call, from: number, size?: number): boolean[] | ErrorValue {
  if ((call.nodes.length - from) % 2 !== 0) return err('#INCORRECT ARGUMENT SET');
  // a cross-sheet range inside any criterion fails the whole call before anything is read
  for (let i = from + 1; i < call.nodes.length; i += 2) if (readsCrossSheet(call.nodes[i] as Node)) return err('#NESTED CRITERIA');
  const lists: (readonly Scalar[])[] = [];
  const tests: Matcher[] = [];
  for (let i = from; i < call.nodes.length; i += 2) {
    const cells = cellsArg(call, i);
    if (isError(cells)) return cells;
    const m = call.matcher(i + 1);
    if (isError(m)) return m;
    lists.push(cells);
    tests.push(m);
  }
  const n = size ?? lists[0]?.length ?? 0;
  if (lists.some((l) => l.length !== n)) return err('#INCORRECT ARGUMENT SET');
  const out: boolean[] = new Array<boolean>(n);
  for (let j = 0; j < n; j++) {
    let ok = true;
    for (let t = 0; t < tests.length && ok; t++) ok = (tests[t] as Matcher)((lists[t] as readonly Scalar[])[j] as Scalar);
    out[j] = ok;
  }
  return out;
}

/** Sum and count of the numbers in `values` at matching positions (an error there blocks). */
function tally(values: readonly Scalar[], matches: readonly boolean[]): { sum: number; count: number } | ErrorValue {
  let sum = 0;
  let count = 0;
  for (let j = 0; j < values.length; j++) {
    if (!matches[j]) continue;
    const v = values[j] as Scalar;
    if (isError(v)) return v;
    if (typeof v === 'number') {
      sum += v;
      count++;
    }
  }
  return { sum, count };
}

/** SUMIF / AVERAGEIF: (range, criterion, [values]). */
function ifOne(call: Call, averaging: boolean): Value {
  const matches = matchingPositions({ ...call, nodes: call.nodes.slice(0, 2) }, 0);
  if (isError(matches)) return matches;
  const values = call.has(2) ? cellsArg(call, 2) : cellsArg(call, 0);
  if (isError(values)) return values;
  if (values.length !== matches.length) return err('#INCORRECT ARGUMENT SET');
  const t = tally(values, matches);
  if (isError(t)) return t;
  if (!averaging) return checkNumber(t.sum);
  return t.count === 0 ? err('#DIVIDE BY ZERO') : t.sum / t.count;
}

/** SUMIFS / AVERAGEIFS: (values, range1, criterion1, ...). */
function ifMany(call: Call, averaging: boolean): Value {
  const values = cellsArg(call, 0);
  if (isError(values)) return values;
  const matches = matchingPositions(call, 1, values.length);
  if (isError(matches)) return matches;
  const t = tally(values, matches);
  if (isError(t)) return t;
  if (!averaging) return checkNumber(t.sum);
  return t.count === 0 ? err('#DIVIDE BY ZERO') : t.sum / t.count;
}

function sameForDistinct(a: Scalar, b: Scalar): boolean {
  if (typeof a === 'string' && typeof b === 'string') return compareText(a, b) === 0;
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') return toText(a) === toText(b) && a.kind === b.kind;
  return a === b;
}

export const CRITERIA: Record<string, FnDef> = {
  COUNTIF: {
    min: 2,
    max: 2,
    impl: (c) => {
      const m = matchingPositions(c, 0);
      return isError(m) ? m : m.filter(Boolean).length;
    },
  },
  COUNTIFS: {
    min: 2,
    max: Infinity,
    impl: (c) => {
      const m = matchingPositions(c, 0);
      return isError(m) ? m : m.filter(Boolean).length;
    },
  },
  SUMIF: { min: 2, max: 3, impl: (c) => ifOne(c, false) },
  SUMIFS: { min: 3, max: Infinity, impl: (c) => ifMany(c, false) },
  AVERAGEIF: { min: 2, max: 3, impl: (c) => ifOne(c, true) },
  AVERAGEIFS: { min: 3, max: Infinity, impl: (c) => ifMany(c, true) },
  COLLECT: {
    min: 3,
    max: Infinity,
    impl: (c) => {
      const values = cellsArg(c, 0);
      if (isError(values)) return values;
      const matches = matchingPositions(c, 1, values.length);
      if (isError(matches)) return matches;
      const out = values.filter((v, j) => matches[j] && v !== null && v !== '');
      return range(1, out.length, out);
    },
  },
  DISTINCT: {
    min: 1,
    max: Infinity,
    impl: (c) => {
      const out: Scalar[] = [];
      for (let i = 0; i < c.nodes.length; i++) {
        const cells = cellsArg(c, i);
        if (isError(cells)) return cells;
        for (const v of cells) {
          if (v === null || v === '') continue;
          if (!out.some((o) => sameForDistinct(o, v))) out.push(v);
        }
      }
      return range(1, out.length, out);
    },
  },
};
