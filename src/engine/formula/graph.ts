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
  private readonly cellReaders = new Map<ColumnId, Map<RowId, Set<FormulaNode>>>();
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
      let set = byRow.get(r);
      if (!set) byRow.set(r, (set = new Set()));
      set.add(node);
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
    for (const [c, r] of deps.cells) this.cellReaders.get(c)?.get(r)?.delete(node);
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
    const direct = this.cellReaders.get(colId)?.get(rowId);
    if (direct) for (const n of direct) out(n);
    const whole = this.wholeColumnReaders.get(colId);
    if (whole) for (const n of whole) out(n);
    const ranged = this.rangeReaders.get(colId);
    if (ranged && ranged.size > 0) {
      const at = this.rows.indexOf(rowId);
      if (at === undefined) return;
      for (const e of ranged) {
        const a = this.rows.indexOf(e.dep.start as RowId);
        const b = this.rows.indexOf(e.dep.end as RowId);
        if (a === undefined || b === undefined) continue;
        if (at >= Math.min(a, b) && at <= Math.max(a, b)) out(e.node);
      }
    }
  }

  /** Every formula cell reading anything in a column (used when the column goes away). */
  readersOfColumn(colId: ColumnId, out: (n: FormulaNode) => void): void {
    for (const set of this.cellReaders.get(colId)?.values() ?? []) for (const n of set) out(n);
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
    const sccs: FormulaNode[][] = [];
    const cyclic = new Set<FormulaNode>();
    const stack: FormulaNode[] = [];
    let counter = 0;
    const frames: { node: FormulaNode; next: FormulaNode[]; i: number }[] = [];

    const readers = (n: FormulaNode): FormulaNode[] => {
      const out: FormulaNode[] = [];
      this.readersOf(n.colId, n.rowId, (m) => {
        out.push(m);
        if (m === n) cyclic.add(n);
      });
      return out;
    };
    const open = (n: FormulaNode): void => {
      n.mark = pass;
      n.index = n.low = counter++;
      n.onStack = true;
      stack.push(n);
      frames.push({ node: n, next: readers(n), i: 0 });
    };

    // Visit roots last-to-first so that, after the final reversal, unrelated cells keep the roots' order.
    const rootList = [...roots];
    for (let ri = rootList.length - 1; ri >= 0; ri--) {
      const root = rootList[ri] as FormulaNode;
      if (root.mark === pass) continue;
      open(root);
      while (frames.length > 0) {
        const f = frames[frames.length - 1] as { node: FormulaNode; next: FormulaNode[]; i: number };
        if (f.i < f.next.length) {
          const m = f.next[f.i++] as FormulaNode;
          if (m.mark !== pass) open(m);
          else if (m.onStack) f.node.low = Math.min(f.node.low, m.index);
          continue;
        }
        frames.pop();
        const n = f.node;
        const parent = frames[frames.length - 1];
        if (parent) parent.node.low = Math.min(parent.node.low, n.low);
        if (n.low === n.index) {
          const scc: FormulaNode[] = [];
          let m: FormulaNode;
          do {
            m = stack.pop() as FormulaNode;
            m.onStack = false;
            scc.push(m);
          } while (m !== n);
          if (scc.length > 1) for (const x of scc) cyclic.add(x);
          sccs.push(scc);
        }
      }
    }
    // Tarjan emits a component after every component reachable from it: reverse for precedents first.
    const order: FormulaNode[] = [];
    for (let i = sccs.length - 1; i >= 0; i--) for (const n of sccs[i] as FormulaNode[]) order.push(n);
    return { order, cyclic };
  }
}
