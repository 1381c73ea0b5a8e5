/**
 * docs/errors.md lists the catalogue's codes that sheetd cannot answer (scripts/catalogue.mjs
 * reads the table): each row names a catalogued code once, with the catalogue's status and a
 * reason. `npm run catalogue` checks the rest (that no test makes sheetd answer a listed code).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CATALOGUE } from '../../src/errors.ts';
// @ts-expect-error: a plain ES module of the scripts, without types
import { cannotOccur } from '../../scripts/catalogue.mjs';

test('every code docs/errors.md lists as impossible is catalogued, with its status and a reason', () => {
  const listed = cannotOccur() as Map<number, { status: number; reason: string }>;
  assert.ok(listed.size > 100, `only ${listed.size} rows read: the table's format changed?`);
  for (const [code, { status, reason }] of listed) {
    const entry = CATALOGUE[code];
    assert.ok(entry, `${code} is not in the catalogue`);
    assert.equal(status, entry[0], `${code}: docs/errors.md says ${status}, the catalogue ${entry[0]}`);
    assert.ok(reason.length >= 5, `${code}: no reason given`);
  }
});
