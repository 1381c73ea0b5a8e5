import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { clusterSkip, startCluster, type Cluster } from '../helpers/cluster.ts';
import { client } from '../helpers/http.ts';

/**
 * The rate limit is one budget per token for the whole cluster (counted in Redis), not one per
 * process: three processes with 12 requests a minute answer 12 requests of a token, not 36.
 */
const LIMIT = 12;
let c: Cluster;
before(async () => {
  if (!clusterSkip) c = await startCluster(3, { SHEETD_RATE_LIMIT: String(LIMIT) });
});
after(async () => {
  if (c) await c.stop();
});

test('requests spread over three processes share one limit per token', { skip: clusterSkip }, async () => {
  // one request to each process in turn, straight and through the balancer alike
  const bases = [c.processBase(1), c.processBase(2), c.processBase(3), c.base];
  const statuses: number[] = [];
  for (let i = 0; i < LIMIT + 6; i++) {
    const r = await client(bases[i % bases.length]!, c.adminToken).get('/users/me');
    statuses.push(r.status);
    if (r.status === 429) {
      assert.equal(r.body.errorCode, 4003);
      assert.ok(Number(r.headers.get('retry-after')) > 0, 'Retry-After');
    }
  }
  // a request may straddle a minute's boundary: then the count starts again once
  const ok = statuses.filter((s) => s === 200).length;
  assert.ok(ok === LIMIT || ok === LIMIT * 2, `answered ${ok} of ${statuses.length}: ${statuses.join(',')}`);
  assert.equal(statuses.filter((s) => s !== 200 && s !== 429).length, 0, statuses.join(','));
  if (ok === LIMIT) assert.deepEqual(statuses.slice(LIMIT), Array(6).fill(429), 'every process refuses once the shared budget is spent');
});
