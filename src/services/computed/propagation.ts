import { AsyncLocalStorage } from 'node:async_hooks';
import { apiErrorOf } from '../platform/errors.ts';
import { findSheet, dependentSheets } from '../../store/sheets.ts';
import type { Actor } from '../platform/context.ts';
import { carryRefs } from './crossSheet.ts';
import { refreshLinksFrom } from './cellLinks.ts';
import { afterWrite } from './formulas.ts';
import { readModel } from '../sheets/sheetCache.ts';
import { writeSheets, type CommitStep, type SheetStore } from '../sheets/sheetWrites.ts';
import type { SheetModel } from '../../engine/model.ts';
import type { SheetRow } from '../../store/sheets.ts';

/**
 * Sheets that read other sheets (cell links, cross-sheet references) follow them: when a
 * write to a sheet commits, every sheet reading it gets a write of its own that brings its
 * linked cells and `{Reference}` formulas up to date, and so on down the chain. A chain never
 * comes back to a sheet it already passed (the path so far is kept in `chain`), so it ends:
 * each step adds a sheet to the path, and there are finitely many. In a circle (A -> B -> A)
 * the chain stops at A; a cell of A linking from B takes B's value at B's next change.
 * Following happens before the original request answers, so a client reading a dependent sheet
 * right after its write sees the new values, and the database holds them: a read in between
 * computes them only in the model it reads, and the follow-up write, which then starts from the
 * sheet as stored (sheetCache.ts), computes and stores them itself. A dependent that cannot be written now (its lock is busy)
 * catches up on its next write (references) or the next change of its source (links).
 */
const chain = new AsyncLocalStorage<ReadonlySet<number>>();

/** Tests only: awaited before each dependent's follow-up write opens (to land a read in between). */
export const followTestHooks: { beforeFollow?: (sourceId: number, targetId: number) => Promise<void> } = {};

async function dependents(store: SheetStore, sheetId: number): Promise<number[]> {
  return dependentSheets(store.db, sheetId);
}

/** Brings the sheets reading `source` up to date with it. */
export async function followSheet(store: SheetStore, actor: Actor, source: { sheet: SheetRow; model: SheetModel } | { sheetId: number; gone: true }): Promise<void> {
  const sourceId = 'gone' in source ? source.sheetId : source.sheet.id;
  const passed = new Set(chain.getStore() ?? []);
  passed.add(sourceId);
  for (const target of await dependents(store, sourceId)) {
    if (passed.has(target)) continue;
    if (followTestHooks.beforeFollow) await followTestHooks.beforeFollow(sourceId, target);
    try {
      await chain.run(passed, () =>
        writeSheets(store, actor, [{ sheetId: target, needed: 'VIEWER', system: true }], async ([ctx]) => {
          // the source as committed (read again: another process may have written since)
          const sheet = await findSheet(ctx!.tx, sourceId);
          const link = sheet ? { sheet, model: await readModel(ctx!.tx, sheet) } : undefined;
          afterWrite(ctx!, refreshLinksFrom(ctx!, link, sourceId));
        }),
      );
    } catch (e) {
      // the dependent was deleted or is busy: it catches up later (see above); anything else is a fault
      if (apiErrorOf(e) === undefined && (e as { code?: string }).code !== 'SQLITE_BUSY') throw e;
    }
  }
}

/** After sheets were deleted: the links out of them break, the references to them give #REF. */
export async function followDeleted(store: SheetStore, actor: Actor, sheetIds: readonly number[]): Promise<void> {
  for (const sheetId of sheetIds) await followSheet(store, actor, { sheetId, gone: true });
}

/**
 * Commit step: the references a committed write read stay valid for its new version, and the
 * sheets reading each changed sheet follow it (their writes run the same pipeline).
 */
export const followDependents: CommitStep = async (store, actor, sheets) => {
  for (const s of sheets) if (s.changed) carryRefs(s.model);
  // (not a sheet its new version's statement found no reader of: PostgreSQL; a reader that
  // appears meanwhile catches up as a busy one does, above)
  for (const s of sheets) if (s.changed && s.hasReaders !== false) await followSheet(store, actor, s);
};
