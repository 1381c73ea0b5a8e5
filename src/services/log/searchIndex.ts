import type { Queryable, Store } from '../../store/db.ts';
import { maxEventPos, sequenceEvents } from '../../store/events.ts';
import { findFolder } from '../../store/containers.ts';
import { listColumns, rowIdsOf } from '../../store/sheets.ts';
import { listSummaryFields } from '../../store/summary.ts';
import {
  allSheetIds, containerNames, DeferredDocs, DocWriter, indexedObjectIds, indexPosition, lockIndex, logAfter, refreshDocStatistics, rowsByIds, setIndexPosition, sheetNames, threadTexts, type DocSink, type NewDoc,
} from '../../store/searchIndex.ts';
import { cellKey, type StoredCell, type StoredRowCells } from '../../engine/cells.ts';
import type { ColumnDef } from '../../engine/columns.ts';
import { valueText } from '../../engine/display.ts';
import { CELL_BREAK, pushWords, textWords } from '../../engine/search.ts';
import { fieldColumn, type SummaryFieldDef } from '../../engine/summary.ts';
import { clock } from '../../clock.ts';
import type { Actor } from '../platform/context.ts';
import { findSheet, storedModel } from '../sheets/sheetCache.ts';
import { accessibleWorkspaces, folderAccessLevel } from '../access/containers.ts';
import { reportAccess, sightAccess } from '../access/assetAccess.ts';
import type { SearchScope } from './searchScopes.ts';

/**
 * The search index follows the change log. `catchUpSearchIndex` reads the committed events after
 * the index's position (search_index_state.pos), works out what they touched (rows, a sheet's
 * name, columns, discussions, attachments or summary; folder, workspace, report and dashboard
 * names), writes those objects' docs again from the data as it is now (or removes them), and
 * moves the position, in one transaction per batch of events. Writing an object again from the
 * data makes the indexer idempotent: replaying events (a crash before the commit, a rebuild
 * that overlaps them) only writes the same docs again.
 *
 * Who runs it: the job worker on every wake-up (every SHEETD_JOB_POLL_MS, and when a job is
 * enqueued), and every search before it reads, so a search sees every write committed before
 * it (read your writes) and the background runs keep that catch-up short. Transactions that
 * catch up take the state row first, so one indexer writes at a time in all processes.
 */

/** Events read per indexing transaction. */
const EVENT_BATCH = 2000;
/** Rows indexed per read when a whole sheet is indexed. */
const ROW_PAGE = 1000;

// --- names of objects outside sheets: folders, workspaces, reports and dashboards -----------

/** One kind of named object the index holds and a search shows (NAMED_SOURCES). */
export interface NamedSource {
  /** The SearchResultItem objectType (and the index's object_type): 'folder', 'sight'. */
  objectType: string;
  /** The change log's objectType of its events: 'FOLDER', 'SIGHT'. Any such event re-reads the object's name. */
  eventType: string;
  /** The search filter of `scopes` that selects it. */
  scope: SearchScope;
  /** Current names (and last modification) of these objects, or of all of them when `ids` is undefined; a missing id is a deleted object. */
  names(db: Queryable, ids?: readonly number[]): Promise<Array<{ id: number; name: string; modified_at: number }>>;
  /**
   * Of these ids, those the actor may see, with their current modification time and whether
   * they lie in a workspace (location=personalWorkspace leaves those out).
   */
  visible(db: Queryable, actor: Actor, ids: readonly number[]): Promise<Map<number, { modifiedAt: number; inWorkspace: boolean }>>;
}

const FOLDERS: NamedSource = {
  objectType: 'folder', eventType: 'FOLDER', scope: 'folderNames',
  names: (db, ids) => containerNames(db, 'folders', ids),
  async visible(db, actor, ids) {
    const out = new Map<number, { modifiedAt: number; inWorkspace: boolean }>();
    for (const id of ids) {
      const f = await findFolder(db, id);
      if (f && (await folderAccessLevel(db, actor, f)) !== null) out.set(id, { modifiedAt: f.modified_at, inWorkspace: f.workspace_id !== null });
    }
    return out;
  },
};

const WORKSPACES: NamedSource = {
  objectType: 'workspace', eventType: 'WORKSPACE', scope: 'workspaceNames',
  names: (db, ids) => containerNames(db, 'workspaces', ids),
  async visible(db, actor, ids) {
    const mine = await accessibleWorkspaces(db, actor);
    const out = new Map<number, { modifiedAt: number; inWorkspace: boolean }>();
    for (const id of ids) {
      const w = mine.get(id);
      if (w) out.set(id, { modifiedAt: w.ws.modified_at, inWorkspace: true });
    }
    return out;
  },
};

/** Of the assets (reports, dashboards) the caller can see, those among `ids`. */
function visibleAssets(ids: readonly number[], seen: ReadonlyArray<{ id: number; modified_at: number; workspace_id: number | null }>) {
  const want = new Set(ids);
  const out = new Map<number, { modifiedAt: number; inWorkspace: boolean }>();
  for (const a of seen) if (want.has(a.id)) out.set(a.id, { modifiedAt: a.modified_at, inWorkspace: a.workspace_id !== null });
  return out;
}

const REPORTS: NamedSource = {
  objectType: 'report', eventType: 'REPORT', scope: 'reportNames',
  names: (db, ids) => containerNames(db, 'reports', ids),
  visible: async (db, actor, ids) => visibleAssets(ids, (await reportAccess.accessible(db, actor)).map((x) => x.asset)),
};

const DASHBOARDS: NamedSource = {
  objectType: 'sight', eventType: 'DASHBOARD', scope: 'sightNames',
  names: (db, ids) => containerNames(db, 'sights', ids),
  visible: async (db, actor, ids) => visibleAssets(ids, (await sightAccess.accessible(db, actor)).map((x) => x.asset)),
};

/**
 * The kinds of named objects outside sheets: their names are indexed from the change log (and
 * on a rebuild), and Search Everything shows the ones the caller may see under their `scope`.
 */
export const NAMED_SOURCES: readonly NamedSource[] = [FOLDERS, WORKSPACES, REPORTS, DASHBOARDS];

// --- docs of a sheet --------------------------------------------------------------------------

/** Object types of the docs that live in a sheet. */
export const SHEET_DOC_TYPES = ['sheet', 'row', 'discussion', 'attachment', 'summaryField'] as const;

const doc = (objectType: string, objectId: number, partId: number, sheetId: number | null, text: string, modifiedAt: number): NewDoc | undefined => {
  const words = textWords(text);
  return words.length === 0 ? undefined : { objectType, objectId, partId, sheetId, text, words, modifiedAt: Number(modifiedAt) };
};

/** A row as the indexer reads it (rowsByIds). */
interface StoredRow { id: number; cells: string; modified_at: number }

/**
 * A row's doc: one for the whole row (one per cell made 20 docs of a 20-column row, and catching
 * up with an add of 500 rows wrote 10,000). Its text is the JSON list of the cells that have
 * words, [columnId, what the cell shows] each (rowDocCells reads it back to show the matching
 * cell); its words are each cell's in column order, CELL_BREAK between two cells so a phrase
 * stays within one. A cell's words are those of what it shows (and of each contact address)
 * and, when it differs, of the value stored (a number's digits as written, a date as
 * YYYY-MM-DD), so `1500.5` finds a cell shown as `$1,500.50`.
 */
function rowDocs(sheetId: number, columns: readonly ColumnDef[]): (row: StoredRow, out: NewDoc[]) => void {
  const docOf = rowDocOfCells(sheetId, columns);
  return (row, out) => docOf(Number(row.id), JSON.parse(row.cells) as StoredRowCells, Number(row.modified_at), out);
}

/** rowDocs of a row's cells as parsed (a cached model's, or the stored text's). */
function rowDocOfCells(sheetId: number, columns: readonly ColumnDef[]): (rowId: number, cells: StoredRowCells, modifiedAt: number, out: NewDoc[]) => void {
  // the doc's text is JSON.stringify of [[columnId, text], ...], written here from each column's '[id,'
  const heads = columns.map((c) => `[${JSON.stringify(c.id)},`);
  return (rowId, cells, modifiedAt, out) => {
    let shown = '';
    const words: string[] = [];
    // one text of a cell: its words after a CELL_BREAK (none before the first), and `raw`'s after them
    const add = (i: number, text: string, raw?: string) => {
      const mark = words.length;
      if (mark > 0) words.push(CELL_BREAK);
      if (pushWords(text, words) === 0) {
        words.length = mark;
        return;
      }
      if (raw !== undefined && raw !== text) pushWords(raw, words);
      shown += `${shown === '' ? '[' : ','}${heads[i]!}${JSON.stringify(text)}]`;
    };
    for (let i = 0; i < columns.length; i++) {
      const column = columns[i]!;
      const cell = cells[cellKey(column.id)];
      const v = cell?.v;
      if (v === undefined) continue;
      const text = valueText(column, v, cell!.f ?? column.format);
      if (typeof v === 'string' || typeof v === 'number') {
        if (text !== '') add(i, text, String(v));
        continue;
      }
      if (text !== '') add(i, text);
      // a contact matches by address as well as by name
      if (typeof v === 'object' && 'c' in v) add(i, v.c.email);
      if (typeof v === 'object' && 'mc' in v) for (const x of v.mc) add(i, x.email);
    }
    if (shown !== '') out.push({ objectType: 'row', objectId: rowId, partId: 0, sheetId, text: `${shown}]`, words, modifiedAt });
  };
}

/** The cells a row's doc names (rowDocs): each as a doc of its own, its column the part. */
export function rowDocCells<T extends { part_id: number; text: string }>(d: T): T[] {
  let shown: Array<[number, string]>;
  try {
    shown = JSON.parse(d.text) as Array<[number, string]>;
  } catch {
    return [d];
  }
  return Array.isArray(shown) ? shown.map(([columnId, text]) => ({ ...d, part_id: columnId, text })) : [d];
}

/**
 * Told of a row left out of the index because its stored cells could not be read: the store's
 * logger (server.ts) records it. Without this, one such row failed every catch-up: every
 * search answered 500 and the index stopped following the change log.
 */
type Unreadable = (sheetId: number, rowId: number, err: unknown) => void;

function unreadableRows(store: Store): Unreadable {
  const log = store.logger;
  return log ? (sheetId, rowId, err) => log.error({ err, sheetId, rowId }, 'search index: a row whose stored cells cannot be read is left out') : () => {};
}

/** rowDocs, leaving out (and telling of) a row whose stored cells cannot be read. */
function rowDocsOrSkip(sheetId: number, columns: readonly ColumnDef[], unreadable: Unreadable): (row: StoredRow, out: NewDoc[]) => void {
  const docsOf = rowDocs(sheetId, columns);
  return (row, out) => {
    try {
      docsOf(row, out);
    } catch (err) {
      unreadable(sheetId, Number(row.id), err);
    }
  };
}

async function indexRows(w: DocSink, db: Queryable, sheetId: number, rowIds: readonly number[] | 'all', unreadable: Unreadable): Promise<void> {
  const columns = await listColumns(db, sheetId);
  const docsOf = rowDocsOrSkip(sheetId, columns, unreadable);
  if (rowIds === 'all') {
    await w.removeOfSheet(sheetId, ['row']);
    // by ids in pages: the ids of a sheet come from its (sheet_id, sort_key) index, a page of rows by id
    const ids = await rowIdsOf(db, sheetId);
    for (let i = 0; i < ids.length; i += ROW_PAGE) {
      const docs: NewDoc[] = [];
      for (const r of await rowsByIds(db, sheetId, ids.slice(i, i + ROW_PAGE))) docsOf(r, docs);
      await w.insert(docs);
    }
    return;
  }
  await w.removeObjects('row', sheetId, rowIds);
  const docs: NewDoc[] = [];
  // The rows as this process's cached model holds them when it is the sheet's version read here
  // (sheetCache: a model in the cache holds what the database holds at its version): the catch-up
  // after an add of 500 rows read them back and parsed their cells again (about 6 ms of 40).
  const sheet = await findSheet(db, sheetId);
  const model = sheet === undefined ? undefined : storedModel(sheet);
  if (model !== undefined) {
    const docOf = rowDocOfCells(sheetId, columns);
    // in the order of the ids, as the read by id gives them
    for (const id of [...rowIds].sort((a, b) => a - b)) {
      const r = model.rows.get(id);
      if (r === undefined) continue;
      try {
        docOf(id, r.cells, r.modifiedAt, docs);
      } catch (err) {
        unreadable(sheetId, id, err);
      }
    }
  } else for (const r of await rowsByIds(db, sheetId, rowIds)) docsOf(r, docs);
  await w.insert(docs);
}

async function indexSheetName(w: DocSink, db: Queryable, sheetId: number): Promise<void> {
  await w.removeObjects('sheet', sheetId, [sheetId]);
  const [s] = await sheetNames(db, [sheetId]);
  const d = s && doc('sheet', sheetId, 0, sheetId, s.name, s.modified_at);
  if (d) await w.insert([d]);
}

/** Discussions (title and comments) and attachments of a sheet. */
async function indexThreads(w: DocSink, db: Queryable, sheetId: number): Promise<void> {
  await w.removeOfSheet(sheetId, ['discussion', 'attachment']);
  const t = await threadTexts(db, sheetId);
  const docs = [
    ...t.discussions.map((d) => doc('discussion', d.id, 0, sheetId, d.title, d.created_at)),
    ...t.comments.map((c) => doc('discussion', c.discussion_id, c.id, sheetId, c.text, c.modified_at)),
    ...t.attachments.map((a) => doc('attachment', a.id, 0, sheetId, a.name, a.created_at)),
  ];
  await w.insert(docs.filter((d): d is NewDoc => d !== undefined));
}

/** Summary fields: the title and what the field shows. */
async function indexSummary(w: DocSink, db: Queryable, sheetId: number): Promise<void> {
  await w.removeOfSheet(sheetId, ['summaryField']);
  const docs: NewDoc[] = [];
  for (const f of await listSummaryFields(db, sheetId)) {
    const def = { ...(JSON.parse(f.def) as Omit<SummaryFieldDef, 'id' | 'index' | 'title'>), id: f.id, index: f.idx, title: f.title } as SummaryFieldDef;
    const cell = JSON.parse(f.cell) as StoredCell;
    const shown = cell.v === undefined ? '' : valueText(fieldColumn(def), cell.v, cell.f ?? def.format);
    const d = doc('summaryField', f.id, 0, sheetId, shown === '' ? f.title : `${f.title}: ${shown}`, f.modified_at);
    if (d) docs.push(d);
  }
  await w.insert(docs);
}

async function indexNames(w: DocSink, db: Queryable, s: NamedSource, ids?: readonly number[]): Promise<void> {
  if (ids !== undefined) await w.removeObjects(s.objectType, null, ids);
  const docs = (await s.names(db, ids)).map((o) => doc(s.objectType, Number(o.id), 0, null, o.name, o.modified_at));
  await w.insert(docs.filter((d): d is NewDoc => d !== undefined));
}

// --- from events to work ----------------------------------------------------------------------

interface Plan {
  /** Sheets indexed whole (created, columns changed). */
  whole: Set<number>;
  /** Sheets whose name, discussions, attachments and summary are indexed again. */
  meta: Set<number>;
  rows: Map<number, Set<number>>;
  /** Rows named by events of sheets indexed whole: what indexRowsInSteps may have read before they changed. */
  wholeRows: Map<number, Set<number>>;
  gone: Set<number>;
  names: Map<NamedSource, Set<number>>;
  orphans: boolean;
}

function plan(events: ReadonlyArray<{ object_type: string; action: string; object_id: number; sheet_id: number | null }>): Plan {
  const p: Plan = { whole: new Set(), meta: new Set(), rows: new Map(), wholeRows: new Map(), gone: new Set(), names: new Map(), orphans: false };
  const byEvent = new Map(NAMED_SOURCES.map((s) => [s.eventType, s]));
  for (const e of events) {
    const type = e.object_type;
    const sheetId = e.sheet_id === null ? null : Number(e.sheet_id);
    const named = byEvent.get(type);
    if (named) {
      let ids = p.names.get(named);
      if (ids === undefined) p.names.set(named, (ids = new Set()));
      ids.add(Number(e.object_id));
      // a folder or workspace takes what it holds with it
      if (e.action === 'DELETE' && (type === 'FOLDER' || type === 'WORKSPACE')) p.orphans = true;
      continue;
    }
    if (sheetId === null) continue;
    if (type === 'SHEET' && e.action === 'DELETE') p.gone.add(sheetId);
    else if ((type === 'SHEET' && e.action === 'CREATE') || type === 'COLUMN') p.whole.add(sheetId);
    else if (type === 'ROW') {
      let rows = p.rows.get(sheetId);
      if (rows === undefined) p.rows.set(sheetId, (rows = new Set()));
      rows.add(Number(e.object_id));
    } else if (type === 'SHEET' || type === 'DISCUSSION' || type === 'COMMENT' || type === 'ATTACHMENT' || type === 'SUMMARY_FIELD') p.meta.add(sheetId);
  }
  for (const id of p.gone) {
    p.whole.delete(id);
    p.meta.delete(id);
    p.rows.delete(id);
  }
  for (const id of p.whole) {
    p.meta.delete(id);
    const rows = p.rows.get(id);
    if (rows !== undefined) p.wholeRows.set(id, rows);
    p.rows.delete(id);
  }
  return p;
}

async function indexSheetMeta(w: DocSink, db: Queryable, sheetId: number): Promise<void> {
  await indexSheetName(w, db, sheetId);
  await indexThreads(w, db, sheetId);
  await indexSummary(w, db, sheetId);
}

async function indexWholeSheet(w: DocSink, db: Queryable, sheetId: number, unreadable: Unreadable): Promise<void> {
  await indexSheetMeta(w, db, sheetId);
  await indexRows(w, db, sheetId, 'all', unreadable);
}

/** `rowsDone`: sheets of p.whole whose rows were indexed already, in steps (indexRowsInSteps). */
async function apply(w: DocSink, db: Queryable, p: Plan, rowsDone: ReadonlySet<number>, unreadable: Unreadable): Promise<void> {
  for (const id of p.gone) await w.removeOfSheet(id);
  for (const id of p.whole) {
    if (rowsDone.has(id)) {
      // the steps wrote the rows the sheet had; rows the batch's events name (deleted ones among them) again
      await indexSheetMeta(w, db, id);
      const rows = p.wholeRows.get(id);
      if (rows !== undefined) await indexRows(w, db, id, [...rows], unreadable);
    } else await indexWholeSheet(w, db, id, unreadable);
  }
  for (const id of p.meta) await indexSheetMeta(w, db, id);
  for (const [id, rows] of p.rows) await indexRows(w, db, id, [...rows], unreadable);
  for (const [s, ids] of p.names) await indexNames(w, db, s, [...ids]);
  if (p.orphans) {
    // what went with a deleted folder or workspace: its sheets, folders, reports (and dashboards)
    await w.removeOrphans();
    for (const s of NAMED_SOURCES) {
      const ids = await indexedObjectIds(db, s.objectType);
      const live = new Set((await s.names(db, ids)).map((o) => Number(o.id)));
      await w.removeObjects(s.objectType, null, ids.filter((id) => !live.has(id)));
    }
  }
}

/** Builds the index from the data (the first catch-up after migration 0022, or after requestSearchRebuild). */
async function rebuild(w: DocWriter, db: Queryable, unreadable: Unreadable): Promise<void> {
  await w.removeAll();
  for (const id of await allSheetIds(db)) await indexWholeSheet(w, db, id, unreadable);
  for (const s of NAMED_SOURCES) await indexNames(w, db, s);
  await w.built();
}

/** Has the index caught up with the change log? (Positions events first.) */
export async function searchIndexCurrent(store: Store): Promise<boolean> {
  await sequenceEvents(store);
  const pos = await indexPosition(store.db);
  return pos !== null && pos >= (await maxEventPos(store.db));
}

/**
 * A sheet indexed whole (created, imported, its columns changed) with more rows than this has
 * its rows indexed in transactions of this many rows each, before the transaction that moves
 * the position. On SQLite the process has one connection and better-sqlite3 answers at once,
 * so one transaction over the 100,000 rows of an import held the connection, and the event
 * loop, for seconds: every request, and the import's own answer, waited for it.
 */
const ROWS_PER_STEP = 4000;

/**
 * Indexes the rows of a sheet indexed whole in steps of their own transaction, each checking
 * that the index is still at `pos` (another process may have moved it: then its work stands and
 * this returns false). Each step writes its rows' docs afresh, so steps of two indexers that
 * overlap leave each row once; rows changed or deleted meanwhile have events after `pos`, which
 * a later batch applies. True when the rows are indexed; false when the sheet is small (the
 * batch's transaction indexes it) or the position moved.
 */
async function indexRowsInSteps(store: Store, sheetId: number, pos: number, unreadable: Unreadable, written: { docs: number }): Promise<boolean> {
  const ids = await rowIdsOf(store.db, sheetId);
  if (ids.length <= ROWS_PER_STEP) return false;
  for (let i = 0; i < ids.length; i += ROWS_PER_STEP) {
    // between two steps, what waits for the connection and the event loop gets its turn
    if (i > 0) await new Promise((r) => setImmediate(r));
    const still = await store.db.transaction().execute(async (tx) => {
      if ((await lockIndex(tx, clock.now())) !== pos) return false;
      const w = new DocWriter(tx, store.dialect, written);
      const docsOf = rowDocsOrSkip(sheetId, await listColumns(tx, sheetId), unreadable);
      const step = ids.slice(i, i + ROWS_PER_STEP);
      // only this step's rows: an indexer doing the same steps meanwhile (another process's
      // search) must not remove what the other wrote (rows deleted since have events of their own)
      await w.removeObjects('row', sheetId, step);
      for (let j = 0; j < step.length; j += ROW_PAGE) {
        const docs: NewDoc[] = [];
        for (const r of await rowsByIds(tx, sheetId, step.slice(j, j + ROW_PAGE))) docsOf(r, docs);
        await w.insert(docs);
      }
      return true;
    });
    if (!still) return false;
  }
  return true;
}

/** The catch-up under way in this process, per store: a second caller waits for it. */
const running = new WeakMap<Store, Promise<number>>();

/** Who catches a store's index up instead of the caller's thread (indexThread.ts). */
export interface IndexCatchUp {
  catchUp(): Promise<number>;
}
const delegates = new WeakMap<Store, IndexCatchUp>();

/** From now on `catchUpSearchIndex(store)` asks `to`. */
export function delegateCatchUp(store: Store, to: IndexCatchUp): void {
  delegates.set(store, to);
}

/** `catchUpSearchIndex(store)` runs here again, unless another than `from` took over since. */
export function stopDelegating(store: Store, from: IndexCatchUp): void {
  if (delegates.get(store) === from) delegates.delete(store);
}

/** Whether `store`'s catch-up runs on another thread now (the index thread, ready and running). */
export function catchUpElsewhere(store: Store): boolean {
  return delegates.has(store);
}

/**
 * Brings the index up to the change log's last committed event. Returns the number of events
 * it applied (-1 when it built the index from the data). Callers in one process share one
 * catch-up at a time (a search waits for the worker's, instead of indexing the same rows again).
 * A server's catch-up runs on its index thread (indexThread.ts) when it has one.
 */
export async function catchUpSearchIndex(store: Store): Promise<number> {
  const delegate = delegates.get(store);
  if (delegate !== undefined) {
    try {
      return await delegate.catchUp();
    } catch (e) {
      // a thread that ended (and stopped being the delegate) leaves the catch-up to this one
      if (delegates.get(store) === delegate) throw e;
    }
  }
  return catchUpHere(store);
}

/**
 * catchUpSearchIndex on this thread (what the index thread runs). `pace`, when given, is awaited
 * after each batch that reached the end of the log as it then was (the events after it came
 * during the batch: writes going on), with how long the batch took; a batch of a backlog is
 * followed by the next at once.
 */
export async function catchUpHere(store: Store, pace?: (batchMs: number) => Promise<void>): Promise<number> {
  for (;;) {
    const other = running.get(store);
    if (other === undefined) break;
    await other.catch(() => undefined);
  }
  const p = catchUp(store, pace);
  running.set(store, p);
  try {
    return await p;
  } finally {
    running.delete(store);
  }
}

async function catchUp(store: Store, pace: ((batchMs: number) => Promise<void>) | undefined): Promise<number> {
  const unreadable = unreadableRows(store);
  let applied = 0;
  // the docs this catch-up wrote: for the table's statistics (refreshDocStatistics)
  const written = { docs: 0 };
  // the last batch: when it began, and whether it reached the end of the log
  let began = 0;
  let atEnd = false;
  while (!(await searchIndexCurrent(store))) {
    if (pace !== undefined && atEnd) await pace(performance.now() - began);
    began = performance.now();
    const pos = await indexPosition(store.db);
    if (pos === null) {
      await store.db.transaction().execute(async (tx) => {
        if ((await lockIndex(tx, clock.now())) !== null) return;
        // every event up to here is in the data read below; later ones may be applied again
        const upto = await maxEventPos(tx);
        await rebuild(new DocWriter(tx, store.dialect, written), tx, unreadable);
        await setIndexPosition(tx, upto);
        applied = -1;
      });
      atEnd = false;
      continue;
    }
    const events = await logAfter(store.db, pos, EVENT_BATCH);
    if (events.length === 0) break;
    atEnd = events.length < EVENT_BATCH;
    const p = plan(events);
    // the rows of large sheets indexed whole first, in steps of their own transaction
    const rowsDone = new Set<number>();
    for (const sheetId of p.whole) if (await indexRowsInSteps(store, sheetId, pos, unreadable, written)) rowsDone.add(sheetId);
    // The docs are read and built before the transaction that writes them, so the write lock is
    // held for the writes alone. What they read is at least as new as the events (read first);
    // a change since has an event after these, which the next batch applies (a doc is always
    // written afresh from the data: writing one again changes nothing).
    const docs = new DeferredDocs();
    await apply(docs, store.db, p, rowsDone, unreadable);
    const n = await store.db.transaction().execute(async (tx) => {
      // another indexer (a search in another process) moved the position since: read again
      if ((await lockIndex(tx, clock.now())) !== pos) return 0;
      await docs.writeTo(new DocWriter(tx, store.dialect, written));
      await setIndexPosition(tx, Number(events[events.length - 1]!.pos));
      return events.length;
    });
    if (applied >= 0) applied += n;
  }
  if (applied !== 0) await refreshDocStatistics(store.db, store.dialect, written.docs);
  return applied;
}

/** Marks the index to be built again from the data at the next catch-up. */
export async function requestSearchRebuild(store: Store): Promise<void> {
  await store.db.transaction().execute(async (tx) => {
    await lockIndex(tx, clock.now());
    await setIndexPosition(tx, null);
  });
}
