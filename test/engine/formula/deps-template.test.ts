/**
 * A load works out a column formula's dependencies once (deps.ts collectDepsTemplate): for every
 * row, they are what collectDeps gives for that row, or there is no template (hierarchy reads).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { collectDeps, collectDepsTemplate, type DepsContext } from '../../../src/engine/formula/deps.ts';
import { parseFormula } from '../../../src/engine/formula/parser.ts';
import { RowModel } from '../../../src/engine/formula/rows.ts';
import { staticSchema } from '../../../src/engine/formula/schema.ts';

const COLUMNS = [1, 2, 3];
const ROWS = [
  { id: 11 },
  { id: 12, parentId: 11 },
  { id: 13, parentId: 12 },
  { id: 14 },
  { id: 15, parentId: 14 },
  { id: 16 },
];
const schema = staticSchema(
  COLUMNS.map((id) => ({ id, title: ['A', 'B', 'C'][id - 1]! })),
  ROWS.map((r) => r.id),
);
const ctx: DepsContext = {
  rows: new RowModel(ROWS),
  columnsBetween: (a, b) => {
    const i = COLUMNS.indexOf(a);
    const j = COLUMNS.indexOf(b);
    return i < 0 || j < 0 ? undefined : COLUMNS.slice(Math.min(i, j), Math.max(i, j) + 1);
  },
  hasColumn: (id) => COLUMNS.includes(id),
};

const FORMULAS = [
  '=[A]@row * 2', '=SUM([B]$1:[B]@row)', '=SUM(A@row:C@row)', '=A1 + B@row', '=COUNT(A@row:A$3)', '=SUM(A:B) + A@row',
  '=A9 + A@row', '=SUM(A$2:A@row, B$1:C@row)', '=SUM(CHILDREN())', '=COUNT(CHILDREN(A@row))', '=PARENT(B@row)', '=JOIN(ANCESTORS(A@row), "/")',
  '=IF(A@row > 1, {Other 1}, TODAY())', '=1 +', '=AVG(A1:A@row) + B@row - C2', '=A@row:B3', '=SUM(A$1:A@row) + SUM(A$1:A@row)',
];

test('dependency template: each row gets what collectDeps gives it', () => {
  fc.assert(
    fc.property(fc.constantFrom(...FORMULAS), fc.constantFrom(...COLUMNS), (text, col) => {
      const f = parseFormula(text, schema);
      const t = collectDepsTemplate(f, col, ctx);
      if (/CHILDREN|PARENT|ANCESTORS/.test(text)) assert.equal(t, undefined, text);
      else assert.ok(t, text);
      if (t === undefined) return;
      for (const r of ROWS) assert.deepStrictEqual(t.forRow(r.id), collectDeps(f, r.id, col, ctx), `${text} at row ${r.id}`);
    }),
    { numRuns: 100 },
  );
});
