import { sql, type Kysely } from 'kysely';
import { types, type Dialect } from './types.ts';

/**
 * The full-text search index (store/searchIndex.ts, services/log/searchIndex.ts).
 *
 * search_docs: one indexed text each: a cell (object row, part its column), a sheet, report,
 * folder, workspace or dashboard name, a discussion's title or one of its comments (object the
 * discussion, part the comment), an attachment's name, a summary field. `text` is what a result
 * shows; the words are in the full-text index: on PostgreSQL the `tsv` column with a GIN index,
 * on SQLite the FTS5 table `search_fts`, whose rowid is the doc's id (contentless: it holds the
 * index only; `contentless_delete` lets a doc's words go with `delete ... where rowid = ?`).
 * The words are cut by sheetd (engine/search.ts) and given to both as they are: on SQLite the
 * tokenizer only splits on the spaces between them, on PostgreSQL the tsvector is written with
 * its positions, so no parser or dictionary of the database decides what matches.
 *
 * search_index_state: one row, the change-log position the index has caught up with. A null
 * position means "build the index from the data": this migration leaves it null, so the first
 * catch-up after it (at start) indexes what the database already holds.
 */
export async function up(db: Kysely<unknown>, d: Dialect): Promise<void> {
  const t = types(d);
  let docs = db.schema
    .createTable('search_docs')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('object_type', 'text', (c) => c.notNull())
    .addColumn('object_id', t.id, (c) => c.notNull())
    .addColumn('part_id', t.id, (c) => c.notNull())
    .addColumn('sheet_id', t.id)
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('modified_at', t.ms, (c) => c.notNull());
  if (d === 'postgres') docs = docs.addColumn('tsv', sql`tsvector`, (c) => c.notNull());
  await docs.execute();
  // one index for every lookup: a sheet's docs, its docs of a kind, an object's (sheet_id null outside sheets)
  await db.schema.createIndex('search_docs_object').on('search_docs').columns(['sheet_id', 'object_type', 'object_id']).execute();
  if (d === 'postgres') {
    await sql`create index search_docs_tsv on search_docs using gin (tsv)`.execute(db);
  } else {
    await sql`create virtual table search_fts using fts5(words, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 0')`.execute(db);
  }
  await db.schema
    .createTable('search_index_state')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('pos', t.id)
    .addColumn('updated_at', t.ms, (c) => c.notNull())
    .execute();
  await sql`insert into search_index_state (id, pos, updated_at) values (1, null, 0)`.execute(db);
}
