import type { FastifyInstance, FastifyRequest } from 'fastify';
import { alternateEmail, user, userProfile } from '../present/users.ts';
import { bool, int, list, one, paging, pathId, tokenPaging, type Query } from '../query.ts';
import { indexResult, paginate, streamResult, tokenSlice } from '../paging.ts';
import { success, successData } from '../present/envelope.ts';
import { parseTimestamp } from '../present/dates.ts';
import {
  addUser, deactivateUser, getUser, listUsers, orgSheets, profileImageOf, reactivateUser, readCurrentUser, removeUser, setProfileImage, updateUser, type CurrentUserExtras,
} from '../../services/identity/users.ts';
import { makePasswordLink } from '../../services/identity/passwordLinks.ts';
import { ts } from '../present/dates.ts';
import { Readable } from 'node:stream';
import { apiError } from '../../errors.ts';
import { answeringEarly, fileByDisposition, streamingParser } from '../uploads.ts';
import { downgradeUserPlan, listUserPlans, removeUserFromPlan, upgradeUserPlan, type UserPlan } from '../../services/identity/plans.ts';
import {
  addAlternateEmails, makePrimary, readAlternateEmail, readAlternateEmails, removeAlternateEmail,
} from '../../services/identity/alternateEmails.ts';

// Beyond this many users on a page, List Users leaves lastLogin out (as the public service does).
const LAST_LOGIN_PAGE_MAX = 100;

/** A plan of List User Plans: planName only with include=planName; VIEWER as CONTRIBUTOR when asked. */
function userPlan(p: UserPlan, q: Query) {
  const include = list(q, 'include');
  const out: Record<string, unknown> = { planId: p.planId };
  if (include.includes('planName')) out.planName = p.planName;
  out.seatType = p.seatType === 'VIEWER' && bool(q, 'displayContributorSeatType') ? 'CONTRIBUTOR' : p.seatType;
  out.isInternal = p.isInternal;
  return out;
}

export async function userRoutes(app: FastifyInstance): Promise<void> {
  const db = () => app.ctx.store.db;
  const store = () => app.ctx.store;

  // Any valid token may call Get Current User, whatever its scopes (spec section 5).
  // not async: what it shows is usually at hand (readCurrentUser), and then answered in the same turn
  app.get('/users/me', { config: { scope: null } }, (req) => {
    const extras = readCurrentUser(db(), req.actor, req.ro.include.has('groups'));
    return extras instanceof Promise ? extras.then((e) => currentUser(req, e)) : currentUser(req, extras);
  });
  /** Get Current User's answer. */
  const currentUser = (req: FastifyRequest, extras: CurrentUserExtras) => {
    const { user: me, org } = req.actor;
    // sheetCount is a static 0 here, as the reference documents for this operation
    const profile = userProfile(me, org, req.ro, {
      showRoles: true, viewerIsAdmin: !!me.admin, sheetCount: 0, alternateEmails: extras.alternateEmails,
      profileImage: extras.profileImage,
    });
    if (extras.groups) {
      profile.groups = extras.groups.map((g) => ({ id: g.id, name: g.name, description: g.description ?? undefined }));
    }
    return profile;
  };

  app.get('/users', { config: { scope: 'READ_USERS' } }, async (req) => {
    const q = req.query as Query;
    const p = paging(q);
    const emails = list(q, 'email').map((e) => e.toLowerCase());
    const viewerIsAdmin = !!req.actor.user.admin;
    const r = await listUsers(db(), req.actor, emails, p);
    const wantLast = req.ro.include.has('lastLogin') || req.ro.include.has('lastLoginTime');
    const lastLogin = wantLast && r.rows.length <= LAST_LOGIN_PAGE_MAX;
    return indexResult(r.total, p, r.rows.map((u) => user(u, req.ro, { viewerIsAdmin, sheetCount: r.counts.get(u.id) ?? 0, lastLogin })));
  });

  app.post('/users', { config: { scope: 'ADMIN_USERS', body: 'required' } }, async (req) => {
    // sendEmail is accepted; sheetd sends no invitations (users join at once)
    bool(req.query as Query, 'sendEmail');
    const created = await addUser(store(), req.actor, req.body);
    return success(user(created, req.ro, { viewerIsAdmin: true, sheetCount: 0 }));
  });

  app.get('/users/sheets', { config: { scope: 'ADMIN_USERS' } }, async (req) => {
    const q = req.query as Query;
    const p = paging(q);
    const since = one(q, 'modifiedSince');
    const modifiedSince = since !== undefined ? parseTimestamp(since, req.ro.numericDates, 'modifiedSince') : undefined;
    const offset = p.pageSize === null ? 0 : (p.page - 1) * p.pageSize;
    const rows = await orgSheets(db(), req.actor, { ...(modifiedSince !== undefined ? { modifiedSince } : {}), offset, limit: p.pageSize });
    return streamResult(p, rows.map((s) => ({ id: s.id, name: s.name, owner: s.owner_email, ownerId: s.owner_id })));
  });

  app.get('/users/:userId(^\\d+$)', { config: { scope: 'READ_USERS' } }, async (req) => {
    const id = pathId((req.params as { userId: string }).userId);
    const d = await getUser(db(), req.actor, id);
    return userProfile(d.user, req.actor.org, req.ro, {
      showRoles: d.showRoles, viewerIsAdmin: !!req.actor.user.admin, status: true, sheetCount: d.sheetCount,
      alternateEmails: d.alternateEmails,
      profileImage: await profileImageOf(db(), d.user.id),
    });
  });

  // The upload's body is the image itself (as Add Image to Cell), handed on as a stream.
  const stream = streamingParser(() => app.ctx.config.bodyLimit);
  app.addContentTypeParser('application/octet-stream', stream);
  app.addContentTypeParser(/^image\/[\w.+-]+$/i, stream);
  app.post('/users/:userId(^\\d+$)/profileimage', { config: { scope: 'WRITE_SHEETS', cost: 10, body: 'required' }, onRequest: fileByDisposition }, async (req, reply) => {
    if (!(req.body instanceof Readable)) throw apiError(1124);
    const body = req.body;
    const id = pathId((req.params as { userId: string }).userId);
    const out = await answeringEarly(req, reply, () => setProfileImage(app.ctx.store, app.ctx.blobs, req.actor, id, body, app.ctx.config.bodyLimit));
    return success(userProfile(out.user, req.actor.org, req.ro, {
      showRoles: out.showRoles, viewerIsAdmin: !!req.actor.user.admin, sheetCount: 0, alternateEmails: [], profileImage: out.image,
    }));
  });

  app.put('/users/:userId(^\\d+$)', { config: { scope: 'ADMIN_USERS', body: 'required' } }, async (req) => {
    const id = pathId((req.params as { userId: string }).userId);
    const updated = await updateUser(store(), req.actor, id, req.body);
    return success(user(updated, req.ro));
  });

  app.delete('/users/:userId(^\\d+$)', { config: { scope: 'ADMIN_USERS' } }, async (req) => {
    const id = pathId((req.params as { userId: string }).userId);
    const q = req.query as Query;
    // the parameters travel in the query string (the SDKs); a JSON body is accepted too
    const b = typeof req.body === 'object' && req.body !== null && !Array.isArray(req.body) ? (req.body as Record<string, unknown>) : {};
    const fromBody = (k: string) => (b[k] === undefined || b[k] === null ? undefined : String(b[k]));
    const merged: Query = { ...Object.fromEntries(['transferTo', 'transferSheets', 'removeFromSharing'].map((k) => [k, fromBody(k)])), ...q };
    const transferTo = int(merged, 'transferTo', { min: 1 });
    await removeUser(store(), req.actor, id, {
      transferTo, transferSheets: bool(merged, 'transferSheets'), removeFromSharing: bool(merged, 'removeFromSharing'),
    });
    return success();
  });

  app.post('/users/:userId(^\\d+$)/deactivate', { config: { scope: 'ADMIN_USERS' } }, async (req) => {
    const id = pathId((req.params as { userId: string }).userId);
    await deactivateUser(store(), req.actor, id);
    return success();
  });

  app.post('/users/:userId(^\\d+$)/reactivate', { config: { scope: 'ADMIN_USERS' } }, async (req) => {
    const id = pathId((req.params as { userId: string }).userId);
    await reactivateUser(store(), req.actor, id);
    return success();
  });

  // sheetd's extension: a one-time link for the user to set their sign-in password (docs/decisions.md, Users)
  app.post('/sheetd/users/:userId(^\\d+$)/passwordlink', { config: { scope: 'ADMIN_USERS' } }, async (req) => {
    const id = pathId((req.params as { userId: string }).userId);
    const link = await makePasswordLink(store(), { publicUrl: () => app.ctx.config.publicUrl }, req.actor, id, req.body);
    return success({ userId: link.user.id, email: link.user.email, url: link.url, expiresAt: ts(link.expiresAt, req.ro.numericDates), emailed: link.emailed });
  });

  // Alternate email addresses (spec 4.4)
  app.get('/users/:userId(^\\d+$)/alternateemails', { config: { scope: 'READ_USERS' } }, async (req) => {
    const id = pathId((req.params as { userId: string }).userId);
    const rows = await readAlternateEmails(db(), req.actor, id);
    return paginate(rows.map(alternateEmail), paging(req.query as Query));
  });

  app.post('/users/:userId(^\\d+$)/alternateemails', { config: { scope: 'ADMIN_USERS', body: 'required' } }, async (req) => {
    const id = pathId((req.params as { userId: string }).userId);
    const rows = await addAlternateEmails(store(), req.actor, id, req.body);
    // `data`, as the spec and the reference give it; `result` too, where the Java and C# SDKs
    // read it (they returned null)
    const list = rows.map(alternateEmail);
    return { ...successData(list), result: list };
  });

  app.get('/users/:userId(^\\d+$)/alternateemails/:alternateEmailId', { config: { scope: 'READ_USERS' } }, async (req) => {
    const params = req.params as { userId: string; alternateEmailId: string };
    return alternateEmail(await readAlternateEmail(db(), req.actor, pathId(params.userId), pathId(params.alternateEmailId)));
  });

  app.delete('/users/:userId(^\\d+$)/alternateemails/:alternateEmailId', { config: { scope: 'ADMIN_USERS' } }, async (req) => {
    const params = req.params as { userId: string; alternateEmailId: string };
    const [userId, altId] = [pathId(params.userId), pathId(params.alternateEmailId)];
    await removeAlternateEmail(store(), req.actor, userId, altId);
    return success();
  });

  app.post('/users/:userId(^\\d+$)/alternateemails/:alternateEmailId/makeprimary', { config: { scope: 'ADMIN_USERS' } }, async (req) => {
    const params = req.params as { userId: string; alternateEmailId: string };
    const [userId, altId] = [pathId(params.userId), pathId(params.alternateEmailId)];
    const row = await makePrimary(store(), req.actor, userId, altId);
    // `data` as the spec gives it; `result`, one AlternateEmail, where the Java and C# SDKs read it
    return { ...successData([alternateEmail(row)]), result: alternateEmail(row) };
  });

  // ---- plans: the organization's one plan (services/identity/plans.ts)
  type PlanReq = { Params: { userId: string; planId: string } };
  app.get('/users/:userId(^\\d+$)/plans', { config: { scope: 'READ_USERS' } }, async (req) => {
    const q = req.query as Query;
    const include = list(q, 'include');
    // planName is the only inclusion, once (the SDK: anything else answers 400)
    if (include.some((x) => x !== 'planName') || include.length > 1) throw apiError(1018, one(q, 'include') ?? '', 'include');
    bool(q, 'displayContributorSeatType');
    const plans = await listUserPlans(db(), req.actor, pathId((req.params as { userId: string }).userId));
    const { page, lastKey } = tokenSlice(plans.map((p) => userPlan(p, q)), tokenPaging(q));
    return lastKey === undefined ? { data: page } : { data: page, lastKey };
  });
  app.post<PlanReq>('/users/:userId(^\\d+$)/plans/:planId(^\\d+$)/upgrade', { config: { scope: 'ADMIN_USERS' } }, async (req) => {
    await upgradeUserPlan(store(), req.actor, pathId(req.params.userId), pathId(req.params.planId), req.body);
    return success();
  });
  app.post<PlanReq>('/users/:userId(^\\d+$)/plans/:planId(^\\d+$)/downgrade', { config: { scope: 'ADMIN_USERS', body: 'required' } }, async (req) => {
    await downgradeUserPlan(store(), req.actor, pathId(req.params.userId), pathId(req.params.planId), req.body);
    return success();
  });
  app.delete<PlanReq>('/users/:userId(^\\d+$)/plans/:planId(^\\d+$)', { config: { scope: 'ADMIN_USERS' } }, async (req) => {
    await removeUserFromPlan(db(), req.actor, pathId(req.params.userId), pathId(req.params.planId));
  });
}
