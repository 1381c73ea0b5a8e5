/**
 * The JSON text a whole-sheet read writes for a cell (display.ts CellJson, the compiled path of
 * writeRowsJson) is the text of the Cell presentCell gives (the path of Get Row and of every
 * other response), for every kind of stored value, with and without objectValue, numericDates,
 * formats and the schedule's invalid and critical predecessor edges; a date's text, kept for
 * the cells of the same date, is the same as if it were made for each.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { CellJson, presentCell, type PresentCellOptions } from '../../src/engine/display.ts';
import type { ColumnDef, ColumnType } from '../../src/engine/columns.ts';
import type { StoredCell, StoredValue } from '../../src/engine/cells.ts';
import { predecessorKey } from '../../src/engine/predecessors.ts';

const ROWS = [101, 102, 103];
const rowNumbers = new Map([[101, 1], [102, 2]]); // 103: not in the sheet

const contact = fc.record({ email: fc.constantFrom('ann@example.org', 'bo@example.org'), name: fc.option(fc.constantFrom('Ann', 'Bo "B"'), { nil: undefined }) }, { requiredKeys: ['email'] });
const duration = fc.record({
  objectType: fc.constant('DURATION' as const),
  weeks: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
  days: fc.option(fc.integer({ min: 0, max: 9 }), { nil: undefined }),
  hours: fc.option(fc.double({ min: 0, max: 30, noNaN: true }), { nil: undefined }),
  elapsed: fc.option(fc.boolean(), { nil: undefined }),
  negative: fc.option(fc.boolean(), { nil: undefined }),
}, { requiredKeys: ['objectType'] });
const instant = fc.integer({ min: Date.UTC(1990, 0, 1), max: Date.UTC(2060, 0, 1) });

/** A column of a type and a value of that type, as cells of it are stored. */
const typed: fc.Arbitrary<[ColumnType, StoredValue]> = fc.oneof(
  fc.tuple(fc.constant('DATE' as const), fc.date({ min: new Date('1990-01-01'), max: new Date('2060-01-01'), noInvalidDate: true }).map((d): StoredValue => ({ d: d.toISOString().slice(0, 10) }))),
  fc.tuple(fc.constantFrom('DATETIME' as const, 'ABSTRACT_DATETIME' as const), instant.map((t): StoredValue => ({ t }))),
  fc.tuple(fc.constant('CONTACT_LIST' as const), contact.map((c): StoredValue => ({ c }))),
  fc.tuple(fc.constant('MULTI_CONTACT_LIST' as const), fc.array(contact, { minLength: 1, maxLength: 3 }).map((mc): StoredValue => ({ mc }))),
  fc.tuple(fc.constant('MULTI_PICKLIST' as const), fc.array(fc.constantFrom('a', 'b, c', '"q"'), { minLength: 1, maxLength: 3 }).map((mp): StoredValue => ({ mp }))),
  fc.tuple(fc.constant('DURATION' as const), duration.map((du): StoredValue => ({ du }))),
  fc.tuple(fc.constant('PREDECESSOR' as const), fc.array(fc.record({
    rowId: fc.constantFrom(...ROWS),
    type: fc.constantFrom('FS' as const, 'SS' as const, 'FF' as const, 'SF' as const),
    lag: fc.option(duration, { nil: undefined }),
  }, { requiredKeys: ['rowId', 'type'] }), { minLength: 1, maxLength: 3 }).map((p): StoredValue => ({ p }))),
  fc.tuple(fc.constantFrom('TEXT_NUMBER' as const, 'PICKLIST' as const), fc.oneof(fc.string(), fc.double({ noNaN: true }), fc.integer())),
  fc.tuple(fc.constant('CHECKBOX' as const), fc.boolean()),
);

test('CellJson writes the text of presentCell\'s Cell for every kind of value and option', () => {
  fc.assert(fc.property(
    typed,
    fc.array(fc.tuple(fc.constantFrom(...ROWS), fc.option(fc.constantFrom(',,1,,,,,,,,,,,,,,', ',,,,,,,,,,2,,,,,,'), { nil: undefined }), fc.option(fc.string({ maxLength: 8 }), { nil: undefined })), { minLength: 1, maxLength: 4 }),
    fc.record({ includeObjectValue: fc.boolean(), numericDates: fc.boolean(), includeFormat: fc.boolean(), includeColumnType: fc.boolean(), skipEmpty: fc.boolean(), edges: fc.boolean() }),
    ([type, v], cells, o) => {
      const column: ColumnDef = { id: 7, index: 1, title: 'C', type, version: 2 };
      const opts: PresentCellOptions = {
        level: 2,
        numericDates: o.numericDates,
        includeObjectValue: o.includeObjectValue,
        includeFormat: o.includeFormat,
        includeColumnType: o.includeColumnType,
        rowNumberOf: (id) => rowNumbers.get(id),
      };
      if (o.edges) {
        opts.invalidPredecessors = new Set([predecessorKey(101, 102)]);
        opts.criticalPredecessors = new Set([predecessorKey(102, 101), predecessorKey(103, 101)]);
      }
      const json = new CellJson(column, type, opts, o.skipEmpty);
      // the same value in several rows (a kept date's text), each with its own format and formula
      for (const [rowId, f, fx] of cells) {
        const cell: StoredCell = { v, ...(f === undefined ? {} : { f }), ...(fx === undefined ? {} : { fx }) };
        assert.equal(json.json(cell, undefined, rowId), JSON.stringify(presentCell(column, cell, { ...opts, rowId })));
      }
    },
  ), { numRuns: 600 });
});
