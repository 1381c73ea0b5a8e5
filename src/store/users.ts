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
