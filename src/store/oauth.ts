import type { Insertable, Selectable } from 'kysely';
import type { Queryable } from './db.ts';
import type { OAuthAppTable, OAuthCodeTable, OAuthGrantTable } from './oauthSchema.ts';

export type OAuthAppRow = Selectable<OAuthAppTable>;
export type OAuthCodeRow = Selectable<OAuthCodeTable>;
export type OAuthGrantRow = Selectable<OAuthGrantTable>;

export async function insertApp(db: Queryable, row: Insertable<OAuthAppTable>): Promise<void> {
  await db.insertInto('oauth_apps').values(row).execute();
}

export async function findAppByClientId(db: Queryable, clientId: string): Promise<OAuthAppRow | undefined> {
  return db.selectFrom('oauth_apps').selectAll().where('client_id', '=', clientId).executeTakeFirst();
}

export async function findApp(db: Queryable, id: number): Promise<OAuthAppRow | undefined> {
  return db.selectFrom('oauth_apps').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listAppsOwnedBy(db: Queryable, userId: number): Promise<OAuthAppRow[]> {
  return db.selectFrom('oauth_apps').selectAll().where('owner_id', '=', userId).orderBy('created_at').orderBy('id').execute();
}

export async function setAppSalt(db: Queryable, id: number, salt: string, at: number): Promise<void> {
  await db.updateTable('oauth_apps').set({ secret_salt: salt, modified_at: at }).where('id', '=', id).execute();
}

export async function insertCode(db: Queryable, row: Insertable<OAuthCodeTable>): Promise<void> {
  await db.insertInto('oauth_codes').values(row).execute();
}

export async function findCode(db: Queryable, codeHash: string): Promise<OAuthCodeRow | undefined> {
  return db.selectFrom('oauth_codes').selectAll().where('code_hash', '=', codeHash).executeTakeFirst();
}

/** Marks a code used; false when another request used it first (codes are single-use). */
export async function useCode(db: Queryable, codeHash: string, at: number): Promise<boolean> {
  const r = await db.updateTable('oauth_codes').set({ used_at: at }).where('code_hash', '=', codeHash).where('used_at', 'is', null).executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function deleteExpiredCodes(db: Queryable, before: number): Promise<void> {
  await db.deleteFrom('oauth_codes').where('expires_at', '<', before).execute();
}

export async function insertGrant(db: Queryable, row: Insertable<OAuthGrantTable>): Promise<void> {
  await db.insertInto('oauth_grants').values(row).execute();
}

export async function findGrantByRefresh(db: Queryable, refreshHash: string): Promise<OAuthGrantRow | undefined> {
  return db.selectFrom('oauth_grants').selectAll().where('refresh_hash', '=', refreshHash).executeTakeFirst();
}

/** Moves a live grant to a new token pair; false when it was refreshed or revoked meanwhile. */
export async function rotateGrant(db: Queryable, id: number, oldRefreshHash: string, next: { accessTokenId: number; refreshHash: string }): Promise<boolean> {
  const r = await db.updateTable('oauth_grants')
    .set({ access_token_id: next.accessTokenId, refresh_hash: next.refreshHash })
    .where('id', '=', id).where('refresh_hash', '=', oldRefreshHash).where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Live grants of a user (to one app, or to any): what the "authorized apps" page lists. */
export async function listLiveGrants(db: Queryable, userId: number, appId?: number) {
  let q = db.selectFrom('oauth_grants as g').innerJoin('oauth_apps as a', 'a.id', 'g.app_id')
    .select(['g.id', 'g.app_id', 'g.scopes', 'g.created_at', 'g.access_token_id', 'a.name as app_name', 'a.client_id'])
    .where('g.user_id', '=', userId).where('g.revoked_at', 'is', null);
  if (appId !== undefined) q = q.where('g.app_id', '=', appId);
  return q.orderBy('g.created_at').orderBy('g.id').execute();
}

export async function revokeGrants(db: Queryable, ids: number[], at: number): Promise<void> {
  if (ids.length === 0) return;
  await db.updateTable('oauth_grants').set({ revoked_at: at }).where('id', 'in', ids).where('revoked_at', 'is', null).execute();
}

/** The live grant whose current access token this is, if any. */
export async function findGrantByAccessToken(db: Queryable, tokenId: number): Promise<OAuthGrantRow | undefined> {
  return db.selectFrom('oauth_grants').selectAll().where('access_token_id', '=', tokenId).where('revoked_at', 'is', null).executeTakeFirst();
}

/** Live tokens a user holds for one app. */
export async function listAppTokens(db: Queryable, userId: number, appId: number): Promise<number[]> {
  const rows = await db.selectFrom('api_tokens').select('id')
    .where('user_id', '=', userId).where('api_client_id', '=', appId).where('revoked_at', 'is', null).execute();
  return rows.map((r) => r.id);
}
