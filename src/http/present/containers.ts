import type { Config } from '../../config.ts';
import type { FolderRow, WorkspaceRow } from '../../store/containers.ts';
import { presentAccessLevel, type AccessLevel } from '../../services/access.ts';
import type { ReadOptions } from '../../services/context.ts';
import type { FolderTree } from '../../services/folders.ts';
import { permalink } from './permalinks.ts';
import { sheetSummary, templateSummary } from './sheets.ts';

export function folderSummary(config: Config, f: FolderRow, opts: { favorite?: boolean } = {}) {
  const out: Record<string, unknown> = { id: f.id, name: f.name, permalink: permalink(config, 'folders', f.id) };
  if (opts.favorite) out.favorite = true;
  return out;
}

export function workspaceSummary(config: Config, w: WorkspaceRow, level: AccessLevel, ro: ReadOptions, opts: { favorite?: boolean } = {}) {
  const out: Record<string, unknown> = { id: w.id, name: w.name, accessLevel: presentAccessLevel(level, ro.accessApiLevel), permalink: permalink(config, 'workspaces', w.id) };
  if (opts.favorite) out.favorite = true;
  return out;
}

/** Contents of a folder, workspace or home: sheets, folders (nested when loaded), reports, sights, templates. */
export function contents(config: Config, tree: FolderTree, ro: ReadOptions, favorites: Set<string>): Record<string, unknown> {
  const fav = (type: string, id: number) => favorites.has(`${type}:${id}`);
  const out: Record<string, unknown> = {
    sheets: tree.sheets.map((x) => sheetSummary(config, x.sheet, x.level, ro, { favorite: fav('sheet', x.sheet.id) })),
    folders: tree.folders.map((sub) => {
      const f = folderSummary(config, sub.folder, { favorite: fav('folder', sub.folder.id) });
      return sub.tree ? { ...f, ...contents(config, sub.tree, ro, favorites) } : f;
    }),
    reports: [],
    sights: [],
  };
  if (tree.templates.length > 0) out.templates = tree.templates.map((x) => templateSummary(x.sheet, x.level, ro));
  return out;
}
