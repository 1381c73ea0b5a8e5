import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parse } from 'csv-parse/sync';
import { CsvRecords } from '../../src/engine/csvRecords.ts';
import { InvalidInput } from '../../src/engine/errors.ts';

// What Import Sheet read CSV with before: csv-parse, with these options.
function oracle(text: string): string[][] | 'refused' {
  try {
    return parse(text, { bom: true, relax_column_count: true, skip_empty_lines: false }) as string[][];
  } catch {
    return 'refused';
  }
}

function ours(chunks: string[]): string[][] | 'refused' {
  const r = new CsvRecords();
  const out: string[][] = [];
  try {
    for (const c of chunks) out.push(...r.push(c));
    out.push(...r.end());
    return out;
  } catch (e) {
    assert.ok(e instanceof InvalidInput && e.errorCode === 1008, String(e));
    return 'refused';
  }
}

/** The text cut at the given points (sorted, deduplicated) into chunks. */
function cut(text: string, points: number[]): string[] {
  const at = [...new Set(points.map((p) => p % (text.length + 1)))].sort((a, b) => a - b);
  const out: string[] = [];
  let from = 0;
  for (const p of at) {
    out.push(text.slice(from, p));
    from = p;
  }
  out.push(text.slice(from));
  return out;
}

test('CSV records: the same records as csv-parse, or refused where it refuses, however the text is cut into chunks', () => {
  const text = fc.array(fc.constantFrom('a', 'b', 'é', ' ', ',', '"', '\n', '\r', '\r\n', '""', '\ufeff'), { maxLength: 30 }).map((a) => a.join(''));
  fc.assert(fc.property(text, fc.array(fc.nat(40), { maxLength: 6 }), (t, points) => {
    assert.deepEqual(ours(cut(t, points)), oracle(t), JSON.stringify(t));
  }), { numRuns: 50_000 });
});

test('CSV records: known cases', () => {
  assert.deepEqual(ours(['a,b\n"c, d","e ""q"""\n']), [['a', 'b'], ['c, d', 'e "q"']]);
  assert.deepEqual(ours(['\ufeffx,y\r\n', '1,2\r', '\n3,4']), [['x', 'y'], ['1', '2'], ['3', '4']]);
  assert.deepEqual(ours(['a\n\nb\n']), [['a'], [''], ['b']]);
  assert.deepEqual(ours(['']), []);
  assert.equal(ours(['a,"b\n']), 'refused');
  assert.equal(ours(['ab"c\n']), 'refused');
  assert.equal(ours(['"a"b\n']), 'refused');
});
