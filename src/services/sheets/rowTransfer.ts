import { asObject, bodyId } from '../../engine/input.ts';
import { apiError } from '../../errors.ts';
import { newId } from '../../ids.ts';
import { findUsersByIds } from '../../store/users.ts';
import { isEmptyCell, type StoredCell, type StoredValue } from '../../engine/cells.ts';
import type { ColumnDef } from '../../engine/columns.ts';
import type { StoredContact } from '../../engine/contacts.ts';
import { convertValue } from '../../engine/convert.ts';
import { systemCellValue } from '../../engine/display.ts';
import { assignAutoNumbers } from '../../engine/autonumber.ts';
import { assertCellsPerSheet, assertRowsPerRequest } from '../../engine/limits.ts';
import { IDENTITY_SCHEMA } from '../../engine/formulaBridge.ts';
import { parseFormula, render, type SheetSchema } from '../../engine/formula/index.ts';
import { findColumnByTitle } from '../../engine/formula/schema.ts';
import { atLeast } from '../access/access.ts';
import { nameOrEmail, type Actor } from '../platform/context.ts';
import { writeSheets, type WriteContext, type SheetStore } from './sheetWrites.ts';
import { addModelRows, deleteModelRows, type RowState, type SheetModel } from '../../engine/model.ts';
import { afterWrite, currentFormulas, type CellWrite } from '../computed/formulas.ts';
import { copyThreads } from '../collaboration/discussions.ts';
import { refuseMovingProofs } from '../collaboration/proofState.ts';
import { copyCellImages } from './images.ts';

/**
 * Copy Rows to Another Sheet and Move Rows to Another Sheet: one transaction over both sheets.
 * Rows arrive at the bottom of the destination with new ids, in source display order, cells
 * matched to destination columns by title and converted to their types; a move then deletes
 * them from the source (formulas there that read them turn to #REF).
 */
export interface TransferOptions {
  /** include=...: children (copy), attachments, discussions, all (copy). */
  include: ReadonlySet<string>;
  ignoreRowsNotFound: boolean;
}

export interface CopyOrMoveRowResult {
  destinationSheetId: number;
  rowMappings: Array<{ from: number; to: number }>;
}

interface Directive {
  rowIds: number[];
  destinationId: number;
}

function readDirective(body: unknown): Directive {
  const b = asObject(body, 'a CopyOrMoveRowDirective object');
  if (b.rowIds === undefined || b.rowIds === null) throw apiError(1012, 'rowIds');
  if (!Array.isArray(b.rowIds)) throw apiError(1031, String(b.rowIds), 'rowIds');
  if (b.rowIds.length === 0) throw apiError(1012, 'rowIds');
  for (const id of b.rowIds) bodyId(id, 'rowIds');
  if (b.to === undefined || b.to === null) throw apiError(1012, 'to');
  if (typeof b.to !== 'object' || Array.isArray(b.to)) throw apiError(1031, String(b.to), 'to');
  const to = b.to as Record<string, unknown>;
  if (to.sheetId === undefined || to.sheetId === null) throw apiError(1012, 'to.sheetId');
  const destinationId = bodyId(to.sheetId, 'to.sheetId');
  const rowIds = [...new Set(b.rowIds as number[])];
  assertRowsPerRequest(rowIds.length);
  return { rowIds, destinationId };
}

/** Copy Rows to Another Sheet (POST /sheets/{id}/rows/copy). */
export async function copyRows(store: SheetStore, actor: Actor, sheetId: number, body: unknown, o: TransferOptions): Promise<CopyOrMoveRowResult> {
  return transfer(store, actor, sheetId, body, o, 'copy');
}

/** Move Rows to Another Sheet (POST /sheets/{id}/rows/move). */
export async function moveRows(store: SheetStore, actor: Actor, sheetId: number, body: unknown, o: TransferOptions): Promise<CopyOrMoveRowResult> {
  return transfer(store, actor, sheetId, body, o, 'move');
}

async function transfer(store: SheetStore, actor: Actor, sheetId: number, body: unknown, o: TransferOptions, mode: 'copy' | 'move'): Promise<CopyOrMoveRowResult> {
  const d = readDirective(body);
  if (d.destinationId === sheetId) throw apiError(1136);
  const targets = [
    { sheetId, needed: mode === 'move' ? 'EDITOR' as const : 'VIEWER' as const },
    { sheetId: d.destinationId, needed: 'EDITOR' as const },
  ];
  const { result } = await writeSheets(store, actor, targets, async ([src, dest]) => {
    const m = src!.model;
    if (!o.ignoreRowsNotFound) for (const id of d.rowIds) if (!m.rows.has(id)) throw apiError(1006);
    const named = d.rowIds.filter((id) => m.rows.has(id));
    // a move takes each row's subtree (as Delete Rows does); a copy only with include=children
    const withChildren = mode === 'move' || o.include.has('children') || o.include.has('all');
    const rows = rowsToTransfer(m, named, withChildren);
    if (rows.length === 0) return { destinationSheetId: d.destinationId, rowMappings: [] };
    if (mode === 'move') await refuseMovingProofs(src!.tx, sheetId, rows);
    const mapping = new Map(rows.map((id) => [id, newId()] as const));
    const created = await addToDestination(src!, dest!, rows, mapping);
    // images the rows show go along (under the same ids) so they resolve in the destination
    await copyCellImages(dest!.tx, sheetId, d.destinationId, created.map((r) => JSON.stringify(r.row.cells)));
    const all = o.include.has('all');
    await copyThreads(dest!.tx, actor, sheetId, d.destinationId, new Map(created.map((r) => [r.from, r.row.id])), {
      attachments: all || o.include.has('attachments'), discussions: all || o.include.has('discussions'),
    });
    if (mode === 'move') removeFromSource(src!, named);
    return { destinationSheetId: d.destinationId, rowMappings: created.map((r) => ({ from: r.from, to: r.row.id })) };
  });
  return result;
}

/** The rows that go, in source display order: the named rows, with their descendants when asked. */
function rowsToTransfer(m: SheetModel, named: number[], withChildren: boolean): number[] {
  const set = new Set(named);
  if (withChildren) for (const id of named) for (const k of m.tree.descendantsOf(id)) set.add(k);
  return m.tree.displayOrder().filter((id) => set.has(id));
}

/** The destination column for each source column: same title (exact, else the one case-insensitive match). */
function matchColumns(src: SheetModel, dest: SheetModel): Map<number, ColumnDef> {
  const titles = dest.columns.map((c) => [c.id, c.title] as const);
  const out = new Map<number, ColumnDef>();
  for (const c of src.columns) {
    const id = findColumnByTitle(titles, c.title);
    if (id === undefined) continue;
    const to = dest.columnsById.get(id)!;
    // the server fills system columns, a column formula fills its cells
    if (to.systemColumnType !== undefined || to.formula !== undefined) continue;
    out.set(c.id, to);
  }
  return out;
}

function isPredecessors(v: StoredValue | undefined): v is { p: Array<{ rowId: number; type: 'FS' | 'FF' | 'SS' | 'SF' }> } {
  return typeof v === 'object' && v !== null && 'p' in v;
}

async function addToDestination(src: WriteContext, dest: WriteContext, order: number[], mapping: Map<number, number>) {
  const sm = src.model;
  const dm = dest.model;
  const now = dest.now;
  const userId = dest.actor.user.id;
  assertCellsPerSheet(dm.rows.size + order.length, dm.columns.length);
  // the source's formulas (their texts are copied) current; the pipeline's first step made them so
  for (const id of currentFormulas(sm)) src.changes.updated.add(id);
  const columns = matchColumns(sm, dm);
  const contacts = await systemContacts(src, order, columns);

  // place the rows first: formula texts are rendered with their destination row numbers
  const created: Array<{ from: number; row: RowState }> = [];
  for (const from of order) {
    const id = mapping.get(from)!;
    let parent = sm.tree.parentOf(from);
    while (parent !== null && !mapping.has(parent)) parent = sm.tree.parentOf(parent);
    const node = sm.tree.get(from)!;
    dm.tree.addRows([{ id, expanded: node.expanded }], parent === null ? { kind: 'bottom' } : { kind: 'parent', parentId: mapping.get(parent)!, toBottom: true });
    const r = sm.rows.get(from)!;
    created.push({
      from,
      row: {
        id, parentId: null, sortKey: undefined, expanded: node.expanded, locked: false, format: r.format, cells: {}, meta: {},
        createdAt: now, createdBy: userId, modifiedAt: now, modifiedBy: userId,
      },
    });
  }

  // formulas: references to transferred rows follow them, other rows render as #REF
  const schema: SheetSchema = {
    columnIdByTitle: () => undefined,
    columnTitle: (id) => sm.columnsById.get(id)?.title,
    rowIdByNumber: () => undefined,
    rowNumber: (id) => {
      const to = mapping.get(id);
      return to === undefined ? undefined : dm.tree.rowNumberOf(to);
    },
  };
  const convertCtx = { rowNumberOf: (id: number) => sm.tree.rowNumberOf(id) };
  const writes: CellWrite[] = [];
  for (const { from, row } of created) {
    const source = sm.rows.get(from)!;
    for (const c of sm.columns) {
      const to = columns.get(c.id);
      if (to === undefined) continue;
      const stored = source.cells[String(c.id)];
      const cell: StoredCell = {};
      if (stored?.f !== undefined) cell.f = stored.f;
      if (stored?.h !== undefined) cell.h = { ...stored.h };
      if (stored?.img !== undefined) cell.img = { ...stored.img };
      if (stored?.fx !== undefined) {
        const f = parseFormula(stored.fx, IDENTITY_SCHEMA);
        cell.fx = f.ok ? render(f, schema) : stored.fx;
      } else {
        const v = c.systemColumnType !== undefined && c.systemColumnType !== 'AUTO_NUMBER'
          ? systemCellValue(c, { createdAt: source.createdAt, modifiedAt: source.modifiedAt, createdBy: contacts(source.createdBy), modifiedBy: contacts(source.modifiedBy) }, stored)
          : stored?.v;
        const value = isPredecessors(v) && to.type === 'PREDECESSOR'
          ? remapPredecessors(v, mapping)
          : convertValue(v, c, to, stored?.f ?? c.format, convertCtx);
        if (value !== undefined) cell.v = value;
      }
      if (isEmptyCell(cell)) continue;
      row.cells[String(to.id)] = cell;
      row.meta[String(to.id)] = [now, userId];
      writes.push({ row, column: to, before: undefined });
    }
  }

  const autos = assignAutoNumbers(dm.columns, created.length, now);
  for (const [colId, { values, next }] of autos) {
    const column = dm.columnsById.get(colId)!;
    created.forEach(({ row }, i) => {
      row.cells[String(colId)] = { v: values[i]! };
      writes.push({ row, column, before: undefined });
    });
    column.nextAutoNumber = next;
    dest.changes.columns = true;
  }
  addModelRows(dm, dest.changes, created.map((c) => c.row));
  for (const { row } of created) {
    dest.events.push({ objectType: 'ROW', action: 'CREATE', objectId: row.id });
  }
  afterWrite(dest, writes, { newRows: created.map((c) => c.row) });
  return created;
}

/** Predecessors among the transferred rows follow them; the others are dropped. */
function remapPredecessors(v: { p: Array<{ rowId: number; type: 'FS' | 'FF' | 'SS' | 'SF' }> }, mapping: Map<number, number>): StoredValue | undefined {
  const p = v.p.filter((x) => mapping.has(x.rowId)).map((x) => ({ ...x, rowId: mapping.get(x.rowId)! }));
  return p.length === 0 ? undefined : { p };
}

/** Contacts of the users behind source CREATED_BY / MODIFIED_BY cells that go somewhere. */
async function systemContacts(src: WriteContext, order: number[], columns: Map<number, ColumnDef>): Promise<(id: number | null) => StoredContact | undefined> {
  const needed = src.model.columns.some((c) => columns.has(c.id) && (c.systemColumnType === 'CREATED_BY' || c.systemColumnType === 'MODIFIED_BY'));
  if (!needed) return () => undefined;
  const ids = new Set<number>();
  for (const id of order) {
    const r = src.model.rows.get(id)!;
    if (r.createdBy !== null) ids.add(r.createdBy);
    if (r.modifiedBy !== null) ids.add(r.modifiedBy);
  }
  const users = await findUsersByIds(src.tx, [...ids]);
  const byId = new Map(users.map((u) => [u.id, { email: u.email, name: nameOrEmail(u) }] as const));
  return (id) => (id === null ? undefined : byId.get(id));
}

/** A move deletes the rows (with their subtrees) from the source, as Delete Rows does. */
function removeFromSource(src: WriteContext, named: number[]): void {
  const m = src.model;
  const deleted = deleteModelRows(m, src.changes, named, { canEditLocked: atLeast(src.level, 'ADMIN'), ignoreMissing: true });
  for (const id of deleted) {
    src.events.push({ objectType: 'ROW', action: 'DELETE', objectId: id });
  }
  afterWrite(src, [], { structural: true });
}
