import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { clusterSkip, startCluster, type Cluster } from '../helpers/cluster.ts';
import { client, type Client } from '../helpers/http.ts';
import { makeSheet } from '../helpers/sheets.ts';

/**
 * Three processes behind HAProxy (round robin): what one process writes, the next one reads at
 * once, whether the request goes through the load balancer or straight to a process.
 */
let c: Cluster;
before(async () => {
  if (!clusterSkip) c = await startCluster(3, { SHEETD_RATE_LIMIT: '100000' });
});
after(async () => {
  if (c) await c.stop();
});

test('a write on one process is read on the next at once (each process in turn)', { skip: clusterSkip }, async () => {
  const p = [1, 2, 3].map((i) => client(c.processBase(i), c.adminToken));
  const s = await makeSheet(p[0]!, 'consistency', [{ title: 'Name', type: 'TEXT_NUMBER', primary: true }, { title: 'N', type: 'TEXT_NUMBER' }]);
  const add = await p[0]!.post(`/sheets/${s.id}/rows`, [{ toBottom: true, cells: [{ columnId: s.col.Name!.id, value: 'row' }] }]);
  assert.equal(add.status, 200, add.text);
  const rowId = add.body.result[0].id as number;
  for (let i = 0; i < 30; i++) {
    const writer = p[i % 3]!;
    const reader = p[(i + 1) % 3]!;
    const w = await writer.put(`/sheets/${s.id}/rows`, [{ id: rowId, cells: [{ columnId: s.col.N!.id, value: i }] }]);
    assert.equal(w.status, 200, w.text);
    const r = await reader.get(`/sheets/${s.id}/rows/${rowId}`);
    assert.equal(r.status, 200, r.text);
    const cell = (r.body.cells as Array<{ columnId: number; value?: unknown }>).find((x) => x.columnId === s.col.N!.id);
    assert.equal(cell?.value, i, `write ${i} read on the next process`);
    // the sheet's structure too: a renamed column is seen by the next process (its cached sheet is stale)
    if (i % 10 === 0) {
      const rn = await writer.put(`/sheets/${s.id}/columns/${s.col.N!.id}`, { title: `N${i}` });
      assert.equal(rn.status, 200, rn.text);
      const sheet = await reader.get(`/sheets/${s.id}`);
      assert.equal(sheet.body.columns.find((x: { id: number }) => x.id === s.col.N!.id).title, `N${i}`);
    }
  }
});

test('through the load balancer: every request reads what the one before wrote', { skip: clusterSkip }, async () => {
  const api = client(c.base, c.adminToken);
  const s = await makeSheet(api, 'through the balancer', [{ title: 'Name', type: 'TEXT_NUMBER', primary: true }]);
  const ids: number[] = [];
  for (let i = 0; i < 20; i++) {
    const r = await api.post(`/sheets/${s.id}/rows`, [{ toBottom: true, cells: [{ columnId: s.col.Name!.id, value: `r${i}` }] }]);
    assert.equal(r.status, 200, r.text);
    ids.push(r.body.result[0].id);
    const got = await api.get(`/sheets/${s.id}`);
    assert.deepEqual(got.body.rows.map((x: { id: number }) => x.id), ids);
  }
  const del = await api.del(`/sheets/${s.id}/rows?ids=${ids.slice(0, 10).join(',')}`);
  assert.equal(del.status, 200, del.text);
  for (let i = 0; i < 3; i++) {
    const got = await api.get(`/sheets/${s.id}`);
    assert.deepEqual(got.body.rows.map((x: { id: number }) => x.id), ids.slice(10));
  }
});

test('the load balancer spreads requests over every process', { skip: clusterSkip }, async () => {
  // each process counts its own requests on /metrics; after 30 requests through the balancer
  // every process has answered some
  const before = await Promise.all([1, 2, 3].map((i) => requestsOf(c.processBase(i))));
  const api = client(c.base, c.adminToken);
  for (let i = 0; i < 30; i++) assert.equal((await api.get('/users/me')).status, 200);
  const afterCounts = await Promise.all([1, 2, 3].map((i) => requestsOf(c.processBase(i))));
  const served = afterCounts.map((n, i) => n - before[i]!);
  assert.ok(served.every((n) => n >= 5), `requests per process: ${served.join(', ')}`);
});

/** The requests a process has counted for GET /users/me, from its /metrics. */
async function requestsOf(base: string): Promise<number> {
  const text = await (await fetch(base.replace(/\/2\.0$/, '') + '/metrics')).text();
  let n = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || !line.includes('/users/me')) continue;
    if (!/_count\{|_total\{/.test(line)) continue;
    n += Number(line.split(' ').pop());
  }
  return n;
}

test('a cell link ended by a write on another process leaves the source (linksOutToCells)', { skip: clusterSkip }, async () => {
  const p = [1, 2, 3].map((i) => client(c.processBase(i), c.adminToken));
  const src = await makeSheet(p[0]!, 'link source', [{ title: 'Name', type: 'TEXT_NUMBER', primary: true }, { title: 'Price', type: 'TEXT_NUMBER' }]);
  const dst = await makeSheet(p[0]!, 'link target', [{ title: 'Name', type: 'TEXT_NUMBER', primary: true }, { title: 'Total', type: 'TEXT_NUMBER' }]);
  const sr = await p[0]!.post(`/sheets/${src.id}/rows`, [{ toBottom: true, cells: [{ columnId: src.col.Price!.id, value: 5 }] }]);
  const dr = await p[0]!.post(`/sheets/${dst.id}/rows`, [{ toBottom: true, cells: [{ columnId: dst.col.Name!.id, value: 'x' }] }]);
  const srcRow = sr.body.result[0].id as number;
  const dstRow = dr.body.result[0].id as number;
  const linksOut = async (api: Client) => {
    const r = await api.get(`/sheets/${src.id}/rows/${srcRow}`);
    return (r.body.cells as Array<{ columnId: number; linksOutToCells?: unknown[] }>).find((x) => x.columnId === src.col.Price!.id)?.linksOutToCells;
  };
  const link = await p[0]!.put(`/sheets/${dst.id}/rows`, { id: dstRow, cells: [{ columnId: dst.col.Total!.id, value: null, linkInFromCell: { sheetId: src.id, rowId: srcRow, columnId: src.col.Price!.id } }] });
  assert.equal(link.status, 200, link.text);
  assert.equal((await linksOut(p[2]!))?.length, 1);
  // the process that ends the link has not seen the sheet since the link was made
  const end = await p[1]!.put(`/sheets/${dst.id}/rows`, { id: dstRow, cells: [{ columnId: dst.col.Total!.id, value: 1 }] });
  assert.equal(end.status, 200, end.text);
  for (const api of p) assert.equal(await linksOut(api), undefined);
});
