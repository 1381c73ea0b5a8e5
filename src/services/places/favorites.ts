import { lockName, type Queryable, type Store } from '../../store/db.ts';
import { deleteFavorites, findFavorite, insertFavorite, listFavorites, type FavoriteRow } from '../../store/favorites.ts';
import { findFolder, findWorkspace } from '../../store/containers.ts';
import { findSheet } from '../../store/sheets.ts';
import { apiError } from '../../errors.ts';
import { asObject, bodyId, objectList } from '../../engine/input.ts';
import type { AfterDb } from '../platform/transactions.ts';
import type { Actor } from '../platform/context.ts';
import { authorOf, recordEvents } from '../log/events.ts';
import { sheetAccessLevel } from '../access/permissions.ts';
import { folderAccessLevel, workspaceAccessLevel } from '../access/containers.ts';
import { findReport } from '../../store/reports.ts';
import { reportAccess, sightAccess } from '../access/assetAccess.ts';
import { findSight } from '../../store/sights.ts';
import { clock } from '../../clock.ts';

export const FAVORITE_TYPES = ['folder', 'report', 'sheet', 'sight', 'template', 'workspace'] as const;
export type FavoriteType = (typeof FAVORITE_TYPES)[number];

export function isFavoriteType(s: unknown): s is FavoriteType {
  return typeof s === 'string' && (FAVORITE_TYPES as readonly string[]).includes(s);
}

/** The path segment of the delete and "is favorite" operations; 1018 when it names no type. */
export function favoriteTypeParam(s: string): FavoriteType {
  if (!isFavoriteType(s)) throw apiError(1018, s, 'favoriteType');
  return s;
}

/**
 * The name of a favorited object the caller can still see, or null when it cannot (or it is
 * gone).
 */
export async function favoriteObjectName(db: Queryable, actor: Actor, type: FavoriteType, id: number): Promise<string | null> {
  if (type === 'sheet' || type === 'template') {
    const s = await findSheet(db, id);
    if (!s || !!s.is_template !== (type === 'template') || (await sheetAccessLevel(db, actor, s)) === null) return null;
    return s.name;
  }
  if (type === 'folder') {
    const f = await findFolder(db, id);
    return f && (await folderAccessLevel(db, actor, f)) !== null ? f.name : null;
  }
  if (type === 'workspace') {
    const w = await findWorkspace(db, id);
    return w && (await workspaceAccessLevel(db, actor, w)) !== null ? w.name : null;
  }
  if (type === 'report') {
    const r = await findReport(db, id);
    return r && (await reportAccess.levelOf(db, actor, r)) !== null ? r.name : null;
  }
  const d = await findSight(db, id);
  return d && (await sightAccess.levelOf(db, actor, d)) !== null ? d.name : null;
}

export async function readFavorites(db: Queryable, actor: Actor): Promise<FavoriteRow[]> {
  return listFavorites(db, actor.user.id);
}

function parseFavorite(item: unknown): { type: FavoriteType; objectId: number } {
  const b = asObject(item, 'a Favorite object');
  if (b.type === undefined || b.type === null || b.type === '') throw apiError(1012, 'type');
  if (!isFavoriteType(b.type)) throw apiError(1031, String(b.type), 'type');
  if (b.objectId === undefined || b.objectId === null) throw apiError(1012, 'objectId');
  return { type: b.type, objectId: bodyId(b.objectId, 'objectId') };
}

/** Add Favorites: one (1129 when it exists) or an array (existing ones are skipped and left out). */
export function addFavorites(store: Store, ...a: AfterDb<typeof addFavoritesIn>) {
  return store.db.transaction().execute((tx) => addFavoritesIn(tx, ...a));
}

async function addFavoritesIn(db: Queryable, actor: Actor, body: unknown, now = clock.now()): Promise<{ single: boolean; added: FavoriteRow[] }> {
  const { list, single } = objectList(body, 'a Favorite object');
  const items = list.map(parseFavorite);
  // two requests adding one favorite: the second waits, then finds it there
  await lockName(db, `sheetd: favorites of user ${actor.user.id}`);
  const added: FavoriteRow[] = [];
  const seen = new Set<string>();
  for (const it of items) {
    if ((await favoriteObjectName(db, actor, it.type, it.objectId)) === null) throw apiError(1006);
    const key = `${it.type}:${it.objectId}`;
    if (seen.has(key) || (await findFavorite(db, actor.user.id, it.type, it.objectId))) {
      if (single) throw apiError(1129);
      continue;
    }
    seen.add(key);
    const row: FavoriteRow = { user_id: actor.user.id, object_type: it.type, object_id: it.objectId, created_at: now };
    await insertFavorite(db, row);
    added.push(row);
  }
  await recordEvents(db, authorOf(actor), added.map((f) => ({ objectType: 'FAVORITE', action: 'CREATE', objectId: f.object_id, details: { type: f.object_type } })), now);
  return { single, added };
}

/** Delete Favorites: the listed ones of a type (those that are not favorites are ignored). */
export function removeFavorites(store: Store, ...a: AfterDb<typeof removeFavoritesIn>) {
  return store.db.transaction().execute((tx) => removeFavoritesIn(tx, ...a));
}

async function removeFavoritesIn(db: Queryable, actor: Actor, type: FavoriteType, ids: number[], opts: { single: boolean }, now = clock.now()): Promise<void> {
  if (opts.single && !(await findFavorite(db, actor.user.id, type, ids[0]!))) throw apiError(1006);
  const n = await deleteFavorites(db, actor.user.id, type, ids);
  if (n > 0) await recordEvents(db, authorOf(actor), ids.map((id) => ({ objectType: 'FAVORITE', action: 'DELETE', objectId: id, details: { type } })), now);
}

export async function isFavorite(db: Queryable, actor: Actor, type: FavoriteType, id: number): Promise<boolean> {
  return (await findFavorite(db, actor.user.id, type, id)) !== undefined;
}

/** type:id keys of the caller's favorites (to mark `favorite: true` in listings). */
export async function favoriteKeys(db: Queryable, actor: Actor): Promise<Set<string>> {
  return new Set((await listFavorites(db, actor.user.id)).map((f) => `${f.object_type}:${f.object_id}`));
}
