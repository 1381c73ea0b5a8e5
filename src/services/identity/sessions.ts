import { serverSecret } from '../../store/attachments.ts';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';
import type { Queryable, Store } from '../../store/db.ts';
import { deleteExpiredSessions, deleteSession, deleteUserSessions, findPasswordHash, findSessionUser, insertSession, upsertPassword } from '../../store/sessions.ts';
import { findUserByEmail } from '../../store/users.ts';
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
  if (password.length < MIN_PASSWORD_LENGTH) throw apiError(1018, '(hidden)', `password (at least ${MIN_PASSWORD_LENGTH} characters)`);
  const digest = await hash(password);
  return store.db.transaction().execute(async (tx) => {
    const user = await findUserByEmail(tx, email);
    if (!user || user.org_id !== author.orgId) throw apiError(1006);
    const now = clock.now();
    await upsertPassword(tx, user.id, digest, now);
    await deleteUserSessions(tx, user.id);
    await recordEvents(tx, author, [{ objectType: 'USER', action: 'UPDATE', objectId: user.id, details: { password: 'SET' } }], now);
    return user;
  });
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
  const value = randomBytes(32).toString('base64url');
  const now = clock.now();
  await store.db.transaction().execute(async (tx) => {
    await deleteExpiredSessions(tx, now);
    await insertSession(tx, { id_hash: hashToken(value), user_id: user.id, created_at: now, expires_at: now + ttlMs });
  });
  return { value, user };
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
