import { sql, type Kysely } from 'kysely';
import type { Dialect } from './types.ts';

/**
 * The search index holds one doc per row instead of one per cell (services/log/searchIndex.ts
 * rowDocs): its position is cleared, so the first catch-up after this step (at start) builds
 * the index again from the data, as after 0022.
 */
export async function up(db: Kysely<unknown>, _d: Dialect): Promise<void> {
  await sql`update search_index_state set pos = null`.execute(db);
}
