import type { Kysely } from 'kysely';
import { isBlobKey, type BlobStore } from '../../blobs/index.ts';
import type { DB } from '../../store/schema.ts';
import { referencedBlobKeys } from '../../store/blobs.ts';

/**
 * The handler of `blobs.delete` jobs ({keys}), queued in the transaction that removed what
 * referred to the blobs: removes each blob nothing refers to any more (a copy may share it).
 */
export function deleteBlobsHandler(db: Kysely<DB>, blobs: BlobStore) {
  return async (payload: unknown): Promise<void> => {
    const keys = ((payload as { keys?: unknown }).keys as string[] | undefined ?? []).filter(isBlobKey);
    if (keys.length === 0) return;
    const used = await referencedBlobKeys(db, keys);
    for (const k of keys) if (!used.has(k)) await blobs.delete(k);
  };
}

/**
 * Blobs that nothing refers to any more (their sheets were deleted), written before `before`:
 * an upload stores its blob before the transaction that refers to it commits, so a recent blob
 * may be on its way to being used. For the cleanup job (not written yet), which deletes what
 * this yields; it walks the whole store, so it is for a periodic job, not a request.
 */
export async function* orphanedBlobKeys(db: Kysely<DB>, blobs: BlobStore, before: number): AsyncIterable<string> {
  let batch: string[] = [];
  async function* unreferencedBlobKeys(keys: string[]) {
    const used = await referencedBlobKeys(db, keys);
    for (const k of keys) if (!used.has(k)) yield k;
  }
  for await (const b of blobs.list()) {
    if (b.modifiedAt >= before) continue;
    batch.push(b.key);
    if (batch.length === 500) {
      yield* unreferencedBlobKeys(batch);
      batch = [];
    }
  }
  if (batch.length > 0) yield* unreferencedBlobKeys(batch);
}
