/**
 * The dependency graph of one sheet's formula cells. Edges are stored reversed (who reads this
 * cell?) in indexes: single cells, whole columns, row ranges per column, and cross-sheet names.
 * `order` runs Tarjan's algorithm over what is reachable from changed cells, giving a
 * topological order (precedents first) and the cells that sit on a cycle.
 *
 * Ranges would make the graph quadratic if every cell of a range had an edge to each reader
 * (a running total `SUM([B]$1:[B]@row)` on 25,000 rows is 312 million edges). Two kinds of
 * virtual node keep it linear, without changing which cells reach which:
 *
 * - one node per column stands between the column's cells and its whole-column readers;
 * - ranges of a column that share a start row (their "anchor") form a group; a group of two or
 *   more is a chain of steps, one per row from the anchor towards the ends: a cell feeds the
 *   step at its row, each step feeds the next one away from the anchor and the ranges that end
 *   at its row. A cell reaches a range reader exactly when the range holds the cell.
 *
 * Ranges alone in their group are found through an index of 64-row blocks.
 * Reachability between formula cells is the same as with direct edges, so cycles are found the
 * same way: a virtual node on a cycle only ever sits between formula cells that are really on it.
 */
import type { ColumnId, Formula, RowId } from './ast.ts';
import { NO_DEPS, type Deps, type RangeDep } from './deps.ts';
import type { RowModel } from './rows.ts';
import type { Scalar } from './values.ts';

/** Tarjan bookkeeping, valid while `mark` equals the graph's current pass. */
export interface GraphNode {
  mark: number;
  index: number;
  low: number;
  onStack: boolean;
  /** The node's successors as last worked out, valid while `succEpoch` is the graph's epoch. */
  succ: GraphNode[] | null;
  succEpoch: number;
}

export interface FormulaNode extends GraphNode {
  readonly rowId: RowId;
  readonly colId: ColumnId;
  formula: Formula;
  /** Created by a column formula rather than written into the cell. */
  fromColumn: boolean;
  deps: Deps;
  value: Scalar;
}

/** The successor list of every node that feeds nothing: shared, never written to. */
const NO_SUCCESSORS: GraphNode[] = [];

/** A node standing for many edges; never evaluated. */
abstract class VirtualNode implements GraphNode {
  mark = 0;
  index = 0;
  low = 0;
  onStack = false;
  succ: GraphNode[] | null = null;
  succEpoch = -1;
  abstract successors(out: GraphNode[]): void;
}

export function isFormulaNode(n: GraphNode): n is FormulaNode {
  return !(n instanceof VirtualNode);
}

interface RangeEntry {
  readonly node: FormulaNode;
  readonly dep: RangeDep;
}

/** Between a column's cells and the formulas that read the whole column. */
class WholeColumn extends VirtualNode {
  readonly readers = new Set<FormulaNode>();

  successors(out: GraphNode[]): void {
    for (const n of this.readers) out.push(n);
  }
}

/** One row of a chain: fed by the cell at `at` and the previous step; feeds the next step and ranges ending here. */
class ChainStep extends VirtualNode {
  constructor(
    private readonly layout: ChainLayout,
    private readonly at: number,
    private readonly down: boolean,
  ) {
    super();
  }

  successors(out: GraphNode[]): void {
    this.layout.stepSuccessors(this.at, this.down, out);
  }

  /** For keptOrder's walk: marks what this step reaches (see ChainLayout.reach). */
  reach(pass: number, epoch: number, open: GraphNode[]): number {
    return this.layout.reach(this.at, this.down, pass, epoch, open);
  }
}

/** A chain laid out on the current row positions. */
class ChainLayout {
  /** Readers by how far from the anchor their range ends, at or below the anchor and above it. */
  private readonly downEnding: (FormulaNode[] | undefined)[] = [];
  private readonly upEnding: (FormulaNode[] | undefined)[] = [];
  private readonly downSteps: (ChainStep | undefined)[] = [];
  private readonly upSteps: (ChainStep | undefined)[] = [];
  /** Furthest end at or below the anchor (anchor - 1 when none) and above it (anchor + 1 when none). */
  private downEnd: number;
  private upEnd: number;

  constructor(
    readonly anchor: number,
    /** Set.forEach rather than for-of: no iterator result per member on a process not yet optimized. */
    members: ReadonlySet<RangeEntry>,
    rows: RowModel,
  ) {
    this.downEnd = anchor - 1;
    this.upEnd = anchor + 1;
    members.forEach((e) => {
      const end = rows.indexOf(e.dep.end as RowId);
      if (end === undefined) return;
      const down = end >= anchor;
      const ending = down ? this.downEnding : this.upEnding;
      const k = down ? end - anchor : anchor - end;
      let list = ending[k];
      if (!list) ending[k] = list = [];
      list.push(e.node);
      if (down) this.downEnd = Math.max(this.downEnd, end);
      else this.upEnd = Math.min(this.upEnd, end);
    });
  }

  /** The steps the cell at position `at` feeds. */
  enter(at: number, out: GraphNode[]): void {
    if (at >= this.anchor && at <= this.downEnd) out.push(this.step(at, true));
    if (at <= this.anchor && at >= this.upEnd) out.push(this.step(at, false));
  }

  stepSuccessors(at: number, down: boolean, out: GraphNode[]): void {
    const next = down ? at + 1 : at - 1;
    if (down ? next <= this.downEnd : next >= this.upEnd) out.push(this.step(next, down));
    const ending = down ? this.downEnding[at - this.anchor] : this.upEnding[this.anchor - at];
    if (ending) for (let i = 0; i < ending.length; i++) out.push(ending[i]!);
  }

  /** keptOrder's walk: the pass that reached steps of this chain, and the nearest step (from the anchor) it reached each way. */
  private reachedPass = -1;
  private reachedDown = 0;
  private reachedUp = 0;

  /**
   * What a walk reaching the step at `at` reaches through the chain, without visiting each
   * step: every later step (away from the anchor) and the ranges ending at them. Steps a walk
   * of the same pass already went through are not gone over again. The readers are marked
   * with the pass and counted (the count is returned); those that feed something (or may:
   * their successor list is not of this epoch) go on `open` for the walk to go on from.
   */
  reach(at: number, down: boolean, pass: number, epoch: number, open: GraphNode[]): number {
    const first = down ? at - this.anchor : this.anchor - at;
    const last = down ? this.downEnd - this.anchor : this.anchor - this.upEnd;
    let stop = last + 1;
    if (this.reachedPass === pass) stop = Math.min(stop, down ? this.reachedDown : this.reachedUp);
    else {
      this.reachedPass = pass;
      this.reachedDown = this.reachedUp = Infinity;
    }
    if (first >= stop) return 0;
    if (down) this.reachedDown = first;
    else this.reachedUp = first;
    const ending = down ? this.downEnding : this.upEnding;
    let count = 0;
    for (let k = first; k < stop; k++) {
      const list = ending[k];
      if (list === undefined) continue;
      for (let i = 0; i < list.length; i++) {
        const n = list[i]!;
        if (n.mark === pass) continue;
        n.mark = pass;
        count++;
        if (n.succ !== NO_SUCCESSORS || n.succEpoch !== epoch) open.push(n);
      }
    }
    return count;
  }

  private step(at: number, down: boolean): ChainStep {
    const steps = down ? this.downSteps : this.upSteps;
    const k = down ? at - this.anchor : this.anchor - at;
    let s = steps[k];
    if (s === undefined) steps[k] = s = new ChainStep(this, at, down);
    return s;
  }
}

/** The ranges of one column that start at the same row. */
class RangeGroup {
  readonly members = new Set<RangeEntry>();
  private layout: ChainLayout | null = null;
  private layoutVersion = -1;

  constructor(
    readonly anchor: RowId,
    private readonly rows: RowModel,
  ) {}

  changed(): void {
    this.layout = null;
  }

  /** The chain on the current row positions (null when the anchor row is gone). */
  chain(): ChainLayout | null {
    if (this.layout === null || this.layoutVersion !== this.rows.version) {
      const a = this.rows.indexOf(this.anchor);
      this.layout = a === undefined ? null : new ChainLayout(a, this.members, this.rows);
      this.layoutVersion = this.rows.version;
    }
    return this.layout;
  }
}

const BLOCK_SHIFT = 6; // 64-row blocks

/** The row ranges read from one column: chained groups, and single ranges indexed by row block. */
class ColumnRanges {
  readonly groups = new Map<RowId, RangeGroup>();
  private chained: RangeGroup[] = [];
  private blocks = new Map<number, RangeEntry[]>();
  private dirty = true;
  private version = -1;

  constructor(private readonly rows: RowModel) {}

  add(e: RangeEntry): void {
    const anchor = e.dep.start as RowId;
    let g = this.groups.get(anchor);
    if (!g) this.groups.set(anchor, (g = new RangeGroup(anchor, this.rows)));
    g.members.add(e);
    g.changed();
    this.dirty = true;
  }

  remove(e: RangeEntry): void {
    const anchor = e.dep.start as RowId;
    const g = this.groups.get(anchor);
    if (!g || !g.members.delete(e)) return;
    if (g.members.size === 0) this.groups.delete(anchor);
    else g.changed();
    this.dirty = true;
  }

  get size(): number {
    return this.groups.size;
  }

  /** What a change to the cell at position `at` feeds: chain steps and the single ranges holding it. */
  successors(at: number, out: GraphNode[]): void {
    this.refresh();
    const chained = this.chained;
    for (let i = 0; i < chained.length; i++) chained[i]!.chain()?.enter(at, out);
    const block = this.blocks.get(at >> BLOCK_SHIFT);
    if (block) for (let i = 0; i < block.length; i++) if (this.holds(block[i]!, at)) out.push(block[i]!.node);
  }

  /** Every formula whose range holds position `at` (no virtual nodes). */
  readers(at: number, out: (n: FormulaNode) => void): void {
    for (const g of this.groups.values()) for (const e of g.members) if (this.holds(e, at)) out(e.node);
  }

  all(out: (n: FormulaNode) => void): void {
    for (const g of this.groups.values()) for (const e of g.members) out(e.node);
  }

  private holds(e: RangeEntry, at: number): boolean {
    const a = this.rows.indexOf(e.dep.start as RowId);
    const b = this.rows.indexOf(e.dep.end as RowId);
    if (a === undefined || b === undefined) return false;
    return a <= b ? at >= a && at <= b : at >= b && at <= a;
  }

  /** Re-sorts groups into chains and indexed singles after membership or row order changed. */
  private refresh(): void {
    if (!this.dirty && this.version === this.rows.version) return;
    this.chained = [];
    this.blocks = new Map();
    for (const g of this.groups.values()) {
      if (g.members.size > 1) {
        this.chained.push(g);
        continue;
      }
      for (const e of g.members) {
        const a = this.rows.indexOf(e.dep.start as RowId);
        const b = this.rows.indexOf(e.dep.end as RowId);
        if (a === undefined || b === undefined) continue;
        for (let k = Math.min(a, b) >> BLOCK_SHIFT; k <= Math.max(a, b) >> BLOCK_SHIFT; k++) {
          let list = this.blocks.get(k);
          if (!list) this.blocks.set(k, (list = []));
          list.push(e);
        }
      }
    }
    this.dirty = false;
    this.version = this.rows.version;
  }
}

/**
 * Nodes in evaluation order, and those on cycles. Only the nodes whose mark is `pass` are to
 * be evaluated (all of them in an order of their own; the reached ones in a kept order).
 */
export interface Ordered {
  readonly order: readonly GraphNode[];
  readonly cyclic: Set<GraphNode>;
  readonly pass: number;
}

export class DependencyGraph {
  /** Readers of single cells: one node, or several (most cells have one reader, so no Set each). */
  private readonly cellReaders = new Map<ColumnId, Map<RowId, FormulaNode | FormulaNode[]>>();
  private readonly rangeReaders = new Map<ColumnId, ColumnRanges>();
  private readonly wholeColumnReaders = new Map<ColumnId, WholeColumn>();
  private readonly crossReaders = new Map<string, Set<FormulaNode>>();
  private readonly rangeEntries = new Map<FormulaNode, RangeEntry[]>();
  private pass = 0;
  /** Bumped whenever edges may have changed (registrations, row order): cached successor lists expire. */
  private epoch = 0;
  private rowsVersion = -1;

  constructor(private readonly rows: RowModel) {}

  // register and unregister run for every formula cell of a load, on a process that has not
  // optimized them yet: indexed loops, since a for-of (and a destructured [column, row]) makes
  // an iterator and a result object per step until the code is optimized
  register(node: FormulaNode, deps: Deps): void {
    if (node.deps !== NO_DEPS) this.unregister(node);
    this.epoch++;
    node.deps = deps;
    const cells = deps.cells;
    for (let i = 0; i < cells.length; i++) {
      const cell = cells[i]!;
      const c = cell[0];
      const r = cell[1];
      let byRow = this.cellReaders.get(c);
      if (!byRow) this.cellReaders.set(c, (byRow = new Map()));
      const cur = byRow.get(r);
      if (cur === undefined) byRow.set(r, node);
      else if (Array.isArray(cur)) {
        if (!cur.includes(node)) cur.push(node);
      } else if (cur !== node) byRow.set(r, [cur, node]);
    }
    const ranges = deps.ranges;
    let entries: RangeEntry[] | undefined;
    for (let i = 0; i < ranges.length; i++) {
      const dep = ranges[i]!;
      if (dep.start === null || dep.end === null) {
        let w = this.wholeColumnReaders.get(dep.colId);
        if (!w) this.wholeColumnReaders.set(dep.colId, (w = new WholeColumn()));
        w.readers.add(node);
      } else {
        let byColumn = this.rangeReaders.get(dep.colId);
        if (!byColumn) this.rangeReaders.set(dep.colId, (byColumn = new ColumnRanges(this.rows)));
        const e = { node, dep };
        byColumn.add(e);
        (entries ??= []).push(e);
      }
    }
    if (entries !== undefined) this.rangeEntries.set(node, entries);
    const names = deps.crossSheets;
    for (let i = 0; i < names.length; i++) {
      const name = names[i]!;
      let set = this.crossReaders.get(name);
      if (!set) this.crossReaders.set(name, (set = new Set()));
      set.add(node);
    }
  }

  unregister(node: FormulaNode): void {
    this.epoch++;
    const deps = node.deps;
    // a node registers range entries only with deps of its own
    if (deps === NO_DEPS) return;
    const cells = deps.cells;
    for (let i = 0; i < cells.length; i++) {
      const cell = cells[i]!;
      const r = cell[1];
      const byRow = this.cellReaders.get(cell[0]);
      const cur = byRow?.get(r);
      if (cur === undefined || byRow === undefined) continue;
      if (cur === node) byRow.delete(r);
      else if (Array.isArray(cur)) {
        const at = cur.indexOf(node);
        if (at >= 0) cur.splice(at, 1);
        if (cur.length === 0) byRow.delete(r);
      }
    }
    const ranges = deps.ranges;
    for (let i = 0; i < ranges.length; i++) {
      const dep = ranges[i]!;
      if (dep.start === null || dep.end === null) this.wholeColumnReaders.get(dep.colId)?.readers.delete(node);
    }
    const entries = this.rangeEntries.get(node);
    if (entries !== undefined) {
      for (let i = 0; i < entries.length; i++) this.rangeReaders.get(entries[i]!.dep.colId)?.remove(entries[i]!);
      this.rangeEntries.delete(node);
    }
    const names = deps.crossSheets;
    for (let i = 0; i < names.length; i++) this.crossReaders.get(names[i]!)?.delete(node);
    node.deps = NO_DEPS;
  }

  /** Every formula cell that reads cell (colId, rowId), directly or through a range. */
  readersOf(colId: ColumnId, rowId: RowId, out: (n: FormulaNode) => void): void {
    const direct = this.cellReaders.get(colId)?.get(rowId);
    if (direct !== undefined) {
      if (Array.isArray(direct)) for (const n of direct) out(n);
      else out(direct);
    }
    for (const n of this.wholeColumnReaders.get(colId)?.readers ?? []) out(n);
    const ranged = this.rangeReaders.get(colId);
    if (ranged && ranged.size > 0) {
      const at = this.rows.indexOf(rowId);
      if (at !== undefined) ranged.readers(at, out);
    }
  }

  /**
   * What a change to cell (colId, rowId) feeds, appended to `out`: its readers, with virtual
   * nodes standing in for whole-column and chained range readers (roots for `order`).
   */
  successorsOf(colId: ColumnId, rowId: RowId, out: GraphNode[]): void {
    const direct = this.cellReaders.get(colId)?.get(rowId);
    if (direct !== undefined) {
      if (Array.isArray(direct)) for (let i = 0; i < direct.length; i++) out.push(direct[i]!);
      else out.push(direct);
    }
    const whole = this.wholeColumnReaders.get(colId);
    if (whole && whole.readers.size > 0) out.push(whole);
    const ranged = this.rangeReaders.get(colId);
    if (ranged && ranged.size > 0) {
      const at = this.rows.indexOf(rowId);
      if (at !== undefined) ranged.successors(at, out);
    }
  }

  /** Every formula cell reading anything in a column (used when the column goes away). */
  readersOfColumn(colId: ColumnId, out: (n: FormulaNode) => void): void {
    for (const r of this.cellReaders.get(colId)?.values() ?? []) {
      if (Array.isArray(r)) for (const n of r) out(n);
      else out(r);
    }
    for (const n of this.wholeColumnReaders.get(colId)?.readers ?? []) out(n);
    this.rangeReaders.get(colId)?.all(out);
  }

  crossSheetReaders(name: string): Iterable<FormulaNode> {
    return this.crossReaders.get(name) ?? [];
  }

  crossSheetNames(): string[] {
    return [...this.crossReaders].filter(([, s]) => s.size > 0).map(([n]) => n);
  }

  /** The successors of `n`, worked out again when the graph changed since `n.succ` was. */
  private successorList(n: GraphNode, epoch: number): GraphNode[] {
    let list = n.succ;
    // the epoch alone decides (succEpoch starts at -1, below every epoch): a test of `list` first
    // would leave the epoch test without type feedback on a process that has only loaded, and
    // the first edit's walk would leave optimized code there
    if (n.succEpoch !== epoch || list === null) {
      // worked out in a scratch list: most formula cells feed nothing (the last column of a
      // sheet) and share one empty list; the others get a copy of their own
      const scratch = this.scratch;
      scratch.length = 0;
      if (n instanceof VirtualNode) n.successors(scratch);
      else this.successorsOf((n as FormulaNode).colId, (n as FormulaNode).rowId, scratch);
      list = scratch.length === 0 ? NO_SUCCESSORS : scratch.slice();
      n.succ = list;
      n.succEpoch = epoch;
    }
    return list;
  }
  private readonly scratch: GraphNode[] = [];

  /** Moves to a new epoch when the row order changed since the last pass (cached successor lists expire). */
  private currentEpoch(): number {
    if (this.rowsVersion !== this.rows.version) {
      this.rowsVersion = this.rows.version;
      this.epoch++;
    }
    return this.epoch;
  }

  /**
   * The evaluation order of every formula cell, as `order` gave it for all of them (a load, a
   * recalculation of everything), kept while the graph's edges stay the same: an edit's order
   * is then the kept order cut down to what the edit reaches (keptOrder), found by a plain walk,
   * instead of Tarjan's algorithm over it. On a process that has just loaded a sheet, the first
   * edit feeding 25,000 cells spent two fifths of its time ordering them.
   */
  private kept: { epoch: number; order: FormulaNode[]; cyclic: Set<GraphNode> } | null = null;

  /** Keeps `order` (of every formula cell) for later edits; see `kept`. */
  keepOrder(order: readonly GraphNode[], cyclic: Set<GraphNode>): void {
    const formulas: FormulaNode[] = [];
    for (let i = 0; i < order.length; i++) {
      const n = order[i]!;
      if (isFormulaNode(n)) formulas.push(n);
    }
    this.kept = { epoch: this.currentEpoch(), order: formulas, cyclic };
  }

  /**
   * What `order(roots)` would give (formula cells only, in an order as valid): the kept order,
   * whose nodes marked with the pass returned are those the roots reach; undefined when there
   * is none for the graph as it is, or when the roots reach few cells (Tarjan's walk over them
   * is then cheaper than a pass over the kept order).
   */
  keptOrder(roots: readonly GraphNode[]): Ordered | undefined {
    const kept = this.kept;
    if (kept === null || kept.epoch !== this.currentEpoch()) return undefined;
    const epoch = this.epoch;
    const pass = ++this.pass;
    const stack: GraphNode[] = [];
    let reached = 0;
    for (let i = 0; i < roots.length; i++) {
      const r = roots[i]!;
      if (r.mark === pass) continue;
      r.mark = pass;
      if (isFormulaNode(r)) reached++;
      stack.push(r);
    }
    while (stack.length > 0) {
      const n = stack.pop()!;
      if (n instanceof ChainStep) {
        // a running total's chain, gone through at once: its 25,000 steps, each a node of the
        // walk, were half of the walk of an edit at the top
        reached += n.reach(pass, epoch, stack);
        continue;
      }
      const list = this.successorList(n, epoch);
      for (let i = 0; i < list.length; i++) {
        const m = list[i]!;
        if (m.mark !== pass) {
          m.mark = pass;
          if (isFormulaNode(m)) reached++;
          stack.push(m);
        }
      }
    }
    if (reached * 8 < kept.order.length) return undefined;
    // the kept order itself, with the pass that marked what the edit reaches: the caller skips
    // the others (a cut-down copy was 25,000 more references to allocate, and to collect)
    return { order: kept.order, cyclic: kept.cyclic, pass };
  }

  /**
   * Everything reachable from `roots` through readers, in evaluation order, plus the nodes on
   * cycles (strongly connected components of more than one node, or a node reading itself).
   * Virtual nodes are part of both; the caller skips them (isFormulaNode).
   * Iterative Tarjan: long chains (a running total over 25,000 rows) must not overflow the stack.
   */
  order(roots: Iterable<GraphNode>): Ordered {
    const pass = ++this.pass;
    const epoch = this.currentEpoch();
    const emitted: GraphNode[] = [];
    const cyclic = new Set<GraphNode>();
    const stack: GraphNode[] = [];
    let counter = 0;
    // The DFS stack as parallel arrays: each open node, its successor list and the next one to visit.
    const frameNode: GraphNode[] = [];
    const frameList: GraphNode[][] = [];
    const frameNext: number[] = [];

    const successors = (n: GraphNode): GraphNode[] => this.successorList(n, epoch);
    const open = (n: GraphNode): void => {
      n.mark = pass;
      n.index = n.low = counter++;
      const list = successors(n);
      if (list.length === 0) {
        // a node that feeds nothing is a component of its own, finished as soon as it is opened:
        // emitted at once, without a frame (it cannot lower its parent's low link)
        n.onStack = false;
        emitted.push(n);
        return;
      }
      n.onStack = true;
      stack.push(n);
      for (let i = 0; i < list.length; i++) if (list[i] === n) cyclic.add(n);
      frameNode.push(n);
      frameList.push(list);
      frameNext.push(0);
    };

    // Visit roots last-to-first so that, after the final reversal, unrelated cells keep the roots' order.
    const rootList = Array.isArray(roots) ? (roots as GraphNode[]) : [...roots];
    for (let ri = rootList.length - 1; ri >= 0; ri--) {
      const root = rootList[ri] as GraphNode;
      if (root.mark === pass) continue;
      open(root);
      while (frameNode.length > 0) {
        const top = frameNode.length - 1;
        const node = frameNode[top] as GraphNode;
        const list = frameList[top] as GraphNode[];
        const next = frameNext[top] as number;
        if (next < list.length) {
          frameNext[top] = next + 1;
          const m = list[next] as GraphNode;
          if (m.mark !== pass) {
            // a node known to feed nothing is emitted here, without a call (open does the same)
            if (m.succ === NO_SUCCESSORS && m.succEpoch === epoch) {
              m.mark = pass;
              m.index = m.low = counter++;
              m.onStack = false;
              emitted.push(m);
            } else open(m);
          }
          else if (m.onStack && m.index < node.low) node.low = m.index;
          continue;
        }
        frameNode.pop();
        frameList.pop();
        frameNext.pop();
        const parent = frameNode[frameNode.length - 1];
        if (parent && node.low < parent.low) parent.low = node.low;
        if (node.low === node.index) {
          // pop the component; more than one node means a cycle
          const from = emitted.length;
          let m: GraphNode;
          do {
            m = stack.pop() as GraphNode;
            m.onStack = false;
            emitted.push(m);
          } while (m !== node);
          if (emitted.length - from > 1) for (let i = from; i < emitted.length; i++) cyclic.add(emitted[i] as GraphNode);
        }
      }
    }
    // Tarjan emits a component after every component reachable from it: reverse for precedents first.
    return { order: emitted.reverse(), cyclic, pass };
  }
}
