/**
 * Spare Buffers for large JSON response bodies (Get Sheet of a large sheet: tens of MB).
 * A fresh Buffer of that size costs a page fault per 4 KB the first time it is written, more
 * than the writing itself: the body of a finished response is kept and serves the next one. It
 * is dropped when the server goes quiet (http/idleMemory.ts), with the garbage of the reads, or
 * after 30 s without use in a server that never does.
 * Memory only (no sheet data is read from it).
 */
import { holdUntilIdle } from '../../idleMemory.ts';

const MIN_SIZE = 1024 * 1024;
/** A Buffer asked for at least this size comes from the spares (when one is there) and goes back to them. */
export const SPARE_MIN_BYTES = MIN_SIZE;
/** Large bodies alive at once are bounded by the byte budget (present/sheetBodies.ts); a few spares cover them. */
const MAX_SPARES = 1;

const KEEP_MS = 30_000;

const spares: Buffer[] = [];
let dropTimer: NodeJS.Timeout | undefined;

holdUntilIdle({
  busy: () => false,
  holds: () => spares.reduce((sum, b) => sum + b.length, 0),
  release: () => {
    spares.length = 0;
  },
});

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
  }, KEEP_MS);
  dropTimer.unref();
}
