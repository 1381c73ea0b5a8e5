/**
 * Contacts typed into CONTACT_LIST and MULTI_CONTACT_LIST cells, pasted there, or copied from
 * them. A cell shows a contact's name; the API stores an email address with an optional name.
 * Typed text is read against the people the page knows (the column's contact options, the
 * organisation's users, the person's contacts, the contacts already in the sheet): an email
 * address is that contact; a name is the one person of that name (case and spaces aside);
 * `Name <email>` (what copying a contact cell puts on the clipboard) is that email with that
 * name. Anything else is refused in words before anything is sent.
 */

export interface Person {
  email: string;
  name?: string;
}

/** A contact as the API takes it (objectType CONTACT). */
export interface ContactValue {
  objectType: 'CONTACT';
  email: string;
  name?: string;
}

// the API's address syntax (engine/contacts.ts): one '@', no spaces, a dot in the domain
const EMAIL = /^[^\s@",;<>()[\]]+@[^\s@",;<>()[\]]+\.[^\s@",;<>()[\]]+$/;

export function isEmail(s: string): boolean {
  return s.length <= 254 && EMAIL.test(s);
}

const norm = (s: string) => s.trim().replace(/\s+/g, ' ').toLowerCase();

/**
 * The people, each email once (compared without case); a name given anywhere is kept (the
 * first list's first).
 */
export function mergePeople(...lists: ReadonlyArray<ReadonlyArray<{ email?: string; name?: string }>>): Person[] {
  const out = new Map<string, Person>();
  for (const list of lists) {
    for (const p of list) {
      if (!p.email) continue;
      const k = p.email.toLowerCase();
      const name = p.name && p.name.trim() !== '' && p.name !== p.email ? p.name.trim() : undefined;
      const had = out.get(k);
      if (!had) out.set(k, name ? { email: p.email, name } : { email: p.email });
      else if (!had.name && name) had.name = name;
    }
  }
  return [...out.values()];
}

/** How a contact is copied: `Name <email>`, or the email alone (a name with , ; " < > is quoted). */
export function contactText(c: { email: string; name?: string }): string {
  if (!c.name || c.name === c.email) return c.email;
  const name = /[,;"<>\n]/.test(c.name) ? `"${c.name.replace(/"/g, '""')}"` : c.name;
  return `${name} <${c.email}>`;
}

/** Contacts of a list as text: each as contactText, joined by ", ". */
export function contactsText(cs: ReadonlyArray<{ email: string; name?: string }>): string {
  return cs.map(contactText).join(', ');
}

/** The entries of a typed list of contacts: split at commas, semicolons and line breaks outside quotes and <...>. */
export function splitContacts(text: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  let angle = false;
  for (const ch of text) {
    if (ch === '"' && !angle) quoted = !quoted;
    else if (ch === '<' && !quoted) angle = true;
    else if (ch === '>' && !quoted) angle = false;
    if (!quoted && !angle && (ch === ',' || ch === ';' || ch === '\n' || ch === '\r')) {
      out.push(cur);
      cur = '';
      continue;
    }
    cur += ch;
  }
  out.push(cur);
  return out.map((s) => s.trim()).filter((s) => s !== '');
}

/** One typed contact: the contact to save, or why it cannot be one. */
export function resolveContact(text: string, people: readonly Person[]): { contact: ContactValue } | { error: string } {
  const t = text.trim();
  const known = (email: string) => people.find((p) => p.email.toLowerCase() === email.toLowerCase());
  const contact = (email: string, name: string | undefined): { contact: ContactValue } => {
    const n = name ?? known(email)?.name;
    return { contact: n ? { objectType: 'CONTACT', email, name: n } : { objectType: 'CONTACT', email } };
  };
  // Name <email>, "Last, First" <email>, <email>
  const m = /^(?:"((?:[^"]|"")*)"|([^"<>]*?))\s*<([^<>]*)>$/.exec(t);
  if (m) {
    const email = m[3]!.trim();
    if (!isEmail(email)) return { error: `“${t}” is not a contact (“${email}” is not an email address).` };
    const name = (m[1] !== undefined ? m[1].replace(/""/g, '"') : m[2]!).trim();
    return contact(email, name === '' || name === email ? undefined : name);
  }
  if (isEmail(t)) {
    const p = known(t);
    return contact(p?.email ?? t, undefined);
  }
  const named = people.filter((p) => p.name !== undefined && norm(p.name) === norm(t));
  if (named.length === 1) return contact(named[0]!.email, named[0]!.name);
  if (named.length > 1) return { error: `“${t}” is the name of ${named.length} contacts (${named.map((p) => p.email).join(', ')}). Type the email address of the one you mean.` };
  return { error: `“${t}” is not a known contact. Type an email address, or choose a person from the list.` };
}

/** A typed list of contacts (MULTI_CONTACT_LIST): each entry resolved, each email once; the first refusal refuses it. */
export function resolveContacts(text: string, people: readonly Person[]): { contacts: ContactValue[] } | { error: string } {
  const out: ContactValue[] = [];
  // addresses typed with only spaces between them are several entries too
  const entries = splitContacts(text).flatMap((e) => (!e.includes('<') && /\s/.test(e) && e.split(/\s+/).every(isEmail) ? e.split(/\s+/) : [e]));
  for (const entry of entries) {
    const r = resolveContact(entry, people);
    if ('error' in r) return r;
    if (!out.some((c) => c.email.toLowerCase() === r.contact.email.toLowerCase())) out.push(r.contact);
  }
  return { contacts: out };
}
