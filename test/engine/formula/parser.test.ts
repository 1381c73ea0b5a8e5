import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseFormula, validateFormulaText } from '../../../src/engine/formula/parser.ts';
import type { Formula, Node } from '../../../src/engine/formula/ast.ts';
import { staticSchema } from '../../../src/engine/formula/schema.ts';
import { InvalidInput } from '../../../src/engine/errors.ts';
import { fromEngineError } from '../../../src/services/platform/errors.ts';

const schema = staticSchema(
  [
    { id: 100, title: 'Col A' },
    { id: 200, title: 'Col B' },
    { id: 300, title: 'Status' },
    { id: 400, title: 'Price1' },
  ],
  [11, 12, 13, 14, 15],
);

function root(text: string): Node {
  const f = parseFormula(text, schema);
  assert.ok(f.ok, `${text} should parse: ${f.ok ? '' : f.reason}`);
  return f.root;
}

/** The tree without source spans, for readable expectations. */
function strip(n: Node): unknown {
  return JSON.parse(JSON.stringify(n, (k, v: unknown) => (k === 'span' ? undefined : v)));
}

function failed(text: string): Formula & { ok: false } {
  const f = parseFormula(text, schema);
  assert.equal(f.ok, false, `${text} should not parse`);
  return f as Formula & { ok: false };
}

test('validateFormulaText: a formula must start with =', () => {
  validateFormulaText('=1');
  assert.throws(() => validateFormulaText('SUM(1)'), (e: unknown) => e instanceof InvalidInput && e.errorCode === 1162 && fromEngineError(e).statusCode === 400);
});

test('literals: numbers, text, booleans', () => {
  assert.deepEqual(strip(root('=12')), { type: 'number', value: 12 });
  assert.deepEqual(strip(root('=1.5')), { type: 'number', value: 1.5 });
  assert.deepEqual(strip(root('=.5')), { type: 'number', value: 0.5 });
  assert.deepEqual(strip(root('="a b"')), { type: 'string', value: 'a b' });
  assert.deepEqual(strip(root('=TRUE')), { type: 'boolean', value: true });
  assert.deepEqual(strip(root('=false')), { type: 'boolean', value: false });
});

test('operators and precedence', () => {
  assert.deepEqual(strip(root('=1 + 2 * 3')), {
    type: 'binary', op: '+', left: { type: 'number', value: 1 },
    right: { type: 'binary', op: '*', left: { type: 'number', value: 2 }, right: { type: 'number', value: 3 } },
  });
  assert.deepEqual(strip(root('=(1 + 2) * 3')), {
    type: 'binary', op: '*',
    left: { type: 'binary', op: '+', left: { type: 'number', value: 1 }, right: { type: 'number', value: 2 } },
    right: { type: 'number', value: 3 },
  });
  assert.deepEqual(strip(root('=-2^2')), {
    type: 'binary', op: '^', left: { type: 'unary', op: '-', arg: { type: 'number', value: 2 } }, right: { type: 'number', value: 2 },
  });
  for (const op of ['=', '<>', '<', '>', '<=', '>=']) {
    const n = root(`=1 ${op} 2`);
    assert.equal(n.type === 'binary' && n.op, op);
  }
  const cmp = root('=1 + 1 = 2');
  assert.equal(cmp.type === 'binary' && cmp.op, '=');
});

test('cell references by identity: brackets, bare names, @row, $', () => {
  assert.deepEqual(strip(root('=[Col A]2')), {
    type: 'cell', col: { colId: 100, abs: false, bracket: true }, row: { kind: 'id', rowId: 12, abs: false },
  });
  assert.deepEqual(strip(root('=[Col B]@row')), {
    type: 'cell', col: { colId: 200, abs: false, bracket: true }, row: { kind: 'at' },
  });
  assert.deepEqual(strip(root('=Status1')), {
    type: 'cell', col: { colId: 300, abs: false, bracket: false }, row: { kind: 'id', rowId: 11, abs: false },
  });
  assert.deepEqual(strip(root('=status@row')), {
    type: 'cell', col: { colId: 300, abs: false, bracket: false }, row: { kind: 'at' },
  });
  assert.deepEqual(strip(root('=$[Col A]$3')), {
    type: 'cell', col: { colId: 100, abs: true, bracket: true }, row: { kind: 'id', rowId: 13, abs: true },
  });
  assert.deepEqual(strip(root('=[Col A]$3')), {
    type: 'cell', col: { colId: 100, abs: false, bracket: true }, row: { kind: 'id', rowId: 13, abs: true },
  });
  assert.deepEqual(strip(root('=[Price1]1')), {
    type: 'cell', col: { colId: 400, abs: false, bracket: true }, row: { kind: 'id', rowId: 11, abs: false },
  });
  // a row number the sheet does not have yet is kept as a number
  assert.deepEqual(strip(root('=[Col A]99')), {
    type: 'cell', col: { colId: 100, abs: false, bracket: true }, row: { kind: 'missing', rowNumber: 99, abs: false },
  });
});

test('ranges: rows, whole columns, several columns, bare names', () => {
  assert.deepEqual(strip(root('=[Col A]1:[Col B]5')), {
    type: 'range',
    c1: { colId: 100, abs: false, bracket: true }, c2: { colId: 200, abs: false, bracket: true },
    r1: { kind: 'id', rowId: 11, abs: false }, r2: { kind: 'id', rowId: 15, abs: false },
  });
  assert.deepEqual(strip(root('=[Col A]:[Col A]')), {
    type: 'range', c1: { colId: 100, abs: false, bracket: true }, c2: { colId: 100, abs: false, bracket: true }, r1: null, r2: null,
  });
  assert.deepEqual(strip(root('=Status:Status')), {
    type: 'range', c1: { colId: 300, abs: false, bracket: false }, c2: { colId: 300, abs: false, bracket: false }, r1: null, r2: null,
  });
  assert.deepEqual(strip(root('=[Col B]$1:[Col B]@row')), {
    type: 'range', c1: { colId: 200, abs: false, bracket: true }, c2: { colId: 200, abs: false, bracket: true },
    r1: { kind: 'id', rowId: 11, abs: true }, r2: { kind: 'at' },
  });
});

test('function calls: case-insensitive names, empty arguments, criteria, @cell, cross-sheet', () => {
  assert.deepEqual(strip(root('=sum(1, 2)')), { type: 'call', name: 'SUM', args: [{ type: 'number', value: 1 }, { type: 'number', value: 2 }] });
  assert.deepEqual(strip(root('=TODAY()')), { type: 'call', name: 'TODAY', args: [] });
  assert.deepEqual(strip(root('=IF(true, , 1)')), {
    type: 'call', name: 'IF', args: [{ type: 'boolean', value: true }, { type: 'empty' }, { type: 'number', value: 1 }],
  });
  assert.deepEqual(strip(root('=COUNTIF([Col A]:[Col A], > 5)')), {
    type: 'call', name: 'COUNTIF', args: [
      { type: 'range', c1: { colId: 100, abs: false, bracket: true }, c2: { colId: 100, abs: false, bracket: true }, r1: null, r2: null },
      { type: 'criterion', op: '>', arg: { type: 'number', value: 5 } },
    ],
  });
  assert.deepEqual(strip(root('=COUNTIF(Status:Status, <> "Done")')), {
    type: 'call', name: 'COUNTIF', args: [
      { type: 'range', c1: { colId: 300, abs: false, bracket: false }, c2: { colId: 300, abs: false, bracket: false }, r1: null, r2: null },
      { type: 'criterion', op: '<>', arg: { type: 'string', value: 'Done' } },
    ],
  });
  const atcell = root('=COUNTIF([Col A]:[Col A], @cell > 2)');
  assert.ok(atcell.type === 'call' && atcell.args[1]?.type === 'binary');
  assert.deepEqual(strip(root('=SUM({Other Sheet Range 1})')), { type: 'call', name: 'SUM', args: [{ type: 'xref', name: 'Other Sheet Range 1' }] });
  assert.deepEqual(strip(root('=#REF + 1')), {
    type: 'binary', op: '+', left: { type: 'error', code: '#REF' }, right: { type: 'number', value: 1 },
  });
});

test('spans cover the reference text', () => {
  const f = parseFormula('=SUM([Col A]1:[Col A]3) + Status@row', schema);
  assert.ok(f.ok && f.root.type === 'binary');
  const left = f.root.left;
  const right = f.root.right;
  assert.ok(left.type === 'call' && left.args[0]?.type === 'range' && right.type === 'cell');
  const rng = left.args[0];
  assert.equal(f.text.slice(rng.span.start, rng.span.end), '[Col A]1:[Col A]3');
  assert.equal(f.text.slice(right.span.start, right.span.end), 'Status@row');
});

test('malformed formulas are unparseable, never exceptions', () => {
  for (const text of [
    'SUM(1)', // no =
    '=',
    '=1 +',
    '=SUM(1,',
    '=NOSUCHFUNCTION(1)',
    '=[No Such Column]1',
    '=[Col A]',
    '=[Col A]1:[Col B]',
    '="unterminated',
    '=[Col A',
    '={Ref',
    '=1 2',
    '=@row',
    '=@foo',
    '=[Col A]0',
    '=[Col A]1.5',
    '=1 ** 2',
    '=#DIV',
    '=,',
    '=Status 1',
  ]) {
    assert.equal(failed(text).code, text === '=SUM(1,' ? '#IMBALANCED' : '#UNPARSEABLE', text);
  }
});

test('unmatched parentheses give #IMBALANCED', () => {
  assert.equal(failed('=SUM(1, 2').code, '#IMBALANCED');
  assert.equal(failed('=(1 + 2))').code, '#IMBALANCED');
  assert.equal(failed('=((1)').code, '#IMBALANCED');
});
