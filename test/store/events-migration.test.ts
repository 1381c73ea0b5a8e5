import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect } from 'kysely';
import { migrationProvider } from '../../src/store/migrations/index.ts';
import { openStore } from '../../src/store/db.ts';
import { listEvents, sequenceEvents } from '../../src/store/events.ts';
import { recordEvents } from '../../src/services/log/events.ts';

test('events stored before 0009 keep their insertion numbers as stream positions; later events follow them', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetd-events-migration-'));
  try {
    const sqlite = new Database(path.join(dataDir, 'sheetd.db'));
    const old = new Kysely<unknown>({ dialect: new SqliteDialect({ database: sqlite }) });
    const { error } = await new Migrator({ db: old, provider: migrationProvider('sqlite') }).migrateTo('0008_rows_by_insertion');
    assert.equal(error, undefined);
    const ins = sqlite.prepare("insert into events (event_id, org_id, object_type, action, object_id, source, additional_details, event_ts) values (?, 7, 'SHEET', 'CREATE', ?, 'API', '{}', 0)");
    for (const [i, e] of ['e1', 'e2', 'e3'].entries()) ins.run(e, i + 1);
    const seqs = (sqlite.prepare('select seq from events order by seq').all() as Array<{ seq: number }>).map((r) => r.seq);
    await old.destroy();

    const store = await openStore({ dataDir });
    try {
      const author = { orgId: 7, userId: null, requestUserId: null, accessTokenName: null, source: 'TEST' };
      await recordEvents(store.db, author, [{ objectType: 'SHEET', action: 'DELETE', objectId: 1 }]);
      // SQLite positions events as they are appended: nothing is left for the sequencer
      assert.equal(await sequenceEvents(store), 0);
      // a reader that had read e2 (position = its seq) goes on with e3, then the new event
      const next = await listEvents(store.db, 7, { afterPos: seqs[1]!, limit: 10 });
      assert.deepEqual(next.map((e) => e.event_id).slice(0, 1), ['e3']);
      assert.deepEqual(next.map((e) => [e.object_type, e.action]), [['SHEET', 'CREATE'], ['SHEET', 'DELETE']]);
      assert.equal(next[0]!.pos, seqs[2]);
      assert.ok(next[1]!.pos! > seqs[2]!);
    } finally {
      await store.close();
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test('SQLite: events are positioned as they are appended, in order after every earlier one; events an older sheetd left unpositioned get positions after them', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetd-events-pos-'));
  try {
    const store = await openStore({ dataDir });
    try {
      const author = { orgId: 7, userId: null, requestUserId: null, accessTokenName: null, source: 'TEST' };
      await recordEvents(store.db, author, [{ objectType: 'SHEET', action: 'CREATE', objectId: 1 }]);
      await store.db.transaction().execute(async (tx) => {
        await recordEvents(tx, author, Array.from({ length: 300 }, (_, i) => ({ objectType: 'ROW', action: 'CREATE', objectId: 100 + i, sheetId: 1 })));
        await recordEvents(tx, author, [{ objectType: 'SHEET', action: 'UPDATE', objectId: 1, sheetId: 1 }]);
      });
      // no sequencer yet: a reader of the log sees all 302 events, without a gap
      const all = await listEvents(store.db, 7, { afterPos: 0, limit: 1000 });
      assert.deepEqual(all.map((e) => e.pos), Array.from({ length: 302 }, (_, i) => i + 1));
      assert.deepEqual(all.slice(1, 301).map((e) => e.object_id), Array.from({ length: 300 }, (_, i) => 100 + i));
      assert.deepEqual([all[0]!.action, all[301]!.action], ['CREATE', 'UPDATE']);
      // an event without a position (written by an older sheetd): the sequencer puts it after them
      await store.db.insertInto('events').values({ event_id: 'old-1', org_id: 7, object_type: 'SHEET', action: 'DELETE', object_id: 2, source: 'API', additional_details: '{}', event_ts: 0 }).execute();
      assert.equal(await sequenceEvents(store), 1);
      await recordEvents(store.db, author, [{ objectType: 'SHEET', action: 'CREATE', objectId: 3 }]);
      const next = await listEvents(store.db, 7, { afterPos: 302, limit: 10 });
      assert.deepEqual(next.map((e) => [e.pos, e.event_id === 'old-1', e.object_id]), [[303, true, 2], [304, false, 3]]);
    } finally {
      await store.close();
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
