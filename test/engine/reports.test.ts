import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { compareRows, compileSource, parseReportColumns, parseReportFilter, parseReportSort, resolveColumn, type ReportDefinition } from '../../src/engine/reports.ts';
import { matchesAll, searchTerms } from '../../src/engine/search.ts';
import type { ColumnDef } from '../../src/engine/columns.ts';
import type { StoredRowCells } from '../../src/engine/cells.ts';
import { isEngineError } from '../../src/engine/errors.ts';

const col = (id: number, title: string, type: ColumnDef['type'], extra: Partial<ColumnDef> = {}): ColumnDef => ({ id, index: id, title, type, version: 0, ...extra }) as ColumnDef;
const columns = [col(11, 'Task', 'TEXT_NUMBER', { primary: true }), col(12, ' STATUS ', 'PICKLIST'), col(13, 'Status', 'TEXT_NUMBER'), col(14, 'Changed', 'DATETIME', { systemColumnType: 'MODIFIED_DATE' })];
const m = { today: '2026-11-24' };
let next = 100;
const newId = () => next++;
const code = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return isEngineError(e) ? e.errorCode : -1;
  }
  return 0;
};

test('a column reference finds the sheet column by title (any case, trimmed) and type, primary, system type', () => {
  assert.equal(resolveColumn({ title: 'status', type: 'PICKLIST' }, columns)?.id, 12);
  assert.equal(resolveColumn({ title: 'Status', type: 'TEXT_NUMBER' }, columns)?.id, 13);
  assert.equal(resolveColumn({ title: 'Status' }, columns)?.id, 12);
  assert.equal(resolveColumn({ title: 'Status', type: 'DATE' }, columns), undefined);
  assert.equal(resolveColumn({ primary: true }, columns)?.id, 11);
  assert.equal(resolveColumn({ systemColumnType: 'MODIFIED_DATE' }, columns)?.id, 14);
  assert.equal(resolveColumn({ sheetNameColumn: true }, columns), undefined);
});

test('columns keep their virtual ids across updates; bad columns are refused', () => {
  const first = parseReportColumns([{ title: 'Status', type: 'PICKLIST' }, { sheetNameColumn: true }], [], newId);
  const again = parseReportColumns([{ sheetNameColumn: true }, { title: 'status ', type: 'PICKLIST' }, { title: 'New' }], first, newId);
  assert.deepEqual(again.slice(0, 2).map((c) => c.virtualId), [first[1]!.virtualId, first[0]!.virtualId]);
  assert.ok(!first.some((c) => c.virtualId === again[2]!.virtualId));
  assert.equal(code(() => parseReportColumns([], [], newId)), 1012);
  assert.equal(code(() => parseReportColumns([{ title: 'A' }, { title: ' a' }], [], newId)), 1031);
  assert.equal(code(() => parseReportColumns([{ primary: true, sheetNameColumn: true }], [], newId)), 1031);
  assert.equal(code(() => parseReportColumns([{ title: 'A', type: 'TEXT' }], [], newId)), 1031);
  assert.equal(code(() => parseReportFilter({ criteria: [{ column: { title: 'A' }, operator: 'EQUAL' }] })), 1012);
  assert.equal(code(() => parseReportFilter({ operator: 'XOR', criteria: [] })), 1031);
  assert.equal(code(() => parseReportSort([{ column: { title: 'A' }, sortingDirection: 'SIDEWAYS' }])), 1031);
});

test('a compiled source filters (nested, sheet name, missing columns as blank) and sorts', () => {
  const def: ReportDefinition = {
    columns: parseReportColumns([{ title: 'Task', primary: true }, { title: 'Owner', type: 'CONTACT_LIST' }], [], newId),
    filters: parseReportFilter({ operator: 'OR', criteria: [{ column: { title: 'Status', type: 'PICKLIST' }, operator: 'EQUAL', values: ['Open'] }], nestedCriteria: [{ criteria: [{ column: { sheetNameColumn: true }, operator: 'CONTAINS', values: ['urgent'] }, { column: { title: 'Owner', type: 'CONTACT_LIST' }, operator: 'IS_BLANK' }] }] }),
    sortingCriteria: parseReportSort([{ column: { title: 'Task' }, sortingDirection: 'DESCENDING' }]),
  };
  const rowOf = (cells: StoredRowCells) => ({ cells, facts: { locked: false } });
  const plain = compileSource(def, 'Plan', columns, m);
  const urgent = compileSource(def, 'Urgent plan', columns, m);
  assert.deepEqual(plain.columns.map((c) => c?.id), [11, undefined]);
  assert.equal(plain.matches(rowOf({ 12: { v: 'Open' } })), true);
  assert.equal(plain.matches(rowOf({ 12: { v: 'Done' } })), false);
  assert.equal(plain.matches(rowOf({ 13: { v: 'Open' } })), false, 'the text Status is another column');
  assert.equal(urgent.matches(rowOf({ 12: { v: 'Done' } })), true, 'the sheet has no Owner column: blank');
  const a = plain.sortKeys(rowOf({ 11: { v: 'item 2' } }));
  const b = plain.sortKeys(rowOf({ 11: { v: 'item 10' } }));
  assert.ok(compareRows(def, a, b) > 0);
});

test('search terms: words and quoted phrases, case-insensitive, all must match', () => {
  assert.deepEqual(searchTerms('Plain "Striped Horse"  plain'), ['plain', 'striped horse']);
  assert.deepEqual(searchTerms('""'), []);
  assert.equal(matchesAll(['A striped horse', 'plain'], searchTerms('PLAIN "striped horse"')), true);
  assert.equal(matchesAll(['A horse, striped'], searchTerms('"striped horse"')), false);
  fc.assert(fc.property(fc.array(fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 6 }).filter((w) => !/["\s]/.test(w)), { minLength: 1, maxLength: 4 }), (words) => {
    const text = words.join(' ').toUpperCase();
    return matchesAll([text], searchTerms(words.join(' '))) && matchesAll([text], searchTerms(`"${words.join(' ')}"`));
  }));
});
