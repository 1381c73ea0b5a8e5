import { createHash, randomBytes } from 'node:crypto';
import { Transform, type Readable, type TransformCallback } from 'node:stream';

/**
 * Where uploaded files live (cell images now; attachments, proofs and profile images later):
 * never in the database and never whole in memory. A blob is written once under a random key
 * and read back as a stream; the database row that refers to it holds the key.
 */
export interface BlobStore {
  /**
   * Streams `body` in under `key`. More than `maxBytes` aborts the write with BlobTooLarge
   * (while streaming, before the rest is read) and leaves nothing behind; the blob appears
   * whole or not at all.
   */
  put(key: string, body: Readable, opts: { contentType: string; maxBytes: number }): Promise<PutResult>;
  /** The blob as a stream, or the bytes `range.start` to `range.end` (inclusive); BlobNotFound when there is none. */
  get(key: string, range?: ByteRange): Promise<BlobRead>;
  exists(key: string): Promise<boolean>;
  /** Removes the blob; removing one that is not there is no error. */
  delete(key: string): Promise<void>;
  /** Every blob's key and when it was written, in no set order (for the cleanup of orphans). */
  list(): AsyncIterable<{ key: string; modifiedAt: number }>;
  close(): Promise<void>;
}

export interface PutResult {
  size: number;
  /** Hex SHA-256 of the bytes written. */
  sha256: string;
}

export interface ByteRange {
  start: number;
  end: number;
}

export interface BlobRead {
  stream: Readable;
  /** The size of the whole blob (not of the range). */
  size: number;
  contentType: string;
}

export class BlobTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`blob larger than ${maxBytes} bytes`);
    this.name = 'BlobTooLarge';
  }
}

export class BlobNotFound extends Error {
  constructor(readonly key: string) {
    super(`no blob ${key}`);
    this.name = 'BlobNotFound';
  }
}

/**
 * A new blob key: 128 random bits in lower-case hex. Never derived from a file name; hex, not
 * base64, because a case-insensitive file system (macOS, Windows) would fold keys that differ
 * only in case into one file.
 */
export function newBlobKey(): string {
  return randomBytes(16).toString('hex');
}

export function isBlobKey(s: string): boolean {
  return /^[0-9a-f]{32}$/.test(s);
}

/** Keys come from newBlobKey; anything else (a path, a traversal) is a programming error. */
export function checkKey(key: string): string {
  if (!isBlobKey(key)) throw new Error(`not a blob key: ${JSON.stringify(key)}`);
  return key;
}

/**
 * Counts and hashes the bytes passing through, and fails with BlobTooLarge at the first chunk
 * that takes the total past `maxBytes`, so an oversized upload stops where it crosses the limit.
 */
export class Meter extends Transform {
  // not `size`: lib-storage takes a Body's `size` for its total length
  private count = 0;
  private readonly hash = createHash('sha256');

  constructor(private readonly maxBytes: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, cb: TransformCallback): void {
    this.count += chunk.length;
    if (this.count > this.maxBytes) return cb(new BlobTooLarge(this.maxBytes));
    this.hash.update(chunk);
    cb(null, chunk);
  }

  result(): PutResult {
    return { size: this.count, sha256: this.hash.digest('hex') };
  }
}
