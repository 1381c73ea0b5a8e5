import type { Queryable } from '../../store/db.ts';
import { findSheet, recordToColumn, type SheetRow } from '../../store/sheets.ts';
import { loadModel } from '../../store/sheetModels.ts';
import type { SheetModel } from '../../engine/model.ts';

/**
 * The models of sheets (engine/model.ts) for reading: a per-process cache checked against the
 * sheet's version in the database (no state lives only here). Writers (services/sheets/sheetWrites.ts)
 * take a model out of the cache, change it inside their transaction under a lock on the sheet,
 * and put it back after the commit.
 *
 * Readers get a model with its computed values current from services/computed/currentValues.ts.
 * A reader may bring formula results up to date in the cached model (a source of `{Reference}`
 * committed since, TODAY() on a new day, values computed afresh for a model just loaded). Those
 * rows are listed in `unsaved`, and the next write of the model persists them with its own
 * changes: a write compares against what is stored, not against what readers already saw.
 */
const MAX_CACHED = 64;
const cache = new Map<number, SheetModel>();

export function remember(m: SheetModel): void {
  cache.delete(m.sheetId);
  if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!);
  cache.set(m.sheetId, m);
}

export function forgetSheet(sheetId: number): void {
  cache.delete(sheetId);
}

// Older models dropped because another process announced a newer version (for /metrics).
let droppedAsOlder = 0;

/** Another process committed `version` of the sheet: an older cached model goes now (pubsub/invalidation.ts). */
export function forgetOlder(sheetId: number, version: number): void {
  const hit = cache.get(sheetId);
  if (hit && hit.version < version) {
    cache.delete(sheetId);
    droppedAsOlder++;
  }
}

/** What /metrics shows of the cache: models held, and older ones dropped on another process's word. */
export function sheetCacheStats(): { models: number; droppedAsOlder: number } {
  return { models: cache.size, droppedAsOlder };
}

/** The model of a sheet as of `sheet.version` (the row just read from the database). */
export async function readModel(db: Queryable, sheet: SheetRow): Promise<SheetModel> {
  const hit = cache.get(sheet.id);
  if (hit && hit.version === sheet.version) return hit;
  const m = await loadModel(db, sheet);
  remember(m);
  return m;
}

export { findSheet, loadModel, recordToColumn };

/** Drops every cached model (test mode's reset and snapshot restore replace the whole database). */
export function forgetAllSheets(): void {
  cache.clear();
}
