import type { Queryable } from '../../store/db.ts';
import type { SheetRow } from '../../store/sheets.ts';
import type { SheetModel } from '../../engine/model.ts';
import type { AccessLevel } from '../access/access.ts';
import type { Actor } from '../platform/context.ts';
import { sheetFor } from '../access/permissions.ts';
import { readChanged, readModel } from '../sheets/sheetCache.ts';
import type { WriteContext } from '../sheets/sheetWrites.ts';
import { attachSummaryFields } from './summaryFields.ts';
import { readCrossSheetSources } from './crossSheet.ts';
import { currentFormulas } from './formulas.ts';

/**
 * A sheet's computed values brought current, the same steps for a read and a write: the summary
 * fields its formulas read (`[Title]#`), its cross-sheet sources (`{Name}`) as committed now,
 * then its formulas (the engine built on first use, TODAY() on today's date). Returns the rows
 * whose values changed.
 *
 * A write saves those rows (`valuesCurrent`, the first step of the write pipeline). A read only
 * shows them: it stores nothing, and the cached model it changed is no longer where a write
 * starts (sheetCache.ts), so the next write loads the sheet as stored, finds the same values
 * stale and saves them itself. What a write saves is therefore the same whether or not the
 * sheet was read before it.
 */
async function bringCurrent(db: Queryable, m: SheetModel): Promise<Set<number>> {
  const touched = await attachSummaryFields(db, m);
  for (const id of await readCrossSheetSources(db, m)) touched.add(id);
  for (const id of currentFormulas(m)) touched.add(id);
  return touched;
}

/** A sheet's model for reading, its computed values current (see above). */
export async function modelForRead(db: Queryable, sheet: SheetRow): Promise<SheetModel> {
  const model = await readModel(db, sheet);
  if ((await bringCurrent(db, model)).size > 0) readChanged(model);
  return model;
}

/** A sheet and its model for reading (modelForRead), after the caller's access was checked. */
export async function readSheet(db: Queryable, actor: Actor, sheetId: number): Promise<{ sheet: SheetRow; level: AccessLevel; model: SheetModel }> {
  const { sheet, level } = await sheetFor(db, actor, sheetId, 'VIEWER');
  return { sheet, level, model: await modelForRead(db, sheet) };
}

/** Write step (opened): the sheet's computed values current before the mutation, the rows that changed saved with the write. */
export async function valuesCurrent(ctx: WriteContext): Promise<void> {
  for (const id of await bringCurrent(ctx.tx, ctx.model)) ctx.changes.updated.add(id);
}
