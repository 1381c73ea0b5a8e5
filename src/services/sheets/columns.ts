import { apiError } from '../../errors.ts';
import { asObject, objectList } from '../../engine/input.ts';
import { newId } from '../../ids.ts';
import {
  assertColumnDeletable, insertColumnIds, validateAddColumns, validateColumnUpdate,
  type ColumnDef,
} from '../../engine/columns.ts';
import { convertCell } from '../../engine/convert.ts';
import { assertCellsPerSheet } from '../../engine/limits.ts';
import type { Actor } from '../platform/context.ts';
import { writeSheet, type SheetStore } from './sheetWrites.ts';
import { indexColumns, rowsInOrder, type Changeset, type SheetModel } from '../../engine/model.ts';
import { assignAutoNumbers } from '../../engine/autonumber.ts';
import type { StoredCell } from '../../engine/cells.ts';
import { afterWrite } from '../computed/formulas.ts';
import { hasRelativeRowReference, sheetSchema, toIdentityForm } from '../../engine/formulaBridge.ts';
import type { SheetSchema } from '../../engine/formula/index.ts';
import { assertColumnNotInRules, dropColumnFromFilters } from './filters.ts';
import { disableBrokenRules, runnableRules } from '../outbound/ruleBreakage.ts';
import { GANTT_TAGS } from '../../engine/schedule.ts';
import { projectSettingsOf } from '../../engine/calendar.ts';

/** Re-number column indexes 0..n-1 after an insert, move or delete. */
function reindex(m: SheetModel, orderedIds: readonly number[]): void {
  const byId = m.columnsById;
  m.columns = orderedIds.map((id, i) => {
    const c = byId.get(id)!;
    c.index = i;
    return c;
  });
  m.columnsById = indexColumns(m.columns);
}

/** Whether the sheet is a project sheet (dependencies enabled): DURATION, PREDECESSOR and ABSTRACT_DATETIME columns allowed. */
function dependenciesEnabled(sheet: { settings: string }): boolean {
  return projectSettingsOf(sheet.settings) !== undefined;
}

/** The column types that carry a project sheet's schedule (start/end dates, duration, predecessors). */
const PROJECT_COLUMN_TYPES: readonly string[] = ['ABSTRACT_DATETIME', 'DURATION', 'PREDECESSOR'];

/**
 * On a project sheet the schedule's columns stay what they are: no type change (1085), no
 * deletion (1098), no column formula (1305). The API cannot disable dependencies, as the spec's
 * messages ask first.
 */
function isScheduleColumn(sheet: { settings: string }, column: Pick<ColumnDef, 'type'>): boolean {
  return dependenciesEnabled(sheet) && PROJECT_COLUMN_TYPES.includes(column.type);
}

/**
 * A column that becomes AUTO_NUMBER (added, or changed to it) numbers every existing row in
 * display order, overwriting what the column held, as the public service does when the column
 * is saved; the column's counter then continues after the last row.
 */
function numberExistingRows(m: SheetModel, changes: Changeset, column: ColumnDef, now: number): void {
  const rows = rowsInOrder(m);
  if (rows.length === 0) return;
  const { values, next } = assignAutoNumbers([column], rows.length, now).get(column.id)!;
  const key = String(column.id);
  rows.forEach((row, i) => {
    // the number replaces the value and any formula of the cell; its format, link and image stay
    const cell: StoredCell = { ...row.cells[key], v: values[i]! };
    delete cell.fx;
    row.cells = { ...row.cells, [key]: cell };
    changes.updated.add(row.id);
  });
  column.nextAutoNumber = next;
}

/** Add Columns (POST /sheets/{id}/columns): one or many at one index. Structure: ADMIN. */
export async function addColumns(store: SheetStore, actor: Actor, sheetId: number, body: unknown, level: number) {
  const { list, single } = objectList(body, 'a Column object');
  return writeSheet(store, actor, sheetId, 'ADMIN', (ctx) => {
    const m = ctx.model;
    const valid = validateAddColumns(m.columns, list, { level, projectSheet: dependenciesEnabled(ctx.sheet) });
    assertCellsPerSheet(m.rows.size, m.columns.length + valid.length);
    const added: ColumnDef[] = valid.map((c) => ({ ...c, id: newId() }));
    for (const c of added) m.columnsById.set(c.id, c);
    const at = added[0]!.index;
    reindex(m, insertColumnIds(m.columns.map((c) => c.id), at, added.map((c) => c.id)));
    // formulas are read against the sheet with its new columns and stored in the identity form
    // Update Column stores (column ids, not titles), so that they follow renamed columns
    const schema = sheetSchema(m.columns, m.tree.displayOrder());
    for (const c of added) {
      if (c.formula === undefined) continue;
      checkColumnFormula(dependenciesEnabled(ctx.sheet), schema, c);
      c.formula = toIdentityForm(c.formula, schema);
    }
    for (const c of added) if (c.systemColumnType === 'AUTO_NUMBER') numberExistingRows(m, ctx.changes, c, ctx.now);
    ctx.changes.columns = true;
    afterWrite(ctx, [], { structural: true });
    for (const c of added) ctx.events.push({ objectType: 'COLUMN', action: 'CREATE', objectId: c.id, details: { title: c.title } });
    return { columns: added, single };
  });
}

/**
 * A column formula: not on a system column, whose values the server writes (1303), nor on a
 * project sheet's schedule column or its % complete (1305); no row named
 * by a number that is not absolute, which could not stand for every row (1310: `@row`, `$1`).
 * `schema`: the sheet's columns and rows the formula is read against.
 */
export function checkColumnFormula(projectSheet: boolean, schema: SheetSchema, column: Pick<ColumnDef, 'formula' | 'systemColumnType' | 'type' | 'tags'>): void {
  if (column.systemColumnType !== undefined) throw apiError(1303);
  // % complete rolls up to parent rows as the dates do: no formula there either
  if (projectSheet && (PROJECT_COLUMN_TYPES.includes(column.type) || column.tags?.includes(GANTT_TAGS.percentComplete) === true)) throw apiError(1305);
  if (hasRelativeRowReference(column.formula!, schema)) throw apiError(1310);
}

/** Update Column (PUT /sheets/{id}/columns/{columnId}): existing values convert on type change. */
export async function updateColumn(store: SheetStore, actor: Actor, sheetId: number, columnId: number, body: unknown, level: number) {
  return writeSheet(store, actor, sheetId, 'ADMIN', async (ctx) => {
    const m = ctx.model;
    const old = m.columnsById.get(columnId);
    if (!old) throw apiError(1006);
    const { column, typeChanged, moved } = validateColumnUpdate(m.columns, columnId, asObject(body, 'a Column object'), { level, projectSheet: dependenciesEnabled(ctx.sheet) });
    if (typeChanged && isScheduleColumn(ctx.sheet, old)) throw apiError(1085);
    if (column.formula !== undefined && column.formula !== old.formula) checkColumnFormula(dependenciesEnabled(ctx.sheet), sheetSchema(m.columns, m.tree.displayOrder()), column);
    if (typeChanged) await assertColumnNotInRules(ctx.tx, sheetId, columnId);
    const runnable = typeChanged ? await runnableRules(ctx.tx, sheetId, m.columnsById) : [];
    if (typeChanged) {
      const key = String(columnId);
      for (const row of m.rows.values()) {
        const cell = row.cells[key];
        if (cell === undefined) continue;
        const converted = convertCell(cell, old, column, { rowIdOfNumber: (n) => m.tree.rowIdAt(n), rowNumberOf: (id) => m.tree.rowNumberOf(id) });
        if (JSON.stringify(converted) !== JSON.stringify(cell)) {
          row.cells = { ...row.cells, [key]: converted };
          ctx.changes.updated.add(row.id);
        }
      }
    }
    if (column.formula !== undefined && column.formula !== old.formula) {
      column.formula = toIdentityForm(column.formula, sheetSchema(m.columns, m.tree.displayOrder()));
    }
    m.columnsById.set(columnId, column);
    if (column.systemColumnType === 'AUTO_NUMBER' && old.systemColumnType !== 'AUTO_NUMBER') numberExistingRows(m, ctx.changes, column, ctx.now);
    const ids = m.columns.map((c) => c.id);
    if (moved) {
      const without = ids.filter((id) => id !== columnId);
      reindex(m, insertColumnIds(without, column.index, [columnId]));
    } else {
      reindex(m, ids);
    }
    ctx.changes.columns = true;
    afterWrite(ctx, [], { structural: true });
    ctx.events.push({ objectType: 'COLUMN', action: 'UPDATE', objectId: columnId, details: { title: column.title } });
    // automation rules the new type stops are switched off in this transaction (COLUMN_TYPE_INCOMPATIBLE, APPROVAL_COLUMN_WRONG_TYPE)
    ctx.events.push(...(await disableBrokenRules(ctx.tx, runnable, m.columnsById, ctx.now, ctx.sheet)));
    return column;
  });
}

/** Delete Column: its cells go with it; the primary and the last visible column stay. */
export async function deleteColumn(store: SheetStore, actor: Actor, sheetId: number, columnId: number) {
  return writeSheet(store, actor, sheetId, 'ADMIN', async (ctx) => {
    const m = ctx.model;
    const column = m.columnsById.get(columnId);
    if (!column) throw apiError(1006);
    assertColumnDeletable(m.columns, columnId);
    if (isScheduleColumn(ctx.sheet, column)) throw apiError(1098);
    await assertColumnNotInRules(ctx.tx, sheetId, columnId);
    await dropColumnFromFilters(ctx.tx, sheetId, columnId, ctx.now);
    const runnable = await runnableRules(ctx.tx, sheetId, m.columnsById);
    const key = String(columnId);
    for (const row of m.rows.values()) {
      if (row.cells[key] !== undefined || row.meta[key] !== undefined) {
        const { [key]: _gone, ...rest } = row.cells;
        const { [key]: _m, ...meta } = row.meta;
        row.cells = rest;
        row.meta = meta;
        ctx.changes.updated.add(row.id);
      }
    }
    m.columnsById.delete(columnId);
    reindex(m, m.columns.map((c) => c.id).filter((id) => id !== columnId));
    ctx.changes.columns = true;
    afterWrite(ctx, [], { structural: true });
    ctx.events.push({ objectType: 'COLUMN', action: 'DELETE', objectId: columnId });
    // automation rules that needed the column are switched off in this transaction (COLUMN_MISSING, APPROVAL_COLUMN_MISSING, NO_VALID_SELECTED_COLUMNS)
    ctx.events.push(...(await disableBrokenRules(ctx.tx, runnable, m.columnsById, ctx.now, ctx.sheet)));
  });
}
