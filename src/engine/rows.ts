/**
 * Row order and hierarchy of one sheet, in memory: a tree of child lists (root = top-level
 * rows) from which display order, rowNumber (1..N, parents before children) and siblingId
 * (previous sibling) are derived. Mutations take one request at a time (all rows of a request
 * share one location, spec 2.2) and cost O(n) once per request, not per row.
 *
 * Location semantics (public reference, "Specify Row Location"):
 *   (none)              add: bottom of the sheet; update: stays where it is
 *   toTop               top of the sheet
 *   toBottom            bottom of the sheet
 *   parentId [+toTop]   first children of the parent
 *   parentId + toBottom last children of the parent
 *   siblingId           just below the sibling (after its subtree), same level
 *   siblingId + above   just above the sibling, same level
 *   indent: 1           (update) becomes the last child of its previous sibling
 *   outdent: 1          (update) becomes the next sibling of its parent; its following
 *                       siblings become its children, so display order never changes
 * Rows of one request keep their request order at the destination. Moving a row moves its
 * subtree; a row whose ancestor is moved by the same request stays inside that ancestor.
 */
import { InvalidInput, NotFound, NotPermitted } from './errors.ts';

export interface RowNode {
  id: number;
  parentId: number | null;
  expanded: boolean;
  locked: boolean;
}

/** A row's position as presented: rowNumber, parentId, siblingId (previous sibling). */
export interface RowPosition {
  id: number;
  rowNumber: number;
  parentId?: number;
  siblingId?: number;
  expanded: boolean;
  locked: boolean;
  /** Depth in the hierarchy, 0 for top-level rows. */
  level: number;
}

/** Location attributes as written in a Row object. */
export interface RowLocationInput {
  [k: string]: unknown;
  toTop?: unknown;
  toBottom?: unknown;
  parentId?: unknown;
  siblingId?: unknown;
  above?: unknown;
  indent?: unknown;
  outdent?: unknown;
}

export type RowLocation =
  | { kind: 'none' }
  | { kind: 'top' }
  | { kind: 'bottom' }
  | { kind: 'parent'; parentId: number; toBottom: boolean }
  | { kind: 'sibling'; siblingId: number; above: boolean }
  | { kind: 'indent' }
  | { kind: 'outdent' };

export interface RowMutationOptions {
  /** Caller may edit locked rows (sheet admin/owner). Default false. */
  canEditLocked?: boolean;
  /** Whether a row has data (1185: no child under a row without data). Default: always true. */
  hasData?: (rowId: number) => boolean;
}

const ROOT = 0;

function present(v: unknown): boolean {
  return v !== undefined && v !== null;
}

function flag(v: unknown): boolean {
  if (!present(v)) return false;
  if (typeof v !== 'boolean') throw new InvalidInput(1062);
  return v;
}

function locationOf(r: RowLocationInput, forUpdate: boolean): RowLocation {
  const toTop = flag(r.toTop);
  const toBottom = flag(r.toBottom);
  const above = flag(r.above);
  const hasParent = present(r.parentId);
  const hasSibling = present(r.siblingId);
  const indent = present(r.indent);
  const outdent = present(r.outdent);
  if (indent || outdent) {
    if (!forUpdate || (indent && outdent) || toTop || toBottom || above || hasParent || hasSibling) throw new InvalidInput(1062);
    if ((indent ? r.indent : r.outdent) !== 1) throw new InvalidInput(1062);
    return { kind: indent ? 'indent' : 'outdent' };
  }
  if (toTop && toBottom) throw new InvalidInput(1062);
  if (hasParent && hasSibling) throw new InvalidInput(1062);
  if (above && !hasSibling) throw new InvalidInput(1062);
  if (hasSibling) {
    if (toTop || toBottom) throw new InvalidInput(1062);
    if (typeof r.siblingId !== 'number' || !Number.isSafeInteger(r.siblingId)) throw new InvalidInput(1064, String(r.siblingId));
    return { kind: 'sibling', siblingId: r.siblingId, above };
  }
  if (hasParent) {
    if (typeof r.parentId !== 'number' || !Number.isSafeInteger(r.parentId)) throw new InvalidInput(1063, String(r.parentId));
    return { kind: 'parent', parentId: r.parentId, toBottom };
  }
  if (toTop) return { kind: 'top' };
  if (toBottom) return { kind: 'bottom' };
  return { kind: 'none' };
}

function sameLocation(a: RowLocation, b: RowLocation): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Read the one location of a request's rows: 1062 for an invalid combination of attributes,
 * 1063/1064 for a malformed parentId/siblingId, 1123 when rows differ in location.
 */
export function readRowLocation(rows: readonly RowLocationInput[], forUpdate: boolean): RowLocation {
  if (rows.length === 0) return { kind: 'none' };
  const first = locationOf(rows[0]!, forUpdate);
  for (let i = 1; i < rows.length; i++) {
    if (!sameLocation(first, locationOf(rows[i]!, forUpdate))) throw new InvalidInput(1123);
  }
  return first;
}

/** Order stamps of every tree of the process: a stamp names one arrangement of one tree. */
let lastOrderStamp = 0;

export class RowTree {
  private readonly nodes = new Map<number, RowNode>();
  private stamp = ++lastOrderStamp;
  private readonly kids = new Map<number, number[]>([[ROOT, []]]);
  private order: number[] | null = null;
  private numbers: Map<number, number> | null = null;
  private prevSiblings: Map<number, number> | null = null;

  /**
   * Build from rows listed in display order (parents before children, children in order).
   * Throws a plain Error on inconsistent input (a storage bug, not a client error).
   */
  static fromDisplayOrder(rows: Iterable<{ id: number; parentId?: number | null; expanded?: boolean; locked?: boolean }>): RowTree {
    const t = new RowTree();
    for (const r of rows) {
      const parentId = r.parentId ?? null;
      if (t.nodes.has(r.id) || r.id === ROOT) throw new Error(`duplicate or invalid row id ${r.id}`);
      if (parentId !== null && !t.nodes.has(parentId)) throw new Error(`row ${r.id} listed before its parent ${parentId}`);
      t.nodes.set(r.id, { id: r.id, parentId, expanded: r.expanded ?? true, locked: r.locked ?? false });
      t.childList(parentId).push(r.id);
    }
    return t;
  }

  get size(): number {
    return this.nodes.size;
  }

  has(id: number): boolean {
    return this.nodes.has(id);
  }

  get(id: number): RowNode | undefined {
    return this.nodes.get(id);
  }

  parentOf(id: number): number | null {
    return this.nodes.get(id)?.parentId ?? null;
  }

  /** Children of a row (or top-level rows for null), in order. */
  childrenOf(id: number | null): readonly number[] {
    return this.kids.get(id ?? ROOT) ?? [];
  }

  /** All row ids in display order (cached until the next mutation). */
  displayOrder(): readonly number[] {
    if (this.order === null) {
      const out: number[] = [];
      const stack: number[] = [];
      const top = this.childrenOf(null);
      for (let i = top.length - 1; i >= 0; i--) stack.push(top[i]!);
      while (stack.length > 0) {
        const id = stack.pop()!;
        out.push(id);
        const ch = this.kids.get(id);
        if (ch !== undefined) for (let i = ch.length - 1; i >= 0; i--) stack.push(ch[i]!);
      }
      this.order = out;
    }
    return this.order;
  }

  /**
   * Changes whenever rows come, go or move (and with them, possibly, row numbers), never
   * otherwise; no two trees share one. What shows row numbers of other rows (predecessors) may
   * be kept while it stays the same.
   */
  get orderStamp(): number {
    return this.stamp;
  }

  /** 1-based row number of a row, undefined when not in the sheet. */
  rowNumberOf(id: number): number | undefined {
    if (this.numbers === null) {
      const m = new Map<number, number>();
      this.displayOrder().forEach((rid, i) => m.set(rid, i + 1));
      this.numbers = m;
    }
    return this.numbers.get(id);
  }

  /** Row id at a 1-based row number. */
  rowIdAt(rowNumber: number): number | undefined {
    return Number.isInteger(rowNumber) && rowNumber >= 1 ? this.displayOrder()[rowNumber - 1] : undefined;
  }

  /** Previous sibling (the API's siblingId), undefined for a first child. */
  siblingIdOf(id: number): number | undefined {
    if (this.prevSiblings === null) {
      // one pass over every child list, kept until the tree changes
      const m = new Map<number, number>();
      for (const list of this.kids.values()) for (let i = 1; i < list.length; i++) m.set(list[i]!, list[i - 1]!);
      this.prevSiblings = m;
    }
    return this.prevSiblings.get(id);
  }

  /** Every row in display order with its derived position attributes (one O(n) pass). */
  positions(): RowPosition[] {
    const prev = new Map<number, number>();
    for (const list of this.kids.values()) for (let i = 1; i < list.length; i++) prev.set(list[i]!, list[i - 1]!);
    const level = new Map<number, number>();
    return this.displayOrder().map((id, i) => {
      const n = this.nodes.get(id)!;
      const lv = n.parentId === null ? 0 : level.get(n.parentId)! + 1;
      level.set(id, lv);
      const p: RowPosition = { id, rowNumber: i + 1, expanded: n.expanded, locked: n.locked, level: lv };
      if (n.parentId !== null) p.parentId = n.parentId;
      const s = prev.get(id);
      if (s !== undefined) p.siblingId = s;
      return p;
    });
  }

  /** Descendants of a row in display order (not including the row). */
  descendantsOf(id: number): number[] {
    const out: number[] = [];
    const stack = [...this.childrenOf(id)].reverse();
    while (stack.length > 0) {
      const x = stack.pop()!;
      out.push(x);
      const ch = this.kids.get(x);
      if (ch !== undefined) for (let i = ch.length - 1; i >= 0; i--) stack.push(ch[i]!);
    }
    return out;
  }

  /** True when `a` is a proper ancestor of `b`. */
  isAncestor(a: number, b: number): boolean {
    for (let x = this.parentOf(b); x !== null; x = this.parentOf(x)) if (x === a) return true;
    return false;
  }

  setExpanded(id: number, expanded: boolean): void {
    const n = this.nodes.get(id);
    if (n !== undefined) n.expanded = expanded;
  }

  setLocked(id: number, locked: boolean): void {
    const n = this.nodes.get(id);
    if (n !== undefined) n.locked = locked;
  }

  private childList(parentId: number | null): number[] {
    const key = parentId ?? ROOT;
    let l = this.kids.get(key);
    if (l === undefined) {
      l = [];
      this.kids.set(key, l);
    }
    return l;
  }

  private invalidate(): void {
    this.stamp = ++lastOrderStamp;
    this.prevSiblings = null;
    this.order = null;
    this.numbers = null;
  }

  private assertParentTarget(parentId: number, opts: RowMutationOptions): void {
    if (!this.nodes.has(parentId)) throw new InvalidInput(1063, parentId);
    if (opts.hasData !== undefined && !opts.hasData(parentId)) throw new InvalidInput(1185);
  }

  /** Insert `ids` (already detached or new) at a location; all get the location's parent. */
  private place(ids: readonly number[], loc: RowLocation): void {
    let parentId: number | null = null;
    let at: number;
    switch (loc.kind) {
      case 'parent': {
        parentId = loc.parentId;
        at = loc.toBottom ? this.childList(parentId).length : 0;
        break;
      }
      case 'sibling': {
        parentId = this.parentOf(loc.siblingId);
        const i = this.childList(parentId).indexOf(loc.siblingId);
        at = loc.above ? i : i + 1;
        break;
      }
      case 'top': at = 0; break;
      default: at = this.childList(null).length;
    }
    for (const id of ids) this.nodes.get(id)!.parentId = parentId;
    this.childList(parentId).splice(at, 0, ...ids);
  }

  /**
   * Add new rows (ids chosen by the caller) at a location: 1062 for indent/outdent (not for
   * new rows), 1063 unknown parent, 1064 unknown sibling, 1185 parent without data.
   */
  addRows(rows: readonly { id: number; expanded?: boolean; locked?: boolean }[], location: RowLocation, opts: RowMutationOptions = {}): void {
    if (location.kind === 'indent' || location.kind === 'outdent') throw new InvalidInput(1062);
    if (location.kind === 'parent') this.assertParentTarget(location.parentId, opts);
    if (location.kind === 'sibling' && !this.nodes.has(location.siblingId)) throw new InvalidInput(1064, location.siblingId);
    for (const r of rows) {
      if (this.nodes.has(r.id) || r.id === ROOT) throw new Error(`row id ${r.id} already in the sheet`);
    }
    for (const r of rows) this.nodes.set(r.id, { id: r.id, parentId: null, expanded: r.expanded ?? true, locked: r.locked ?? false });
    const ids = rows.map((r) => r.id);
    this.place(ids, location.kind === 'none' ? { kind: 'bottom' } : location);
    if (location.kind === 'none' || location.kind === 'bottom') this.appended(ids);
    else this.invalidate();
  }

  /**
   * New top-level rows were placed at the bottom of the sheet: they follow every other row in
   * display order, so the derived order, numbers and previous siblings are extended, not rebuilt.
   */
  private appended(ids: readonly number[]): void {
    this.stamp = ++lastOrderStamp;
    if (this.order !== null) this.order = this.order.concat(ids);
    if (this.numbers !== null) {
      let n = this.numbers.size;
      for (const id of ids) this.numbers.set(id, ++n);
    }
    if (this.prevSiblings !== null) {
      const top = this.kids.get(ROOT)!;
      for (let i = Math.max(1, top.length - ids.length); i < top.length; i++) this.prevSiblings.set(top[i]!, top[i - 1]!);
    }
  }

  private assertEditable(ids: Iterable<number>, opts: RowMutationOptions, code: number): void {
    if (opts.canEditLocked === true) return;
    for (const id of ids) if (this.nodes.get(id)?.locked === true) throw new NotPermitted(code);
  }

  /** The moved rows without those whose ancestor is also moved, in display order. */
  private topMost(ids: readonly number[]): number[] {
    const set = new Set(ids);
    const out: number[] = [];
    for (const id of this.displayOrder()) {
      if (!set.has(id)) continue;
      let covered = false;
      for (let x = this.parentOf(id); x !== null; x = this.parentOf(x)) if (set.has(x)) { covered = true; break; }
      if (!covered) out.push(id);
    }
    return out;
  }

  /**
   * Move existing rows (with their subtrees) to a location, or indent/outdent them. Rules:
   * unknown row 1034; locked row 1050 (unless canEditLocked); parent unknown or inside a moved
   * subtree 1063; sibling unknown or inside a moved subtree 1064; parent without data 1185;
   * indent without a previous sibling or outdent of a top-level row 1062.
   */
  moveRows(ids: readonly number[], location: RowLocation, opts: RowMutationOptions = {}): void {
    for (const id of ids) if (!this.nodes.has(id)) throw new InvalidInput(1034);
    if (location.kind === 'none' || ids.length === 0) return;
    this.assertEditable(ids, opts, 1050);
    if (location.kind === 'indent' || location.kind === 'outdent') {
      this.indentOrOutdent(ids, location.kind === 'indent', opts);
      return;
    }
    const roots = this.topMost(ids);
    const movedSet = new Set(ids);
    const inMoved = (x: number): boolean => movedSet.has(x) || roots.some((r) => this.isAncestor(r, x));
    if (location.kind === 'parent') {
      this.assertParentTarget(location.parentId, opts);
      if (inMoved(location.parentId)) throw new InvalidInput(1063, location.parentId);
    }
    if (location.kind === 'sibling') {
      if (!this.nodes.has(location.siblingId) || inMoved(location.siblingId)) throw new InvalidInput(1064, location.siblingId);
    }
    this.detach(roots);
    this.place(roots, location);
    this.invalidate();
  }

  /** Remove rows from their parents' child lists (one filter per affected list). */
  private detach(ids: readonly number[]): void {
    const byParent = new Map<number, Set<number>>();
    for (const id of ids) {
      const key = this.parentOf(id) ?? ROOT;
      let s = byParent.get(key);
      if (s === undefined) byParent.set(key, (s = new Set()));
      s.add(id);
    }
    for (const [key, s] of byParent) {
      const list = this.kids.get(key)!;
      this.kids.set(key, list.filter((x) => !s.has(x)));
    }
  }

  private indentOrOutdent(ids: readonly number[], indent: boolean, opts: RowMutationOptions): void {
    const set = new Set(ids);
    const ordered = this.displayOrder().filter((id) => set.has(id));
    for (const id of ordered) {
      const parentId = this.parentOf(id);
      const siblings = this.childList(parentId);
      const i = siblings.indexOf(id);
      if (indent) {
        if (i <= 0) throw new InvalidInput(1062);
        const newParent = siblings[i - 1]!;
        if (opts.hasData !== undefined && !opts.hasData(newParent)) throw new InvalidInput(1185);
        siblings.splice(i, 1);
        this.childList(newParent).push(id);
        this.nodes.get(id)!.parentId = newParent;
      } else {
        if (parentId === null) throw new InvalidInput(1062);
        const following = siblings.splice(i).slice(1);
        const grand = this.parentOf(parentId);
        const up = this.childList(grand);
        up.splice(up.indexOf(parentId) + 1, 0, id);
        this.nodes.get(id)!.parentId = grand;
        const own = this.childList(id);
        for (const f of following) {
          own.push(f);
          this.nodes.get(f)!.parentId = id;
        }
      }
      this.invalidate();
    }
  }

  /**
   * Delete rows and their descendants; returns every deleted id in display order. Unknown ids
   * give 1006 unless ignoreMissing; a locked row among them (or their children) gives 1092
   * unless canEditLocked.
   */
  deleteRows(ids: readonly number[], opts: RowMutationOptions & { ignoreMissing?: boolean } = {}): number[] {
    const known = ids.filter((id) => this.nodes.has(id));
    if (known.length !== ids.length && opts.ignoreMissing !== true) throw new NotFound(1006);
    const roots = this.topMost(known);
    const all: number[] = [];
    for (const r of roots) all.push(r, ...this.descendantsOf(r));
    if (opts.canEditLocked !== true) for (const id of all) if (this.nodes.get(id)!.locked) throw new NotPermitted(1092);
    this.detach(roots);
    for (const id of all) {
      this.nodes.delete(id);
      this.kids.delete(id);
    }
    if (this.isTail(all)) {
      // the last rows of the sheet: the others keep their numbers and previous siblings
      this.stamp = ++lastOrderStamp;
      this.order = this.order!.slice(0, this.order!.length - all.length);
      for (const id of all) {
        this.numbers?.delete(id);
        this.prevSiblings?.delete(id);
      }
    } else {
      this.invalidate();
    }
    return all;
  }

  /** Whether `ids` (in display order) are the last rows of the cached display order. */
  private isTail(ids: readonly number[]): boolean {
    const order = this.order;
    if (order === null || ids.length > order.length) return false;
    const from = order.length - ids.length;
    for (let k = 0; k < ids.length; k++) if (order[from + k] !== ids[k]) return false;
    return true;
  }

  /**
   * Sort siblings within every parent (the hierarchy is kept) with a stable sort by
   * `compare`. 1223 when the sheet holds a locked row and the caller cannot edit locked rows.
   */
  sort(compare: (a: number, b: number) => number, opts: RowMutationOptions = {}): void {
    this.assertEditable(this.nodes.keys(), opts, 1223);
    for (const list of this.kids.values()) list.sort(compare);
    this.invalidate();
  }
}
