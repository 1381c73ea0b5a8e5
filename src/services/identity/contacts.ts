import type { Queryable } from '../../store/db.ts';
import { listOrgMembers } from '../../store/users.ts';
import { apiError } from '../../errors.ts';
import type { Actor } from '../platform/context.ts';

/** A person in a user's contact list. */
export interface ContactEntry {
  email: string;
  firstName: string | null;
  lastName: string | null;
  modifiedAt: number | null;
}

/**
 * Where contacts come from besides the organization: the sharing engine registers a source
 * that yields the people the user has shared with.
 */
export type ContactSource = (db: Queryable, actor: Actor) => Promise<ContactEntry[]>;
export const contactSources: ContactSource[] = [];

/**
 * A contact id is opaque to clients (a string, as the public service's are): the address,
 * base64url-encoded, so it is stable and needs no table of its own.
 */
export function contactId(email: string): string {
  return Buffer.from(email.toLowerCase(), 'utf8').toString('base64url');
}

function emailOfContactId(id: string): string | null {
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(id)) return null;
  const email = Buffer.from(id, 'base64url').toString('utf8');
  return email.includes('@') && contactId(email) === id ? email : null;
}

/** The caller's contacts: the other members of the organization and the people shared with. */
export async function readContacts(db: Queryable, actor: Actor, opts: { modifiedSince?: number } = {}): Promise<ContactEntry[]> {
  const members = await listOrgMembers(db, actor.org.id, { offset: 0, limit: null });
  const byEmail = new Map<string, ContactEntry>();
  for (const u of members) {
    if (u.id === actor.user.id) continue;
    byEmail.set(u.email, { email: u.email, firstName: u.first_name, lastName: u.last_name, modifiedAt: u.modified_at });
  }
  for (const source of contactSources) {
    for (const c of await source(db, actor)) {
      const email = c.email.toLowerCase();
      if (email !== actor.user.email && !byEmail.has(email)) byEmail.set(email, { ...c, email });
    }
  }
  let out = [...byEmail.values()];
  if (opts.modifiedSince !== undefined) {
    const since = opts.modifiedSince;
    out = out.filter((c) => c.modifiedAt === null || c.modifiedAt >= since);
  }
  return out.sort((a, b) => (a.email < b.email ? -1 : a.email > b.email ? 1 : 0));
}

export async function readContact(db: Queryable, actor: Actor, id: string): Promise<ContactEntry> {
  const email = emailOfContactId(id);
  if (email === null) throw apiError(1006);
  const found = (await readContacts(db, actor)).find((c) => c.email === email);
  if (!found) throw apiError(1006);
  return found;
}
