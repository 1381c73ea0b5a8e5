import { chunks, type Queryable, type Store } from '../../store/db.ts';
import { listColumns, type SheetRow } from '../../store/sheets.ts';
import { countMatches, discussionParents, docsOf, listMatches, matchingReads, type Match } from '../../store/searchIndex.ts';
import { queryTerms, termMatches, textWords, type SearchTerm } from '../../engine/search.ts';
import { apiError } from '../../errors.ts';
import type { AccessLevel } from '../access/access.ts';
import type { Actor } from '../platform/context.ts';
import { accessibleSheets } from '../access/containers.ts';
import { favoriteKeys } from '../places/favorites.ts';
import { sheetFor } from '../access/permissions.ts';
import { catchUpSearchIndex, NAMED_SOURCES, rowDocCells } from './searchIndex.ts';

/**
 * Search (GET /search, GET /search/sheets/{id}) over the full-text index (services/log/searchIndex.ts):
 * names of sheets, templates, reports, folders, workspaces (and dashboards, once they register),
 * cell values, discussions, attachments and summary fields of what the caller can see. A query
 * is words, each matching the start of a word (`hors` finds "Horse"), and phrases in double
 * quotes, matching whole words in that order; a result satisfies all of them (engine/search.ts).
 * Every search first brings the index up to the last committed change.
 */

export { SEARCH_SCOPES, type SearchScope } from './searchScopes.ts';
import type { SearchScope } from './searchScopes.ts';

/** At most this many results in one answer (totalCount counts them all). */
export const MAX_SEARCH_RESULTS = 100;
/** Named objects (folders, workspaces, reports) looked at before access checks. */
const MAX_NAME_CANDIDATES = 50_000;

export interface SearchItem {
  /** sheet, template, report, folder, workspace, sight, row, discussion, attachment, summaryField */
  objectType: string;
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

function termsOf(query: string): SearchTerm[] {
  const terms = queryTerms(query);
  if (terms.length === 0) throw apiError(1018, query, 'query');
  return terms;
}

function want(o: { scopes: ReadonlySet<SearchScope> }, scope: SearchScope): boolean {
  return o.scopes.size === 0 || o.scopes.has(scope);
}

/** The kinds of result inside sheets, in the order results show them, with their scope. */
const CONTENT: Array<[string, SearchScope]> = [['row', 'cellData'], ['discussion', 'comments'], ['attachment', 'attachments'], ['summaryField', 'summaryFields']];

/** The doc of an object that matches the most terms: what its result shows. */
function bestDoc<T extends { text: string }>(docs: readonly T[], terms: readonly SearchTerm[]): T {
  let best = docs[0]!;
  let score = -1;
  for (const d of docs) {
    const words = textWords(d.text);
    const n = terms.filter((t) => termMatches(words, t)).length;
    if (n > score) [best, score] = [d, n];
  }
  return best;
}

/** Matches inside the sheets, for each kind wanted: the count of all, the first `room` of them as items. */
async function inSheets(store: Store, sheets: readonly SheetRow[], terms: SearchTerm[], kinds: readonly string[], room: { left: number }, modifiedSince?: number): Promise<{ items: SearchItem[]; count: number }> {
  const db = store.db;
  const byId = new Map(sheets.map((s) => [s.id, s]));
  const ids = sheets.map((s) => s.id).sort((a, b) => a - b);
  const items: SearchItem[] = [];
  let count = 0;
  const found = new Map<string, Match[]>(kinds.map((k) => [k, []]));
  await matchingReads(db, store.dialect, async (q) => {
    for (const part of chunks(ids)) {
      // one pass counts every kind; a kind is listed only when it has matches and there is room
      const counts = await countMatches(q, store.dialect, { terms, objectTypes: kinds, sheetIds: part, modifiedSince });
      for (const kind of kinds) {
        const n = counts.get(kind) ?? 0;
        count += n;
        const list = found.get(kind)!;
        const left = room.left - [...found.values()].reduce((a, l) => a + l.length, 0);
        if (n > 0 && left > 0) list.push(...(await listMatches(q, store.dialect, { terms, objectTypes: [kind], sheetIds: part, modifiedSince }, left)));
      }
    }
  });
  for (const kind of kinds) {
    const list = found.get(kind)!.slice(0, Math.max(0, room.left));
    room.left -= list.length;
    items.push(...(await present(db, kind, list, terms, byId)));
  }
  return { items, count };
}

async function present(db: Queryable, kind: string, found: Match[], terms: SearchTerm[], sheets: Map<number, SheetRow>): Promise<SearchItem[]> {
  if (found.length === 0) return [];
  const docs = new Map<number, Array<{ part_id: number; text: string }>>();
  const bySheet = new Map<number, number[]>();
  for (const m of found) {
    let ids = bySheet.get(m.sheet_id ?? 0);
    if (ids === undefined) bySheet.set(m.sheet_id ?? 0, (ids = []));
    ids.push(m.object_id);
  }
  for (const [sheetId, ids] of bySheet) {
    for (const d of await docsOf(db, kind, sheetId, ids)) {
      let list = docs.get(d.object_id);
      if (list === undefined) docs.set(d.object_id, (list = []));
      // a row's one doc holds its cells: the one that matches best is shown
      if (kind === 'row') list.push(...rowDocCells(d));
      else list.push(d);
    }
  }
  const columns = new Map<number, Map<number, string>>();
  const parents = kind === 'discussion' ? await discussionParents(db, found.map((m) => m.object_id)) : undefined;
  const out: SearchItem[] = [];
  for (const m of found) {
    const list = docs.get(m.object_id);
    const sheet = sheets.get(m.sheet_id ?? 0);
    if (list === undefined || sheet === undefined) continue;
    const best = bestDoc(list, terms);
    const item: SearchItem = { objectType: kind, objectId: m.object_id, text: best.text, parentObjectType: 'sheet', parentObjectId: sheet.id, parentObjectName: sheet.name };
    if (kind === 'row') {
      let titles = columns.get(sheet.id);
      if (titles === undefined) columns.set(sheet.id, (titles = new Map((await listColumns(db, sheet.id)).map((c) => [c.id, c.title]))));
      const title = titles.get(best.part_id);
      if (title !== undefined) item.contextData = [title];
    } else if (kind === 'discussion') {
      const p = parents?.get(m.object_id);
      if (p) item.contextData = [p.parent_type === 'ROW' ? `row ${p.parent_id}` : 'sheet'];
    }
    out.push(item);
  }
  return out;
}

/** Search Everything: what the caller can see, at most MAX_SEARCH_RESULTS items, with the total count. */
export async function searchAll(store: Store, actor: Actor, o: SearchOptions): Promise<SearchResult> {
  const terms = termsOf(o.query);
  await catchUpSearchIndex(store);
  const db = store.db;
  const since = o.modifiedSince;
  const fresh = (at: number) => since === undefined || at >= since;
  const place = (inWorkspace: boolean) => !o.personal || !inWorkspace;
  const names: SearchItem[] = [];

  const sheets = [...(await accessibleSheets(db, actor)).values()].map((x) => x.sheet).filter((s) => place(s.workspace_id !== null));
  const templates = want(o, 'templateNames') ? [...(await accessibleSheets(db, actor, { templates: true })).values()].map((x) => x.sheet).filter((s) => place(s.workspace_id !== null)) : [];
  const named = [...(want(o, 'sheetNames') ? sheets : []), ...templates];
  const byId = new Map(named.map((s) => [s.id, s]));
  for (const part of chunks(named.map((s) => s.id))) {
    for (const m of await listMatches(db, store.dialect, { terms, objectTypes: ['sheet'], sheetIds: part }, part.length)) {
      const s = byId.get(m.object_id);
      if (s && fresh(s.modified_at)) names.push({ objectType: s.is_template ? 'template' : 'sheet', objectId: s.id, text: s.name });
    }
  }
  const wanted = NAMED_SOURCES.filter((src) => want(o, src.scope));
  const candidates = await listMatches(db, store.dialect, { terms, objectTypes: wanted.map((src) => src.objectType) }, MAX_NAME_CANDIDATES);
  for (const src of wanted) {
    const found = candidates.filter((m) => m.object_type === src.objectType);
    if (found.length === 0) continue;
    const visible = await src.visible(db, actor, found.map((m) => m.object_id));
    const docs = new Map((await docsOf(db, src.objectType, null, [...visible.keys()])).map((d) => [d.object_id, d.text]));
    for (const m of found) {
      const v = visible.get(m.object_id);
      const text = docs.get(m.object_id);
      if (v && text !== undefined && place(v.inWorkspace) && fresh(v.modifiedAt)) names.push({ objectType: src.objectType, objectId: m.object_id, text });
    }
  }
  // sheets first, then reports, templates, folders, workspaces and the rest (as before the index)
  const order = ['sheet', 'report', 'template', 'folder', 'workspace'];
  const rank = (t: string) => (order.includes(t) ? order.indexOf(t) : order.length);
  names.sort((a, b) => rank(a.objectType) - rank(b.objectType) || a.text.localeCompare(b.text) || a.objectId - b.objectId);

  const room = { left: Math.max(0, MAX_SEARCH_RESULTS - names.length) };
  const kinds = CONTENT.filter(([, scope]) => want(o, scope)).map(([kind]) => kind);
  const content = await inSheets(store, sheets, terms, kinds, room, since);
  const items = [...names.slice(0, MAX_SEARCH_RESULTS), ...content.items];
  if (o.favoriteFlag) await markFavorites(db, actor, items);
  return { items, totalCount: names.length + content.count };
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

/** Search Sheet (VIEWER): the sheet's rows, discussions, attachments and summary fields that match. */
export async function searchSheet(store: Store, actor: Actor, sheetId: number, query: string): Promise<SearchResult & { level: AccessLevel }> {
  const terms = termsOf(query);
  const { sheet, level } = await sheetFor(store.db, actor, sheetId, 'VIEWER');
  await catchUpSearchIndex(store);
  const r = await inSheets(store, [sheet], terms, CONTENT.map(([kind]) => kind), { left: MAX_SEARCH_RESULTS });
  return { items: r.items, totalCount: r.count, level };
}
