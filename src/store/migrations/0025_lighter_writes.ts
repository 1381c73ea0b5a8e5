import { sql, type Kysely } from 'kysely';
import type { Dialect } from './types.ts';

/**
 * Less work for each row a write adds (issue 32's add of 500 rows):
 *
 * - Two indexes of the change log no query needs: events_sheet (sheet_id, seq), as every read
 *   of a sheet's events goes by stream position (events_sheet_pos serves them), and
 *   events_unsequenced (seq where pos is null): the sequencer's `pos is null` is served by
 *   events_pos as well (a B-tree holds its nulls, on both stores). Each event was inserted into
 *   7 indexes, and again into all of them when the sequencer gave it its position (on
 *   PostgreSQL an update of an indexed column writes a new entry in every index).
 * - PostgreSQL: the foreign key of rows to sheets. It checked the sheet row by row (12 of the
 *   16 ms of inserting 500 rows); every write of rows holds its sheet's row lock (select ... for
 *   update) before it writes, so the sheet is there, and the deletion of a sheet deletes its
 *   rows itself (store/sheets.ts deleteSheetsById) instead of the cascade. SQLite keeps its
 *   foreign key (checked in process, and dropping it would mean rebuilding the table).
 */
export async function up(db: Kysely<unknown>, d: Dialect): Promise<void> {
  await sql`drop index if exists events_sheet`.execute(db);
  await sql`drop index if exists events_unsequenced`.execute(db);
  if (d === 'postgres') await sql`alter table rows drop constraint if exists rows_sheet_id_fkey`.execute(db);
}
