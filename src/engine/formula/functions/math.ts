/** Numeric functions: sums, averages, rounding, statistics. */
import type { Call, FnDef } from '../calls.ts';
import { cellsOf, checkNumber, kindOf, toNumber } from '../coerce.ts';
import { dateValue, err, isDate, isError, isMulti, type ErrorValue, type Scalar, type Value } from '../values.ts';
import { cellsArg, intArg, numArg, numbersOf, sameSizes } from './helpers.ts';

function sum(ns: readonly number[]): number {
  let s = 0;
  for (const n of ns) s += n;
  return s;
}

/** MIN / MAX: over numbers, or over dates when the arguments hold dates and no numbers. */
function extreme(call: Call, pick: (a: number, b: number) => number): Value {
  let best: number | undefined;
  let bestDate: number | undefined;
  for (let i = 0; i < call.nodes.length; i++) {
    for (const c of cellsOf(call.value(i))) {
      if (isError(c)) return c;
      if (typeof c === 'number') best = best === undefined ? c : pick(best, c);
      else if (isDate(c)) bestDate = bestDate === undefined ? c.days : pick(bestDate, c.days);
    }
  }
  if (best !== undefined) return best;
  if (bestDate !== undefined) return dateValue(bestDate);
  return 0;
}

function sorted(ns: readonly number[]): number[] {
  return [...ns].sort((a, b) => a - b);
}

function median(ns: readonly number[]): number | ErrorValue {
  if (ns.length === 0) return err('#INVALID VALUE');
  const s = sorted(ns);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

/** Values for STDEVA / STDEVPA: numbers, text (0) and booleans (1/0); blanks skipped. */
function numbersA(call: Call): number[] | ErrorValue {
  const out: number[] = [];
  for (let i = 0; i < call.nodes.length; i++) {
    for (const c of cellsOf(call.value(i))) {
      if (isError(c)) return c;
      const k = kindOf(c);
      if (k === 'number') out.push(c as number);
      else if (k === 'boolean') out.push(c === true ? 1 : 0);
      else if (k === 'text') out.push(0);
    }
  }
  return out;
}

function stdev(ns: readonly number[] | ErrorValue, sample: boolean): Value {
  if (isError(ns)) return ns;
  const n = ns.length;
  if (n === 0 || (sample && n < 2)) return err('#DIVIDE BY ZERO');
  const mean = sum(ns) / n;
  let sq = 0;
  for (const x of ns) sq += (x - mean) ** 2;
  return Math.sqrt(sq / (sample ? n - 1 : n));
}

/** Scales by 10^digits, applies `f`, scales back; nudges so 2.675 rounds like the decimal it shows. */
function roundWith(n: number, digits: number, f: (x: number) => number): number {
  const d = Math.trunc(digits);
  const sign = n < 0 ? -1 : 1;
  const abs = Math.abs(n);
  if (d >= 0) {
    const p = 10 ** d;
    const scaled = Number((abs * p).toPrecision(15));
    return (sign * f(scaled)) / p;
  }
  const p = 10 ** -d;
  return sign * f(Number((abs / p).toPrecision(15))) * p;
}

function rounding(f: (x: number) => number): FnDef {
  return {
    min: 1,
    max: 2,
    impl: (c) => {
      const n = toNumber(c.scalar(0));
      if (isError(n)) return n;
      const d = numArg(c, 1, 0);
      if (isError(d)) return d;
      return roundWith(n, d, f) + 0;
    },
  };
}

function unaryNumber(f: (n: number) => number | ErrorValue): FnDef {
  return {
    min: 1,
    max: 1,
    impl: (c) => {
      const n = toNumber(c.scalar(0));
      return isError(n) ? n : f(n);
    },
  };
}

/** Rounds to a multiple; `f` picks the direction on the quotient. */
function toMultiple(n: number, m: number, f: (q: number) => number): number {
  if (m === 0) return 0;
  const q = Number((n / m).toPrecision(15));
  return Number((f(q) * m).toPrecision(15)) + 0;
}

function multipleFn(f: (q: number) => number, required: boolean): FnDef {
  return {
    min: required ? 2 : 1,
    max: 2,
    impl: (c) => {
      const n = toNumber(c.scalar(0));
      if (isError(n)) return n;
      const m = numArg(c, 1, 1);
      if (isError(m)) return m;
      if (required && n !== 0 && m !== 0 && Math.sign(n) !== Math.sign(m)) return err('#INVALID VALUE');
      return toMultiple(n, m, f);
    },
  };
}

function kth(call: Call, largest: boolean): Value {
  const nums = numbersOf(call, 0, 1);
  if (isError(nums)) return nums;
  const k = intArg(call, 1);
  if (isError(k)) return k;
  if (k < 1 || k > nums.length) return err('#INVALID VALUE');
  const s = sorted(nums);
  return (largest ? s[s.length - k] : s[k - 1]) as number;
}

function rank(call: Call, average: boolean): Value {
  const x = toNumber(call.scalar(0));
  if (isError(x)) return x;
  const cells = cellsArg(call, 1);
  if (isError(cells)) return cells;
  const order = intArg(call, 2, 0);
  if (isError(order)) return order;
  const nums: number[] = [];
  for (const v of cells) {
    if (isError(v)) return v;
    if (typeof v === 'number') nums.push(v);
  }
  const ties = nums.filter((n) => n === x).length;
  if (ties === 0) return err('#NO MATCH');
  const before = nums.filter((n) => (order === 0 ? n > x : n < x)).length;
  return average ? before + (ties + 1) / 2 : before + 1;
}

function average(values: readonly number[]): Value {
  return values.length === 0 ? err('#DIVIDE BY ZERO') : sum(values) / values.length;
}

export const MATH: Record<string, FnDef> = {
  SUM: {
    min: 1,
    max: Infinity,
    impl: (c) => {
      const ns = numbersOf(c);
      return isError(ns) ? ns : checkNumber(sum(ns));
    },
  },
  AVG: {
    min: 1,
    max: Infinity,
    impl: (c) => {
      const ns = numbersOf(c);
      return isError(ns) ? ns : average(ns);
    },
  },
  COUNT: {
    min: 1,
    max: Infinity,
    impl: (c) => {
      let n = 0;
      for (let i = 0; i < c.nodes.length; i++) {
        for (const v of cellsOf(c.value(i))) {
          if (isError(v)) return v;
          if (kindOf(v) !== 'blank') n++;
        }
      }
      return n;
    },
  },
  COUNTM: {
    min: 1,
    max: Infinity,
    impl: (c) => {
      let n = 0;
      for (let i = 0; i < c.nodes.length; i++) {
        for (const v of cellsOf(c.value(i))) {
          if (isError(v)) return v;
          if (isMulti(v)) n += v.items.length;
          else if (kindOf(v) !== 'blank') n++;
        }
      }
      return n;
    },
  },
  AVGW: {
    min: 2,
    max: 2,
    impl: (c) => {
      const vs = cellsArg(c, 0);
      if (isError(vs)) return vs;
      const ws = cellsArg(c, 1);
      if (isError(ws)) return ws;
      const bad = sameSizes([vs, ws]);
      if (bad) return bad;
      let num = 0;
      let den = 0;
      for (let i = 0; i < vs.length; i++) {
        const v = vs[i] as Scalar;
        const w = ws[i] as Scalar;
        if (isError(v)) return v;
        if (isError(w)) return w;
        if (typeof v !== 'number' || typeof w !== 'number') continue;
        num += v * w;
        den += w;
      }
      return den === 0 ? err('#DIVIDE BY ZERO') : num / den;
    },
  },
  SUMPRODUCT: {
    min: 1,
    max: Infinity,
    impl: (c) => {
      const lists: (readonly Scalar[])[] = [];
      for (let i = 0; i < c.nodes.length; i++) {
        const l = cellsArg(c, i);
        if (isError(l)) return l;
        lists.push(l);
      }
      const bad = sameSizes(lists);
      if (bad) return bad;
      let total = 0;
      for (let j = 0; j < (lists[0]?.length ?? 0); j++) {
        let p = 1;
        for (const l of lists) {
          const v = l[j] as Scalar;
          if (isError(v)) return v;
          p *= typeof v === 'number' ? v : 0;
        }
        total += p;
      }
      return checkNumber(total);
    },
  },
  MIN: { min: 1, max: Infinity, impl: (c) => extreme(c, Math.min) },
  MAX: { min: 1, max: Infinity, impl: (c) => extreme(c, Math.max) },
  MEDIAN: {
    min: 1,
    max: Infinity,
    impl: (c) => {
      const ns = numbersOf(c);
      return isError(ns) ? ns : median(ns);
    },
  },
  LARGE: { min: 2, max: 2, impl: (c) => kth(c, true) },
  SMALL: { min: 2, max: 2, impl: (c) => kth(c, false) },
  RANKEQ: { min: 2, max: 3, impl: (c) => rank(c, false) },
  RANKAVG: { min: 2, max: 3, impl: (c) => rank(c, true) },
  PERCENTILE: {
    min: 2,
    max: 2,
    impl: (c) => {
      const values = cellsArg(c, 0);
      if (isError(values)) return values;
      const nums: number[] = [];
      for (const v of values) {
        if (isError(v)) return v;
        if (typeof v === 'number') nums.push(v);
      }
      const p = toNumber(c.scalar(1));
      if (isError(p)) return p;
      if (p < 0 || p > 1 || nums.length === 0) return err('#INVALID VALUE');
      const s = sorted(nums);
      const pos = p * (s.length - 1);
      const lo = Math.floor(pos);
      const hi = Math.ceil(pos);
      return (s[lo] as number) + ((s[hi] as number) - (s[lo] as number)) * (pos - lo);
    },
  },
  STDEVS: { min: 1, max: Infinity, impl: (c) => stdev(numbersOf(c), true) },
  STDEVP: { min: 1, max: Infinity, impl: (c) => stdev(numbersOf(c), false) },
  STDEVA: { min: 1, max: Infinity, impl: (c) => stdev(numbersA(c), true) },
  STDEVPA: { min: 1, max: Infinity, impl: (c) => stdev(numbersA(c), false) },
  ROUND: rounding(Math.round),
  ROUNDUP: rounding(Math.ceil),
  ROUNDDOWN: rounding(Math.floor),
  MROUND: multipleFn(Math.round, true),
  CEILING: multipleFn(Math.ceil, false),
  FLOOR: multipleFn(Math.floor, false),
  INT: unaryNumber((n) => Math.floor(n) + 0),
  ABS: unaryNumber((n) => Math.abs(n)),
  MOD: {
    min: 2,
    max: 2,
    impl: (c) => {
      const a = toNumber(c.scalar(0));
      if (isError(a)) return a;
      const b = toNumber(c.scalar(1));
      if (isError(b)) return b;
      if (b === 0) return err('#DIVIDE BY ZERO');
      const r = a - b * Math.floor(a / b);
      return Number(r.toPrecision(15)) + 0;
    },
  },
};
