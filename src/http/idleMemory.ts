import type { Server } from 'node:http';
import v8 from 'node:v8';
import vm from 'node:vm';

/**
 * Memory given back when the server goes quiet. V8 grows its heap to fit the garbage of a busy
 * spell (a sheet of 500,000 cells loaded through the API, a burst of whole-sheet reads) and keeps
 * that memory while nothing allocates: an idle process never collects, and V8's own memory
 * reducer took more than 30 s to shrink it in our measurements. So each second a watcher looks
 * at the last one: when requests came before and none since, and the resident size grew by
 * `growth` bytes since the last collection, what the holders registered here keep for reuse is
 * dropped and a full GC runs. A process under steady load is never collected from here (V8 does
 * that itself), and one that stays quiet is collected once.
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

/** Watches `server`'s requests until the function it returns is called. */
export function watchIdle(server: Server, o: IdleWatchOptions = {}): () => void {
  const growth = o.growth ?? 32 * 1024 * 1024;
  let arrived = 0;
  let worked = false;
  let base = process.memoryUsage.rss();
  // V8 unmaps freed pages on background threads: the resident size a collection leaves is read a tick later
  let settling = false;
  const count = () => {
    arrived++;
  };
  server.on('request', count);
  const timer = setInterval(() => {
    if (settling) {
      settling = false;
      base = process.memoryUsage.rss();
    }
    if (arrived > 0) {
      arrived = 0;
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
  return () => {
    clearInterval(timer);
    server.off('request', count);
  };
}
