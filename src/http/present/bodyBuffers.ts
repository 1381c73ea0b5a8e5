/**
 * Spare Buffers for large JSON response bodies (Get Sheet of a large sheet: tens of MB).
 * A fresh Buffer of that size costs a page fault per 4 KB the first time it is written, more
 * than the writing itself, and a dead one holds its memory until V8 next collects garbage:
 * the bodies of finished responses are kept (a few, dropped after a while without use) and
 * serve the next ones. Memory only (no sheet data is read from it).
 *
 * When the last large body has gone and nothing replaced it, a full garbage collection gives
 * its memory back to the system: an idle process allocates nothing, so V8 would otherwise
 * keep tens of MB of dead bodies and strings for as long as the server stays quiet.
 */
import v8 from 'node:v8';
import vm from 'node:vm';

const MIN_SIZE = 1024 * 1024;
/** Large bodies alive at once are bounded by the byte budget (present/sheetBodies.ts); a few spares cover them. */
const MAX_SPARES = 1;
const KEEP_MS = 30_000;
const COLLECT_AFTER_MS = 1000;

const spares: Buffer[] = [];
let dropTimer: NodeJS.Timeout | undefined;
let collectTimer: NodeJS.Timeout | undefined;

/** A Buffer of at least `size` bytes: the smallest spare one that is large enough. */
export function takeBodyBuffer(size: number): Buffer {
  if (size < MIN_SIZE) return Buffer.allocUnsafe(size);
  let best = -1;
  for (let i = 0; i < spares.length; i++) if (spares[i]!.length >= size && (best < 0 || spares[i]!.length < spares[best]!.length)) best = i;
  if (best >= 0) return spares.splice(best, 1)[0]!;
  return Buffer.allocUnsafe(size);
}

/** Hands back a Buffer nothing reads or writes any more (the response that sent it finished, or it was never sent). */
export function giveBackBodyBuffer(buf: Buffer): void {
  if (buf.length < MIN_SIZE) return;
  spares.push(buf);
  // the smallest goes when there are too many: a large one serves any body
  spares.sort((a, b) => b.length - a.length);
  if (spares.length > MAX_SPARES) spares.pop();
  clearTimeout(dropTimer);
  dropTimer = setTimeout(() => {
    spares.length = 0;
    collectGarbageSoon();
  }, KEEP_MS);
  dropTimer.unref();
}

let gc: (() => void) | undefined;

/** Called when the last large body has gone; a new large body coming first (cancelCollection) puts it off. */
export function collectGarbageSoon(): void {
  clearTimeout(collectTimer);
  collectTimer = setTimeout(() => {
    // node starts without --expose-gc; the flag set at run time applies to a new context
    if (gc === undefined) {
      v8.setFlagsFromString('--expose-gc');
      gc = vm.runInNewContext('gc') as () => void;
    }
    gc();
  }, COLLECT_AFTER_MS);
  collectTimer.unref();
}

export function cancelCollection(): void {
  clearTimeout(collectTimer);
}
