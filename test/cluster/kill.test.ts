import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { clusterSkip, startCluster, webhookClusterEnv, type Cluster } from '../helpers/cluster.ts';
import { client } from '../helpers/http.ts';
import { makeSheet } from '../helpers/sheets.ts';
import { startReceiver, type Receiver } from '../helpers/webhookReceiver.ts';
import { closeAll } from '../helpers/setup.ts';

/**
 * kill -9 of one of three processes while clients write through the load balancer: requests in
 * flight on the killed process fail (502 from HAProxy, or the connection drops), every write
 * that was acknowledged is kept, and every committed row reaches the webhook subscriber.
 */
let c: Cluster;
let rx: Receiver;
before(async () => {
  if (clusterSkip) return;
  rx = await startReceiver();
  c = await startCluster(3, webhookClusterEnv(rx));
});
after(async () => {
  await closeAll(() => c?.stop(), () => rx?.close());
});

type Ev = { objectType: string; eventType: string; id?: number };

test('kill -9 under a write load: no acknowledged write and no callback is lost', { skip: clusterSkip }, async (t) => {
  const api = client(c.base, c.adminToken);
  const s = await makeSheet(api, 'under load', [{ title: 'Name', type: 'TEXT_NUMBER', primary: true }]);
  const h = (await api.post('/webhooks', { name: 'load', callbackUrl: rx.url, scope: 'sheet', scopeObjectId: s.id, events: ['*.*'], version: 1 })).body.result;
  assert.equal((await api.put(`/webhooks/${h.id}`, { enabled: true })).body.result?.status, 'ENABLED');

  const acked: number[] = [];
  const failed: string[] = [];
  let stop = false;
  let n = 0;
  const writer = async () => {
    while (!stop) {
      const v = `w${n++}`;
      try {
        const r = await api.post(`/sheets/${s.id}/rows`, [{ toBottom: true, cells: [{ columnId: s.col.Name!.id, value: v }] }]);
        if (r.status === 200) acked.push(r.body.result[0].id);
        else failed.push(`${r.status} ${r.text.slice(0, 80)}`);
      } catch (e) {
        failed.push(String((e as Error).message));
      }
    }
  };
  // each process's first Add Rows pays for one-time work (with the suite's answer check, compiling
  // the answer's schema): warm them all up so that the 1.5 s before the kill measures steady writes
  for (let i = 0; i < 9; i++) assert.equal((await api.post(`/sheets/${s.id}/rows`, [{ toBottom: true, cells: [{ columnId: s.col.Name!.id, value: `warm${i}` }] }])).status, 200);
  const writers = Array.from({ length: 6 }, writer);
  // the load is under way (at least 1.5 s and 10 writes), the kill, then at least 3 s (HAProxy
  // finds the process down meanwhile) and 10 more writes; counts, not times, so that a slow or
  // busy machine (7 writes in the first 1.5 s in one CI run) only takes longer
  const atLeast = async (ms: number, ok: () => boolean, what: string) => {
    const from = Date.now();
    while (Date.now() - from < ms || !ok()) {
      if (Date.now() - from > ms + 60_000) assert.fail(`${what}: ${acked.length} writes acknowledged`);
      await new Promise((res) => setTimeout(res, 50));
    }
  };
  await atLeast(1500, () => acked.length > 10, 'writes before the kill');
  const before = acked.length;
  await c.kill(2);
  await atLeast(3000, () => acked.length > before + 10, 'writes after the kill');
  stop = true;
  await Promise.all(writers);
  t.diagnostic(`acknowledged ${acked.length} writes (${before} before the kill); failed ${failed.length}: ${[...new Set(failed)].join('; ')}`);
  assert.ok(before > 10 && acked.length > before + 10, `writes went on after the kill: ${before} then ${acked.length}`);
  // what a client sees: only failures of requests that were on the killed process
  for (const f of failed) assert.match(f, /^50[23] |fetch failed|socket|ECONNRESET/, f);
  assert.ok(failed.length <= 6 * 2, `failed: ${failed.join('; ')}`);

  // every acknowledged write is there (read on each of the processes still running)
  for (const base of [c.base, c.processBase(1), c.processBase(3)]) {
    const got = await client(base, c.adminToken).get(`/sheets/${s.id}?pageSize=100000`);
    assert.equal(got.status, 200, got.text);
    const have = new Set(got.body.rows.map((x: { id: number }) => x.id));
    const missing = acked.filter((id) => !have.has(id));
    assert.deepEqual(missing, [], 'acknowledged rows are kept');
  }
  // every committed row (acknowledged or not) reaches the subscriber
  const all = (await api.get(`/sheets/${s.id}?pageSize=100000`)).body.rows.map((x: { id: number }) => x.id) as number[];
  const announced = () => new Set(rx.callbacks(h.id).flatMap((x) => (x.json.events as Ev[]) ?? []).filter((e) => e.objectType === 'row' && e.eventType === 'created').map((e) => e.id!));
  await rx.waitFor(() => all.every((id) => announced().has(id)), 30_000, 'a callback for every row');
  assert.equal(all.length, announced().size, 'no callback for a row that is not there');

  // the killed process comes back and serves again
  await c.restart(2);
  const again = await client(c.processBase(2), c.adminToken).get(`/sheets/${s.id}?pageSize=100000`);
  assert.equal(again.body.rows.length, all.length);
});
