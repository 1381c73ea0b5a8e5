import type { Queryable, Store } from '../../store/db.ts';
import { deleteDomain, findDomain, insertDomain, listDomains, type ValidatedDomainRow } from '../../store/domains.ts';
import { confirmAlternatesInDomain } from '../../store/alternateEmails.ts';
import { apiError } from '../../errors.ts';
import { recordEvents, type EventAuthor } from '../log/events.ts';
import type { AfterDb } from '../platform/transactions.ts';
import { clock } from '../../clock.ts';

/**
 * The email domains an organization has validated (proven it owns). Make Alternate Email
 * Primary needs the primary address's domain validated, and an alternate address in a validated
 * domain counts as confirmed. Operators manage the list with `sheetd domain add|list|remove`,
 * system admins with /validateddomains.
 */

// labels of letters, digits and hyphens, at least two of them
const DOMAIN = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export function normalizeDomain(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  const d = v.trim().toLowerCase().replace(/^@/, '');
  return DOMAIN.test(d) ? d : null;
}

export function domainOf(email: string): string {
  return email.slice(email.lastIndexOf('@') + 1).toLowerCase();
}

export async function isValidatedDomain(db: Queryable, orgId: number, email: string): Promise<boolean> {
  return (await findDomain(db, orgId, domainOf(email))) !== undefined;
}

export async function readDomains(db: Queryable, orgId: number): Promise<ValidatedDomainRow[]> {
  return listDomains(db, orgId);
}

/** Adds a validated domain; 1031 for a malformed name, 1129 when it is already validated. */
export function addDomain(store: Store, ...a: AfterDb<typeof addDomainIn>) {
  return store.db.transaction().execute((tx) => addDomainIn(tx, ...a));
}

async function addDomainIn(db: Queryable, author: EventAuthor, raw: unknown, now = clock.now()): Promise<ValidatedDomainRow> {
  const domain = normalizeDomain(raw);
  if (domain === null) throw apiError(1031, String(raw), 'domain');
  if (await findDomain(db, author.orgId, domain)) throw apiError(1129);
  const row: ValidatedDomainRow = { org_id: author.orgId, domain, created_at: now };
  await insertDomain(db, row);
  await confirmAlternatesInDomain(db, author.orgId, domain);
  await recordEvents(db, author, [{ objectType: 'ACCOUNT', action: 'ADD_VALIDATED_DOMAIN', objectId: author.orgId, details: { domain } }], now);
  return row;
}

/** Removes a validated domain; 1006 when it is not in the list. */
export function removeDomain(store: Store, ...a: AfterDb<typeof removeDomainIn>) {
  return store.db.transaction().execute((tx) => removeDomainIn(tx, ...a));
}

async function removeDomainIn(db: Queryable, author: EventAuthor, raw: string, now = clock.now()): Promise<void> {
  const domain = normalizeDomain(raw);
  if (domain === null || (await deleteDomain(db, author.orgId, domain)) === 0) throw apiError(1006);
  await recordEvents(db, author, [{ objectType: 'ACCOUNT', action: 'REMOVE_VALIDATED_DOMAIN', objectId: author.orgId, details: { domain } }], now);
}
