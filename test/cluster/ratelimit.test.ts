import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { clusterSkip, startCluster, type Cluster } from '../helpers/cluster.ts';
import { client } from '../helpers/http.ts';

/**
 * The rate limit is one budget per token for the whole cluster (counted in Redis), not one per
 * process: three processes with 12 requests a minute answer 12 requests of a token at once, not 36.
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
  const started = Date.now();
  for (let i = 0; i < LIMIT + 6; i++) {
    const r = await client(bases[i % bases.length]!, c.adminToken).get('/users/me');
    statuses.push(r.status);
    if (r.status === 429) {
      assert.equal(r.body.errorCode, 4003);
      const retry = Number(r.headers.get('retry-after'));
      assert.ok(Number.isInteger(retry) && retry >= 1 && retry <= 60 / LIMIT, `Retry-After ${retry}`);
    }
  }
  // the budget is rolling: one request comes back every 60 / LIMIT s, so a slow run may see
  // one more pass for each such interval it took
  const backSince = Math.floor((Date.now() - started) / ((60 * 1000) / LIMIT));
  const ok = statuses.filter((s) => s === 200).length;
  assert.deepEqual(statuses.slice(0, LIMIT), Array(LIMIT).fill(200), statuses.join(','));
  assert.ok(ok >= LIMIT && ok <= LIMIT + backSince, `answered ${ok} of ${statuses.length}: ${statuses.join(',')}`);
  assert.equal(statuses.filter((s) => s !== 200 && s !== 429).length, 0, statuses.join(','));
});
