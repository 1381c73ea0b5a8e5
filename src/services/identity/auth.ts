import { newReadEpoch, type Queryable } from '../../store/db.ts';
import { findTokenWithUser, keptTokenWithUser, NOT_KEPT, type OwnExtras, type TokenWithUser } from '../../store/tokens.ts';
import { findOrgById, findUserByEmail } from '../../store/users.ts';
import { apiError } from '../../errors.ts';
import { isBadText } from '../../engine/input.ts';
import { hashToken } from './tokens.ts';
import { apiCsrfTokenMatches, sessionUser } from './sessions.ts';
import { parseScopes } from '../access/scopes.ts';
import type { Actor, OrgRow, UserRow } from '../platform/context.ts';
import { clock } from '../../clock.ts';

/** Plans whose users may use the API (spec section 1). */
const API_PLANS = new Set(['BUSINESS', 'ENTERPRISE']);

/**
 * A request has arrived on `connection`: its reads kept between requests (the token with its
 * user, Get Current User's extras) see what other processes committed before it was sent
 * (store/db.ts newReadEpoch).
 */
export function requestArrived(connection: object): void {
  newReadEpoch(connection);
}

/**
 * Resolves `Authorization: Bearer <token>` (and `Assume-User`) to an Actor.
 * 1001 no token; 1002 unknown or revoked; 1003 expired; 1013 plan without API access;
 * 1030 Assume-User that cannot be honoured.
 */
export async function authenticate(
  db: Queryable,
  authorization: string | undefined,
  assumeUser: string | undefined,
  now = clock.now(),
): Promise<Actor> {
  return authenticateHash(db, bearerTokenHash(authorization), assumeUser, now);
}

/** The stored hash of the token an `Authorization: Bearer <token>` header sends; 1001 when it sends none. */
export function bearerTokenHash(authorization: string | undefined): string {
  if (!authorization || authorization.trim() === '') throw apiError(1001);
  const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization.trim());
  if (!m) throw apiError(1001);
  return hashToken(m[1]!);
}

/**
 * authenticate() of a token given by its hash (bearerTokenHash). When the token's row is at hand
 * (SQLite: kept since the database last changed) and no Assume-User is sent, the actor comes at
 * once, not as a promise (errors are then thrown at once too): the hook of every API request goes
 * on in the same turn.
 */
export function authenticateHash(
  db: Queryable,
  tokenHash: string,
  assumeUser: string | undefined,
  now = clock.now(),
): Actor | Promise<Actor> {
  if (assumeUser === undefined || assumeUser === '') {
    const kept = keptTokenWithUser(db, tokenHash);
    if (kept !== NOT_KEPT) {
      const row = admitted(kept, now);
      const user = userOf(row);
      return actorOf(row, user, user);
    }
  }
  return readActor(db, tokenHash, assumeUser, now);
}

async function readActor(db: Queryable, tokenHash: string, assumeUser: string | undefined, now: number): Promise<Actor> {
  const row = admitted(await findTokenWithUser(db, tokenHash), now);
  const requestUser = userOf(row);
  let user = requestUser;
  if (assumeUser !== undefined && assumeUser !== '') {
    let email: string;
    try {
      email = decodeURIComponent(assumeUser).trim().toLowerCase();
    } catch {
      throw apiError(1030);
    }
    // no user has such an address, and PostgreSQL cannot even look one up
    if (isBadText(email)) throw apiError(1030);
    if (!requestUser.admin || row.kind !== 'RAW') throw apiError(1030);
    const target = await findUserByEmail(db, email);
    // an admin cannot act as another admin, nor as someone outside the organization
    if (!target || target.org_id !== row.org_id || target.admin || target.status !== 'ACTIVE') throw apiError(1030);
    user = target;
  }
  return actorOf(row, requestUser, user);
}

/** The token's row when it may be used now: 1002 unknown, revoked or its user gone; 1003 expired; 1013 a plan without the API. */
function admitted(row: TokenWithUser | undefined, now: number): TokenWithUser {
  if (!row || row.revoked_at !== null) throw apiError(1002);
  if (row.expires_at !== null && row.expires_at <= now) throw apiError(1003);
  if (row.status === 'DEACTIVATED' || row.status === 'REMOVED') throw apiError(1002);
  if (!API_PLANS.has(row.org_plan)) throw apiError(1013);
  return row;
}

function userOf(row: TokenWithUser): UserRow {
  return {
    id: row.id, org_id: row.org_id, email: row.email, first_name: row.first_name, last_name: row.last_name,
    admin: row.admin, licensed_sheet_creator: row.licensed_sheet_creator, group_admin: row.group_admin,
    resource_viewer: row.resource_viewer, status: row.status, locale: row.locale, time_zone: row.time_zone,
    company: row.company, department: row.department, role: row.role, title: row.title,
    mobile_phone: row.mobile_phone, work_phone: row.work_phone, last_login: row.last_login,
    created_at: row.created_at, modified_at: row.modified_at,
  };
}

function actorOf(row: TokenWithUser, requestUser: UserRow, user: UserRow): Actor {
  const org: OrgRow = { id: row.org_id, name: row.org_name, plan: row.org_plan, created_at: row.org_created_at };
  const actor: Actor = {
    user,
    requestUser,
    org,
    tokenId: row.token_id,
    tokenName: row.token_name,
    scopes: parseScopes(row.scopes),
    apiClientId: row.api_client_id ?? null,
  };
  if (row.own_extras !== undefined && user === requestUser) readWithToken.set(actor, row.own_extras);
  return actor;
}

/** The extras of the token's user that the token's read brought (PostgreSQL), by actor. */
const readWithToken = new WeakMap<Actor, OwnExtras>();

/**
 * Get Current User's extras (alternate addresses, profile image) of the actor's own user when
 * they were read with its token in this request (PostgreSQL: store/tokens.ts), else undefined.
 */
export function ownExtrasReadWithToken(actor: Actor): OwnExtras | undefined {
  return actor.user === actor.requestUser ? readWithToken.get(actor) : undefined;
}

/**
 * The web app's API calls: the page's session (its signed cookie, already unsigned) and the CSRF
 * token the page sent in X-CSRF-Token. No token: 1001; a session that ended or a token that does
 * not match: 1002. The actor acts with the user's own rights (every scope); its events record
 * the source WEB_APP and no access token.
 */
export async function authenticateSession(db: Queryable, sessionValue: string, csrfToken: string | undefined, secret: string): Promise<Actor> {
  if (!csrfToken) throw apiError(1001);
  if (!apiCsrfTokenMatches(secret, sessionValue, csrfToken)) throw apiError(1002);
  const user = await sessionUser(db, sessionValue);
  if (!user) throw apiError(1002);
  const org = await findOrgById(db, user.org_id);
  if (!org) throw apiError(1002);
  return { user, requestUser: user, org, tokenId: 0, tokenName: 'web app', scopes: 'ALL', apiClientId: null, source: 'WEB_APP' };
}
