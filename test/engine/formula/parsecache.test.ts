/**
 * The load's parse cache (parsecache.ts) gives what parseFormula gives, for formulas that differ
 * only by their digits: row numbers (reused trees), number literals, digits in text, titles and
 * cross-sheet names (parsed anew), row numbers of rows the sheet does not have or 0, and row
 * numbers of other lengths (spans moved).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseFormula } from '../../../src/engine/formula/parser.ts';
import { FormulaParseCache } from '../../../src/engine/formula/parsecache.ts';
import { staticSchema } from '../../../src/engine/formula/schema.ts';

const schema = staticSchema(
  [
    { id: 1, title: 'A' },
    { id: 2, title: 'Col 2' },
    { id: 3, title: 'C' },
  ],
  Array.from({ length: 12 }, (_, i) => 101 + i),
);

/** A hole for digits. */
const H = '\u0002';

const leaf = fc.constantFrom(
  `A${H}`, `C$${H}`, `[Col 2]${H}`, `$A${H}`, `A@row`, `[Col 2]@row`, `A${H}:C${H}`, `A$${H}:A@row`, `C@row:C$${H}`,
  `A:C`, `${H}`, `${H}.${H}`, `.${H}`, `"x${H}"`, `{Ref ${H}}`, `#REF`, `true`, `A${H}.`, `A $${H}`, `[Col ${H}]${H}`,
);
const expr: fc.Arbitrary<string> = fc.letrec<{ e: string }>((tie) => ({
  e: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.tuple(tie('e'), fc.constantFrom(' + ', '-', ' * ', '/', ' > ', '^'), tie('e')).map(([a, op, b]) => a + op + b),
    fc.tuple(fc.constantFrom('SUM', 'IF', 'COUNTIF', 'MAX'), fc.array(tie('e'), { maxLength: 3 })).map(([f, args]) => `${f}(${args.join(', ')})`),
    tie('e').map((e) => `(${e})`),
    tie('e').map((e) => `-${e}`),
  ),
})).e;

const digits = fc.constantFrom('0', '1', '2', '3', '5', '9', '10', '12', '13', '007', '100', '99999999999999999999');

test('parse cache: every formula parses as parseFormula parses it', () => {
  fc.assert(
    fc.property(fc.array(fc.tuple(expr, fc.array(fc.array(digits, { minLength: 12, maxLength: 12 }), { minLength: 1, maxLength: 8 })), { minLength: 1, maxLength: 4 }), (families) => {
      const cache = new FormulaParseCache(schema);
      // families interleaved, as a load meets them
      const texts: string[] = [];
      for (let j = 0; j < 8; j++) {
        for (const [shape, fills] of families) {
          const fill = fills[j];
          if (fill === undefined) continue;
          let k = 0;
          texts.push('=' + shape.replace(new RegExp(H, 'g'), () => fill[k++ % fill.length]!));
        }
      }
      for (let i = 0; i < texts.length; i++) {
        const text = texts[i]!;
        assert.deepStrictEqual(cache.parse(text), parseFormula(text, schema), text);
      }
    }),
    { numRuns: 300 },
  );
});

test('parse cache: a running total written cell to cell reuses one tree shape', () => {
  const cache = new FormulaParseCache(schema);
  for (let i = 1; i <= 14; i++) {
    for (const text of [`=C${i} + A${i + 1}`, `=SUM(A$1:A${i}) * 2`, `=[Col 2]${i} + "${i}"`, `=A${i}:C${i}`, `=A0${i}`]) {
      assert.deepStrictEqual(cache.parse(text), parseFormula(text, schema), text);
    }
  }
});

test('parse cache: a text holding the shape marker is parsed as it is', () => {
  const cache = new FormulaParseCache(schema);
  for (const text of ['="\u0001" & A1', '="\u0001" & A2', '="1" & A\u0001', '=A1 + 1', '=A\u0001 + \u0001']) {
    assert.deepStrictEqual(cache.parse(text), parseFormula(text, schema), text);
  }
});
