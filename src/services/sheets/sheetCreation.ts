import type { Queryable, Store } from '../../store/db.ts';
import { insertColumns, insertSheet, type SheetRow } from '../../store/sheets.ts';
import { validateNewSheetColumns, type ColumnDef, type ColumnInput } from '../../engine/columns.ts';
import { apiError } from '../../errors.ts';
import { asObject } from '../../engine/input.ts';
import { newId } from '../../ids.ts';
import type { AfterDb } from '../platform/transactions.ts';
import type { Actor } from '../platform/context.ts';
import { authorOf, recordEvents } from '../log/events.ts';
import { clock } from '../../clock.ts';
import { sheetSchema, toIdentityForm } from '../../engine/formulaBridge.ts';
import { checkColumnFormula } from './columns.ts';

/** Where a new sheet goes: the caller's home, a folder, or a workspace's top level. */
export type SheetContainer =
  | { type: 'home' }
  | { type: 'folder'; folderId: number; workspaceId: number | null }
  | { type: 'workspace'; workspaceId: number };

export function requireName(b: Record<string, unknown>, attr = 'name'): string {
  const name = b[attr];
  if (name === undefined || name === null || name === '') throw apiError(1012, attr);
  if (typeof name !== 'string') throw apiError(1031, String(name), attr);
  if (name.length > 500) throw apiError(1041, attr, 500, name.length);
  return name;
}

/**
 * Create Sheet from a list of columns (POST /sheets, /folders/{id}/sheets,
 * /workspaces/{id}/sheets). The caller's right to create in the container is checked by the
 * container's service before this is called.
 */
export function createSheetFromColumns(store: Store, ...a: AfterDb<typeof createSheetFromColumnsIn>) {
  return store.db.transaction().execute((tx) => createSheetFromColumnsIn(tx, ...a));
}

export async function createSheetFromColumnsIn(
  db: Queryable,
  actor: Actor,
  container: SheetContainer,
  body: unknown,
  opts: { level: number; projectSheet?: boolean; keepTags?: boolean },
  now = clock.now(),
): Promise<{ sheet: SheetRow; columns: ColumnDef[] }> {
  const b = asObject(body, 'a Sheet object');
  const name = requireName(b);
  if (b.columns === undefined || b.columns === null) throw apiError(1054);
  if (!Array.isArray(b.columns)) throw apiError(1031, String(b.columns), 'columns');
  const valid = validateNewSheetColumns(b.columns as ColumnInput[], { level: opts.level, projectSheet: opts.projectSheet === true });
  const columns: ColumnDef[] = valid.map((c, i) => ({ ...c, id: newId(), index: i }));
  // a column's tags are the server's (a public template's project columns), never a client's
  if (opts.keepTags === true) {
    columns.forEach((c, i) => {
      const tags = (b.columns as ColumnInput[])[i]!.tags;
      if (Array.isArray(tags) && tags.length > 0) c.tags = tags.map(String);
    });
  }
  // column formulas as Add Columns takes them: checked, and stored in the identity form
  const schema = sheetSchema(columns, []);
  for (const c of columns) {
    if (c.formula === undefined) continue;
    checkColumnFormula(opts.projectSheet === true, schema, c);
    c.formula = toIdentityForm(c.formula, schema);
  }
  const sheet: SheetRow = {
    id: newId(),
    org_id: actor.org.id,
    owner_id: actor.user.id,
    name,
    folder_id: container.type === 'folder' ? container.folderId : null,
    workspace_id: container.type === 'home' ? null : container.workspaceId,
    version: 1,
    is_template: 0,
    source: null,
    settings: '{}',
    created_at: now,
    modified_at: now,
  };
  await insertSheet(db, sheet);
  await insertColumns(db, sheet.id, columns);
  await recordEvents(db, authorOf(actor), [{ objectType: 'SHEET', action: 'CREATE', objectId: sheet.id, sheetId: sheet.id, workspaceId: sheet.workspace_id, details: { sheetName: name } }], now);
  return { sheet, columns };
}
