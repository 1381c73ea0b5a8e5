import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import vm from 'node:vm';

/**
 * Memory given back when the server goes quiet. V8 grows its heap to fit the garbage of a busy
 * spell (a sheet of 500,000 cells loaded through the API, a burst of whole-sheet reads) and keeps
 * that memory while nothing allocates: an idle process never collects, and V8's own memory
 * reducer took more than 30 s to shrink it in our measurements. So each second a watcher looks
 * at the last one: when the process worked before and has been quiet since, and either the
 * resident size grew by `growth` bytes since the last collection or the holders registered here
 * keep that much for reuse, what they keep is dropped and a full GC runs (compacting the old
 * generation); if the process then stays quiet for YOUNG_AFTER_MS, a young-generation collection
 * lets V8 shrink its young generation. A process under steady load is never collected from here
 * (V8 does that itself), and one that stays quiet is collected once.
 *
 * A thread has a heap of its own and runs a watcher of its own (the search index's thread:
 * services/log/indexThreadMain.ts; the resident size it reads is the process's). The V8 flags
 * set here are the process's: two threads collecting in the same moment may compact less.
 */
export interface IdleHolder {
  /** Work is under way that a collection would pause (e.g. large bodies being written or sent). */
  busy(): boolean;
  /** Bytes kept that release() would drop (an estimate). */
  holds(): number;
  /** Drops what is kept for reuse, before the collection. */
  release(): void;
}

const holders: IdleHolder[] = [];

/** Registers something that keeps memory for reuse while the server is busy (module level, once). */
export function holdUntilIdle(h: IdleHolder): void {
  holders.push(h);
}

type Gc = (o?: { type: 'major' | 'minor' }) => void;
let gc: Gc | undefined;

function gcFunction(): Gc {
  // node starts without --expose-gc; the flag set at run time applies to a new context
  if (gc === undefined) {
    v8.setFlagsFromString('--expose-gc');
    gc = vm.runInNewContext('gc') as Gc;
  }
  return gc;
}

function collect(): void {
  const run = gcFunction();
  // Every page of the old generation compacted, for these collections only: V8 otherwise moves
  // objects off few pages and leaves the rest partly used (after a full read of a 500,000-cell
  // sheet: old space 116 MB for 101 MB of objects; compacted, 102 MB). Twice: the second gives
  // back pages the first left partly used (measured, idle after loading a 500,000-cell sheet:
  // 325 MB after one, 277 MB after two).
  v8.setFlagsFromString('--compact-on-every-full-gc');
  try {
    run();
    run();
  } finally {
    v8.setFlagsFromString('--no-compact-on-every-full-gc');
  }
}

/**
 * V8 shrinks its young generation (grown to 2 x 16 MB by any busy spell, the server's start
 * included) at a young-generation collection that finds the allocation rate of the last 5 s low,
 * which a quiet process never runs by itself: one is run when the process has been quiet this
 * long since it worked and since the last collection from here (measured: 32 MB -> 1 MB).
 */
const YOUNG_AFTER_MS = 5500;

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
  // The lowest resident size seen since the last collection. V8 unmaps the pages a collection
  // freed on background threads, over seconds on a loaded machine (a second after one, 287 MB;
  // a second later, 239 MB): growth counted from the first reading after it missed the next
  // full read of a 500,000-cell sheet (+60 MB, never given back).
  let low = process.memoryUsage.rss();
  // the process worked since the young generation was last shrunk from here; since when it is quiet
  let young = true;
  let quietSince = performance.now();
  let ownGc = false;
  let before = performance.eventLoopUtilization();
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    // the second after a collection from here is not counted as work (the collection's pause and what V8 does after it)
    const busy = performance.eventLoopUtilization(now, before).utilization > BUSY && !ownGc;
    before = now;
    ownGc = false;
    const rss = process.memoryUsage.rss();
    if (rss < low) low = rss;
    if (busy) {
      worked = true;
      young = true;
      quietSince = performance.now();
      return;
    }
    if (young && !worked && performance.now() - quietSince >= YOUNG_AFTER_MS) {
      young = false;
      gcFunction()({ type: 'minor' });
      ownGc = true;
      return;
    }
    if (!worked || holders.some((h) => h.busy())) return;
    worked = false;
    // what the holders keep counts even when it was already there at the low reading (a read
    // that began before the pages of the last collection were given back)
    const held = holders.reduce((sum, h) => sum + h.holds(), 0);
    if (rss < low + growth && held < growth) return;
    for (const h of holders) h.release();
    collect();
    low = process.memoryUsage.rss();
    quietSince = performance.now();
    ownGc = true;
  }, o.intervalMs ?? 1000);
  timer.unref();
  return () => clearInterval(timer);
}
