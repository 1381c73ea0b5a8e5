import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { serverForFile } from '../helpers/setup.ts';
import { makeSheet } from '../helpers/sheets.ts';
import { recorded, type Client } from '../helpers/http.ts';

// The file's tests share one token and make several hundred requests within a minute (the
// concurrent writers and paged readers): a faster machine took the default 300 a minute.
const s0 = serverForFile({ SHEETD_RATE_LIMIT: '100000' });

interface Ev { eventId: string; objectType: string; action: string; objectId: number; additionalDetails: Record<string, unknown> }

/** Pages GET /events from a backfill of the last hour to its end: the events and the position after them. */
async function backfill(api: Client): Promise<{ events: Ev[]; position: string }> {
  let res = await api.get('/events?maxCount=10000&since=' + encodeURIComponent(new Date().toISOString()));
  const events: Ev[] = [];
  while (true) {
    assert.equal(res.status, 200, JSON.stringify(res.body));
    events.push(...(res.body.data as Ev[]).map(recorded));
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
      seen.push(...(res.body.data as Ev[]).map(recorded));
      position = res.body.nextStreamPosition as string;
      if (res.body.moreAvailable) last = false;
    }
  })();

  // each writer, one request after the other: updates its own rows of the shared sheet (one
  // sheet lock, so the versions in the answers are the commit order), renames its own sheet
  // and adds a row to it (no common lock: these commit concurrently with everything else)
  const versionOfRow = new Map<number, number>();
  const addedBy: number[][] = Array.from({ length: WRITERS }, () => []);
  const addedTo = new Map<number, number>();
  const writers = Array.from({ length: WRITERS }, async (_, w) => {
    for (let k = 0; k < STEPS; k++) {
      const rowId = rowIds[w * STEPS + k]!;
      const [upd, ren, add] = await Promise.all([
        api.put(`/sheets/${shared.id}/rows`, { id: rowId, cells: [{ columnId: N, value: `w${w}k${k}` }] }),
        api.put(`/sheets/${own[w]!.id}`, { name: `own${w}-${k + 1}` }),
        // three rows: a run of three events, whose positions the sequencer gives in one step
        api.post(`/sheets/${own[w]!.id}/rows`, [0, 1, 2].map((j) => ({ toBottom: true, cells: [{ columnId: own[w]!.col.N!.id, value: k * 3 + j }] }))),
      ]);
      for (const r of [upd, ren, add]) assert.equal(r.status, 200, JSON.stringify(r.body));
      versionOfRow.set(rowId, upd.body.version as number);
      for (const r of add.body.result as Array<{ id: number }>) {
        addedBy[w]!.push(r.id);
        addedTo.set(r.id, w);
      }
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
  assert.equal(ids.length, WRITERS * STEPS * 5);

  // the shared sheet's writes in the order of their commits (their versions)
  const updates = seen.filter((e) => e.objectType === 'ROW' && e.action === 'UPDATE' && versionOfRow.has(e.objectId));
  assert.equal(updates.length, WRITERS * STEPS);
  const versions = updates.map((e) => versionOfRow.get(e.objectId)!);
  assert.deepEqual(versions, [...versions].sort((a, b) => a - b));
  // each writer's rows in the order it added them
  for (let w = 0; w < WRITERS; w++) {
    const mine = seen.filter((e) => e.objectType === 'ROW' && e.action === 'CREATE' && addedTo.get(e.objectId) === w);
    assert.deepEqual(mine.map((e) => e.objectId), addedBy[w]);
  }
  // each writer's renames in the order it made them
  for (let w = 0; w < WRITERS; w++) {
    const names = seen.filter((e) => e.objectType === 'SHEET' && e.action === 'RENAME' && e.objectId === own[w]!.id).map((e) => e.additionalDetails.newName);
    assert.deepEqual(names, Array.from({ length: STEPS }, (_, k) => `own${w}-${k + 1}`));
  }
});

test('one write\'s row events are kept as one record and read one by one: each once, in row order, whatever the page', async () => {
  const api = s0.api;
  const s = await makeSheet(api, 'runs', [{ title: 'N', type: 'TEXT_NUMBER', primary: true }, { title: 'M', type: 'TEXT_NUMBER' }]);
  const [N, M] = [s.col.N!.id, s.col.M!.id];
  const before = await backfill(api);
  // rows naming one or both columns: the run's events have two kinds of details
  const rows = Array.from({ length: 23 }, (_, i) => ({ toBottom: true, cells: i % 3 === 0 ? [{ columnId: N, value: `r${i}` }, { columnId: M, value: i }] : [{ columnId: N, value: `r${i}` }] }));
  const added = await api.post(`/sheets/${s.id}/rows`, rows);
  assert.equal(added.status, 200, JSON.stringify(added.body));
  const rowIds = (added.body.result as Array<{ id: number }>).map((r) => r.id);
  const renamed = await api.put(`/sheets/${s.id}`, { name: 'runs renamed' });
  assert.equal(renamed.status, 200);

  // the change log holds the 23 ROW CREATE events as one record (a run)
  const stored = await s0.t.server.store.db.selectFrom('events').select(['n']).where('sheet_id', '=', s.id).where('object_type', '=', 'ROW').execute();
  assert.deepEqual(stored.map((r) => r.n), [23]);

  const creates = (evs: Ev[]) => evs.filter((e) => e.objectType === 'ROW' && e.action === 'CREATE' && rowIds.includes(e.objectId));
  const whole = (await backfill(api)).events;
  const fromBackfill = creates(whole);
  assert.deepEqual(fromBackfill.map((e) => e.objectId), rowIds, 'each row once, in the order of the rows');
  assert.deepEqual(fromBackfill.map((e) => e.additionalDetails.columnIds), rows.map((r) => r.cells.map((c) => c.columnId)));
  assert.equal(new Set(fromBackfill.map((e) => e.eventId)).size, rowIds.length, 'an id per event');
  for (const e of fromBackfill) assert.match(e.eventId, /^[a-z0-9]{24}$/);
  // the rename comes after the whole run
  const at = (id: string) => whole.findIndex((e) => e.eventId === id);
  const rename = whole.find((e) => e.objectType === 'SHEET' && e.action === 'RENAME' && e.objectId === s.id)!;
  assert.ok(at(rename.eventId) > at(fromBackfill[fromBackfill.length - 1]!.eventId));

  // pages of 1, 4 and 7 from the position before the write stop inside the run and go on from
  // there, up to the rename
  for (const size of [1, 4, 7]) {
    let position = before.position;
    const paged: Ev[] = [];
    while (!paged.some((e) => e.eventId === rename.eventId)) {
      const res = await api.get(`/events?maxCount=${size}&streamPosition=${position}`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.ok((res.body.data as Ev[]).length <= size);
      assert.ok((res.body.data as Ev[]).length > 0, 'the rename is after this position');
      paged.push(...(res.body.data as Ev[]).map(recorded));
      position = res.body.nextStreamPosition as string;
    }
    const mine = paged.filter((e) => creates([e]).length === 1 || e.eventId === rename.eventId);
    assert.deepEqual(mine.map((e) => e.eventId), [...fromBackfill.map((e) => e.eventId), rename.eventId], `pages of ${size}: the same events, the same ids`);
    assert.deepEqual(mine.map((e) => e.additionalDetails.columnIds ?? null), [...rows.map((r) => r.cells.map((c) => c.columnId)), null]);
  }
});
