import type { Queryable } from './db.ts';

/**
 * Reports and dashboards live in homes, folders and workspaces as sheets do, in tables of the
 * same shape for that (id, org_id, owner_id, folder_id, workspace_id, name): these queries serve
 * both. store/reports.ts and store/sights.ts name them for their kind.
 */
export type AssetTable = 'reports' | 'sights';
export type AssetPlace = { folderId: number } | { homeOf: number } | { workspaceTop: number };

// the two tables share every column used here: the queries are built on one of them
const from = (db: Queryable, table: AssetTable) => db.selectFrom(table as 'reports').selectAll();

/** Objects directly in a folder, at the top of a home (its owner's) or of a workspace, by name. */
export async function assetsAt(db: Queryable, table: AssetTable, where: AssetPlace): Promise<unknown[]> {
  let q = from(db, table);
  if ('folderId' in where) q = q.where('folder_id', '=', where.folderId);
  else if ('homeOf' in where) q = q.where('owner_id', '=', where.homeOf).where('folder_id', 'is', null).where('workspace_id', 'is', null);
  else q = q.where('workspace_id', '=', where.workspaceTop).where('folder_id', 'is', null);
  return q.orderBy('name').orderBy('id').execute();
}

/** Objects in any of the folders (chunked). */
export async function assetsInFolders(db: Queryable, table: AssetTable, folderIds: number[]): Promise<unknown[]> {
  const out: unknown[] = [];
  for (let i = 0; i < folderIds.length; i += 500) out.push(...(await from(db, table).where('folder_id', 'in', folderIds.slice(i, i + 500)).execute()));
  return out;
}

/** Objects of the organization that the user owns, that are shared to it (ids) or that lie in its workspaces, by name. */
export async function assetsVisibleTo(db: Queryable, table: AssetTable, orgId: number, userId: number, sharedIds: number[], workspaceIds: number[]): Promise<unknown[]> {
  return from(db, table)
    .where('org_id', '=', orgId)
    .where((eb) => {
      const ors = [eb('owner_id', '=', userId)];
      if (sharedIds.length > 0) ors.push(eb('id', 'in', sharedIds));
      if (workspaceIds.length > 0) ors.push(eb('workspace_id', 'in', workspaceIds));
      return eb.or(ors);
    })
    .orderBy('name')
    .orderBy('id')
    .execute();
}
