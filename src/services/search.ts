import type { Queryable } from '../store/db.ts';
import { listColumns, type SheetRow } from '../store/sheets.ts';
import { attachmentsNamed, discussionsContaining, foldersNamed, rowsContaining, workspacesNamed } from '../store/search.ts';
import type { StoredRowCells } from '../engine/cells.ts';
import type { ColumnDef } from '../engine/columns.ts';
import { cellTexts, leadTerm, matchesAll, searchTerms } from '../engine/search.ts';
import { apiError } from '../errors.ts';
import type { AccessLevel } from './access.ts';
import type { Actor } from './context.ts';
import { accessibleSheets, accessibleWorkspaces, folderAccessLevel } from './containers.ts';
import { favoriteKeys } from './favorites.ts';
import { accessibleReports } from './reportAccess.ts';
import { sheetFor } from './permissions.ts';

/**
 * Search (GET /search, GET /search/sheets/{id}): names of sheets, reports, templates, folders
 * and workspaces, cell values, discussions and attachments of what the caller can see. The
 * store finds candidates with LIKE (one code path on SQLite and PostgreSQL, over the stored
 * text); each is checked here against every word and phrase of the query.
 */

/** The search filters of `scopes` (the reference's list). */
export const SEARCH_SCOPES = ['attachments', 'cellData', 'comments', 'folderNames', 'reportNames', 'sheetNames', 'sightNames', 'summaryFields', 'templateNames', 'workspaceNames'] as const;
export type SearchScope = (typeof SEARCH_SCOPES)[number];

/** At most this many results in one answer (totalCount counts them all). */
export const MAX_SEARCH_RESULTS = 100;

export interface SearchItem {
  objectType: 'sheet' | 'report' | 'template' | 'folder' | 'workspace' | 'row' | 'discussion' | 'attachment';
  objectId: number;
  text: string;
  parentObjectType?: 'sheet';
  parentObjectId?: number;
  parentObjectName?: string;
  contextData?: string[];
  favorite?: boolean;
  parentObjectFavorite?: boolean;
}

export interface SearchOptions {
  query: string;
  scopes: ReadonlySet<SearchScope>;
  /** Only what lies outside workspaces (location=personalWorkspace). */
  personal: boolean;
  modifiedSince?: number;
  favoriteFlag: boolean;
}

export interface SearchResult {
  items: SearchItem[];
  totalCount: number;
}

function termsOf(query: string): string[] {
  const terms = searchTerms(query);
  if (terms.length === 0) throw apiError(1018, query, 'query');
  return terms;
}

function want(o: SearchOptions, scope: SearchScope): boolean {
  return o.scopes.size === 0 || o.scopes.has(scope);
}

/** Items found in the sheets' contents: rows, discussions, attachments. */
async function inSheets(db: Queryable, sheets: readonly SheetRow[], terms: string[], o: { cells: boolean; comments: boolean; attachments: boolean; modifiedSince?: number }): Promise<SearchItem[]> {
  const out: SearchItem[] = [];
  if (sheets.length === 0) return out;
  const byId = new Map(sheets.map((s) => [s.id, s]));
  const ids = sheets.map((s) => s.id);
  const lead = leadTerm(terms);
  const parent = (sheetId: number) => ({ parentObjectType: 'sheet' as const, parentObjectId: sheetId, parentObjectName: byId.get(sheetId)!.name });
  if (o.cells) {
    const columns = new Map<number, ColumnDef[]>();
    for (const r of await rowsContaining(db, ids, lead, o.modifiedSince)) {
      let cols = columns.get(r.sheet_id);
      if (cols === undefined) columns.set(r.sheet_id, (cols = await listColumns(db, r.sheet_id)));
      const texts = cellTexts(cols, JSON.parse(r.cells) as StoredRowCells);
      if (!matchesAll(texts.map((t) => t.text), terms)) continue;
      const hit = texts.find((t) => terms.some((term) => t.text.toLowerCase().includes(term)))!;
      out.push({ objectType: 'row', objectId: r.id, text: hit.text, ...parent(r.sheet_id), contextData: [hit.column.title] });
    }
  }
  if (o.comments) {
    const seen = new Set<number>();
    for (const d of await discussionsContaining(db, ids, lead)) {
      if (seen.has(d.id) || !matchesAll([d.text], terms) || (o.modifiedSince !== undefined && d.at < o.modifiedSince)) continue;
      seen.add(d.id);
      out.push({ objectType: 'discussion', objectId: d.id, text: d.text, ...parent(d.sheet_id), contextData: [d.parent_type === 'ROW' ? `row ${d.parent_id}` : 'sheet'] });
    }
  }
  if (o.attachments) {
    for (const a of await attachmentsNamed(db, ids, lead)) {
      if (!matchesAll([a.name], terms) || (o.modifiedSince !== undefined && a.created_at < o.modifiedSince)) continue;
      out.push({ objectType: 'attachment', objectId: a.id, text: a.name, ...parent(a.sheet_id) });
    }
  }
  return out;
}

/** Search Everything: what the caller can see, at most MAX_SEARCH_RESULTS items, with the total count. */
export async function searchAll(db: Queryable, actor: Actor, o: SearchOptions): Promise<SearchResult> {
  const terms = termsOf(o.query);
  const lead = leadTerm(terms);
  const since = o.modifiedSince;
  const fresh = (at: number) => since === undefined || at >= since;
  const named = (name: string) => matchesAll([name], terms);
  const items: SearchItem[] = [];
  const place = <T extends { workspace_id: number | null }>(x: T) => !o.personal || x.workspace_id === null;

  const sheets = [...(await accessibleSheets(db, actor)).values()].filter((x) => place(x.sheet));
  if (want(o, 'sheetNames')) for (const { sheet } of sheets) if (named(sheet.name) && fresh(sheet.modified_at)) items.push({ objectType: 'sheet', objectId: sheet.id, text: sheet.name });
  if (want(o, 'reportNames')) {
    for (const { report } of await accessibleReports(db, actor)) if (place(report) && named(report.name) && fresh(report.modified_at)) items.push({ objectType: 'report', objectId: report.id, text: report.name });
  }
  if (want(o, 'templateNames')) {
    for (const { sheet } of (await accessibleSheets(db, actor, { templates: true })).values()) if (place(sheet) && named(sheet.name) && fresh(sheet.modified_at)) items.push({ objectType: 'template', objectId: sheet.id, text: sheet.name });
  }
  if (want(o, 'folderNames')) {
    for (const f of await foldersNamed(db, actor.org.id, lead)) {
      if (!place(f) || !named(f.name) || !fresh(f.modified_at)) continue;
      if ((await folderAccessLevel(db, actor, f)) !== null) items.push({ objectType: 'folder', objectId: f.id, text: f.name });
    }
  }
  if (want(o, 'workspaceNames') && !o.personal) {
    const mine = await accessibleWorkspaces(db, actor);
    for (const w of await workspacesNamed(db, actor.org.id, lead)) if (mine.has(w.id) && named(w.name) && fresh(w.modified_at)) items.push({ objectType: 'workspace', objectId: w.id, text: w.name });
  }
  items.push(...(await inSheets(db, sheets.map((x) => x.sheet), terms, { cells: want(o, 'cellData'), comments: want(o, 'comments'), attachments: want(o, 'attachments'), modifiedSince: since })));
  if (o.favoriteFlag) await markFavorites(db, actor, items);
  return { items: items.slice(0, MAX_SEARCH_RESULTS), totalCount: items.length };
}

async function markFavorites(db: Queryable, actor: Actor, items: SearchItem[]): Promise<void> {
  const favs = await favoriteKeys(db, actor);
  for (const it of items) {
    if (it.parentObjectId !== undefined) {
      if (favs.has(`sheet:${it.parentObjectId}`)) it.parentObjectFavorite = true;
    } else if (favs.has(`${it.objectType}:${it.objectId}`)) {
      it.favorite = true;
    }
  }
}

/** Search Sheet (VIEWER): the sheet's rows, discussions and attachments that match. */
export async function searchSheet(db: Queryable, actor: Actor, sheetId: number, query: string): Promise<SearchResult & { level: AccessLevel }> {
  const { sheet, level } = await sheetFor(db, actor, sheetId, 'VIEWER');
  const items = await inSheets(db, [sheet], termsOf(query), { cells: true, comments: true, attachments: true });
  return { items: items.slice(0, MAX_SEARCH_RESULTS), totalCount: items.length, level };
}
