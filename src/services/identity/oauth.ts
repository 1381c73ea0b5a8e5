import { serverKey } from './secrets.ts';
import { revokeAppWebhooks } from '../outbound/webhooks.ts';
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { Queryable, Store } from '../../store/db.ts';
import {
  findAppByClientId, findApp, findCode, findGrantByAccessToken, findGrantByRefresh, insertApp, insertCode, insertGrant,
  listAppTokens, listAppsOwnedBy, listLiveGrants, revokeGrants, rotateGrant, setAppSalt, useCode, deleteExpiredCodes,
  type OAuthAppRow,
} from '../../store/oauth.ts';
import { revokeTokens } from '../../store/tokens.ts';
import { apiError } from '../../errors.ts';
import { newId, newRawToken, randomString } from '../../ids.ts';
import { clock } from '../../clock.ts';
import { createToken, hashToken } from './tokens.ts';
import { isScope, type Scope } from '../access/scopes.ts';
import { authorOf, recordEvents, type EventAuthor } from '../log/events.ts';
import type { Actor } from '../platform/context.ts';

/** How long an authorization code is good for, in ms (spec 5: "about 599135"). */
export const CODE_TTL_MS = 599_135;
/** Lifetime of an OAuth access token, in seconds (spec 5). */
export const ACCESS_TOKEN_TTL_S = 604_799;

// ---- Apps ------------------------------------------------------------------------------------

export interface AppInput {
  name?: unknown;
  description?: unknown;
  launchUrl?: unknown;
  contact?: unknown;
  redirectUrl?: unknown;
}

export interface NewApp {
  app: OAuthAppRow;
  /** Shown once: it is not stored, only derivable with the server's key (see docs/decisions.md). */
  clientSecret: string;
}

function text(v: unknown, field: string, max: number, required: boolean): string | null {
  if (v === undefined || v === null || (typeof v === 'string' && v.trim() === '')) {
    if (required) throw apiError(1012, field);
    return null;
  }
  if (typeof v !== 'string' || v.length > max) throw apiError(1018, String(v).slice(0, 100), field);
  return v.trim();
}

function url(v: unknown, field: string, required: boolean): string | null {
  const s = text(v, field, 2000, required);
  if (s === null) return null;
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    throw apiError(1018, s.slice(0, 100), field);
  }
  // a redirect URL with a fragment cannot carry the code back (RFC 6749 3.1.2)
  if ((u.protocol !== 'https:' && u.protocol !== 'http:') || u.hash !== '') throw apiError(1018, s.slice(0, 100), field);
  return s;
}

/** Registers an app (a page, or `sheetd app create`); the owner is null from the command line. */
export async function createApp(store: Store, author: EventAuthor, ownerId: number | null, input: AppInput): Promise<NewApp> {
  const name = text(input.name, 'name', 200, true)!;
  const redirectUrl = url(input.redirectUrl, 'redirectUrl', true)!;
  const launchUrl = url(input.launchUrl, 'launchUrl', false);
  const description = text(input.description, 'description', 2000, false);
  const contact = text(input.contact, 'contact', 500, false);
  return store.db.transaction().execute(async (tx) => {
    const now = clock.now();
    const app: OAuthAppRow = {
      id: newId(), org_id: author.orgId, owner_id: ownerId, client_id: randomString(20), secret_salt: randomString(24),
      name, description, launch_url: launchUrl, contact, redirect_url: redirectUrl, created_at: now, modified_at: now,
    };
    await insertApp(tx, app);
    await recordEvents(tx, author, [{ objectType: 'API_CLIENT', action: 'CREATE', objectId: app.id, details: { name } }], now);
    return { app, clientSecret: await clientSecret(tx, app) };
  });
}

/** A new client secret for an app its owner (or, with ownerId null, the command line) names. */
export async function regenerateSecret(store: Store, author: EventAuthor, ownerId: number | null, appId: number): Promise<NewApp> {
  return store.db.transaction().execute(async (tx) => {
    const app = await findApp(tx, appId);
    if (!app || app.org_id !== author.orgId || (ownerId !== null && app.owner_id !== ownerId)) throw apiError(1006);
    const now = clock.now();
    const next = { ...app, secret_salt: randomString(24), modified_at: now };
    await setAppSalt(tx, app.id, next.secret_salt, now);
    await recordEvents(tx, author, [{ objectType: 'API_CLIENT', action: 'UPDATE', objectId: app.id, details: { secret: 'REGENERATED' } }], now);
    return { app: next, clientSecret: await clientSecret(tx, next) };
  });
}

export async function listOwnApps(db: Queryable, userId: number): Promise<OAuthAppRow[]> {
  return listAppsOwnedBy(db, userId);
}

function secretKey(db: Queryable): Promise<Buffer> {
  return serverKey(db, 'oauth-client-secret');
}

/**
 * The client secret is never stored: it is an HMAC of the app's client id and salt under the
 * server's key. The token endpoint needs the secret itself to check `hash` = SHA-256(secret|code),
 * so a one-way hash of it could not serve; regenerating replaces the salt.
 */
async function clientSecret(db: Queryable, app: Pick<OAuthAppRow, 'client_id' | 'secret_salt'>): Promise<string> {
  const mac = createHmac('sha256', await secretKey(db)).update(`${app.client_id}.${app.secret_salt}`).digest();
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  let s = '';
  for (let i = 0; i < 26; i++) s += alphabet[mac[i]! % 36];
  return s;
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

// ---- The authorization request (/b/authorize) --------------------------------------------------

export interface AuthorizeParams {
  client_id?: unknown;
  response_type?: unknown;
  scope?: unknown;
  state?: unknown;
  redirect_uri?: unknown;
}

/** A request the app should hear about at its redirect URL, or one that must not redirect at all. */
export type AuthorizeCheck =
  | { ok: true; app: OAuthAppRow; scopes: Scope[]; state: string | null; redirectUrl: string }
  | { ok: false; redirect: string }
  | { ok: false; problem: string };

function param(v: unknown): string | undefined {
  if (Array.isArray(v)) return undefined;
  return typeof v === 'string' ? v : undefined;
}

/** Adds query parameters to the app's redirect URL (keeping its own). */
export function redirectWith(base: string, params: Record<string, string | null>): string {
  const u = new URL(base);
  for (const [k, v] of Object.entries(params)) if (v !== null) u.searchParams.set(k, v);
  return u.toString();
}

/**
 * Checks an authorization request. Without a known client (or with a redirect_uri other than the
 * registered one) nothing is redirected (that would be an open redirect): the page says why.
 * Other faults go back to the app as OAuth error types.
 */
export async function checkAuthorize(db: Queryable, p: AuthorizeParams): Promise<AuthorizeCheck> {
  const clientId = param(p.client_id);
  if (!clientId) return { ok: false, problem: 'The request names no client_id.' };
  const app = await findAppByClientId(db, clientId);
  if (!app) return { ok: false, problem: 'No app has this client_id (invalid_client).' };
  const redirectUri = param(p.redirect_uri);
  if (p.redirect_uri !== undefined && redirectUri !== app.redirect_url) {
    return { ok: false, problem: 'The redirect_uri does not match the redirect URL registered for this app.' };
  }
  const state = p.state === undefined ? null : param(p.state) ?? '';
  const back = (error: string) => ({ ok: false as const, redirect: redirectWith(app.redirect_url, { error, state }) });
  const responseType = param(p.response_type);
  if (responseType === undefined) return back('invalid_request');
  if (responseType !== 'code') return back('unsupported_response_type');
  const scopeText = param(p.scope);
  if (scopeText === undefined) return back('invalid_request');
  const scopes: Scope[] = [];
  for (const s of scopeText.split(/[\s,]+/)) {
    if (s === '') continue;
    if (!isScope(s)) return back('invalid_scope');
    if (!scopes.includes(s)) scopes.push(s);
  }
  return { ok: true, app, scopes, state, redirectUrl: app.redirect_url };
}

/**
 * The user's answer on the consent page: Allow issues a single-use code for the scopes shown;
 * Deny answers access_denied. Returns where to send the browser.
 */
export async function decideAuthorize(store: Store, userId: number, p: AuthorizeParams, allow: boolean): Promise<AuthorizeCheck | { ok: true; redirect: string }> {
  const check = await checkAuthorize(store.db, p);
  if (!check.ok) return check;
  if (!allow) return { ok: true, redirect: redirectWith(check.redirectUrl, { error: 'access_denied', state: check.state }) };
  return store.db.transaction().execute(async (tx) => {
    const now = clock.now();
    const code = newRawToken();
    await deleteExpiredCodes(tx, now - 86_400_000);
    await insertCode(tx, { code_hash: hashToken(code), app_id: check.app.id, user_id: userId, scopes: check.scopes.join(' '), expires_at: now + CODE_TTL_MS, used_at: null });
    return { ok: true as const, redirect: redirectWith(check.redirectUrl, { code, expires_in: String(CODE_TTL_MS), state: check.state }) };
  });
}

// ---- The token endpoint (POST /2.0/token) ------------------------------------------------------

export interface TokenParams {
  grant_type?: unknown;
  client_id?: unknown;
  client_secret?: unknown;
  hash?: unknown;
  code?: unknown;
  refresh_token?: unknown;
  redirect_url?: unknown;
  redirect_uri?: unknown;
}

export interface IssuedToken {
  access_token: string;
  token_type: 'bearer';
  refresh_token: string;
  expires_in: number;
}

function required(p: TokenParams, name: keyof TokenParams): string {
  const v = p[name];
  if (typeof v !== 'string' || v === '') throw apiError(1070, name);
  return v;
}

function optional(p: TokenParams, name: keyof TokenParams): string | undefined {
  const v = p[name];
  if (v === undefined || v === '') return undefined;
  if (typeof v !== 'string') throw apiError(1070, name);
  return v;
}

/**
 * Get or refresh an access token. The client proves itself with client_secret or with
 * hash = SHA-256(secret|code) (secret|refresh_token when refreshing). Codes are single-use;
 * a refresh issues a new pair and the old access and refresh tokens stop working.
 */
export async function issueToken(store: Store, p: TokenParams): Promise<IssuedToken> {
  const grantType = required(p, 'grant_type');
  if (grantType !== 'authorization_code' && grantType !== 'refresh_token') throw apiError(1068);
  const clientId = required(p, 'client_id');
  const secretGiven = optional(p, 'client_secret');
  const hashGiven = optional(p, 'hash');
  const grantText = grantType === 'authorization_code' ? required(p, 'code') : required(p, 'refresh_token');
  const redirect = optional(p, 'redirect_url') ?? optional(p, 'redirect_uri');
  const app = await findAppByClientId(store.db, clientId);
  if (!app) throw apiError(1067);
  if (secretGiven !== undefined && hashGiven !== undefined) throw apiError(1237);
  if (secretGiven === undefined && hashGiven === undefined) throw apiError(1236);
  const secret = await clientSecret(store.db, app);
  if (secretGiven !== undefined && !sameText(secretGiven, secret)) throw apiError(1238);
  if (hashGiven !== undefined && !sameText(hashGiven.toLowerCase(), createHash('sha256').update(`${secret}|${grantText}`).digest('hex'))) throw apiError(1072);
  if (redirect !== undefined && redirect !== app.redirect_url) throw apiError(1073);
  const now = clock.now();
  return store.db.transaction().execute(async (tx) => {
    if (grantType === 'authorization_code') {
      const codeHash = hashToken(grantText);
      const code = await findCode(tx, codeHash);
      if (!code || code.app_id !== app.id || code.used_at !== null) throw apiError(1071);
      if (code.expires_at <= now) throw apiError(1069);
      if (!(await useCode(tx, codeHash, now))) throw apiError(1071);
      return newPair(tx, app, code.user_id, code.scopes, now, null);
    }
    const oldHash = hashToken(grantText);
    const grant = await findGrantByRefresh(tx, oldHash);
    if (!grant || grant.app_id !== app.id) throw apiError(1071);
    if (grant.revoked_at !== null) throw apiError(1132);
    const issued = await newPair(tx, app, grant.user_id, grant.scopes, now, { id: grant.id, oldRefreshHash: oldHash });
    await revokeTokens(tx, [grant.access_token_id], now);
    return issued;
  });
}

async function newPair(
  tx: Queryable, app: OAuthAppRow, userId: number, scopes: string, now: number, rotate: { id: number; oldRefreshHash: string } | null,
): Promise<IssuedToken> {
  const author: EventAuthor = { orgId: app.org_id, userId, requestUserId: userId, accessTokenName: app.name, source: 'API_INTEGRATED_APP' };
  const granted = scopes.split(' ').filter(isScope);
  const access = await createToken(tx, author, userId, { name: app.name, scopes: granted, kind: 'OAUTH', expiresAt: now + ACCESS_TOKEN_TTL_S * 1000, apiClientId: app.id }, now);
  const refresh = newRawToken();
  const refreshHash = hashToken(refresh);
  if (rotate) {
    if (!(await rotateGrant(tx, rotate.id, rotate.oldRefreshHash, { accessTokenId: access.id, refreshHash }))) throw apiError(1071);
  } else {
    await insertGrant(tx, { id: newId(), app_id: app.id, user_id: userId, scopes, access_token_id: access.id, refresh_hash: refreshHash, created_at: now, revoked_at: null });
  }
  return { access_token: access.raw, token_type: 'bearer', refresh_token: refresh, expires_in: ACCESS_TOKEN_TTL_S };
}

/**
 * Revoke Access Token: the token of the request; with deleteAllForApiClient every token (and
 * refresh token) its user holds for the same app. A raw token has no app: only it is revoked.
 */
export async function revokeAccessToken(store: Store, actor: Actor, deleteAllForApiClient: boolean): Promise<void> {
  await store.db.transaction().execute(async (tx) => {
    const now = clock.now();
    const userId = actor.requestUser.id;
    let tokens = [actor.tokenId];
    let grants: number[] = [];
    if (actor.apiClientId !== null && deleteAllForApiClient) {
      tokens = await listAppTokens(tx, userId, actor.apiClientId);
      grants = (await listLiveGrants(tx, userId, actor.apiClientId)).map((g) => g.id);
    } else {
      const g = await findGrantByAccessToken(tx, actor.tokenId);
      if (g) grants = [g.id];
    }
    await revokeTokens(tx, tokens, now);
    await revokeGrants(tx, grants, now);
    await recordEvents(tx, authorOf(actor), tokens.map((id) => ({ objectType: 'ACCESS_TOKEN', action: 'DELETE', objectId: id })), now);
    // the app no longer acts for this user: its webhooks stop for good (DISABLED_APP_REVOKED)
    if (actor.apiClientId !== null && deleteAllForApiClient) await revokeAppWebhooks(tx, authorOf(actor), actor.apiClientId, userId);
  });
}

// ---- Apps a user has authorized ---------------------------------------------------------------

export interface AuthorizedApp {
  appId: number;
  name: string;
  scopes: string[];
  since: number;
}

export async function listAuthorizedApps(db: Queryable, userId: number): Promise<AuthorizedApp[]> {
  const byApp = new Map<number, AuthorizedApp>();
  for (const g of await listLiveGrants(db, userId)) {
    const cur = byApp.get(g.app_id);
    const scopes = g.scopes.split(' ').filter((s) => s !== '');
    if (!cur) byApp.set(g.app_id, { appId: g.app_id, name: g.app_name, scopes, since: g.created_at });
    else for (const s of scopes) if (!cur.scopes.includes(s)) cur.scopes.push(s);
  }
  return [...byApp.values()];
}

/** Withdraws an app's access: its grants and every token the user holds for it. */
export async function revokeAppAccess(store: Store, author: EventAuthor, userId: number, appId: number): Promise<void> {
  await store.db.transaction().execute(async (tx) => {
    const now = clock.now();
    const tokens = await listAppTokens(tx, userId, appId);
    await revokeTokens(tx, tokens, now);
    await revokeGrants(tx, (await listLiveGrants(tx, userId, appId)).map((g) => g.id), now);
    await recordEvents(tx, author, tokens.map((id) => ({ objectType: 'ACCESS_TOKEN', action: 'DELETE', objectId: id })), now);
    await revokeAppWebhooks(tx, author, appId, userId);
  });
}

export async function findAppForCli(db: Queryable, clientId: string): Promise<OAuthAppRow | undefined> {
  return findAppByClientId(db, clientId);
}
