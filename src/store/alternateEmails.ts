import type { Selectable } from 'kysely';
import { keptRead, selectShaped, stampedRead, type NOT_KEPT, type Queryable } from './db.ts';
import type { AlternateEmailTable } from './orgSchema.ts';

export type AlternateEmailRow = Selectable<AlternateEmailTable>;

export async function listAlternateEmails(db: Queryable, userId: number): Promise<AlternateEmailRow[]> {
  // read by every Get Current User: compiled once, kept until the database may have changed
  return stampedRead(db, 'alternate emails of user', userId, () =>
    selectShaped(db, 'alternate emails of user', () => db.selectFrom('alternate_emails').selectAll().where('user_id', '=', userId).orderBy('created_at').orderBy('id'), [userId]));
}

/** listAlternateEmails' answer when it is kept (SQLite, nothing changed since), else NOT_KEPT. */
export function keptAlternateEmails(db: Queryable, userId: number): AlternateEmailRow[] | typeof NOT_KEPT {
  return keptRead<AlternateEmailRow[]>(db, 'alternate emails of user', userId);
}

export async function findAlternateEmail(db: Queryable, userId: number, id: number): Promise<AlternateEmailRow | undefined> {
  return db.selectFrom('alternate_emails').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
}

/** The alternate address (any user's) equal to `email`, with the primary address of its user. */
export async function findAlternateByAddress(db: Queryable, email: string) {
  return db
    .selectFrom('alternate_emails as a')
    .innerJoin('users as u', 'u.id', 'a.user_id')
    .select(['a.id', 'a.user_id', 'a.email', 'a.confirmed', 'u.email as primary_email', 'u.org_id', 'u.status'])
    .where('a.email', '=', email.toLowerCase())
    .executeTakeFirst();
}

export async function insertAlternateEmails(db: Queryable, rows: AlternateEmailRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.insertInto('alternate_emails').values(rows).execute();
}

export async function deleteAlternateEmail(db: Queryable, id: number): Promise<void> {
  await db.deleteFrom('alternate_emails').where('id', '=', id).execute();
}

export async function updateAlternateEmail(db: Queryable, id: number, patch: Partial<Omit<AlternateEmailRow, 'id'>>): Promise<void> {
  await db.updateTable('alternate_emails').set(patch).where('id', '=', id).execute();
}

/** Marks every unconfirmed alternate address of the organization in `domain` as confirmed. */
export async function confirmAlternatesInDomain(db: Queryable, orgId: number, domain: string): Promise<void> {
  const rows = await db
    .selectFrom('alternate_emails as a')
    .innerJoin('users as u', 'u.id', 'a.user_id')
    .select(['a.id', 'a.email'])
    .where('u.org_id', '=', orgId)
    .where('a.confirmed', '=', 0)
    .execute();
  const ids = rows.filter((r) => r.email.endsWith('@' + domain)).map((r) => r.id);
  if (ids.length > 0) await db.updateTable('alternate_emails').set({ confirmed: 1 }).where('id', 'in', ids).execute();
}
