import type { Queryable } from '../../store/db.ts';
import { listCellHistory } from '../../store/cellHistory.ts';
import { findUsersByIds } from '../../store/users.ts';
import type { StoredCell } from '../../engine/cells.ts';
import { apiError } from '../../errors.ts';
import type { Actor } from '../platform/context.ts';
import { readSheet } from '../computed/currentValues.ts';

export interface CellHistoryEntry {
  cell: StoredCell | undefined;
  at: number;
  by: number | null;
  /** the address of an author without an account */
  email?: string;
}

/**
 * Cell history, newest first: the cell as it is now (when it was ever written), then each
 * earlier state kept when it was overwritten; with the users who wrote them.
 */
export async function readCellHistory(db: Queryable, actor: Actor, sheetId: number, rowId: number, columnId: number) {
  const { model } = await readSheet(db, actor, sheetId);
  const row = model.rows.get(rowId);
  const column = model.columnsById.get(columnId);
  if (!row || !column) throw apiError(1006);
  const past = await listCellHistory(db, sheetId, rowId, columnId);
  const entries: CellHistoryEntry[] = [];
  const meta = row.meta[String(columnId)];
  if (meta) entries.push({ cell: row.cells[String(columnId)], at: meta[0], by: meta[1], ...(meta[2] !== undefined ? { email: meta[2] } : {}) });
  for (const h of past) entries.push({ cell: h.cell, at: h.at, by: h.by, ...(h.email ? { email: h.email } : {}) });
  const users = await findUsersByIds(db, [...new Set(entries.map((e) => e.by).filter((b): b is number => b !== null))]);
  return { model, column, entries, users };
}
