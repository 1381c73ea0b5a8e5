/**
 * One spare Buffer for large JSON response bodies (Get Sheet of a large sheet: tens of MB).
 * A fresh Buffer of that size costs a page fault per 4 KB the first time it is written, more
 * than the writing itself; the body of the last response, once the response has finished
 * with it, is kept for the next one. Memory only (no sheet data is read from it), dropped
 * after a while without use.
 */
const MIN_SIZE = 1024 * 1024;
const KEEP_MS = 30_000;

let spare: Buffer | undefined;
let timer: NodeJS.Timeout | undefined;

/** A Buffer of at least `size` bytes: the spare one when it is large enough. */
export function takeBodyBuffer(size: number): Buffer {
  if (size >= MIN_SIZE && spare !== undefined && spare.length >= size) {
    const b = spare;
    spare = undefined;
    return b;
  }
  return Buffer.allocUnsafe(size);
}

/** Hands back a Buffer nothing reads or writes any more (the response that sent it finished). */
export function giveBackBodyBuffer(buf: Buffer): void {
  if (buf.length < MIN_SIZE || (spare !== undefined && spare.length >= buf.length)) return;
  spare = buf;
  clearTimeout(timer);
  timer = setTimeout(() => {
    spare = undefined;
  }, KEEP_MS);
  timer.unref();
}
