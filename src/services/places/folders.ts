import { chunks, inParts, type Queryable, type Store } from '../../store/db.ts';
import {
  countSheetsInFolders, moveSheetsOfFolders, sheetIdsInFolders, sheetsDirectlyAt, sheetsInFolders, topSheetIdsOfWorkspace, type SheetRow,
} from '../../store/sheets.ts';
import { childFolders, deleteFolderRows, descendantFolders, insertFolder, updateFolders, type FolderRow } from '../../store/containers.ts';
import { deleteFavoritesOf } from '../../store/favorites.ts';
import { apiError, apiErrorWith } from '../../errors.ts';
import { apiErrorOf } from '../platform/errors.ts';
import { newId } from '../../ids.ts';
import type { AccessLevel } from '../access/access.ts';
import type { AfterDb } from '../platform/transactions.ts';
import type { Actor } from '../platform/context.ts';
import { authorOf, recordEvents, type EventAuthor } from '../log/events.ts';
import { asObject } from '../../engine/input.ts';
import { requireName } from '../sheets/sheetCreation.ts';
import { containerForCreate, folderFor, lockContainers, parseDestination, placement, sheetLevels, CREATE_LEVEL } from '../access/containers.ts';
import { copyContext, copySheetRecords, deleteSheetRecords, finishCopy, type CopyContext } from '../sheets/sheetLifecycle.ts';
import { moveReportsOfFolders, reportsAt, reportsInFolders, type ReportRow } from '../../store/reports.ts';
import { reportAccess, sightAccess } from '../access/assetAccess.ts';
import { copyReportRecord, deleteReportRecords } from '../assets/reports.ts';
import { moveSightsOfFolders, sightsAt, sightsInFolders, type SightRow } from '../../store/sights.ts';
import { copySightRecord, deleteSightRecords } from '../assets/sights.ts';
import { clock } from '../../clock.ts';

/** Largest number of sheets one folder or workspace copy takes (more: 1120 with detail.maxSheetCount). */
export const MAX_COPY_SHEETS = 1000;

/** Contents of a home, folder or workspace: subfolders are loaded (nested) only when asked. */
export interface FolderTree {
  sheets: Array<{ sheet: SheetRow; level: AccessLevel }>;
  templates: Array<{ sheet: SheetRow; level: AccessLevel }>;
  reports: Array<{ report: ReportRow; level: AccessLevel }>;
  sights: Array<{ sight: SightRow; level: AccessLevel }>;
  folders: Array<{ folder: FolderRow; tree?: FolderTree }>;
}

/** The owners of the sheets, reports and dashboards of a tree, its loaded subfolders' too (include=ownerInfo). */
export function treeOwnerIds(tree: FolderTree, out: number[] = []): number[] {
  for (const x of tree.sheets) out.push(x.sheet.owner_id);
  for (const x of tree.reports) out.push(x.report.owner_id);
  for (const x of tree.sights) out.push(x.sight.owner_id);
  for (const f of tree.folders) if (f.tree) treeOwnerIds(f.tree, out);
  return out;
}

/** The owner of a child that has one (a folder has none). */
export function childOwnerId(c: Child): number | undefined {
  return c.resourceType === 'folder' ? undefined : c.resourceType === 'report' ? c.report.owner_id : c.resourceType === 'sight' ? c.sight.owner_id : c.sheet.owner_id;
}

export type TreeRoot = { folderId: number } | { homeOf: number } | { workspaceTop: number };

async function sheetsAt(db: Queryable, root: TreeRoot): Promise<SheetRow[]> {
  return sheetsDirectlyAt(db, root);
}

/** Loads what a container holds that the caller can see; `depth` levels of subfolders get their contents. */
export async function loadTree(db: Queryable, actor: Actor, root: TreeRoot, depth: number): Promise<FolderTree> {
  const all = await sheetLevels(db, actor, await sheetsAt(db, root));
  const sub = await childFolders(db, 'folderId' in root ? { parentId: root.folderId } : root);
  const folders: FolderTree['folders'] = [];
  for (const folder of sub) folders.push(depth > 0 ? { folder, tree: await loadTree(db, actor, { folderId: folder.id }, depth - 1) } : { folder });
  const reports = (await reportAccess.levels(db, actor, await reportsAt(db, root))).map(({ asset, level }) => ({ report: asset, level }));
  const sights = (await sightAccess.levels(db, actor, await sightsAt(db, root))).map(({ asset, level }) => ({ sight: asset, level }));
  return { sheets: all.filter((x) => !x.sheet.is_template), templates: all.filter((x) => !!x.sheet.is_template), reports, sights, folders };
}

/** The child types GET /folders/{id}/children and /workspaces/{id}/children filter by (childrenResourceTypes). */
export const CHILD_TYPES = ['folders', 'sheets', 'reports', 'sights', 'templates'] as const;
export type ChildType = (typeof CHILD_TYPES)[number];

/** One immediate child of a folder or workspace, with the caller's level on it. */
export type Child =
  | { resourceType: 'folder'; folder: FolderRow; level: AccessLevel }
  | { resourceType: 'sheet' | 'template'; sheet: SheetRow; level: AccessLevel }
  | { resourceType: 'report'; report: ReportRow; level: AccessLevel }
  | { resourceType: 'sight'; sight: SightRow; level: AccessLevel };

/**
 * The immediate children of a folder or of a workspace's top level that the caller can see, of
 * the types asked for: folders, then sheets, then reports, then dashboards, then templates, each
 * by name. A folder has the level of the container that holds it.
 */
export async function childrenOf(db: Queryable, actor: Actor, root: { folderId: number } | { workspaceTop: number }, containerLevel: AccessLevel, types: ReadonlySet<ChildType>): Promise<Child[]> {
  const tree = await loadTree(db, actor, root, 0);
  const out: Child[] = [];
  if (types.has('folders')) out.push(...tree.folders.map((f) => ({ resourceType: 'folder' as const, folder: f.folder, level: containerLevel })));
  if (types.has('sheets')) out.push(...tree.sheets.map((x) => ({ resourceType: 'sheet' as const, ...x })));
  if (types.has('reports')) out.push(...tree.reports.map((x) => ({ resourceType: 'report' as const, ...x })));
  if (types.has('sights')) out.push(...tree.sights.map((x) => ({ resourceType: 'sight' as const, ...x })));
  if (types.has('templates')) out.push(...tree.templates.map((x) => ({ resourceType: 'template' as const, ...x })));
  return out;
}

function folderName(body: unknown): string {
  return requireName(asObject(body, 'a Folder object'));
}

/** Create Folder in the caller's home, in a folder, or at the top of a workspace. */
export function createFolder(store: Store, ...a: AfterDb<typeof createFolderIn>) {
  return store.db.transaction().execute((tx) => createFolderIn(tx, ...a));
}

async function createFolderIn(db: Queryable, actor: Actor, where: { type: 'home' | 'folder' | 'workspace'; id: number | null }, body: unknown, now = clock.now()): Promise<FolderRow> {
  const container = await containerForCreate(db, actor, where);
  const name = folderName(body);
  const p = placement(container);
  const folder: FolderRow = {
    id: newId(),
    org_id: actor.org.id,
    owner_id: container.type === 'folder' ? container.folder.owner_id : actor.user.id,
    name,
    parent_id: p.folderId,
    workspace_id: p.workspaceId,
    created_at: now,
    modified_at: now,
  };
  await insertFolder(db, folder);
  await recordEvents(db, authorOf(actor), [{ objectType: 'FOLDER', action: 'CREATE', objectId: folder.id, workspaceId: folder.workspace_id, details: { folderName: name } }], now);
  return folder;
}

/** Update Folder (rename): the home's owner, or ADMIN on the workspace. */
export function renameFolder(store: Store, ...a: AfterDb<typeof renameFolderIn>) {
  return store.db.transaction().execute((tx) => renameFolderIn(tx, ...a));
}

async function renameFolderIn(db: Queryable, actor: Actor, folderId: number, body: unknown, now = clock.now()): Promise<FolderRow> {
  const { folder } = await folderFor(db, actor, folderId, CREATE_LEVEL);
  const b = asObject(body, 'a Folder object');
  if (b.id !== undefined && b.id !== folderId) throw apiError(1029);
  const name = requireName(b);
  await updateFolders(db, [folder.id], { name, modified_at: now });
  await recordEvents(db, authorOf(actor), [{ objectType: 'FOLDER', action: 'RENAME', objectId: folder.id, workspaceId: folder.workspace_id, details: { oldName: folder.name, newName: name } }], now);
  return { ...folder, name, modified_at: now };
}

/** Removes folders and every sheet in them (the folders given must include all descendants). */
/** Deletes folders with everything in them; returns the ids of the sheets deleted. */
export async function deleteFolderRecords(db: Queryable, author: EventAuthor, folders: FolderRow[], now = clock.now()): Promise<number[]> {
  if (folders.length === 0) return [];
  const ids = folders.map((f) => f.id);
  const sheets = await inParts(ids, (part) => sheetsInFolders(db, part));
  const deleted = await deleteSheetRecords(db, author, sheets, now);
  await deleteReportRecords(db, author, await reportsInFolders(db, ids), now);
  await deleteSightRecords(db, author, await sightsInFolders(db, ids), now);
  await deleteFavoritesOf(db, 'folder', ids);
  for (const part of chunks(ids)) await deleteFolderRows(db, part);
  await recordEvents(db, author, folders.map((f) => ({ objectType: 'FOLDER', action: 'DELETE', objectId: f.id, workspaceId: f.workspace_id, details: { folderName: f.name } })), now);
  return deleted;
}

/** Delete Folder with everything in it; returns the ids of the sheets deleted. */
export function deleteFolder(store: Store, ...a: AfterDb<typeof deleteFolderIn>) {
  return store.db.transaction().execute((tx) => deleteFolderIn(tx, ...a));
}

async function deleteFolderIn(db: Queryable, actor: Actor, folderId: number): Promise<number[]> {
  await lockContainers(db, 'exclusive');
  const { folder } = await folderFor(db, actor, folderId, CREATE_LEVEL);
  return deleteFolderRecords(db, authorOf(actor), [folder, ...(await descendantFolders(db, folder.id))]);
}

/** Move Folder to home, another folder or a workspace; 1258 under itself or a descendant. */
export function moveFolder(store: Store, ...a: AfterDb<typeof moveFolderIn>) {
  return store.db.transaction().execute((tx) => moveFolderIn(tx, ...a));
}

async function moveFolderIn(db: Queryable, actor: Actor, folderId: number, body: unknown, now = clock.now()): Promise<FolderRow> {
  await lockContainers(db, 'exclusive');
  const { folder } = await folderFor(db, actor, folderId, CREATE_LEVEL);
  const d = parseDestination(body, { copy: false });
  const below = await descendantFolders(db, folder.id);
  if (d.type === 'folder' && (d.id === folder.id || below.some((f) => f.id === d.id))) throw apiError(1258);
  const container = await containerForCreate(db, actor, d);
  const p = placement(container);
  const ownerId = container.type === 'folder' ? container.folder.owner_id : container.type === 'home' ? actor.user.id : folder.owner_id;
  await updateFolders(db, [folder.id], { parent_id: p.folderId, workspace_id: p.workspaceId, owner_id: ownerId });
  const all = [folder.id, ...below.map((f) => f.id)];
  for (const chunk of chunks(all)) {
    await updateFolders(db, chunk, { workspace_id: p.workspaceId, owner_id: ownerId });
    await moveSheetsOfFolders(db, chunk, p.workspaceId);
    await moveReportsOfFolders(db, chunk, p.workspaceId);
    await moveSightsOfFolders(db, chunk, p.workspaceId);
  }
  await recordEvents(db, authorOf(actor), [{ objectType: 'FOLDER', action: 'MOVE', objectId: folder.id, workspaceId: p.workspaceId, details: { destinationType: d.type, destinationId: d.id } }], now);
  return { ...folder, parent_id: p.folderId, workspace_id: p.workspaceId, owner_id: ownerId };
}

/** How many sheets a folder subtree holds (the copy limit). */
export async function countSheetsUnder(db: Queryable, folderIds: number[]): Promise<number> {
  let n = 0;
  for (const part of chunks(folderIds)) n += await countSheetsInFolders(db, part);
  return n;
}

/** Copies a folder and everything below into a place; returns the new folder. */
export async function copyFolderTree(
  db: Queryable,
  ctx: CopyContext,
  src: FolderRow,
  dest: { parentId: number | null; workspaceId: number | null; ownerId: number },
  name: string,
): Promise<FolderRow> {
  const folder: FolderRow = { ...src, id: newId(), name, owner_id: dest.ownerId, parent_id: dest.parentId, workspace_id: dest.workspaceId, created_at: ctx.now, modified_at: ctx.now };
  await insertFolder(db, folder);
  ctx.events.push({ objectType: 'FOLDER', action: 'CREATE', objectId: folder.id, workspaceId: folder.workspace_id, details: { folderName: name, sourceObjectId: src.id } });
  const sheets = await sheetsDirectlyAt(db, { folderId: src.id });
  for (const s of sheets) await copySheetRecords(db, ctx, s, { folderId: folder.id, workspaceId: folder.workspace_id }, s.name, s.is_template ? 'template' : 'sheet');
  await copyReportsAt(db, ctx, { folderId: src.id }, { folderId: folder.id, workspaceId: folder.workspace_id, ownerId: dest.ownerId });
  for (const sub of await childFolders(db, { parentId: src.id })) {
    await copyFolderTree(db, ctx, sub, { parentId: folder.id, workspaceId: folder.workspace_id, ownerId: dest.ownerId }, sub.name);
  }
  return folder;
}

/**
 * Copies the reports and dashboards directly in a container (a folder or workspace copy); report
 * sources and dashboard widgets follow copied sheets.
 */
export async function copyReportsAt(
  db: Queryable, ctx: CopyContext, at: { folderId: number } | { workspaceTop: number }, dest: { folderId: number | null; workspaceId: number | null; ownerId: number },
): Promise<void> {
  for (const r of await reportsAt(db, at)) ctx.events.push(await copyReportRecord(db, r, dest, ctx.sheetMap, ctx.now));
  for (const s of await sightsAt(db, at)) ctx.events.push(await copySightRecord(db, s, dest, ctx, ctx.now));
}

/** Reserves new ids for every sheet a tree copy will take, so links between them follow. */
export async function reserveSheetIds(db: Queryable, ctx: CopyContext, q: { folderIds: number[]; workspaceId?: number }): Promise<number> {
  const ids = await inParts(q.folderIds, (part) => sheetIdsInFolders(db, part));
  if (q.workspaceId !== undefined) ids.push(...(await topSheetIdsOfWorkspace(db, q.workspaceId)));
  for (const id of ids) ctx.sheetMap.set(id, newId());
  return ids.length;
}

/** Wraps an unexpected failure of a tree copy as 1119 (nothing is kept: the transaction rolls back). */
export function copyFailed(e: unknown, topType: 'folder' | 'workspace', topId: number): unknown {
  return apiErrorOf(e) ?? apiErrorWith(1119, { detail: { topContainerType: topType, topContainerId: topId } });
}

/** Copy Folder (include options, skipRemap) to a ContainerDestination. */
export function copyFolder(store: Store, ...a: AfterDb<typeof copyFolderIn>) {
  return store.db.transaction().execute((tx) => copyFolderIn(tx, ...a));
}

async function copyFolderIn(db: Queryable, actor: Actor, folderId: number, body: unknown, include: Iterable<string>, skipRemap: Iterable<string>): Promise<FolderRow> {
  const { folder } = await folderFor(db, actor, folderId, 'VIEWER');
  const d = parseDestination(body, { copy: true });
  const container = await containerForCreate(db, actor, d);
  const below = await descendantFolders(db, folder.id);
  if (d.type === 'folder' && (d.id === folder.id || below.some((f) => f.id === d.id))) throw apiError(1258);
  const ctx = copyContext(actor, include, skipRemap);
  const count = await reserveSheetIds(db, ctx, { folderIds: [folder.id, ...below.map((f) => f.id)] });
  if (count > MAX_COPY_SHEETS) throw apiErrorWith(1120, { detail: { maxSheetCount: MAX_COPY_SHEETS } });
  const p = placement(container);
  try {
    const ownerId = container.type === 'folder' ? container.folder.owner_id : actor.user.id;
    const copy = await copyFolderTree(db, ctx, folder, { parentId: p.folderId, workspaceId: p.workspaceId, ownerId }, d.newName ?? folder.name);
    await finishCopy(db, ctx);
    return copy;
  } catch (e) {
    throw copyFailed(e, 'folder', folder.id);
  }
}

/** The folders directly in a folder the caller can see (GET /folders/{id}/folders). */
export async function readSubfolders(db: Queryable, actor: Actor, folderId: number): Promise<FolderRow[]> {
  const { folder } = await folderFor(db, actor, folderId, 'VIEWER');
  return childFolders(db, { parentId: folder.id });
}
