import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import { carrying, chunks, insertMany, onPostgres, PG_STATEMENT_BYTES, updateManyById, type Queryable, type Tx } from './db.ts';
import type { ColumnTable, RowTable, SheetTable } from './schema.ts';
import { WEBHOOKS_WATCHING } from './webhooks.ts';
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

/** The sheets that read a sheet: through cross-sheet references or cell links (bumpSheetVersion asks whether there are any the same way). */
export async function dependentSheets(db: Queryable, sheetId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('cross_sheet_refs')
    .select('sheet_id as id')
    .where('source_sheet_id', '=', sheetId)
    .union(db.selectFrom('cell_links').select('target_sheet_id as id').where('source_sheet_id', '=', sheetId))
    .execute();
  return [...new Set(rows.map((r) => r.id))];
}

/** Whether a row belongs to a sheet. */
export async function rowExists(db: Queryable, sheetId: number, rowId: number): Promise<boolean> {
  const row = await db.selectFrom('rows').select('id').where('sheet_id', '=', sheetId).where('id', '=', rowId).executeTakeFirst();
  return row !== undefined;
}

/** The sheets at the top of a workspace (outside its folders), or all of its sheets. */
export async function sheetsInWorkspace(db: Queryable, workspaceId: number, opts: { topOnly: boolean }): Promise<SheetRow[]> {
  let q = db.selectFrom('sheets').selectAll().where('workspace_id', '=', workspaceId);
  if (opts.topOnly) q = q.where('folder_id', 'is', null).orderBy('name').orderBy('id');
  return q.execute();
}

/** The sheets directly in a folder, at the top of a user's home, or at the top of a workspace; by name. */
export async function sheetsDirectlyAt(db: Queryable, where: { folderId: number } | { homeOf: number } | { workspaceTop: number }): Promise<SheetRow[]> {
  let q = db.selectFrom('sheets').selectAll();
  if ('folderId' in where) q = q.where('folder_id', '=', where.folderId);
  else if ('homeOf' in where) q = q.where('owner_id', '=', where.homeOf).where('folder_id', 'is', null).where('workspace_id', 'is', null);
  else q = q.where('workspace_id', '=', where.workspaceTop).where('folder_id', 'is', null);
  return q.orderBy('name').orderBy('id').execute();
}

/** At most 500 folder ids per call (as with the other folder lists here). */
export async function sheetsInFolders(db: Queryable, folderIds: number[]): Promise<SheetRow[]> {
  return db.selectFrom('sheets').selectAll().where('folder_id', 'in', folderIds).execute();
}

export async function sheetIdsInFolders(db: Queryable, folderIds: number[]): Promise<number[]> {
  return (await db.selectFrom('sheets').select('id').where('folder_id', 'in', folderIds).execute()).map((r) => r.id);
}

export async function countSheetsInFolders(db: Queryable, folderIds: number[]): Promise<number> {
  const r = await db.selectFrom('sheets').select((eb) => eb.fn.countAll<number>().as('n')).where('folder_id', 'in', folderIds).executeTakeFirstOrThrow();
  return Number(r.n);
}

export async function topSheetIdsOfWorkspace(db: Queryable, workspaceId: number): Promise<number[]> {
  return (await db.selectFrom('sheets').select('id').where('workspace_id', '=', workspaceId).where('folder_id', 'is', null).execute()).map((r) => r.id);
}

/** The sheets in these folders now live in a workspace (or none). */
export async function moveSheetsOfFolders(db: Queryable, folderIds: number[], workspaceId: number | null): Promise<void> {
  await db.updateTable('sheets').set({ workspace_id: workspaceId }).where('folder_id', 'in', folderIds).execute();
}

/** A sheet gets a new owner (and leaves the old owner's home folders unless it is in a workspace). */
export async function transferSheet(db: Queryable, sheetId: number, ownerId: number): Promise<void> {
  const sheet = await db.selectFrom('sheets').select(['folder_id', 'workspace_id']).where('id', '=', sheetId).executeTakeFirstOrThrow();
  const folderId = sheet.workspace_id === null ? null : sheet.folder_id;
  await db.updateTable('sheets').set({ owner_id: ownerId, folder_id: folderId }).where('id', '=', sheetId).execute();
}

export async function updateSheet(db: Queryable, id: number, set: Updateable<SheetTable>): Promise<void> {
  await db.updateTable('sheets').set(set).where('id', '=', id).execute();
}

/**
 * A write's new version of the sheet and its time. On PostgreSQL the same statement answers
 * whether other sheets read this one (cross-sheet references, cell links from it: the readers
 * dependentSheets lists), so that a write of a sheet nobody reads does not look for its readers
 * after the commit; undefined on SQLite, where a statement costs no round trip.
 */
export async function bumpSheetVersion(db: Queryable, id: number, version: number, at: number): Promise<boolean | undefined> {
  const q = db.updateTable('sheets').set({ version, modified_at: at }).where('id', '=', id);
  if (!onPostgres(db)) {
    await q.execute();
    return undefined;
  }
  // it carries the statements the write held (its rows' updates, their cell history, its
  // events: updateRows, insertCellHistory, appendEvents), none of which it reads
  const [r] = await carrying(db, q.returning((eb) => eb.or([
    eb.exists(eb.selectFrom('cross_sheet_refs').select('cross_sheet_refs.id').whereRef('cross_sheet_refs.source_sheet_id', '=', 'sheets.id')),
    eb.exists(eb.selectFrom('cell_links').select('cell_links.target_sheet_id').whereRef('cell_links.source_sheet_id', '=', 'sheets.id')),
  ]).as('has_readers')).compile());
  return r === undefined ? undefined : Boolean(r.has_readers);
}

/**
 * Deletes the sheets themselves, their rows and their cell history (columns and the rest
 * cascade; what has no foreign key goes first: services/sheets/sheetLifecycle.ts). At most 500
 * ids per call.
 *
 * The rows and the cell history go here, not by a cascade: on PostgreSQL they have no foreign
 * key (migrations 0025 and 0029). The sheets go first: a write holding a sheet's lock is waited
 * for, so its rows and history are committed, and seen, when they are deleted; a write that
 * comes after finds no sheet.
 */
export async function deleteSheetsById(db: Queryable, ids: number[]): Promise<void> {
  await db.deleteFrom('sheets').where('id', 'in', ids).execute();
  await db.deleteFrom('rows').where('sheet_id', 'in', ids).execute();
  await db.deleteFrom('cell_history').where('sheet_id', 'in', ids).execute();
}

/** At most 400 records per call. */
export async function insertRowRecords(db: Queryable, records: Insertable<RowTable>[]): Promise<void> {
  await db.insertInto('rows').values(records).execute();
}

export async function rowIdsOf(db: Queryable, sheetId: number): Promise<number[]> {
  return (await db.selectFrom('rows').select('id').where('sheet_id', '=', sheetId).execute()).map((r) => r.id);
}

export async function updateRowCells(db: Queryable, rowId: number, cells: string): Promise<void> {
  await db.updateTable('rows').set({ cells }).where('id', '=', rowId).execute();
}

/** Sheets (or templates) of an organization a user owns, shared by id, or in given workspaces; by name. */
export async function sheetsOwnedOrShared(
  db: Queryable, orgId: number, userId: number, q: { templates: boolean; sheetIds: number[]; workspaceIds: number[] },
): Promise<SheetRow[]> {
  return db
    .selectFrom('sheets')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('is_template', '=', q.templates ? 1 : 0)
    .where((eb) => {
      const ors = [eb('owner_id', '=', userId)];
      if (q.sheetIds.length > 0) ors.push(eb('id', 'in', q.sheetIds));
      if (q.workspaceIds.length > 0) ors.push(eb('workspace_id', 'in', q.workspaceIds));
      return eb.or(ors);
    })
    .orderBy('name')
    .orderBy('id')
    .execute();
}

// ---- the writes of a loaded sheet model (services/sheets/sheetCache.ts)

/**
 * Locks a sheet's row until the transaction ends (SELECT ... FOR UPDATE; PostgreSQL) and returns
 * it as it stands once locked (undefined: no such sheet). With `lockTimeoutMs`, the statement
 * first sets the transaction's lock_timeout (SET LOCAL's set_config, in an uncorrelated subquery:
 * PostgreSQL evaluates it once, before the scan that waits for the lock), so a write's lock
 * costs one round trip, not three (SET LOCAL, the lock, the sheet's read).
 */
export async function lockSheetRow(tx: Tx, id: number, lockTimeoutMs?: number): Promise<LockedSheet | undefined> {
  let q = tx.selectFrom('sheets').selectAll('sheets')
    .select((eb) => [
      eb.exists(eb.selectFrom('automation_rules').select('automation_rules.id').whereRef('automation_rules.sheet_id', '=', 'sheets.id').where('automation_rules.enabled', '=', 1)).as('ruled'),
      eb.exists(eb.selectFrom('webhooks').select('webhooks.id').whereRef('webhooks.scope_object_id', '=', 'sheets.id').where('webhooks.status', 'in', WEBHOOKS_WATCHING)).as('watched'),
    ])
    .where('sheets.id', '=', id);
  if (lockTimeoutMs !== undefined) q = q.where(sql<string>`(select set_config('lock_timeout', ${`${lockTimeoutMs}ms`}, true))`, 'is not', null);
  const r = await q.forUpdate('sheets').executeTakeFirst();
  if (r === undefined) return undefined;
  const { ruled, watched, ...sheet } = r;
  return { sheet, ruled: Boolean(ruled), watched: Boolean(watched) };
}

/**
 * A sheet as its write lock read it (PostgreSQL), with what else that statement answered so
 * that the write need not ask it again: whether the sheet has enabled automation rules, and
 * whether webhooks watch it.
 */
export interface LockedSheet {
  sheet: SheetRow;
  ruled: boolean;
  watched: boolean;
}

/** Deletes rows by id (any number). */
export async function deleteRowsById(db: Queryable, ids: readonly number[]): Promise<void> {
  for (const part of chunks(ids)) await db.deleteFrom('rows').where('id', 'in', part).execute();
}

/** Inserts rows with multi-row statements compiled once per shape (insertMany). */
export async function insertRows(db: Queryable, records: ReadonlyArray<Insertable<RowTable>>): Promise<void> {
  await insertMany(db, 'rows', records, undefined, { pgStatementBytes: PG_STATEMENT_BYTES });
}

/** A stored row's new state: its id, then the columns an update sets (in this order in every record). */
export type RowUpdate = Omit<RowTable, 'sheet_id' | 'created_at' | 'created_by'>;
/** A row's place in its sheet alone (a row that moved and changed nothing else). */
export type RowPlace = Pick<RowTable, 'id' | 'parent_id' | 'sort_key' | 'expanded' | 'locked'>;

/** Updates stored rows (one statement on PostgreSQL, one compiled statement per row on SQLite). */
export async function updateRows(db: Queryable, records: readonly RowUpdate[] | readonly RowPlace[]): Promise<void> {
  await updateManyById(db, 'rows', records as unknown as ReadonlyArray<{ id: number } & Record<string, string | number | null>>, { pgStatementBytes: PG_STATEMENT_BYTES, hold: true });
}

/** Makes a sheet's stored columns these: gone ones deleted, existing ones updated, new ones inserted. */
export async function saveColumns(db: Queryable, sheetId: number, records: ReadonlyArray<Selectable<ColumnTable>>): Promise<void> {
  const existing = new Set((await db.selectFrom('columns').select('id').where('sheet_id', '=', sheetId).execute()).map((c) => c.id));
  const keep = new Set(records.map((c) => c.id));
  const gone = [...existing].filter((id) => !keep.has(id));
  if (gone.length > 0) await db.deleteFrom('columns').where('id', 'in', gone).execute();
  for (const rec of records) {
    if (existing.has(rec.id)) {
      const { id: _id, sheet_id: _s, ...set } = rec;
      await db.updateTable('columns').set(set).where('id', '=', rec.id).execute();
    } else {
      await db.insertInto('columns').values(rec).execute();
    }
  }
}
