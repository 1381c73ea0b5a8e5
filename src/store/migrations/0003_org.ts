import type { Kysely } from 'kysely';
import { types, type Dialect } from './types.ts';

/** Groups and group membership, alternate email addresses, validated domains (see store/orgSchema.ts). */
export async function up(db: Kysely<unknown>, d: Dialect): Promise<void> {
  const t = types(d);
  await db.schema
    .createTable('groups')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('org_id', t.id, (c) => c.notNull().references('orgs.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('owner_id', t.id, (c) => c.notNull().references('users.id'))
    .addColumn('created_at', t.ms, (c) => c.notNull())
    .addColumn('modified_at', t.ms, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('groups_org_name').on('groups').columns(['org_id', 'name']).unique().execute();
  await db.schema.createIndex('groups_owner').on('groups').column('owner_id').execute();

  await db.schema
    .createTable('group_members')
    .addColumn('group_id', t.id, (c) => c.notNull().references('groups.id').onDelete('cascade'))
    .addColumn('user_id', t.id, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('group_members_pk', ['group_id', 'user_id'])
    .execute();
  await db.schema.createIndex('group_members_user').on('group_members').column('user_id').execute();

  await db.schema
    .createTable('alternate_emails')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('user_id', t.id, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('confirmed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', t.ms, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('alternate_emails_user').on('alternate_emails').column('user_id').execute();

  await db.schema
    .createTable('validated_domains')
    .addColumn('org_id', t.id, (c) => c.notNull().references('orgs.id'))
    .addColumn('domain', 'text', (c) => c.notNull())
    .addColumn('created_at', t.ms, (c) => c.notNull())
    .addPrimaryKeyConstraint('validated_domains_pk', ['org_id', 'domain'])
    .execute();
}
