import type { Kysely } from 'kysely';
import { types, type Dialect } from './types.ts';

/**
 * Sign-in and OAuth 2.0. Passwords (argon2 hashes) and web sessions (only the SHA-256 of the
 * cookie's value) let users sign in to the pages; apps, authorization codes (hashed, single-use)
 * and grants (a refresh token's hash and the access token it goes with) carry the three-legged
 * flow. Access tokens from OAuth are rows of api_tokens that name their app (api_client_id).
 */
export async function up(db: Kysely<unknown>, d: Dialect): Promise<void> {
  const t = types(d);
  await db.schema
    .createTable('user_passwords')
    .addColumn('user_id', t.id, (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('updated_at', t.ms, (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('web_sessions')
    .addColumn('id_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', t.id, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', t.ms, (c) => c.notNull())
    .addColumn('expires_at', t.ms, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('web_sessions_user').on('web_sessions').column('user_id').execute();
  await db.schema
    .createTable('oauth_apps')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('org_id', t.id, (c) => c.notNull().references('orgs.id').onDelete('cascade'))
    .addColumn('owner_id', t.id, (c) => c.references('users.id').onDelete('set null'))
    .addColumn('client_id', 'text', (c) => c.notNull().unique())
    /** the client secret is derived from the server's key and this salt; a new salt regenerates it */
    .addColumn('secret_salt', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('launch_url', 'text')
    .addColumn('contact', 'text')
    .addColumn('redirect_url', 'text', (c) => c.notNull())
    .addColumn('created_at', t.ms, (c) => c.notNull())
    .addColumn('modified_at', t.ms, (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('oauth_codes')
    .addColumn('code_hash', 'text', (c) => c.primaryKey())
    .addColumn('app_id', t.id, (c) => c.notNull().references('oauth_apps.id').onDelete('cascade'))
    .addColumn('user_id', t.id, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('expires_at', t.ms, (c) => c.notNull())
    .addColumn('used_at', t.ms)
    .execute();
  await db.schema
    .createTable('oauth_grants')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('app_id', t.id, (c) => c.notNull().references('oauth_apps.id').onDelete('cascade'))
    .addColumn('user_id', t.id, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('access_token_id', t.id, (c) => c.notNull())
    .addColumn('refresh_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', t.ms, (c) => c.notNull())
    .addColumn('revoked_at', t.ms)
    .execute();
  await db.schema.createIndex('oauth_grants_user_app').on('oauth_grants').columns(['user_id', 'app_id']).execute();
  await db.schema.alterTable('api_tokens').addColumn('api_client_id', t.id).execute();
}
