import path from 'node:path';
import type { BlobsConfig } from '../config.ts';
import { FsBlobStore } from './fs.ts';
import type { BlobStore } from './store.ts';

export * from './store.ts';

/**
 * The blob store the configuration names: `<dataDir>/blobs/` unless SHEETD_BLOB_STORE=s3. The
 * AWS SDK is loaded only when S3 is configured: it is large, and slows every start otherwise.
 */
export async function createBlobStore(config: BlobsConfig, dataDir: string): Promise<BlobStore> {
  if (config.backend === 's3') return new (await import('./s3.ts')).S3BlobStore(config);
  return new FsBlobStore(path.join(dataDir, 'blobs'));
}
