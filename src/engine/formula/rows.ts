/** The rows of a sheet as formulas see them: display order and the parent of each row. */
import type { RowId } from './ast.ts';

export interface RowInfo {
  readonly id: RowId;
  /** The parent row (hierarchy), or null / undefined for a top-level row. */
  readonly parentId?: RowId | null;
}

export class RowModel {
  private order: RowId[] = [];
  private readonly index = new Map<RowId, number>();
  private readonly parents = new Map<RowId, RowId | null>();
  private childCache: Map<RowId, RowId[]> | null = null;
  private changes = 0;

  constructor(rows: readonly RowInfo[] = []) {
    this.insert(rows, null);
  }

  get ids(): readonly RowId[] {
    return this.order;
  }

  /** Counts changes to the order or hierarchy: caches keyed on row positions compare it. */
  get version(): number {
    return this.changes;
  }

  get size(): number {
    return this.order.length;
  }

  has(id: RowId): boolean {
    return this.index.has(id);
  }

  indexOf(id: RowId): number | undefined {
    return this.index.get(id);
  }

  parentOf(id: RowId): RowId | null {
    return this.parents.get(id) ?? null;
  }

  children(id: RowId): readonly RowId[] {
    if (this.childCache === null) {
      const cache = new Map<RowId, RowId[]>();
      for (const r of this.order) {
        const p = this.parents.get(r);
        if (p === null || p === undefined) continue;
        let list = cache.get(p);
        if (!list) cache.set(p, (list = []));
        list.push(r);
      }
      this.childCache = cache;
    }
    return this.childCache.get(id) ?? [];
  }

  /** Inserts rows (in the given order) before `beforeId`, or at the end when it is null/unknown. */
  insert(rows: readonly RowInfo[], beforeId: RowId | null | undefined): void {
    if (rows.length === 0) return;
    for (const r of rows) {
      if (this.index.has(r.id)) throw new Error(`row ${r.id} already exists`);
      this.parents.set(r.id, r.parentId ?? null);
    }
    const at = beforeId === null || beforeId === undefined ? undefined : this.index.get(beforeId);
    const ids = rows.map((r) => r.id);
    if (at === undefined) {
      this.order.push(...ids);
      this.reindex(this.order.length - ids.length);
    } else {
      this.order.splice(at, 0, ...ids);
      this.reindex(at);
    }
    this.childCache = null;
  }

  /** Removes rows; returns those that existed. */
  remove(ids: Iterable<RowId>): Set<RowId> {
    const gone = new Set<RowId>();
    for (const id of ids) if (this.index.has(id)) gone.add(id);
    if (gone.size === 0) return gone;
    this.order = this.order.filter((r) => !gone.has(r));
    for (const id of gone) {
      this.index.delete(id);
      this.parents.delete(id);
    }
    this.reindex(0);
    this.childCache = null;
    return gone;
  }

  /** Moves existing rows (with their possibly new parents) as a block before `beforeId` (end if null). */
  move(rows: readonly RowInfo[], beforeId: RowId | null | undefined): void {
    const moving = rows.filter((r) => this.index.has(r.id));
    this.remove(moving.map((r) => r.id));
    this.insert(moving, beforeId !== undefined && beforeId !== null && this.index.has(beforeId) ? beforeId : null);
  }

  private reindex(from: number): void {
    this.changes++;
    for (let i = from; i < this.order.length; i++) this.index.set(this.order[i] as RowId, i);
  }
}
