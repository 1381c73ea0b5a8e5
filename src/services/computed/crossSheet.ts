import type { Selectable } from 'kysely';
import { asObject, optionalBodyId } from '../../engine/input.ts';
import { apiError } from '../../errors.ts';
import { newId } from '../../ids.ts';
import type { Queryable } from '../../store/db.ts';
import type { CrossSheetRefTable } from '../../store/linkTables.ts';
import { findSheet } from '../../store/sheets.ts';
import { findCrossSheetRef, insertCrossSheetRef, listCrossSheetRefs, sheetsReferencing } from '../../store/links.ts';
import type { CellInput, CrossSheetData } from '../../engine/formula/index.ts';
import { storedToRaw } from '../../engine/formulaBridge.ts';
import type { Actor } from '../platform/context.ts';
import { sheetFor } from '../access/permissions.ts';
import { readModel } from '../sheets/sheetCache.ts';
import { writeSheet, type SheetStore } from '../sheets/sheetWrites.ts';
import type { SheetModel } from '../../engine/model.ts';
import { applyChanges } from './formulas.ts';

/**
 * Cross-sheet references: named ranges of another sheet that formulas read as `{Name}`.
 *
 * A reference lives with the sheet whose formulas use it. Before a sheet's formulas run (a
 * read or a write of that sheet), its references are loaded and each source sheet's current
 * model is looked up, so the formula engine reads source cells synchronously. The engine
 * remembers which version of each source it computed from; a newer version makes it recompute
 * the formulas reading that name. After a source sheet commits a change, the sheets that
 * reference it are brought up to date by a write of their own (propagation.ts), so stored values
 * and other processes see the new results.
 */
export type CrossSheetRef = Selectable<CrossSheetRefTable>;

export type RefStatus = 'OK' | 'BROKEN';

interface Prepared {
  version: number;
  refs: CrossSheetRef[];
}

/** Refs per model, valid while the model's version is unchanged (creating a ref bumps it). */
const refsOf = new WeakMap<SheetModel, Prepared>();
/** Per model: the source version each name was last computed from. */
const seenVersions = new WeakMap<SheetModel, Map<string, number>>();

export function nameKey(name: string): string {
  return name.trim().toLowerCase();
}

export async function listRefs(db: Queryable, sheetId: number): Promise<CrossSheetRef[]> {
  return listCrossSheetRefs(db, sheetId);
}

async function refsFor(db: Queryable, m: SheetModel): Promise<CrossSheetRef[]> {
  const hit = refsOf.get(m);
  if (hit && hit.version === m.version) return hit.refs;
  const refs = await listRefs(db, m.sheetId);
  refsOf.set(m, { version: m.version, refs });
  return refs;
}

/** The rows and columns of a reference's range in its source model; null when a bound is gone. */
function rangeOf(ref: CrossSheetRef, src: SheetModel): { rows: readonly number[]; columns: number[] } | null {
  let columns = src.columns.map((c) => c.id);
  if (ref.start_column_id !== null && ref.end_column_id !== null) {
    const a = columns.indexOf(ref.start_column_id);
    const b = columns.indexOf(ref.end_column_id);
    if (a < 0 || b < 0) return null;
    columns = columns.slice(Math.min(a, b), Math.max(a, b) + 1);
  }
  let rows: readonly number[] = src.tree.displayOrder();
  if (ref.start_row_id !== null && ref.end_row_id !== null) {
    const a = src.tree.rowNumberOf(ref.start_row_id);
    const b = src.tree.rowNumberOf(ref.end_row_id);
    if (a === undefined || b === undefined) return null;
    rows = rows.slice(Math.min(a, b) - 1, Math.max(a, b));
  }
  return { rows, columns };
}

export function refStatus(ref: CrossSheetRef, src: SheetModel | undefined): RefStatus {
  return src !== undefined && rangeOf(ref, src) !== null ? 'OK' : 'BROKEN';
}

function dataOf(ref: CrossSheetRef, src: SheetModel | undefined): CrossSheetData {
  if (src === undefined) return { error: '#REF' };
  const range = rangeOf(ref, src);
  if (range === null) return { error: '#REF' };
  const cols = range.columns.map((id) => src.columnsById.get(id)!);
  const cells: CellInput[][] = range.rows.map((rid) => {
    const row = src.rows.get(rid)!;
    return cols.map((c) => ({ value: storedToRaw(c, row.cells[String(c.id)]?.v), type: c.type as CellInput['type'] }));
  });
  return { cells };
}

/** Source models of a sheet's references, current as of now (undefined: the source is gone). */
async function sourcesOf(db: Queryable, refs: CrossSheetRef[]): Promise<Map<number, SheetModel | undefined>> {
  const out = new Map<number, SheetModel | undefined>();
  for (const id of new Set(refs.map((r) => r.source_sheet_id))) {
    const sheet = await findSheet(db, id);
    if (!sheet) {
      out.set(id, undefined);
      continue;
    }
    // the source's stored values (its own formulas computed when it was written)
    out.set(id, await readModel(db, sheet));
  }
  return out;
}

/**
 * Makes `{Name}` resolvable for the model's formulas and, when a source changed since the
 * engine last read it, recomputes what reads it. Returns the rows whose values changed.
 */
async function prepare(db: Queryable, m: SheetModel): Promise<Set<number>> {
  const refs = await refsFor(db, m);
  if (refs.length === 0) {
    m.crossSheet = undefined;
    return new Set();
  }
  const sources = await sourcesOf(db, refs);
  const byName = new Map(refs.map((r) => [r.name_key, r]));
  m.crossSheet = (name) => {
    const ref = byName.get(nameKey(name));
    if (!ref) return { error: '#INVALID REF' };
    const src = sources.get(ref.source_sheet_id);
    let seen = seenVersions.get(m);
    if (!seen) seenVersions.set(m, (seen = new Map()));
    seen.set(ref.name_key, src?.version ?? -1);
    return dataOf(ref, src);
  };
  const engine = m.formulas;
  if (!engine) return new Set(); // built later, reading the sources as they are now
  const seen = seenVersions.get(m);
  const stale = new Set<string>();
  for (const name of engine.crossSheetReferences()) {
    const ref = byName.get(nameKey(name));
    const now = ref === undefined ? -2 : (sources.get(ref.source_sheet_id)?.version ?? -1);
    if (seen?.get(nameKey(name)) !== now) stale.add(name);
  }
  const touched = new Set<number>();
  for (const name of stale) for (const id of applyChanges(m, engine.crossSheetChanged(name))) touched.add(id);
  return touched;
}

/**
 * `{Name}` reads its source as committed now; returns the rows whose values that changed
 * (currentValues.ts, for reads and, as the write pipeline's first step, writes).
 */
export async function readCrossSheetSources(db: Queryable, m: SheetModel): Promise<Set<number>> {
  return prepare(db, m);
}

/**
 * After a write of this process committed, the references it read stay valid for the new
 * version (only Create Cross-sheet Reference changes them, and it re-reads them in its write).
 * Another process's write shows up as a newer version and a fresh model, which reads them anew.
 */
export function carryRefs(m: SheetModel): void {
  const hit = refsOf.get(m);
  if (hit && hit.version === m.version - 1) hit.version = m.version;
}

/** The sheets whose references read from `sheetId`. */
export async function sheetsReading(db: Queryable, sheetId: number): Promise<number[]> {
  return sheetsReferencing(db, sheetId);
}

// ---------------------------------------------------------------------------------------
// The endpoints

export interface PresentedRef {
  id: number;
  name: string;
  sourceSheetId: number;
  startRowId?: number;
  endRowId?: number;
  startColumnId?: number;
  endColumnId?: number;
  status: RefStatus;
}

export function presentRef(ref: CrossSheetRef, src: SheetModel | undefined): PresentedRef {
  const out: PresentedRef = { id: ref.id, name: ref.name, sourceSheetId: ref.source_sheet_id, status: refStatus(ref, src) };
  if (ref.start_row_id !== null) out.startRowId = ref.start_row_id;
  if (ref.end_row_id !== null) out.endRowId = ref.end_row_id;
  if (ref.start_column_id !== null) out.startColumnId = ref.start_column_id;
  if (ref.end_column_id !== null) out.endColumnId = ref.end_column_id;
  return out;
}

/** A sheet's references as a client sees them, with their status. */
export async function presentRefs(db: Queryable, refs: CrossSheetRef[]): Promise<PresentedRef[]> {
  const sources = await sourcesOf(db, refs);
  return refs.map((r) => presentRef(r, sources.get(r.source_sheet_id)));
}

/**
 * Create Cross-sheet References: the caller edits the sheet and can see the source. The range
 * is whole columns (start/endColumnId), whole rows (start/endRowId) or both; each pair is
 * given in full or not at all.
 */
export async function createRef(store: SheetStore, actor: Actor, sheetId: number, body: unknown): Promise<{ ref: PresentedRef; version: number }> {
  const b = asObject(body, 'a CrossSheetReference object');
  for (const k of ['id', 'status']) if (b[k] !== undefined && b[k] !== null) throw apiError(1032, k);
  const sourceSheetId = optionalBodyId(b, 'sourceSheetId');
  if (sourceSheetId === null) throw apiError(1012, 'sourceSheetId');
  const bounds = {
    startRowId: optionalBodyId(b, 'startRowId'),
    endRowId: optionalBodyId(b, 'endRowId'),
    startColumnId: optionalBodyId(b, 'startColumnId'),
    endColumnId: optionalBodyId(b, 'endColumnId'),
  };
  for (const [a, z] of [['startRowId', 'endRowId'], ['startColumnId', 'endColumnId']] as const) {
    if ((bounds[a] === null) !== (bounds[z] === null)) throw apiError(1012, bounds[a] === null ? a : z);
  }
  if (bounds.startRowId === null && bounds.startColumnId === null) throw apiError(1012, 'startColumnId');
  let name: string | null = null;
  if (b.name !== undefined && b.name !== null) {
    if (typeof b.name !== 'string' || b.name.trim() === '' || /[{}]/.test(b.name) || b.name.length > 100) throw apiError(1031, String(b.name), 'name');
    name = b.name.trim();
  }
  if (sourceSheetId === sheetId) throw apiError(1031, String(sourceSheetId), 'sourceSheetId');

  const out = await writeSheet(store, actor, sheetId, 'EDITOR', async (ctx) => {
    const { sheet: srcSheet } = await sheetFor(ctx.tx, actor, sourceSheetId, 'VIEWER');
    const src = await readModel(ctx.tx, srcSheet);
    if (bounds.startColumnId !== null && (!src.columnsById.has(bounds.startColumnId) || !src.columnsById.has(bounds.endColumnId!))) throw apiError(1006);
    if (bounds.startRowId !== null && (!src.rows.has(bounds.startRowId) || !src.rows.has(bounds.endRowId!))) throw apiError(1006);
    const existing = await listRefs(ctx.tx, sheetId);
    const taken = new Set(existing.map((r) => r.name_key));
    if (name === null) {
      let n = 1;
      while (taken.has(nameKey(`${srcSheet.name} Range ${n}`))) n++;
      name = `${srcSheet.name} Range ${n}`;
    } else if (taken.has(nameKey(name))) {
      throw apiError(1129);
    }
    const ref: CrossSheetRef = {
      id: newId(),
      sheet_id: sheetId,
      name,
      name_key: nameKey(name),
      source_sheet_id: sourceSheetId,
      start_row_id: bounds.startRowId,
      end_row_id: bounds.endRowId,
      start_column_id: bounds.startColumnId,
      end_column_id: bounds.endColumnId,
      created_by: actor.user.id,
      created_at: ctx.now,
    };
    await insertCrossSheetRef(ctx.tx, ref);
    ctx.events.push({ objectType: 'SHEET', action: 'UPDATE', objectId: sheetId, details: { crossSheetReferenceId: ref.id, name } });
    // formulas already naming it now read it
    refsOf.delete(ctx.model);
    ctx.changes.meta = true;
    for (const id of await prepare(ctx.tx, ctx.model)) ctx.changes.updated.add(id);
    return presentRef(ref, src);
  });
  return { ref: out.result, version: out.version };
}

export async function getRef(db: Queryable, actor: Actor, sheetId: number, refId: number): Promise<PresentedRef> {
  await sheetFor(db, actor, sheetId, 'VIEWER');
  const ref = await findCrossSheetRef(db, sheetId, refId);
  if (!ref) throw apiError(1006);
  return (await presentRefs(db, [ref]))[0]!;
}
