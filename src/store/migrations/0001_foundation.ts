import type { Kysely } from 'kysely';
import { types, type Dialect } from './types.ts';

/** Organizations, users, API tokens and the change-event log. */
export async function up(db: Kysely<unknown>, d: Dialect): Promise<void> {
  const t = types(d);
  await db.schema
    .createTable('orgs')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('plan', 'text', (c) => c.notNull())
    .addColumn('created_at', t.ms, (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('users')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('org_id', t.id, (c) => c.notNull().references('orgs.id'))
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('first_name', 'text')
    .addColumn('last_name', 'text')
    .addColumn('admin', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('licensed_sheet_creator', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('group_admin', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('resource_viewer', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('locale', 'text', (c) => c.notNull())
    .addColumn('time_zone', 'text', (c) => c.notNull())
    .addColumn('company', 'text')
    .addColumn('department', 'text')
    .addColumn('role', 'text')
    .addColumn('title', 'text')
    .addColumn('mobile_phone', 'text')
    .addColumn('work_phone', 'text')
    .addColumn('last_login', t.ms)
    .addColumn('created_at', t.ms, (c) => c.notNull())
    .addColumn('modified_at', t.ms, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('users_org').on('users').column('org_id').execute();
  await db.schema
    .createTable('api_tokens')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('user_id', t.id, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('expires_at', t.ms)
    .addColumn('revoked_at', t.ms)
    .addColumn('created_at', t.ms, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('api_tokens_user').on('api_tokens').column('user_id').execute();
  await db.schema
    .createTable('events')
    .addColumn('seq', t.serial, (c) => (d === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
    .addColumn('event_id', 'text', (c) => c.notNull().unique())
    .addColumn('org_id', t.id, (c) => c.notNull())
    .addColumn('object_type', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('object_id', t.id, (c) => c.notNull())
    .addColumn('user_id', t.id)
    .addColumn('request_user_id', t.id)
    .addColumn('access_token_name', 'text')
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('additional_details', 'text', (c) => c.notNull())
    .addColumn('event_ts', t.ms, (c) => c.notNull())
    .addColumn('sheet_id', t.id)
    .addColumn('workspace_id', t.id)
    .execute();
  await db.schema.createIndex('events_org_ts').on('events').columns(['org_id', 'event_ts']).execute();
  await db.schema.createIndex('events_sheet').on('events').columns(['sheet_id', 'seq']).execute();
}
