import { presentAccessLevel } from '../../services/access/access.ts';
import type { ReadOptions } from '../../services/platform/context.ts';
import type { ShareView } from '../../services/access/shares.ts';
import { ts } from './dates.ts';

/** The Share object: alphanumeric id, USER or GROUP, ITEM or WORKSPACE scope. */
export function share(v: ShareView, ro: ReadOptions) {
  const out: Record<string, unknown> = { id: v.id, type: v.type };
  if (v.userId !== undefined) out.userId = v.userId;
  if (v.groupId !== undefined) out.groupId = v.groupId;
  if (v.email !== undefined) out.email = v.email;
  if (v.name !== undefined) out.name = v.name;
  out.accessLevel = presentAccessLevel(v.accessLevel, ro.accessApiLevel);
  out.scope = v.scope;
  out.createdAt = ts(v.createdAt, ro.numericDates);
  out.modifiedAt = ts(v.modifiedAt, ro.numericDates);
  return out;
}
