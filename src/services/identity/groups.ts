import { lockName, type Queryable, type Store } from '../../store/db.ts';
import {
  countGroups, deleteGroup, deleteMember, findGroup, findGroupByName, groupMembers, insertGroup, insertMembers, listGroups,
  memberIds, updateGroup, type GroupWithOwner,
} from '../../store/groups.ts';
import { findOrgMember, findUserByEmail, REMOVED } from '../../store/users.ts';
import { newId } from '../../ids.ts';
import { apiError } from '../../errors.ts';
import { asObject, bodyId, objectArray, objectList } from '../../engine/input.ts';
import { authorOf, recordEvents, type ChangeEvent } from '../log/events.ts';
import { assertPrimaryEmail } from './alternateEmails.ts';
import { isValidEmail } from './users.ts';
import type { AfterDb } from '../platform/transactions.ts';
import type { Actor, UserRow } from '../platform/context.ts';
import { pageWindow, type Paging } from '../../paging.ts';
import { clock } from '../../clock.ts';

export type GroupMemberRow = Awaited<ReturnType<typeof groupMembers>>[number];

export interface GroupDetail {
  group: GroupWithOwner;
  members: GroupMemberRow[];
}

const NAME_MAX = 255;

/** Group administrators (every system admin is one) create groups; others get 1104. */
function requireGroupAdmin(actor: Actor): void {
  if (!actor.user.group_admin && !actor.user.admin) throw apiError(1104);
}

/** Changing a group: its owner, or any system admin. */
async function manageableGroup(db: Queryable, actor: Actor, id: number): Promise<GroupWithOwner> {
  requireGroupAdmin(actor);
  const g = await findGroup(db, actor.org.id, id);
  if (!g) throw apiError(1106);
  if (!actor.user.admin && g.owner_id !== actor.user.id) throw apiError(1004);
  return g;
}

function groupName(v: unknown): string {
  if (typeof v !== 'string') throw apiError(1031, String(v), 'name');
  const s = v.trim();
  if (s === '') throw apiError(1012, 'name');
  if (s.length > NAME_MAX) throw apiError(1041, 'name', NAME_MAX, s.length);
  return s;
}

function description(v: unknown): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') throw apiError(1031, String(v), 'description');
  return v;
}

/**
 * 1103 when another group of the organization has the name (in any case). The check and the
 * name's use that follows are one step: the organization's group names stay locked until the
 * transaction ends (on PostgreSQL two requests would otherwise both find a name free).
 */
async function assertNameFree(db: Queryable, orgId: number, name: string, exceptId?: number): Promise<void> {
  await lockName(db, `sheetd: group names of ${orgId}`);
  const other = await findGroupByName(db, orgId, name);
  if (other && other.id !== exceptId) throw apiError(1103);
}

/**
 * Resolves GroupMember objects ({email} or {id}) to members of the organization: 1156 for a
 * malformed address, 1159 for an alternate address, 1105 for people outside the organization,
 * 1290 for members who are not active.
 */
async function resolveMembers(db: Queryable, actor: Actor, items: readonly Record<string, unknown>[]): Promise<UserRow[]> {
  const users: UserRow[] = [];
  const outside: string[] = [];
  const inactive: string[] = [];
  for (const m of items) {
    let u: UserRow | undefined;
    let label: string;
    if (m.email !== undefined && m.email !== null) {
      if (!isValidEmail(m.email)) throw apiError(1156);
      await assertPrimaryEmail(db, m.email);
      label = m.email.toLowerCase();
      u = await findUserByEmail(db, label);
    } else if (m.id !== undefined && m.id !== null) {
      const id = bodyId(m.id, 'id');
      label = String(id);
      u = await findOrgMember(db, actor.org.id, id);
    } else {
      throw apiError(1012, 'email');
    }
    if (!u || u.org_id !== actor.org.id || u.status === REMOVED) outside.push(label);
    else if (u.status !== 'ACTIVE') inactive.push(label);
    else if (!users.some((x) => x.id === u.id)) users.push(u);
  }
  if (outside.length > 0) throw apiError(1105, outside.join(', '));
  if (inactive.length > 0) throw apiError(1290, inactive.join(', '));
  return users;
}

export async function readGroups(db: Queryable, actor: Actor, p: Paging, modifiedSince?: number) {
  const total = await countGroups(db, actor.org.id, modifiedSince);
  const w = pageWindow(total, p);
  const rows = await listGroups(db, actor.org.id, { offset: w.offset, limit: w.limit, ...(modifiedSince !== undefined ? { modifiedSince } : {}) });
  return { total, rows };
}

export async function readGroup(db: Queryable, actor: Actor, id: number): Promise<GroupDetail> {
  const group = await findGroup(db, actor.org.id, id);
  if (!group) throw apiError(1106);
  return { group, members: await groupMembers(db, id) };
}

/** Add Group: name (unique in the organization, 1103), description, members; the caller owns it. */
export function createGroup(store: Store, ...a: AfterDb<typeof createGroupIn>) {
  return store.db.transaction().execute((tx) => createGroupIn(tx, ...a));
}

async function createGroupIn(db: Queryable, actor: Actor, body: unknown, now = clock.now()): Promise<GroupDetail> {
  requireGroupAdmin(actor);
  const b = asObject(body, 'a Group object');
  if (b.name === undefined || b.name === null) throw apiError(1012, 'name');
  const name = groupName(b.name);
  const desc = description(b.description);
  const members = b.members === undefined || b.members === null ? [] : await resolveMembers(db, actor, objectArray(b.members, 'members'));
  await assertNameFree(db, actor.org.id, name);
  const id = newId();
  await insertGroup(db, { id, org_id: actor.org.id, name, description: desc, owner_id: actor.user.id, created_at: now, modified_at: now });
  await insertMembers(db, id, members.map((m) => m.id));
  const events: ChangeEvent[] = [{ objectType: 'GROUP', action: 'CREATE', objectId: id, details: { name } }];
  for (const m of members) events.push({ objectType: 'GROUP', action: 'ADD_MEMBER', objectId: id, details: { memberUserId: m.id } });
  await recordEvents(db, authorOf(actor), events, now);
  return readGroup(db, actor, id);
}

/** Update Group: name, description, ownerId (a group admin of the organization, 1107). */
export function changeGroup(store: Store, ...a: AfterDb<typeof changeGroupIn>) {
  return store.db.transaction().execute((tx) => changeGroupIn(tx, ...a));
}

async function changeGroupIn(db: Queryable, actor: Actor, id: number, body: unknown, now = clock.now()): Promise<GroupWithOwner> {
  const g = await manageableGroup(db, actor, id);
  const b = asObject(body, 'a Group object');
  const allowed = new Set(['name', 'description', 'ownerId', 'id', 'owner']);
  const extra = Object.keys(b).filter((k) => !allowed.has(k));
  if (extra.length > 0) throw apiError(1032, extra.join(', '));
  if (b.id !== undefined && b.id !== g.id) throw apiError(1029);
  const patch: { name?: string; description?: string | null; owner_id?: number; modified_at: number } = { modified_at: now };
  const events: ChangeEvent[] = [];
  if (b.name !== undefined) {
    const name = groupName(b.name);
    if (name !== g.name) {
      await assertNameFree(db, actor.org.id, name, g.id);
      patch.name = name;
      events.push({ objectType: 'GROUP', action: 'RENAME', objectId: g.id, details: { oldName: g.name, newName: name } });
    }
  }
  if (b.description !== undefined) {
    patch.description = description(b.description);
    events.push({ objectType: 'GROUP', action: 'UPDATE', objectId: g.id, details: { description: patch.description } });
  }
  if (b.ownerId !== undefined && b.ownerId !== g.owner_id) {
    const owner = await findOrgMember(db, actor.org.id, bodyId(b.ownerId, 'ownerId'));
    if (!owner || owner.status !== 'ACTIVE') throw apiError(1031, String(b.ownerId), 'ownerId');
    if (!owner.group_admin && !owner.admin) throw apiError(1107);
    patch.owner_id = owner.id;
    events.push({ objectType: 'GROUP', action: 'TRANSFER_OWNERSHIP', objectId: g.id, details: { oldOwnerUserId: g.owner_id, newOwnerUserId: owner.id } });
  }
  if (events.length > 0) {
    await updateGroup(db, g.id, patch);
    await recordEvents(db, authorOf(actor), events, now);
  }
  const after = await findGroup(db, actor.org.id, g.id);
  return after!;
}

/** Group deletion hooks (e.g. the sharing engine drops the group's shares in the same transaction). */
export type GroupDeletionHook = (db: Queryable, actor: Actor, groupId: number) => Promise<void>;
export const groupDeletionHooks: GroupDeletionHook[] = [];

export function removeGroup(store: Store, ...a: AfterDb<typeof removeGroupIn>) {
  return store.db.transaction().execute((tx) => removeGroupIn(tx, ...a));
}

/**
 * A group's members change one request at a time, and nothing is shared with a group while it
 * is deleted (lockName; Share Sheet and its kin take it for the groups they name).
 */
export async function lockGroup(db: Queryable, id: number): Promise<void> {
  await lockName(db, `sheetd: members of group ${id}`);
}

async function removeGroupIn(db: Queryable, actor: Actor, id: number, now = clock.now()): Promise<void> {
  await lockGroup(db, id);
  const g = await manageableGroup(db, actor, id);
  for (const hook of groupDeletionHooks) await hook(db, actor, g.id);
  await deleteGroup(db, g.id);
  await recordEvents(db, authorOf(actor), [{ objectType: 'GROUP', action: 'DELETE', objectId: g.id, details: { name: g.name } }], now);
}

/**
 * Add Group Members: one GroupMember (1129 when already a member) or an array (members already
 * in the group are skipped and left out of the answer).
 */
export function addMembers(store: Store, ...a: AfterDb<typeof addMembersIn>) {
  return store.db.transaction().execute((tx) => addMembersIn(tx, ...a));
}

async function addMembersIn(db: Queryable, actor: Actor, id: number, body: unknown, now = clock.now()): Promise<{ single: boolean; added: UserRow[] }> {
  // two requests adding one member: the second waits, then finds them there (or the group gone)
  await lockGroup(db, id);
  const g = await manageableGroup(db, actor, id);
  const { list, single } = objectList(body, 'a GroupMember object');
  const users = await resolveMembers(db, actor, list);
  const current = await memberIds(db, g.id);
  if (single && users[0] && current.has(users[0].id)) throw apiError(1129);
  const added = users.filter((u) => !current.has(u.id));
  if (added.length > 0) {
    await insertMembers(db, g.id, added.map((u) => u.id));
    await updateGroup(db, g.id, { modified_at: now });
    await recordEvents(db, authorOf(actor), added.map((u) => ({ objectType: 'GROUP', action: 'ADD_MEMBER', objectId: g.id, details: { memberUserId: u.id } })), now);
  }
  return { single, added };
}

export function removeMember(store: Store, ...a: AfterDb<typeof removeMemberIn>) {
  return store.db.transaction().execute((tx) => removeMemberIn(tx, ...a));
}

async function removeMemberIn(db: Queryable, actor: Actor, id: number, userId: number, now = clock.now()): Promise<void> {
  const g = await manageableGroup(db, actor, id);
  if ((await deleteMember(db, g.id, userId)) === 0) throw apiError(1006);
  await updateGroup(db, g.id, { modified_at: now });
  await recordEvents(db, authorOf(actor), [{ objectType: 'GROUP', action: 'REMOVE_MEMBER', objectId: g.id, details: { memberUserId: userId } }], now);
}
