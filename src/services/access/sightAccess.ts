import type { Queryable } from '../../store/db.ts';
import { findSight, sightsVisibleTo, type SightRow } from '../../store/sights.ts';
import type { AccessLevel } from './access.ts';
import type { Actor } from '../platform/context.ts';
import { assetAccess } from './assetAccess.ts';

/** Access to dashboards (services/access/assetAccess.ts): ownership, shares, the workspace that holds them. */
const sights = assetAccess<SightRow>({ type: 'sight', find: findSight, visibleTo: sightsVisibleTo });
type Leveled = Array<{ sight: SightRow; level: AccessLevel }>;
const named = (xs: Array<{ asset: SightRow; level: AccessLevel }>): Leveled => xs.map(({ asset, level }) => ({ sight: asset, level }));

export const sightAccessLevel = sights.levelOf;

/** 1006 when the caller cannot see the dashboard, 1004 when its level is below `needed`. */
export async function sightFor(db: Queryable, actor: Actor, id: number, needed: AccessLevel): Promise<{ sight: SightRow; level: AccessLevel }> {
  const { asset, level } = await sights.require(db, actor, id, needed);
  return { sight: asset, level };
}

/** Every dashboard the caller can see, with its level. */
export async function accessibleSights(db: Queryable, actor: Actor): Promise<Leveled> {
  return named(await sights.accessible(db, actor));
}

/** Levels of the given dashboards for the caller (the ones it cannot see are left out). */
export async function sightLevels(db: Queryable, actor: Actor, list: SightRow[]): Promise<Leveled> {
  return named(await sights.levels(db, actor, list));
}

/** Dashboards shared to the caller that are in no workspace (Home lists them, as it does such sheets). */
export async function sharedHomeSights(db: Queryable, actor: Actor): Promise<Leveled> {
  return named(await sights.sharedHome(db, actor));
}
