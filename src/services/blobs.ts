import type { Kysely } from 'kysely';
import { isBlobKey, type BlobStore } from '../blobs/index.ts';
import type { DB } from '../store/schema.ts';

/**
 * The columns that refer to blobs. A blob is kept while any of them names it: copies of a sheet
 * share their images' blobs, so deleting one sheet leaves a blob another still shows.
 * Attachments, proofs and profile images add their columns here.
 */
const REFERENCES = [
  { table: 'images', column: 'blob_key' },
  { table: 'attachments', column: 'blob_key' },
  { table: 'profile_images', column: 'blob_key' },
] as const;

/** The keys among `keys` that something still refers to. */
async function referenced(db: Kysely<DB>, keys: string[]): Promise<Set<string>> {
  const used = new Set<string>();
  for (const ref of REFERENCES) {
    const rows = await db.selectFrom(ref.table).select(ref.column).where(ref.column, 'in', keys).execute();
    for (const r of rows) if (r[ref.column] !== null) used.add(r[ref.column]!);
  }
  return used;
}

/**
 * The handler of `blobs.delete` jobs ({keys}), queued in the transaction that removed what
 * referred to the blobs: removes each blob nothing refers to any more (a copy may share it).
 */
export function deleteBlobsHandler(db: Kysely<DB>, blobs: BlobStore) {
  return async (payload: unknown): Promise<void> => {
    const keys = ((payload as { keys?: unknown }).keys as string[] | undefined ?? []).filter(isBlobKey);
    if (keys.length === 0) return;
    const used = await referenced(db, keys);
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
  async function* unreferenced(keys: string[]) {
    const used = await referenced(db, keys);
    for (const k of keys) if (!used.has(k)) yield k;
  }
  for await (const b of blobs.list()) {
    if (b.modifiedAt >= before) continue;
    batch.push(b.key);
    if (batch.length === 500) {
      yield* unreferenced(batch);
      batch = [];
    }
  }
  if (batch.length > 0) yield* unreferenced(batch);
}
