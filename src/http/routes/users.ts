import type { FastifyInstance } from 'fastify';
import { userProfile } from '../present/users.ts';

export async function userRoutes(app: FastifyInstance): Promise<void> {
  // Any valid token may call Get Current User, whatever its scopes (spec section 5).
  app.get('/users/me', { config: { scope: null } }, async (req) => {
    const { user, org } = req.actor;
    const profile = userProfile(user, org, req.ro, { viewerIsAdmin: !!user.admin });
    if (req.ro.include.has('groups')) profile.groups = [];
    return profile;
  });
}
