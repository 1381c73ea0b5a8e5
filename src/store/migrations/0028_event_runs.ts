import type { Kysely } from 'kysely';
import type { Dialect } from './types.ts';

/**
 * A record of the change log may hold a run of one write's events (store/events.ts): the events
 * of one write that share their kind (object type and action), sheet and workspace, such as the
 * 500 ROW CREATE events of an add of 500 rows, are kept as one record instead of one each.
 *
 * - `n`: how many events the record holds (1 for every record from before this step).
 * - `batch`: for a run (n > 1), the events' object ids and, where they differ, their details, as
 *   JSON; null for a single event.
 *
 * `pos` stays the record's last stream position, so a run takes the positions pos - n + 1 ..
 * pos and every position below one a reader has seen is still given before it. Readers expand
 * runs into their events. A sheetd from before this step would read a run as one event: it
 * refuses to start on the database instead (Kysely refuses steps it does not know).
 */
export async function up(db: Kysely<unknown>, _d: Dialect): Promise<void> {
  await db.schema.alterTable('events').addColumn('n', 'integer', (c) => c.notNull().defaultTo(1)).execute();
  await db.schema.alterTable('events').addColumn('batch', 'text').execute();
}
