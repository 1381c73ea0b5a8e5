import type { Config } from '../../config.ts';
import type { FolderRow, WorkspaceRow } from '../../store/containers.ts';
import { presentAccessLevel, type AccessLevel } from '../../services/access/access.ts';
import type { ReadOptions } from '../../services/platform/context.ts';
import type { Child, FolderTree } from '../../services/places/folders.ts';
import type { ContainerPath } from '../../services/places/paths.ts';
import type { SheetRow } from '../../store/sheets.ts';
import type { SightRow } from '../../store/sights.ts';
import type { ReportRow } from '../../store/reports.ts';
import { ts } from './dates.ts';
import { permalink } from '../../render/permalinks.ts';
import { sheetSource, sheetSummary, templateSummary } from './sheets.ts';
import { reportSummary } from './reports.ts';
import { sightSummary } from './sights.ts';
import { addOwnerInfo, type OwnerEmails } from './owners.ts';

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

/**
 * Contents of a folder, workspace or home: sheets, folders (nested when loaded), reports, sights,
 * templates; `owners` holds the owners' addresses when include=ownerInfo asks for them.
 */
export function contents(config: Config, tree: FolderTree, ro: ReadOptions, favorites: Set<string>, owners?: OwnerEmails): Record<string, unknown> {
  const fav = (type: string, id: number) => favorites.has(`${type}:${id}`);
  const out: Record<string, unknown> = {
    sheets: tree.sheets.map((x) => sheetSummary(config, x.sheet, x.level, ro, { favorite: fav('sheet', x.sheet.id), owners })),
    folders: tree.folders.map((sub) => {
      const f = folderSummary(config, sub.folder, { favorite: fav('folder', sub.folder.id) });
      return sub.tree ? { ...f, ...contents(config, sub.tree, ro, favorites, owners) } : f;
    }),
    reports: tree.reports.map((x) => reportSummary(config, x.report, x.level, ro, { favorite: fav('report', x.report.id), owners })),
    sights: tree.sights.map((x) => sightSummary(config, x.sight, x.level, ro, { favorite: fav('sight', x.sight.id), owners })),
  };
  if (tree.templates.length > 0) out.templates = tree.templates.map((x) => templateSummary(x.sheet, x.level, ro));
  return out;
}

/** Get Folder Metadata: the folder alone, without its contents. */
export function folderMetadata(config: Config, f: FolderRow, ro: ReadOptions) {
  return { id: f.id, name: f.name, permalink: permalink(config, 'folders', f.id), createdAt: ts(f.created_at, ro.numericDates), modifiedAt: ts(f.modified_at, ro.numericDates) };
}

/** Get Workspace Metadata: the workspace alone, without its contents. */
export function workspaceMetadata(config: Config, w: WorkspaceRow, level: AccessLevel, ro: ReadOptions) {
  return { ...workspaceSummary(config, w, level, ro), createdAt: ts(w.created_at, ro.numericDates), modifiedAt: ts(w.modified_at, ro.numericDates) };
}

/** A child of GET /folders/{id}/children or /workspaces/{id}/children (the SDKs' AssetReference). */
export function childReference(config: Config, c: Child, ro: ReadOptions, owners?: OwnerEmails): Record<string, unknown> {
  const row = c.resourceType === 'folder' ? c.folder : c.resourceType === 'report' ? c.report : c.resourceType === 'sight' ? c.sight : c.sheet;
  const out: Record<string, unknown> = {
    id: row.id,
    name: row.name,
    permalink: permalink(config, c.resourceType === 'folder' ? 'folders' : c.resourceType === 'report' ? 'reports' : c.resourceType === 'sight' ? 'sights' : 'sheets', row.id),
    createdAt: ts(row.created_at, ro.numericDates),
    modifiedAt: ts(row.modified_at, ro.numericDates),
    accessLevel: presentAccessLevel(c.level, ro.accessApiLevel),
    resourceType: c.resourceType,
  };
  if (c.resourceType === 'report' || c.resourceType === 'sight') {
    addOwnerInfo(out, c.resourceType === 'report' ? c.report.owner_id : c.sight.owner_id, ro, owners);
  } else if (c.resourceType !== 'folder') {
    const src = ro.include.has('source') ? sheetSource(c.sheet) : undefined;
    if (src) out.source = src;
    addOwnerInfo(out, c.sheet.owner_id, ro, owners);
  }
  return out;
}

/** A sheet at the end of a path (the SDKs' PathLeaf). */
function pathLeaf(config: Config, s: Pick<SheetRow, 'id' | 'name' | 'created_at' | 'modified_at'>, level: AccessLevel, ro: ReadOptions, kind: 'sheets' | 'sights' | 'reports'): Record<string, unknown> {
  return {
    id: s.id, name: s.name, permalink: permalink(config, kind, s.id), accessLevel: presentAccessLevel(level, ro.accessApiLevel),
    createdAt: ts(s.created_at, ro.numericDates), modifiedAt: ts(s.modified_at, ro.numericDates),
  };
}

/**
 * The PathNode tree of Get Folder Path, Get Sheet Path, Get Dashboard Path and Get Report Path: the outermost container the caller
 * can see, holding the next one as the only entry of `folders`, down to the folder asked for or
 * the container whose `sheets` holds the sheet. A sheet in no container the caller can see is
 * answered as its leaf alone.
 */
export function pathTree(
  config: Config, p: ContainerPath, ro: ReadOptions,
  sheet?: { sheet: SheetRow; level: AccessLevel } | { sight: SightRow; level: AccessLevel } | { report: ReportRow; level: AccessLevel },
): Record<string, unknown> {
  const nodes: Array<Record<string, unknown>> = [];
  if (p.workspace) nodes.push(workspaceSummary(config, p.workspace.ws, p.workspace.level, ro));
  for (const f of p.folders) nodes.push({ ...folderSummary(config, f), accessLevel: presentAccessLevel(p.folderLevel!, ro.accessApiLevel) });
  const kind = sheet && 'sight' in sheet ? 'sights' : sheet && 'report' in sheet ? 'reports' : 'sheets';
  const leaf = sheet ? pathLeaf(config, 'sight' in sheet ? sheet.sight : 'report' in sheet ? sheet.report : sheet.sheet, sheet.level, ro, kind) : undefined;
  if (nodes.length === 0) return leaf!;
  if (leaf) nodes[nodes.length - 1]![kind] = [leaf];
  for (let i = nodes.length - 1; i > 0; i--) nodes[i - 1]!.folders = [nodes[i]];
  return nodes[0]!;
}
