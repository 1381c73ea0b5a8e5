/**
 * Keeps ranges alive when rows at their ends are deleted: the end moves inward to the nearest
 * surviving row of the range (as the service shrinks `[A]1:[A]5` to rows 1-4 when row 5 goes).
 * A single-cell reference to a deleted row is left alone: it renders and evaluates as #REF.
 */
import { mapNodes, type Formula, type RowId, type RowRef } from './ast.ts';

export function shrinkRangesForDeletedRows(
  formula: Formula,
  deleted: ReadonlySet<RowId>,
  oldOrder: readonly RowId[],
  oldIndex: ReadonlyMap<RowId, number>,
): Formula | undefined {
  if (!formula.ok) return undefined;
  let changed = false;
  const isGone = (r: RowRef | null): boolean => r !== null && r.kind === 'id' && deleted.has(r.rowId);
  const survivorFrom = (from: number, step: 1 | -1, stop: number): RowId | undefined => {
    for (let i = from; step > 0 ? i <= stop : i >= stop; i += step) {
      const id = oldOrder[i] as RowId;
      if (!deleted.has(id)) return id;
    }
    return undefined;
  };
  const root = mapNodes(formula.root, (n) => {
    if (n.type !== 'range' || (!isGone(n.r1) && !isGone(n.r2))) return undefined;
    const r1 = n.r1 as RowRef;
    const r2 = n.r2 as RowRef;
    const pos = (r: RowRef): number | undefined => (r.kind === 'id' ? oldIndex.get(r.rowId) : undefined);
    const p1 = pos(r1);
    const p2 = pos(r2);
    let n1: RowRef = r1;
    let n2: RowRef = r2;
    if (p1 !== undefined && p2 !== undefined) {
      const lo = Math.min(p1, p2);
      const hi = Math.max(p1, p2);
      const first = survivorFrom(lo, 1, hi);
      const last = survivorFrom(hi, -1, lo);
      if (first === undefined || last === undefined) return undefined; // the whole range went: #REF
      const abs1 = r1.kind === 'id' && r1.abs;
      const abs2 = r2.kind === 'id' && r2.abs;
      n1 = { kind: 'id', rowId: p1 <= p2 ? first : last, abs: abs1 };
      n2 = { kind: 'id', rowId: p1 <= p2 ? last : first, abs: abs2 };
    } else {
      // one end is @row (or a row number): move the deleted end to the next surviving row
      const fix = (r: RowRef, p: number | undefined): RowRef => {
        if (p === undefined || !isGone(r)) return r;
        const id = survivorFrom(p, 1, oldOrder.length - 1) ?? survivorFrom(p, -1, 0);
        return id === undefined ? r : { kind: 'id', rowId: id, abs: r.kind === 'id' && r.abs };
      };
      n1 = fix(r1, p1);
      n2 = fix(r2, p2);
    }
    changed = true;
    return { ...n, r1: n1, r2: n2 };
  });
  return changed ? { ok: true, text: formula.text, root } : undefined;
}
