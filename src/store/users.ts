import type { Insertable } from 'kysely';
import type { Queryable } from './db.ts';
import type { UserTable } from './schema.ts';

export async function findUserByEmail(db: Queryable, email: string) {
  return db.selectFrom('users').selectAll().where('email', '=', email.toLowerCase()).executeTakeFirst();
}

export async function findUserById(db: Queryable, id: number) {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertUser(db: Queryable, row: Insertable<UserTable>): Promise<void> {
  await db.insertInto('users').values(row).execute();
}

export async function findOrgById(db: Queryable, id: number) {
  return db.selectFrom('orgs').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function firstOrg(db: Queryable) {
  return db.selectFrom('orgs').selectAll().orderBy('created_at').limit(1).executeTakeFirst();
}

export async function countOrgUsers(db: Queryable, orgId: number, emails?: string[]): Promise<number> {
  let q = db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).where('org_id', '=', orgId);
  if (emails && emails.length > 0) q = q.where('email', 'in', emails);
  const r = await q.executeTakeFirstOrThrow();
  return Number(r.n);
}

export async function listOrgUsers(db: Queryable, orgId: number, opts: { emails?: string[]; offset: number; limit: number | null }) {
  let q = db.selectFrom('users').selectAll().where('org_id', '=', orgId);
  if (opts.emails && opts.emails.length > 0) q = q.where('email', 'in', opts.emails);
  q = q.orderBy('email').orderBy('id');
  if (opts.limit !== null) q = q.limit(opts.limit).offset(opts.offset);
  return q.execute();
}

export async function findUsersByIds(db: Queryable, ids: number[]) {
  if (ids.length === 0) return [];
  return db.selectFrom('users').select(['id', 'email', 'first_name', 'last_name']).where('id', 'in', ids).execute();
}
