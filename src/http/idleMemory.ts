import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import vm from 'node:vm';

/**
 * Memory given back when the server goes quiet. V8 grows its heap to fit the garbage of a busy
 * spell (a sheet of 500,000 cells loaded through the API, a burst of whole-sheet reads) and keeps
 * that memory while nothing allocates: an idle process never collects, and V8's own memory
 * reducer took more than 30 s to shrink it in our measurements. So each second a watcher looks
 * at the last one: when the process worked before and has been quiet since, and the resident
 * size grew by `growth` bytes since the last collection, what the holders registered here keep
 * for reuse is dropped and a full GC runs. A process under steady load is never collected from
 * here (V8 does that itself), and one that stays quiet is collected once.
 */
export interface IdleHolder {
  /** Work is under way that a collection would pause (e.g. large bodies being written or sent). */
  busy(): boolean;
  /** Drops what is kept for reuse, before the collection. */
  release(): void;
}

const holders: IdleHolder[] = [];

/** Registers something that keeps memory for reuse while the server is busy (module level, once). */
export function holdUntilIdle(h: IdleHolder): void {
  holders.push(h);
}

let gc: (() => void) | undefined;

function collect(): void {
  // node starts without --expose-gc; the flag set at run time applies to a new context
  if (gc === undefined) {
    v8.setFlagsFromString('--expose-gc');
    gc = vm.runInNewContext('gc') as () => void;
  }
  // twice: the second collection gives back pages the first left partly used (measured, idle
  // after loading a 500,000-cell sheet: 325 MB after one, 277 MB after two)
  gc();
  gc();
}

export interface IdleWatchOptions {
  intervalMs?: number;
  /** Resident bytes grown since the last collection that make one worth its pause. */
  growth?: number;
}

/** Share of a second the event loop spent running code, above which that second counts as work. */
const BUSY = 0.02;

/**
 * Watches the process until the function it returns is called. Work is read from the event
 * loop's utilization (no hook on every request): a second in which it ran code for more than
 * 20 ms counted as busy, and a following one below that as quiet.
 */
export function watchIdle(o: IdleWatchOptions = {}): () => void {
  const growth = o.growth ?? 32 * 1024 * 1024;
  let worked = false;
  let base = process.memoryUsage.rss();
  // V8 unmaps freed pages on background threads: the resident size a collection leaves is read a tick later
  let settling = false;
  let before = performance.eventLoopUtilization();
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const busy = performance.eventLoopUtilization(now, before).utilization > BUSY;
    before = now;
    if (settling) {
      settling = false;
      base = process.memoryUsage.rss();
    }
    if (busy) {
      worked = true;
      return;
    }
    if (!worked || holders.some((h) => h.busy())) return;
    worked = false;
    if (process.memoryUsage.rss() < base + growth) return;
    for (const h of holders) h.release();
    collect();
    settling = true;
  }, o.intervalMs ?? 1000);
  timer.unref();
  return () => clearInterval(timer);
}
