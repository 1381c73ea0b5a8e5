import type { Insertable } from 'kysely';
import { insertMany, PG_STATEMENT_BYTES, type Queryable } from './db.ts';
import type { CellHistoryTable } from './schema.ts';

/** Earlier states of one cell, newest first (each kept when the cell was overwritten). */
export async function listCellHistory(db: Queryable, sheetId: number, rowId: number, columnId: number) {
  return db
    .selectFrom('cell_history')
    .selectAll()
    .where('sheet_id', '=', sheetId)
    .where('row_id', '=', rowId)
    .where('column_id', '=', columnId)
    .orderBy('seq', 'desc')
    .execute();
}

/** Keeps earlier states of cells that a write overwrote. */
export async function insertCellHistory(db: Queryable, records: ReadonlyArray<Insertable<CellHistoryTable>>): Promise<void> {
  await insertMany(db, 'cell_history', records, undefined, { pgStatementBytes: PG_STATEMENT_BYTES });
}
