import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { serverForFile } from '../helpers/setup.ts';
import { makeSheet } from '../helpers/sheets.ts';
import type { Client } from '../helpers/http.ts';

const s0 = serverForFile();

interface Ev { eventId: string; objectType: string; action: string; objectId: number; additionalDetails: Record<string, unknown> }

/** Pages GET /events from a backfill of the last hour to its end: the events and the position after them. */
async function backfill(api: Client): Promise<{ events: Ev[]; position: string }> {
  let res = await api.get('/events?maxCount=10000&since=' + encodeURIComponent(new Date().toISOString()));
  const events: Ev[] = [];
  while (true) {
    assert.equal(res.status, 200, JSON.stringify(res.body));
    events.push(...(res.body.data as Ev[]));
    if (!res.body.moreAvailable) return { events, position: res.body.nextStreamPosition as string };
    res = await api.get('/events?maxCount=10000&streamPosition=' + res.body.nextStreamPosition);
  }
}

/**
 * PostgreSQL: every transaction that appends events sleeps a random moment before it commits,
 * so transactions holding lower sequence numbers commit after ones holding higher numbers (the
 * case a reader paging by insertion order would skip).
 */
async function slowCommits(databaseUrl: string): Promise<void> {
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  await c.query(`create function test_slow_commit() returns trigger language plpgsql as $$
    begin perform pg_sleep(random() * 0.02); return null; end $$`);
  await c.query('create trigger test_slow_commit after insert on events for each statement execute function test_slow_commit()');
  await c.end();
}

test('a reader following streamPosition during concurrent writes sees every event exactly once, in commit order', async () => {
  const api = s0.api;
  const WRITERS = 6;
  const STEPS = 10;
  const shared = await makeSheet(api, 'shared', [{ title: 'N', type: 'TEXT_NUMBER', primary: true }]);
  const N = shared.col.N!.id;
  const added = await api.post(`/sheets/${shared.id}/rows`, Array.from({ length: WRITERS * STEPS }, (_, i) => ({ toBottom: true, cells: [{ columnId: N, value: `r${i}` }] })));
  assert.equal(added.status, 200, JSON.stringify(added.body));
  const rowIds = (added.body.result as Array<{ id: number }>).map((r) => r.id);
  const own = await Promise.all(Array.from({ length: WRITERS }, (_, w) => makeSheet(api, `own${w}-0`, [{ title: 'N', type: 'TEXT_NUMBER', primary: true }])));
  if (s0.t.config.databaseUrl) await slowCommits(s0.t.config.databaseUrl);

  const before = await backfill(api);
  let writing = true;
  const seen: Ev[] = [];
  const reader = (async () => {
    let position = before.position;
    let last = false;
    // after the writers finish: read on until a read returns nothing more
    while (!last) {
      last = !writing;
      const res = await api.get(`/events?maxCount=7&streamPosition=${position}`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      seen.push(...(res.body.data as Ev[]));
      position = res.body.nextStreamPosition as string;
      if (res.body.moreAvailable) last = false;
    }
  })();

  // each writer, one request after the other: updates its own rows of the shared sheet (one
  // sheet lock, so the versions in the answers are the commit order), renames its own sheet
  // and adds a row to it (no common lock: these commit concurrently with everything else)
  const versionOfRow = new Map<number, number>();
  const writers = Array.from({ length: WRITERS }, async (_, w) => {
    for (let k = 0; k < STEPS; k++) {
      const rowId = rowIds[w * STEPS + k]!;
      const [upd, ren, add] = await Promise.all([
        api.put(`/sheets/${shared.id}/rows`, { id: rowId, cells: [{ columnId: N, value: `w${w}k${k}` }] }),
        api.put(`/sheets/${own[w]!.id}`, { name: `own${w}-${k + 1}` }),
        api.post(`/sheets/${own[w]!.id}/rows`, { toBottom: true, cells: [{ columnId: own[w]!.col.N!.id, value: k }] }),
      ]);
      for (const r of [upd, ren, add]) assert.equal(r.status, 200, JSON.stringify(r.body));
      versionOfRow.set(rowId, upd.body.version as number);
    }
  });
  try {
    await Promise.all(writers);
  } finally {
    writing = false;
  }
  await reader;

  const after = await backfill(api);
  const earlier = new Set(before.events.map((e) => e.eventId));
  const expected = after.events.filter((e) => !earlier.has(e.eventId)).map((e) => e.eventId);
  const ids = seen.map((e) => e.eventId);
  assert.equal(new Set(ids).size, ids.length, 'an event was read twice');
  assert.deepEqual([...ids].sort(), [...expected].sort(), 'the reader missed events (or saw foreign ones)');
  assert.equal(ids.length, WRITERS * STEPS * 3);

  // the shared sheet's writes in the order of their commits (their versions)
  const updates = seen.filter((e) => e.objectType === 'ROW' && e.action === 'UPDATE' && versionOfRow.has(e.objectId));
  assert.equal(updates.length, WRITERS * STEPS);
  const versions = updates.map((e) => versionOfRow.get(e.objectId)!);
  assert.deepEqual(versions, [...versions].sort((a, b) => a - b));
  // each writer's renames in the order it made them
  for (let w = 0; w < WRITERS; w++) {
    const names = seen.filter((e) => e.objectType === 'SHEET' && e.action === 'RENAME' && e.objectId === own[w]!.id).map((e) => e.additionalDetails.newName);
    assert.deepEqual(names, Array.from({ length: STEPS }, (_, k) => `own${w}-${k + 1}`));
  }
});
