import { chunks, inParts, type Queryable } from './db.ts';

/**
 * Reports and dashboards live in homes, folders and workspaces as sheets do, in tables of the
 * same shape for that (id, org_id, owner_id, folder_id, workspace_id, name, modified_at): these
 * queries serve both. store/reports.ts and store/sights.ts name them for their kind (`assetRows`)
 * and add what only their kind has (a report's sources, a dashboard's images).
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
  return inParts(folderIds, (part) => from(db, table).where('folder_id', 'in', part).execute());
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

/** The share and favorite object type of each kind. */
const OBJECT_TYPE = { reports: 'report', sights: 'sight' } as const;

/** The queries of one kind, typed with its row. */
export function assetRows<Row extends { id: number }>(table: AssetTable) {
  // built on one of the two tables (same columns); the row type is the caller's
  const t = table as 'reports';
  const type = OBJECT_TYPE[table];
  return {
    find: (db: Queryable, id: number) => from(db, table).where('id', '=', id).executeTakeFirst() as Promise<Row | undefined>,
    insert: async (db: Queryable, row: Row): Promise<void> => {
      await db.insertInto(t).values(row as never).execute();
    },
    update: async (db: Queryable, id: number, set: Partial<Omit<Row, 'id'>>): Promise<void> => {
      await db.updateTable(t).set(set as never).where('id', '=', id).execute();
    },
    /** Deletes the objects with their shares and favorites; `alsoDelete` first removes what only the kind has, a chunk of ids at a time. */
    delete: async (db: Queryable, ids: number[], alsoDelete: (chunk: number[]) => Promise<void>): Promise<void> => {
      for (const chunk of chunks(ids)) {
        await alsoDelete(chunk);
        await db.deleteFrom('shares').where('object_type', '=', type).where('object_id', 'in', chunk).execute();
        await db.deleteFrom('favorites').where('object_type', '=', type).where('object_id', 'in', chunk).execute();
        await db.deleteFrom(t).where('id', 'in', chunk).execute();
      }
    },
    /** Objects anywhere in a workspace. */
    inWorkspace: (db: Queryable, workspaceId: number) => from(db, table).where('workspace_id', '=', workspaceId).execute() as Promise<Row[]>,
    /** The objects of folders follow them into a workspace (or out of one). */
    moveOfFolders: async (db: Queryable, folderIds: number[], workspaceId: number | null): Promise<void> => {
      await db.updateTable(t).set({ workspace_id: workspaceId }).where('folder_id', 'in', folderIds).execute();
    },
    /** An object gets a new owner and, as a sheet does, leaves the old owner's home folders unless it is in a workspace. */
    transfer: async (db: Queryable, id: number, ownerId: number, now: number): Promise<void> => {
      const o = await db.selectFrom(t).select(['folder_id', 'workspace_id']).where('id', '=', id).executeTakeFirstOrThrow();
      await db.updateTable(t).set({ owner_id: ownerId, folder_id: o.workspace_id === null ? null : o.folder_id, modified_at: now }).where('id', '=', id).execute();
    },
    at: (db: Queryable, where: AssetPlace) => assetsAt(db, table, where) as Promise<Row[]>,
    inFolders: (db: Queryable, folderIds: number[]) => assetsInFolders(db, table, folderIds) as Promise<Row[]>,
    visibleTo: (db: Queryable, orgId: number, userId: number, sharedIds: number[], workspaceIds: number[]) =>
      assetsVisibleTo(db, table, orgId, userId, sharedIds, workspaceIds) as Promise<Row[]>,
  };
}
