import type { Selectable } from 'kysely';
import type { Queryable } from './db.ts';
import type { ValidatedDomainTable } from './orgSchema.ts';

export type ValidatedDomainRow = Selectable<ValidatedDomainTable>;

export async function listDomains(db: Queryable, orgId: number): Promise<ValidatedDomainRow[]> {
  return db.selectFrom('validated_domains').selectAll().where('org_id', '=', orgId).orderBy('domain').execute();
}

export async function findDomain(db: Queryable, orgId: number, domain: string): Promise<ValidatedDomainRow | undefined> {
  return db.selectFrom('validated_domains').selectAll().where('org_id', '=', orgId).where('domain', '=', domain).executeTakeFirst();
}

export async function insertDomain(db: Queryable, row: ValidatedDomainRow): Promise<void> {
  await db.insertInto('validated_domains').values(row).execute();
}

export async function deleteDomain(db: Queryable, orgId: number, domain: string): Promise<number> {
  const r = await db.deleteFrom('validated_domains').where('org_id', '=', orgId).where('domain', '=', domain).executeTakeFirst();
  return Number(r.numDeletedRows);
}
