import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { clusterSkip, startCluster, type Cluster } from '../helpers/cluster.ts';
import { client } from '../helpers/http.ts';
import { makeSheet } from '../helpers/sheets.ts';
import { openStream, type SseStream } from '../helpers/sse.ts';
import { closeAll } from '../helpers/setup.ts';

/**
 * A change stream whose process is killed (kill -9) while writers go on through the balancer:
 * the client comes back through the balancer with Last-Event-ID, reaches another process, and
 * gets every committed row exactly once, in commit order across both streams.
 */
let c: Cluster;
before(async () => {
  if (clusterSkip) return;
  c = await startCluster(3, { SHEETD_RATE_LIMIT: '100000', SHEETD_JOB_POLL_MS: '100' });
});
after(async () => {
  await closeAll(() => c?.stop());
});

test('resuming by Last-Event-ID after kill -9 of the serving process loses nothing and repeats nothing', { skip: clusterSkip, timeout: 120_000 }, async (t) => {
  const api = client(c.base, c.adminToken);
  const s = await makeSheet(api, 'stream under kill', [{ title: 'Name', type: 'TEXT_NUMBER', primary: true }]);
  // served by process 2, the one killed
  const first = await openStream(`${c.processBase(2)}/sheetd/sheets/${s.id}/changes`, { authorization: `Bearer ${c.adminToken}` });
  assert.equal(first.status, 200);
  await first.next((e) => e.event === 'hello');

  let stop = false;
  let n = 0;
  const writer = async () => {
    while (!stop) {
      await api.post(`/sheets/${s.id}/rows`, [{ toBottom: true, cells: [{ columnId: s.col.Name!.id, value: `w${n++}` }] }]).catch(() => undefined);
    }
  };
  const writers = Array.from({ length: 4 }, writer);
  const added = (st: SseStream) => st.events.filter((e) => e.event === 'rows-added').flatMap((e) => e.data.rowIds as number[]);
  // the stream is killed while it announces rows: a few have come through it first (however slow the machine)
  await first.until(() => added(first).length >= 3, 30_000, 'rows announced before the kill');
  const beforeKill = first.events.filter((e) => e.event === 'rows-added').length;
  await c.kill(2);
  await first.ended;
  const lastId = first.lastEventId();
  assert.ok(lastId !== null);
  const second: SseStream = await openStream(`${c.base}/sheetd/sheets/${s.id}/changes`, { authorization: `Bearer ${c.adminToken}`, 'last-event-id': lastId });
  assert.equal(second.status, 200);
  // writers go on until rows written after the resume have come through the new stream too
  const resumedAt = added(second).length;
  await second.until(() => added(second).length >= resumedAt + 3, 30_000, 'rows announced after resuming');
  stop = true;
  await Promise.all(writers);

  const rows = ((await api.get(`/sheets/${s.id}?pageSize=100000`)).body.rows as Array<{ id: number }>).map((r) => r.id);
  await second.until(() => added(first).length + added(second).length >= rows.length, 30_000, 'every committed row');
  await new Promise((r) => setTimeout(r, 500));
  const all = [...added(first), ...added(second)];
  t.diagnostic(`${rows.length} rows; ${added(first).length} announced before the kill (${beforeKill} events), ${added(second).length} after resuming`);
  assert.ok(added(first).length > 0 && added(second).length > 0, 'rows arrived on both streams');
  assert.equal(new Set(all).size, all.length, 'no row announced twice');
  assert.deepEqual([...all].sort(), [...rows].sort(), 'every committed row announced');
  // in commit order: the rows were added at the bottom, so announcements follow the sheet's order
  assert.deepEqual(all, rows);
  const ids = [...first.events, ...second.events].filter((e) => e.event === 'rows-added').map((e) => Number(e.id));
  assert.deepEqual([...ids].sort((a, b) => a - b), ids);
  second.close();
  await c.restart(2);
});
