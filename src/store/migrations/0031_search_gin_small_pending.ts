import { sql, type Kysely } from 'kysely';
import type { Dialect } from './types.ts';

/**
 * PostgreSQL: the search index's GIN index (search_docs_tsv) takes new docs' words through a
 * pending list again, but one of 64 kB (the least PostgreSQL allows; this index's own
 * gin_pending_list_limit) instead of the server's 4 MB: an insert that takes the list past it
 * merges the list into the tree before it ends, sorted by word, so a catch-up's insert of
 * hundreds of docs merges its own words at once. That took half the time of putting each doc's
 * words into the tree one by one (fastupdate off, migration 0026): 14 against 27 ms for 500
 * docs, 100 against 190 ms for 4,000, on an index of 100,000; and no insert pays for a 4 MB list
 * that others filled (the spikes 0026 removed). A search reads at most 64 kB of list besides the
 * tree. SQLite: nothing (FTS5).
 */
export async function up(db: Kysely<unknown>, d: Dialect): Promise<void> {
  if (d !== 'postgres') return;
  await sql`alter index if exists search_docs_tsv set (fastupdate = on, gin_pending_list_limit = 64)`.execute(db);
}
