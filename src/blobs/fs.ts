import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import { BlobNotFound, checkKey, isBlobKey, Meter, type BlobRead, type BlobStore, type ByteRange, type PutResult } from './store.ts';

const FAN_OUT = /^[0-9a-f]{2}$/;

function isMissing(e: unknown): boolean {
  return (e as NodeJS.ErrnoException).code === 'ENOENT';
}

/**
 * Blobs as files under `root` (the data directory's blobs/), fanned out by the first two pairs
 * of hex digits of the key (65,536 directories at most, so none grows huge). A blob is written
 * to tmp/ and renamed into place, so a reader sees it whole or not at all; its content type
 * sits beside it in `<key>.type`, written before the blob itself is renamed into place.
 * Files are 0600 and directories 0700: only the sheetd user reads them.
 */
export class FsBlobStore implements BlobStore {
  private readonly tmp: string;

  constructor(private readonly root: string) {
    this.tmp = path.join(root, 'tmp');
  }

  private pathOf(key: string): string {
    checkKey(key);
    return path.join(this.root, key.slice(0, 2), key.slice(2, 4), key);
  }

  async put(key: string, body: Readable, opts: { contentType: string; maxBytes: number }): Promise<PutResult> {
    const file = this.pathOf(key);
    await fsp.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    await fsp.mkdir(this.tmp, { recursive: true, mode: 0o700 });
    const temp = path.join(this.tmp, `${key}.${randomBytes(6).toString('hex')}`);
    const meter = new Meter(opts.maxBytes);
    try {
      await pipeline(body, meter, fs.createWriteStream(temp, { flags: 'wx', mode: 0o600, flush: true }));
      await fsp.writeFile(`${temp}.type`, opts.contentType, { flag: 'wx', mode: 0o600 });
      await fsp.rename(`${temp}.type`, `${file}.type`);
      await fsp.rename(temp, file);
    } catch (e) {
      await Promise.all([fsp.rm(temp, { force: true }), fsp.rm(`${temp}.type`, { force: true })]);
      throw e;
    }
    return meter.result();
  }

  async get(key: string, range?: ByteRange): Promise<BlobRead> {
    const file = this.pathOf(key);
    let handle: fsp.FileHandle;
    try {
      handle = await fsp.open(file, 'r');
    } catch (e) {
      if (isMissing(e)) throw new BlobNotFound(key);
      throw e;
    }
    try {
      // the open handle keeps serving the bytes even if the blob is deleted meanwhile
      const { size } = await handle.stat();
      const contentType = await fsp.readFile(`${file}.type`, 'utf8').catch(() => 'application/octet-stream');
      const stream = handle.createReadStream(range ? { start: range.start, end: range.end } : {});
      return { stream, size, contentType };
    } catch (e) {
      await handle.close();
      throw e;
    }
  }

  async exists(key: string): Promise<boolean> {
    try {
      return (await fsp.stat(this.pathOf(key))).isFile();
    } catch (e) {
      if (isMissing(e)) return false;
      throw e;
    }
  }

  async delete(key: string): Promise<void> {
    const file = this.pathOf(key);
    await fsp.rm(file, { force: true });
    await fsp.rm(`${file}.type`, { force: true });
  }

  async *list(): AsyncIterable<{ key: string; modifiedAt: number }> {
    const dirs = async (dir: string) => {
      try {
        return (await fsp.readdir(dir)).filter((n) => FAN_OUT.test(n));
      } catch (e) {
        if (isMissing(e)) return [];
        throw e;
      }
    };
    for (const a of await dirs(this.root)) {
      for (const b of await dirs(path.join(this.root, a))) {
        const dir = path.join(this.root, a, b);
        for (const name of await fsp.readdir(dir)) {
          if (!isBlobKey(name)) continue;
          const st = await fsp.stat(path.join(dir, name)).catch(() => null);
          if (st !== null) yield { key: name, modifiedAt: st.mtimeMs };
        }
      }
    }
  }

  async close(): Promise<void> {}
}
