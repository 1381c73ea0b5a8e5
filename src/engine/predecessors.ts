/**
 * PREDECESSOR cells: the text form "12FS +3d 4h, 14SS, 7" (row numbers, dependency type,
 * optional lag), the PredecessorList object form, and the sheet-wide validity check
 * (predecessor row missing, circular through predecessors and hierarchy).
 *
 * Stored predecessors reference rows by id, so the text is re-rendered from current row
 * numbers whenever rows move.
 */
import { formatDuration, normaliseDurationObject, parseDuration, type Duration } from './duration.ts';

export const PREDECESSOR_TYPES = ['FS', 'FF', 'SS', 'SF'] as const;
export type PredecessorType = (typeof PREDECESSOR_TYPES)[number];

/** One stored predecessor. */
export interface StoredPredecessor {
  rowId: number;
  type: PredecessorType;
  lag?: Duration;
}

/** The API Predecessor object. */
export interface ApiPredecessor {
  rowId: number;
  rowNumber?: number;
  type: PredecessorType;
  lag?: Duration;
  invalid?: boolean;
  inCriticalPath: boolean;
}

export interface PredecessorList {
  objectType: 'PREDECESSOR_LIST';
  predecessors: ApiPredecessor[];
}

const ITEM = /^(\d+)\s*(fs|ff|ss|sf)?\s*(?:([+-])\s*(.+))?$/i;

/**
 * Parse the text form. `rowIdOfNumber` maps a row number of the sheet to its row id. Returns
 * null when the text is not a predecessor list or names a row number that is not in the sheet
 * (the caller turns that into 1042 when strict, free text when lenient). An empty string is
 * an empty list.
 */
export function parsePredecessorText(text: string, rowIdOfNumber: (rowNumber: number) => number | undefined): StoredPredecessor[] | null {
  const t = text.trim();
  if (t === '') return [];
  const out: StoredPredecessor[] = [];
  for (const raw of t.split(/[,;]/)) {
    const m = ITEM.exec(raw.trim());
    if (!m) return null;
    const rowId = rowIdOfNumber(Number(m[1]));
    if (rowId === undefined) return null;
    const p: StoredPredecessor = { rowId, type: (m[2]?.toUpperCase() ?? 'FS') as PredecessorType };
    if (m[3] !== undefined) {
      const lag = parseDuration(m[3] + m[4]!, true);
      if (lag === null) return null;
      if (!isZeroDuration(lag)) p.lag = lag;
    }
    out.push(p);
  }
  return out;
}

function isZeroDuration(d: Duration): boolean {
  return (d.weeks ?? 0) === 0 && (d.days ?? 0) === 0 && (d.hours ?? 0) === 0 && (d.minutes ?? 0) === 0
    && (d.seconds ?? 0) === 0 && (d.milliseconds ?? 0) === 0;
}

/**
 * Read a written PredecessorList objectValue. Returns null when malformed (the caller gives
 * 1031/1131). Row ids are kept even when not in the sheet: they present as invalid.
 */
export function parsePredecessorObject(v: unknown): StoredPredecessor[] | null {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return null;
  const o = v as Record<string, unknown>;
  if (o.objectType !== 'PREDECESSOR_LIST') return null;
  const list = o.predecessors ?? [];
  if (!Array.isArray(list)) return null;
  const out: StoredPredecessor[] = [];
  for (const x of list as unknown[]) {
    if (typeof x !== 'object' || x === null || Array.isArray(x)) return null;
    const p = x as Record<string, unknown>;
    if (typeof p.rowId !== 'number' || !Number.isSafeInteger(p.rowId)) return null;
    const type = p.type ?? 'FS';
    if (typeof type !== 'string' || !(PREDECESSOR_TYPES as readonly string[]).includes(type)) return null;
    const sp: StoredPredecessor = { rowId: p.rowId, type: type as PredecessorType };
    if (p.lag !== undefined && p.lag !== null) {
      const lag = normaliseDurationObject(p.lag, true);
      if (lag === null) return null;
      if (!isZeroDuration(lag)) sp.lag = lag;
    }
    out.push(sp);
  }
  return out;
}

/** Key of one predecessor edge in the invalid set. */
export function predecessorKey(rowId: number, predecessorRowId: number): string {
  return `${rowId}>${predecessorRowId}`;
}

/**
 * The text of a predecessor list with current row numbers: "7, 12FS +3d 4h, 14SS". A plain
 * finish-to-start dependency without lag is just the row number; a predecessor whose row is
 * not in the sheet reads "#REF".
 */
export function formatPredecessors(list: readonly StoredPredecessor[], rowNumberOf: (rowId: number) => number | undefined): string {
  return list.map((p) => {
    const n = rowNumberOf(p.rowId);
    const head = n === undefined ? '#REF' : String(n);
    if (p.lag === undefined) return p.type === 'FS' ? head : head + p.type;
    const lag = formatDuration(p.lag);
    return `${head}${p.type} ${lag.startsWith('-') ? lag : '+' + lag}`;
  }).join(', ');
}

/** The PredecessorList object of a cell in row `rowId`. */
export function presentPredecessorList(
  rowId: number,
  list: readonly StoredPredecessor[],
  rowNumberOf: (rowId: number) => number | undefined,
  invalid?: ReadonlySet<string>,
  critical?: ReadonlySet<string>,
): PredecessorList {
  return {
    objectType: 'PREDECESSOR_LIST',
    predecessors: list.map((p) => {
      const n = rowNumberOf(p.rowId);
      const out: ApiPredecessor = { rowId: p.rowId, type: p.type, inCriticalPath: critical?.has(predecessorKey(rowId, p.rowId)) === true };
      const bad = n === undefined || invalid?.has(predecessorKey(rowId, p.rowId)) === true;
      if (bad) out.invalid = true;
      else out.rowNumber = n;
      if (p.lag !== undefined) out.lag = { ...p.lag };
      return out;
    }),
  };
}

/** A row as the validity check sees it. */
export interface PredecessorGraphRow {
  id: number;
  parentId?: number | null;
  predecessors?: readonly number[];
}

/**
 * Sheet-wide check of predecessor edges. Returns the keys (predecessorKey) of invalid edges:
 * - the predecessor row is not in the sheet;
 * - the predecessor is the row itself, one of its ancestors or one of its descendants;
 * - the edge lies on a cycle of the dependency graph, whose edges are row -> predecessor,
 *   parent -> child (a parent's dates roll up from its children) and row -> each predecessor of
 *   its ancestors, for a row without children (a parent's predecessors drive its children's
 *   starts); an edge of the last kind on a cycle makes the ancestor's predecessor invalid.
 * O(rows x depth + edges): one iterative Tarjan pass.
 */
export function findInvalidPredecessors(rows: readonly PredecessorGraphRow[]): Set<string> {
  const invalid = new Set<string>();
  const idx = new Map<number, number>();
  rows.forEach((r, i) => idx.set(r.id, i));
  const n = rows.length;
  const parent = new Int32Array(n).fill(-1);
  const adj: number[][] = Array.from({ length: n }, () => []);
  rows.forEach((r, i) => {
    if (r.parentId !== undefined && r.parentId !== null) {
      const p = idx.get(r.parentId);
      if (p !== undefined) {
        parent[i] = p;
        adj[p]!.push(i);
      }
    }
  });
  const isAncestor = (a: number, of: number): boolean => {
    for (let x = parent[of]!; x >= 0; x = parent[x]!) if (x === a) return true;
    return false;
  };
  const edges: [number, number][] = [];
  rows.forEach((r, i) => {
    for (const pid of r.predecessors ?? []) {
      const j = idx.get(pid);
      if (j === undefined || j === i || isAncestor(j, i) || isAncestor(i, j)) {
        invalid.add(predecessorKey(r.id, pid));
        continue;
      }
      adj[i]!.push(j);
      edges.push([i, j]);
    }
  });
  // a row without children starts after the predecessors of its ancestors too
  const inherited: [number, number, string][] = [];
  const children: number[][] = Array.from({ length: n }, () => []);
  for (let i = 0; i < n; i++) if (parent[i]! >= 0) children[parent[i]!]!.push(i);
  for (const [a, j] of edges) {
    if (children[a]!.length === 0) continue;
    const key = predecessorKey(rows[a]!.id, rows[j]!.id);
    const stack = [...children[a]!];
    while (stack.length > 0) {
      const d = stack.pop()!;
      if (children[d]!.length > 0) {
        stack.push(...children[d]!);
        continue;
      }
      adj[d]!.push(j);
      inherited.push([d, j, key]);
    }
  }
  const comp = tarjan(adj);
  for (const [i, j] of edges) if (comp[i] === comp[j]) invalid.add(predecessorKey(rows[i]!.id, rows[j]!.id));
  for (const [d, j, key] of inherited) if (comp[d] === comp[j]) invalid.add(key);
  return invalid;
}

/** Strongly connected component id per node (iterative Tarjan). */
function tarjan(adj: readonly (readonly number[])[]): Int32Array {
  const n = adj.length;
  const index = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const comp = new Int32Array(n).fill(-1);
  const onStack = new Uint8Array(n);
  const stack: number[] = [];
  const callNode: number[] = [];
  const callEdge: number[] = [];
  let counter = 0;
  let comps = 0;
  for (let s = 0; s < n; s++) {
    if (index[s] !== -1) continue;
    callNode.push(s);
    callEdge.push(0);
    index[s] = low[s] = counter++;
    stack.push(s);
    onStack[s] = 1;
    while (callNode.length > 0) {
      const v = callNode[callNode.length - 1]!;
      const e = callEdge[callEdge.length - 1]!;
      const out = adj[v]!;
      if (e < out.length) {
        callEdge[callEdge.length - 1] = e + 1;
        const w = out[e]!;
        if (index[w] === -1) {
          index[w] = low[w] = counter++;
          stack.push(w);
          onStack[w] = 1;
          callNode.push(w);
          callEdge.push(0);
        } else if (onStack[w] === 1) {
          low[v] = Math.min(low[v]!, index[w]!);
        }
        continue;
      }
      if (low[v] === index[v]) {
        let w: number;
        do {
          w = stack.pop()!;
          onStack[w] = 0;
          comp[w] = comps;
        } while (w !== v);
        comps++;
      }
      callNode.pop();
      callEdge.pop();
      if (callNode.length > 0) {
        const u = callNode[callNode.length - 1]!;
        low[u] = Math.min(low[u]!, low[v]!);
      }
    }
  }
  return comp;
}
