import { enqueueShareNotice, shareNote } from '../outbound/emails.ts';
import { groupInOrg, groupNamesOf } from '../../store/groups.ts';
import { lockName, type Queryable, type Store } from '../../store/db.ts';
import { transferSheet, type SheetRow } from '../../store/sheets.ts';
import type { WorkspaceRow } from '../../store/containers.ts';
import { findWorkspace, updateWorkspace } from '../../store/containers.ts';
import { deleteGroupShares, deleteShareRow, findShare, insertShares, listShares, updateShareLevel, type ShareObjectType, type ShareRow } from '../../store/shares.ts';
import { findUserByEmail, findUserById } from '../../store/users.ts';
import { apiError } from '../../errors.ts';
import { asObject, bodyId, objectList } from '../../engine/input.ts';
import { atLeast, isAccessLevel, rank, type AccessLevel } from './access.ts';
import type { AfterDb } from '../platform/transactions.ts';
import type { Actor, UserRow } from '../platform/context.ts';
import { authorOf, recordEvents, type ChangeEvent } from '../log/events.ts';
import { sheetFor } from './permissions.ts';
import { isValidEmail } from '../identity/users.ts';
import { assertPrimaryEmail } from '../identity/alternateEmails.ts';
import { groupTablesExist, workspaceFor } from './containers.ts';
import { groupDeletionHooks, lockGroup } from '../identity/groups.ts';
import { newShareId } from '../sheets/sheetLifecycle.ts';
import { reportAccess, sightAccess } from './assetAccess.ts';
import { transferReport, type ReportRow } from '../../store/reports.ts';
import { transferSight, type SightRow } from '../../store/sights.ts';
import { clock } from '../../clock.ts';

/** Largest number of share objects in one Share call (spec 8). */
export const MAX_SHARES_PER_CALL = 1000;

/** The least level that shares (and the most a sharer may grant is its own level, at most ADMIN). */
export const SHARE_LEVEL: AccessLevel = 'EDITOR_SHARE';

/** A share as presented: stored, or the owner's (synthesized), with its scope. */
export interface ShareView {
  id: string;
  type: 'USER' | 'GROUP';
  userId?: number;
  groupId?: number;
  email?: string;
  name?: string;
  accessLevel: AccessLevel;
  scope: 'ITEM' | 'WORKSPACE';
  createdAt: number;
  modifiedAt: number;
}

/** The owner's share has a fixed id derived from the owner: it cannot be edited (1028). */
export function ownerShareId(userId: number): string {
  return 'O' + userId.toString(36).toUpperCase();
}

interface Target {
  type: ShareObjectType;
  id: number;
  ownerId: number;
  workspaceId: number | null;
  name: string;
  level: AccessLevel;
  createdAt: number;
}

function targetOfSheet(s: SheetRow, level: AccessLevel): Target {
  return { type: 'sheet', id: s.id, ownerId: s.owner_id, workspaceId: s.workspace_id, name: s.name, level, createdAt: s.created_at };
}

function targetOfReport(r: ReportRow, level: AccessLevel): Target {
  return { type: 'report', id: r.id, ownerId: r.owner_id, workspaceId: r.workspace_id, name: r.name, level, createdAt: r.created_at };
}

function targetOfSight(s: SightRow, level: AccessLevel): Target {
  return { type: 'sight', id: s.id, ownerId: s.owner_id, workspaceId: s.workspace_id, name: s.name, level, createdAt: s.created_at };
}

const EVENT_TYPES: Record<ShareObjectType, string> = { sheet: 'SHEET', report: 'REPORT', sight: 'DASHBOARD', workspace: 'WORKSPACE' };

/** The event objectType of a share change on the target, and the sheet it concerns. */
function eventOf(t: Target): { objectType: string; sheetId: number | null } {
  return { objectType: EVENT_TYPES[t.type], sheetId: t.type === 'sheet' ? t.id : null };
}

/** Dashboards are shared as viewers, editors who share, or admins: never as plain editors (1166). */
function assertLevelFor(t: Target, level: AccessLevel): void {
  if (t.type === 'sight' && level === 'EDITOR') throw apiError(1166);
}

function targetOfWorkspace(w: WorkspaceRow, level: AccessLevel): Target {
  return { type: 'workspace', id: w.id, ownerId: w.owner_id, workspaceId: w.id, name: w.name, level, createdAt: w.created_at };
}

export async function shareTarget(db: Queryable, actor: Actor, type: ShareObjectType, id: number, needed: AccessLevel): Promise<Target> {
  if (type === 'sheet') {
    const { sheet, level } = await sheetFor(db, actor, id, needed);
    return targetOfSheet(sheet, level);
  }
  if (type === 'report') {
    const { asset: report, level } = await reportAccess.require(db, actor, id, needed);
    return targetOfReport(report, level);
  }
  if (type === 'sight') {
    const { asset: sight, level } = await sightAccess.require(db, actor, id, needed);
    return targetOfSight(sight, level);
  }
  const { ws, level } = await workspaceFor(db, actor, id, needed);
  return targetOfWorkspace(ws, level);
}

async function groupNames(db: Queryable, orgId: number, ids: number[]): Promise<Map<number, string>> {
  const out = new Map<number, string>();
  if (ids.length === 0 || !(await groupTablesExist(db))) return out;
  for (const r of await groupNamesOf(db, orgId, ids)) out.set(r.id, r.name);
  return out;
}

function displayName(u: Pick<UserRow, 'first_name' | 'last_name'>): string | undefined {
  const n = [u.first_name, u.last_name].filter((s) => s && s.trim() !== '').join(' ');
  return n === '' ? undefined : n;
}

async function views(db: Queryable, orgId: number, rows: ShareRow[], scope: 'ITEM' | 'WORKSPACE'): Promise<ShareView[]> {
  const groups = await groupNames(db, orgId, rows.filter((r) => r.group_id !== null).map((r) => r.group_id!));
  const out: ShareView[] = [];
  for (const r of rows) {
    if (!isAccessLevel(r.access_level)) continue;
    const v: ShareView = { id: r.id, type: r.group_id !== null ? 'GROUP' : 'USER', accessLevel: r.access_level, scope, createdAt: r.created_at, modifiedAt: r.modified_at };
    if (r.group_id !== null) {
      v.groupId = r.group_id;
      const name = groups.get(r.group_id);
      if (name !== undefined) v.name = name;
    } else {
      // a share made to an address before its user existed resolves once the user does
      const u = r.user_id !== null ? await findUserById(db, r.user_id) : r.email !== null ? await findUserByEmail(db, r.email) : undefined;
      if (u) {
        v.userId = u.id;
        v.email = u.email;
        const name = displayName(u);
        if (name !== undefined) v.name = name;
      } else if (r.email !== null) {
        v.email = r.email;
      }
    }
    out.push(v);
  }
  return out;
}

async function ownerView(db: Queryable, ownerId: number, at: number, scope: 'ITEM' | 'WORKSPACE'): Promise<ShareView | undefined> {
  const u = await findUserById(db, ownerId);
  if (!u) return undefined;
  const v: ShareView = { id: ownerShareId(u.id), type: 'USER', userId: u.id, email: u.email, accessLevel: 'OWNER', scope, createdAt: at, modifiedAt: at };
  const name = displayName(u);
  if (name !== undefined) v.name = name;
  return v;
}

/** Every share of an object: the owner's first, then item shares, then (asked for) the workspace's. */
async function allViews(db: Queryable, actor: Actor, t: Target, withWorkspace: boolean): Promise<ShareView[]> {
  const out: ShareView[] = [];
  const owner = await ownerView(db, t.ownerId, t.createdAt, 'ITEM');
  if (owner) out.push(owner);
  out.push(...(await views(db, actor.org.id, await listShares(db, t.type, t.id), 'ITEM')));
  if (withWorkspace && t.type !== 'workspace' && t.workspaceId !== null) {
    const ws = await findWorkspace(db, t.workspaceId);
    if (ws) {
      const seen = new Set(out.map((v) => v.id));
      const wsOwner = await ownerView(db, ws.owner_id, ws.created_at, 'WORKSPACE');
      if (wsOwner && !seen.has(wsOwner.id)) out.push(wsOwner);
      out.push(...(await views(db, actor.org.id, await listShares(db, 'workspace', ws.id), 'WORKSPACE')));
    }
  }
  return out;
}

/** List Sheet/Workspace Shares (any access). include=workspaceShares adds a sheet's workspace shares. */
export async function listSharesOf(db: Queryable, actor: Actor, type: ShareObjectType, id: number, withWorkspace: boolean): Promise<ShareView[]> {
  const t = await shareTarget(db, actor, type, id, 'VIEWER');
  return allViews(db, actor, t, withWorkspace);
}

export async function getShareOf(db: Queryable, actor: Actor, type: ShareObjectType, id: number, shareId: string): Promise<ShareView> {
  const t = await shareTarget(db, actor, type, id, 'VIEWER');
  const found = (await allViews(db, actor, t, true)).find((v) => v.id === shareId);
  if (!found) throw apiError(1027);
  return found;
}

/** A Share object of a request, checked. */
interface ShareInput {
  email?: string;
  groupId?: number;
  accessLevel: AccessLevel;
  /** the notice's subject, message and ccMe (sent with sendEmail=true) */
  note: ReturnType<typeof shareNote>;
}

function parseLevel(v: unknown, accessApiLevel: number): AccessLevel {
  if (v === undefined || v === null || v === '') throw apiError(1012, 'accessLevel');
  if (!isAccessLevel(v)) throw apiError(1031, String(v), 'accessLevel');
  if (v === 'COMMENTER' && accessApiLevel < 1) throw apiError(1031, v, 'accessLevel');
  return v;
}

function parseShareInput(item: unknown, accessApiLevel: number): ShareInput {
  const b = asObject(item, 'a Share object');
  const hasEmail = b.email !== undefined && b.email !== null && b.email !== '';
  const hasGroup = b.groupId !== undefined && b.groupId !== null;
  if (!hasEmail && !hasGroup) throw apiError(1012, 'email or groupId');
  if (hasEmail && hasGroup) throw apiError(1178, 'email and groupId');
  const accessLevel = parseLevel(b.accessLevel, accessApiLevel);
  if (accessLevel === 'OWNER') throw apiError(1026);
  const note = shareNote(b);
  if (hasEmail) {
    if (!isValidEmail(b.email)) throw apiError(1156);
    return { email: b.email.trim().toLowerCase(), accessLevel, note };
  }
  return { groupId: bodyId(b.groupId, 'groupId'), accessLevel, note };
}

/** What a sharer may grant: up to its own level (ADMIN at most; OWNER only by transfer). */
function mayGrant(sharer: AccessLevel, level: AccessLevel): boolean {
  return rank(level) <= Math.min(rank(sharer), rank('ADMIN'));
}

/**
 * Share Sheet / Share Workspace with one Share object (1025 when it exists) or an array (the
 * ones that exist are skipped and left out of the answer). At most 1,000 per call (1066).
 */
export function createShares(store: Store, ...a: AfterDb<typeof createSharesIn>) {
  return store.db.transaction().execute((tx) => createSharesIn(tx, ...a));
}

async function createSharesIn(
  db: Queryable,
  actor: Actor,
  type: ShareObjectType,
  id: number,
  body: unknown,
  opts: { accessApiLevel: number; sendEmail: boolean; link?: string },
  now = clock.now(),
): Promise<{ single: boolean; created: ShareView[] }> {
  const t = await shareTarget(db, actor, type, id, SHARE_LEVEL);
  const { list: items, single } = objectList(body, 'a Share object');
  if (items.length > MAX_SHARES_PER_CALL) throw apiError(1066, MAX_SHARES_PER_CALL);
  if (items.length === 0) throw apiError(1012, 'share');
  const inputs = items.map((it) => parseShareInput(it, opts.accessApiLevel));
  for (const i of inputs) assertLevelFor(t, i.accessLevel);
  for (const i of inputs) if (!mayGrant(t.level, i.accessLevel)) throw apiError(1004);
  // two requests sharing with one address: the second waits, then finds the first's share
  await lockName(db, `sheetd: shares of ${t.type} ${t.id}`);
  const existing = await listShares(db, t.type, t.id);
  const owner = await findUserById(db, t.ownerId);
  const rows: ShareRow[] = [];
  const notes: Array<ShareInput['note']> = [];
  const keys = new Set<string>();
  for (const r of existing) {
    if (r.group_id !== null) keys.add(`g:${r.group_id}`);
    if (r.email !== null) keys.add(`e:${r.email}`);
    if (r.user_id !== null) keys.add(`u:${r.user_id}`);
  }
  if (owner) {
    keys.add(`u:${owner.id}`);
    keys.add(`e:${owner.email}`);
  }
  for (const i of inputs) {
    let row: ShareRow;
    if (i.groupId !== undefined) {
      if (!(await groupTablesExist(db))) throw apiError(1106);
      // not a group being deleted: its deletion removes its shares, and would miss this one
      await lockGroup(db, i.groupId);
      if (!(await groupInOrg(db, actor.org.id, i.groupId))) throw apiError(1106);
      if (keys.has(`g:${i.groupId}`)) {
        if (single) throw apiError(1025);
        continue;
      }
      keys.add(`g:${i.groupId}`);
      row = { id: newShareId(), org_id: actor.org.id, object_type: t.type, object_id: t.id, user_id: null, email: null, group_id: i.groupId, access_level: i.accessLevel, created_by: actor.user.id, created_at: now, modified_at: now };
    } else {
      const email = i.email!;
      await assertPrimaryEmail(db, email);
      const u = await findUserByEmail(db, email);
      if (keys.has(`e:${email}`) || (u && keys.has(`u:${u.id}`))) {
        if (single) throw apiError(1025);
        continue;
      }
      keys.add(`e:${email}`);
      if (u) keys.add(`u:${u.id}`);
      row = { id: newShareId(), org_id: actor.org.id, object_type: t.type, object_id: t.id, user_id: u?.id ?? null, email, group_id: null, access_level: i.accessLevel, created_by: actor.user.id, created_at: now, modified_at: now };
    }
    rows.push(row);
    notes.push(i.note);
  }
  await insertShares(db, rows);
  if (opts.sendEmail) {
    const thing = { kind: t.type, name: t.name, ...(opts.link !== undefined ? { link: opts.link } : {}) };
    for (const [k, r] of rows.entries()) {
      await enqueueShareNotice(db, actor, thing, r.group_id !== null ? { groupId: r.group_id } : { email: r.email! }, notes[k]!, r.access_level);
    }
  }
  await recordEvents(
    db,
    authorOf(actor),
    rows.map((r) => ({
      ...eventOf(t),
      action: 'ADD_SHARE',
      objectId: t.id,
      workspaceId: t.workspaceId,
      details: { shareId: r.id, accessLevel: r.access_level, ...(r.group_id !== null ? { groupId: r.group_id } : { email: r.email, userId: r.user_id }), sendEmail: opts.sendEmail },
    })),
    now,
  );
  return { single, created: await views(db, actor.org.id, rows, 'ITEM') };
}

/** Finds a stored item share, telling apart the owner's (1028), a workspace's (1023) and none (1027). */
async function storedShare(db: Queryable, t: Target, shareId: string): Promise<ShareRow> {
  const row = await findShare(db, t.type, t.id, shareId);
  if (row) return row;
  if (shareId === ownerShareId(t.ownerId)) throw apiError(1028);
  if (t.type !== 'workspace' && t.workspaceId !== null) {
    const ws = await findWorkspace(db, t.workspaceId);
    if (ws && (shareId === ownerShareId(ws.owner_id) || (await findShare(db, 'workspace', ws.id, shareId)))) throw apiError(1023);
  }
  throw apiError(1027);
}

function isOwn(actor: Actor, r: ShareRow): boolean {
  return r.user_id === actor.user.id || (r.email !== null && r.email === actor.user.email.toLowerCase());
}

/**
 * Update Share: the sharer needs SHARE_LEVEL and at least the share's current and new level.
 * accessLevel OWNER transfers ownership (the owner only, to a user of the organization): the
 * old owner keeps ADMIN.
 */
export function updateShare(store: Store, ...a: AfterDb<typeof updateShareIn>) {
  return store.db.transaction().execute((tx) => updateShareIn(tx, ...a));
}

async function updateShareIn(db: Queryable, actor: Actor, type: ShareObjectType, id: number, shareId: string, body: unknown, accessApiLevel: number, now = clock.now()): Promise<ShareView> {
  const t = await shareTarget(db, actor, type, id, SHARE_LEVEL);
  const level = parseLevel(asObject(body, 'a Share object').accessLevel, accessApiLevel);
  assertLevelFor(t, level);
  const row = await storedShare(db, t, shareId);
  if (isOwn(actor, row)) throw apiError(1040);
  const current = isAccessLevel(row.access_level) ? row.access_level : 'VIEWER';
  if (level === 'OWNER') {
    if (t.level !== 'OWNER') throw apiError(1004);
    return transferOwnership(db, actor, t, row, now);
  }
  if (!mayGrant(t.level, level) || !atLeast(t.level, current)) throw apiError(1004);
  await updateShareLevel(db, row.id, level, now);
  await recordEvents(db, authorOf(actor), [{ ...eventOf(t), action: 'UPDATE_SHARE', objectId: t.id, workspaceId: t.workspaceId, details: { shareId: row.id, accessLevel: level, oldAccessLevel: current } }], now);
  return (await views(db, actor.org.id, [{ ...row, access_level: level, modified_at: now }], 'ITEM'))[0]!;
}

async function transferOwnership(db: Queryable, actor: Actor, t: Target, row: ShareRow, now: number): Promise<ShareView> {
  const u = row.user_id !== null ? await findUserById(db, row.user_id) : row.email !== null ? await findUserByEmail(db, row.email) : undefined;
  if (row.group_id !== null || !u || u.org_id !== actor.org.id || u.status !== 'ACTIVE') throw apiError(1026);
  await deleteShareRow(db, row.id);
  await insertShares(db, [{ id: newShareId(), org_id: actor.org.id, object_type: t.type, object_id: t.id, user_id: t.ownerId, email: actor.user.email.toLowerCase(), group_id: null, access_level: 'ADMIN', created_by: actor.user.id, created_at: now, modified_at: now }]);
  if (t.type === 'sheet') {
    // a sheet in the old owner's home folders moves to the new owner's home
    await transferSheet(db, t.id, u.id);
  } else if (t.type === 'report') {
    // as a sheet: a report in the old owner's home folders moves to the new owner's home
    await transferReport(db, t.id, u.id, now);
  } else if (t.type === 'sight') {
    await transferSight(db, t.id, u.id, now);
  } else {
    await updateWorkspace(db, t.id, { owner_id: u.id, modified_at: now });
  }
  await recordEvents(db, authorOf(actor), [{ ...eventOf(t), action: 'TRANSFER_OWNERSHIP', objectId: t.id, workspaceId: t.workspaceId, details: { oldOwnerUserId: t.ownerId, newOwnerUserId: u.id } }], now);
  return (await ownerView(db, u.id, t.createdAt, 'ITEM'))!;
}

/** Delete Share: SHARE_LEVEL and at least the share's level; one's own share may be removed. */
export function deleteShare(store: Store, ...a: AfterDb<typeof deleteShareIn>) {
  return store.db.transaction().execute((tx) => deleteShareIn(tx, ...a));
}

async function deleteShareIn(db: Queryable, actor: Actor, type: ShareObjectType, id: number, shareId: string, now = clock.now()): Promise<void> {
  const t = await shareTarget(db, actor, type, id, 'VIEWER');
  const row = await storedShare(db, t, shareId);
  if (!isOwn(actor, row)) {
    if (!atLeast(t.level, SHARE_LEVEL)) throw apiError(1004);
    const current = isAccessLevel(row.access_level) ? row.access_level : 'VIEWER';
    if (!atLeast(t.level, current)) throw apiError(1004);
  }
  await deleteShareRow(db, row.id);
  await recordEvents(db, authorOf(actor), [{ ...eventOf(t), action: 'REMOVE_SHARE', objectId: t.id, workspaceId: t.workspaceId, details: { shareId: row.id } }], now);
}

// A deleted group's shares go with it, in its transaction: each object shared with it records
// REMOVE_SHARE as if the share had been deleted.
groupDeletionHooks.push(async (db, actor, groupId) => {
  const dropped = await deleteGroupShares(db, groupId);
  if (dropped.length === 0) return;
  const events: ChangeEvent[] = dropped.map((r) => {
    const type = r.object_type as ShareObjectType;
    return { objectType: EVENT_TYPES[type], sheetId: type === 'sheet' ? r.object_id : null, workspaceId: type === 'workspace' ? r.object_id : null, action: 'REMOVE_SHARE', objectId: r.object_id, details: { shareId: r.id, groupId } };
  });
  await recordEvents(db, authorOf(actor), events);
});
