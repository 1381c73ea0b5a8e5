import { sql, type Kysely, type RawBuilder } from 'kysely';
import { fts5Term, tsqueryTerm, tsvectorText, type SearchTerm } from '../engine/search.ts';
import { chunks, insertMany, type Dialect, type Queryable } from './db.ts';
import type { DB } from './schema.ts';
import { expandEvents } from './events.ts';

/**
 * The full-text index (migration 0022): search_docs and, on SQLite, its FTS5 table search_fts
 * (rowid = doc id); on PostgreSQL the docs' tsvector column. Only the indexer writes here
 * (services/log/searchIndex.ts), in transactions that hold the state row first, so doc ids can
 * be taken as max + 1. Lists of ids go in chunks of IDS_PER_STATEMENT (bound parameters).
 */

/** A doc to index: the words are the text's as engine/search.ts cuts them. */
export interface NewDoc {
  objectType: string;
  objectId: number;
  partId: number;
  sheetId: number | null;
  text: string;
  words: string[];
  modifiedAt: number;
}

// --- the state row -------------------------------------------------------------------------

/**
 * Takes the index for this transaction (its first statement is a write: the state row stays
 * locked on PostgreSQL, and SQLite's write lock is taken at once) and returns the change-log
 * position it has caught up with (null: to be built from the data).
 */
export async function lockIndex(tx: Queryable, now: number): Promise<number | null> {
  await tx.updateTable('search_index_state').set({ updated_at: now }).where('id', '=', 1).execute();
  const r = await tx.selectFrom('search_index_state').select('pos').where('id', '=', 1).executeTakeFirstOrThrow();
  return r.pos === null ? null : Number(r.pos);
}

export async function indexPosition(db: Queryable): Promise<number | null> {
  const r = await db.selectFrom('search_index_state').select('pos').where('id', '=', 1).executeTakeFirst();
  return r?.pos === null || r?.pos === undefined ? null : Number(r.pos);
}

export async function setIndexPosition(tx: Queryable, pos: number | null): Promise<void> {
  await tx.updateTable('search_index_state').set({ pos }).where('id', '=', 1).execute();
}

/** The change log's events after `pos`, as the index reads them (runs expanded: store/events.ts). */
export async function logAfter(db: Queryable, pos: number, limit: number) {
  const records = await db.selectFrom('events').select(['pos', 'n', 'batch', 'object_type', 'action', 'object_id', 'sheet_id']).where('pos', '>', pos).orderBy('pos').limit(limit).execute();
  return expandEvents(records, pos, limit);
}

const sheetCond = (sheetId: number | null) => (sheetId === null ? sql`sheet_id is null` : sql`sheet_id = ${sheetId}`);

// --- writing docs ---------------------------------------------------------------------------

/**
 * What a catch-up does to the docs (DocWriter does it; DeferredDocs keeps it for one). A build
 * from the data (removeAll, built) writes through a DocWriter directly.
 */
export interface DocSink {
  insert(docs: readonly NewDoc[]): Promise<void>;
  removeObjects(objectType: string, sheetId: number | null, ids: readonly number[]): Promise<void>;
  removeOfSheet(sheetId: number, objectTypes?: readonly string[]): Promise<void>;
  removeOrphans(): Promise<void>;
}

/**
 * The indexer's writes kept in order, to be done later by a DocWriter in the transaction that
 * moves the index's position (`writeTo`): the reads and the building of the docs happen before
 * it, so the write lock (SQLite's is the database's) is held only for the writes.
 */
export class DeferredDocs implements DocSink {
  private readonly steps: Array<(w: DocWriter) => Promise<void>> = [];

  insert(docs: readonly NewDoc[]): Promise<void> {
    if (docs.length > 0) this.steps.push((w) => w.insert(docs));
    return Promise.resolve();
  }

  removeObjects(objectType: string, sheetId: number | null, ids: readonly number[]): Promise<void> {
    if (ids.length > 0) this.steps.push((w) => w.removeObjects(objectType, sheetId, ids));
    return Promise.resolve();
  }

  removeOfSheet(sheetId: number, objectTypes?: readonly string[]): Promise<void> {
    this.steps.push((w) => w.removeOfSheet(sheetId, objectTypes));
    return Promise.resolve();
  }

  removeOrphans(): Promise<void> {
    this.steps.push((w) => w.removeOrphans());
    return Promise.resolve();
  }

  async writeTo(w: DocWriter): Promise<void> {
    for (const step of this.steps) await step(w);
  }
}

/** Writes docs in one transaction: ids follow the largest one (the index is held: lockIndex). */
export class DocWriter implements DocSink {
  private next: number | undefined;
  /** `written`, when given, counts the docs inserted since the table's statistics were last gathered here. */
  constructor(private readonly tx: Queryable, private readonly dialect: Dialect, private readonly written?: { docs: number }) {}

  async insert(docs: readonly NewDoc[]): Promise<void> {
    if (docs.length === 0) return;
    if (this.written !== undefined) this.written.docs += docs.length;
    if (this.next === undefined) {
      const r = await this.tx.selectFrom('search_docs').select((eb) => eb.fn.max('id').as('m')).executeTakeFirst();
      this.next = Number(r?.m ?? 0) + 1;
    }
    const first = this.next;
    this.next += docs.length;
    const pg = this.dialect === 'postgres';
    await insertMany(this.tx, 'search_docs', docs.map((d, i) => ({
      id: first + i, object_type: d.objectType, object_id: d.objectId, part_id: d.partId, sheet_id: d.sheetId, text: d.text, modified_at: d.modifiedAt,
      ...(pg ? { tsv: tsvectorText(d.words) } : {}),
    })));
    if (!pg) await insertMany(this.tx, 'search_fts', docs.map((d, i) => ({ rowid: first + i, words: d.words.join(' ') })));
  }

  /** Removes the docs `where` selects (a condition on search_docs), from the full-text index too. */
  async remove(where: RawBuilder<unknown>): Promise<void> {
    if (this.dialect === 'sqlite') await sql`delete from search_fts where rowid in (select id from search_docs where ${where})`.execute(this.tx);
    await sql`delete from search_docs where ${where}`.execute(this.tx);
  }

  /** Docs of these objects of a sheet (sheetId null: objects outside sheets). */
  async removeObjects(objectType: string, sheetId: number | null, ids: readonly number[]): Promise<void> {
    for (const part of chunks(ids)) {
      if (this.dialect !== 'sqlite') {
        // PostgreSQL: one probe of search_docs_object per object, on all three of its columns.
        // Asked as `object_id in (...)`, the planner chose by its statistics, and statistics taken
        // while a sheet had few docs (a sheet just imported, indexed in steps; any table before
        // autovacuum's next analyze) made it read every doc of the sheet and filter: 60 ms a
        // statement at 100,000 rows, every step of the import's catch-up paying it again. The
        // subquery under `offset 0` is not flattened, so nothing can turn the probes into a scan.
        await sql`delete from search_docs where id in (select x.id from unnest(cast(${part} as bigint[])) as u(oid) cross join lateral (select id from search_docs where ${sheetCond(sheetId)} and object_type = ${objectType} and object_id = u.oid offset 0) x)`.execute(this.tx);
        continue;
      }
      const where = sql`${sheetCond(sheetId)} and object_type = ${objectType} and object_id in (${sql.join(part)})`;
      // SQLite: the docs' ids first, then both tables by id. Rows just added have no docs (the
      // catch-up after an add): one lookup of the objects, where the deletes made two.
      const docIds = (await sql<{ id: number }>`select id from search_docs where ${where}`.execute(this.tx)).rows.map((r) => r.id);
      if (docIds.length === 0) continue;
      for (const d of chunks(docIds)) {
        await sql`delete from search_fts where rowid in (${sql.join(d)})`.execute(this.tx);
        await sql`delete from search_docs where id in (${sql.join(d)})`.execute(this.tx);
      }
    }
  }

  async removeOfSheet(sheetId: number, objectTypes?: readonly string[]): Promise<void> {
    await this.remove(objectTypes === undefined ? sql`sheet_id = ${sheetId}` : sql`sheet_id = ${sheetId} and object_type in (${sql.join(objectTypes)})`);
  }

  /**
   * Empties the index before it is built from the data. PostgreSQL: the GIN index is dropped
   * here and made again by `built` (one sorted build instead of a million updates).
   */
  async removeAll(): Promise<void> {
    if (this.dialect === 'sqlite') await sql`insert into search_fts(search_fts) values ('delete-all')`.execute(this.tx);
    else await sql`drop index if exists search_docs_tsv`.execute(this.tx);
    await sql`delete from search_docs`.execute(this.tx);
  }

  /** After a build from the data: PostgreSQL makes its GIN index again and gathers statistics for the planner. */
  async built(): Promise<void> {
    if (this.dialect !== 'postgres') return;
    // as migration 0031 left it: new docs' words go through a pending list of 64 kB, merged by the insert that fills it
    await sql`create index if not exists search_docs_tsv on search_docs using gin (tsv) with (fastupdate = on, gin_pending_list_limit = 64)`.execute(this.tx);
    await sql`analyze search_docs`.execute(this.tx);
    if (this.written !== undefined) this.written.docs = 0;
  }

  /** Docs of sheets that are gone (deleted with their folder or workspace). */
  async removeOrphans(): Promise<void> {
    const ids = (await this.tx.selectFrom('search_docs').select('sheet_id').distinct().where('sheet_id', 'is not', null).execute()).map((r) => Number(r.sheet_id));
    const gone: number[] = [];
    for (const part of chunks(ids)) {
      const live = new Set((await this.tx.selectFrom('sheets').select('id').where('id', 'in', part).execute()).map((r) => Number(r.id)));
      for (const id of part) if (!live.has(id)) gone.push(id);
    }
    for (const part of chunks(gone)) await this.remove(sql`sheet_id in (${sql.join(part)})`);
  }
}

// --- what the indexer reads -----------------------------------------------------------------

export async function allSheetIds(db: Queryable): Promise<number[]> {
  return (await db.selectFrom('sheets').select('id').orderBy('id').execute()).map((r) => Number(r.id));
}

export async function sheetNames(db: Queryable, ids: readonly number[]) {
  const out: Array<{ id: number; name: string; modified_at: number }> = [];
  for (const part of chunks(ids)) out.push(...(await db.selectFrom('sheets').select(['id', 'name', 'modified_at']).where('id', 'in', part).execute()));
  return out;
}

/**
 * Rows of a sheet by id. The rows are looked up by id alone (row ids are unique across sheets;
 * one of another sheet is dropped here): with `sheet_id = ? and id in (…)` SQLite (which keeps no statistics unless ANALYZE ran)
 * chose the (sheet_id, sort_key) index and read every row of the sheet, 40 ms at 25,000 rows
 * for each batch the indexer applied.
 */
export async function rowsByIds(db: Queryable, sheetId: number, ids: readonly number[]) {
  const out: Array<{ id: number; cells: string; modified_at: number }> = [];
  for (const part of chunks(ids)) {
    for (const r of await db.selectFrom('rows').select(['id', 'sheet_id', 'cells', 'modified_at']).where('id', 'in', part).execute()) {
      if (Number(r.sheet_id) === sheetId) out.push({ id: r.id, cells: r.cells, modified_at: r.modified_at });
    }
  }
  return out;
}

export async function threadTexts(db: Queryable, sheetId: number) {
  const discussions = await db.selectFrom('discussions').select(['id', 'title', 'created_at']).where('sheet_id', '=', sheetId).execute();
  const comments = await db.selectFrom('comments').select(['id', 'discussion_id', 'text', 'modified_at']).where('sheet_id', '=', sheetId).execute();
  const attachments = await db.selectFrom('attachments').select(['id', 'name', 'created_at']).where('sheet_id', '=', sheetId).where('current', '=', 1).execute();
  return { discussions, comments, attachments };
}

/** Names of folders, workspaces or reports (`table`), all or those of `ids`. */
export async function containerNames(db: Queryable, table: 'folders' | 'workspaces' | 'reports' | 'sights', ids?: readonly number[]) {
  const q = () => db.selectFrom(table).select(['id', 'name', 'modified_at']);
  if (ids === undefined) return q().execute();
  const out: Array<{ id: number; name: string; modified_at: number }> = [];
  for (const part of chunks(ids)) out.push(...(await q().where('id', 'in', part).execute()));
  return out;
}

/**
 * PostgreSQL: analyzes search_docs when the docs written since its last analyze are more than
 * 1,000 and a tenth of the docs it then counted (autovacuum's rule, with a larger floor), and
 * says whether it did. The docs written are what the database's statistics say, or `written`
 * (the docs the caller just wrote) if more: the database learns of a connection's writes up to
 * seconds after its commit. The planner reads the index through what the last analyze saw:
 * statistics taken while the table was small (a new database, or before an import) made it
 * read every doc of the searched sheets and test each (a search for a word no doc holds: 38 ms
 * at 200,000 docs, 14 ms analyzed), and autovacuum may be a minute away, or off. The indexer
 * calls this after a catch-up that wrote docs (an analyze of 100,000 docs: about 0.2 s, on the
 * index's thread); SQLite's full-text match needs no statistics.
 */
export async function refreshDocStatistics(db: Queryable, dialect: Dialect, written: number): Promise<boolean> {
  if (dialect !== 'postgres') return false;
  const r = await sql<{ changed: string | number; counted: number }>`select s.n_mod_since_analyze as changed, greatest(c.reltuples, 0) as counted from pg_stat_user_tables s join pg_class c on c.oid = s.relid where s.relid = cast('search_docs' as regclass)`.execute(db);
  const row = r.rows[0];
  if (row === undefined || Math.max(Number(row.changed), written) <= 1000 + 0.1 * Number(row.counted)) return false;
  await sql`analyze search_docs`.execute(db);
  return true;
}

// --- searching ------------------------------------------------------------------------------

export interface MatchQuery {
  terms: readonly SearchTerm[];
  objectTypes: readonly string[];
  /** Only docs of these sheets (at most IDS_PER_STATEMENT of them: the caller cuts longer lists with chunks). */
  sheetIds?: readonly number[];
  modifiedSince?: number;
}

/**
 * Object types of which one object may have several docs (a discussion: its title and each
 * comment). Every other object has one doc (a row's holds all its cells: rowDocs).
 */
const MULTI_DOC_TYPES: ReadonlySet<string> = new Set(['discussion']);

/**
 * The objects (type, id, sheet) that satisfy every term. An object of one doc matches when its
 * doc holds every term: one full-text match of them all, which the index answers from its
 * rarest word (`item 4242` in 200,000 rows reads the 40 docs with 4242, not the 200,000 with
 * item). An object of several docs matches when each term is in one of them: the objects with a
 * doc that matches the term, intersected, so a discussion's words may lie in different comments.
 * A phrase lies within one doc, and within one cell of a row (CELL_BREAK).
 */
function matching(dialect: Dialect, q: MatchQuery): RawBuilder<unknown> {
  const select = (terms: readonly SearchTerm[], objectTypes: readonly string[], distinct: boolean) => {
    // SQLite: the full-text match drives (cross join keeps that order) and finds docs by rowid
    const from = dialect === 'postgres' ? sql`search_docs d` : sql`search_fts f cross join search_docs d on d.id = f.rowid`;
    const match = dialect === 'postgres'
      ? sql`d.tsv @@ cast(${terms.map((t) => `(${tsqueryTerm(t)})`).join(' & ')} as tsquery)`
      : sql`search_fts match ${terms.map(fts5Term).join(' AND ')}`;
    // SQLite: unary + keeps these off the (sheet, kind) index: they filter the match's docs
    const col = (name: string) => (dialect === 'sqlite' ? sql`+d.${sql.ref(name)}` : sql`d.${sql.ref(name)}`);
    const conds = [match, sql`${col('object_type')} in (${sql.join(objectTypes)})`];
    if (q.sheetIds !== undefined) conds.push(sql`${col('sheet_id')} in (${sql.join(q.sheetIds)})`);
    if (q.modifiedSince !== undefined) conds.push(sql`d.modified_at >= ${q.modifiedSince}`);
    return sql`select ${distinct ? sql`distinct ` : sql``}d.object_type, d.object_id, d.sheet_id from ${from} where ${sql.join(conds, sql` and `)}`;
  };
  const single = q.objectTypes.filter((t) => !MULTI_DOC_TYPES.has(t));
  const multi = q.objectTypes.filter((t) => MULTI_DOC_TYPES.has(t));
  const parts: Array<RawBuilder<unknown>> = [];
  if (single.length > 0) parts.push(select(q.terms, single, false));
  if (multi.length > 0) {
    const each = sql.join(q.terms.map((t) => select([t], multi, true)), sql` intersect `);
    // in a subquery: SQLite gives union and intersect the same precedence, left to right
    parts.push(parts.length === 0 ? each : sql`select * from (${each}) m`);
  }
  return sql.join(parts, sql` union all `);
}

/**
 * Runs a search's matching reads. On PostgreSQL they run in a read transaction that plans no
 * parallel workers: the planner guesses thousands of matches for any word it has no figure of
 * (a prefix, 4,000 of 200,000 docs), so listing a sheet's rows that hold "4242" (20 of them)
 * started two workers: 46 to 54 ms, against 1.7 to 1.9 ms without them, and the rows of a word
 * in a third of 200,000 rows took 350 to 410 ms without against 380 to 720 ms with. Loading a
 * large sheet is left its workers (its 100,000 rows: 1.2 s, 1.55 s without).
 */
export async function matchingReads<T>(db: Kysely<DB>, dialect: Dialect, read: (q: Queryable) => Promise<T>): Promise<T> {
  if (dialect !== 'postgres') return read(db);
  return db.transaction().execute(async (tx) => {
    await sql`set local max_parallel_workers_per_gather = 0`.execute(tx);
    return read(tx);
  });
}

/** How many objects of each type match (one pass over the matching docs). */
export async function countMatches(db: Queryable, dialect: Dialect, q: MatchQuery): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (q.terms.length === 0 || q.objectTypes.length === 0 || q.sheetIds?.length === 0) return out;
  const r = await sql<{ t: string; n: number | string }>`select k.object_type as t, count(*) as n from (${matching(dialect, q)}) k group by k.object_type`.execute(db);
  for (const row of r.rows) out.set(row.t, Number(row.n));
  return out;
}

export interface Match {
  object_type: string;
  object_id: number;
  sheet_id: number | null;
}

/**
 * The first `limit` matching objects: rows in their sheet's order (the sheets in the order of
 * q.sheetIds), the rest by sheet and id.
 */
export async function listMatches(db: Queryable, dialect: Dialect, q: MatchQuery, limit: number): Promise<Match[]> {
  if (limit <= 0 || q.terms.length === 0 || q.objectTypes.length === 0 || q.sheetIds?.length === 0) return [];
  const rows = q.objectTypes.length === 1 && q.objectTypes[0] === 'row';
  const r = rows
    ? await sql<Match>`select k.object_type, k.object_id, k.sheet_id from (${matching(dialect, q)}) k join rows r on r.id = k.object_id order by k.sheet_id, r.sort_key limit ${limit}`.execute(db)
    : await sql<Match>`select k.object_type, k.object_id, k.sheet_id from (${matching(dialect, q)}) k order by k.sheet_id, k.object_type, k.object_id limit ${limit}`.execute(db);
  return r.rows.map((m) => ({ object_type: m.object_type, object_id: Number(m.object_id), sheet_id: m.sheet_id === null ? null : Number(m.sheet_id) }));
}

/** Every doc of these objects of a sheet (null: outside sheets): what the service shows of a match. */
export async function docsOf(db: Queryable, objectType: string, sheetId: number | null, ids: readonly number[]) {
  const out: Array<{ object_id: number; part_id: number; text: string; modified_at: number }> = [];
  for (const part of chunks(ids)) {
    let q = db.selectFrom('search_docs').select(['object_id', 'part_id', 'text', 'modified_at']).where('object_type', '=', objectType).where('object_id', 'in', part);
    q = sheetId === null ? q.where('sheet_id', 'is', null) : q.where('sheet_id', '=', sheetId);
    out.push(...(await q.orderBy('id').execute()));
  }
  return out.map((d) => ({ ...d, object_id: Number(d.object_id), part_id: Number(d.part_id), modified_at: Number(d.modified_at) }));
}

/** Where discussions hang: the sheet or a row. */
export async function discussionParents(db: Queryable, ids: readonly number[]) {
  const out = new Map<number, { parent_type: string; parent_id: number }>();
  for (const part of chunks(ids)) {
    for (const d of await db.selectFrom('discussions').select(['id', 'parent_type', 'parent_id']).where('id', 'in', part).execute()) out.set(Number(d.id), { parent_type: d.parent_type, parent_id: Number(d.parent_id) });
  }
  return out;
}

/** Ids of the objects outside sheets of one kind that have docs. */
export async function indexedObjectIds(db: Queryable, objectType: string): Promise<number[]> {
  const rows = await db.selectFrom('search_docs').select('object_id').distinct().where('sheet_id', 'is', null).where('object_type', '=', objectType).execute();
  return rows.map((r) => Number(r.object_id));
}
