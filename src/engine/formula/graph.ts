/**
 * The dependency graph of one sheet's formula cells. Edges are stored reversed (who reads this
 * cell?) in three indexes: single cells, ranges per column (checked by row span), and
 * cross-sheet names. `order` runs Tarjan's algorithm over what is reachable from changed
 * cells, giving a topological order (precedents first) and the cells that sit on a cycle.
 */
import type { ColumnId, Formula, RowId } from './ast.ts';
import { NO_DEPS, type Deps, type RangeDep } from './deps.ts';
import type { RowModel } from './rows.ts';
import type { Scalar } from './values.ts';

export interface FormulaNode {
  readonly rowId: RowId;
  readonly colId: ColumnId;
  formula: Formula;
  /** Created by a column formula rather than written into the cell. */
  fromColumn: boolean;
  deps: Deps;
  value: Scalar;
  // Tarjan bookkeeping, valid while `mark` equals the graph's current pass
  mark: number;
  index: number;
  low: number;
  onStack: boolean;
}

interface RangeEntry {
  readonly node: FormulaNode;
  readonly dep: RangeDep;
}

export class DependencyGraph {
  /** Readers of single cells: one node, or several (most cells have one reader, so no Set each). */
  private readonly cellReaders = new Map<ColumnId, Map<RowId, FormulaNode | FormulaNode[]>>();
  private readonly rangeReaders = new Map<ColumnId, Set<RangeEntry>>();
  private readonly wholeColumnReaders = new Map<ColumnId, Set<FormulaNode>>();
  private readonly crossReaders = new Map<string, Set<FormulaNode>>();
  private readonly rangeEntries = new Map<FormulaNode, RangeEntry[]>();
  private pass = 0;

  constructor(private readonly rows: RowModel) {}

  register(node: FormulaNode, deps: Deps): void {
    this.unregister(node);
    node.deps = deps;
    for (const [c, r] of deps.cells) {
      let byRow = this.cellReaders.get(c);
      if (!byRow) this.cellReaders.set(c, (byRow = new Map()));
      const cur = byRow.get(r);
      if (cur === undefined) byRow.set(r, node);
      else if (Array.isArray(cur)) {
        if (!cur.includes(node)) cur.push(node);
      } else if (cur !== node) byRow.set(r, [cur, node]);
    }
    const entries: RangeEntry[] = [];
    for (const dep of deps.ranges) {
      if (dep.start === null || dep.end === null) {
        let set = this.wholeColumnReaders.get(dep.colId);
        if (!set) this.wholeColumnReaders.set(dep.colId, (set = new Set()));
        set.add(node);
      } else {
        let set = this.rangeReaders.get(dep.colId);
        if (!set) this.rangeReaders.set(dep.colId, (set = new Set()));
        const e = { node, dep };
        set.add(e);
        entries.push(e);
      }
    }
    if (entries.length > 0) this.rangeEntries.set(node, entries);
    for (const name of deps.crossSheets) {
      let set = this.crossReaders.get(name);
      if (!set) this.crossReaders.set(name, (set = new Set()));
      set.add(node);
    }
  }

  unregister(node: FormulaNode): void {
    const deps = node.deps;
    for (const [c, r] of deps.cells) {
      const byRow = this.cellReaders.get(c);
      const cur = byRow?.get(r);
      if (cur === undefined || byRow === undefined) continue;
      if (cur === node) byRow.delete(r);
      else if (Array.isArray(cur)) {
        const i = cur.indexOf(node);
        if (i >= 0) cur.splice(i, 1);
        if (cur.length === 0) byRow.delete(r);
      }
    }
    for (const dep of deps.ranges) {
      if (dep.start === null || dep.end === null) this.wholeColumnReaders.get(dep.colId)?.delete(node);
    }
    for (const e of this.rangeEntries.get(node) ?? []) this.rangeReaders.get(e.dep.colId)?.delete(e);
    this.rangeEntries.delete(node);
    for (const name of deps.crossSheets) this.crossReaders.get(name)?.delete(node);
    node.deps = NO_DEPS;
  }

  /** Formula cells that read cell (colId, rowId). */
  readersOf(colId: ColumnId, rowId: RowId, out: (n: FormulaNode) => void): void {
    const list: FormulaNode[] = [];
    this.readersInto(colId, rowId, list);
    for (const n of list) out(n);
  }

  /** The same, appended to `out` (no callback: this runs once per node in every recalculation). */
  readersInto(colId: ColumnId, rowId: RowId, out: FormulaNode[]): void {
    const direct = this.cellReaders.get(colId)?.get(rowId);
    if (direct !== undefined) {
      if (Array.isArray(direct)) for (const n of direct) out.push(n);
      else out.push(direct);
    }
    const whole = this.wholeColumnReaders.get(colId);
    if (whole) for (const n of whole) out.push(n);
    const ranged = this.rangeReaders.get(colId);
    if (ranged && ranged.size > 0) {
      const at = this.rows.indexOf(rowId);
      if (at === undefined) return;
      for (const e of ranged) {
        const a = this.rows.indexOf(e.dep.start as RowId);
        const b = this.rows.indexOf(e.dep.end as RowId);
        if (a === undefined || b === undefined) continue;
        if (a <= b ? at >= a && at <= b : at >= b && at <= a) out.push(e.node);
      }
    }
  }

  /** Every formula cell reading anything in a column (used when the column goes away). */
  readersOfColumn(colId: ColumnId, out: (n: FormulaNode) => void): void {
    for (const r of this.cellReaders.get(colId)?.values() ?? []) {
      if (Array.isArray(r)) for (const n of r) out(n);
      else out(r);
    }
    for (const n of this.wholeColumnReaders.get(colId) ?? []) out(n);
    for (const e of this.rangeReaders.get(colId) ?? []) out(e.node);
  }

  crossSheetReaders(name: string): Iterable<FormulaNode> {
    return this.crossReaders.get(name) ?? [];
  }

  crossSheetNames(): string[] {
    return [...this.crossReaders].filter(([, s]) => s.size > 0).map(([n]) => n);
  }

  /**
   * Everything reachable from `roots` through readers, in evaluation order, plus the nodes on
   * cycles (strongly connected components of more than one node, or a node reading itself).
   * Iterative Tarjan: long chains (a running total over 25,000 rows) must not overflow the stack.
   */
  order(roots: Iterable<FormulaNode>): { order: FormulaNode[]; cyclic: Set<FormulaNode> } {
    const pass = ++this.pass;
    const emitted: FormulaNode[] = [];
    const cyclic = new Set<FormulaNode>();
    const stack: FormulaNode[] = [];
    let counter = 0;
    // The DFS stack as parallel arrays: each open node's readers sit in `succ` from frameStart
    // to the end (or the next frame's start); frameNext is the next one to visit.
    const succ: FormulaNode[] = [];
    const frameNode: FormulaNode[] = [];
    const frameStart: number[] = [];
    const frameNext: number[] = [];
    const frameEnd: number[] = [];

    const open = (n: FormulaNode): void => {
      n.mark = pass;
      n.index = n.low = counter++;
      n.onStack = true;
      stack.push(n);
      const from = succ.length;
      this.readersInto(n.colId, n.rowId, succ);
      for (let i = from; i < succ.length; i++) if (succ[i] === n) cyclic.add(n);
      frameNode.push(n);
      frameStart.push(from);
      frameNext.push(from);
      frameEnd.push(succ.length);
    };

    // Visit roots last-to-first so that, after the final reversal, unrelated cells keep the roots' order.
    const rootList = [...roots];
    for (let ri = rootList.length - 1; ri >= 0; ri--) {
      const root = rootList[ri] as FormulaNode;
      if (root.mark === pass) continue;
      open(root);
      while (frameNode.length > 0) {
        const top = frameNode.length - 1;
        const node = frameNode[top] as FormulaNode;
        const next = frameNext[top] as number;
        if (next < (frameEnd[top] as number)) {
          frameNext[top] = next + 1;
          const m = succ[next] as FormulaNode;
          if (m.mark !== pass) open(m);
          else if (m.onStack && m.index < node.low) node.low = m.index;
          continue;
        }
        succ.length = frameStart[top] as number;
        frameNode.pop();
        frameStart.pop();
        frameNext.pop();
        frameEnd.pop();
        const parent = frameNode[frameNode.length - 1];
        if (parent && node.low < parent.low) parent.low = node.low;
        if (node.low === node.index) {
          // pop the component; more than one node means a cycle
          const from = emitted.length;
          let m: FormulaNode;
          do {
            m = stack.pop() as FormulaNode;
            m.onStack = false;
            emitted.push(m);
          } while (m !== node);
          if (emitted.length - from > 1) for (let i = from; i < emitted.length; i++) cyclic.add(emitted[i] as FormulaNode);
        }
      }
    }
    // Tarjan emits a component after every component reachable from it: reverse for precedents first.
    return { order: emitted.reverse(), cyclic };
  }
}
