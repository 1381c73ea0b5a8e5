import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomFillSync } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { loadConfig } from '../../src/config.ts';
import { BlobNotFound, BlobTooLarge, createBlobStore, newBlobKey, type BlobStore } from '../../src/blobs/index.ts';
import { startTestS3 } from '../helpers/s3.ts';

const MB = 1024 * 1024;

/**
 * `size` bytes of random data in 1 MB chunks, made as they are read; `sha256()` is their hash
 * once read, `produced()` how many were asked for.
 */
function generated(size: number) {
  const hash = createHash('sha256');
  let left = size;
  const stream = new Readable({
    read() {
      if (left === 0) return void this.push(null);
      const chunk = randomFillSync(Buffer.allocUnsafe(Math.min(MB, left)));
      left -= chunk.length;
      hash.update(chunk);
      this.push(chunk);
    },
  });
  return { stream, sha256: () => hash.digest('hex'), produced: () => size - left };
}

async function drain(stream: Readable): Promise<{ size: number; sha256: string }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    hash.update(chunk as Buffer);
  }
  return { size, sha256: hash.digest('hex') };
}

async function bytesOf(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of stream) parts.push(chunk as Buffer);
  return Buffer.concat(parts);
}

async function keysOf(blobs: BlobStore): Promise<string[]> {
  const keys: string[] = [];
  for await (const b of blobs.list()) keys.push(b.key);
  return keys.sort();
}

/** Every file under `dir`, relative to it, but those of `skip`. */
function filesUnder(dir: string, skip?: string): string[] {
  if (!fs.existsSync(dir)) return [];
  const all = fs.readdirSync(dir, { recursive: true }) as string[];
  return all.filter((f) => (skip === undefined || !f.startsWith(skip)) && fs.statSync(path.join(dir, f)).isFile());
}

interface Backend {
  blobs: BlobStore;
  /** Files the backend keeps (the blob directory, or s3rver's directory). */
  files(): string[];
  close(): Promise<void>;
}

const backends: Record<string, () => Promise<Backend>> = {
  async filesystem() {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetd-blobs-'));
    const blobs = await createBlobStore(loadConfig({ SHEETD_DATA_DIR: dataDir }).blobs, dataDir);
    return {
      blobs,
      files: () => filesUnder(path.join(dataDir, 'blobs')),
      async close() {
        await blobs.close();
        fs.rmSync(dataDir, { recursive: true, force: true });
      },
    };
  },
  async s3() {
    const s3 = await startTestS3();
    const blobs = await createBlobStore(loadConfig(s3.env).blobs, '/nonexistent');
    return {
      blobs,
      // s3rver keeps the parts of a multipart upload even when it is aborted (it does not
      // implement AbortMultipartUpload); S3 itself drops them
      files: () => filesUnder(path.join(s3.directory, s3.bucket), '._S3rver_uploads'),
      async close() {
        await blobs.close();
        await s3.close();
      },
    };
  },
};

for (const [name, start] of Object.entries(backends)) {
  describe(`blob store: ${name}`, () => {
    let b: Backend;
    before(async () => {
      b = await start();
    });
    after(() => b.close());

    test('put streams a blob in and answers its size and SHA-256; get streams it back with its type; delete removes it', async () => {
      const key = newBlobKey();
      const bytes = Buffer.from('a small blob, not an image');
      const put = await b.blobs.put(key, Readable.from([bytes]), { contentType: 'text/plain', maxBytes: 1000 });
      assert.deepEqual(put, { size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });
      assert.equal(await b.blobs.exists(key), true);
      const got = await b.blobs.get(key);
      assert.equal(got.size, bytes.length);
      assert.equal(got.contentType, 'text/plain');
      assert.deepEqual(await bytesOf(got.stream), bytes);
      const part = await b.blobs.get(key, { start: 2, end: 6 });
      assert.equal(part.size, bytes.length);
      assert.equal((await bytesOf(part.stream)).toString(), 'small');
      assert.ok((await keysOf(b.blobs)).includes(key));

      await b.blobs.delete(key);
      assert.equal(await b.blobs.exists(key), false);
      await assert.rejects(b.blobs.get(key), BlobNotFound);
      assert.ok(!(await keysOf(b.blobs)).includes(key));
      await b.blobs.delete(key); // deleting what is gone is no error
    });

    test('an empty blob is a blob', async () => {
      const key = newBlobKey();
      assert.equal((await b.blobs.put(key, Readable.from([]), { contentType: 'application/octet-stream', maxBytes: 10 })).size, 0);
      const got = await b.blobs.get(key);
      assert.equal(got.size, 0);
      assert.equal((await bytesOf(got.stream)).length, 0);
      await b.blobs.delete(key);
    });

    test('50 MB go through put and get as streams, byte for byte', async () => {
      const key = newBlobKey();
      const src = generated(50 * MB);
      const put = await b.blobs.put(key, src.stream, { contentType: 'application/octet-stream', maxBytes: 50 * MB });
      const expected = src.sha256();
      assert.deepEqual(put, { size: 50 * MB, sha256: expected });
      const got = await b.blobs.get(key);
      assert.equal(got.size, 50 * MB);
      assert.deepEqual(await drain(got.stream), { size: 50 * MB, sha256: expected });
      await b.blobs.delete(key);
    });

    test('a stream past maxBytes fails with BlobTooLarge, stops being read, and leaves nothing behind', async () => {
      const before = b.files();
      for (const [size, max] of [[100, 99], [20 * MB, 12 * MB]] as const) {
        const key = newBlobKey();
        const src = generated(size);
        await assert.rejects(b.blobs.put(key, src.stream, { contentType: 'application/octet-stream', maxBytes: max }), BlobTooLarge);
        assert.equal(await b.blobs.exists(key), false);
        assert.ok(!(await keysOf(b.blobs)).includes(key));
        // the stream was cut where it crossed the limit, not read to its end
        if (size > MB) assert.ok(src.produced() < size, `${src.produced()} of ${size} bytes read`);
      }
      assert.deepEqual(b.files(), before);
    });

    test('keys are random hex; anything else (a path) is refused', async () => {
      assert.match(newBlobKey(), /^[0-9a-f]{32}$/);
      assert.notEqual(newBlobKey(), newBlobKey());
      for (const bad of ['../../etc/passwd', 'abc', newBlobKey().toUpperCase(), `${newBlobKey()}/x`]) {
        await assert.rejects(b.blobs.put(bad, Readable.from([Buffer.from('x')]), { contentType: 'text/plain', maxBytes: 10 }), /not a blob key/);
        await assert.rejects(b.blobs.get(bad), /not a blob key/);
      }
    });
  });
}

test('filesystem: blobs are fanned out under <data dir>/blobs/ by key prefix, files 0600 and directories 0700', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetd-blobs-'));
  try {
    const blobs = await createBlobStore({ backend: 'fs' }, dataDir);
    const key = newBlobKey();
    await blobs.put(key, Readable.from([Buffer.from('x')]), { contentType: 'text/plain', maxBytes: 10 });
    const file = path.join(dataDir, 'blobs', key.slice(0, 2), key.slice(2, 4), key);
    assert.equal(fs.readFileSync(file, 'utf8'), 'x');
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    assert.equal(fs.statSync(path.dirname(file)).mode & 0o777, 0o700);
    assert.equal(fs.statSync(path.join(dataDir, 'blobs', key.slice(0, 2))).mode & 0o777, 0o700);
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test('configuration: SHEETD_BLOB_STORE=s3 needs a bucket; other backends are refused', () => {
  assert.deepEqual(loadConfig({}).blobs, { backend: 'fs' });
  assert.throws(() => loadConfig({ SHEETD_BLOB_STORE: 's3' }), /SHEETD_S3_BUCKET/);
  assert.throws(() => loadConfig({ SHEETD_BLOB_STORE: 'ftp' }), /fs or s3/);
  assert.throws(() => loadConfig({ SHEETD_BLOB_STORE: 's3', SHEETD_S3_BUCKET: 'b', SHEETD_S3_FORCE_PATH_STYLE: 'maybe' }), /true or false/);
  assert.deepEqual(loadConfig({ SHEETD_BLOB_STORE: 's3', SHEETD_S3_BUCKET: 'b', SHEETD_S3_ENDPOINT: 'http://minio:9000', SHEETD_S3_FORCE_PATH_STYLE: '1', SHEETD_S3_PREFIX: 'sheetd/' }).blobs, {
    backend: 's3', bucket: 'b', endpoint: 'http://minio:9000', region: 'us-east-1', forcePathStyle: true, prefix: 'sheetd/',
  });
});
