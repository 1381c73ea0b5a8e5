/** Sheet filters, the filter each user applied, and conditional-format rules (store/viewTables.ts). */
import type { Selectable } from 'kysely';
import type { Queryable } from './db.ts';
import type { SheetFilterTable } from './viewTables.ts';

export type FilterRow = Selectable<SheetFilterTable>;

/** The filters of a sheet a user can see (shared ones and their own), oldest first. */
export async function filtersVisibleTo(db: Queryable, sheetId: number, userId: number): Promise<FilterRow[]> {
  return db
    .selectFrom('sheet_filters')
    .selectAll()
    .where('sheet_id', '=', sheetId)
    .where((eb) => eb.or([eb('filter_type', '=', 'SHARED'), eb('owner_id', '=', userId)]))
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function sheetFilters(db: Queryable, sheetId: number, type?: 'PERSONAL' | 'SHARED'): Promise<FilterRow[]> {
  return db.selectFrom('sheet_filters').selectAll().where('sheet_id', '=', sheetId).$if(type !== undefined, (q) => q.where('filter_type', '=', type!)).execute();
}

export async function findFilter(db: Queryable, sheetId: number, filterId: number): Promise<FilterRow | undefined> {
  return db.selectFrom('sheet_filters').selectAll().where('sheet_id', '=', sheetId).where('id', '=', filterId).executeTakeFirst();
}

/** Ids of the filters of a sheet with this name key and type (PERSONAL: of this owner only). */
export async function filterIdsNamed(db: Queryable, sheetId: number, nameKey: string, type: 'PERSONAL' | 'SHARED', ownerId: number): Promise<number[]> {
  let q = db.selectFrom('sheet_filters').select('id').where('sheet_id', '=', sheetId).where('name_key', '=', nameKey).where('filter_type', '=', type);
  if (type === 'PERSONAL') q = q.where('owner_id', '=', ownerId);
  return (await q.execute()).map((h) => h.id);
}

export async function insertFilters(db: Queryable, rows: FilterRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.insertInto('sheet_filters').values(rows).execute();
}

export async function updateFilterRow(db: Queryable, id: number, set: Partial<Omit<FilterRow, 'id' | 'sheet_id' | 'created_at'>>): Promise<void> {
  await db.updateTable('sheet_filters').set(set).where('id', '=', id).execute();
}

/** Deletes a filter and every user's choice to apply it. */
export async function deleteFilterRow(db: Queryable, id: number): Promise<void> {
  await db.deleteFrom('sheet_filters').where('id', '=', id).execute();
  await db.deleteFrom('sheet_filter_applied').where('filter_id', '=', id).execute();
}

/** The filter a user has applied to a sheet, if any. */
export async function appliedFilterId(db: Queryable, sheetId: number, userId: number): Promise<number | undefined> {
  const r = await db.selectFrom('sheet_filter_applied').select('filter_id').where('sheet_id', '=', sheetId).where('user_id', '=', userId).executeTakeFirst();
  return r?.filter_id;
}

/** Applies a filter for a user (replacing their applied one), or un-applies it. */
export async function setAppliedFilter(db: Queryable, sheetId: number, userId: number, filterId: number, applied: boolean): Promise<void> {
  await db.deleteFrom('sheet_filter_applied').where('sheet_id', '=', sheetId).where('user_id', '=', userId).$if(!applied, (q) => q.where('filter_id', '=', filterId)).execute();
  if (applied) await db.insertInto('sheet_filter_applied').values({ sheet_id: sheetId, user_id: userId, filter_id: filterId }).execute();
}

/** Un-applies a filter for every user but one. */
export async function unapplyFilterForOthers(db: Queryable, filterId: number, userId: number): Promise<void> {
  await db.deleteFrom('sheet_filter_applied').where('filter_id', '=', filterId).where('user_id', '!=', userId).execute();
}

/** A sheet's conditional-format rules as stored (JSON), if it has any. */
export async function rulesJson(db: Queryable, sheetId: number): Promise<string | undefined> {
  const r = await db.selectFrom('sheet_conditional_formats').select('rules').where('sheet_id', '=', sheetId).executeTakeFirst();
  return r?.rules;
}

/** Replaces a sheet's conditional-format rules (none: the row goes). */
export async function replaceRules(db: Queryable, sheetId: number, rules: string | undefined): Promise<void> {
  await db.deleteFrom('sheet_conditional_formats').where('sheet_id', '=', sheetId).execute();
  if (rules !== undefined) await db.insertInto('sheet_conditional_formats').values({ sheet_id: sheetId, rules }).execute();
}

/** Filters, applied choices and rules go with their sheets. */
export async function deleteViewsOf(db: Queryable, sheetIds: number[]): Promise<void> {
  if (sheetIds.length === 0) return;
  await db.deleteFrom('sheet_filters').where('sheet_id', 'in', sheetIds).execute();
  await db.deleteFrom('sheet_filter_applied').where('sheet_id', 'in', sheetIds).execute();
  await db.deleteFrom('sheet_conditional_formats').where('sheet_id', 'in', sheetIds).execute();
}
