/**
 * Contacts in CONTACT_LIST and MULTI_CONTACT_LIST cells, and contactOptions of columns.
 */

/** The API's contact object value (objectType CONTACT). */
export interface ContactObject {
  objectType: 'CONTACT';
  email?: string;
  name?: string;
}

/** The stored form of one contact: email plus optional display name. */
export interface StoredContact {
  email: string;
  name?: string;
}

// Pragmatic address syntax: one '@', no spaces, a dot in the domain, sane lengths.
const EMAIL = /^[^\s@",;<>()[\]]+@[^\s@",;<>()[\]]+\.[^\s@",;<>()[\]]+$/;

export function isValidEmail(s: string): boolean {
  return s.length <= 254 && EMAIL.test(s.trim());
}

/** Email addresses compare case-insensitively; stored trimmed and as given otherwise. */
export function normaliseEmail(s: string): string {
  return s.trim();
}

/** What the grid shows for a contact: its name if any, else its email. */
export function contactDisplay(c: StoredContact): string {
  return c.name !== undefined && c.name !== '' ? c.name : c.email;
}

export function contactObject(c: StoredContact): ContactObject {
  const o: ContactObject = { objectType: 'CONTACT', email: c.email };
  if (c.name !== undefined && c.name !== '') o.name = c.name;
  return o;
}

/**
 * Resolve the name of a contact written to a cell, following the rules of the public
 * service for CONTACT_LIST cells: a non-empty displayValue is the name; an empty one means
 * "show the email"; an absent one asks `lookup` (the caller's contacts / users / column
 * contactOptions) for a best guess.
 */
export function resolveContactName(
  email: string,
  displayValue: unknown,
  lookup?: (email: string) => string | undefined,
): string | undefined {
  if (typeof displayValue === 'string') return displayValue === '' ? undefined : displayValue;
  const found = lookup?.(email);
  return found === undefined || found === '' ? undefined : found;
}
