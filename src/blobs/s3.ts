import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { BlobNotFound, checkKey, isBlobKey, Meter, type BlobRead, type BlobStore, type ByteRange, type PutResult } from './store.ts';

export interface S3Options {
  bucket: string;
  endpoint: string | undefined;
  region: string;
  forcePathStyle: boolean;
  prefix: string;
}

function status(e: unknown): number | undefined {
  return (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
}

/**
 * Blobs as objects of an S3-compatible bucket (AWS S3, MinIO, Ceph, R2, ...). Credentials come
 * from the SDK's standard chain (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, a profile, an
 * instance role). Uploads stream through lib-storage's Upload: one PUT for a small blob,
 * a multipart upload in 5 MB parts for a large one, aborted when the stream fails; S3 makes the
 * object visible only once it is complete.
 */
export class S3BlobStore implements BlobStore {
  private readonly client: S3Client;

  constructor(private readonly o: S3Options) {
    this.client = new S3Client({
      region: o.region,
      ...(o.endpoint !== undefined ? { endpoint: o.endpoint } : {}),
      forcePathStyle: o.forcePathStyle,
      // the SDK's default extra checksums (CRC32 trailers) are refused by many S3-compatible
      // servers; S3 itself checks Content-MD5 or its own when asked to
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  private objectKey(key: string): string {
    return this.o.prefix + checkKey(key);
  }

  async put(key: string, body: Readable, opts: { contentType: string; maxBytes: number }): Promise<PutResult> {
    const meter = new Meter(opts.maxBytes);
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.o.bucket, Key: this.objectKey(key), Body: meter, ContentType: opts.contentType },
      leavePartsOnError: false,
    });
    const piping = pipeline(body, meter);
    // a failed upload stops reading the meter: end the piping too, or it waits forever
    const uploading = upload.done().catch((e: unknown) => {
      meter.destroy(e as Error);
      throw e;
    });
    const [piped, uploaded] = await Promise.allSettled([piping, uploading]);
    // the stream's own error (BlobTooLarge, a client gone) says more than the upload's echo of it
    if (piped.status === 'rejected') throw piped.reason;
    if (uploaded.status === 'rejected') throw uploaded.reason;
    return meter.result();
  }

  async get(key: string, range?: ByteRange): Promise<BlobRead> {
    try {
      const out = await this.client.send(new GetObjectCommand({
        Bucket: this.o.bucket,
        Key: this.objectKey(key),
        ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
      }));
      const total = out.ContentRange ? Number(/\/(\d+)$/.exec(out.ContentRange)?.[1]) : out.ContentLength;
      return { stream: out.Body as Readable, size: total ?? 0, contentType: out.ContentType ?? 'application/octet-stream' };
    } catch (e) {
      if ((e as Error).name === 'NoSuchKey' || status(e) === 404) throw new BlobNotFound(key);
      throw e;
    }
  }

  async exists(key: string): Promise<boolean> {
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.o.bucket, Key: this.objectKey(key) }));
      return true;
    } catch (e) {
      if (status(e) === 404) return false;
      throw e;
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.o.bucket, Key: this.objectKey(key) }));
  }

  async *list(): AsyncIterable<{ key: string; modifiedAt: number }> {
    let token: string | undefined;
    do {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.o.bucket, Prefix: this.o.prefix, ContinuationToken: token }));
      for (const o of page.Contents ?? []) {
        const key = (o.Key ?? '').slice(this.o.prefix.length);
        if (isBlobKey(key)) yield { key, modifiedAt: o.LastModified?.getTime() ?? 0 };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}
