import type { Queryable, Store } from '../../store/db.ts';
import { childFolders, deleteWorkspaceRow, insertWorkspace, updateWorkspace, workspaceFolders, type WorkspaceRow } from '../../store/containers.ts';
import { sheetsInWorkspace } from '../../store/sheets.ts';
import { deleteFavoritesOf } from '../../store/favorites.ts';
import { deleteSharesOf, insertShares, listShares } from '../../store/shares.ts';
import { apiError, apiErrorWith } from '../../errors.ts';
import { newId } from '../../ids.ts';
import type { AccessLevel } from '../access/access.ts';
import type { AfterDb } from '../platform/transactions.ts';
import type { Actor } from '../platform/context.ts';
import { authorOf, recordEvents } from '../log/events.ts';
import { asObject } from '../../engine/input.ts';
import { requireName } from '../sheets/sheetCreation.ts';
import { accessibleWorkspaces, lockContainers, parseDestination, workspaceFor } from '../access/containers.ts';
import { copyFailed, copyFolderTree, copyReportsAt, deleteFolderRecords, MAX_COPY_SHEETS, reserveSheetIds } from './folders.ts';
import { reportsInWorkspace, retargetWorkspaceSources } from '../../store/reports.ts';
import { deleteReportRecords } from '../assets/reports.ts';
import { sightsInWorkspace } from '../../store/sights.ts';
import { deleteSightRecords } from '../assets/sights.ts';
import { copyContext, copySheetRecords, deleteSheetRecords, finishCopy, newShareId } from '../sheets/sheetLifecycle.ts';
import { clock } from '../../clock.ts';

export async function listWorkspaces(db: Queryable, actor: Actor): Promise<Array<{ ws: WorkspaceRow; level: AccessLevel }>> {
  return [...(await accessibleWorkspaces(db, actor)).values()];
}

/** Create Workspace: any licensed member may; the creator owns it. */
export function createWorkspace(store: Store, ...a: AfterDb<typeof createWorkspaceIn>) {
  return store.db.transaction().execute((tx) => createWorkspaceIn(tx, ...a));
}

async function createWorkspaceIn(db: Queryable, actor: Actor, body: unknown, now = clock.now()): Promise<WorkspaceRow> {
  const name = requireName(asObject(body, 'a Workspace object'));
  const ws: WorkspaceRow = { id: newId(), org_id: actor.org.id, owner_id: actor.user.id, name, created_at: now, modified_at: now };
  await insertWorkspace(db, ws);
  await recordEvents(db, authorOf(actor), [{ objectType: 'WORKSPACE', action: 'CREATE', objectId: ws.id, workspaceId: ws.id, details: { workspaceName: name } }], now);
  return ws;
}

/** Update Workspace (rename): ADMIN. */
export function renameWorkspace(store: Store, ...a: AfterDb<typeof renameWorkspaceIn>) {
  return store.db.transaction().execute((tx) => renameWorkspaceIn(tx, ...a));
}

async function renameWorkspaceIn(db: Queryable, actor: Actor, id: number, body: unknown, now = clock.now()): Promise<{ ws: WorkspaceRow; level: AccessLevel }> {
  const { ws, level } = await workspaceFor(db, actor, id, 'ADMIN');
  const b = asObject(body, 'a Workspace object');
  if (b.id !== undefined && b.id !== id) throw apiError(1029);
  const name = requireName(b);
  await updateWorkspace(db, ws.id, { name, modified_at: now });
  await recordEvents(db, authorOf(actor), [{ objectType: 'WORKSPACE', action: 'RENAME', objectId: ws.id, workspaceId: ws.id, details: { oldName: ws.name, newName: name } }], now);
  return { ws: { ...ws, name, modified_at: now }, level };
}

/** Delete Workspace with its folders, sheets and shares: the owner only. */
/** Delete Workspace with everything in it; returns the ids of the sheets deleted. */
export function deleteWorkspace(store: Store, ...a: AfterDb<typeof deleteWorkspaceIn>) {
  return store.db.transaction().execute((tx) => deleteWorkspaceIn(tx, ...a));
}

async function deleteWorkspaceIn(db: Queryable, actor: Actor, id: number, now = clock.now()): Promise<number[]> {
  await lockContainers(db, 'exclusive');
  const { ws } = await workspaceFor(db, actor, id, 'OWNER');
  const author = authorOf(actor);
  const deleted = await deleteFolderRecords(db, author, await workspaceFolders(db, ws.id), now);
  const top = await sheetsInWorkspace(db, ws.id, { topOnly: false });
  deleted.push(...(await deleteSheetRecords(db, author, top, now)));
  await deleteReportRecords(db, author, await reportsInWorkspace(db, ws.id), now);
  await deleteSightRecords(db, author, await sightsInWorkspace(db, ws.id), now);
  await deleteSharesOf(db, 'workspace', [ws.id]);
  await deleteFavoritesOf(db, 'workspace', [ws.id]);
  await deleteWorkspaceRow(db, ws.id);
  await recordEvents(db, author, [{ objectType: 'WORKSPACE', action: 'DELETE', objectId: ws.id, workspaceId: ws.id, details: { workspaceName: ws.name } }], now);
  return deleted;
}

/**
 * Copy Workspace: a new workspace named newName, owned by the caller, with copies of the
 * folders and sheets (include options as for folders; include=shares also copies the
 * workspace's shares).
 */
export function copyWorkspace(store: Store, ...a: AfterDb<typeof copyWorkspaceIn>) {
  return store.db.transaction().execute((tx) => copyWorkspaceIn(tx, ...a));
}

async function copyWorkspaceIn(db: Queryable, actor: Actor, id: number, body: unknown, include: Iterable<string>, skipRemap: Iterable<string>, now = clock.now()): Promise<WorkspaceRow> {
  const { ws } = await workspaceFor(db, actor, id, 'VIEWER');
  const b = asObject(body, 'a ContainerDestination object');
  if (b.destinationType !== undefined && b.destinationType !== null) parseDestination(b, { copy: true });
  if (b.newName === undefined || b.newName === null || b.newName === '') throw apiError(1012, 'newName');
  const name = requireName(b, 'newName');
  const ctx = copyContext(actor, include, skipRemap, now);
  const folders = await workspaceFolders(db, ws.id);
  const count = await reserveSheetIds(db, ctx, { folderIds: folders.map((f) => f.id), workspaceId: ws.id });
  if (count > MAX_COPY_SHEETS) throw apiErrorWith(1120, { detail: { maxSheetCount: MAX_COPY_SHEETS } });
  try {
    const copy: WorkspaceRow = { id: newId(), org_id: actor.org.id, owner_id: actor.user.id, name, created_at: now, modified_at: now };
    await insertWorkspace(db, copy);
    ctx.events.push({ objectType: 'WORKSPACE', action: 'CREATE', objectId: copy.id, workspaceId: copy.id, details: { workspaceName: name, sourceObjectId: ws.id } });
    const top = await sheetsInWorkspace(db, ws.id, { topOnly: true });
    for (const s of top) await copySheetRecords(db, ctx, s, { folderId: null, workspaceId: copy.id }, s.name, s.is_template ? 'template' : 'sheet');
    await copyReportsAt(db, ctx, { workspaceTop: ws.id }, { folderId: null, workspaceId: copy.id, ownerId: actor.user.id });
    for (const f of await childFolders(db, { workspaceTop: ws.id })) {
      await copyFolderTree(db, ctx, f, { parentId: null, workspaceId: copy.id, ownerId: actor.user.id }, f.name);
    }
    await retargetWorkspaceSources(db, ws.id, copy.id);
    if (ctx.include.has('shares')) {
      const shares = (await listShares(db, 'workspace', ws.id)).filter((s) => s.user_id !== actor.user.id);
      await insertShares(db, shares.map((s) => ({ ...s, id: newShareId(), object_id: copy.id, created_by: actor.user.id, created_at: now, modified_at: now })));
    }
    await finishCopy(db, ctx);
    return copy;
  } catch (e) {
    throw copyFailed(e, 'workspace', ws.id);
  }
}

/** The folders at the top of a workspace the caller can see (GET /workspaces/{id}/folders). */
export async function readWorkspaceFolders(db: Queryable, actor: Actor, id: number) {
  const { ws } = await workspaceFor(db, actor, id, 'VIEWER');
  return childFolders(db, { workspaceTop: ws.id });
}
