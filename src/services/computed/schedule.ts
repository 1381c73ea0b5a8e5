import { apiError } from '../../errors.ts';
import { cellKey, isEmptyCell, type StoredCell, type StoredRowCells } from '../../engine/cells.ts';
import { WorkCalendar, type ProjectSettings } from '../../engine/calendar.ts';
import { rowsInOrder, type Changeset, type SheetModel } from '../../engine/model.ts';
import type { RowLocation } from '../../engine/rows.ts';
import { projectColumnsOf, scheduleColumnIds, scheduleProject, type ProjectColumns, type Schedule } from '../../engine/schedule.ts';
import type { CommitStep, WriteContext } from '../sheets/sheetWrites.ts';
import { afterWrite, type CellWrite } from './formulas.ts';

/**
 * Project scheduling of the sheets with dependencies enabled (engine/schedule.ts): after every
 * write of such a sheet its dates are computed again in the write's transaction (a write step),
 * the rows whose dates moved saved with it and noted as recomputed, like formula results (no
 * cell history, no event of their own). The rules a row write must keep on such a sheet (1080,
 * 1155) and what a read shows of the schedule (invalid predecessors, the critical path) are here
 * too. A sheet without dependencies has no `project` on its model and pays nothing.
 */

const calendars = new WeakMap<ProjectSettings, WorkCalendar>();

/** The working calendar of a project sheet's model. */
export function calendarOf(project: ProjectSettings): WorkCalendar {
  let c = calendars.get(project);
  if (c === undefined) {
    c = new WorkCalendar(project);
    calendars.set(project, c);
  }
  return c;
}

/** The schedule's columns of a model, when it is a project sheet. */
export function projectColumns(m: SheetModel): ProjectColumns | undefined {
  return m.project === undefined ? undefined : projectColumnsOf(m.columns);
}

function scheduleInput(m: SheetModel) {
  return rowsInOrder(m).map((r) => ({ id: r.id, parentId: m.tree.parentOf(r.id), cells: r.cells }));
}

/** Whether a write can have moved the schedule: rows came, went or moved, or a schedule cell was written. */
function touchesSchedule(cs: Changeset, cols: ProjectColumns): boolean {
  if (cs.added.size > 0 || cs.deleted.size > 0 || cs.order || cs.columns || cs.meta) return true;
  const ids = scheduleColumnIds(cols);
  return cs.cells.some((e) => ids.includes(e.columnId));
}

/**
 * Write step (written): a project sheet's dates computed again after the mutation; the cells
 * whose values moved are stored with the write, and the formulas reading them follow.
 */
export async function scheduleProjectSheet(ctx: WriteContext): Promise<void> {
  const m = ctx.model;
  if (m.project === undefined) return;
  const cols = projectColumnsOf(m.columns);
  if (cols === undefined) return;
  if (!touchesSchedule(ctx.changes, cols)) {
    // the schedule read before this write is the one after it (keepSchedule, once committed)
    pending.set(m, { from: m.version });
    return;
  }
  pending.delete(m);
  const durationCleared = new Set<number>();
  if (cols.duration !== undefined) {
    for (const e of ctx.changes.cells) if (e.columnId === cols.duration && e.before?.v !== undefined && e.after?.v === undefined) durationCleared.add(e.rowId);
  }
  const schedule = scheduleProject(scheduleInput(m), cols, calendarOf(m.project), { durationCleared });
  const writes: CellWrite[] = [];
  let saved = true;
  for (const c of schedule.changes) {
    const row = m.rows.get(c.rowId);
    const column = m.columnsById.get(c.columnId);
    if (row === undefined || column === undefined) continue;
    const key = cellKey(c.columnId);
    const before = row.cells[key];
    // a formula's cell keeps its formula's value (formulas are refused in schedule columns, 1155)
    if (before?.fx !== undefined) {
      saved = false;
      continue;
    }
    const next: StoredCell = { ...before };
    if (c.v === undefined) delete next.v;
    else next.v = c.v;
    const cells = { ...row.cells };
    if (isEmptyCell(next)) delete cells[key];
    else cells[key] = next;
    row.cells = cells;
    ctx.changes.updated.add(row.id);
    if (column.formula === undefined) writes.push({ row, column, before });
  }
  if (writes.length > 0) afterWrite(ctx, writes);
  // the dates saved compute to themselves (engine/schedule.ts), so this is the schedule of the
  // version the write commits: reads take it (keepSchedule, once committed)
  if (saved) pending.set(m, { from: m.version, schedule: { ...schedule, changes: [] } });
}

/** What a read shows of a project sheet's schedule: invalid predecessors, the critical path. */
const analyses = new WeakMap<SheetModel, { version: number; schedule: Schedule }>();

/**
 * Models being written (from the version given): with the schedule the write computed and saved
 * all of, or without one when the write left every input of the schedule as it was.
 */
const pending = new WeakMap<SheetModel, { from: number; schedule?: Schedule }>();

/**
 * Commit step: the schedule of the version a write committed, so that the first read after it
 * does not compute the whole plan again. A write that left the schedule's inputs alone (a cell
 * of another column, a discussion) keeps the schedule read before it; one that computed the
 * schedule gives the one it computed.
 */
export const keepSchedule: CommitStep = async (_store, _actor, sheets) => {
  for (const s of sheets) {
    const m = s.model;
    const p = pending.get(m);
    pending.delete(m);
    if (!s.changed || p === undefined || m.version !== p.from + 1) continue;
    if (p.schedule !== undefined) {
      remember(m, p.schedule);
      continue;
    }
    const kept = analyses.get(m);
    if (kept !== undefined && kept.version === p.from) kept.version = m.version;
  }
};

export function scheduleOf(m: SheetModel): Schedule | undefined {
  const cols = projectColumnsOf(m.columns);
  if (cols === undefined) return undefined;
  const kept = analyses.get(m);
  if (kept !== undefined && kept.version === m.version) return kept.schedule;
  return remember(m, scheduleProject(scheduleInput(m), cols, calendarOf(m.project ?? {})));
}

/** Keeps the schedule of the model's current version. */
function remember(m: SheetModel, schedule: Schedule): Schedule {
  // edges that are what they were keep their sets: what shows them (the rows' JSON kept by
  // present/sheetContents.ts) stays valid for the rows the write left alone
  const kept = analyses.get(m);
  if (kept !== undefined) {
    const before = kept.schedule;
    if (sameMembers(schedule.invalid, before.invalid)) schedule.invalid = before.invalid;
    if (sameMembers(schedule.critical, before.critical)) schedule.critical = before.critical;
    if (sameMembers(schedule.criticalRows, before.criticalRows)) schedule.criticalRows = before.criticalRows;
  }
  analyses.set(m, { version: m.version, schedule });
  return schedule;
}

function sameMembers<T>(a: ReadonlySet<T>, b: ReadonlySet<T>): boolean {
  if (a.size !== b.size) return false;
  for (const x of a) if (!b.has(x)) return false;
  return true;
}

/** The rows on a project sheet's critical path (filters' ON_CRITICAL_PATH); undefined for other sheets. */
export function criticalRowsOf(m: SheetModel): ReadonlySet<number> | undefined {
  return m.project === undefined ? undefined : scheduleOf(m)?.criticalRows;
}

/** The checks of a row write on a project sheet (rowWriteRules), for one request. */
export interface ProjectRowRules {
  cols: ProjectColumns;
  model: SheetModel;
}

export function projectRowRules(m: SheetModel): ProjectRowRules | undefined {
  const cols = projectColumns(m);
  return cols === undefined ? undefined : { cols, model: m };
}

function hasPredecessors(cells: StoredRowCells | undefined, cols: ProjectColumns): boolean {
  if (cols.predecessors === undefined || cells === undefined) return false;
  const v = cells[cellKey(cols.predecessors)]?.v;
  return v !== undefined && typeof v === 'object' && 'p' in v && v.p.length > 0;
}

/** The parent a new row of Add Rows gets from the request's location. */
export function parentOfNewRow(m: SheetModel, location: RowLocation): number | null {
  if (location.kind === 'parent') return location.parentId;
  if (location.kind === 'sibling') return m.tree.has(location.siblingId) ? m.tree.parentOf(location.siblingId) : null;
  return null;
}

/** The written cells of a request's row naming a column of the schedule, with the attributes they set. */
function* scheduleCells(cols: ProjectColumns, written: unknown): Generator<{ id: number; cell: Record<string, unknown> }> {
  if (!Array.isArray(written)) return;
  for (const c of written as unknown[]) {
    if (typeof c !== 'object' || c === null) continue;
    const cell = c as Record<string, unknown>;
    const id = cell.columnId;
    if (typeof id === 'number' && (id === cols.end || id === cols.start || id === cols.duration || id === cols.predecessors || id === cols.percentComplete)) yield { id, cell };
  }
}

/**
 * A row's written cells checked against the schedule, before they are read: the end date is the
 * schedule's (1080); a formula, hyperlink, cell link or image has no place in a schedule column, and
 * the start, duration and % complete of a row with children are computed, not written (1155).
 * `rowId`: the row written (undefined for a new row).
 */
export function checkProjectCells(rules: ProjectRowRules, written: unknown, rowId: number | undefined): void {
  const { cols, model: m } = rules;
  const isParent = rowId !== undefined && m.tree.childrenOf(rowId).length > 0;
  for (const { id, cell } of scheduleCells(cols, written)) {
    const given = (k: string) => k in cell;
    const set = (k: string) => cell[k] !== undefined && cell[k] !== null && cell[k] !== '';
    if (id === cols.end) {
      if (['value', 'objectValue', 'formula', 'hyperlink', 'linkInFromCell', 'image'].some(given)) throw apiError(1080);
      continue;
    }
    for (const k of ['formula', 'hyperlink', 'linkInFromCell', 'image']) if (set(k)) throw apiError(1155, k);
    if (isParent && id !== cols.predecessors) {
      if (given('objectValue')) throw apiError(1155, 'objectValue');
      if (given('value')) throw apiError(1155, 'value');
    }
  }
}

/**
 * The start of a row its predecessors (or its ancestors') drive is computed, not written (1155):
 * checked once the row's cells are read, `after` being them as the write leaves them (a request
 * that clears the row's predecessors may write its start). `parentId`: the row's parent.
 */
export function checkDrivenStart(rules: ProjectRowRules, written: unknown, parentId: number | null, after: StoredRowCells): void {
  const { cols, model: m } = rules;
  for (const { id, cell } of scheduleCells(cols, written)) {
    if (id !== cols.start) continue;
    const attr = 'objectValue' in cell ? 'objectValue' : 'value' in cell ? 'value' : undefined;
    if (attr === undefined) continue;
    let driven = hasPredecessors(after, cols);
    for (let a = parentId; !driven && a !== null; a = m.tree.parentOf(a)) driven = hasPredecessors(m.rows.get(a)?.cells, cols);
    if (driven) throw apiError(1155, attr);
  }
}
