import type { Kysely } from 'kysely';
import type { Dialect } from './types.ts';

/**
 * Indexes for lookups that read a whole table. Found by running the API suite with every SQLite
 * statement's query plan recorded: these were full scans, so their cost grew with the table,
 * not with what they read.
 *
 * - Foreign keys with ON DELETE CASCADE or SET NULL and no index on the referring column: every
 *   sheet deleted read all comments, proof requests and image URLs of every sheet; every user
 *   deleted, all OAuth apps and codes; every rule deleted, all approvals. (Neither SQLite nor
 *   PostgreSQL indexes the referring side of a foreign key by itself.)
 * - Lookups by a column with no index: a sheet's comments (the search index reads them), favorites
 *   of a deleted object, an OAuth grant by its access token (every request made with an OAuth
 *   token), the users' filters when a filter is deleted, a profile image's blob, webhooks of an
 *   app, expired browser sessions.
 *
 * Each is made only if missing (a test rolls a database back to before 0022 by hand and keeps these).
 */
export async function up(db: Kysely<unknown>, _d: Dialect): Promise<void> {
  const indexes: Array<[name: string, table: string, columns: string[]]> = [
    ['comments_sheet', 'comments', ['sheet_id']],
    ['proof_requests_sheet', 'proof_requests', ['sheet_id']],
    ['image_urls_sheet', 'image_urls', ['sheet_id']],
    ['oauth_apps_owner', 'oauth_apps', ['owner_id']],
    ['oauth_apps_org', 'oauth_apps', ['org_id']],
    ['oauth_codes_user', 'oauth_codes', ['user_id']],
    ['oauth_codes_app', 'oauth_codes', ['app_id']],
    ['oauth_grants_app', 'oauth_grants', ['app_id']],
    ['oauth_grants_token', 'oauth_grants', ['access_token_id']],
    ['automation_approvals_rule', 'automation_approvals', ['rule_id']],
    ['favorites_object', 'favorites', ['object_type', 'object_id']],
    ['sheet_filter_applied_filter', 'sheet_filter_applied', ['filter_id']],
    ['profile_images_blob', 'profile_images', ['blob_key']],
    ['webhooks_app', 'webhooks', ['api_client_id']],
    ['web_sessions_expiry', 'web_sessions', ['expires_at']],
  ];
  for (const [name, table, columns] of indexes) await db.schema.createIndex(name).ifNotExists().on(table).columns(columns).execute();
}
