import { serverSecret } from '../../store/attachments.ts';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';
import type { Queryable, Store } from '../../store/db.ts';
import { deleteExpiredSessions, deleteSession, deleteUserSessions, findPasswordHash, findSessionUser, insertSession, upsertPassword } from '../../store/sessions.ts';
import { findUserByEmail, updateUserRow } from '../../store/users.ts';
import { apiError } from '../../errors.ts';
import { clock } from '../../clock.ts';
import { hashToken } from './tokens.ts';
import { recordEvents, type EventAuthor } from '../log/events.ts';
import type { UserRow } from '../platform/context.ts';

export const MIN_PASSWORD_LENGTH = 8;

/** Checked against when no account matches, so that a wrong address takes as long as a wrong password. */
let dummyHash: Promise<string> | null = null;

/** Sets (or replaces) a user's password; every sign-in of that user ends. */
export async function setPassword(store: Store, author: EventAuthor, email: string, password: string): Promise<UserRow> {
  const digest = await passwordDigest(password);
  return store.db.transaction().execute(async (tx) => {
    const user = await findUserByEmail(tx, email);
    if (!user || user.org_id !== author.orgId) throw apiError(1006);
    await storePassword(tx, author, user, digest, clock.now());
    return user;
  });
}

/** The argon2id hash of a new password; one shorter than MIN_PASSWORD_LENGTH is 1018. */
export async function passwordDigest(password: string): Promise<string> {
  if (password.length < MIN_PASSWORD_LENGTH) throw apiError(1018, '(hidden)', `password (at least ${MIN_PASSWORD_LENGTH} characters)`);
  return hash(password);
}

/**
 * Keeps a user's new password (its hash) in `tx` and ends every sign-in of that user: whoever
 * knew the old password is signed out. Recorded as the user's UPDATE event.
 */
export async function storePassword(tx: Queryable, author: EventAuthor, user: UserRow, digest: string, now: number, details: Record<string, unknown> = {}): Promise<void> {
  await upsertPassword(tx, user.id, digest, now);
  await deleteUserSessions(tx, user.id);
  await recordEvents(tx, author, [{ objectType: 'USER', action: 'UPDATE', objectId: user.id, details: { password: 'SET', ...details } }], now);
}

export interface NewSession {
  /** The cookie's value; only its hash is stored. */
  value: string;
  user: UserRow;
}

/** Email and password to a session; null when they do not match an active user. */
export async function signIn(store: Store, email: string, password: string, ttlMs: number): Promise<NewSession | null> {
  const user = email.length <= 320 ? await findUserByEmail(store.db, email.trim()) : undefined;
  const stored = user ? await findPasswordHash(store.db, user.id) : undefined;
  if (!stored) {
    dummyHash ??= hash(randomBytes(16).toString('hex'));
    await verify(await dummyHash, password).catch(() => false);
    return null;
  }
  const ok = await verify(stored, password).catch(() => false);
  if (!ok || !user || user.status !== 'ACTIVE') return null;
  const now = clock.now();
  return store.db.transaction().execute(async (tx) => {
    // the User object's lastLogin (admins read it): the last sign-in to the web app
    await updateUserRow(tx, user.id, { last_login: now });
    return startSession(tx, user, ttlMs, now);
  });
}

/** A new session of `user` (and expired ones of anyone cleared away). */
async function startSession(tx: Queryable, user: UserRow, ttlMs: number, now: number): Promise<NewSession> {
  const value = randomBytes(32).toString('base64url');
  await deleteExpiredSessions(tx, now);
  await insertSession(tx, { id_hash: hashToken(value), user_id: user.id, created_at: now, expires_at: now + ttlMs });
  return { value, user };
}

/**
 * Change my password: the signed-in user's current password, then the new one. Null when the
 * current password is not right (nothing changes). Every sign-in of the user ends, this one too,
 * and the new session returned replaces it: whoever was signed in elsewhere must sign in again.
 */
export async function changeOwnPassword(store: Store, user: UserRow, current: string, next: string, ttlMs: number): Promise<NewSession | null> {
  const stored = await findPasswordHash(store.db, user.id);
  if (!stored || !(await verify(stored, current).catch(() => false))) return null;
  const digest = await passwordDigest(next);
  const author: EventAuthor = { orgId: user.org_id, userId: user.id, requestUserId: user.id, accessTokenName: null, source: 'WEB_APP' };
  return store.db.transaction().execute(async (tx) => {
    const now = clock.now();
    await storePassword(tx, author, user, digest, now);
    return startSession(tx, user, ttlMs, now);
  });
}

/** The active user a session cookie belongs to, if the session is live. */
export async function sessionUser(db: Queryable, value: string): Promise<UserRow | undefined> {
  const user = await findSessionUser(db, hashToken(value), clock.now());
  return user && user.status === 'ACTIVE' ? user : undefined;
}

export async function signOut(store: Store, value: string): Promise<void> {
  await deleteSession(store.db, hashToken(value));
}

/** The key that signs cookies: made once, in the database, so every process accepts every other's. */
export async function cookieSecret(db: Queryable): Promise<string> {
  return serverSecret(db, 'cookie', () => randomBytes(32).toString('base64'));
}

/**
 * The CSRF token of the web app's API calls: derived from the session (HMAC with the cookie
 * key), put in the page, and sent back by the page's script in the X-CSRF-Token header. Another
 * site can make the browser send the session cookie but cannot read the page to learn the token.
 */
export function apiCsrfToken(secret: string, sessionValue: string): string {
  return createHmac('sha256', secret).update(`api-csrf:${sessionValue}`).digest('base64url');
}

export function apiCsrfTokenMatches(secret: string, sessionValue: string, sent: string): boolean {
  const want = Buffer.from(apiCsrfToken(secret, sessionValue));
  const got = Buffer.from(sent);
  return want.length === got.length && timingSafeEqual(want, got);
}
