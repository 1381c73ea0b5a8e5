import type { Kysely } from 'kysely';
import { types, type Dialect } from './types.ts';

/**
 * Password links: a system admin hands a person a one-time link to set their sign-in password
 * (services/identity/passwordLinks.ts). Only the SHA-256 of the link's secret is kept, with when
 * it stops working and when it was used (a link works once).
 */
export async function up(db: Kysely<unknown>, d: Dialect): Promise<void> {
  const t = types(d);
  await db.schema
    .createTable('password_links')
    .addColumn('id_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', t.id, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_by', t.id, (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', t.ms, (c) => c.notNull())
    .addColumn('expires_at', t.ms, (c) => c.notNull())
    .addColumn('used_at', t.ms)
    .execute();
  await db.schema.createIndex('password_links_user').on('password_links').column('user_id').execute();
  await db.schema.createIndex('password_links_creator').on('password_links').column('created_by').execute();
  await db.schema.createIndex('password_links_expiry').on('password_links').column('expires_at').execute();
}
