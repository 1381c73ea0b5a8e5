/**
 * Hierarchy functions over the row tree: CHILDREN (direct children), PARENT, ANCESTORS (top
 * level first). Without an argument they work on the cell holding the formula. They do not
 * accept cross-sheet references.
 */
import type { FnDef } from '../calls.ts';
import { err, isError, range, type Scalar } from '../values.ts';

export const HIERARCHY: Record<string, FnDef> = {
  CHILDREN: {
    min: 0,
    max: 1,
    noCrossSheet: true,
    impl: (c) => {
      const at = c.cellRef(0);
      if (isError(at)) return at;
      const cells: Scalar[] = c.ctx.children(at.rowId).map((r) => blocked(c.ctx.cell(r, at.colId)));
      return range(1, cells.length, cells);
    },
  },
  PARENT: {
    min: 0,
    max: 1,
    noCrossSheet: true,
    impl: (c) => {
      const at = c.cellRef(0);
      if (isError(at)) return at;
      const p = c.ctx.parent(at.rowId);
      return p === null ? null : blocked(c.ctx.cell(p, at.colId));
    },
  },
  ANCESTORS: {
    min: 0,
    max: 1,
    noCrossSheet: true,
    impl: (c) => {
      const at = c.cellRef(0);
      if (isError(at)) return at;
      const chain: Scalar[] = [];
      for (let p = c.ctx.parent(at.rowId); p !== null; p = c.ctx.parent(p)) chain.push(blocked(c.ctx.cell(p, at.colId)));
      chain.reverse();
      return range(1, chain.length, chain);
    },
  },
};

function blocked(v: Scalar): Scalar {
  return isError(v) ? err('#BLOCKED') : v;
}
