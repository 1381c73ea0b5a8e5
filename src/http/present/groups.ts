import type { ReadOptions } from '../../services/platform/context.ts';
import type { GroupWithOwner } from '../../store/groups.ts';
import type { GroupMemberRow } from '../../services/identity/groups.ts';
import { ts } from './dates.ts';
import { fullName } from './users.ts';

/** The Group object (List Org Groups, Update Group). */
export function group(g: GroupWithOwner, ro: ReadOptions) {
  return {
    id: g.id,
    name: g.name,
    description: g.description ?? undefined,
    owner: g.owner_email,
    ownerId: g.owner_id,
    createdAt: ts(g.created_at, ro.numericDates),
    modifiedAt: ts(g.modified_at, ro.numericDates),
  };
}

export function groupMember(m: GroupMemberRow) {
  return {
    id: m.id,
    email: m.email,
    firstName: m.first_name ?? undefined,
    lastName: m.last_name ?? undefined,
    name: fullName(m),
  };
}

/** Get Group: the group with its members. */
export function groupDetail(g: GroupWithOwner, members: GroupMemberRow[], ro: ReadOptions) {
  return { ...group(g, ro), members: members.map(groupMember) };
}
