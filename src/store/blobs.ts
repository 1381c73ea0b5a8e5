import type { Kysely } from 'kysely';
import type { DB } from './schema.ts';

/**
 * The columns that refer to blobs. A blob is kept while any of them names it: copies of a sheet
 * share their images' blobs, so deleting one sheet leaves a blob another still shows.
 * Attachments, proofs and profile images add their columns here.
 */
const REFERENCES = [
  { table: 'images', column: 'blob_key' },
  { table: 'attachments', column: 'blob_key' },
  { table: 'profile_images', column: 'blob_key' },
  { table: 'sight_images', column: 'blob_key' },
] as const;

/** The keys among `keys` that something still refers to. */
export async function referencedBlobKeys(db: Kysely<DB>, keys: string[]): Promise<Set<string>> {
  const used = new Set<string>();
  for (const ref of REFERENCES) {
    const rows = await db.selectFrom(ref.table).select(ref.column).where(ref.column, 'in', keys).execute();
    for (const r of rows) if (r[ref.column] !== null) used.add(r[ref.column]!);
  }
  return used;
}
