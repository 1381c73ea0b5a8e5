import type { Selectable } from 'kysely';
import type { Queryable } from './db.ts';
import type { FolderTable, WorkspaceTable } from './containerSchema.ts';

export type FolderRow = Selectable<FolderTable>;
export type WorkspaceRow = Selectable<WorkspaceTable>;

export async function findFolder(db: Queryable, id: number): Promise<FolderRow | undefined> {
  return db.selectFrom('folders').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findWorkspace(db: Queryable, id: number): Promise<WorkspaceRow | undefined> {
  return db.selectFrom('workspaces').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertFolder(db: Queryable, row: FolderRow): Promise<void> {
  await db.insertInto('folders').values(row).execute();
}

export async function insertWorkspace(db: Queryable, row: WorkspaceRow): Promise<void> {
  await db.insertInto('workspaces').values(row).execute();
}

/** Folders directly under a folder, or at the top of a home (owner) or workspace. */
export async function childFolders(db: Queryable, where: { parentId: number } | { homeOf: number } | { workspaceTop: number }): Promise<FolderRow[]> {
  let q = db.selectFrom('folders').selectAll();
  if ('parentId' in where) q = q.where('parent_id', '=', where.parentId);
  else if ('homeOf' in where) q = q.where('owner_id', '=', where.homeOf).where('workspace_id', 'is', null).where('parent_id', 'is', null);
  else q = q.where('workspace_id', '=', where.workspaceTop).where('parent_id', 'is', null);
  return q.orderBy('name').orderBy('id').execute();
}

/** Every folder below (not including) the given one, breadth first. */
export async function descendantFolders(db: Queryable, rootId: number): Promise<FolderRow[]> {
  const out: FolderRow[] = [];
  let frontier = [rootId];
  while (frontier.length > 0) {
    const next = await db.selectFrom('folders').selectAll().where('parent_id', 'in', frontier).orderBy('name').orderBy('id').execute();
    out.push(...next);
    frontier = next.map((f) => f.id);
  }
  return out;
}

export async function workspaceFolders(db: Queryable, workspaceId: number): Promise<FolderRow[]> {
  return db.selectFrom('folders').selectAll().where('workspace_id', '=', workspaceId).orderBy('name').orderBy('id').execute();
}

export async function updateWorkspace(db: Queryable, id: number, set: Partial<Pick<WorkspaceRow, 'name' | 'owner_id' | 'modified_at'>>): Promise<void> {
  await db.updateTable('workspaces').set(set).where('id', '=', id).execute();
}

export async function deleteWorkspaceRow(db: Queryable, id: number): Promise<void> {
  await db.deleteFrom('workspaces').where('id', '=', id).execute();
}

/** At most 500 ids per call. */
export async function updateFolders(db: Queryable, ids: number[], set: Partial<Pick<FolderRow, 'name' | 'modified_at' | 'parent_id' | 'workspace_id' | 'owner_id'>>): Promise<void> {
  const q = db.updateTable('folders').set(set);
  await (ids.length === 1 ? q.where('id', '=', ids[0]!) : q.where('id', 'in', ids)).execute();
}

/** At most 500 ids per call. */
export async function deleteFolderRows(db: Queryable, ids: number[]): Promise<void> {
  await db.deleteFrom('folders').where('id', 'in', ids).execute();
}

/** Workspaces of an organization a user owns or that are shared with ids in `sharedIds`; by name. */
export async function workspacesOwnedOrShared(db: Queryable, orgId: number, userId: number, sharedIds: number[]): Promise<WorkspaceRow[]> {
  return db
    .selectFrom('workspaces')
    .selectAll()
    .where('org_id', '=', orgId)
    .where((eb) => (sharedIds.length > 0 ? eb.or([eb('owner_id', '=', userId), eb('id', 'in', sharedIds)]) : eb('owner_id', '=', userId)))
    .orderBy('name')
    .orderBy('id')
    .execute();
}
