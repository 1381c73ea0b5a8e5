import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import Database from 'better-sqlite3';
import { sql } from 'kysely';
import { carrying, insertBatches, insertMany, openStore, retryingDeadlocks, updateManyById, type Queryable } from '../../src/store/db.ts';
import { createPgDatabase, TEST_PG_URL } from '../helpers/server.ts';
import { storeForFile } from '../helpers/store.ts';
import { ensureBootstrap } from '../../src/services/identity/bootstrap.ts';
import { recordEvents } from '../../src/services/log/events.ts';
import { newId } from '../../src/ids.ts';

const f = storeForFile();

test('opening an up-to-date database again applies nothing and keeps the data', async () => {
  const boot = await ensureBootstrap(f.store, { adminEmail: 'a@example.com', dataDir: f.dataDir });
  assert.equal(boot.created, true);
  const again = await openStore({ databaseUrl: f.databaseUrl, dataDir: f.dataDir });
  try {
    const orgs = await again.db.selectFrom('orgs').selectAll().execute();
    assert.equal(orgs.length, 1);
    const second = await ensureBootstrap(again, { adminEmail: 'other@example.com', dataDir: f.dataDir });
    assert.equal(second.created, false);
    assert.equal(second.orgId, boot.orgId);
    const users = await again.db.selectFrom('users').select('email').execute();
    assert.deepEqual(users.map((u) => u.email), ['a@example.com']);
  } finally {
    await again.close();
  }
});

test('ids and times survive the round trip as JSON-safe numbers', async () => {
  const org = await f.store.db.selectFrom('orgs').selectAll().executeTakeFirstOrThrow();
  assert.equal(typeof org.id, 'number');
  assert.ok(Number.isSafeInteger(org.id) && org.id > 2 ** 40);
  assert.equal(typeof org.created_at, 'number');
  assert.ok(Math.abs(org.created_at - Date.now()) < 60_000);
});

test('events written in a transaction that fails are not committed (nothing announced that was not committed)', async () => {
  const org = await f.store.db.selectFrom('orgs').selectAll().executeTakeFirstOrThrow();
  const author = { orgId: org.id, userId: null, requestUserId: null, accessTokenName: null, source: 'TEST' };
  const marker = newId();
  await assert.rejects(
    f.store.db.transaction().execute(async (tx) => {
      await recordEvents(tx, author, [{ objectType: 'SHEET', action: 'CREATE', objectId: marker }]);
      throw new Error('rollback');
    }),
  );
  const none = await f.store.db.selectFrom('events').selectAll().where('object_id', '=', marker).execute();
  assert.equal(none.length, 0);
  await f.store.db.transaction().execute((tx) => recordEvents(tx, author, [{ objectType: 'SHEET', action: 'CREATE', objectId: marker }]));
  const one = await f.store.db.selectFrom('events').selectAll().where('object_id', '=', marker).execute();
  assert.equal(one.length, 1);
  const seqs = (await f.store.db.selectFrom('events').select('seq').orderBy('seq').execute()).map((r) => r.seq);
  assert.deepEqual(seqs, [...seqs].sort((a, b) => a - b));
});

// Several processes share one database only on PostgreSQL (SQLite is the one-process mode).
test('two concurrent bootstraps of one empty database make one organization', { skip: !TEST_PG_URL && 'PostgreSQL only' }, async () => {
  const dir2 = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetd-store2-'));
  let url2: string | undefined;
  let drop2: (() => Promise<void>) | null = null;
  if (TEST_PG_URL) {
    const db = await createPgDatabase(TEST_PG_URL);
    url2 = db.url;
    drop2 = db.drop;
  }
  const s1 = await openStore({ databaseUrl: url2, dataDir: dir2 });
  const s2 = await openStore({ databaseUrl: url2, dataDir: dir2 });
  try {
    const [a, b] = await Promise.all([
      ensureBootstrap(s1, { adminEmail: 'first@example.com', dataDir: dir2 }),
      ensureBootstrap(s2, { adminEmail: 'first@example.com', dataDir: dir2 }),
    ]);
    assert.equal(a.orgId, b.orgId);
    assert.equal([a.created, b.created].filter(Boolean).length, 1);
    assert.equal((await s1.db.selectFrom('orgs').selectAll().execute()).length, 1);
  } finally {
    await s1.close();
    await s2.close();
    if (drop2) await drop2();
    fs.rmSync(dir2, { recursive: true, force: true });
  }
});

test('an idle PostgreSQL connection ended by the server is reported and replaced; the process keeps working', { skip: !TEST_PG_URL && 'PostgreSQL only' }, async () => {
  const dir2 = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetd-store3-'));
  const db = await createPgDatabase(TEST_PG_URL!);
  const errors: Error[] = [];
  let reported!: () => void;
  const seen = new Promise<void>((resolve) => (reported = resolve));
  const s = await openStore({ databaseUrl: db.url, dataDir: dir2, onConnectionError: (e) => { errors.push(e); reported(); } });
  try {
    // a connection of the pool, now idle: the server ends it
    const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(s.db);
    const admin = new pg.Client({ connectionString: TEST_PG_URL });
    await admin.connect();
    try {
      await admin.query('select pg_terminate_backend($1)', [rows[0]!.pid]);
    } finally {
      await admin.end();
    }
    await seen;
    assert.equal(errors.length, 1);
    const again = await sql<{ one: number }>`select 1 as one`.execute(s.db);
    assert.equal(again.rows[0]!.one, 1);
  } finally {
    await s.close();
    await db.drop();
    fs.rmSync(dir2, { recursive: true, force: true });
  }
});

test('rows written batch by batch (one COPY on PostgreSQL): all or none with their transaction, values as given, and the store keeps working after a failed one', async () => {
  const sheetId = newId();
  // SQLite checks the rows' sheet
  await f.store.db.insertInto('sheets').values({ id: sheetId, org_id: newId(), owner_id: newId(), name: 'copy', version: 0, is_template: 0, settings: '{}', created_at: 1, modified_at: 1 }).execute();
  const odd = ['back\\slash', 'tab\there', 'two\nlines', 'cr\rlf\r\n', '\\N', '\\.', '\\', 'é 😀', ''];
  let n = 0;
  const record = (i: number) => ({
    id: sheetId + 1 + i, sheet_id: sheetId, parent_id: i % 3 === 0 ? null : sheetId + 1, sort_key: i * 1.5 - 0.25, expanded: 1, locked: 0,
    format: i < odd.length ? odd[i]! : null, cells: JSON.stringify({ 1: { v: `row ${i} ${odd[i % odd.length]}` } }), cell_meta: '{}',
    created_at: 1_700_000_000_000 + i, created_by: null, modified_at: 1_700_000_000_000, modified_by: i,
  });
  function* batches(count: number, fail?: number): Generator<ReturnType<typeof record>[]> {
    for (let from = 0; from < count; from += 500) {
      if (fail !== undefined && from >= fail) throw new Error('the batches failed');
      yield Array.from({ length: Math.min(500, count - from) }, (_, k) => record(from + k));
      n++;
    }
  }
  const stored = () => f.store.db.selectFrom('rows').selectAll().where('sheet_id', '=', sheetId).orderBy('sort_key').execute();
  // the batches' own failure, after two of them were sent
  await assert.rejects(f.store.db.transaction().execute((tx) => insertBatches(tx, 'rows', batches(1200, 1000))), /the batches failed/);
  assert.equal(n, 2);
  assert.deepEqual(await stored(), []);
  // the database's refusal (a row id twice, in the second batch)
  function* twice(): Generator<ReturnType<typeof record>[]> {
    yield [record(0), record(1)];
    yield [record(2), record(1)];
  }
  await assert.rejects(f.store.db.transaction().execute((tx) => insertBatches(tx, 'rows', twice())), (e: Error & { code?: string }) => /unique|23505/i.test(`${e.code} ${e.message}`));
  assert.deepEqual(await stored(), []);
  // then a whole write, on the same store
  await f.store.db.transaction().execute((tx) => insertBatches(tx, 'rows', batches(1200)));
  const rows = await stored();
  assert.equal(rows.length, 1200);
  assert.deepEqual(rows, Array.from({ length: 1200 }, (_, i) => record(i)));
});

test('many rows in one insert (one COPY on PostgreSQL): values as given, in order, all or none with their transaction', async () => {
  const sheetId = newId();
  await f.store.db.insertInto('sheets').values({ id: sheetId, org_id: newId(), owner_id: newId(), name: 'many', version: 0, is_template: 0, settings: '{}', created_at: 1, modified_at: 1 }).execute();
  const odd = ['back\\slash', 'tab\there', 'two\nlines', 'cr\rlf\r\n', '\\N', '\\.', '\\', 'é 😀', '', '"quoted" {json}'];
  const record = (i: number) => ({
    id: sheetId + 1 + i, sheet_id: sheetId, parent_id: i % 3 === 0 ? null : sheetId + 1, sort_key: i === 0 ? -1e-7 : i * 1.5 - 0.25, expanded: 1, locked: 0,
    format: i < odd.length ? odd[i]! : null, cells: JSON.stringify({ 1: { v: `row ${i} ${odd[i % odd.length]}` } }), cell_meta: '{}',
    created_at: 1_700_000_000_000 + i, created_by: i === 1 ? 2 ** 53 - 1 : null, modified_at: 1_700_000_000_000, modified_by: i,
  });
  const stored = () => f.store.db.selectFrom('rows').selectAll().where('sheet_id', '=', sheetId).orderBy('sort_key').execute();
  // a row id twice: the database refuses the whole insert, with the unique violation's code
  const twice = [...Array.from({ length: 40 }, (_, i) => record(i)), record(7)];
  await assert.rejects(f.store.db.transaction().execute((tx) => insertMany(tx, 'rows', twice)), (e: Error & { code?: string }) => /unique|23505/i.test(`${e.code} ${e.message}`));
  assert.deepEqual(await stored(), []);
  // outside a transaction and inside one, on the same store
  await insertMany(f.store.db, 'rows', Array.from({ length: 20 }, (_, i) => record(i)));
  await f.store.db.transaction().execute((tx) => insertMany(tx, 'rows', Array.from({ length: 600 }, (_, i) => record(20 + i))));
  assert.deepEqual(await stored(), Array.from({ length: 620 }, (_, i) => record(i)));
});

test('rows updated by id (SQLite: one call runs the statement for each; PostgreSQL: COPY into a temporary table or unnest): each row gets its own values, others untouched, all or none with their transaction', async () => {
  const sheetId = newId();
  await f.store.db.insertInto('sheets').values({ id: sheetId, org_id: newId(), owner_id: newId(), name: 'update', version: 0, is_template: 0, settings: '{}', created_at: 1, modified_at: 1 }).execute();
  const N = 80;
  const odd = ['back\\slash', 'tab\there', 'two\nlines', 'cr\rlf\r\n', '\\N', '\\.', 'é 😀', '"quoted" {json}'];
  const record = (i: number) => ({
    id: sheetId + 1 + i, sheet_id: sheetId, parent_id: null as number | null, sort_key: i, expanded: 1, locked: 0,
    format: null as string | null, cells: JSON.stringify({ 1: { v: `row ${i}` } }), cell_meta: '{}',
    created_at: 1_700_000_000_000, created_by: null, modified_at: 1_700_000_000_000, modified_by: null as number | null,
  });
  await insertMany(f.store.db, 'rows', Array.from({ length: N }, (_, i) => record(i)));
  const stored = () => f.store.db.selectFrom('rows').selectAll().where('sheet_id', '=', sheetId).orderBy('sort_key').execute();
  // every column an update of rows sets, with values COPY's text escapes, nulls and fractions
  const change = (i: number, tag: string) => ({
    id: sheetId + 1 + i, parent_id: i % 4 === 0 ? null : sheetId + 1, sort_key: i === 0 ? -1e-7 : i + 0.5, expanded: i % 2, locked: 1 - (i % 2),
    format: i % 3 === 0 ? null : odd[i % odd.length]!, cells: JSON.stringify({ 1: { v: `${tag} ${i} ${odd[i % odd.length]}` } }), cell_meta: `{"1":[${i},2]}`,
    modified_at: 1_800_000_000_000 + i, modified_by: i === 3 ? null : 2 ** 53 - 1 - i,
  });
  const changed = new Map<number, string>();
  const expect = () => Array.from({ length: N }, (_, i) => {
    const tag = changed.get(i);
    return tag === undefined ? record(i) : { ...record(i), ...change(i, tag) };
  }).sort((a, b) => a.sort_key - b.sort_key);
  // three updates in one transaction (each finds nothing of the one before), of 20, 16 and 17
  // rows, the second rewriting two rows of the first
  const first = Array.from({ length: 20 }, (_, k) => 2 * k);
  const second = [0, 2, ...Array.from({ length: 14 }, (_, k) => 41 + 2 * k)];
  const third = Array.from({ length: 17 }, (_, k) => 42 + 2 * k);
  await f.store.db.transaction().execute(async (tx) => {
    await updateManyById(tx, 'rows', first.map((i) => change(i, 'first')));
    await updateManyById(tx, 'rows', second.map((i) => change(i, 'second')));
    await updateManyById(tx, 'rows', third.map((i) => change(i, 'third')));
  });
  for (const i of first) changed.set(i, 'first');
  for (const i of second) changed.set(i, 'second');
  for (const i of third) changed.set(i, 'third');
  assert.deepEqual(await stored(), expect());
  // a few rows (unnest), one row, and outside a transaction
  await f.store.db.transaction().execute((tx) => updateManyById(tx, 'rows', [5, 7, 9].map((i) => change(i, 'few'))));
  for (const i of [5, 7, 9]) changed.set(i, 'few');
  await updateManyById(f.store.db, 'rows', [change(11, 'one')]);
  changed.set(11, 'one');
  await updateManyById(f.store.db, 'rows', [13, 15, 17, 19, 21, 23, 25, 27, 29, 31, 33, 35, 37, 39, 1, 3, 43].map((i) => change(i, 'outside')));
  for (const i of [13, 15, 17, 19, 21, 23, 25, 27, 29, 31, 33, 35, 37, 39, 1, 3, 43]) changed.set(i, 'outside');
  assert.deepEqual(await stored(), expect());
  // a transaction that fails after the updates keeps none of them, and the next one works
  await assert.rejects(f.store.db.transaction().execute(async (tx) => {
    await updateManyById(tx, 'rows', Array.from({ length: 30 }, (_, i) => change(i, 'lost')));
    throw new Error('after the updates');
  }), /after the updates/);
  assert.deepEqual(await stored(), expect());
  await f.store.db.transaction().execute((tx) => updateManyById(tx, 'rows', Array.from({ length: 30 }, (_, i) => change(50 + i, 'last'))));
  for (let i = 50; i < 80; i++) changed.set(i, 'last');
  assert.deepEqual(await stored(), expect());
  // on connections new to updates (another store): some of the columns first, then all of them,
  // in one transaction
  const again = await openStore({ databaseUrl: f.databaseUrl, dataDir: f.dataDir });
  try {
    await again.db.transaction().execute(async (tx) => {
      await updateManyById(tx, 'rows', Array.from({ length: 20 }, (_, i) => ({ id: sheetId + 1 + i, cells: JSON.stringify({ 1: { v: `narrow ${i}` } }) })));
      await updateManyById(tx, 'rows', Array.from({ length: 20 }, (_, i) => change(20 + i, 'wide')));
    });
  } finally {
    await again.close();
  }
  for (let i = 20; i < 40; i++) changed.set(i, 'wide');
  const narrowed = expect().map((r) => {
    const i = r.id - sheetId - 1;
    return i < 20 ? { ...r, cells: JSON.stringify({ 1: { v: `narrow ${i}` } }) } : r;
  });
  assert.deepEqual(await stored(), narrowed);
});

test('a transaction chosen as a deadlock victim runs again and commits (retryingDeadlocks)', { skip: !TEST_PG_URL && 'PostgreSQL only' }, async () => {
  const db = f.store.db;
  await sql`create table deadlock_probe (id int primary key, v int not null)`.execute(db);
  const other = new pg.Client({ connectionString: f.databaseUrl });
  await other.connect();
  try {
    await sql`insert into deadlock_probe values (1, 0), (2, 0)`.execute(db);
    let otherHolds!: () => void;
    const otherHolding = new Promise<void>((resolve) => (otherHolds = resolve));
    let mineHolds!: () => void;
    const mineHolding = new Promise<void>((resolve) => (mineHolds = resolve));
    let attempts = 0;
    // row 1 taken here, row 2 there, then each asks for the other's: this one checks for
    // deadlocks first (100 ms against 10 s), so it is the victim
    const mine = retryingDeadlocks(() => db.transaction().execute(async (tx) => {
      attempts++;
      await sql`set local deadlock_timeout = '100ms'`.execute(tx);
      await sql`update deadlock_probe set v = v + 1 where id = 1`.execute(tx);
      if (attempts === 1) {
        mineHolds();
        await otherHolding;
      }
      await sql`update deadlock_probe set v = v + 1 where id = 2`.execute(tx);
    }));
    await other.query('begin');
    await other.query("set local deadlock_timeout = '10s'");
    await other.query('update deadlock_probe set v = v + 10 where id = 2');
    await mineHolding;
    otherHolds();
    await other.query('update deadlock_probe set v = v + 10 where id = 1');
    await other.query('commit');
    await mine;
    assert.equal(attempts, 2);
    const rows = (await sql<{ id: number; v: number }>`select id, v from deadlock_probe order by id`.execute(db)).rows;
    assert.deepEqual(rows.map((r) => r.v), [11, 11]);
    // other errors are not retried
    let runs = 0;
    await assert.rejects(retryingDeadlocks(async () => {
      runs++;
      await sql`select * from no_such_table`.execute(db);
    }), /no_such_table/);
    assert.equal(runs, 1);
  } finally {
    await other.end();
    await sql`drop table if exists deadlock_probe`.execute(db);
  }
});

test('SQLite: a transaction holds the write lock from its start, so another process writing meanwhile waits instead of failing it', { skip: !!TEST_PG_URL && 'SQLite only' }, async () => {
  await ensureBootstrap(f.store, { adminEmail: 'a@example.com', dataDir: f.dataDir });
  // another process on the file (as the sheetd CLI beside a server): it does not wait here
  const other = new Database(path.join(f.dataDir, 'sheetd.db'));
  other.pragma('busy_timeout = 0');
  try {
    await f.store.db.transaction().execute(async (tx) => {
      const org = await tx.selectFrom('orgs').selectAll().executeTakeFirstOrThrow();
      assert.throws(() => other.prepare('update orgs set name = ? where id = ?').run('Elsewhere', org.id), (e: { code?: string }) => e.code === 'SQLITE_BUSY');
      await tx.updateTable('orgs').set({ name: 'Here' }).where('id', '=', org.id).execute();
    });
    assert.equal((await f.store.db.selectFrom('orgs').select('name').executeTakeFirstOrThrow()).name, 'Here');
  } finally {
    other.close();
  }
});

test('the token read gives the token, its user and organization as stored (PostgreSQL: one json object a row): odd text, nulls, 53-bit ids and times', async () => {
  const { findTokenWithUser, insertToken } = await import('../../src/store/tokens.ts');
  await ensureBootstrap(f.store, { adminEmail: 'a@example.com', dataDir: f.dataDir });
  const db = f.store.db;
  const user = await db.selectFrom('users').selectAll().executeTakeFirstOrThrow();
  const odd = 'quote " backslash \\ tab \t newline \n é 😀 \u2028 <b>';
  await db.updateTable('users').set({ first_name: odd, last_name: null, company: '', title: '0', last_login: 2 ** 52 + 1 }).where('id', '=', user.id).execute();
  const hash = 'f'.repeat(64);
  const tokenId = newId();
  await insertToken(db, { id: tokenId, user_id: user.id, name: odd, token_hash: hash, kind: 'RAW', scopes: 'READ_SHEETS WRITE_SHEETS', expires_at: 2 ** 53 - 1, revoked_at: null, created_at: Date.now(), api_client_id: null });
  const row = await findTokenWithUser(db, hash);
  assert.ok(row);
  const u = await db.selectFrom('users').selectAll().where('id', '=', user.id).executeTakeFirstOrThrow();
  const o = await db.selectFrom('orgs').selectAll().where('id', '=', u.org_id).executeTakeFirstOrThrow();
  const { own_extras: extras, token_hash: _hash, ...got } = row as typeof row & { token_hash?: string };
  const userColumns = Object.fromEntries(Object.entries(u).filter(([k]) => k in got));
  assert.deepEqual(got, {
    token_id: tokenId, token_name: odd, kind: 'RAW', scopes: 'READ_SHEETS WRITE_SHEETS', expires_at: 2 ** 53 - 1, revoked_at: null, api_client_id: null,
    ...userColumns, org_name: o.name, org_plan: o.plan, org_created_at: o.created_at,
  });
  assert.equal(Object.keys(userColumns).length, 21);
  assert.equal(got.first_name, odd);
  assert.equal(got.last_login, 2 ** 52 + 1);
  if (f.databaseUrl) assert.deepEqual(extras, { alternate_emails: [], profile_image: null });
  assert.equal(await findTokenWithUser(db, 'e'.repeat(64)), undefined);
});

/** The text of each statement node-postgres sends from now until `stop()` (in every client of the process). */
function recordStatements(): { sent: string[]; stop(): void } {
  const sent: string[] = [];
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...a: unknown[]) {
    const q = a[0];
    sent.push(typeof q === 'string' ? q : String((q as { text?: string } | undefined)?.text ?? ''));
    return (query as (...b: unknown[]) => unknown).apply(this, a);
  } as typeof query;
  return { sent, stop: () => { pg.Client.prototype.query = query; } };
}

test('statements held for the next one (PostgreSQL: sent with it, one round trip): every one applied, in order, a later statement sees them, a failure fails the transaction, a rollback drops them', async () => {
  const db = f.store.db;
  const sheetId = newId();
  await db.insertInto('sheets').values({ id: sheetId, org_id: newId(), owner_id: newId(), name: 'held', version: 0, is_template: 0, settings: '{}', created_at: 1, modified_at: 1 }).execute();
  const row = (i: number, tag: string) => ({
    id: sheetId + 1 + i, sheet_id: sheetId, parent_id: null, sort_key: i, expanded: 1, locked: 0, format: null,
    cells: JSON.stringify({ 1: { v: `${tag} ${i}` } }), cell_meta: '{}', created_at: 1, created_by: null, modified_at: 1, modified_by: null,
  });
  await insertMany(db, 'rows', Array.from({ length: 10 }, (_, i) => row(i, 'start')));
  const cellsOf = async (q: Queryable = db) => (await q.selectFrom('rows').select(['id', 'cells']).where('sheet_id', '=', sheetId).orderBy('sort_key').execute()).map((r) => JSON.parse(r.cells)[1].v as string);
  const set = (i: number, tag: string) => ({ id: sheetId + 1 + i, cells: JSON.stringify({ 1: { v: `${tag} ${i}` } }) });
  const history = (i: number, v: string) => ({ sheet_id: sheetId, row_id: sheetId + 1 + i, column_id: 1, cell: JSON.stringify({ v }), modified_at: 2, modified_by: null });
  const historyOf = async () => (await db.selectFrom('cell_history').select('cell').where('sheet_id', '=', sheetId).orderBy('seq').execute()).map((r) => JSON.parse(r.cell).v as string);
  const version = () => db.selectFrom('sheets').select('version').where('id', '=', sheetId).executeTakeFirstOrThrow();
  const bump = (q: Queryable, to: number) => carrying(q, q.updateTable('sheets').set({ version: to }).where('id', '=', sheetId).returning('version').compile());

  // statements that reach PostgreSQL during the transaction (none are counted on SQLite)
  const { sent, stop } = recordStatements();
  let seenInside: string[] = [];
  let carried: Array<{ version: number }> = [];
  try {
    await db.transaction().execute(async (tx) => {
      await updateManyById(tx, 'rows', [0, 1, 2].map((i) => set(i, 'a')), { hold: true });
      await insertMany(tx, 'cell_history', [history(0, 'h0'), history(1, 'h1')], undefined, { hold: true });
      // a second update of the same table: the first goes before it
      await updateManyById(tx, 'rows', [set(1, 'b')], { hold: true });
      // a read sees what was held before it
      seenInside = await cellsOf(tx);
      await updateManyById(tx, 'rows', [set(3, 'c')], { hold: true });
      await insertMany(tx, 'cell_history', [history(3, 'h3')], undefined, { hold: true });
      carried = await bump(tx, 7);
    });
  } finally {
    stop();
  }
  assert.deepEqual(seenInside.slice(0, 4), ['a 0', 'b 1', 'a 2', 'start 3']);
  assert.deepEqual(carried, [{ version: 7 }]);
  assert.deepEqual((await cellsOf()).slice(0, 5), ['a 0', 'b 1', 'a 2', 'c 3', 'start 4']);
  assert.deepEqual(await historyOf(), ['h0', 'h1', 'h3']);
  assert.equal((await version()).version, 7);
  if (TEST_PG_URL) {
    // begin; the first update and the history (before the second update); the second update
    // (before the read); the read; the third update, the history and the version as one;
    // commit. (The columns' types of a table, read once a process, are not counted: they
    // go wherever the first statement of that table falls.)
    const statements = sent.filter((q) => !q.includes('pg_attribute'));
    assert.equal(statements.length, 6, statements.join('\n'));
    assert.match(statements[4]!, /^with sheetd_held_1 as \(update "rows".*sheetd_held_2 as \(insert into "cell_history".*\) update "sheets"/s);
  }

  // a held statement that fails fails its transaction (on PostgreSQL, at the statement that
  // takes it); nothing of the transaction is kept
  await assert.rejects(db.transaction().execute(async (tx) => {
    await updateManyById(tx, 'rows', [set(5, 'lost')], { hold: true });
    await insertMany(tx, 'rows', [row(20, 'new'), row(0, 'twice')], undefined, { hold: true });
    await bump(tx, 8);
  }), (e: Error & { code?: string }) => /unique|23505|constraint/i.test(`${e.code} ${e.message}`));
  assert.equal((await version()).version, 7);
  assert.deepEqual((await cellsOf()).slice(4, 7), ['start 4', 'start 5', 'start 6']);
  assert.equal((await cellsOf()).length, 10);

  // a transaction that fails after holding keeps nothing of it; the next one on the store works
  await assert.rejects(db.transaction().execute(async (tx) => {
    await updateManyById(tx, 'rows', [set(6, 'dropped')], { hold: true });
    throw new Error('after holding');
  }), /after holding/);
  await db.transaction().execute(async (tx) => {
    await updateManyById(tx, 'rows', [set(7, 'kept')], { hold: true });
  });
  assert.deepEqual((await cellsOf()).slice(5, 8), ['start 5', 'start 6', 'kept 7']);
  // a held update of the table the carrying statement writes goes before it
  await db.transaction().execute(async (tx) => {
    await updateManyById(tx, 'sheets', [{ id: sheetId, name: 'renamed' }], { hold: true });
    assert.deepEqual(await bump(tx, 9), [{ version: 9 }]);
  });
  const sheet = await db.selectFrom('sheets').select(['name', 'version']).where('id', '=', sheetId).executeTakeFirstOrThrow();
  assert.deepEqual(sheet, { name: 'renamed', version: 9 });
});

test('a transaction\'s begin goes with its first statement (PostgreSQL: one simple query when its values are plain): what it reads and writes is as before, a failure of that statement fails the transaction, an empty transaction sends nothing', async () => {
  const db = f.store.db;
  const sheetId = newId();
  await db.insertInto('sheets').values({ id: sheetId, org_id: newId(), owner_id: newId(), name: 'begin: one', version: 0, is_template: 0, settings: '{}', created_at: 1, modified_at: 1 }).execute();
  const { sent, stop } = recordStatements();
  try {
    // the first statement reads with plain values (a 16-digit id, a text with a colon and a
    // space), its answer as the parameters would give it
    const read = await db.transaction().execute(async (tx) => {
      const r = await tx.selectFrom('sheets').select(['id', 'name', 'version']).where('id', '=', sheetId).where('name', '=', 'begin: one').executeTakeFirst();
      await tx.updateTable('sheets').set({ name: 'begin: two' }).where('id', '=', sheetId).execute();
      return r;
    });
    assert.deepEqual(read, { id: sheetId, name: 'begin: one', version: 0 });
    if (TEST_PG_URL) {
      assert.equal(sent.length, 3, sent.join('\n'));
      assert.match(sent[0]!, /^begin; select /);
    }
    // a first statement whose values are not plain text: begin on its own, then the statement
    sent.length = 0;
    await db.transaction().execute((tx) => tx.updateTable('sheets').set({ settings: '{"a": "it\'s"}' }).where('id', '=', sheetId).execute());
    if (TEST_PG_URL) assert.deepEqual(sent.map((q) => q.split(' ')[0]), ['begin', 'update', 'commit']);
    // nothing asked, nothing sent
    sent.length = 0;
    await db.transaction().execute(async () => {});
    if (TEST_PG_URL) assert.deepEqual(sent, []);
  } finally {
    stop();
  }
  const sheet = await db.selectFrom('sheets').select(['name', 'settings']).where('id', '=', sheetId).executeTakeFirstOrThrow();
  assert.deepEqual(sheet, { name: 'begin: two', settings: '{"a": "it\'s"}' });
  // the first statement fails (a sheet id taken): the transaction fails, nothing of it stays, and
  // the connections keep working
  await assert.rejects(db.transaction().execute(async (tx) => {
    await tx.insertInto('sheets').values({ id: sheetId, org_id: 1, owner_id: 1, name: 'again', version: 0, is_template: 0, settings: 'x', created_at: 1, modified_at: 1 }).execute();
  }), (e: Error & { code?: string }) => /unique|23505|constraint/i.test(`${e.code} ${e.message}`));
  for (let i = 0; i < 3; i++) {
    await db.transaction().execute((tx) => tx.updateTable('sheets').set({ version: i + 1 }).where('id', '=', sheetId).execute());
  }
  assert.equal((await db.selectFrom('sheets').select('version').where('id', '=', sheetId).executeTakeFirstOrThrow()).version, 3);
});
