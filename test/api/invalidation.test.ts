import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Redis } from 'ioredis';
import { serverForFile } from '../helpers/setup.ts';
import { TEST_REDIS_URL } from '../helpers/server.ts';
import { spawnServer } from '../helpers/process.ts';
import { client } from '../helpers/http.ts';
import { cellOf, makeSheet } from '../helpers/sheets.ts';
import { randomString } from '../../src/ids.ts';

const s0 = serverForFile();

/** The sheet models a process dropped because another one announced a newer version (its /metrics). */
async function invalidated(base: string): Promise<number> {
  const text = await (await fetch(new URL('/metrics', base))).text();
  const line = text.split('\n').find((l) => l.startsWith('sheetd_sheet_cache_invalidated_total '));
  assert.ok(line, 'sheetd_sheet_cache_invalidated_total in /metrics');
  return Number(line.split(' ')[1]);
}

test('two sheetd processes with Redis: a write through one is announced to the other, which drops its older copy, and read there at once', { skip: !TEST_REDIS_URL && 'SHEETD_TEST_REDIS_URL not set' }, async () => {
  const prefix = `sheetd-test-${randomString(8)}:`;
  const env = { SHEETD_DATA_DIR: s0.t.dataDir, REDIS_URL: TEST_REDIS_URL!, SHEETD_REDIS_PREFIX: prefix, ...(s0.t.config.databaseUrl ? { DATABASE_URL: s0.t.config.databaseUrl } : {}) };
  const [pa, pb] = await Promise.all([spawnServer(env), spawnServer(env)]);
  const listener = new Redis(TEST_REDIS_URL!);
  const heard: string[] = [];
  try {
    await listener.subscribe(`${prefix}sheets`);
    listener.on('message', (_c: string, m: string) => heard.push(m));
    const a = client(pa.base, s0.t.adminToken);
    const b = client(pb.base, s0.t.adminToken);
    const s = await makeSheet(a, 'shared', [{ title: 'N', type: 'TEXT_NUMBER', primary: true }]);
    const N = s.col.N!.id;
    const added = await a.post(`/sheets/${s.id}/rows`, { toBottom: true, cells: [{ columnId: N, value: 'v0' }] });
    assert.equal(added.status, 200);
    const rowId = added.body.result.id as number;
    for (let i = 1; i <= 6; i++) {
      // both processes hold the sheet in memory, then one of them writes
      const [writer, reader] = i % 2 === 1 ? [a, b] : [b, a];
      const readerBase = i % 2 === 1 ? pb.base : pa.base;
      assert.equal((await reader.get(`/sheets/${s.id}`)).status, 200);
      assert.equal((await writer.get(`/sheets/${s.id}`)).status, 200);
      const dropped = await invalidated(readerBase);
      const w = await writer.put(`/sheets/${s.id}/rows`, { id: rowId, cells: [{ columnId: N, value: `v${i}` }] });
      assert.equal(w.status, 200, JSON.stringify(w.body));
      const deadline = Date.now() + 10_000;
      while (!heard.some((m) => m.endsWith(` ${s.id} ${w.body.version}`)) && Date.now() < deadline) await new Promise((res) => setTimeout(res, 10));
      assert.ok(heard.some((m) => m.endsWith(` ${s.id} ${w.body.version}`)), `no invalidation of version ${w.body.version} in ${JSON.stringify(heard)}`);
      // the reader's subscriber drops the older model it holds (its version check alone would keep it until the next read)
      while ((await invalidated(readerBase)) === dropped && Date.now() < deadline) await new Promise((res) => setTimeout(res, 10));
      assert.equal(await invalidated(readerBase), dropped + 1, 'the other process dropped its older model');
      const r = await reader.get(`/sheets/${s.id}`);
      assert.equal(r.body.version, w.body.version);
      assert.equal(cellOf(r.body.rows[0], N).value, `v${i}`);
    }
  } finally {
    listener.disconnect();
    await Promise.all([pa.close(), pb.close()]);
  }
});
