/**
 * The bodies of whole-sheet reads (Get Sheet: up to tens of MB each) under bounded memory.
 *
 * - Requests that would write the same bytes at the same time share one body: same model
 *   object at the same version, the same rows (and the same cells object of each row: a reader
 *   may bring formula results up to date without a new version), and the same `key`, which the
 *   route makes of everything else that decides the bytes as the request itself computed it
 *   (access level, user settings, filters, include/exclude, ...). Sharing stops when the last of
 *   its responses has closed; a later reader gets the body only as the kept one below, under the
 *   same test, so a body never holds other bytes than the request would have written.
 * - Large bodies (1 MB or more, by an estimate made before writing) take their size from a byte
 *   budget from the moment they are written until every response sending them has closed; a
 *   request that would go over it waits. A body larger than the whole budget runs alone.
 * - The gzip of a large body is made once, on the thread pool, and shared the same way. When the
 *   request that starts the body takes gzip, the body is compressed while it is written: each
 *   megabyte written goes to the thread pool as it is done (ParallelGzip), so compressing runs on
 *   the other cores beside the writing instead of after it (a 40 MB body: gzip took 1.8 times the
 *   plain read, now about as long).
 * - The last large body whose responses all finished is kept, one in the process, for the next
 *   reader of the same bytes (the same test as sharing), until another body is written, 30 s
 *   pass or the server goes quiet (`kept` below): its Buffer is the one the next body would have
 *   reused anyway.
 * - The gzip of a model's last large body is kept for later readers of the same bytes (the same
 *   test as sharing: model, version, rows, cells objects and key) while the model lives: a
 *   tenth of the body's size (3.5 MB for 40 MB), and what a browser reloading an unchanged
 *   sheet asks for. Compressing it again took about 150 ms of CPU for 40 MB.
 */
import type { ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { RowState, SheetModel } from '../../engine/model.ts';
import { JsonWriter } from './sheetContents.ts';
import { holdUntilIdle } from '../../idleMemory.ts';
import { COMPRESSION_LEVEL } from '../negotiate.ts';

const gzip = promisify(zlib.gzip);
const deflateRaw = promisify(zlib.deflateRaw);

/** Compression level of large bodies: every answer's (the bodies are large and repetitive: level 1 made a 40 MB body 6% larger than level 3, in three quarters of the time). */
const LEVEL = COMPRESSION_LEVEL;

/**
 * One gzip stream made of pieces compressed apart, on the thread pool, as they come: every piece
 * but the last ends with a sync flush (its bits end on a byte boundary, the stream goes on), the
 * last finishes the stream; the gzip header goes before them, the CRC-32 and length of the
 * whole text after (RFC 1952: one member whose deflate data is the pieces' data in order).
 */
class ParallelGzip {
  private readonly pieces: Array<Promise<Buffer>> = [];

  add(piece: Buffer): void {
    this.pieces.push(deflateRaw(piece, { level: LEVEL, finishFlush: zlib.constants.Z_SYNC_FLUSH }));
  }

  /** The gzip of `whole`, whose pieces up to `last` were added. */
  async finish(whole: Buffer, last: Buffer): Promise<Buffer> {
    this.pieces.push(deflateRaw(last, { level: LEVEL }));
    // taken here, on this thread, while the thread pool compresses the last pieces
    const crc = zlib.crc32(whole);
    const data = await Promise.all(this.pieces);
    const trailer = Buffer.alloc(8);
    trailer.writeUInt32LE(crc >>> 0, 0);
    trailer.writeUInt32LE(whole.length >>> 0, 4);
    return Buffer.concat([GZIP_HEADER, ...data, trailer]);
  }
}
/** A gzip member's header: deflate, no name, no time, OS "unix" (as zlib writes it). */
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]);

/** Bodies from this size on are gzipped here (the compress plugin streams a Buffer through zlib in small pieces, several times slower for tens of MB) and counted against the budget. */
export const LARGE_BODY = 1024 * 1024;
/** Bytes per row until a model's first body was measured: 20 short cells. */
const FIRST_ROW_GUESS = 20 * 80 + 200;

/**
 * Bytes handed out up to a limit, in order of asking; a request larger than the whole limit is
 * served when nothing else is out. (Counting semaphores such as async-mutex's walk every unit
 * on each release: no good for counting bytes.)
 */
class ByteBudget {
  private used = 0;
  private readonly waiting: Array<{ bytes: number; go: () => void }> = [];

  constructor(private readonly limit: number) {}

  /** Resolves when `bytes` are granted; the function it gives hands them back. */
  take(bytes: number): Promise<() => void> {
    return new Promise((resolve) => {
      this.waiting.push({ bytes, go: () => resolve(() => this.giveBack(bytes)) });
      this.grant();
    });
  }

  private giveBack(bytes: number): void {
    this.used -= bytes;
    this.grant();
  }

  private grant(): void {
    while (this.waiting.length > 0 && (this.used === 0 || this.used + this.waiting[0]!.bytes <= this.limit)) {
      const next = this.waiting.shift()!;
      this.used += next.bytes;
      next.go();
    }
  }
}

/** Large bodies written, being sent or waiting for the budget, in every server of the process: the server is not idle while there are any. */
let largeBodies = 0;
holdUntilIdle({ busy: () => largeBodies > 0, holds: () => kept?.s.bytes ?? 0, release: () => dropKept(false) });

/**
 * The last large body whose responses all finished, kept for the next reader of the same bytes
 * (the test of sharing: model, version, rows, cells objects, key): one in the process, until
 * another body is written (its Buffer then serves that one, as the spare Buffer did), KEEP_MS
 * pass or the server goes quiet. A repeated read of an unchanged sheet is then sent without
 * writing it again (40 MB for 500,000 cells: the kept cells' text copied into a Buffer).
 */
let kept: { owner: SheetBodies; model: WeakRef<SheetModel>; s: Shared; timer: NodeJS.Timeout } | undefined;
const KEEP_MS = 30_000;

/** Bytes of the kept body (0: none), for tests. */
export function keptBodyBytes(): number {
  return kept?.s.bytes ?? 0;
}

/** Drops the kept body; its Buffer serves the next body unless the server is going quiet. */
function dropKept(toSpares: boolean): void {
  if (kept === undefined) return;
  clearTimeout(kept.timer);
  if (toSpares) kept.s.writer?.release();
  kept = undefined;
}

export interface SheetBodyRequest {
  model: SheetModel;
  rows: readonly RowState[];
  /** Everything besides the model, its version and the rows that decides the body's bytes. */
  key: string;
  /** Bytes written besides the rows (the sheet's object around them). */
  around: number;
  /** Writes the whole body. */
  write(w: JsonWriter): void;
  /** The client takes gzip (a large body is then sent gzipped). */
  gzip: boolean;
}

interface Shared {
  version: number;
  key: string;
  rows: readonly RowState[];
  cells: Array<RowState['cells']>;
  plain: Promise<Buffer>;
  /** The plain body's size once written. */
  bytes?: number;
  gzipped?: Promise<Buffer>;
  writer?: JsonWriter;
  /** Responses sending it that have not closed. */
  users: number;
  /** Some response closed before it was all written: the socket may still hold the Buffer. */
  aborted: boolean;
  /** Gives its share of the budget back (a large body). */
  release?: () => void;
}

/** The gzip of a model's last large body, kept (see above). */
interface KeptGzip {
  version: number;
  key: string;
  rows: readonly RowState[];
  cells: Array<RowState['cells']>;
  gzipped: Buffer;
}

/** Whether `s` was written for exactly what `r` asks (rows and their cells objects the same). */
function sameBody(s: { version: number; key: string; rows: readonly RowState[]; cells: Array<RowState['cells']> }, r: SheetBodyRequest): boolean {
  if (s.version !== r.model.version || s.key !== r.key) return false;
  const rows = r.rows;
  const n = rows.length;
  if (s.rows.length !== n) return false;
  const keptRows = s.rows;
  const keptCells = s.cells;
  for (let i = 0; i < n; i++) {
    const row = rows[i]!;
    if (keptRows[i] !== row || keptCells[i] !== row.cells) return false;
  }
  return true;
}

export class SheetBodies {
  private readonly budget: ByteBudget;
  private readonly shared = new WeakMap<SheetModel, Shared[]>();
  private readonly keptGzip = new WeakMap<SheetModel, KeptGzip>();
  /** Bytes per row of a model's last body: the next one's estimate and initial capacity. */
  private readonly rowBytes = new WeakMap<SheetModel, number>();

  /** `budgetBytes`: large bodies in memory at once (written or being sent). */
  constructor(budgetBytes: number) {
    this.budget = new ByteBudget(budgetBytes);
  }

  /**
   * The server closes: the body it kept goes (its rows would otherwise hold the whole model, and
   * its Buffer the body, for KEEP_MS after the server is gone: a second server started in the
   * same process paid for collecting them on every read).
   */
  close(): void {
    if (kept?.owner === this) dropKept(false);
  }

  /** The body for `res`, and whether it is gzipped; its memory is accounted for until `res` closes. */
  async body(r: SheetBodyRequest, res: ServerResponse): Promise<{ body: Buffer; gzipped: boolean }> {
    if (r.gzip) {
      const kept = this.keptGzip.get(r.model);
      if (kept !== undefined && sameBody(kept, r)) return { body: kept.gzipped, gzipped: true };
    }
    const s = this.find(r) ?? this.reuse(r) ?? this.start(r);
    s.users++;
    res.once('close', () => {
      if (!res.writableFinished) s.aborted = true;
      if (--s.users === 0) this.finish(r.model, s);
    });
    const body = await s.plain;
    if (!r.gzip || body.length < LARGE_BODY) return { body, gzipped: false };
    s.gzipped ??= gzip(body, { level: LEVEL });
    return { body: await s.gzipped, gzipped: true };
  }

  private find(r: SheetBodyRequest): Shared | undefined {
    const list = this.shared.get(r.model);
    if (list === undefined) return undefined;
    return list.find((s) => sameBody(s, r));
  }

  /** The kept body (see `kept`) when it is what `r` asks for: shared again from now on. */
  private reuse(r: SheetBodyRequest): Shared | undefined {
    if (kept === undefined || kept.owner !== this || kept.model.deref() !== r.model || !sameBody(kept.s, r)) return undefined;
    const s = kept.s;
    dropKept(false);
    largeBodies++;
    s.release = () => {
      largeBodies--;
    };
    s.aborted = false;
    this.add(r.model, s);
    return s;
  }

  private add(model: SheetModel, s: Shared): void {
    const list = this.shared.get(model);
    if (list === undefined) this.shared.set(model, [s]);
    else list.push(s);
  }

  private start(r: SheetBodyRequest): Shared {
    const { model, rows } = r;
    // the kept body is not this one: its Buffer may serve this one
    dropKept(true);
    const estimate = Math.ceil(rows.length * (this.rowBytes.get(model) ?? FIRST_ROW_GUESS) * 1.06) + r.around;
    const s: Shared = { version: model.version, key: r.key, rows, cells: rows.map((row) => row.cells), plain: Promise.resolve(Buffer.alloc(0)), users: 0, aborted: false };
    s.plain = (async () => {
      if (estimate >= LARGE_BODY) {
        largeBodies++;
        const release = await this.budget.take(estimate);
        s.release = () => {
          release();
          largeBodies--;
        };
      }
      // compressed as it is written when its first reader takes gzip (see ParallelGzip)
      const zipping = r.gzip && estimate >= LARGE_BODY ? new ParallelGzip() : undefined;
      const w = new JsonWriter(estimate, zipping === undefined ? undefined : (piece) => zipping.add(piece));
      s.writer = w;
      try {
        r.write(w);
      } catch (e) {
        // pieces may still be compressing from its Buffer: it is left to the collector
        if (zipping !== undefined) s.writer = undefined;
        throw e;
      }
      const body = w.toBuffer();
      s.bytes = body.length;
      if (rows.length > 0) this.rowBytes.set(model, Math.max(1, (body.length - r.around) / rows.length));
      if (zipping !== undefined && body.length >= LARGE_BODY) {
        s.gzipped = zipping.finish(body, w.unhanded());
        s.gzipped.catch(() => undefined);
      }
      return body;
    })();
    // a failure reaches every request through `plain`; this only keeps it from being unhandled
    s.plain.catch(() => undefined);
    this.add(model, s);
    return s;
  }

  /** The last response closed: no new request joins, and the budget and the Buffer go back once writing is over. */
  private finish(model: SheetModel, s: Shared): void {
    const list = this.shared.get(model);
    if (list !== undefined) {
      list.splice(list.indexOf(s), 1);
      if (list.length === 0) this.shared.delete(model);
    }
    const done = (plain: PromiseSettledResult<Buffer>) => {
      s.release?.();
      s.release = undefined;
      void s.gzipped?.then((gzipped) => {
        if (model.version === s.version) this.keptGzip.set(model, { version: s.version, key: s.key, rows: s.rows, cells: s.cells, gzipped });
      }, () => undefined);
      // an aborted response's socket may still hold the Buffer: it is left to the collector
      if (s.aborted || s.writer === undefined) return;
      // all of it written out: a large body is kept for the next reader of the same bytes, else
      // the Buffer may serve the next body
      if (plain.status === 'fulfilled' && plain.value.length >= LARGE_BODY && model.version === s.version) {
        dropKept(true);
        kept = { owner: this, model: new WeakRef(model), s, timer: setTimeout(() => dropKept(true), KEEP_MS) };
        kept.timer.unref();
      } else {
        s.writer.release();
      }
    };
    void Promise.allSettled([s.plain, s.gzipped]).then(([plain]) => done(plain!));
  }
}
