import { test } from 'node:test';
import assert from 'node:assert/strict';
import { criterionMatches, parseQuery, type Criterion } from '../../src/engine/criteria.ts';
import type { ColumnDef } from '../../src/engine/columns.ts';
import type { StoredRowCells } from '../../src/engine/cells.ts';
import { InvalidInput } from '../../src/engine/errors.ts';

const col = (id: number, type: ColumnDef['type'], extra: Partial<ColumnDef> = {}): ColumnDef => ({ id, index: id, title: `c${id}`, type, ...extra }) as ColumnDef;
const columns = [col(1, 'TEXT_NUMBER', { primary: true }), col(2, 'MULTI_PICKLIST'), col(3, 'MULTI_CONTACT_LIST'), col(4, 'DATE'), col(5, 'DATETIME', { systemColumnType: 'CREATED_DATE' }), col(6, 'CONTACT_LIST')];
const byId = new Map(columns.map((c) => [c.id, c]));
const m = { today: '2026-11-21', userEmail: 'Me@Example.com' };
const cells: StoredRowCells = {
  1: { v: 'Alpha 12' },
  2: { v: { mp: ['red', 'blue'] } },
  3: { v: { mc: [{ email: 'me@example.com', name: 'Me' }, { email: 'you@example.com' }] } },
  4: { v: { d: '2026-11-18' } },
  6: { v: { c: { email: 'boss@example.com', name: 'The Boss' } } },
};
const row = { locked: false, system: { createdAt: Date.parse('2026-11-20T10:00:00Z'), modifiedAt: Date.parse('2026-11-21T10:00:00Z') } };
const holds = (c: Criterion) => criterionMatches(c, byId, cells, row, m);

test('multi-valued cells match any, all or none of the values', () => {
  assert.equal(holds({ columnId: 2, operator: 'HAS_ANY_OF', values: ['green', 'Blue'] }), true);
  assert.equal(holds({ columnId: 2, operator: 'HAS_ALL_OF', values: ['red', 'blue'] }), true);
  assert.equal(holds({ columnId: 2, operator: 'HAS_ALL_OF', values: ['red', 'green'] }), false);
  assert.equal(holds({ columnId: 2, operator: 'HAS_NONE_OF', values: ['green'] }), true);
  assert.equal(holds({ columnId: 2, operator: 'EQUAL', values: ['RED'] }), true);
});

test('contacts match by email or name, and the current user', () => {
  assert.equal(holds({ columnId: 3, operator: 'IS_CURRENT_USER' }), true);
  assert.equal(holds({ columnId: 6, operator: 'IS_CURRENT_USER' }), false);
  assert.equal(holds({ columnId: 6, operator: 'EQUAL', values: ['the boss'] }), true);
  assert.equal(holds({ columnId: 6, operator: 'EQUAL', values: ['BOSS@example.com'] }), true);
  assert.equal(holds({ columnId: 6, operator: 'CONTAINS', values: ['boss'] }), true);
});

test('dates against today and windows of days; system dates come from the row', () => {
  assert.equal(holds({ columnId: 4, operator: 'PAST' }), true);
  assert.equal(holds({ columnId: 4, operator: 'LAST_N_DAYS', values: ['3'] }), true);
  assert.equal(holds({ columnId: 4, operator: 'LAST_N_DAYS', values: ['2'] }), false);
  assert.equal(holds({ columnId: 4, operator: 'NEXT_N_DAYS', values: ['30'] }), false);
  assert.equal(holds({ columnId: 4, operator: 'BETWEEN', values: ['2026-11-01', '2026-11-18'] }), true);
  assert.equal(holds({ columnId: 4, operator: 'GREATER_THAN', values: ['2026-11-18'] }), false);
  assert.equal(holds({ columnId: 5, operator: 'TODAY' }), false);
  assert.equal(holds({ columnId: 5, operator: 'LAST_N_DAYS', values: ['1'] }), true);
  assert.equal(holds({ columnId: 5, operator: 'GREATER_THAN', values: ['2026-11-20T09:00:00Z'] }), true);
});

test('text never compares as a number unless both sides are numbers', () => {
  assert.equal(holds({ columnId: 1, operator: 'GREATER_THAN', values: ['5'] }), false);
  assert.equal(holds({ columnId: 1, operator: 'CONTAINS', values: ['pha 1'] }), true);
  assert.equal(holds({ columnId: 1, operator: 'DOES_NOT_CONTAIN', values: ['beta'] }), true);
  assert.equal(holds({ columnId: 1, operator: 'IS_NOT_BLANK' }), true);
  assert.equal(holds({ columnId: 1, operator: 'IS_NUMBER' }), false);
});

test('a query needs criteria (1183) and a known operator (1031)', () => {
  assert.throws(() => parseQuery({ criteria: [] }, columns, 'query'), (e: unknown) => e instanceof InvalidInput && e.errorCode === 1183);
  assert.throws(() => parseQuery({ criteria: [{ columnId: 1, operator: 'LIKE', values: ['a'] }] }, columns, 'query'), (e: unknown) => e instanceof InvalidInput && e.errorCode === 1031);
  assert.deepEqual(parseQuery({ criteria: [{ columnId: 1, operator: 'EQUAL', values: [5] }] }, columns, 'query'), { operator: 'AND', criteria: [{ columnId: 1, operator: 'EQUAL', values: ['5'] }] });
});
