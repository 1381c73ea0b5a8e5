import type { Insertable } from 'kysely';
import { insertMany, PG_STATEMENT_BYTES, type Queryable } from './db.ts';
import type { CellHistoryTable } from './schema.ts';
import type { StoredCell } from '../engine/cells.ts';

/**
 * A record of cell history holds earlier states of the cells of one row, in one of two forms
 * (migration 0029). Per cell: `column_id` is the cell's column and `cell` its JSON state (`{}`
 * for blank), stamped by the record's modified_at, modified_by and modified_by_email; every
 * record from before 0029 is of this form, and a write that overwrote one cell of a row still
 * writes it. Per row: `column_id` is ROW_RECORD (no column has id 0: ids are at least 2^40,
 * ids.ts) and `cell` an object of the row's overwritten cells by column id, each `[cell]` when
 * its stamp is the record's, else `[cell, modifiedAt, modifiedBy]` or `[cell, modifiedAt, null,
 * email]`. An update of 500 rows x 5 cells writes 500 records instead of 2,500 (and as many
 * index entries).
 */
export const ROW_RECORD = 0;

/** An earlier state of a cell: `cell` undefined when it was blank; `by` null for an author without an account (`email`). */
export interface PastCell {
  cell: StoredCell | undefined;
  at: number;
  by: number | null;
  email: string | null;
}

/** Earlier states of one cell, newest first (each kept when the cell was overwritten). */
export async function listCellHistory(db: Queryable, sheetId: number, rowId: number, columnId: number): Promise<PastCell[]> {
  const records = await db
    .selectFrom('cell_history')
    .select(['column_id', 'cell', 'modified_at', 'modified_by', 'modified_by_email'])
    .where('sheet_id', '=', sheetId)
    .where('row_id', '=', rowId)
    .where('column_id', 'in', [columnId, ROW_RECORD])
    .orderBy('seq', 'desc')
    .execute();
  const out: PastCell[] = [];
  const key = String(columnId);
  for (const h of records) {
    if (h.column_id !== ROW_RECORD) {
      out.push({ cell: cellOf(JSON.parse(h.cell) as StoredCell), at: h.modified_at, by: h.modified_by, email: h.modified_by_email });
      continue;
    }
    const e = (JSON.parse(h.cell) as Record<string, RowEntry>)[key];
    if (e === undefined) continue;
    const own = e.length > 1;
    out.push({ cell: cellOf(e[0]), at: own ? e[1]! : h.modified_at, by: own ? e[2]! : h.modified_by, email: own ? e[3] ?? null : h.modified_by_email });
  }
  return out;
}

type RowEntry = [StoredCell, number?, (number | null)?, string?];

function cellOf(c: StoredCell): StoredCell | undefined {
  for (const _ in c) return c;
  return undefined;
}

/** An overwritten cell: its column, its state before (undefined: blank) and that state's stamp. */
export interface Overwritten {
  rowId: number;
  columnId: number;
  before: StoredCell | undefined;
  at: number;
  by: number | null;
  email: string | null;
}

/**
 * Keeps earlier states of cells that a write overwrote, in the order given (a cell named twice
 * keeps both states, the later one newer): one record per row, or per cell for a row with one.
 */
export async function insertCellHistory(db: Queryable, sheetId: number, cells: readonly Overwritten[]): Promise<void> {
  // a row's cells in order; a column named again starts a later record of the row
  const open = new Map<number, Overwritten[]>();
  const groups: Overwritten[][] = [];
  for (const c of cells) {
    let g = open.get(c.rowId);
    if (g !== undefined && g.some((o) => o.columnId === c.columnId)) g = undefined;
    if (g === undefined) {
      g = [];
      open.set(c.rowId, g);
      groups.push(g);
    }
    g.push(c);
  }
  await insertMany(db, 'cell_history', groups.map((g) => record(sheetId, g)), undefined, { pgStatementBytes: PG_STATEMENT_BYTES, hold: true });
}

function record(sheetId: number, g: readonly Overwritten[]): Insertable<CellHistoryTable> {
  const first = g[0]!;
  const stamp = { sheet_id: sheetId, row_id: first.rowId, modified_at: first.at, modified_by: first.by, modified_by_email: first.email };
  if (g.length === 1) return { ...stamp, column_id: first.columnId, cell: JSON.stringify(first.before ?? {}) };
  let s = '';
  for (const c of g) {
    const own = c.at !== first.at || c.by !== first.by || c.email !== first.email;
    const tail = !own ? '' : `,${c.at},${JSON.stringify(c.by)}${c.email !== null ? `,${JSON.stringify(c.email)}` : ''}`;
    s += `${s === '' ? '{' : ','}"${c.columnId}":[${JSON.stringify(c.before ?? {})}${tail}]`;
  }
  return { ...stamp, column_id: ROW_RECORD, cell: s + '}' };
}

