import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { assignSortKeys, KEY_STEP } from '../../src/engine/sortKeys.ts';

function increasing(keys: number[]) {
  for (let i = 1; i < keys.length; i++) assert.ok(keys[i]! > keys[i - 1]!, `keys not increasing at ${i}: ${keys[i - 1]} ${keys[i]}`);
}

test('new rows at the bottom get keys after the last one and nothing else changes', () => {
  const current = [KEY_STEP, 2 * KEY_STEP, 3 * KEY_STEP, undefined, undefined];
  const { keys, changed } = assignSortKeys(current);
  increasing(keys);
  assert.deepEqual(changed, [3, 4]);
  assert.deepEqual(keys.slice(0, 3), [KEY_STEP, 2 * KEY_STEP, 3 * KEY_STEP]);
});

test('a row moved to the top is the only one re-keyed', () => {
  const current = [5 * KEY_STEP, KEY_STEP, 2 * KEY_STEP, 3 * KEY_STEP, 4 * KEY_STEP];
  const { keys, changed } = assignSortKeys(current);
  increasing(keys);
  assert.deepEqual(changed, [0]);
});

test('rows inserted between two rows get keys between theirs', () => {
  const { keys, changed } = assignSortKeys([10, undefined, undefined, 11]);
  increasing(keys);
  assert.deepEqual(changed, [1, 2]);
  assert.ok(keys[1]! > 10 && keys[2]! < 11);
});

test('keys stay strictly increasing for any order and any gaps (re-keying all when gaps run out)', () => {
  fc.assert(
    fc.property(fc.array(fc.option(fc.double({ min: -1e6, max: 1e6, noNaN: true }), { nil: undefined }), { maxLength: 60 }), (current) => {
      const { keys, changed } = assignSortKeys(current);
      assert.equal(keys.length, current.length);
      increasing(keys);
      for (let i = 0; i < current.length; i++) {
        if (!changed.includes(i)) assert.equal(keys[i], current[i]);
      }
    }),
  );
});

test('repeated insertion at the same place eventually re-keys instead of colliding', () => {
  let current: (number | undefined)[] = [1, 2];
  for (let round = 0; round < 80; round++) {
    current = [current[0], undefined, ...current.slice(1)];
    const { keys } = assignSortKeys(current);
    increasing(keys);
    current = keys;
  }
});
