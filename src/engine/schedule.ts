/**
 * Project scheduling of a sheet with dependencies enabled: the dates a row's duration,
 * predecessors and children give it, over the sheet's working calendar (calendar.ts), and the
 * critical path.
 *
 * - A row with a start and a duration ends when that much working time (or clock time, for an
 *   elapsed duration) has passed from its first working instant: `3d` from Monday ends
 *   Wednesday. A duration of 0 is a milestone: it ends where it starts.
 * - A row's predecessors, and those of its ancestors, give its start: the latest of what each
 *   asks (FS: after the predecessor's finish; SS: at its start; FF: finishing when it finishes;
 *   SF: finishing when it starts; each moved by its lag, in working or elapsed time).
 * - A row with children rolls them up: the earliest start, the latest end, the working time in
 *   between as its duration, and its % complete weighted by the children's working time.
 * - A row with a start and an end but no duration (written before sheetd computed schedules)
 *   gets the duration between them, counting the end's whole day.
 *
 * An End value is the last second of work ("2026-01-07T15:59:59" for a day ending at 16:00), so
 * that it names the day the work ends even when a working day runs until midnight.
 *
 * The functions here only compute: given the rows' stored cells, they return the cells whose
 * values differ from what is stored, the invalid predecessor edges and the critical path.
 */
import type { StoredRowCells, StoredValue } from './cells.ts';
import type { ColumnType } from './columns.ts';
import { DAY_MS, durationLength, durationOfWork, type WorkCalendar } from './calendar.ts';
import type { Duration } from './duration.ts';
import { findInvalidPredecessors, predecessorKey, type StoredPredecessor } from './predecessors.ts';
import { projectDayStart } from './values.ts';

/** The Column tags of a dependency-enabled sheet: which column plays which part. */
export const GANTT_TAGS = {
  start: 'GANTT_START_DATE',
  end: 'GANTT_END_DATE',
  duration: 'GANTT_DURATION',
  predecessors: 'GANTT_PREDECESSOR',
  percentComplete: 'GANTT_PERCENT_COMPLETE',
  assignedResource: 'GANTT_ASSIGNED_RESOURCE',
  displayLabel: 'GANTT_DISPLAY_LABEL',
  allocation: 'GANTT_ALLOCATION',
} as const;

/** The columns of a project sheet's schedule, by id. */
export interface ProjectColumns {
  start: number;
  end: number;
  duration?: number;
  predecessors?: number;
  percentComplete?: number;
}

interface TaggedColumn {
  id: number;
  type: ColumnType;
  tags?: readonly string[];
}

/**
 * The schedule's columns of a dependency-enabled sheet, by their tags. A sheet whose columns
 * carry no Gantt tag (made before sheetd tagged them) takes its first two ABSTRACT_DATETIME
 * columns as start and end, and its DURATION and PREDECESSOR columns. Undefined without a start
 * and an end column.
 */
export function projectColumnsOf(columns: readonly TaggedColumn[]): ProjectColumns | undefined {
  const tagged = (tag: string) => columns.find((c) => c.tags?.includes(tag))?.id;
  const anyTag = columns.some((c) => c.tags?.some((t) => t.startsWith('GANTT_')) === true);
  let out: Partial<ProjectColumns>;
  if (anyTag) {
    out = {
      start: tagged(GANTT_TAGS.start), end: tagged(GANTT_TAGS.end), duration: tagged(GANTT_TAGS.duration),
      predecessors: tagged(GANTT_TAGS.predecessors), percentComplete: tagged(GANTT_TAGS.percentComplete),
    };
  } else {
    const dates = columns.filter((c) => c.type === 'ABSTRACT_DATETIME');
    out = {
      start: dates[0]?.id, end: dates[1]?.id,
      duration: columns.find((c) => c.type === 'DURATION')?.id,
      predecessors: columns.find((c) => c.type === 'PREDECESSOR')?.id,
    };
  }
  if (out.start === undefined || out.end === undefined) return undefined;
  const cols: ProjectColumns = { start: out.start, end: out.end };
  if (out.duration !== undefined) cols.duration = out.duration;
  if (out.predecessors !== undefined) cols.predecessors = out.predecessors;
  if (out.percentComplete !== undefined) cols.percentComplete = out.percentComplete;
  return cols;
}

/** The ids of the columns whose cells the schedule computes (start, end, duration, % complete). */
export function scheduleColumnIds(p: ProjectColumns): number[] {
  return [p.start, p.end, p.duration, p.predecessors, p.percentComplete].filter((x): x is number => x !== undefined);
}

/** A row as the schedule reads it: id, parent, stored cells (rows given in display order). */
export interface ScheduleRow {
  id: number;
  parentId: number | null;
  cells: StoredRowCells;
}

export interface ScheduleCellChange {
  rowId: number;
  columnId: number;
  /** The computed value (undefined: the cell is cleared). */
  v: StoredValue | undefined;
}

export interface Schedule {
  /** Cells whose computed value is not what is stored. */
  changes: ScheduleCellChange[];
  /** Invalid predecessor edges (predecessorKey): row missing, self or kin, or on a cycle. */
  invalid: Set<string>;
  /** Predecessor edges (predecessorKey) on the critical path. */
  critical: Set<string>;
  /** Rows without children on the critical path. */
  criticalRows: Set<number>;
}

export interface ScheduleOptions {
  /** Rows whose duration the write being scheduled cleared: their end goes with it. */
  durationCleared?: ReadonlySet<number>;
}

interface ValidPredecessor {
  p: StoredPredecessor;
  /** The predecessor's row (index). */
  j: number;
  key: string;
}
const NONE: ValidPredecessor[] = [];

/** Whether a computed value is the stored one (dates, durations, numbers, or both blank). */
function sameValue(a: StoredValue | undefined, b: StoredValue | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || typeof a !== 'object' || typeof b !== 'object') return false;
  if ('t' in a && 't' in b) return a.t === b.t;
  if ('du' in a && 'du' in b) {
    const x = a.du;
    const y = b.du;
    return x.weeks === y.weeks && x.days === y.days && x.hours === y.hours && x.minutes === y.minutes && x.seconds === y.seconds
      && x.milliseconds === y.milliseconds && x.elapsed === y.elapsed && x.negative === y.negative;
  }
  return JSON.stringify(a) === JSON.stringify(b);
}

interface Length {
  ms: number;
  elapsed: boolean;
}

interface Task {
  id: number;
  parent: number;
  children: number[];
  preds: readonly StoredPredecessor[];
  storedStart?: number;
  storedEnd?: number;
  du?: Duration;
  len?: Length;
  percent?: number;
  // computed
  start?: number;
  finish?: number;
  end?: number;
  /** Constraints (edge keys with the row they come from) that give the start. */
  drivers: Array<{ key: string; pred: number; type: StoredPredecessor['type'] }>;
}

function instantOf(v: StoredValue | undefined): number | undefined {
  if (v === undefined || typeof v !== 'object') return undefined;
  if ('t' in v) return Number.isFinite(v.t) ? v.t : undefined;
  if ('d' in v) return projectDayStart(v.d);
  return undefined;
}

function durationOf(v: StoredValue | undefined): Duration | undefined {
  return v !== undefined && typeof v === 'object' && 'du' in v ? v.du : undefined;
}

function predecessorsOf(v: StoredValue | undefined): readonly StoredPredecessor[] {
  return v !== undefined && typeof v === 'object' && 'p' in v ? v.p : [];
}

/** The schedule of a project sheet's rows. O(rows x depth + edges), plus the calendar walks. */
export function scheduleProject(rows: readonly ScheduleRow[], cols: ProjectColumns, cal: WorkCalendar, opts: ScheduleOptions = {}): Schedule {
  const index = new Map<number, number>();
  rows.forEach((r, i) => index.set(r.id, i));
  const key = (c: number | undefined) => (c === undefined ? undefined : String(c));
  const kStart = key(cols.start)!;
  const kEnd = key(cols.end)!;
  const kDuration = key(cols.duration);
  const kPreds = key(cols.predecessors);
  const kPercent = key(cols.percentComplete);
  const tasks: Task[] = rows.map((r) => {
    const c = r.cells;
    const t: Task = { id: r.id, parent: -1, children: [], preds: kPreds === undefined ? [] : predecessorsOf(c[kPreds]?.v), drivers: [] };
    const s = instantOf(c[kStart]?.v);
    if (s !== undefined) t.storedStart = s;
    const e = instantOf(c[kEnd]?.v);
    if (e !== undefined) t.storedEnd = e;
    const du = kDuration === undefined ? undefined : durationOf(c[kDuration]?.v);
    if (du !== undefined) {
      t.du = du;
      t.len = durationLength(du, cal);
    }
    const pc = kPercent === undefined ? undefined : c[kPercent]?.v;
    if (typeof pc === 'number' && Number.isFinite(pc)) t.percent = pc;
    return t;
  });
  rows.forEach((r, i) => {
    const p = r.parentId === null ? undefined : index.get(r.parentId);
    if (p !== undefined) {
      tasks[i]!.parent = p;
      tasks[p]!.children.push(i);
    }
  });
  const invalid = findInvalidPredecessors(rows.map((r, i) => ({ id: r.id, parentId: r.parentId, predecessors: tasks[i]!.preds.map((p) => p.rowId) })));
  // each row's valid predecessors, with their rows and keys (made once: a row's are read by each descendant)
  const valid: ValidPredecessor[][] = tasks.map((t) => {
    if (t.preds.length === 0) return NONE;
    const out: ValidPredecessor[] = [];
    for (const p of t.preds) {
      const j = index.get(p.rowId);
      const k = predecessorKey(t.id, p.rowId);
      if (j !== undefined && !invalid.has(k)) out.push({ p, j, key: k });
    }
    return out;
  });

  // what each row waits for: its children (a parent), or its predecessors and its ancestors'
  const waitsFor = tasks.map((t, i) => {
    if (t.children.length > 0) return t.children;
    const deps: number[] = [];
    for (let a = i; a >= 0; a = tasks[a]!.parent) for (const v of valid[a]!) deps.push(v.j);
    return deps;
  });
  const order = topologicalOrder(waitsFor);

  const shift = (t: number, lag: Duration | undefined): number => {
    if (lag === undefined) return t;
    const { ms, elapsed } = durationLength(lag, cal);
    const sign = lag.negative === true ? -1 : 1;
    if (elapsed) return t + sign * ms;
    return sign > 0 ? cal.addWork(t, ms) : cal.subtractWork(t, ms);
  };
  const startFor = (finish: number, len: Length): number => (len.elapsed ? finish - len.ms : len.ms === 0 ? finish : cal.subtractWork(finish, len.ms));
  const finishOf = (start: number, len: Length): number => (len.elapsed ? start + len.ms : len.ms === 0 ? start : cal.addWork(cal.nextWorkInstant(start), len.ms));
  const endOf = (start: number, finish: number): number => (finish <= start ? start : Math.max(start, cal.finishDay(finish) - 1000));
  /** The start a predecessor asks of a row (undefined when the predecessor lacks the date). */
  const constraint = (p: StoredPredecessor, pred: Task, len: Length | undefined): number | undefined => {
    switch (p.type) {
      case 'FS': return pred.finish === undefined ? undefined : cal.nextWorkInstant(shift(pred.finish, p.lag));
      case 'SS': return pred.start === undefined ? undefined : cal.nextWorkInstant(shift(cal.nextWorkInstant(pred.start), p.lag));
      case 'FF': return pred.finish === undefined || len === undefined ? undefined : startFor(shift(pred.finish, p.lag), len);
      case 'SF': return pred.start === undefined || len === undefined ? undefined : startFor(shift(cal.nextWorkInstant(pred.start), p.lag), len);
    }
  };

  const changes: ScheduleCellChange[] = [];
  const rowsCells = (i: number) => rows[i]!.cells;
  const set = (i: number, k: string | undefined, v: StoredValue | undefined) => {
    if (k === undefined) return;
    const before = rowsCells(i)[k]?.v;
    if (!sameValue(before, v)) changes.push({ rowId: rows[i]!.id, columnId: Number(k), v });
  };

  for (const i of order) {
    const t = tasks[i]!;
    if (t.children.length > 0) {
      rollUp(t, i);
      continue;
    }
    const cleared = opts.durationCleared?.has(t.id) === true;
    const blankDuration = kDuration !== undefined && rowsCells(i)[kDuration]?.v === undefined;
    if (blankDuration && !cleared && t.storedStart !== undefined && t.storedEnd !== undefined) {
      // start and end without a duration: the duration between them, the end's day counted
      // whole, taken before the predecessors are read (FF and SF ask by the row's length)
      const finish = Math.max(t.storedEnd + 1000, Math.floor(t.storedEnd / DAY_MS) * DAY_MS + cal.windowStart + cal.dayMs);
      if (finish > t.storedStart) {
        const du = durationOfWork(cal.workBetween(cal.nextWorkInstant(t.storedStart), finish), cal);
        t.du = du;
        t.len = durationLength(du, cal);
        set(i, kDuration, { du });
      }
    }
    // the start: the latest of what the predecessors (own and inherited) ask
    let driven: number | undefined;
    for (let a = i; a >= 0; a = tasks[a]!.parent) {
      for (const { p, j, key: k } of valid[a]!) {
        const c = constraint(p, tasks[j]!, t.len);
        if (c === undefined) continue;
        if (driven === undefined || c > driven) {
          driven = c;
          t.drivers = [];
        }
        if (c === driven) t.drivers.push({ key: k, pred: j, type: p.type });
      }
    }
    t.start = driven ?? t.storedStart;
    if (driven !== undefined) set(i, kStart, { t: driven });
    if (t.start !== undefined && t.len !== undefined) {
      t.finish = finishOf(t.start, t.len);
      t.end = endOf(t.start, t.finish);
    }
    set(i, kEnd, t.end === undefined ? undefined : { t: t.end });
  }

  function rollUp(t: Task, i: number): void {
    let start: number | undefined;
    let finish: number | undefined;
    let end: number | undefined;
    for (const c of t.children) {
      const ch = tasks[c]!;
      if (ch.start !== undefined && (start === undefined || ch.start < start)) start = ch.start;
      if (ch.finish !== undefined && (finish === undefined || ch.finish > finish)) finish = ch.finish;
      if (ch.end !== undefined && (end === undefined || ch.end > end)) end = ch.end;
    }
    t.start = start;
    t.finish = start === undefined ? undefined : finish;
    t.end = start === undefined ? undefined : end;
    set(i, kStart, start === undefined ? undefined : { t: start });
    set(i, kEnd, t.end === undefined ? undefined : { t: t.end });
    let du: Duration | undefined;
    if (t.start !== undefined && t.finish !== undefined) {
      du = durationOfWork(Math.max(0, cal.workBetween(cal.nextWorkInstant(t.start), t.finish)), cal);
      t.du = du;
      t.len = durationLength(du, cal);
    }
    set(i, kDuration, du === undefined ? undefined : { du });
    if (kPercent !== undefined) {
      t.percent = percentOf(t.children.map((c) => tasks[c]!));
      set(i, kPercent, t.percent);
    }
  }

  function percentOf(children: readonly Task[]): number | undefined {
    if (!children.some((c) => c.percent !== undefined)) return undefined;
    let weighted = 0;
    let weights = 0;
    let sum = 0;
    for (const c of children) {
      const w = c.start !== undefined && c.finish !== undefined ? Math.max(0, cal.workBetween(cal.nextWorkInstant(c.start), c.finish)) : 0;
      weighted += (c.percent ?? 0) * w;
      weights += w;
      sum += c.percent ?? 0;
    }
    const p = weights > 0 ? weighted / weights : sum / children.length;
    return Math.round(p * 1e6) / 1e6;
  }

  const { critical, criticalRows } = criticalPath(tasks);
  return { changes, invalid, critical, criticalRows };
}

/**
 * Rows in an order where each comes after those it waits for (Kahn). Rows left on a cycle
 * (findInvalidPredecessors cuts every cycle, so none should be) come last, in sheet order.
 */
function topologicalOrder(waitsFor: readonly (readonly number[])[]): number[] {
  const n = waitsFor.length;
  const pending = new Int32Array(n);
  const waitedBy: number[][] = Array.from({ length: n }, () => []);
  for (let i = 0; i < n; i++) {
    for (const d of waitsFor[i]!) {
      pending[i]!++;
      waitedBy[d]!.push(i);
    }
  }
  const order: number[] = [];
  for (let i = 0; i < n; i++) if (pending[i] === 0) order.push(i);
  for (let k = 0; k < order.length; k++) {
    for (const w of waitedBy[order[k]!]!) if (--pending[w]! === 0) order.push(w);
  }
  if (order.length < n) for (let i = 0; i < n; i++) if (pending[i]! > 0) order.push(i);
  return order;
}

/**
 * The critical path: from the rows without children that finish last, back through the
 * predecessors that gave each its start (into a parent predecessor, down to the children that
 * gave it the date the dependency reads).
 */
function criticalPath(tasks: readonly Task[]): { critical: Set<string>; criticalRows: Set<number> } {
  const critical = new Set<string>();
  const criticalRows = new Set<number>();
  let last: number | undefined;
  for (const t of tasks) if (t.children.length === 0 && t.finish !== undefined && (last === undefined || t.finish > last)) last = t.finish;
  if (last === undefined) return { critical, criticalRows };
  const queue: number[] = [];
  tasks.forEach((t, i) => {
    if (t.children.length === 0 && t.finish === last) queue.push(i);
  });
  const reach = (i: number, byFinish: boolean): void => {
    const t = tasks[i]!;
    if (t.children.length === 0) {
      queue.push(i);
      return;
    }
    for (const c of t.children) {
      const ch = tasks[c]!;
      if (byFinish ? ch.finish !== undefined && ch.finish === t.finish : ch.start !== undefined && ch.start === t.start) reach(c, byFinish);
    }
  };
  while (queue.length > 0) {
    const i = queue.pop()!;
    const t = tasks[i]!;
    if (criticalRows.has(t.id)) continue;
    criticalRows.add(t.id);
    for (const d of t.drivers) {
      critical.add(d.key);
      reach(d.pred, d.type === 'FS' || d.type === 'FF');
    }
  }
  return { critical, criticalRows };
}
