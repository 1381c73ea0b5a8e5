import type { SheetModel } from './model.ts';
import type { Cell, Row } from './types.ts';

type Key = string;
const keyOf = (rowId: number, columnId: number): Key => `${rowId}:${columnId}`;

/** A cell of the page's own write: its row and column. */
export interface CellRef {
  rowId: number;
  columnId: number;
}

/**
 * Which of the server's row values the model takes when the page's own writes and the change
 * stream cross. Both carry the sheet's version: a write's answer the version its commit made,
 * a stream event the version the sheet had when the event was sent (its rows are as they were
 * then). A larger version is newer, so:
 *
 *  - a row's values older than what the model already holds of that row are left out (the
 *    stream's event of an earlier write that arrives after the answer of a later one: no flicker
 *    back to the earlier value);
 *  - a cell the page is writing keeps the page's value until the write is answered; the stream's
 *    newest value of it meanwhile is kept aside and wins over the answer when it is newer (two
 *    people writing one cell: both grids end with the value the server kept), or is what the
 *    cell shows when the server refuses the write (else the value from before the edit).
 *
 * Every grid ends with the server's values: the last event naming a row is sent after the last
 * change of it and carries it.
 */
export class RowSync {
  private readonly pending = new Map<Key, number>();
  private readonly cellVersion = new Map<Key, number>();
  private readonly rowVersion = new Map<number, number>();
  private readonly aside = new Map<Key, { version: number; cell: Cell }>();

  constructor(private readonly model: SheetModel) {}

  /** What the model holds of a row is at least this new (the sheet as read, or a later event or answer). */
  private floor(rowId: number): number {
    return Math.max(this.model.sheet.version ?? -1, this.rowVersion.get(rowId) ?? -1);
  }

  /** The page starts writing these cells. */
  begin(cells: readonly CellRef[]): void {
    for (const c of cells) {
      const k = keyOf(c.rowId, c.columnId);
      this.pending.set(k, (this.pending.get(k) ?? 0) + 1);
    }
  }

  private finish(cells: readonly CellRef[]): Set<Key> {
    const mine = new Set<Key>();
    for (const c of cells) {
      const k = keyOf(c.rowId, c.columnId);
      mine.add(k);
      const n = (this.pending.get(k) ?? 1) - 1;
      if (n <= 0) this.pending.delete(k);
      else this.pending.set(k, n);
    }
    return mine;
  }

  /**
   * The answer of a write (Update Rows, Add Rows, a move): its rows as the server wrote them at
   * `version` (undefined when the answer has none: taken as it is). `cells` are the cells the
   * write set (begun with begin()).
   */
  answered(cells: readonly CellRef[], rows: readonly Row[], version: number | undefined): void {
    const mine = this.finish(cells);
    const out: Row[] = [];
    for (const r of rows) {
      const newer = version === undefined || version >= this.floor(r.id);
      const kept: Cell[] = [];
      for (const c of r.cells ?? []) {
        const k = keyOf(r.id, c.columnId);
        // another write of the cell is on its way: its answer says
        if (this.pending.has(k)) continue;
        if (mine.has(k)) {
          const a = this.aside.get(k);
          this.aside.delete(k);
          if (a && (version === undefined || a.version >= version)) {
            kept.push(a.cell);
            this.cellVersion.set(k, a.version);
          } else {
            kept.push(c);
            if (version !== undefined) this.cellVersion.set(k, version);
          }
        } else if (newer && (version === undefined || (this.cellVersion.get(k) ?? -1) <= version)) {
          kept.push(c);
        }
      }
      if (newer) {
        out.push({ ...r, cells: kept });
        if (version !== undefined) this.rowVersion.set(r.id, version);
      } else if (kept.length > 0) {
        out.push({ id: r.id, cells: kept });
      }
    }
    if (out.length > 0) this.model.apply({ kind: 'rows', rows: out });
  }

  /** The server refused a write: its cells as the stream last told (if it did meanwhile), else as they were before. */
  refused(cells: readonly CellRef[], before: ReadonlyMap<Key, Cell | undefined>): void {
    const mine = this.finish(cells);
    const byRow = new Map<number, Cell[]>();
    for (const k of mine) {
      if (this.pending.has(k)) continue;
      const [rowId, columnId] = k.split(':').map(Number) as [number, number];
      const a = this.aside.get(k);
      this.aside.delete(k);
      const cell = a ? a.cell : (before.get(k) ?? { columnId });
      if (a) this.cellVersion.set(k, a.version);
      const list = byRow.get(rowId) ?? [];
      list.push(cell);
      byRow.set(rowId, list);
    }
    for (const [rowId, list] of byRow) this.model.apply({ kind: 'cells', rowId, cells: list });
  }

  /** Rows of a change event, as the sheet was at `version`. */
  streamed(rows: readonly Row[], version: number): void {
    const out: Row[] = [];
    for (const r of rows) {
      if (version < this.floor(r.id)) continue;
      const kept: Cell[] = [];
      for (const c of r.cells ?? []) {
        const k = keyOf(r.id, c.columnId);
        if (this.pending.has(k)) {
          const a = this.aside.get(k);
          if (!a || a.version <= version) this.aside.set(k, { version, cell: c });
        } else if ((this.cellVersion.get(k) ?? -1) <= version) {
          kept.push(c);
        }
      }
      this.rowVersion.set(r.id, version);
      out.push({ ...r, cells: kept });
    }
    if (out.length > 0) this.model.apply({ kind: 'rows', rows: out });
  }

  /** Rows deleted (by the page or anyone): gone for good (row ids are never reused). */
  deleted(ids: readonly number[]): void {
    this.model.apply({ kind: 'deleteRows', ids: [...ids] });
  }
}

export function cellKey(rowId: number, columnId: number): string {
  return keyOf(rowId, columnId);
}
