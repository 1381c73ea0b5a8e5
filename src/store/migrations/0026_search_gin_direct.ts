import { sql, type Kysely } from 'kysely';
import type { Dialect } from './types.ts';

/**
 * PostgreSQL: the search index's GIN index (search_docs_tsv) takes new docs' words into its tree
 * at once (fastupdate off) instead of a pending list that the insert which fills it past
 * gin_pending_list_limit (4 MB) merges into the tree. The search index's catch-up after an add
 * of 500 rows x 20 columns paid that merge one time in 20 to 25 (300 to 470 ms of the database's
 * CPU against 50 to 70 ms for the others); with direct updates each costs about the same and
 * none pays the merge (docs/speed.md). SQLite: nothing (FTS5).
 */
export async function up(db: Kysely<unknown>, d: Dialect): Promise<void> {
  if (d !== 'postgres') return;
  await sql`alter index if exists search_docs_tsv set (fastupdate = off)`.execute(db);
  // what an earlier insert left in the pending list goes into the tree now
  await sql`select gin_clean_pending_list('search_docs_tsv'::regclass) where to_regclass('search_docs_tsv') is not null`.execute(db);
}
