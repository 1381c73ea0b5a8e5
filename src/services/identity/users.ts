import type { Readable } from 'node:stream';
import type { Queryable, Store } from '../../store/db.ts';
import type { BlobStore } from '../../blobs/index.ts';
import { newImageId, storeImage } from '../sheets/images.ts';
import { queueBlobDeletion } from '../collaboration/attachments.ts';
import {
  deleteProfileImage, findProfileImage, keptProfileImage, findUserByEmail, findUserById, findUsersByIds, insertProfileImage, transferOwnedItems, insertUser, REMOVED, revokeUserTokens, sheetCounts, updateUserRow,
  countOrgMembers, listOrgMembers, listOrgSheets,
} from '../../store/users.ts';
import { groupsOfUser, groupsOwnedBy, removeUserFromAllGroups, updateGroup } from '../../store/groups.ts';
import { deleteUserSessions } from '../../store/sessions.ts';
import { keptAlternateEmails, listAlternateEmails, type AlternateEmailRow } from '../../store/alternateEmails.ts';
import { chunks, NOT_KEPT } from '../../store/db.ts';
import { newId } from '../../ids.ts';
import { apiError } from '../../errors.ts';
import { asObject, optionalBodyBool } from '../../engine/input.ts';
import { authorOf, recordEvents, type ChangeEvent, type EventAuthor } from '../log/events.ts';
import { assertPrimaryEmail, lockAddresses } from './alternateEmails.ts';
import { isValidEmail, memberOr404, requireSystemAdmin, seesPrivateProfile } from '../access/members.ts';
import type { AfterDb } from '../platform/transactions.ts';
import type { Actor, ReadOptions, UserRow } from '../platform/context.ts';

export { isValidEmail, memberOr404, requireSystemAdmin };
import { pageWindow, type Paging } from '../../paging.ts';
import { clock } from '../../clock.ts';
import { ownExtrasReadWithToken } from './auth.ts';

export interface NewUser {
  email: string;
  firstName?: string | null;
  lastName?: string | null;
  admin?: boolean;
  licensedSheetCreator?: boolean;
  groupAdmin?: boolean;
  resourceViewer?: boolean;
}

// Control characters and angle brackets (markup) are refused in names (1329).
// eslint-disable-next-line no-control-regex
const BAD_NAME = /[\u0000-\u001f\u007f<>]/;

/** Adds a user to an organization (the command line, bootstrap and POST /users use this). */
export async function createUser(db: Queryable, author: EventAuthor, orgId: number, u: NewUser, now = clock.now()): Promise<UserRow> {
  if (!isValidEmail(u.email)) throw apiError(1156);
  const email = u.email.toLowerCase();
  if (await findUserByEmail(db, email)) throw apiError(1016);
  const row: UserRow = {
    id: newId(),
    org_id: orgId,
    email,
    first_name: u.firstName ?? null,
    last_name: u.lastName ?? null,
    admin: u.admin ? 1 : 0,
    licensed_sheet_creator: u.licensedSheetCreator || u.admin ? 1 : 0,
    group_admin: u.groupAdmin || u.admin ? 1 : 0,
    resource_viewer: u.resourceViewer ? 1 : 0,
    status: 'ACTIVE',
    locale: 'en_US',
    time_zone: 'UTC',
    company: null,
    department: null,
    role: null,
    title: null,
    mobile_phone: null,
    work_phone: null,
    last_login: null,
    created_at: now,
    modified_at: now,
  };
  await insertUser(db, row);
  await recordEvents(db, author, [{ objectType: 'USER', action: 'ADD_TO_ACCOUNT', objectId: row.id, details: { email } }], now);
  return row;
}


function optName(b: Record<string, unknown>, k: 'firstName' | 'lastName'): string | null | undefined {
  const v = b[k];
  if (v === undefined) return undefined;
  if (v === null) return null;
  if (typeof v !== 'string') throw apiError(1031, String(v), k);
  if (BAD_NAME.test(v)) throw apiError(1329);
  const s = v.trim();
  return s === '' ? null : s;
}

function optBool(b: Record<string, unknown>, k: string): boolean | undefined {
  return optionalBodyBool(b[k], k);
}

/** Roles that need a license (1097, 1102). An admin is licensed and a group admin. */
function checkRoles(r: { admin: boolean; licensed: boolean; groupAdmin: boolean; resourceViewer: boolean }): void {
  if (r.groupAdmin && !r.licensed) throw apiError(1102);
  if (r.resourceViewer && !r.licensed) throw apiError(1097);
}

/**
 * Add User (POST /users): system admins only. A former member (removed earlier) comes back with
 * the same id, so the sheets the account kept are theirs again; one who owns sheets must come
 * back licensed (1140).
 */
export function addUser(store: Store, ...a: AfterDb<typeof addUserIn>) {
  return store.db.transaction().execute((tx) => addUserIn(tx, ...a));
}

async function addUserIn(db: Queryable, actor: Actor, body: unknown, now = clock.now()): Promise<UserRow> {
  requireSystemAdmin(actor);
  const b = asObject(body, 'a User object');
  if (b.email === undefined || b.email === null || b.email === '') throw apiError(1012, 'email');
  if (!isValidEmail(b.email)) throw apiError(1156);
  const firstName = optName(b, 'firstName');
  const lastName = optName(b, 'lastName');
  const admin = optBool(b, 'admin') ?? false;
  const roles = {
    admin,
    licensed: (optBool(b, 'licensedSheetCreator') ?? false) || admin,
    groupAdmin: (optBool(b, 'groupAdmin') ?? false) || admin,
    resourceViewer: optBool(b, 'resourceViewer') ?? false,
  };
  checkRoles(roles);
  const email = b.email.toLowerCase();
  await lockAddresses(db);
  await assertPrimaryEmail(db, email);
  const existing = await findUserByEmail(db, email);
  if (existing && existing.status !== REMOVED) throw apiError(1016);
  if (existing) {
    if (!roles.licensed && (await sheetCounts(db, [existing.id])).get(existing.id)) throw apiError(1140);
    const patch = {
      org_id: actor.org.id, status: 'ACTIVE', admin: roles.admin ? 1 : 0, licensed_sheet_creator: roles.licensed ? 1 : 0,
      group_admin: roles.groupAdmin ? 1 : 0, resource_viewer: roles.resourceViewer ? 1 : 0, modified_at: now,
      ...(firstName !== undefined ? { first_name: firstName } : {}),
      ...(lastName !== undefined ? { last_name: lastName } : {}),
    };
    await updateUserRow(db, existing.id, patch);
    await recordEvents(db, authorOf(actor), [{ objectType: 'USER', action: 'ADD_TO_ACCOUNT', objectId: existing.id, details: { email } }], now);
    return { ...existing, ...patch };
  }
  return createUser(db, authorOf(actor), actor.org.id, {
    email, firstName: firstName ?? null, lastName: lastName ?? null, admin: roles.admin,
    licensedSheetCreator: roles.licensed, groupAdmin: roles.groupAdmin, resourceViewer: roles.resourceViewer,
  }, now);
}

export interface UserDetail {
  user: UserRow;
  sheetCount: number;
  /** Whether the caller sees the user's roles and alternate addresses (services/access/members.ts). */
  showRoles: boolean;
  /** Empty unless the caller sees the private profile. */
  alternateEmails: AlternateEmailRow[];
}

export async function getUser(db: Queryable, actor: Actor, id: number): Promise<UserDetail> {
  const user = await memberOr404(db, actor, id);
  const counts = await sheetCounts(db, [user.id]);
  const showRoles = seesPrivateProfile(actor, user.id);
  return { user, sheetCount: counts.get(user.id) ?? 0, showRoles, alternateEmails: showRoles ? await listAlternateEmails(db, user.id) : [] };
}

export async function listUsers(db: Queryable, actor: Actor, emails: string[], p: Paging) {
  const total = await countOrgMembers(db, actor.org.id, emails);
  const w = pageWindow(total, p);
  const rows = await listOrgMembers(db, actor.org.id, { emails, offset: w.offset, limit: w.limit });
  const counts = actor.user.admin ? await sheetCounts(db, rows.map((r) => r.id)) : new Map<number, number>();
  return { total, rows, counts };
}

/**
 * Update User: system admins only. firstName, lastName, admin, licensedSheetCreator,
 * groupAdmin, resourceViewer; an admin cannot drop their own admin role (1049), a user who owns
 * sheets stays licensed (1076), a group admin who owns groups stays one (1269).
 */
export function updateUser(store: Store, ...a: AfterDb<typeof updateUserIn>) {
  return store.db.transaction().execute((tx) => updateUserIn(tx, ...a));
}

async function updateUserIn(db: Queryable, actor: Actor, id: number, body: unknown, now = clock.now()): Promise<UserRow> {
  requireSystemAdmin(actor);
  const b = asObject(body, 'a User object');
  const user = await memberOr404(db, actor, id);
  const allowed = new Set(['firstName', 'lastName', 'admin', 'licensedSheetCreator', 'groupAdmin', 'resourceViewer', 'id', 'email', 'name', 'status']);
  const extra = Object.keys(b).filter((k) => !allowed.has(k));
  if (extra.length > 0) throw apiError(1032, extra.join(', '));
  if (b.id !== undefined && b.id !== user.id) throw apiError(1029);
  if (b.email !== undefined && (typeof b.email !== 'string' || b.email.toLowerCase() !== user.email)) throw apiError(1032, 'email');
  const firstName = optName(b, 'firstName');
  const lastName = optName(b, 'lastName');
  const admin = optBool(b, 'admin') ?? !!user.admin;
  const licensedIn = optBool(b, 'licensedSheetCreator');
  const groupAdminIn = optBool(b, 'groupAdmin');
  // a system admin is a licensed group admin
  if (admin && licensedIn === false) throw apiError(1031, 'false', 'licensedSheetCreator');
  if (admin && groupAdminIn === false) throw apiError(1031, 'false', 'groupAdmin');
  const licensed = licensedIn ?? (!!user.licensed_sheet_creator || admin);
  const groupAdmin = groupAdminIn ?? (!!user.group_admin || admin);
  const resourceViewer = optBool(b, 'resourceViewer') ?? !!user.resource_viewer;
  if (user.id === actor.requestUser.id && !admin) throw apiError(1049);
  checkRoles({ admin, licensed, groupAdmin, resourceViewer });
  if (!licensed && user.licensed_sheet_creator && (await sheetCounts(db, [user.id])).get(user.id)) throw apiError(1076);
  if (!groupAdmin && user.group_admin && (await groupsOwnedBy(db, user.id)).length > 0) throw apiError(1269);
  const patch = {
    admin: admin ? 1 : 0, licensed_sheet_creator: licensed ? 1 : 0, group_admin: groupAdmin ? 1 : 0,
    resource_viewer: resourceViewer ? 1 : 0, modified_at: now,
    ...(firstName !== undefined ? { first_name: firstName } : {}),
    ...(lastName !== undefined ? { last_name: lastName } : {}),
  };
  await updateUserRow(db, user.id, patch);
  await recordEvents(db, authorOf(actor), [{ objectType: 'USER', action: 'UPDATE_USER', objectId: user.id, details: { email: user.email } }], now);
  return { ...user, ...patch };
}

export interface RemoveOptions {
  transferTo?: number | undefined;
  transferSheets?: boolean | undefined;
  removeFromSharing?: boolean | undefined;
}

/**
 * Hooks other domains register to follow a user's removal inside its transaction (e.g. the
 * sharing engine drops the user's shares when removeFromSharing is true).
 */
export type RemovalHook = (db: Queryable, actor: Actor, user: UserRow, opts: RemoveOptions & { transferToUser: UserRow | null }) => Promise<void>;
export const removalHooks: RemovalHook[] = [];

/**
 * Remove User: the user leaves the organization. sheetd hosts one organization, so the account
 * is kept (status REMOVED, never listed) with its tokens revoked: the sheets it owns stay its
 * own unless transferSheets=true moves them to transferTo, and adding the address again brings
 * the same account back. Groups it owns go to transferTo (required then: 1121; a group admin: 1107).
 */
export function removeUser(store: Store, ...a: AfterDb<typeof removeUserIn>) {
  return store.db.transaction().execute((tx) => removeUserIn(tx, ...a));
}

async function removeUserIn(db: Queryable, actor: Actor, id: number, opts: RemoveOptions, now = clock.now()): Promise<void> {
  requireSystemAdmin(actor);
  const user = await findUserById(db, id);
  if (!user) throw apiError(1020);
  if (user.org_id !== actor.org.id || user.status === REMOVED) throw apiError(1022);
  if (user.id === actor.requestUser.id || user.id === actor.user.id) throw apiError(1047);
  let target: UserRow | null = null;
  if (opts.transferTo !== undefined) {
    if (user.status === 'PENDING') throw apiError(1032, 'transferTo');
    const t = await findUserById(db, opts.transferTo);
    if (!t) throw apiError(1019);
    if (t.org_id !== actor.org.id || t.status !== 'ACTIVE' || t.id === user.id) throw apiError(1021);
    target = t;
  }
  if (opts.transferSheets && target === null) throw apiError(1009, 'transferTo');
  const owned = await groupsOwnedBy(db, user.id);
  if (owned.length > 0 && target === null) throw apiError(1121);
  if (owned.length > 0 && target && !target.group_admin) throw apiError(1107);
  if (opts.transferSheets && target && !target.licensed_sheet_creator && (await sheetCounts(db, [user.id])).get(user.id)) throw apiError(1076);

  const events: ChangeEvent[] = [];
  if (target) {
    for (const g of owned) {
      await updateGroup(db, g.id, { owner_id: target.id, modified_at: now });
      events.push({ objectType: 'GROUP', action: 'TRANSFER_OWNERSHIP', objectId: g.id, details: { oldOwnerUserId: user.id, newOwnerUserId: target.id } });
    }
    if (opts.transferSheets) {
      if ((await transferOwnedItems(db, user.id, target.id)) > 0) {
        events.push({ objectType: 'USER', action: 'TRANSFER_OWNED_ITEMS', objectId: user.id, details: { transferredToUserId: target.id } });
      }
    }
  }
  for (const hook of removalHooks) await hook(db, actor, user, { ...opts, transferToUser: target });
  await removeUserFromAllGroups(db, user.id);
  await revokeUserTokens(db, user.id, now);
  // signed out everywhere: added again, the person signs in anew
  await deleteUserSessions(db, user.id);
  await updateUserRow(db, user.id, { status: REMOVED, admin: 0, group_admin: 0, modified_at: now });
  events.push({ objectType: 'USER', action: 'REMOVE_FROM_ACCOUNT', objectId: user.id, details: { email: user.email, transferTo: target?.id ?? null, transferSheets: !!opts.transferSheets, removeFromSharing: !!opts.removeFromSharing } });
  await recordEvents(db, authorOf(actor), events, now);
}

/** Deactivate User: an active member other than the caller (1335, 1336, 1188). */
export function deactivateUser(store: Store, ...a: AfterDb<typeof deactivateUserIn>) {
  return store.db.transaction().execute((tx) => deactivateUserIn(tx, ...a));
}

async function deactivateUserIn(db: Queryable, actor: Actor, id: number, now = clock.now()): Promise<void> {
  requireSystemAdmin(actor);
  const user = await findUserById(db, id);
  if (!user) throw apiError(1020);
  if (user.org_id !== actor.org.id || user.status === REMOVED) throw apiError(1335);
  if (user.id === actor.requestUser.id) throw apiError(1336);
  if (user.status !== 'ACTIVE') throw apiError(1188);
  await updateUserRow(db, user.id, { status: 'DEACTIVATED', modified_at: now });
  // signed out of the web app everywhere (a browser left signed in is not signed in again by a
  // reactivation); API tokens are kept, refused while deactivated
  await deleteUserSessions(db, user.id);
  await recordEvents(db, authorOf(actor), [{ objectType: 'USER', action: 'DEACTIVATE', objectId: user.id, details: { email: user.email } }], now);
}

/** Reactivate User: a deactivated member becomes active again with its roles (1354, 1355). */
export function reactivateUser(store: Store, ...a: AfterDb<typeof reactivateUserIn>) {
  return store.db.transaction().execute((tx) => reactivateUserIn(tx, ...a));
}

async function reactivateUserIn(db: Queryable, actor: Actor, id: number, now = clock.now()): Promise<void> {
  requireSystemAdmin(actor);
  const user = await findUserById(db, id);
  if (!user) throw apiError(1020);
  if (user.org_id !== actor.org.id || user.status === REMOVED) throw apiError(1354);
  if (user.id === actor.requestUser.id) throw apiError(1355);
  if (user.status === 'ACTIVE') return;
  if (user.status !== 'DEACTIVATED') throw apiError(1188);
  await updateUserRow(db, user.id, { status: 'ACTIVE', modified_at: now });
  await recordEvents(db, authorOf(actor), [{ objectType: 'USER', action: 'ACTIVATE', objectId: user.id, details: { email: user.email } }], now);
}

/** List Org Sheets: sheets owned by members of the organization; system admins only. */
export async function orgSheets(db: Queryable, actor: Actor, q: { modifiedSince?: number; offset: number; limit: number | null }) {
  requireSystemAdmin(actor);
  return listOrgSheets(db, actor.org.id, q);
}

export interface ProfileImage {
  imageId: string;
  width: number;
  height: number;
}

export async function profileImageOf(db: Queryable, userId: number): Promise<ProfileImage | undefined> {
  return imageOf(await findProfileImage(db, userId));
}

/**
 * Update User Profile Image: a user's own, or anyone's in the organization by a system admin
 * (1004 otherwise). The image (PNG, GIF, JPEG; 1091 for anything else) goes onto the blob
 * store; the one it replaces is removed by a job after the commit.
 */
export async function setProfileImage(store: Store, blobs: BlobStore, actor: Actor, userId: number, body: Readable, maxBytes: number): Promise<{ user: UserRow; image: ProfileImage; showRoles: boolean }> {
  const check = async (db: Queryable) => {
    const u = await memberOr404(db, actor, userId);
    if (!seesPrivateProfile(actor, u.id)) throw apiError(1004);
    return u;
  };
  await check(store.db);
  const { info, blobKey } = await storeImage(blobs, body, maxBytes);
  try {
    return await store.db.transaction().execute(async (tx) => {
      const user = await check(tx);
      const now = clock.now();
      const old = await findProfileImage(tx, userId);
      await deleteProfileImage(tx, userId);
      const image = { imageId: newImageId(), width: info.width, height: info.height };
      await insertProfileImage(tx, { user_id: userId, image_id: image.imageId, blob_key: blobKey, mime_type: info.mimeType, width: info.width, height: info.height, created_at: now });
      if (old) await queueBlobDeletion(tx, [old.blob_key]);
      await recordEvents(tx, authorOf(actor), [{ objectType: 'USER', action: 'UPDATE', objectId: userId, details: { profileImage: true } }], now);
      return { user, image, showRoles: seesPrivateProfile(actor, user.id) };
    });
  } catch (e) {
    await blobs.delete(blobKey);
    throw e;
  }
}

/** The organization's members for the API access page: a system admin sees them all (first 500), others none. */
export async function membersForAdmin(db: Queryable, viewer: UserRow): Promise<UserRow[]> {
  if (!viewer.admin) return [];
  return listOrgMembers(db, viewer.org_id, { offset: 0, limit: 500 });
}

/** Names and addresses of users by id (the people shown beside attachments, comments, history, owners). */
export async function usersByIds(db: Queryable, ids: number[]) {
  return findUsersByIds(db, ids);
}

/**
 * include=ownerInfo on a list (List Sheets, Reports and Dashboards; folder, workspace and Home
 * contents; children): the owners' addresses by user id, read for the whole list at once (one
 * query per 500 distinct owners, not one per item). Without ownerInfo nothing is read.
 */
export async function ownerEmails(db: Queryable, ro: ReadOptions, ownerIds: Iterable<number>): Promise<ReadonlyMap<number, string> | undefined> {
  if (!ro.include.has('ownerInfo')) return undefined;
  const ids = [...new Set(ownerIds)];
  const out = new Map<number, string>();
  for (const part of chunks(ids)) {
    for (const u of await findUsersByIds(db, part)) out.set(u.id, u.email);
  }
  return out;
}

/** What Get Current User shows besides the caller's own row. */
export interface CurrentUserExtras {
  alternateEmails: AlternateEmailRow[];
  profileImage: ProfileImage | undefined;
  groups: Awaited<ReturnType<typeof groupsOfUser>> | undefined;
}

/**
 * What Get Current User shows besides the caller's own row: at once when it is at hand (read with
 * the token on PostgreSQL, kept on SQLite) and no groups are asked for, else as a promise.
 */
export function readCurrentUser(db: Queryable, actor: Actor, withGroups: boolean): CurrentUserExtras | Promise<CurrentUserExtras> {
  const me = actor.user;
  if (!withGroups) {
    // on PostgreSQL the request's token read brought the alternate addresses and the profile image
    const pre = ownExtrasReadWithToken(actor);
    if (pre !== undefined) return { alternateEmails: pre.alternate_emails, profileImage: imageOf(pre.profile_image ?? undefined), groups: undefined };
    const alternateEmails = keptAlternateEmails(db, me.id);
    const image = keptProfileImage(db, me.id);
    if (alternateEmails !== NOT_KEPT && image !== NOT_KEPT) return { alternateEmails, profileImage: imageOf(image), groups: undefined };
  }
  return readCurrentUserNow(db, actor, withGroups);
}

async function readCurrentUserNow(db: Queryable, actor: Actor, withGroups: boolean): Promise<CurrentUserExtras> {
  const me = actor.user;
  const pre = ownExtrasReadWithToken(actor);
  const alternateEmails = pre !== undefined ? pre.alternate_emails : await listAlternateEmails(db, me.id);
  const profileImage = pre !== undefined ? imageOf(pre.profile_image ?? undefined) : await profileImageOf(db, me.id);
  const groups = withGroups ? await groupsOfUser(db, me.id) : undefined;
  return { alternateEmails, profileImage, groups };
}

function imageOf(r: { image_id: string; width: number; height: number } | undefined): ProfileImage | undefined {
  return r && { imageId: r.image_id, width: r.width, height: r.height };
}

