import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { RowTree, readRowLocation, type RowLocation } from '../../src/engine/rows.ts';
import { EngineError } from '../../src/engine/errors.ts';

const code = (c: number) => (e: unknown): boolean => e instanceof EngineError && e.errorCode === c;

function tree(spec: [number, number | null][]): RowTree {
  return RowTree.fromDisplayOrder(spec.map(([id, parentId]) => ({ id, parentId })));
}

function shape(t: RowTree): string {
  return t.positions().map((p) => `${p.id}${p.parentId === undefined ? '' : '<' + p.parentId}`).join(' ');
}

test('readRowLocation: combinations', () => {
  assert.deepEqual(readRowLocation([{}], false), { kind: 'none' });
  assert.deepEqual(readRowLocation([{ toTop: true }, { toTop: true }], false), { kind: 'top' });
  assert.deepEqual(readRowLocation([{ toBottom: true }], false), { kind: 'bottom' });
  assert.deepEqual(readRowLocation([{ parentId: 5 }], false), { kind: 'parent', parentId: 5, toBottom: false });
  assert.deepEqual(readRowLocation([{ parentId: 5, toBottom: true }], false), { kind: 'parent', parentId: 5, toBottom: true });
  assert.deepEqual(readRowLocation([{ siblingId: 5, above: true }], false), { kind: 'sibling', siblingId: 5, above: true });
  assert.deepEqual(readRowLocation([{ indent: 1 }], true), { kind: 'indent' });
  assert.deepEqual(readRowLocation([{ outdent: 1 }], true), { kind: 'outdent' });
});

test('1062 invalid row location', () => {
  for (const bad of [
    { toTop: true, toBottom: true }, { parentId: 1, siblingId: 2 }, { siblingId: 1, toTop: true },
    { siblingId: 1, toBottom: true }, { above: true }, { indent: 2 }, { indent: 1, toTop: true },
    { indent: 1, outdent: 1 }, { toTop: 'yes' },
  ]) assert.throws(() => readRowLocation([bad], true), code(1062), JSON.stringify(bad));
  assert.throws(() => readRowLocation([{ indent: 1 }], false), code(1062));
});

test('1123 rows of one request must share the location', () => {
  assert.throws(() => readRowLocation([{ toTop: true }, { toBottom: true }], false), code(1123));
  assert.throws(() => readRowLocation([{ parentId: 1 }, { parentId: 2 }], false), code(1123));
  assert.throws(() => readRowLocation([{ toTop: true }, {}], false), code(1123));
});

test('1063 / 1064 malformed or unknown parent and sibling', () => {
  assert.throws(() => readRowLocation([{ parentId: 'x' }], false), code(1063));
  assert.throws(() => readRowLocation([{ siblingId: 'x' }], false), code(1064));
  const t = tree([[1, null]]);
  assert.throws(() => t.addRows([{ id: 2 }], { kind: 'parent', parentId: 99, toBottom: false }), code(1063));
  assert.throws(() => t.addRows([{ id: 2 }], { kind: 'sibling', siblingId: 99, above: false }), code(1064));
});

test('add: default bottom, top, parent first/last child, sibling below/above', () => {
  const t = tree([[1, null], [2, 1], [3, null]]);
  t.addRows([{ id: 10 }, { id: 11 }], { kind: 'none' });
  assert.equal(shape(t), '1 2<1 3 10 11');
  t.addRows([{ id: 12 }], { kind: 'top' });
  assert.equal(shape(t), '12 1 2<1 3 10 11');
  t.addRows([{ id: 13 }, { id: 14 }], { kind: 'parent', parentId: 1, toBottom: false });
  assert.equal(shape(t), '12 1 13<1 14<1 2<1 3 10 11');
  t.addRows([{ id: 15 }], { kind: 'parent', parentId: 1, toBottom: true });
  assert.equal(shape(t), '12 1 13<1 14<1 2<1 15<1 3 10 11');
  t.addRows([{ id: 16 }], { kind: 'sibling', siblingId: 1, above: false });
  assert.equal(shape(t), '12 1 13<1 14<1 2<1 15<1 16 3 10 11');
  t.addRows([{ id: 17 }], { kind: 'sibling', siblingId: 2, above: true });
  assert.equal(shape(t), '12 1 13<1 14<1 17<1 2<1 15<1 16 3 10 11');
  const pos = t.positions();
  assert.deepEqual(pos.map((p) => p.rowNumber), pos.map((_p, i) => i + 1));
  assert.equal(t.siblingIdOf(2), 17);
  assert.equal(t.siblingIdOf(13), undefined);
  assert.equal(t.rowNumberOf(16), 8);
  assert.equal(t.rowIdAt(8), 16);
});

test('1185 child of a parent row without data', () => {
  const t = tree([[1, null], [2, null]]);
  const hasData = (id: number): boolean => id !== 1;
  assert.throws(() => t.addRows([{ id: 3 }], { kind: 'parent', parentId: 1, toBottom: false }, { hasData }), code(1185));
  assert.throws(() => t.moveRows([2], { kind: 'indent' }, { hasData }), code(1185));
  t.addRows([{ id: 3 }], { kind: 'parent', parentId: 2, toBottom: false }, { hasData });
  assert.equal(shape(t), '1 2 3<2');
});

test('move keeps subtrees, refuses moving under itself', () => {
  const t = tree([[1, null], [2, 1], [3, 2], [4, null]]);
  t.moveRows([1], { kind: 'sibling', siblingId: 4, above: false });
  assert.equal(shape(t), '4 1 2<1 3<2');
  assert.throws(() => t.moveRows([1], { kind: 'parent', parentId: 3, toBottom: false }), code(1063));
  assert.throws(() => t.moveRows([1], { kind: 'sibling', siblingId: 2, above: false }), code(1064));
  assert.throws(() => t.moveRows([99], { kind: 'top' }), code(1034));
  t.moveRows([2, 3], { kind: 'top' });
  assert.equal(shape(t), '2 3<2 4 1');
});

test('indent and outdent never change display order', () => {
  const t = tree([[1, null], [2, null], [3, null], [4, null]]);
  t.moveRows([2, 3], { kind: 'indent' });
  assert.equal(shape(t), '1 2<1 3<1 4');
  t.moveRows([3], { kind: 'indent' });
  assert.equal(shape(t), '1 2<1 3<2 4');
  assert.throws(() => t.moveRows([1], { kind: 'indent' }), code(1062));
  assert.throws(() => t.moveRows([1], { kind: 'outdent' }), code(1062));
  t.moveRows([2], { kind: 'outdent' });
  assert.equal(shape(t), '1 2 3<2 4');
});

test('outdent adopts following siblings', () => {
  const t = tree([[1, null], [2, 1], [3, 1], [4, 1]]);
  t.moveRows([3], { kind: 'outdent' });
  assert.equal(shape(t), '1 2<1 3 4<3');
});

test('1050 locked rows cannot be moved; 1092 delete with locked child; 1223 sort', () => {
  const t = RowTree.fromDisplayOrder([{ id: 1 }, { id: 2, parentId: 1, locked: true }, { id: 3 }]);
  assert.throws(() => t.moveRows([2], { kind: 'top' }), code(1050));
  assert.throws(() => t.deleteRows([1]), code(1092));
  assert.throws(() => t.sort((a, b) => a - b), code(1223));
  t.sort((a, b) => b - a, { canEditLocked: true });
  assert.equal(shape(t), '3 1 2<1');
  assert.deepEqual(t.deleteRows([1], { canEditLocked: true }), [1, 2]);
  assert.equal(shape(t), '3');
});

test('delete removes children; unknown ids 1006 unless ignored', () => {
  const t = tree([[1, null], [2, 1], [3, 2], [4, null]]);
  assert.throws(() => t.deleteRows([99]), code(1006));
  assert.deepEqual(t.deleteRows([2, 99], { ignoreMissing: true }), [2, 3]);
  assert.equal(shape(t), '1 4');
  assert.equal(t.size, 2);
});

test('sort keeps hierarchy: siblings sorted within their parent', () => {
  const t = tree([[5, null], [9, 5], [7, 5], [3, null], [8, 3], [6, 3]]);
  t.sort((a, b) => a - b);
  assert.equal(shape(t), '3 6<3 8<3 5 7<5 9<5');
});

// ---------------------------------------------------------------------------------------
// Property test against a naive reference: a flat display-order list of {id, parent}.

interface Flat { id: number; parent: number | null }

class Naive {
  rows: Flat[] = [];
  idx(id: number): number { return this.rows.findIndex((r) => r.id === id); }
  subtreeEnd(i: number): number {
    // index after the last descendant of rows[i]
    const anc = (j: number, a: number): boolean => {
      for (let p = this.rows[j]!.parent; p !== null; p = this.rows[this.idx(p)]!.parent) if (p === a) return true;
      return false;
    };
    let j = i + 1;
    while (j < this.rows.length && anc(j, this.rows[i]!.id)) j++;
    return j;
  }
  insertAt(rows: Flat[], loc: RowLocation): void {
    let at: number;
    let parent: number | null = null;
    if (loc.kind === 'top') at = 0;
    else if (loc.kind === 'parent') {
      parent = loc.parentId;
      const pi = this.idx(loc.parentId);
      at = loc.toBottom ? this.subtreeEnd(pi) : pi + 1;
    } else if (loc.kind === 'sibling') {
      const si = this.idx(loc.siblingId);
      parent = this.rows[si]!.parent;
      at = loc.above ? si : this.subtreeEnd(si);
    } else at = this.rows.length;
    for (const r of rows) if (r.parent === undefined || rows.every((x) => x.id !== r.parent)) r.parent = parent;
    this.rows.splice(at, 0, ...rows);
  }
  extract(ids: number[]): Flat[] {
    const set = new Set(ids);
    const roots = this.rows.filter((r) => set.has(r.id) && !this.ancestors(r.id).some((a) => set.has(a)));
    const out: Flat[] = [];
    for (const r of roots) {
      const i = this.idx(r.id);
      out.push(...this.rows.slice(i, this.subtreeEnd(i)).map((x) => ({ ...x })));
    }
    const gone = new Set(out.map((r) => r.id));
    this.rows = this.rows.filter((r) => !gone.has(r.id));
    // roots get a fresh parent on insert; descendants keep theirs
    const rootIds = new Set(roots.map((r) => r.id));
    for (const r of out) if (rootIds.has(r.id)) r.parent = -1 as unknown as null;
    return out;
  }
  ancestors(id: number): number[] {
    const out: number[] = [];
    for (let p = this.rows[this.idx(id)]!.parent; p !== null; p = this.rows[this.idx(p)]!.parent) out.push(p);
    return out;
  }
}

type Op =
  | { op: 'add'; n: number; loc: number; pick: number; flagB: boolean }
  | { op: 'move'; picks: number[]; loc: number; pick: number; flagB: boolean }
  | { op: 'indent' | 'outdent' | 'delete'; picks: number[] };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant('add' as const), n: fc.integer({ min: 1, max: 3 }), loc: fc.integer({ min: 0, max: 4 }), pick: fc.nat(), flagB: fc.boolean() }),
  fc.record({ op: fc.constant('move' as const), picks: fc.array(fc.nat(), { minLength: 1, maxLength: 3 }), loc: fc.integer({ min: 0, max: 4 }), pick: fc.nat(), flagB: fc.boolean() }),
  fc.record({ op: fc.constantFrom('indent' as const, 'outdent' as const, 'delete' as const), picks: fc.array(fc.nat(), { minLength: 1, maxLength: 2 }) }),
);

function locFor(kind: number, rows: Flat[], pick: number, flagB: boolean): RowLocation {
  if (rows.length === 0 || kind <= 1) return kind === 0 ? { kind: 'top' } : { kind: 'bottom' };
  const target = rows[pick % rows.length]!.id;
  if (kind === 2 || kind === 3) return { kind: 'parent', parentId: target, toBottom: kind === 3 };
  return { kind: 'sibling', siblingId: target, above: flagB };
}

test('property: random adds, moves, indents, outdents, deletes match the naive model', () => {
  fc.assert(fc.property(fc.array(opArb, { maxLength: 40 }), (ops) => {
    const t = RowTree.fromDisplayOrder([]);
    const m = new Naive();
    let next = 1;
    for (const o of ops) {
      if (o.op === 'add') {
        const loc = locFor(o.loc, m.rows, o.pick, o.flagB);
        const ids = Array.from({ length: o.n }, () => next++);
        t.addRows(ids.map((id) => ({ id })), loc);
        m.insertAt(ids.map((id) => ({ id, parent: null })), loc);
      } else {
        if (m.rows.length === 0) continue;
        const ids = [...new Set(o.picks.map((p) => m.rows[p % m.rows.length]!.id))];
        if (o.op === 'delete') {
          const deleted = t.deleteRows(ids);
          const before = m.rows.length;
          const gone = new Set(m.extract(ids).map((r) => r.id));
          assert.equal(deleted.length, gone.size);
          assert.equal(before - m.rows.length, gone.size);
        } else if (o.op === 'move') {
          const loc = locFor(o.loc, m.rows, o.pick, o.flagB);
          const target = loc.kind === 'parent' ? loc.parentId : loc.kind === 'sibling' ? loc.siblingId : null;
          const inside = target !== null && (ids.includes(target) || ids.some((id) => t.isAncestor(id, target)));
          if (inside) {
            assert.throws(() => t.moveRows(ids, loc), (e: unknown) => code(1063)(e) || code(1064)(e));
            continue;
          }
          t.moveRows(ids, loc);
          const moved = m.extract(ids);
          const rootIds = new Set(moved.filter((r) => (r.parent as unknown) === -1).map((r) => r.id));
          const newParent = loc.kind === 'parent' ? loc.parentId : loc.kind === 'sibling' ? m.rows[m.idx(loc.siblingId)]!.parent : null;
          for (const r of moved) if (rootIds.has(r.id)) r.parent = newParent;
          let at: number;
          if (loc.kind === 'top') at = 0;
          else if (loc.kind === 'parent') { const pi = m.idx(loc.parentId); at = loc.toBottom ? m.subtreeEnd(pi) : pi + 1; }
          else if (loc.kind === 'sibling') { const si = m.idx(loc.siblingId); at = loc.above ? si : m.subtreeEnd(si); }
          else at = m.rows.length;
          m.rows.splice(at, 0, ...moved);
        } else {
          // indent / outdent one row at a time in display order; the naive rule works on the flat list
          const row = ids[0]!;
          const i = m.idx(row);
          const parent = m.rows[i]!.parent;
          if (o.op === 'indent') {
            let j = i - 1;
            while (j >= 0 && m.rows[j]!.parent !== parent && m.rows[j]!.id !== parent) j--;
            if (j < 0 || m.rows[j]!.id === parent) {
              assert.throws(() => t.moveRows([row], { kind: 'indent' }), code(1062));
              continue;
            }
            t.moveRows([row], { kind: 'indent' });
            m.rows[i]!.parent = m.rows[j]!.id;
          } else {
            if (parent === null) {
              assert.throws(() => t.moveRows([row], { kind: 'outdent' }), code(1062));
              continue;
            }
            t.moveRows([row], { kind: 'outdent' });
            const end = m.subtreeEnd(i);
            for (let k = end; k < m.rows.length; k++) if (m.rows[k]!.parent === parent) m.rows[k]!.parent = row;
            m.rows[i]!.parent = m.rows[m.idx(parent)]!.parent;
          }
        }
      }
      // invariants after every step
      const pos = t.positions();
      assert.deepEqual(pos.map((p) => p.id), m.rows.map((r) => r.id));
      assert.deepEqual(pos.map((p) => p.parentId ?? null), m.rows.map((r) => r.parent));
      const seen = new Set<number>();
      pos.forEach((p, i) => {
        assert.equal(p.rowNumber, i + 1);
        assert.equal(t.rowNumberOf(p.id), i + 1);
        if (p.parentId !== undefined) assert.ok(seen.has(p.parentId), 'parent before child');
        seen.add(p.id);
      });
      assert.equal(t.size, m.rows.length);
    }
  }), { numRuns: 300 });
});

type CacheOp =
  | { op: 'add'; n: number; loc: number; pick: number; flagB: boolean }
  | { op: 'delete'; picks: number[] }
  | { op: 'deleteTail'; n: number }
  | { op: 'indent' | 'outdent'; pick: number };

const cacheOpArb: fc.Arbitrary<CacheOp> = fc.oneof(
  { arbitrary: fc.record({ op: fc.constant('add' as const), n: fc.integer({ min: 1, max: 4 }), loc: fc.integer({ min: 0, max: 5 }), pick: fc.nat(), flagB: fc.boolean() }), weight: 4 },
  { arbitrary: fc.record({ op: fc.constant('deleteTail' as const), n: fc.integer({ min: 1, max: 4 }) }), weight: 2 },
  { arbitrary: fc.record({ op: fc.constant('delete' as const), picks: fc.array(fc.nat(), { minLength: 1, maxLength: 2 }) }), weight: 1 },
  { arbitrary: fc.record({ op: fc.constantFrom('indent' as const, 'outdent' as const), pick: fc.nat() }), weight: 1 },
);

/** A tree built again from the child lists alone (no derived attribute of `t` read). */
function rebuilt(t: RowTree): RowTree {
  const rows: Array<{ id: number; parentId: number | null }> = [];
  const walk = (parentId: number | null): void => {
    for (const id of t.childrenOf(parentId)) {
      rows.push({ id, parentId });
      walk(id);
    }
  };
  walk(null);
  return RowTree.fromDisplayOrder(rows);
}

test('property: row numbers, previous siblings and display order kept across adds at the bottom and deletes of the last rows equal a fresh tree', () => {
  fc.assert(fc.property(fc.array(fc.tuple(cacheOpArb, fc.nat(7)), { maxLength: 40 }), (steps) => {
    const t = RowTree.fromDisplayOrder([]);
    let next = 1;
    for (const [o, reads] of steps) {
      const order = t.displayOrder();
      const held = [...order];
      try {
        if (o.op === 'add') {
          // 5: no location (the bottom)
          const loc: RowLocation = o.loc === 5 ? { kind: 'none' } : locFor(o.loc, order.map((id) => ({ id, parent: null })), o.pick, o.flagB);
          t.addRows(Array.from({ length: o.n }, () => ({ id: next++ })), loc);
        } else if (o.op === 'deleteTail') {
          t.deleteRows(order.slice(Math.max(0, order.length - o.n)));
        } else if (order.length > 0) {
          if (o.op === 'delete') t.deleteRows([...new Set(o.picks.map((p) => order[p % order.length]!))]);
          else t.moveRows([order[o.pick % order.length]!], { kind: o.op });
        }
      } catch (e) {
        if (!code(1062)(e)) throw e;
      }
      // an order handed out before the change is not changed by it
      assert.deepEqual(order, held);
      // the derived attributes read now (some steps read nothing, leaving the caches empty)
      const fresh = rebuilt(t);
      const want = fresh.displayOrder();
      if (reads & 1) assert.deepEqual(t.displayOrder(), want);
      if (reads & 2) for (const id of want) assert.equal(t.rowNumberOf(id), fresh.rowNumberOf(id));
      if (reads & 4) for (const id of want) assert.equal(t.siblingIdOf(id), fresh.siblingIdOf(id));
    }
    const fresh = rebuilt(t);
    assert.deepEqual(t.displayOrder(), fresh.displayOrder());
    for (const id of fresh.displayOrder()) {
      assert.equal(t.rowNumberOf(id), fresh.rowNumberOf(id));
      assert.equal(t.siblingIdOf(id), fresh.siblingIdOf(id));
      assert.equal(t.rowIdAt(t.rowNumberOf(id)!), id);
    }
    for (let id = 1; id < next; id++) {
      if (t.has(id)) continue;
      assert.equal(t.rowNumberOf(id), undefined);
      assert.equal(t.siblingIdOf(id), undefined);
    }
  }), { numRuns: 400 });
});
