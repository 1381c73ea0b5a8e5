/**
 * Property: after any sequence of edits, the incrementally maintained values equal a fresh
 * engine loaded from the final state (rows, inputs, rendered formulas) and computed from scratch.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { FormulaEngine, type EngineColumn, type LoadCell } from '../../../src/engine/formula/engine.ts';
import type { RawCellValue } from '../../../src/engine/formula/values.ts';

const COLUMNS: EngineColumn[] = [
  { id: 1, title: 'A', type: 'TEXT_NUMBER' },
  { id: 2, title: 'Col B', type: 'TEXT_NUMBER' },
  { id: 3, title: 'C', type: 'TEXT_NUMBER' },
];
const TITLES = ['A', '[Col B]', 'C'];
const NOW = new Date('2024-03-15T12:00:00Z');

/** Formula templates; r/s are row numbers picked at apply time, t/u column titles. */
const TEMPLATES: ((r: number, s: number, t: string, u: string) => string)[] = [
  (r, _s, t) => `=${t}${r} + 1`,
  (r, s, t, u) => `=${t}${r} * 2 + ${u}${s}`,
  (r, s, t) => `=SUM(${t}${r}:${t}${s})`,
  (_r, _s, t) => `=SUM(${t}:${t})`,
  (_r, _s, t) => `=COUNTIF(${t}:${t}, > 1)`,
  (r, s, t, u) => `=IF(${t}${r} > 2, ${u}${s}, "low")`,
  (_r, _s, t) => `=${t}@row - 1`,
  (r, _s, t) => `=SUM(${t}$1:${t}@row) + ${t}${r}`,
  () => '=SUM(CHILDREN())',
  (_r, _s, t) => `=COUNT(CHILDREN(${t}@row)) + IFERROR(PARENT(${t}@row), 0)`,
  (_r, _s, t) => `=JOIN(ANCESTORS(${t}@row), "/")`,
  (r, _s, t) => `=IFERROR(${t}${r} / ${t}@row, "div")`,
  (r, s, t, u) => `=INDEX(${t}1:${u}${s}, 1) + ${t}${r}`,
  (_r, _s, t) => `=SUM(${t}$1:${t}@row)`,
  (r, _s, t) => `=COUNT(${t}@row:${t}$${r})`,
  (r, s, t) => `=SUM(${t}$${r}:${t}${s})`,
  (r, _s, t) => `=IFERROR(AVG(${t}${r}:${t}@row), "none")`,
  (_r, _s, t, u) => `=SUM(${t}$1:${u}@row)`,
  (r, _s, t) => `=IFERROR(TIME(${t}${r}, 1) + ${t}@row, "t")`,
  () => '=TODAY() - DATE(2024, 1, 1)',
  () => '=SUM(1,',
];

type Op =
  | { kind: 'value'; row: number; col: number; value: RawCellValue }
  | { kind: 'formula'; row: number; col: number; tpl: number; r: number; s: number; t: number; u: number }
  | { kind: 'clear'; row: number; col: number }
  | { kind: 'columnFormula'; col: number; tpl: number; r: number; s: number; t: number; u: number; remove: boolean }
  | { kind: 'add'; count: number; before: number; parent: number }
  | { kind: 'delete'; row: number }
  | { kind: 'move'; row: number; before: number; parent: number };

const pick = fc.nat({ max: 1000 });
const col = fc.nat({ max: 2 });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('value' as const), row: pick, col, value: fc.oneof(fc.integer({ min: -3, max: 6 }), fc.constant('x'), fc.constant(null)) }) },
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('formula' as const), row: pick, col, tpl: fc.nat({ max: TEMPLATES.length - 1 }), r: pick, s: pick, t: col, u: col }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('clear' as const), row: pick, col }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('columnFormula' as const), col, tpl: fc.nat({ max: TEMPLATES.length - 1 }), r: pick, s: pick, t: col, u: col, remove: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('add' as const), count: fc.integer({ min: 1, max: 2 }), before: pick, parent: pick }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), row: pick }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('move' as const), row: pick, before: pick, parent: pick }) },
);

interface Model {
  rows: { id: number; parentId: number | null }[];
  inputs: Map<string, RawCellValue>;
  nextId: number;
}

function descendants(m: Model, id: number): Set<number> {
  const out = new Set([id]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const r of m.rows) {
      if (r.parentId !== null && out.has(r.parentId) && !out.has(r.id)) {
        out.add(r.id);
        grew = true;
      }
    }
  }
  return out;
}

function apply(e: FormulaEngine, m: Model, op: Op): void {
  const n = m.rows.length;
  const rowAt = (k: number): number | undefined => (n === 0 ? undefined : m.rows[k % n]?.id);
  const num = (k: number): number => (n === 0 ? 1 : (k % (n + 1)) + 1); // may point one past the end
  const colId = (c: number): number => COLUMNS[c]?.id as number;
  switch (op.kind) {
    case 'value': {
      const r = rowAt(op.row);
      if (r === undefined) return;
      e.setCellValue(r, colId(op.col), op.value);
      m.inputs.set(`${r}:${colId(op.col)}`, op.value);
      return;
    }
    case 'formula': {
      const r = rowAt(op.row);
      if (r === undefined) return;
      const text = (TEMPLATES[op.tpl] as (typeof TEMPLATES)[number])(num(op.r), num(op.s), TITLES[op.t] as string, TITLES[op.u] as string);
      e.setFormula(r, colId(op.col), text);
      return;
    }
    case 'clear': {
      const r = rowAt(op.row);
      if (r === undefined) return;
      if (e.formulaOf(r, colId(op.col)) !== undefined && !e.isColumnFormulaCell(r, colId(op.col))) m.inputs.set(`${r}:${colId(op.col)}`, null);
      e.clearFormula(r, colId(op.col));
      return;
    }
    case 'columnFormula': {
      if (op.remove) {
        e.setColumnFormula(colId(op.col), null);
        return;
      }
      const text = (TEMPLATES[op.tpl] as (typeof TEMPLATES)[number])(num(op.r), num(op.s), TITLES[op.t] as string, TITLES[op.u] as string);
      e.setColumnFormula(colId(op.col), text);
      return;
    }
    case 'add': {
      const before = n === 0 ? undefined : m.rows[op.before % (n + 1)]?.id;
      const parent = n === 0 || op.parent % 3 === 0 ? null : (rowAt(op.parent) ?? null);
      const fresh = Array.from({ length: op.count }, () => ({ id: m.nextId++, parentId: parent }));
      e.addRows(fresh, before ?? null);
      const at = before === undefined ? m.rows.length : m.rows.findIndex((r) => r.id === before);
      m.rows.splice(at, 0, ...fresh);
      return;
    }
    case 'delete': {
      const r = rowAt(op.row);
      if (r === undefined) return;
      const gone = descendants(m, r);
      e.deleteRows(gone);
      m.rows = m.rows.filter((x) => !gone.has(x.id));
      for (const k of [...m.inputs.keys()]) if (gone.has(Number(k.split(':')[0]))) m.inputs.delete(k);
      return;
    }
    case 'move': {
      const r = rowAt(op.row);
      if (r === undefined) return;
      const sub = descendants(m, r);
      const others = m.rows.filter((x) => !sub.has(x.id));
      const before = others.length === 0 ? undefined : others[op.before % (others.length + 1)]?.id;
      const parentCandidate = others.length === 0 || op.parent % 3 === 0 ? null : (others[op.parent % others.length]?.id ?? null);
      const self = m.rows.find((x) => x.id === r) as { id: number; parentId: number | null };
      // move the row alone (its children stay where they are, under it)
      e.moveRows([{ id: r, parentId: parentCandidate }], before ?? null);
      self.parentId = parentCandidate;
      m.rows = m.rows.filter((x) => x.id !== r);
      const at = before === undefined ? m.rows.length : m.rows.findIndex((x) => x.id === before);
      m.rows.splice(at, 0, self);
      return;
    }
  }
}

/** A value as a client reads it: through JSON (no negative zero, no undefined members). */
const asJson = (v: unknown): unknown => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));

function fresh(e: FormulaEngine, m: Model): FormulaEngine {
  const f = new FormulaEngine(COLUMNS, m.rows.map((r) => ({ id: r.id, parentId: r.parentId })), { now: () => NOW });
  const cells: LoadCell[] = [];
  for (const [k, v] of m.inputs) {
    const [r, c] = k.split(':').map(Number) as [number, number];
    cells.push({ rowId: r, columnId: c, value: v });
  }
  for (const fc1 of e.formulaCells()) {
    if (!fc1.fromColumnFormula) cells.push({ rowId: fc1.rowId, columnId: fc1.columnId, formula: fc1.formula });
  }
  const colFormulas = COLUMNS.flatMap((c) => {
    const t = e.columnFormulaOf(c.id);
    return t === undefined ? [] : [{ columnId: c.id, formula: t }];
  });
  f.load(cells, colFormulas);
  return f;
}

test('incremental recalculation equals a full recomputation after random edits', () => {
  fc.assert(
    fc.property(fc.array(opArb, { minLength: 1, maxLength: 30 }), (ops) => {
      const m: Model = { rows: [1, 2, 3, 4].map((id) => ({ id, parentId: id === 3 ? 2 : null })), inputs: new Map(), nextId: 100 };
      const e = new FormulaEngine(COLUMNS, m.rows, { now: () => NOW });
      for (const op of ops) apply(e, m, op);
      const f = fresh(e, m);
      for (const r of m.rows) {
        for (const c of COLUMNS) {
          assert.deepEqual(e.result(r.id, c.id), f.result(r.id, c.id), `row ${r.id} col ${c.title}: ${e.formulaOf(r.id, c.id) ?? '(value)'}`);
          assert.equal(e.formulaOf(r.id, c.id), f.formulaOf(r.id, c.id));
        }
      }
    }),
    { numRuns: 500 },
  );
});

test('running ranges (SUM/COUNT/AVG from $1 to @row): incremental equals full recomputation', () => {
  const editOp: fc.Arbitrary<Op> = fc.oneof(
    { weight: 6, arbitrary: fc.record({ kind: fc.constant('value' as const), row: pick, col: fc.nat({ max: 1 }), value: fc.oneof(fc.integer({ min: -3, max: 6 }), fc.double({ min: -2, max: 2, noNaN: true }), fc.constant('x'), fc.constant(null)) }) },
    { weight: 3, arbitrary: fc.record({ kind: fc.constant('formula' as const), row: pick, col: fc.nat({ max: 1 }), tpl: fc.nat({ max: TEMPLATES.length - 1 }), r: pick, s: pick, t: col, u: col }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('clear' as const), row: pick, col: fc.nat({ max: 1 }) }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('add' as const), count: fc.integer({ min: 1, max: 3 }), before: pick, parent: pick }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), row: pick }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('move' as const), row: pick, before: pick, parent: pick }) },
  );
  fc.assert(
    fc.property(fc.array(editOp, { minLength: 1, maxLength: 25 }), (ops) => {
      const m: Model = { rows: [1, 2, 3, 4, 5, 6].map((id) => ({ id, parentId: null })), inputs: new Map(), nextId: 100 };
      const e = new FormulaEngine(COLUMNS, m.rows, { now: () => NOW });
      e.setColumnFormula(3, '=SUM(A$1:A@row) + COUNT([Col B]$1:[Col B]@row) * 100 + IFERROR(AVG([Col B]@row:[Col B]$3), 0)');
      for (const op of ops) apply(e, m, op);
      const f = fresh(e, m);
      for (const r of m.rows) {
        for (const c of COLUMNS) {
          assert.deepEqual(e.result(r.id, c.id), f.result(r.id, c.id), `row ${r.id} col ${c.title}: ${e.formulaOf(r.id, c.id) ?? '(value)'}`);
        }
      }
    }),
    { numRuns: 300 },
  );
});

/**
 * An edit right after a load orders what it reaches by the order the load computed (the kept
 * order, walked through running totals' chains at once) instead of ordering it afresh: its
 * values and its list of changed cells must be what a full recomputation gives.
 */
test('edits right after a load (kept order, chains): values and changed cells equal a full recomputation', () => {
  const cellArb = fc.record({ row: pick, col, tpl: fc.nat({ max: TEMPLATES.length - 1 }), r: pick, s: pick, t: col, u: col });
  const valueArb = fc.oneof(fc.integer({ min: -3, max: 6 }), fc.double({ min: -2, max: 2, noNaN: true }), fc.constant('x'), fc.constant(null));
  const running = ['=SUM(A$1:A@row)', '=SUM([Col B]$1:[Col B]@row) + 1', '=COUNT(A@row:A$3)', '=IFERROR(AVG([Col B]@row:[Col B]$2), 0)', '=SUM(A$1:A@row) + [Col B]@row'];
  fc.assert(
    fc.property(
      fc.integer({ min: 3, max: 9 }),
      fc.array(fc.record({ row: pick, col, value: valueArb }), { maxLength: 20 }),
      fc.array(cellArb, { maxLength: 6 }),
      fc.option(fc.record({ col: fc.nat({ max: 2 }), f: fc.nat({ max: running.length - 1 }) }), { nil: undefined }),
      fc.array(fc.record({ row: pick, col, value: valueArb }), { minLength: 1, maxLength: 6 }),
      (rowCount, inputs, formulas, columnFormula, edits) => {
        const m: Model = { rows: Array.from({ length: rowCount }, (_, i) => ({ id: i + 1, parentId: null })), inputs: new Map(), nextId: 100 };
        const n = m.rows.length;
        const num = (k: number): number => (k % (n + 1)) + 1;
        const cells: LoadCell[] = [];
        for (const v of inputs) {
          const r = (v.row % n) + 1;
          const c = COLUMNS[v.col]!.id;
          m.inputs.set(`${r}:${c}`, v.value);
        }
        for (const [k, v] of m.inputs) {
          const [r, c] = k.split(':').map(Number) as [number, number];
          cells.push({ rowId: r, columnId: c, value: v });
        }
        for (const f of formulas) {
          const text = TEMPLATES[f.tpl]!(num(f.r), num(f.s), TITLES[f.t]!, TITLES[f.u]!);
          cells.push({ rowId: (f.row % n) + 1, columnId: COLUMNS[f.col]!.id, formula: text });
        }
        const colFormulas = columnFormula === undefined ? [] : [{ columnId: COLUMNS[columnFormula.col]!.id, formula: running[columnFormula.f]! }];
        const e = new FormulaEngine(COLUMNS, m.rows, { now: () => NOW });
        e.load(cells, colFormulas);
        const snapshot = (): Map<string, unknown> => {
          const out = new Map<string, unknown>();
          for (const r of m.rows) for (const c of COLUMNS) out.set(`${r.id}:${c.id}`, e.result(r.id, c.id));
          return out;
        };
        for (const edit of edits) {
          const r = (edit.row % n) + 1;
          const c = COLUMNS[edit.col]!.id;
          const before = snapshot();
          const changes = e.setCellValue(r, c, edit.value);
          if (!e.isColumnFormulaCell(r, c)) m.inputs.set(`${r}:${c}`, edit.value);
          const after = snapshot();
          const listed = new Map(changes.map((ch) => [`${ch.rowId}:${ch.columnId}`, ch.result]));
          assert.equal(listed.size, changes.length, 'a cell listed twice');
          // as a client sees them: JSON has no negative zero, so a 0 that became -0 (a formula's 0
          // overwritten by the value -0) is no change to list
          for (const [k, v] of after) {
            if (!listed.has(k)) assert.deepEqual(asJson(v), asJson(before.get(k)), `cell ${k} changed but is not listed`);
            else assert.deepEqual(listed.get(k), v, `cell ${k} listed with another value`);
          }
        }
        const f = fresh(e, m);
        for (const r of m.rows) {
          for (const c of COLUMNS) {
            assert.deepEqual(e.result(r.id, c.id), f.result(r.id, c.id), `row ${r.id} col ${c.title}: ${e.formulaOf(r.id, c.id) ?? '(value)'}`);
          }
        }
      },
    ),
    { numRuns: 400 },
  );
});
