import { sql, type Insertable } from 'kysely';
import { keptRead, NOT_KEPT, onPostgres, selectShaped, stampedRead, type Queryable } from './db.ts';
import { batchedRead } from './batchedReads.ts';
import type { ApiTokenTable } from './schema.ts';
import type { AlternateEmailRow } from './alternateEmails.ts';

export async function insertToken(db: Queryable, row: Insertable<ApiTokenTable>): Promise<void> {
  await db.insertInto('api_tokens').values(row).execute();
}

/** The token with its user and organization, in one query (the hot path of every request). */
export async function findTokenWithUser(db: Queryable, tokenHash: string): Promise<TokenWithUser | undefined> {
  // every request's first read: on SQLite kept until the database may have changed; on
  // PostgreSQL the tokens of requests that arrive together are read in one query
  if (onPostgres(db)) return batchedRead(db, 'token with user', tokenHash, (hashes) => readTokensWithUsers(db, hashes));
  return stampedRead(db, 'token with user', tokenHash, () => readTokenWithUser(db, tokenHash));
}

/** findTokenWithUser's answer when it is at hand without reading (SQLite: kept since the last change), else NOT_KEPT. */
export function keptTokenWithUser(db: Queryable, tokenHash: string): TokenWithUser | undefined | typeof NOT_KEPT {
  return keptRead<TokenWithUser | undefined>(db, 'token with user', tokenHash);
}
export { NOT_KEPT };

/** What Get Current User shows beyond the user row: read with the token on PostgreSQL. */
export interface OwnExtras {
  alternate_emails: AlternateEmailRow[];
  profile_image: { image_id: string; width: number; height: number; blob_key: string } | null;
}

export type TokenWithUser = NonNullable<Awaited<ReturnType<typeof readTokenWithUser>>> & { own_extras?: OwnExtras };

/**
 * PostgreSQL: the tokens of several requests, each with its user's alternate addresses and
 * profile image (Get Current User's extras: a round trip less for it, nearly nothing for the
 * others). Each row comes as one json object: node-postgres then describes and parses one field
 * instead of 33 (its row objects of that many keys are also slow to build), about half the
 * process's CPU of the read; the values are the same (integers, text, null).
 */
async function readTokensWithUsers(db: Queryable, hashes: string[]): Promise<Map<string, TokenWithUser>> {
  const asJson = () => tokenTables(db)
    .select(sql<TokenWithUser & { token_hash: string }>`json_build_object(${sql.raw(TOKEN_JSON_MEMBERS)},
      'token_hash', t.token_hash,
      'own_extras', json_build_object(
        'alternate_emails', coalesce((select json_agg(a order by a.created_at, a.id) from alternate_emails a where a.user_id = u.id), '[]'::json),
        'profile_image', (select json_build_object('image_id', p.image_id, 'width', p.width, 'height', p.height, 'blob_key', p.blob_key) from profile_images p where p.user_id = u.id)
      ))`.as('r'));
  // one token (the usual batch): `= $1`, whose plan PostgreSQL keeps for the prepared statement
  // (its generic plan costs what a planned one does); `= any($1)` was planned afresh on every
  // run (0.2-0.5 ms of the database's CPU, against 0.1 to execute it)
  const rows = hashes.length === 1
    ? await selectShaped(db, 'token with user and extras', () => asJson().where('t.token_hash', '=', hashes[0]!), [hashes[0]])
    : await selectShaped(db, 'tokens with users', () => asJson().where('t.token_hash', '=', (eb) => eb.fn('any', [eb.val(hashes)])), [hashes]);
  return new Map(rows.map(({ r }) => [r.token_hash, r]));
}

async function readTokenWithUser(db: Queryable, tokenHash: string) {
  // compiled once per database; each request only binds the hash
  const rows = await selectShaped(db, 'token with user', () => tokenLookup(db).where('t.token_hash', '=', tokenHash), [tokenHash]);
  return rows[0];
}


/** What a token's read gives: the token, its user and organization (the hot path of every request). */
const TOKEN_COLUMNS = [
  't.id as token_id', 't.name as token_name', 't.kind', 't.scopes', 't.expires_at', 't.revoked_at', 't.api_client_id',
  'u.id', 'u.org_id', 'u.email', 'u.first_name', 'u.last_name', 'u.admin', 'u.licensed_sheet_creator',
  'u.group_admin', 'u.resource_viewer', 'u.status', 'u.locale', 'u.time_zone', 'u.company', 'u.department',
  'u.role', 'u.title', 'u.mobile_phone', 'u.work_phone', 'u.last_login', 'u.created_at', 'u.modified_at',
  'o.name as org_name', 'o.plan as org_plan', 'o.created_at as org_created_at',
] as const;

/** The same columns as json_build_object's arguments ('token_id', t.id, 'token_name', t.name, ...). */
const TOKEN_JSON_MEMBERS = TOKEN_COLUMNS.map((c) => {
  const [ref, alias] = c.split(' as ') as [string, string | undefined];
  return `'${alias ?? ref.slice(ref.indexOf('.') + 1)}', ${ref}`;
}).join(', ');

/** A token joined to its user and the user's organization, as every token read takes them. */
function tokenTables(db: Queryable) {
  return db
    .selectFrom('api_tokens as t')
    .innerJoin('users as u', 'u.id', 't.user_id')
    .innerJoin('orgs as o', 'o.id', 'u.org_id');
}

function tokenLookup(db: Queryable) {
  return tokenTables(db).select(TOKEN_COLUMNS);
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
