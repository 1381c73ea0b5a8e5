import type { Queryable } from '../../store/db.ts';
import { findSheet, type SheetRow } from '../../store/sheets.ts';
import { apiError } from '../../errors.ts';
import { requireAccess, strongest, type AccessLevel } from './access.ts';
import type { Actor } from '../platform/context.ts';
import { containerGrants } from './containers.ts';

/**
 * The caller's effective access level on a sheet: the strongest of ownership, direct shares,
 * group shares and the shares of the workspace that holds it. null = no access at all.
 * (Sharing and workspaces extend this through `grantResolvers`.)
 */
export type GrantResolver = (db: Queryable, actor: Actor, sheet: SheetRow) => Promise<AccessLevel | null>;

// Direct, group and workspace shares (services/access/containers.ts).
export const grantResolvers: GrantResolver[] = [containerGrants];

export async function sheetAccessLevel(db: Queryable, actor: Actor, sheet: SheetRow): Promise<AccessLevel | null> {
  if (sheet.org_id !== actor.org.id) return null;
  if (sheet.owner_id === actor.user.id) return 'OWNER';
  const levels = await Promise.all(grantResolvers.map((r) => r(db, actor, sheet)));
  return strongest(levels);
}

/**
 * Loads a sheet the caller may act on with at least `needed`: 1006 when the caller cannot see
 * it (a sheet without access is not revealed), 1004 when it can see it but not do this.
 */
export async function sheetFor(db: Queryable, actor: Actor, sheetId: number, needed: AccessLevel, known?: SheetRow): Promise<{ sheet: SheetRow; level: AccessLevel }> {
  // `known`: the sheet as this transaction has just read it (a write's lock)
  const sheet = known ?? (await findSheet(db, sheetId));
  if (!sheet) throw apiError(1006);
  const level = await sheetAccessLevel(db, actor, sheet);
  requireAccess(level, needed);
  return { sheet, level: level! };
}
