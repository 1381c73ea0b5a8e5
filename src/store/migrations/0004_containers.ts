import type { Kysely } from 'kysely';
import { types, type Dialect } from './types.ts';

/** Folders, workspaces, shares of sheets and workspaces, and favorites. */
export async function up(db: Kysely<unknown>, d: Dialect): Promise<void> {
  const t = types(d);
  await db.schema
    .createTable('workspaces')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('org_id', t.id, (c) => c.notNull())
    .addColumn('owner_id', t.id, (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', t.ms, (c) => c.notNull())
    .addColumn('modified_at', t.ms, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('workspaces_owner').on('workspaces').column('owner_id').execute();

  await db.schema
    .createTable('folders')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('org_id', t.id, (c) => c.notNull())
    .addColumn('owner_id', t.id, (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('parent_id', t.id)
    .addColumn('workspace_id', t.id)
    .addColumn('created_at', t.ms, (c) => c.notNull())
    .addColumn('modified_at', t.ms, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('folders_parent').on('folders').column('parent_id').execute();
  await db.schema.createIndex('folders_workspace').on('folders').column('workspace_id').execute();
  await db.schema.createIndex('folders_owner').on('folders').column('owner_id').execute();

  await db.schema
    .createTable('shares')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', t.id, (c) => c.notNull())
    .addColumn('object_type', 'text', (c) => c.notNull())
    .addColumn('object_id', t.id, (c) => c.notNull())
    .addColumn('user_id', t.id)
    .addColumn('email', 'text')
    .addColumn('group_id', t.id)
    .addColumn('access_level', 'text', (c) => c.notNull())
    .addColumn('created_by', t.id, (c) => c.notNull())
    .addColumn('created_at', t.ms, (c) => c.notNull())
    .addColumn('modified_at', t.ms, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('shares_object').on('shares').columns(['object_type', 'object_id']).execute();
  await db.schema.createIndex('shares_user').on('shares').column('user_id').execute();
  await db.schema.createIndex('shares_email').on('shares').column('email').execute();
  await db.schema.createIndex('shares_group').on('shares').column('group_id').execute();

  await db.schema
    .createTable('favorites')
    .addColumn('user_id', t.id, (c) => c.notNull())
    .addColumn('object_type', 'text', (c) => c.notNull())
    .addColumn('object_id', t.id, (c) => c.notNull())
    .addColumn('created_at', t.ms, (c) => c.notNull())
    .addPrimaryKeyConstraint('favorites_pk', ['user_id', 'object_type', 'object_id'])
    .execute();
}
