import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseFormula } from '../../../src/engine/formula/parser.ts';
import { render } from '../../../src/engine/formula/render.ts';
import { staticSchema } from '../../../src/engine/formula/schema.ts';

const columns = [
  { id: 1, title: 'Col A' },
  { id: 2, title: 'Qty' },
  { id: 3, title: 'Status' },
];
const rows = [10, 20, 30, 40];
const schema = staticSchema(columns, rows);

test('round trip: text renders back unchanged, spacing and case kept', () => {
  for (const text of [
    '=[Col A]1 + Qty2',
    '=sum( [Col A]1:[Col A]4 ) * 2',
    '=SUM([Qty]$1:[Qty]@row)',
    '=$[Col A]$2',
    '=COUNTIF(Status:Status, <> "Done")',
    '=IF([Col A]@row > 1, "big", "small")',
    '=SUM({Other Sheet Range})',
    '=[Col A]99',
    '=[Col A]1:Qty4',
  ]) {
    assert.equal(render(parseFormula(text, schema), schema), text);
  }
});

test('unparseable text renders as written', () => {
  const f = parseFormula('=SUM(1', schema);
  assert.equal(render(f, schema), '=SUM(1');
});

test('renaming a column shows the new title, bracketed when it needs brackets', () => {
  const f = parseFormula('=[Col A]1 + Qty2 + Status@row', schema);
  const renamed = staticSchema(
    [{ id: 1, title: 'Amount' }, { id: 2, title: 'Unit Qty' }, { id: 3, title: 'State' }],
    rows,
  );
  // [Col A] keeps its brackets; Qty gains them; Status stays bare
  assert.equal(render(f, renamed), '=[Amount]1 + [Unit Qty]2 + State@row');
  const digits = staticSchema([{ id: 1, title: 'A' }, { id: 2, title: 'Q1' }, { id: 3, title: 'true' }], rows);
  assert.equal(render(f, digits), '=[A]1 + [Q1]2 + [true]@row');
});

test('moving rows shows the new row numbers', () => {
  const f = parseFormula('=[Col A]1 + SUM(Qty2:Qty3) + $[Col A]$4', schema);
  const moved = staticSchema(columns, [40, 30, 20, 10]);
  assert.equal(render(f, moved), '=[Col A]4 + SUM(Qty3:Qty2) + $[Col A]$1');
});

test('a deleted row or column renders as #REF, and #REF parses back', () => {
  const f = parseFormula('=[Col A]2 + Qty1 + SUM(Status1:Status3)', schema);
  const withoutRow = staticSchema(columns, [10, 30, 40]);
  const text = render(f, withoutRow);
  assert.equal(text, '=#REF + Qty1 + SUM(Status1:Status2)');
  const again = parseFormula(text, withoutRow);
  assert.ok(again.ok);
  assert.equal(render(again, withoutRow), text);
  const withoutCol = staticSchema(columns.filter((c) => c.id !== 2), rows);
  assert.equal(render(f, withoutCol), '=[Col A]2 + #REF + SUM(Status1:Status3)');
});
