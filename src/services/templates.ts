import type { Queryable } from '../store/db.ts';
import type { SheetRow } from '../store/sheets.ts';
import type { AccessLevel } from './access.ts';
import type { Actor } from './context.ts';
import { accessibleSheets } from './containers.ts';

/**
 * User-created templates are sheets saved as templates (is_template) that the caller can see.
 * sheetd ships no public templates: GET /templates/public answers an empty list.
 */
export async function listUserTemplates(db: Queryable, actor: Actor): Promise<Array<{ sheet: SheetRow; level: AccessLevel }>> {
  return [...(await accessibleSheets(db, actor, { templates: true })).values()];
}
