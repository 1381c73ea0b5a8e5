import { sql, SqliteAdapter, type Selectable } from 'kysely';
import type { Queryable } from './db.ts';
import type { GroupTable } from './orgSchema.ts';

export type GroupRow = Selectable<GroupTable>;

export interface GroupWithOwner extends GroupRow {
  owner_email: string;
}

function withOwner(db: Queryable) {
  return db
    .selectFrom('groups as g')
    .innerJoin('users as u', 'u.id', 'g.owner_id')
    .select(['g.id', 'g.org_id', 'g.name', 'g.description', 'g.owner_id', 'g.created_at', 'g.modified_at', 'u.email as owner_email']);
}

export async function findGroup(db: Queryable, orgId: number, id: number): Promise<GroupWithOwner | undefined> {
  return withOwner(db).where('g.id', '=', id).where('g.org_id', '=', orgId).executeTakeFirst();
}

export async function findGroupByName(db: Queryable, orgId: number, name: string): Promise<GroupRow | undefined> {
  // names are unique without regard to case
  const rows = await db.selectFrom('groups').selectAll().where('org_id', '=', orgId).execute();
  const key = name.toLowerCase();
  return rows.find((g) => g.name.toLowerCase() === key);
}

export async function countGroups(db: Queryable, orgId: number, modifiedSince?: number): Promise<number> {
  let q = db.selectFrom('groups').select((eb) => eb.fn.countAll<number>().as('n')).where('org_id', '=', orgId);
  if (modifiedSince !== undefined) q = q.where('modified_at', '>=', modifiedSince);
  return Number((await q.executeTakeFirstOrThrow()).n);
}

export async function listGroups(db: Queryable, orgId: number, opts: { offset: number; limit: number | null; modifiedSince?: number }): Promise<GroupWithOwner[]> {
  let q = withOwner(db).where('g.org_id', '=', orgId);
  if (opts.modifiedSince !== undefined) q = q.where('g.modified_at', '>=', opts.modifiedSince);
  q = q.orderBy('g.name').orderBy('g.id');
  if (opts.limit !== null) q = q.limit(opts.limit).offset(opts.offset);
  return q.execute();
}

export async function insertGroup(db: Queryable, row: GroupRow): Promise<void> {
  await db.insertInto('groups').values(row).execute();
}

export async function updateGroup(db: Queryable, id: number, patch: Partial<Omit<GroupRow, 'id' | 'org_id'>>): Promise<void> {
  await db.updateTable('groups').set(patch).where('id', '=', id).execute();
}

export async function deleteGroup(db: Queryable, id: number): Promise<void> {
  await db.deleteFrom('group_members').where('group_id', '=', id).execute();
  await db.deleteFrom('groups').where('id', '=', id).execute();
}

export async function groupMembers(db: Queryable, groupId: number) {
  return db
    .selectFrom('group_members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['u.id', 'u.email', 'u.first_name', 'u.last_name'])
    .where('m.group_id', '=', groupId)
    .orderBy('u.email')
    .execute();
}

export async function memberIds(db: Queryable, groupId: number): Promise<Set<number>> {
  const rows = await db.selectFrom('group_members').select('user_id').where('group_id', '=', groupId).execute();
  return new Set(rows.map((r) => Number(r.user_id)));
}

export async function insertMembers(db: Queryable, groupId: number, userIds: number[]): Promise<void> {
  if (userIds.length === 0) return;
  await db.insertInto('group_members').values(userIds.map((user_id) => ({ group_id: groupId, user_id }))).execute();
}

export async function deleteMember(db: Queryable, groupId: number, userId: number): Promise<number> {
  const r = await db.deleteFrom('group_members').where('group_id', '=', groupId).where('user_id', '=', userId).executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** Groups a user belongs to. */
export async function groupsOfUser(db: Queryable, userId: number) {
  return db
    .selectFrom('group_members as m')
    .innerJoin('groups as g', 'g.id', 'm.group_id')
    .select(['g.id', 'g.name', 'g.description'])
    .where('m.user_id', '=', userId)
    .orderBy('g.name')
    .execute();
}

export async function groupsOwnedBy(db: Queryable, userId: number): Promise<GroupRow[]> {
  return db.selectFrom('groups').selectAll().where('owner_id', '=', userId).execute();
}

export async function removeUserFromAllGroups(db: Queryable, userId: number): Promise<void> {
  await db.deleteFrom('group_members').where('user_id', '=', userId).execute();
}

// Raw SQL on purpose: Sharing reads groups only after checking that their tables exist
// (services/access/containers.ts groupTablesExist).

/** Names of groups of an organization by id. */
export async function groupNamesOf(db: Queryable, orgId: number, ids: number[]): Promise<Array<{ id: number; name: string }>> {
  const rows = await sql<{ id: number | string; name: string }>`select id, name from groups where org_id = ${orgId} and id in (${sql.join(ids)})`.execute(db);
  return rows.rows.map((r) => ({ id: Number(r.id), name: r.name }));
}

export async function groupInOrg(db: Queryable, orgId: number, groupId: number): Promise<boolean> {
  const g = await sql<{ id: number | string }>`select id from groups where org_id = ${orgId} and id = ${groupId}`.execute(db);
  return g.rows.length > 0;
}

/** Whether the organization's group tables exist yet (migration 0003_org). */
export async function groupMembersTableExists(db: Queryable): Promise<boolean> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  const r = sqlite
    ? await sql<{ n: string | null }>`select name as n from sqlite_master where type = 'table' and name = 'group_members'`.execute(db)
    : await sql<{ n: string | null }>`select to_regclass('group_members')::text as n`.execute(db);
  return r.rows.length > 0 && r.rows[0]!.n !== null;
}

/** Ids of the groups a user belongs to (the group tables exist). */
export async function groupIdsOfMember(db: Queryable, userId: number): Promise<number[]> {
  const r = await sql<{ group_id: number | string }>`select group_id from group_members where user_id = ${userId}`.execute(db);
  return r.rows.map((x) => Number(x.group_id));
}
