import assert from 'node:assert/strict';
import os from 'node:os';
import { after, before, test } from 'node:test';
import { clusterSkip, startCluster, type Cluster } from '../helpers/cluster.ts';
import { assertError, client, type Client } from '../helpers/http.ts';
import { openStore, type Store } from '../../src/store/db.ts';
import { createToken } from '../../src/services/identity/tokens.ts';
import { findUserByEmail } from '../../src/store/users.ts';
import { randomString } from '../../src/ids.ts';

/**
 * Three processes on one PostgreSQL: a token revoked or a user deactivated through one process
 * is refused by the others at once, while they are busy authenticating other requests (whose
 * tokens they read together, store/batchedReads.ts).
 */
let c: Cluster;
let store: Store;
before(async () => {
  if (clusterSkip) return;
  c = await startCluster(3, { SHEETD_RATE_LIMIT: '100000' });
  store = await openStore({ databaseUrl: c.databaseUrl, dataDir: os.tmpdir() });
});
after(async () => {
  if (store) await store.close();
  if (c) await c.stop();
});

async function newUser(admin: Client, email: string): Promise<{ id: number; token: string }> {
  const res = await admin.post('/users', { email });
  assert.equal(res.status, 200, res.text);
  const u = await findUserByEmail(store.db, email);
  assert.ok(u);
  const tok = await createToken(store.db, { orgId: u.org_id, userId: null, requestUserId: null, accessTokenName: null, source: 'TEST' }, u.id, { name: 'test' });
  return { id: u.id, token: tok.raw };
}

test('revoked on one process, refused by the others at once while they serve other requests', { skip: clusterSkip }, async () => {
  const admin = [1, 2, 3].map((i) => client(c.processBase(i), c.adminToken));
  const tag = randomString(6).toLowerCase();
  const busy = await newUser(admin[0]!, `busy.${tag}@corp.example`);
  const victims: Array<{ id: number; token: string }> = [];
  for (let i = 0; i < 4; i++) victims.push(await newUser(admin[0]!, `victim.${tag}.${i}@corp.example`));

  // other requests keep processes 2 and 3 authenticating all along
  let stop = false;
  const load = [2, 3].flatMap((p) => Array.from({ length: 4 }, async () => {
    const api = client(c.processBase(p), busy.token);
    while (!stop) assert.equal((await api.get('/users/me')).status, 200);
  }));
  try {
    for (let i = 0; i < victims.length; i++) {
      const v = victims[i]!;
      for (const p of [2, 3]) assert.equal((await client(c.processBase(p), v.token).get('/users/me')).body.id, v.id);
      if (i % 2 === 0) {
        // DELETE /token revokes the caller's own token
        assert.equal((await client(c.processBase(1), v.token).del('/token')).status, 200);
      } else {
        assert.equal((await admin[0]!.post(`/users/${v.id}/deactivate`)).status, 200);
      }
      for (const p of [2, 3]) {
        const asked = await Promise.all(Array.from({ length: 5 }, () => client(c.processBase(p), v.token).get('/users/me')));
        for (const res of asked) assertError(res, 401, 1002);
      }
    }
  } finally {
    stop = true;
    await Promise.all(load);
  }
});
