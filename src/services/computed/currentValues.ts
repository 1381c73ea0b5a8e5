import type { Queryable } from '../../store/db.ts';
import type { SheetRow } from '../../store/sheets.ts';
import type { SheetModel } from '../../engine/model.ts';
import type { AccessLevel } from '../access/access.ts';
import type { Actor } from '../platform/context.ts';
import { sheetFor } from '../access/permissions.ts';
import { readModel } from '../sheets/sheetCache.ts';
import { summaryFieldsForRead } from './summaryFields.ts';
import { crossSheetForRead } from './crossSheet.ts';
import { currentFormulas, keepUnsaved } from './formulas.ts';

/**
 * A sheet's model for reading, its computed values current: the summary fields its formulas
 * read (`[Title]#`), its cross-sheet sources (`{Name}`) as committed now, then its formulas
 * (built on first use, TODAY() on today's date). What changes here is not stored yet: the
 * rows are kept in `unsaved` for the model's next write.
 */
export async function modelForRead(db: Queryable, sheet: SheetRow): Promise<SheetModel> {
  const model = await readModel(db, sheet);
  keepUnsaved(model, await summaryFieldsForRead(db, model));
  keepUnsaved(model, await crossSheetForRead(db, model));
  currentFormulas(model);
  return model;
}

/** A sheet and its model for reading (modelForRead), after the caller's access was checked. */
export async function readSheet(db: Queryable, actor: Actor, sheetId: number): Promise<{ sheet: SheetRow; level: AccessLevel; model: SheetModel }> {
  const { sheet, level } = await sheetFor(db, actor, sheetId, 'VIEWER');
  return { sheet, level, model: await modelForRead(db, sheet) };
}
