import assert from 'node:assert/strict';
import type { TestServer } from './server.ts';
import { createToken } from '../../src/services/identity/tokens.ts';
import { findUserByEmail } from '../../src/store/users.ts';

/** A new raw token for an existing user of the server's organization (all scopes unless given). */
export async function tokenFor(t: TestServer, email: string, opts: Partial<Parameters<typeof createToken>[3]> = {}): Promise<string> {
  const db = t.server.store.db;
  const u = await findUserByEmail(db, email);
  assert.ok(u, email);
  const tok = await createToken(db, { orgId: u.org_id, userId: null, requestUserId: null, accessTokenName: null, source: 'TEST' }, u.id, { name: 'test', ...opts });
  return tok.raw;
}
