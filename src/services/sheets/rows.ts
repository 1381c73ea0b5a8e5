import { objectList, optionalBodyBool } from '../../engine/input.ts';
import { apiError, type ApiError } from '../../errors.ts';
import { apiErrorOf } from '../platform/errors.ts';
import { newIds } from '../../ids.ts';
import { parseRowCells, type CellWriteContext } from '../../engine/values.ts';
import { readRowLocation, type RowLocation, type RowLocationInput } from '../../engine/rows.ts';
import { assertCellsPerSheet, assertRowsPerRequest } from '../../engine/limits.ts';
import { normaliseFormat } from '../../engine/format.ts';
import { cellKey, cellsObject, rowHasData, type StoredRowCells } from '../../engine/cells.ts';
import { assignAutoNumbers } from '../../engine/autonumber.ts';
import { readSortSpecifier, sortRows } from '../../engine/sort.ts';
import { atLeast } from '../access/access.ts';
import type { Actor } from '../platform/context.ts';
import { writeSheet, type WriteContext, type WriteOptions, type SheetStore } from './sheetWrites.ts';
import { addModelRows, deleteModelRows, moveModelRows, writeRowCells, type CellMeta, type RowState } from '../../engine/model.ts';
import { afterWrite, type CellWrite } from '../computed/formulas.ts';
import { resolveNewLinks } from '../computed/cellLinks.ts';
import { loadCellTargets, type CellTargets } from './cellTargets.ts';
import { checkDrivenStart, checkProjectCells, parentOfNewRow, projectRowRules } from '../computed/schedule.ts';

/** Options of the row write operations (query parameters). */
export interface RowWriteOptions {
  allowPartialSuccess: boolean;
  overrideValidation: boolean;
  numericDates: boolean;
  level: number;
}

export interface RowFailure {
  index: number;
  rowId: number | null;
  error: ApiError;
}

/** A body that is one Row or an array of Rows; `single` tells which, for the Result's shape. */
export function rowList(body: unknown): { rows: Record<string, unknown>[]; single: boolean } {
  const { list, single } = objectList(body, 'a Row object');
  return { rows: list, single };
}

/** The context of a request's cell writes: one object, its row (rowId, rowFormat) set per row. */
function cellContext(ctx: WriteContext, o: RowWriteOptions, isNewRow: boolean, targets: CellTargets): CellWriteContext & { rowId: number } {
  const m = ctx.model;
  return {
    ...targets.context,
    numericDates: o.numericDates,
    level: o.level,
    isSheetAdmin: atLeast(ctx.level, 'ADMIN'),
    overrideValidation: o.overrideValidation,
    isNewRow,
    sheetId: m.sheetId,
    rowId: 0,
    rowIdOfNumber: (n) => m.tree.rowIdAt(n),
    rowFormat: undefined,
  };
}

function boolAttr(r: Record<string, unknown>, name: string): boolean | undefined {
  return optionalBodyBool(r[name], name);
}

/**
 * Applies written cells to an existing row (the changeset keeps each changed cell's previous
 * state for its history), and adds the writes (for the formulas) to `writes`. `stamp` is the
 * request's [modifiedAt, modifiedBy] of a written cell, shared by its cells (never changed in place).
 */
function applyCells(ctx: WriteContext, row: RowState, cells: StoredRowCells, changed: number[], stamp: CellMeta, writes: CellWrite[]): void {
  for (const colId of changed) writes.push({ row, column: ctx.model.columnsById.get(colId)!, before: row.cells[cellKey(colId)] });
  writeRowCells(ctx.changes, row, cells, changed, stamp);
}

/** Add Rows (POST /sheets/{id}/rows). */
export async function addRows(store: SheetStore, actor: Actor, sheetId: number, body: unknown, o: RowWriteOptions) {
  const { rows: input, single } = rowList(body);
  if (input.length === 0) throw apiError(1012, 'rows');
  assertRowsPerRequest(input.length);
  const location = readRowLocation(input as RowLocationInput[], false);
  return writeSheet(store, actor, sheetId, 'EDITOR', async (ctx) => {
    const m = ctx.model;
    const isAdmin = atLeast(ctx.level, 'ADMIN');
    const failures: RowFailure[] = [];
    const created: RowState[] = [];
    const targets = await loadCellTargets(ctx, actor, input);
    const ids = newIds(input.length);
    const cctx = cellContext(ctx, o, true, targets);
    const stamp: CellMeta = [ctx.now, actor.user.id];
    // the stamps of a new row's cells: the same pair each (cellsObject copies them into the row's meta)
    let stamps: CellMeta[] = [];
    const hasSystemColumns = m.columns.some((c) => c.systemColumnType !== undefined);
    const hasColumnFormulas = m.columns.some((c) => c.formula !== undefined);
    // the columns written in each created row; whether a written cell holds a formula or is in a column with one
    const writtenOf: number[][] = [];
    let formulaWrites = false;
    // a project sheet's schedule rules (1080, 1155); undefined on any other sheet
    const project = projectRowRules(m);
    const newParent = project === undefined ? null : parentOfNewRow(m, location);
    input.forEach((r, index) => {
      const id = ids[index]!;
      try {
        if (r.id !== undefined && r.id !== null) throw apiError(1032, 'id');
        const format = r.format === undefined || r.format === null ? undefined : normaliseFormat(r.format);
        const expanded = boolAttr(r, 'expanded') ?? true;
        const locked = boolAttr(r, 'locked') ?? false;
        if (locked && !isAdmin) throw apiError(1004);
        cctx.rowId = id;
        cctx.rowFormat = format;
        if (project !== undefined) checkProjectCells(project, r.cells, undefined);
        const { cells, changed, keys, formulas } = parseRowCells(m.columnsById, r.cells ?? [], undefined, cctx);
        if (project !== undefined) checkDrivenStart(project, r.cells, newParent, cells);
        if (hasSystemColumns) {
          for (const colId of changed) {
            if (m.columnsById.get(colId)!.systemColumnType !== undefined) throw apiError(1046, colId);
          }
        }
        // a new row has no history: every cell written with content gets this write's meta (the
        // keys of its cells as parsed, in the order written)
        const metaKeys = keys!;
        if (stamps.length !== metaKeys.length) stamps = new Array<CellMeta>(metaKeys.length).fill(stamp);
        if (formulas === true) formulaWrites = true;
        if (hasColumnFormulas) for (const colId of changed) if (m.columnsById.get(colId)!.formula !== undefined) formulaWrites = true;
        const row: RowState = {
          id, parentId: null, sortKey: undefined, expanded, locked, format, cells, meta: cellsObject(metaKeys, stamps),
          createdAt: ctx.now, createdBy: actor.user.id, modifiedAt: ctx.now, modifiedBy: actor.user.id,
        };
        writtenOf.push(changed);
        created.push(row);
      } catch (e) {
        const refusal = apiErrorOf(e);
        if (!o.allowPartialSuccess || refusal === undefined) throw e;
        failures.push({ index, rowId: null, error: refusal });
      }
    });
    if (created.length === 0) return { rows: created, failures, single };
    // new rows hold no cell links (1032)
    ctx.changes.noLinksWritten = true;
    assertCellsPerSheet(m.rows.size + created.length, m.columns.length);
    m.tree.addRows(created.map((r) => ({ id: r.id, expanded: r.expanded, locked: r.locked })), location, {
      canEditLocked: isAdmin,
      hasData: (rid) => rowHasData(m.rows.get(rid)?.cells),
    });
    // auto-numbers in the order the rows now stand
    const autos = assignAutoNumbers(m.columns, created.length, ctx.now);
    for (const colId of autos.keys()) if (m.columnsById.get(colId)!.formula !== undefined) formulaWrites = true;
    // the writes, for the formulas: not needed when the sheet has none and none is written
    const writes: CellWrite[] = [];
    const withWrites = m.formulas !== null || formulaWrites;
    if (withWrites) {
      created.forEach((row, i) => {
        for (const colId of writtenOf[i]!) writes.push({ row, column: m.columnsById.get(colId)!, before: undefined });
      });
    }
    for (const [colId, { values, next }] of autos) {
      const column = m.columnsById.get(colId)!;
      created.forEach((r, i) => {
        const before = r.cells[String(colId)];
        r.cells[String(colId)] = { v: values[i]! };
        if (withWrites) writes.push({ row: r, column, before });
      });
      m.columnsById.get(colId)!.nextAutoNumber = next;
      ctx.changes.columns = true;
    }
    addModelRows(m, ctx.changes, created);
    created.forEach((r, i) => {
      // the columns it was given values in, as a row update names them (webhook subscopes filter on them)
      ctx.events.push({ objectType: 'ROW', action: 'CREATE', objectId: r.id, details: { columnIds: writtenOf[i]! } });
    });
    afterWrite(ctx, writes, { newRows: created, formulaWrites });
    return { rows: created, failures, single };
  });
}

/** Update Rows (PUT /sheets/{id}/rows): cells, format, expanded, locked, location. */
export async function updateRows(store: SheetStore, actor: Actor, sheetId: number, body: unknown, o: RowWriteOptions, w: WriteOptions & { within?: (ctx: WriteContext) => Promise<void> } = {}) {
  const { rows: input, single } = rowList(body);
  if (input.length === 0) throw apiError(1012, 'rows');
  assertRowsPerRequest(input.length);
  const location: RowLocation = readRowLocation(input as RowLocationInput[], true);
  return writeSheet(store, actor, sheetId, 'EDITOR', async (ctx) => {
    const m = ctx.model;
    const isAdmin = atLeast(ctx.level, 'ADMIN');
    const failures: RowFailure[] = [];
    const updated: RowState[] = [];
    const targets = await loadCellTargets(ctx, actor, input);
    const seen = new Set<number>();
    const cctx = cellContext(ctx, o, false, targets);
    // staged: validate every row first so an atomic request changes nothing on failure
    const staged: Array<{ row: RowState; cells: StoredRowCells; changed: number[]; format?: string | null; expanded?: boolean; locked?: boolean }> = [];
    const project = projectRowRules(m);
    input.forEach((r, index) => {
      const rid = typeof r.id === 'number' ? r.id : null;
      try {
        if (r.id === undefined || r.id === null) throw apiError(1012, 'row.id');
        if (typeof r.id !== 'number' || !m.rows.has(r.id)) throw apiError(1006);
        if (seen.has(r.id)) throw apiError(1137);
        seen.add(r.id);
        const row = m.rows.get(r.id)!;
        const locked = boolAttr(r, 'locked');
        const expanded = boolAttr(r, 'expanded');
        if (row.locked && !isAdmin && (r.cells !== undefined || locked !== undefined || r.format !== undefined)) throw apiError(1050);
        if (locked !== undefined && locked !== row.locked && !isAdmin) throw apiError(1004);
        const format = r.format === undefined ? undefined : r.format === null ? null : normaliseFormat(r.format);
        cctx.rowId = row.id;
        cctx.rowFormat = format ?? row.format;
        if (project !== undefined && r.cells !== undefined) checkProjectCells(project, r.cells, row.id);
        const { cells, changed } = r.cells === undefined
          ? { cells: row.cells, changed: [] as number[] }
          : parseRowCells(m.columnsById, r.cells, row.cells, cctx);
        for (const colId of changed) {
          if (m.columnsById.get(colId)!.systemColumnType !== undefined) throw apiError(1046, colId);
        }
        if (project !== undefined && r.cells !== undefined) checkDrivenStart(project, r.cells, m.tree.parentOf(row.id), cells);
        if (targets.links.size > 0) resolveNewLinks(ctx, row.cells, cells, changed, targets.links);
        staged.push({ row, cells, changed, format, expanded, locked });
      } catch (e) {
        const refusal = apiErrorOf(e);
        if (!o.allowPartialSuccess || refusal === undefined) throw e;
        failures.push({ index, rowId: rid, error: refusal });
      }
    });
    // a link is written only from a source sheet the request names
    if (targets.links.size === 0) ctx.changes.noLinksWritten = true;
    if (location.kind !== 'none' && staged.length > 0) {
      moveModelRows(m, ctx.changes, staged.map((s) => s.row.id), location, { canEditLocked: isAdmin, hasData: (rid) => rowHasData(m.rows.get(rid)?.cells) });
    }
    const writes: CellWrite[] = [];
    const stamp: CellMeta = actor.guestEmail !== undefined ? [ctx.now, null, actor.guestEmail] : [ctx.now, actor.user.id];
    for (const s of staged) {
      const { row } = s;
      applyCells(ctx, row, s.cells, s.changed, stamp, writes);
      if (s.format !== undefined) row.format = s.format ?? undefined;
      if (s.expanded !== undefined) m.tree.setExpanded(row.id, s.expanded);
      if (s.locked !== undefined) m.tree.setLocked(row.id, s.locked);
      row.modifiedAt = ctx.now;
      row.modifiedBy = stamp[1];
      ctx.changes.updated.add(row.id);
      updated.push(row);
      // a move is said so (the change stream's rows-moved)
      ctx.events.push({ objectType: 'ROW', action: 'UPDATE', objectId: row.id, details: location.kind !== 'none' ? { columnIds: s.changed, moved: true } : { columnIds: s.changed } });
    }
    afterWrite(ctx, writes, { structural: location.kind !== 'none' || staged.some((x) => x.expanded !== undefined) });
    // what the caller writes with these rows, in their transaction (an update request completed)
    if (w.within) await w.within(ctx);
    return { rows: updated, failures, single };
  }, w.system ? { system: true } : {});
}

/** Delete Rows (DELETE /sheets/{id}/rows?ids=...): children go with their parents. */
export async function deleteRows(store: SheetStore, actor: Actor, sheetId: number, ids: number[], ignoreRowsNotFound: boolean) {
  if (ids.length === 0) throw apiError(1009, 'ids');
  assertRowsPerRequest(ids.length);
  return writeSheet(store, actor, sheetId, 'EDITOR', (ctx) => {
    const m = ctx.model;
    if (!ignoreRowsNotFound) for (const id of ids) if (!m.rows.has(id)) throw apiError(1006);
    const deleted = deleteModelRows(m, ctx.changes, ids.filter((id) => m.rows.has(id)), { canEditLocked: atLeast(ctx.level, 'ADMIN'), ignoreMissing: true });
    for (const id of deleted) {
      ctx.events.push({ objectType: 'ROW', action: 'DELETE', objectId: id });
    }
    afterWrite(ctx, [], { structural: true });
    return deleted;
  });
}

/** Sort Rows in Sheet (POST /sheets/{id}/sort). */
export async function sortSheet(store: SheetStore, actor: Actor, sheetId: number, body: unknown) {
  return writeSheet(store, actor, sheetId, 'EDITOR', (ctx) => {
    const m = ctx.model;
    const criteria = readSortSpecifier(body, m.columnsById);
    const before = m.tree.displayOrder().join(',');
    sortRows(m.tree, criteria, m.columnsById, (rid, cid) => m.rows.get(rid)?.cells[String(cid)], { canEditLocked: false });
    if (m.tree.displayOrder().join(',') !== before) {
      ctx.changes.order = true;
      ctx.events.push({ objectType: 'SHEET', action: 'SORT', objectId: m.sheetId });
      afterWrite(ctx, [], { structural: true });
    }
  });
}
