import { sql, type Kysely } from 'kysely';
import type { Dialect } from './types.ts';

/**
 * Cell images move out of the database onto the blob store: an image row refers to its bytes
 * by `blob_key` (copies of a sheet share the blob) and keeps their `size`. The bytes column
 * becomes nullable; the bytes of images stored before this step are moved onto the blob store
 * at start, after the migrations (services/sheets/images.ts moveImageBytesToBlobs: a migration has no
 * blob store), which leaves the column null. SQLite cannot drop a NOT NULL, so there the table
 * is rebuilt (nothing refers to it by foreign key).
 */
export async function up(db: Kysely<unknown>, d: Dialect): Promise<void> {
  if (d === 'postgres') {
    await sql`alter table images alter column bytes drop not null`.execute(db);
    await db.schema.alterTable('images').addColumn('blob_key', 'text').execute();
    await db.schema.alterTable('images').addColumn('size', 'bigint').execute();
  } else {
    await sql`
      create table images_on_blobs (
        id text not null,
        sheet_id integer not null references sheets (id) on delete cascade,
        blob_key text,
        size integer,
        bytes blob,
        mime_type text not null,
        width integer not null,
        height integer not null,
        file_name text,
        created_at integer not null,
        created_by integer,
        constraint images_pk primary key (sheet_id, id)
      )`.execute(db);
    await sql`
      insert into images_on_blobs (id, sheet_id, bytes, mime_type, width, height, file_name, created_at, created_by)
      select id, sheet_id, bytes, mime_type, width, height, file_name, created_at, created_by from images`.execute(db);
    await sql`drop table images`.execute(db);
    await sql`alter table images_on_blobs rename to images`.execute(db);
    await db.schema.createIndex('images_id').on('images').column('id').execute();
  }
  await db.schema.createIndex('images_blob_key').on('images').column('blob_key').execute();
}
