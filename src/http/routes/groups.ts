import type { FastifyInstance } from 'fastify';
import { group, groupDetail, groupMember } from '../present/groups.ts';
import { one, paging, pathId, type Query } from '../query.ts';
import { indexResult } from '../paging.ts';
import { success } from '../present/envelope.ts';
import { parseTimestamp } from '../present/dates.ts';
import { addMembers, changeGroup, createGroup, readGroup, readGroups, removeGroup, removeMember } from '../../services/identity/groups.ts';

export async function groupRoutes(app: FastifyInstance): Promise<void> {
  const db = () => app.ctx.store.db;
  const store = () => app.ctx.store;
  const groupId = (params: unknown) => pathId((params as { groupId: string }).groupId);

  app.get('/groups', { config: { scope: 'READ_USERS' } }, async (req) => {
    const q = req.query as Query;
    const p = paging(q);
    const since = one(q, 'modifiedSince');
    const modifiedSince = since !== undefined ? parseTimestamp(since, req.ro.numericDates, 'modifiedSince') : undefined;
    const r = await readGroups(db(), req.actor, p, modifiedSince);
    return indexResult(r.total, p, r.rows.map((g) => group(g, req.ro)));
  });

  app.post('/groups', { config: { scope: 'ADMIN_USERS', body: 'required' } }, async (req) => {
    const d = await createGroup(store(), req.actor, req.body);
    return success(groupDetail(d.group, d.members, req.ro));
  });

  app.get('/groups/:groupId', { config: { scope: 'READ_USERS' } }, async (req) => {
    const d = await readGroup(db(), req.actor, groupId(req.params));
    return groupDetail(d.group, d.members, req.ro);
  });

  app.put('/groups/:groupId', { config: { scope: 'ADMIN_USERS', body: 'required' } }, async (req) => {
    const id = groupId(req.params);
    const g = await changeGroup(store(), req.actor, id, req.body);
    return success(group(g, req.ro));
  });

  app.delete('/groups/:groupId', { config: { scope: 'ADMIN_USERS' } }, async (req) => {
    const id = groupId(req.params);
    await removeGroup(store(), req.actor, id);
    return success();
  });

  app.post('/groups/:groupId/members', { config: { scope: 'ADMIN_USERS', body: 'required' } }, async (req) => {
    const id = groupId(req.params);
    const r = await addMembers(store(), req.actor, id, req.body);
    const members = r.added.map((u) => groupMember(u));
    return r.single ? success(members[0]) : success(members);
  });

  app.delete('/groups/:groupId/members/:userId', { config: { scope: 'ADMIN_USERS' } }, async (req) => {
    const id = groupId(req.params);
    const userId = pathId((req.params as { userId: string }).userId);
    await removeMember(store(), req.actor, id, userId);
    return success();
  });
}
