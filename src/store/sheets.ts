import type { Selectable } from 'kysely';
import type { Queryable } from './db.ts';
import type { ColumnTable, RowTable, SheetTable } from './schema.ts';
import type { ColumnDef } from '../engine/columns.ts';

export type SheetRow = Selectable<SheetTable>;
export type RowRecord = Selectable<RowTable>;

export async function findSheet(db: Queryable, id: number): Promise<SheetRow | undefined> {
  return db.selectFrom('sheets').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertSheet(db: Queryable, row: SheetRow): Promise<void> {
  await db.insertInto('sheets').values(row).execute();
}

/** Columns are stored with their fixed fields as columns and the rest of the definition as JSON. */
export function columnToRecord(sheetId: number, c: ColumnDef): Selectable<ColumnTable> {
  const { id, index, title, type, primary, ...rest } = c;
  return { id, sheet_id: sheetId, position: index, title, type, is_primary: primary ? 1 : 0, spec: JSON.stringify(rest) };
}

export function recordToColumn(r: Selectable<ColumnTable>): ColumnDef {
  const rest = JSON.parse(r.spec) as Omit<ColumnDef, 'id' | 'index' | 'title' | 'type'>;
  const c: ColumnDef = { ...rest, id: r.id, index: r.position, title: r.title, type: r.type as ColumnDef['type'] };
  if (r.is_primary) c.primary = true;
  return c;
}

export async function insertColumns(db: Queryable, sheetId: number, cols: ColumnDef[]): Promise<void> {
  if (cols.length === 0) return;
  await db.insertInto('columns').values(cols.map((c) => columnToRecord(sheetId, c))).execute();
}

export async function listColumns(db: Queryable, sheetId: number): Promise<ColumnDef[]> {
  const rows = await db.selectFrom('columns').selectAll().where('sheet_id', '=', sheetId).orderBy('position').execute();
  return rows.map(recordToColumn);
}

export async function listRows(db: Queryable, sheetId: number): Promise<RowRecord[]> {
  return db.selectFrom('rows').selectAll().where('sheet_id', '=', sheetId).orderBy('sort_key').execute();
}

/** Sheets of an organization shared to anyone, outside workspaces, that a user does not own (Home). */
export async function sharedSheetsOutsideWorkspaces(db: Queryable, orgId: number, userId: number): Promise<SheetRow[]> {
  return db
    .selectFrom('sheets')
    .innerJoin('shares', (j) => j.onRef('shares.object_id', '=', 'sheets.id').on('shares.object_type', '=', 'sheet'))
    .selectAll('sheets')
    .where('sheets.org_id', '=', orgId)
    .where('sheets.owner_id', '<>', userId)
    .where('sheets.workspace_id', 'is', null)
    .distinct()
    .execute();
}
