import type { Insertable } from 'kysely';
import { selectShaped, stampedRead, type Queryable } from './db.ts';
import type { ApiTokenTable } from './schema.ts';

export async function insertToken(db: Queryable, row: Insertable<ApiTokenTable>): Promise<void> {
  await db.insertInto('api_tokens').values(row).execute();
}

/** The token with its user and organization, in one query (the hot path of every request). */
export async function findTokenWithUser(db: Queryable, tokenHash: string) {
  // every request's first read: on SQLite kept until the database may have changed
  return stampedRead(db, 'token with user', tokenHash, () => readTokenWithUser(db, tokenHash));
}

async function readTokenWithUser(db: Queryable, tokenHash: string) {
  // compiled once per database; each request only binds the hash
  const rows = await selectShaped(db, 'token with user', () => tokenLookup(db, tokenHash), [tokenHash]);
  return rows[0];
}


function tokenLookup(db: Queryable, tokenHash: string) {
  return db
    .selectFrom('api_tokens as t')
    .innerJoin('users as u', 'u.id', 't.user_id')
    .innerJoin('orgs as o', 'o.id', 'u.org_id')
    .select([
      't.id as token_id', 't.name as token_name', 't.kind', 't.scopes', 't.expires_at', 't.revoked_at', 't.api_client_id',
      'u.id', 'u.org_id', 'u.email', 'u.first_name', 'u.last_name', 'u.admin', 'u.licensed_sheet_creator',
      'u.group_admin', 'u.resource_viewer', 'u.status', 'u.locale', 'u.time_zone', 'u.company', 'u.department',
      'u.role', 'u.title', 'u.mobile_phone', 'u.work_phone', 'u.last_login', 'u.created_at', 'u.modified_at',
      'o.name as org_name', 'o.plan as org_plan', 'o.created_at as org_created_at',
    ])
    .where('t.token_hash', '=', tokenHash);
}

export async function revokeToken(db: Queryable, tokenId: number, at: number): Promise<void> {
  await db.updateTable('api_tokens').set({ revoked_at: at }).where('id', '=', tokenId).execute();
}

export async function revokeTokens(db: Queryable, tokenIds: number[], at: number): Promise<void> {
  if (tokenIds.length === 0) return;
  await db.updateTable('api_tokens').set({ revoked_at: at }).where('id', 'in', tokenIds).where('revoked_at', 'is', null).execute();
}

/** A user's own raw tokens that are still valid (the API access page). */
export async function listRawTokens(db: Queryable, userId: number, now: number) {
  return db.selectFrom('api_tokens').select(['id', 'name', 'scopes', 'created_at', 'expires_at'])
    .where('user_id', '=', userId).where('kind', '=', 'RAW').where('revoked_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .orderBy('created_at').orderBy('id').execute();
}

export async function findToken(db: Queryable, tokenId: number) {
  return db.selectFrom('api_tokens').selectAll().where('id', '=', tokenId).executeTakeFirst();
}
