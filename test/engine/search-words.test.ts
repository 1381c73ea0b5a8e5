import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { MAX_WORD_CHARS, pushWords, textWords } from '../../src/engine/search.ts';

/** The words of a text as the index cut them before pushWords' ASCII pass: normalize, drop marks, lower-case, runs of letters and digits. */
function reference(text: string): string[] {
  const folded = text.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase();
  return [...folded.matchAll(/[\p{L}\p{N}]+/gu)].map((m) => (m[0].length > MAX_WORD_CHARS ? m[0].slice(0, MAX_WORD_CHARS) : m[0]));
}

test('the words of a text: the ASCII pass gives what the general path gives', () => {
  assert.deepEqual(textWords('Row 12, C4: r12c4 ABC-def_ghi'), ['row', '12', 'c4', 'r12c4', 'abc', 'def', 'ghi']);
  assert.deepEqual(textWords('  '), []);
  assert.deepEqual(textWords('x'.repeat(MAX_WORD_CHARS + 5) + ' Y'), ['x'.repeat(MAX_WORD_CHARS), 'y']);
  assert.deepEqual(textWords('Crème BRÛLÉE, 1,500.50'), ['creme', 'brulee', '1', '500', '50']);
  const ascii = fc.string({ unit: fc.constantFrom(...'aZz09 ,.-_@\t\n\'"AbYq~\u007f\u0000'.split('')), maxLength: 60 });
  const mixed = fc.string({ unit: fc.oneof(fc.constantFrom(...'aZ9 .-é\u0301ÅßİﬁⅣ²٣'.split('')), fc.constant('x'.repeat(120))), maxLength: 20 });
  const any = fc.string({ unit: 'binary', maxLength: 40 });
  for (const arb of [ascii, mixed, any]) {
    fc.assert(fc.property(arb, (text) => {
      assert.deepEqual(textWords(text), reference(text));
      // appended after what `out` holds, and counted
      const out = ['before'];
      assert.equal(pushWords(text, out), out.length - 1);
      assert.deepEqual(out, ['before', ...reference(text)]);
    }), { numRuns: 3000 });
  }
});
