import { sql, type Kysely } from 'kysely';
import type { Dialect } from './types.ts';

/**
 * Cell history kept one record per row a write changed instead of one per cell (issue 32's
 * update of 500 rows x 5 cells: 500 records and index entries instead of 2,500):
 *
 * - From this step on, a record of `cell_history` may be of the row form: `column_id` 0 (no
 *   column has that id) and `cell` the row's overwritten cells by column id (store/cellHistory.ts).
 *   Records from before stay per cell and are read as before, beside the new ones. A sheetd from
 *   before this step would find no history in such a record: it refuses to start on the database
 *   instead (Kysely refuses steps it does not know).
 * - PostgreSQL: the foreign key of cell history to sheets, checked record by record on every
 *   write, as for rows in 0025: every write of a sheet's cells holds its sheet's row lock, and
 *   the deletion of a sheet deletes its cell history itself (store/sheets.ts deleteSheetsById)
 *   instead of the cascade. SQLite keeps its foreign key (dropping it would mean rebuilding the
 *   table).
 */
export async function up(db: Kysely<unknown>, d: Dialect): Promise<void> {
  if (d === 'postgres') await sql`alter table cell_history drop constraint if exists cell_history_sheet_id_fkey`.execute(db);
}
