import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import Database from 'better-sqlite3';
import { client, type Client } from '../helpers/http.ts';
import { notInCluster, startSuiteServer, TEST_PG_URL, type TestServer } from '../helpers/server.ts';
import { makeSheet } from '../helpers/sheets.ts';
import { startIndexThread } from '../../src/services/log/indexThread.ts';
import { catchUpElsewhere } from '../../src/services/log/searchIndex.ts';
import { SHEETD_BIN } from '../../src/web/paths.ts';

// The search index's own thread (services/log/indexThread.ts): it catches the index up from the
// change log with a connection of its own, searches wait for it, and on SQLite the server's
// writes wait for its write lock (or any other connection's) without holding other requests up.

/** sheetd_search_index_thread from /metrics. */
async function threadGauge(ts: TestServer): Promise<number> {
  const text = await (await fetch(`${ts.url}/metrics`)).text();
  const m = /^sheetd_search_index_thread (\d+)$/m.exec(text);
  assert.ok(m, 'the gauge is exported');
  return Number(m[1]);
}

/** Waits (up to 5 s) for the gauge to say the thread catches up: it opens its connection after the server starts. */
async function threadStarted(ts: TestServer): Promise<void> {
  for (let i = 0; i < 200 && (await threadGauge(ts)) !== 1; i++) await new Promise((r) => setTimeout(r, 25));
}

/** Adds `n` rows in requests of 100, each with a word of its own: `${tag}w${i}`. */
async function addRows(api: Client, sheet: { id: number; col: Record<string, { id: number } | undefined> }, tag: string, n: number): Promise<void> {
  for (let i = 0; i < n; i += 100) {
    const rows = Array.from({ length: Math.min(100, n - i) }, (_, j) => ({ toBottom: true, cells: [{ columnId: sheet.col.Name!.id, value: `${tag}w${i + j} common${tag}` }, { columnId: sheet.col.Qty!.id, value: i + j }] }));
    const r = await api.post(`/sheets/${sheet.id}/rows`, rows);
    assert.equal(r.status, 200, JSON.stringify(r.body));
  }
}

async function searchCount(api: Client, sheetId: number, q: string): Promise<number> {
  const r = await api.get(`/search/sheets/${sheetId}?query=${encodeURIComponent(q)}`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return (r.body as { totalCount: number }).totalCount;
}

const cols = [{ title: 'Name', type: 'TEXT_NUMBER', primary: true }, { title: 'Qty', type: 'TEXT_NUMBER' }];

for (const mode of ['on', 'off'] as const) {
  test(`SHEETD_INDEX_THREAD=${mode}: a search finds every row written before it, and changes and deletions`, { skip: notInCluster('settings of its own') }, async () => {
    const ts = await startSuiteServer({ SHEETD_INDEX_THREAD: mode });
    try {
      const api = client(ts.base, ts.adminToken);
      if (mode === 'on') await threadStarted(ts);
      assert.equal(await threadGauge(ts), mode === 'on' ? 1 : 0);
      const sheet = await makeSheet(api, `thread ${mode}`, cols);
      await addRows(api, sheet, `t${mode}`, 600);
      // each search right after the writes: read your writes
      assert.equal(await searchCount(api, sheet.id, `t${mode}w599`), 1);
      assert.equal(await searchCount(api, sheet.id, `common${`t${mode}`}`), 600);
      const all = await api.get(`/sheets/${sheet.id}?pageSize=5`);
      const first = (all.body as { rows: Array<{ id: number }> }).rows.slice(0, 3).map((r) => r.id);
      const upd = await api.put(`/sheets/${sheet.id}/rows`, [{ id: first[0], cells: [{ columnId: sheet.col.Name!.id, value: `renamed${mode}` }] }]);
      assert.equal(upd.status, 200, JSON.stringify(upd.body));
      const del = await api.del(`/sheets/${sheet.id}/rows?ids=${first.slice(1).join(',')}`);
      assert.equal(del.status, 200, JSON.stringify(del.body));
      assert.equal(await searchCount(api, sheet.id, `renamed${mode}`), 1);
      assert.equal(await searchCount(api, sheet.id, `common${`t${mode}`}`), 597);
      // words match as prefixes: tonw1 finds tonw10 to tonw199 too, but not the deleted row
      const found = await api.get(`/search/sheets/${sheet.id}?query=t${mode}w1`);
      const ids = (found.body as { results: Array<{ objectId: number }> }).results.map((x) => x.objectId);
      assert.ok(ids.length > 0);
      assert.ok(!ids.includes(first[1]!), 'the deleted row is no longer found');
      // Search Everything too
      const everything = await api.get(`/search?query=${encodeURIComponent(`renamed${mode}`)}`);
      assert.equal(everything.status, 200);
      assert.equal((everything.body as { totalCount: number }).totalCount, 1);
      if (mode === 'on') assert.equal(await threadGauge(ts), 1, 'the thread still catches up');
    } finally {
      await ts.close();
    }
  });
}

test('with the thread: while writes go on back to back, a search finds what was written just before it', { skip: notInCluster('settings of its own') }, async () => {
  const ts = await startSuiteServer({ SHEETD_INDEX_THREAD: 'on' });
  try {
    const api = client(ts.base, ts.adminToken);
    await threadStarted(ts);
    assert.equal(await threadGauge(ts), 1);
    const busy = await makeSheet(api, 'busy', cols);
    const checked = await makeSheet(api, 'checked', cols);
    await addRows(api, busy, 'busy', 300);
    await addRows(api, checked, 'chk', 1);
    const busyIds = ((await api.get(`/sheets/${busy.id}`)).body as { rows: Array<{ id: number }> }).rows.map((r) => r.id);
    const checkedId = ((await api.get(`/sheets/${checked.id}`)).body as { rows: Array<{ id: number }> }).rows[0]!.id;
    // one client rewrites the same 300 rows back to back: the thread's catch-ups pace themselves
    let writing = true;
    let rounds = 0;
    const writer = (async () => {
      while (writing) {
        const r = await api.put(`/sheets/${busy.id}/rows`, busyIds.map((id) => ({ id, cells: [{ columnId: busy.col.Name!.id, value: `busyround${rounds}` }] })));
        assert.equal(r.status, 200, JSON.stringify(r.body));
        rounds++;
      }
    })();
    try {
      for (let k = 0; k < 12; k++) {
        const r = await api.put(`/sheets/${checked.id}/rows`, [{ id: checkedId, cells: [{ columnId: checked.col.Name!.id, value: `checkword${k}` }] }]);
        assert.equal(r.status, 200, JSON.stringify(r.body));
        assert.equal(await searchCount(api, checked.id, `checkword${k}`), 1, `round ${k}: the word just written is found`);
        if (k > 0) assert.equal(await searchCount(api, checked.id, `checkword${k - 1}`), 0, `round ${k}: the word it replaced is not`);
        // every row of the busy sheet is found once, whichever round it shows by now
        assert.equal(await searchCount(api, busy.id, 'busyround'), 300);
      }
    } finally {
      writing = false;
      await writer;
    }
    assert.ok(rounds >= 3, `the writer kept writing (${rounds} rounds)`);
  } finally {
    await ts.close();
  }
});

test('SQLite: a write waits for another connection\'s write lock while the server answers other requests', { skip: TEST_PG_URL ? 'SQLite only' : notInCluster('the database file of its own server') }, async () => {
  const ts = await startSuiteServer({ SHEETD_INDEX_THREAD: 'off', SHEETD_RATE_LIMIT: '100000' });
  const other = new Database(path.join(ts.dataDir, 'sheetd.db'));
  try {
    const api = client(ts.base, ts.adminToken);
    const sheet = await makeSheet(api, 'locked', cols);
    other.prepare('begin immediate').run();
    let settled = false;
    const write = api.post(`/sheets/${sheet.id}/rows`, [{ toBottom: true, cells: [{ columnId: sheet.col.Name!.id, value: 'after the lock' }] }]).finally(() => (settled = true));
    // the write reaches its transaction and finds the lock held
    await new Promise((r) => setTimeout(r, 300));
    // reads of the database, on the same connection, and other requests are answered meanwhile
    assert.equal((await fetch(`${ts.url}/health`)).status, 200);
    const read = await api.get(`/sheets/${sheet.id}`);
    assert.equal(read.status, 200);
    assert.equal((read.body as { totalRowCount: number }).totalRowCount, 0);
    assert.equal(settled, false, 'the write waits for the lock');
    other.prepare('rollback').run();
    const r = await write;
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const after = await api.get(`/sheets/${sheet.id}`);
    assert.equal((after.body as { totalRowCount: number }).totalRowCount, 1);
  } finally {
    if (other.inTransaction) other.prepare('rollback').run();
    other.close();
    await ts.close();
  }
});

test('the catch-up comes back to the server\'s thread when an index thread cannot start, and when it stops', { skip: notInCluster('the store of its own server') }, async () => {
  const ts = await startSuiteServer({ SHEETD_INDEX_THREAD: 'off' });
  try {
    const api = client(ts.base, ts.adminToken);
    const store = ts.server.store;
    const opts = { databaseUrl: ts.config.databaseUrl, dataDir: ts.dataDir, lockTimeoutMs: ts.config.lockTimeoutMs };
    const sheet = await makeSheet(api, 'handed back', cols);
    // a thread whose script cannot be loaded
    const broken = startIndexThread(store, { ...opts, entry: path.join(ts.dataDir, 'no-such-script.js') });
    assert.equal(await broken.ready, false);
    assert.equal(catchUpElsewhere(store), false);
    assert.equal(await threadGauge(ts), 0);
    await addRows(api, sheet, 'hbA', 100);
    assert.equal(await searchCount(api, sheet.id, 'commonhbA'), 100);
    await broken.stop();
    // one that starts catches up from then on, and hands the catch-up back when it stops
    const thread = startIndexThread(store, { ...opts, entry: SHEETD_BIN });
    assert.equal(await thread.ready, true);
    assert.equal(catchUpElsewhere(store), true);
    assert.equal(await threadGauge(ts), 1);
    await addRows(api, sheet, 'hbB', 100);
    assert.equal(await searchCount(api, sheet.id, 'commonhbB'), 100);
    await thread.stop();
    assert.equal(catchUpElsewhere(store), false);
    await addRows(api, sheet, 'hbC', 100);
    assert.equal(await searchCount(api, sheet.id, 'commonhbC'), 100);
  } finally {
    await ts.close();
  }
});
