import { randomBytes } from 'node:crypto';
import type { Queryable, Store } from '../../store/db.ts';
import { deleteStalePasswordLinks, findPasswordLink, insertPasswordLink, markPasswordLinkUsed, type PasswordLinkRow } from '../../store/passwordLinks.ts';
import { findUserById } from '../../store/users.ts';
import { enqueue } from '../../store/jobs.ts';
import type { MailPayload } from '../../mail/index.ts';
import { apiError } from '../../errors.ts';
import { clock } from '../../clock.ts';
import { asObject, optionalBodyBool } from '../../engine/input.ts';
import { authorOf, recordEvents, type EventAuthor } from '../log/events.ts';
import { memberOr404, requireSystemAdmin } from '../access/members.ts';
import { nameOrEmail, type Actor, type UserRow } from '../platform/context.ts';
import type { AfterDb } from '../platform/transactions.ts';
import { hashToken } from './tokens.ts';
import { passwordDigest, storePassword } from './sessions.ts';

/**
 * Password links: how a person gets a sign-in password without anyone at a shell. A system admin
 * makes a link for a member (POST /2.0/sheetd/users/{id}/passwordlink; the People page does when
 * it adds someone); the person opens it (src/web/passwords.ts) and chooses a password. A link
 * works once and for PASSWORD_LINK_TTL_MS; only the SHA-256 of its secret is stored, and a new
 * link for the same person replaces the ones they did not use. Setting the password ends the
 * person's sessions, as `sheetd user set-password` does.
 */

export const PASSWORD_LINK_TTL_MS = 7 * 24 * 3_600_000;

export interface PasswordLink {
  user: UserRow;
  url: string;
  expiresAt: number;
  /** A message with the link was queued for the person (sendEmail, true unless false). */
  emailed: boolean;
}

export interface PasswordLinkDeps {
  /** The server's public base URL (the link's origin). */
  publicUrl: () => string;
}

/** Make Password Link: system admins only (1004), for an active member (1020 unknown, 1188 not active). */
export function makePasswordLink(store: Store, ...a: AfterDb<typeof makePasswordLinkIn>) {
  return store.db.transaction().execute((tx) => makePasswordLinkIn(tx, ...a));
}

async function makePasswordLinkIn(db: Queryable, deps: PasswordLinkDeps, actor: Actor, userId: number, body: unknown, now = clock.now()): Promise<PasswordLink> {
  requireSystemAdmin(actor);
  const b = body === undefined || body === null ? {} : asObject(body, 'an object with sendEmail');
  const extra = Object.keys(b).filter((k) => k !== 'sendEmail');
  if (extra.length > 0) throw apiError(1032, extra.join(', '));
  const sendEmail = optionalBodyBool(b.sendEmail, 'sendEmail') ?? true;
  const user = await memberOr404(db, actor, userId);
  if (user.status !== 'ACTIVE') throw apiError(1188);
  const secret = randomBytes(32).toString('base64url');
  const expiresAt = now + PASSWORD_LINK_TTL_MS;
  await deleteStalePasswordLinks(db, user.id, now);
  await insertPasswordLink(db, { id_hash: hashToken(secret), user_id: user.id, created_by: actor.user.id, created_at: now, expires_at: expiresAt, used_at: null });
  const url = `${deps.publicUrl()}/password/${secret}`;
  if (sendEmail) await enqueue(db, 'mail', linkMail(actor.user, user, url, actor.org.name) satisfies MailPayload);
  await recordEvents(db, authorOf(actor), [{ objectType: 'USER', action: 'SEND_PASSWORD_RESET', objectId: user.id, details: { email: user.email, expiresAt, emailed: sendEmail } }], now);
  return { user, url, expiresAt, emailed: sendEmail };
}

function linkMail(admin: UserRow, to: UserRow, url: string, orgName: string): MailPayload {
  const days = Math.round(PASSWORD_LINK_TTL_MS / 86_400_000);
  const who = nameOrEmail(admin);
  const ask = `${who} (${admin.email}) asks you to choose a password for ${to.email}, your account of ${orgName} on sheetd.`;
  const text = [
    ask,
    '',
    `Choose your password: ${url}`,
    `(the link works once, for ${days} days; then sign in with your email address and that password)`,
  ].join('\n');
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
  const html = `<!doctype html><html><body><p>${esc(ask)}</p>`
    + `<p><a href="${esc(url)}">Choose your password</a></p><p>The link works once, for ${days} days; then sign in with your email address and that password.</p></body></html>`;
  return { to: [to.email], replyTo: admin.email, subject: 'Choose your sheetd password', text, html, separately: true };
}

/** A link that still works: not used, not expired, its person still active. */
async function liveLink(db: Queryable, secret: string, now: number): Promise<{ link: PasswordLinkRow; user: UserRow } | undefined> {
  if (secret.length > 100) return undefined;
  const link = await findPasswordLink(db, hashToken(secret));
  if (!link || link.used_at !== null || link.expires_at <= now) return undefined;
  const user = await findUserById(db, link.user_id);
  if (!user || user.status !== 'ACTIVE') return undefined;
  return { link, user };
}

/** What the link's page shows: whose password it sets; undefined when the link no longer works. */
export async function readPasswordLink(db: Queryable, secret: string): Promise<{ email: string; expiresAt: number } | undefined> {
  const live = await liveLink(db, secret, clock.now());
  return live && { email: live.user.email, expiresAt: live.link.expires_at };
}

/**
 * Sets the person's password through the link: the link is used up, the password stored and
 * every session of theirs ended, in one transaction. Undefined (nothing changed) when the link
 * no longer works, also when another request used it a moment before; 1018 for a short password.
 */
export async function usePasswordLink(store: Store, secret: string, password: string): Promise<UserRow | undefined> {
  if (!(await liveLink(store.db, secret, clock.now()))) return undefined;
  const digest = await passwordDigest(password);
  return store.db.transaction().execute(async (tx) => {
    const now = clock.now();
    const live = await liveLink(tx, secret, now);
    if (!live || !(await markPasswordLinkUsed(tx, live.link.id_hash, now))) return undefined;
    const author: EventAuthor = { orgId: live.user.org_id, userId: live.user.id, requestUserId: live.user.id, accessTokenName: null, source: 'WEB_APP' };
    await storePassword(tx, author, live.user, digest, now, { passwordLink: true });
    return live.user;
  });
}
