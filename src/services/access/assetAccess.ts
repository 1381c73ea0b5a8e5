import type { Queryable } from '../../store/db.ts';
import { findWorkspace } from '../../store/containers.ts';
import { grantsFor, type Grantee } from '../../store/shares.ts';
import { apiError } from '../../errors.ts';
import { isAccessLevel, requireAccess, strongest, type AccessLevel } from './access.ts';
import type { Actor } from '../platform/context.ts';
import { accessibleWorkspaces, granteeOf, workspaceAccessLevel } from './containers.ts';
import { findReport, reportsVisibleTo, type ReportRow } from '../../store/reports.ts';
import { findSight, sightsVisibleTo, type SightRow } from '../../store/sights.ts';

/**
 * Access to reports and dashboards, as to sheets: the strongest of ownership, direct and group
 * shares of the object, and the caller's level on the workspace that holds it. (Seeing a report
 * or a dashboard does not show rows or cells of sheets the caller cannot see: their services
 * read only those it can.) `reportAccess` and `sightAccess` below are the two kinds.
 */
export interface OwnedAsset {
  id: number;
  org_id: number;
  owner_id: number;
  workspace_id: number | null;
}

export interface AssetKind<T extends OwnedAsset> {
  /** The share object type of the kind. */
  type: 'report' | 'sight';
  find(db: Queryable, id: number): Promise<T | undefined>;
  /** Objects of the organization that the user owns, that are shared to it (ids) or that lie in its workspaces. */
  visibleTo(db: Queryable, orgId: number, userId: number, sharedIds: number[], workspaceIds: number[]): Promise<T[]>;
}

function levelsOf(rows: Array<{ object_id: number; access_level: string }>): Map<number, AccessLevel> {
  const out = new Map<number, AccessLevel>();
  for (const r of rows) if (isAccessLevel(r.access_level)) out.set(r.object_id, strongest([out.get(r.object_id), r.access_level])!);
  return out;
}

export function assetAccess<T extends OwnedAsset>(kind: AssetKind<T>) {
  async function levelOf(db: Queryable, actor: Actor, asset: T, grantee?: Grantee): Promise<AccessLevel | null> {
    if (asset.org_id !== actor.org.id) return null;
    if (asset.owner_id === actor.user.id) return 'OWNER';
    const g = grantee ?? (await granteeOf(db, actor));
    const direct = levelsOf(await grantsFor(db, g, kind.type, [asset.id])).get(asset.id) ?? null;
    let viaWorkspace: AccessLevel | null = null;
    if (asset.workspace_id !== null) {
      const ws = await findWorkspace(db, asset.workspace_id);
      if (ws) viaWorkspace = await workspaceAccessLevel(db, actor, ws, g);
    }
    return strongest([direct, viaWorkspace]);
  }

  /** 1006 when the caller cannot see the object, 1004 when its level is below `needed`. */
  async function require(db: Queryable, actor: Actor, id: number, needed: AccessLevel): Promise<{ asset: T; level: AccessLevel }> {
    const asset = await kind.find(db, id);
    if (!asset) throw apiError(1006);
    const level = await levelOf(db, actor, asset);
    requireAccess(level, needed);
    return { asset, level: level! };
  }

  /** Every object of the kind the caller can see, with its level. */
  async function accessible(db: Queryable, actor: Actor): Promise<Array<{ asset: T; level: AccessLevel }>> {
    const g = await granteeOf(db, actor);
    const shared = levelsOf(await grantsFor(db, g, kind.type));
    const wss = await accessibleWorkspaces(db, actor, g);
    const rows = await kind.visibleTo(db, actor.org.id, actor.user.id, [...shared.keys()], [...wss.keys()]);
    const out: Array<{ asset: T; level: AccessLevel }> = [];
    for (const asset of rows) {
      const level = asset.owner_id === actor.user.id ? 'OWNER' : strongest([shared.get(asset.id), asset.workspace_id !== null ? wss.get(asset.workspace_id)?.level : null]);
      if (level) out.push({ asset, level });
    }
    return out;
  }

  /** Levels of the given objects for the caller (the ones it cannot see are left out). */
  async function levels(db: Queryable, actor: Actor, assets: T[]): Promise<Array<{ asset: T; level: AccessLevel }>> {
    if (assets.length === 0) return [];
    const g = await granteeOf(db, actor);
    const out: Array<{ asset: T; level: AccessLevel }> = [];
    for (const asset of assets) {
      const level = await levelOf(db, actor, asset, g);
      if (level) out.push({ asset, level });
    }
    return out;
  }

  /** Objects shared to the caller that are in no workspace (Home lists them, as it does such sheets). */
  async function sharedHome(db: Queryable, actor: Actor): Promise<Array<{ asset: T; level: AccessLevel }>> {
    return (await accessible(db, actor)).filter((x) => x.asset.owner_id !== actor.user.id && x.asset.workspace_id === null);
  }

  return { levelOf, require, accessible, levels, sharedHome };
}

/** Access to reports. */
export const reportAccess = assetAccess<ReportRow>({ type: 'report', find: findReport, visibleTo: reportsVisibleTo });
/** Access to dashboards. */
export const sightAccess = assetAccess<SightRow>({ type: 'sight', find: findSight, visibleTo: sightsVisibleTo });
