import type { Queryable } from '../../store/db.ts';
import { findFolder, findWorkspace, type FolderRow, type WorkspaceRow } from '../../store/containers.ts';
import type { SheetRow } from '../../store/sheets.ts';
import type { AccessLevel } from '../access/access.ts';
import type { Actor } from '../platform/context.ts';
import { folderAccessLevel, folderFor, workspaceAccessLevel } from '../access/containers.ts';
import { sheetFor } from '../access/permissions.ts';
import { reportAccess, sightAccess } from '../access/assetAccess.ts';
import type { ReportRow } from '../../store/reports.ts';
import type { SightRow } from '../../store/sights.ts';

/**
 * Where an object lives, as far as the caller can see (GET /folders/{id}/path and
 * /sheets/{id}/path): its workspace, if any, and the folders from the outermost down.
 */
export interface ContainerPath {
  workspace: { ws: WorkspaceRow; level: AccessLevel } | null;
  folders: FolderRow[];
  /** The caller's level on those folders (a workspace's folders have the workspace's level). */
  folderLevel: AccessLevel | null;
}

/** The folder and the folders above it, outermost first. */
async function withAncestors(db: Queryable, folder: FolderRow): Promise<FolderRow[]> {
  const chain = [folder];
  for (let parentId = folder.parent_id; parentId !== null;) {
    const parent = await findFolder(db, parentId);
    if (!parent) break;
    chain.unshift(parent);
    parentId = parent.parent_id;
  }
  return chain;
}

async function visibleWorkspace(db: Queryable, actor: Actor, id: number | null): Promise<ContainerPath['workspace']> {
  const ws = id === null ? undefined : await findWorkspace(db, id);
  const level = ws ? await workspaceAccessLevel(db, actor, ws) : null;
  return ws && level ? { ws, level } : null;
}

/** A folder the caller can see, with the workspace and folders above it. */
export async function folderPath(db: Queryable, actor: Actor, folderId: number): Promise<ContainerPath> {
  const { folder, level } = await folderFor(db, actor, folderId, 'VIEWER');
  return { workspace: await visibleWorkspace(db, actor, folder.workspace_id), folders: await withAncestors(db, folder), folderLevel: level };
}

/**
 * A sheet the caller can see, with the containers above it that the caller can also see: a
 * sheet shared from someone's home has none (home folders are their owner's alone), and a
 * sheet shared from a workspace the caller has no share of has none either.
 */
export async function sheetPath(db: Queryable, actor: Actor, sheetId: number): Promise<ContainerPath & { sheet: SheetRow; level: AccessLevel }> {
  const { sheet, level } = await sheetFor(db, actor, sheetId, 'VIEWER');
  const folder = sheet.folder_id === null ? undefined : await findFolder(db, sheet.folder_id);
  const folderLevel = folder ? await folderAccessLevel(db, actor, folder) : null;
  return {
    workspace: await visibleWorkspace(db, actor, sheet.workspace_id),
    folders: folder && folderLevel ? await withAncestors(db, folder) : [],
    folderLevel,
    sheet,
    level,
  };
}

/** A dashboard the caller can see, with the containers above it that the caller can also see (as a sheet's). */
export async function sightPath(db: Queryable, actor: Actor, sightId: number): Promise<ContainerPath & { sight: SightRow; level: AccessLevel }> {
  const { asset: sight, level } = await sightAccess.require(db, actor, sightId, 'VIEWER');
  const folder = sight.folder_id === null ? undefined : await findFolder(db, sight.folder_id);
  const folderLevel = folder ? await folderAccessLevel(db, actor, folder) : null;
  return {
    workspace: await visibleWorkspace(db, actor, sight.workspace_id),
    folders: folder && folderLevel ? await withAncestors(db, folder) : [],
    folderLevel,
    sight,
    level,
  };
}

/** A report the caller can see, with the containers above it that the caller can also see (as a sheet's). */
export async function reportPath(db: Queryable, actor: Actor, reportId: number): Promise<ContainerPath & { report: ReportRow; level: AccessLevel }> {
  const { asset: report, level } = await reportAccess.require(db, actor, reportId, 'VIEWER');
  const folder = report.folder_id === null ? undefined : await findFolder(db, report.folder_id);
  const folderLevel = folder ? await folderAccessLevel(db, actor, folder) : null;
  return {
    workspace: await visibleWorkspace(db, actor, report.workspace_id),
    folders: folder && folderLevel ? await withAncestors(db, folder) : [],
    folderLevel,
    report,
    level,
  };
}
