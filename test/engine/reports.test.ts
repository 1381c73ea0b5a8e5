import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { compareRows, compileSource, parseReportColumns, parseReportFilter, parseReportSort, resolveColumn, type ReportDefinition } from '../../src/engine/reports.ts';
import { queryTerms, termMatches, textWords, tsqueryTerm, fts5Term, tsvectorText } from '../../src/engine/search.ts';
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

test('search terms: prefix words and quoted phrases of whole words, case and accents ignored', () => {
  assert.deepEqual(queryTerms('Plain "Striped Horse"  plain zed@ex'), [
    { words: ['plain'], prefix: true }, { words: ['striped', 'horse'], prefix: false }, { words: ['zed', 'ex'], prefix: true },
  ]);
  assert.deepEqual(queryTerms('"" %%'), []);
  assert.deepEqual(textWords('Crème BRÛLÉE, 1,500.50'), ['creme', 'brulee', '1', '500', '50']);
  const holds = (text: string, q: string) => queryTerms(q).every((t) => termMatches(textWords(text), t));
  assert.equal(holds('A striped horse', 'STRIP hors'), true);
  assert.equal(holds('A striped horse', '"strip horse"'), false);
  assert.equal(holds('A horse, striped', '"striped horse"'), false);
  assert.equal(holds('seahorse', 'horse'), false);
  assert.equal(fts5Term(queryTerms('zed@exam')[0]!), '"zed exam"*');
  assert.equal(tsqueryTerm(queryTerms('zed@exam')[0]!), "'zed' <-> 'exam':*");
  assert.equal(tsvectorText(['a', 'b', 'a']), "'a':1,3 'b':2");
  fc.assert(fc.property(fc.array(fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 6 }).filter((w) => /^[a-z0-9]+$/i.test(w)), { minLength: 1, maxLength: 4 }), (words) => {
    const text = words.join(' ').toUpperCase();
    return holds(text, words.join(' ')) && holds(text, `"${words.join(' ')}"`) && holds(text, words.map((w) => w.slice(0, 1)).join(' '));
  }));
});
