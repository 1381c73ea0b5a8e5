import type { Queryable } from '../../store/db.ts';
import { findSheet, recordToColumn, type SheetRow } from '../../store/sheets.ts';
import { loadModel } from '../../store/sheetModels.ts';
import type { SheetModel } from '../../engine/model.ts';

/**
 * The models of sheets (engine/model.ts): a per-process cache checked against the sheet's
 * version in the database (no state lives only here). Writers (services/sheets/sheetWrites.ts)
 * take a model out of the cache, change it inside their transaction under a lock on the sheet,
 * and put it back after the commit.
 *
 * A cached model holds what the database holds, until a reader brings its computed values up to
 * date (services/computed/currentValues.ts: a source of `{Reference}` committed since, TODAY()
 * on a new day, values computed afresh for a model just loaded). The reader shows them and
 * stores nothing; the model then stays in the cache for readers, but is no longer where a write
 * starts (`readChanged`): a write loads the sheet as stored, brings its values current itself
 * and saves what that changed. So a read never changes what a later write saves.
 */
const MAX_CACHED = 64;
const cache = new Map<number, SheetModel>();
/** Cached models whose values a reader computed anew, unlike the database (see above). */
const changedByRead = new WeakSet<SheetModel>();

/** Puts a model (loaded, or just written) in the cache; one a reader changed meanwhile stays out. */
export function remember(m: SheetModel): void {
  if (changedByRead.has(m)) return;
  cache.delete(m.sheetId);
  if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!);
  cache.set(m.sheetId, m);
}

export function forgetSheet(sheetId: number): void {
  cache.delete(sheetId);
}

/** A reader computed values of the model that the database does not hold (currentValues.ts). */
export function readChanged(m: SheetModel): void {
  changedByRead.add(m);
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

/** The model of a sheet as of `sheet.version` (the row just read from the database), for reading. */
export async function readModel(db: Queryable, sheet: SheetRow): Promise<SheetModel> {
  const hit = cache.get(sheet.id);
  if (hit && hit.version === sheet.version) return hit;
  const m = await loadModel(db, sheet);
  remember(m);
  return m;
}

/**
 * The model of a sheet as the database holds it at `sheet.version`, for a write: the cached one
 * unless a reader changed it, else loaded (the writer puts it in the cache after its commit).
 */
export async function modelForWrite(db: Queryable, sheet: SheetRow): Promise<SheetModel> {
  return storedModel(sheet) ?? loadModel(db, sheet);
}

/**
 * The cached model of a sheet when it holds what the database holds at `sheet.version` (the row
 * just read; not a model a reader computed values into, nor one a write has taken out), else
 * undefined. Its rows must not be changed.
 */
export function storedModel(sheet: SheetRow): SheetModel | undefined {
  const hit = cache.get(sheet.id);
  return hit && hit.version === sheet.version && !changedByRead.has(hit) ? hit : undefined;
}

export { findSheet, loadModel, recordToColumn };

/** Drops every cached model (test mode's reset and snapshot restore replace the whole database). */
export function forgetAllSheets(): void {
  cache.clear();
}
