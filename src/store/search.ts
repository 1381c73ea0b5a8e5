import { sql, type RawBuilder } from 'kysely';
import type { Queryable } from './db.ts';

/**
 * Candidates of a search: one code path for SQLite and PostgreSQL, `lower(text) LIKE %term%`
 * with the LIKE wildcards escaped. The service checks every candidate against the whole query
 * (engine/search.ts), so these only need to keep everything that could match. Sheet ids are
 * asked for in chunks (bound parameters).
 */
const CHUNK = 500;

/** A LIKE pattern that finds `term` anywhere, its own % _ and \ taken literally. */
export function containsPattern(term: string): string {
  return `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

function likeLower(column: string, term: string): RawBuilder<boolean> {
  return sql<boolean>`lower(${sql.ref(column)}) like ${containsPattern(term)} escape '\\'`;
}

function chunks(ids: readonly number[]): number[][] {
  const out: number[][] = [];
  for (let i = 0; i < ids.length; i += CHUNK) out.push(ids.slice(i, i + CHUNK));
  return out;
}

export async function foldersNamed(db: Queryable, orgId: number, term: string) {
  return db.selectFrom('folders').selectAll().where('org_id', '=', orgId).where(likeLower('name', term)).orderBy('name').orderBy('id').execute();
}

export async function workspacesNamed(db: Queryable, orgId: number, term: string) {
  return db.selectFrom('workspaces').selectAll().where('org_id', '=', orgId).where(likeLower('name', term)).orderBy('name').orderBy('id').execute();
}

/**
 * Rows of the sheets whose stored cells (JSON text) contain the term: the term as JSON writes
 * it, so quotes and backslashes in it match what is stored.
 */
export async function rowsContaining(db: Queryable, sheetIds: readonly number[], term: string, modifiedSince?: number) {
  const inJson = JSON.stringify(term).slice(1, -1);
  const out: Array<{ id: number; sheet_id: number; cells: string; sort_key: number; modified_at: number }> = [];
  for (const ids of chunks(sheetIds)) {
    let q = db.selectFrom('rows').select(['id', 'sheet_id', 'cells', 'sort_key', 'modified_at']).where('sheet_id', 'in', ids).where(likeLower('cells', inJson));
    if (modifiedSince !== undefined) q = q.where('modified_at', '>=', modifiedSince);
    out.push(...(await q.orderBy('sheet_id').orderBy('sort_key').execute()));
  }
  return out;
}

/** Discussions of the sheets whose title or one of whose comments contains the term, with the matching text. */
export async function discussionsContaining(db: Queryable, sheetIds: readonly number[], term: string) {
  const out: Array<{ id: number; sheet_id: number; parent_type: string; parent_id: number; text: string; at: number }> = [];
  for (const ids of chunks(sheetIds)) {
    const titled = await db.selectFrom('discussions').select(['id', 'sheet_id', 'parent_type', 'parent_id', 'title as text', 'created_at as at']).where('sheet_id', 'in', ids).where(likeLower('title', term)).execute();
    const commented = await db.selectFrom('comments as c').innerJoin('discussions as d', 'd.id', 'c.discussion_id')
      .select(['d.id', 'd.sheet_id', 'd.parent_type', 'd.parent_id', 'c.text', 'c.modified_at as at']).where('c.sheet_id', 'in', ids).where(likeLower('c.text', term)).execute();
    out.push(...titled, ...commented);
  }
  return out;
}

/** Current attachments of the sheets whose name contains the term. */
export async function attachmentsNamed(db: Queryable, sheetIds: readonly number[], term: string) {
  const out: Array<{ id: number; sheet_id: number; name: string; parent_type: string; parent_id: number; created_at: number }> = [];
  for (const ids of chunks(sheetIds)) {
    out.push(...(await db.selectFrom('attachments').select(['id', 'sheet_id', 'name', 'parent_type', 'parent_id', 'created_at']).where('sheet_id', 'in', ids).where('current', '=', 1).where(likeLower('name', term)).orderBy('name').execute()));
  }
  return out;
}
