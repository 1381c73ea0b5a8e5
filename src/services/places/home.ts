import type { Queryable } from '../../store/db.ts';
import { childFolders, type FolderRow } from '../../store/containers.ts';
import { sharedSheetsOutsideWorkspaces } from '../../store/sheets.ts';
import type { Actor } from '../platform/context.ts';
import { sheetLevels } from '../access/containers.ts';
import { favoriteKeys } from './favorites.ts';
import { loadTree } from './folders.ts';
import { listWorkspaces } from './workspaces.ts';
import { reportAccess, sightAccess } from '../access/assetAccess.ts';

/** The folders at the top of the caller's home (GET /home/folders). */
export async function readHomeFolders(db: Queryable, actor: Actor): Promise<FolderRow[]> {
  return childFolders(db, { homeOf: actor.user.id });
}

/**
 * Home contents, nested: the caller's own sheets and folders, the sheets shared to it that live
 * outside workspaces (and such reports and dashboards), and its workspaces; with the caller's favorites.
 */
export async function readHome(db: Queryable, actor: Actor) {
  const tree = await loadTree(db, actor, { homeOf: actor.user.id }, Number.MAX_SAFE_INTEGER);
  const shared = await sharedSheetsOutsideWorkspaces(db, actor.org.id, actor.user.id);
  const visible = await sheetLevels(db, actor, shared);
  tree.sheets.push(...visible.filter((x) => !x.sheet.is_template));
  tree.templates.push(...visible.filter((x) => !!x.sheet.is_template));
  for (const { asset, level } of await reportAccess.sharedHome(db, actor)) tree.reports.push({ report: asset, level });
  for (const { asset, level } of await sightAccess.sharedHome(db, actor)) tree.sights.push({ sight: asset, level });
  const favs = await favoriteKeys(db, actor);
  const workspaces = await listWorkspaces(db, actor);
  return { tree, favs, workspaces };
}
