import { lockName, type Queryable } from '../../store/db.ts';
import { sheetsOwnedOrShared, type SheetRow } from '../../store/sheets.ts';
import { groupIdsOfMember, groupMembersTableExists } from '../../store/groups.ts';
import { findFolder, findWorkspace, workspacesOwnedOrShared, type FolderRow, type WorkspaceRow } from '../../store/containers.ts';
import { grantsFor, type Grantee } from '../../store/shares.ts';
import { asObject, bodyId } from '../../engine/input.ts';
import { apiError } from '../../errors.ts';
import { isAccessLevel, requireAccess, strongest, type AccessLevel } from './access.ts';
import type { Actor } from '../platform/context.ts';

/**
 * Effective access on workspaces, folders and sheets (issue 4). The strongest of ownership,
 * direct shares, group shares and the shares of the enclosing workspace wins. This module must
 * not import permissions.ts: permissions.ts registers `containerGrants` from here.
 */

let groupTablesSeen = false;

/** Whether the organization's group tables exist yet (migration 0003_org). */
export async function groupTablesExist(db: Queryable): Promise<boolean> {
  if (groupTablesSeen) return true;
  groupTablesSeen = await groupMembersTableExists(db);
  return groupTablesSeen;
}

/** Ids of the groups the user belongs to. */
export async function memberGroupIds(db: Queryable, userId: number): Promise<number[]> {
  if (!(await groupTablesExist(db))) return [];
  return groupIdsOfMember(db, userId);
}

export async function granteeOf(db: Queryable, actor: Actor): Promise<Grantee> {
  return { userId: actor.user.id, email: actor.user.email.toLowerCase(), groupIds: await memberGroupIds(db, actor.user.id) };
}

function levelsOf(rows: Array<{ object_id: number; access_level: string }>): Map<number, AccessLevel> {
  const out = new Map<number, AccessLevel>();
  for (const r of rows) {
    if (!isAccessLevel(r.access_level)) continue;
    out.set(r.object_id, strongest([out.get(r.object_id), r.access_level])!);
  }
  return out;
}

export async function workspaceAccessLevel(db: Queryable, actor: Actor, ws: WorkspaceRow, grantee?: Grantee): Promise<AccessLevel | null> {
  if (ws.org_id !== actor.org.id) return null;
  if (ws.owner_id === actor.user.id) return 'OWNER';
  const g = grantee ?? (await granteeOf(db, actor));
  return levelsOf(await grantsFor(db, g, 'workspace', [ws.id])).get(ws.id) ?? null;
}

/** Every workspace the caller can see, with its level. */
export async function accessibleWorkspaces(db: Queryable, actor: Actor, grantee?: Grantee): Promise<Map<number, { ws: WorkspaceRow; level: AccessLevel }>> {
  const g = grantee ?? (await granteeOf(db, actor));
  const shared = levelsOf(await grantsFor(db, g, 'workspace'));
  const rows = await workspacesOwnedOrShared(db, actor.org.id, actor.user.id, [...shared.keys()]);
  const out = new Map<number, { ws: WorkspaceRow; level: AccessLevel }>();
  for (const ws of rows) out.set(ws.id, { ws, level: ws.owner_id === actor.user.id ? 'OWNER' : shared.get(ws.id)! });
  return out;
}

/** A folder in a home is its owner's alone; a workspace folder has the workspace's level. */
export async function folderAccessLevel(db: Queryable, actor: Actor, folder: FolderRow): Promise<AccessLevel | null> {
  if (folder.org_id !== actor.org.id) return null;
  if (folder.workspace_id === null) return folder.owner_id === actor.user.id ? 'OWNER' : null;
  const ws = await findWorkspace(db, folder.workspace_id);
  return ws ? workspaceAccessLevel(db, actor, ws) : null;
}

/** 1006 when the caller cannot see it, 1004 when it can but the level is too low. */
export async function workspaceFor(db: Queryable, actor: Actor, id: number, needed: AccessLevel): Promise<{ ws: WorkspaceRow; level: AccessLevel }> {
  const ws = await findWorkspace(db, id);
  if (!ws) throw apiError(1006);
  const level = await workspaceAccessLevel(db, actor, ws);
  requireAccess(level, needed);
  return { ws, level: level! };
}

export async function folderFor(db: Queryable, actor: Actor, id: number, needed: AccessLevel): Promise<{ folder: FolderRow; level: AccessLevel }> {
  const folder = await findFolder(db, id);
  if (!folder) throw apiError(1006);
  const level = await folderAccessLevel(db, actor, folder);
  requireAccess(level, needed);
  return { folder, level: level! };
}

/**
 * The grant resolver registered in permissions.ts: direct and group shares of the sheet, and
 * the caller's level on the workspace that holds it.
 */
export async function containerGrants(db: Queryable, actor: Actor, sheet: SheetRow): Promise<AccessLevel | null> {
  const g = await granteeOf(db, actor);
  const direct = levelsOf(await grantsFor(db, g, 'sheet', [sheet.id])).get(sheet.id) ?? null;
  let viaWorkspace: AccessLevel | null = null;
  if (sheet.workspace_id !== null) {
    const ws = await findWorkspace(db, sheet.workspace_id);
    if (ws) viaWorkspace = await workspaceAccessLevel(db, actor, ws, g);
  }
  return strongest([direct, viaWorkspace]);
}

/** Every sheet (or template) the caller can see, with its effective level. */
export async function accessibleSheets(db: Queryable, actor: Actor, opts: { templates?: boolean } = {}): Promise<Map<number, { sheet: SheetRow; level: AccessLevel }>> {
  const g = await granteeOf(db, actor);
  const shared = levelsOf(await grantsFor(db, g, 'sheet'));
  const wss = await accessibleWorkspaces(db, actor, g);
  const rows = await sheetsOwnedOrShared(db, actor.org.id, actor.user.id, { templates: opts.templates === true, sheetIds: [...shared.keys()], workspaceIds: [...wss.keys()] });
  const out = new Map<number, { sheet: SheetRow; level: AccessLevel }>();
  for (const sheet of rows) {
    const level = sheet.owner_id === actor.user.id
      ? 'OWNER'
      : strongest([shared.get(sheet.id), sheet.workspace_id !== null ? wss.get(sheet.workspace_id)?.level : null]);
    if (level) out.set(sheet.id, { sheet, level });
  }
  return out;
}

/** Levels of the given sheets for the caller (the ones it cannot see are left out). */
export async function sheetLevels(db: Queryable, actor: Actor, sheets: SheetRow[]): Promise<Array<{ sheet: SheetRow; level: AccessLevel }>> {
  if (sheets.length === 0) return [];
  const g = await granteeOf(db, actor);
  const direct = levelsOf(await grantsFor(db, g, 'sheet', sheets.map((s) => s.id)));
  const wsLevels = new Map<number, AccessLevel | null>();
  for (const id of new Set(sheets.map((s) => s.workspace_id).filter((x): x is number => x !== null))) {
    const ws = await findWorkspace(db, id);
    wsLevels.set(id, ws ? await workspaceAccessLevel(db, actor, ws, g) : null);
  }
  const out: Array<{ sheet: SheetRow; level: AccessLevel }> = [];
  for (const sheet of sheets) {
    if (sheet.org_id !== actor.org.id) continue;
    const level = sheet.owner_id === actor.user.id ? 'OWNER' : strongest([direct.get(sheet.id), sheet.workspace_id !== null ? wsLevels.get(sheet.workspace_id) : null]);
    if (level) out.push({ sheet, level });
  }
  return out;
}

/** ContainerDestination of spec 2.1, as sent. */
export interface DestinationInput {
  type: 'home' | 'folder' | 'workspace';
  id: number | null;
  newName?: string;
}

/**
 * Reads a ContainerDestination: destinationId required for folder and workspace, null for home;
 * newName only where the operation is a copy.
 */
export function parseDestination(body: unknown, opts: { copy: boolean; requireNewName?: boolean }): DestinationInput {
  const b = asObject(body, 'a ContainerDestination object');
  const given = b.destinationType;
  if (given === undefined || given === null || given === '') throw apiError(1012, 'destinationType');
  // in any case: the Java and C# SDKs write their DestinationType enums by name (FOLDER, HOME,
  // WORKSPACE), and the public service takes them
  const type = typeof given === 'string' ? given.toLowerCase() : given;
  if (type !== 'home' && type !== 'folder' && type !== 'workspace') throw apiError(1031, String(given), 'destinationType');
  const id = b.destinationId;
  let destId: number | null = null;
  if (type === 'home') {
    if (id !== undefined && id !== null) throw apiError(1031, String(id), 'destinationId');
  } else {
    if (id === undefined || id === null) throw apiError(1012, 'destinationId');
    destId = bodyId(id, 'destinationId');
  }
  const out: DestinationInput = { type, id: destId };
  if (b.newName !== undefined && b.newName !== null) {
    if (!opts.copy) throw apiError(1032, 'newName');
    if (typeof b.newName !== 'string' || b.newName.trim() === '') throw apiError(1031, String(b.newName), 'newName');
    if (b.newName.length > 500) throw apiError(1041, 'newName', 500, b.newName.length);
    out.newName = b.newName;
  } else if (opts.requireNewName) {
    throw apiError(1012, 'newName');
  }
  return out;
}

/** Where new objects go, once the caller's right to create there is checked. */
export type ResolvedContainer =
  | { type: 'home' }
  | { type: 'folder'; folder: FolderRow }
  | { type: 'workspace'; ws: WorkspaceRow };

/** The least level that creates, moves into or deletes from a workspace or its folders. */
export const CREATE_LEVEL: AccessLevel = 'ADMIN';

/**
 * Folders and workspaces change shape one at a time: moves and deletions take this lock alone
 * ('exclusive'), and what is created, copied or moved into a folder or a workspace takes it
 * with the others ('shared'), before it reads the container. On PostgreSQL a folder moved
 * under its own child at once with that child's move, or a sheet made in a folder being
 * deleted, was otherwise left in a loop or pointing at nothing, shown by no list.
 */
export async function lockContainers(db: Queryable, mode: 'exclusive' | 'shared'): Promise<void> {
  await lockName(db, 'sheetd: folders and workspaces', mode);
}

/**
 * Checks the caller may create objects in a container: its own home always; a home folder only
 * its owner; a workspace or workspace folder with ADMIN or better.
 */
export async function containerForCreate(db: Queryable, actor: Actor, d: { type: 'home' | 'folder' | 'workspace'; id: number | null }): Promise<ResolvedContainer> {
  if (d.type === 'home') return { type: 'home' };
  await lockContainers(db, 'shared');
  if (d.type === 'folder') return { type: 'folder', folder: (await folderFor(db, actor, d.id!, CREATE_LEVEL)).folder };
  return { type: 'workspace', ws: (await workspaceFor(db, actor, d.id!, CREATE_LEVEL)).ws };
}

/** Placement columns (folder_id, workspace_id) of an object created in the container. */
export function placement(c: ResolvedContainer): { folderId: number | null; workspaceId: number | null } {
  if (c.type === 'home') return { folderId: null, workspaceId: null };
  if (c.type === 'folder') return { folderId: c.folder.id, workspaceId: c.folder.workspace_id };
  return { folderId: null, workspaceId: c.ws.id };
}
