import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import S3rver from 's3rver';

/** s3rver's fixed credentials: any other signature is refused. */
const CREDENTIALS = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' };

export interface TestS3 {
  /** http://127.0.0.1:PORT */
  endpoint: string;
  bucket: string;
  /** The SHEETD_* settings of a sheetd that keeps its blobs in this bucket. */
  env: Record<string, string>;
  /** The directory s3rver keeps its objects in. */
  directory: string;
  close(): Promise<void>;
}

/**
 * An S3-compatible server (s3rver) in this process, on an ephemeral port of 127.0.0.1, with
 * one empty bucket and its objects in a temporary directory. The SDK reads credentials from
 * the environment, so this sets s3rver's into process.env (each test file is its own process).
 */
export async function startTestS3(bucket = 'sheetd-test'): Promise<TestS3> {
  Object.assign(process.env, CREDENTIALS);
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetd-s3-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket, configs: [] }] });
  const { port } = (await server.run()) as AddressInfo;
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    directory,
    env: { SHEETD_BLOB_STORE: 's3', SHEETD_S3_BUCKET: bucket, SHEETD_S3_ENDPOINT: endpoint, SHEETD_S3_FORCE_PATH_STYLE: 'true', SHEETD_S3_REGION: 'us-east-1' },
    async close() {
      await server.close();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}
