import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { notInCluster, startSuiteServer, type TestServer } from '../helpers/server.ts';
import { allEvents, client, type Client } from '../helpers/http.ts';
import { assertError, makeSheet, makeUser } from '../helpers/sheets.ts';
import { openStream, type SseEvent, type SseStream } from '../helpers/sse.ts';
import { randomString } from '../../src/ids.ts';
import { browser, signIn } from '../helpers/browser.ts';
import { setPassword } from '../../src/services/identity/sessions.ts';
import type { EventAuthor } from '../../src/services/log/events.ts';
import { findUserByEmail } from '../../src/store/users.ts';
import { authenticate } from '../../src/services/identity/auth.ts';
import { addRows } from '../../src/services/sheets/rows.ts';

/**
 * The change stream (GET /2.0/sheetd/sheets/{id}/changes) and presence, through HTTP as a client
 * reads them. Runs against a cluster too: the stream is served by one process and the writes go
 * through the balancer to any of them.
 */
let t: TestServer;
let api: Client;
const open: SseStream[] = [];

before(async () => {
  t = await startSuiteServer();
  api = client(t.base, t.adminToken);
});
after(async () => {
  for (const s of open) s.close();
  await t.close();
});

async function stream(sheetId: number, token = t.adminToken, headers: Record<string, string> = {}, query = ''): Promise<SseStream> {
  const s = await openStream(`${t.base}/sheetd/sheets/${sheetId}/changes${query}`, { authorization: `Bearer ${token}`, ...headers });
  open.push(s);
  return s;
}

const CHANGE_KINDS = new Set(['rows-added', 'rows-updated', 'rows-moved', 'rows-deleted', 'columns-added', 'columns-updated', 'columns-deleted', 'sheet-updated', 'sheet-deleted', 'attachments', 'discussions', 'comments', 'shares', 'proofs']);
const changes = (s: SseStream) => s.events.filter((e) => CHANGE_KINDS.has(e.event));
function cell(row: { cells: Array<{ columnId: number; value?: unknown }> }, columnId: number) {
  return row.cells.find((c) => c.columnId === columnId)?.value;
}

async function sheetWithFormula(name: string) {
  return makeSheet(api, name, [
    { title: 'Name', type: 'TEXT_NUMBER', primary: true },
    { title: 'N', type: 'TEXT_NUMBER' },
    { title: 'Double', type: 'TEXT_NUMBER', formula: '=N@row * 2' },
  ]);
}

test('a stream answers text/event-stream with no-cache and no proxy buffering, and says hello with its position', async () => {
  const s = await sheetWithFormula('stream headers');
  const es = await stream(s.id);
  assert.equal(es.status, 200);
  assert.match(es.headers.get('content-type')!, /^text\/event-stream/);
  assert.equal(es.headers.get('cache-control'), 'no-cache');
  assert.equal(es.headers.get('x-accel-buffering'), 'no');
  const hello = await es.next((e) => e.event === 'hello');
  assert.equal(hello.data.sheetId, s.id);
  assert.equal(String(hello.data.position), hello.id);
  assert.match(hello.data.presenceId, /^[A-Za-z0-9]+$/);
  es.close();
});

test('every kind of change arrives once, in commit order, with the values as the caller sees them', async () => {
  const s = await sheetWithFormula('stream kinds');
  const es = await stream(s.id);
  await es.next((e) => e.event === 'hello');
  const N = s.col.N!.id;
  const D = s.col.Double!.id;
  const added = (await api.post(`/sheets/${s.id}/rows`, [
    { toBottom: true, cells: [{ columnId: s.col.Name!.id, value: 'one' }, { columnId: N, value: 1 }] },
    { toBottom: true, cells: [{ columnId: s.col.Name!.id, value: 'two' }, { columnId: N, value: 2 }] },
  ])).body.result as Array<{ id: number }>;
  const [r1, r2] = [added[0]!.id, added[1]!.id];
  assert.equal((await api.put(`/sheets/${s.id}/rows`, [{ id: r1, cells: [{ columnId: N, value: 21 }] }])).status, 200);
  assert.equal((await api.put(`/sheets/${s.id}/rows`, [{ id: r2, toTop: true }])).status, 200);
  const col = (await api.post(`/sheets/${s.id}/columns`, [{ title: 'Extra', type: 'TEXT_NUMBER', index: 3 }])).body.result[0];
  assert.equal((await api.put(`/sheets/${s.id}/columns/${col.id}`, { title: 'Extra renamed' })).status, 200);
  assert.equal((await api.del(`/sheets/${s.id}/columns/${col.id}`)).status, 200);
  assert.equal((await api.put(`/sheets/${s.id}`, { name: 'stream kinds renamed' })).status, 200);
  const att = (await api.post(`/sheets/${s.id}/rows/${r1}/attachments`, { attachmentType: 'LINK', url: 'https://example.com/x', name: 'link' })).body.result;
  const disc = (await api.post(`/sheets/${s.id}/rows/${r1}/discussions`, { comment: { text: 'first' } })).body.result;
  const com = (await api.post(`/sheets/${s.id}/discussions/${disc.id}/comments`, { text: 'second' })).body.result;
  const viewer = await makeUser(t, api, `stream-kinds-${randomString(6).toLowerCase()}@example.com`);
  assert.equal((await api.post(`/sheets/${s.id}/shares`, [{ email: `${(await api.get(`/users/${viewer.id}`)).body.email}`, accessLevel: 'VIEWER' }])).status, 200);
  assert.equal((await api.del(`/sheets/${s.id}/rows?ids=${r2}`)).status, 200);

  const expected = ['rows-added', 'rows-updated', 'rows-moved', 'columns-added', 'columns-updated', 'columns-deleted', 'sheet-updated', 'attachments', 'discussions', 'comments', 'shares', 'rows-deleted'];
  await es.until((ev) => ev.some((e) => e.event === 'rows-deleted'), 15_000, 'every change');
  // nothing more arrives (no duplicate)
  await new Promise((r) => setTimeout(r, 300));
  const got = changes(es);
  const kinds = got.map((e) => e.event);
  // a discussion made with its first comment is one write: its events are a discussion and a comment
  assert.deepEqual(kinds.filter((k) => k !== 'comments'), expected.filter((k) => k !== 'comments'), kinds.join(', '));
  const ids = got.map((e) => Number(e.id));
  assert.deepEqual([...ids].sort((a, b) => a - b), ids, 'in position order');
  assert.equal(new Set(ids).size, ids.length, 'each once');

  const by = (k: string) => got.find((e) => e.event === k)!.data;
  const addedRows = by('rows-added').rows as Array<{ id: number; cells: Array<{ columnId: number; value?: unknown }> }>;
  assert.deepEqual(by('rows-added').rowIds, [r1, r2]);
  // the first row's later update is what the stream shows now: values as they are when sent
  assert.equal(cell(addedRows.find((r) => r.id === r2)!, D), 4, 'formula result computed');
  const upd = by('rows-updated');
  assert.deepEqual(upd.rowIds, [r1]);
  assert.equal(cell(upd.rows[0], N), 21);
  assert.equal(cell(upd.rows[0], D), 42, 'formula result recomputed');
  assert.equal(by('rows-moved').rows[0].id, r2);
  assert.equal(by('rows-moved').rows[0].rowNumber, 1);
  assert.deepEqual(by('columns-added').columnIds, [col.id]);
  // shown as it is when sent (live, before its rename and deletion; resumed later, named only)
  assert.ok(by('columns-added').columns.every((c: { id: number }) => c.id === col.id));
  assert.deepEqual(by('columns-deleted').columnIds, [col.id]);
  assert.equal(by('sheet-updated').sheet.name, 'stream kinds renamed');
  assert.deepEqual(by('attachments').items, [{ action: 'created', id: att.id, parentType: 'ROW', parentId: r1, attachmentType: 'LINK', name: 'link' }]);
  assert.equal(by('discussions').items[0].id, disc.id);
  assert.ok(got.filter((e) => e.event === 'comments').flatMap((e) => e.data.items).some((i: { id: number }) => i.id === com.id));
  assert.deepEqual(by('shares').actions, ['ADD_SHARE']);
  assert.deepEqual(by('rows-deleted').rowIds, [r2]);
  es.close();
});

test('sheet-updated says what changed (name, shared filters with their ids, conditional formats, row order), so a page reads again only that', async () => {
  const s = await sheetWithFormula('stream sheet changes');
  await api.post(`/sheets/${s.id}/rows`, [{ toBottom: true, cells: [{ columnId: s.col.N!.id, value: 2 }] }, { toBottom: true, cells: [{ columnId: s.col.N!.id, value: 1 }] }]);
  const es = await stream(s.id);
  await es.next((e) => e.event === 'hello');
  const updated = async (what: string, write: () => Promise<{ status: number; text: string }>) => {
    const r = await write();
    assert.equal(r.status, 200, `${what}: ${r.text}`);
    const e = await es.next((x) => x.event === 'sheet-updated', 15_000);
    return e.data as { changed: string[]; filterIds?: number[]; actions: string[] };
  };
  assert.deepEqual((await updated('rename', () => api.put(`/sheets/${s.id}`, { name: 'stream sheet changes 2' }))).changed, ['name']);
  let filterId = 0;
  const made = await updated('shared filter', async () => {
    const r = await api.post(`/sheetd/sheets/${s.id}/filters`, { name: 'Big', filterType: 'SHARED', query: { operator: 'AND', criteria: [{ columnId: s.col.N!.id, operator: 'GREATER_THAN', values: ['1'] }] } });
    filterId = r.body.result?.id;
    return r;
  });
  assert.deepEqual(made.changed, ['filters']);
  assert.deepEqual(made.filterIds, [filterId]);
  const formats = await updated('conditional formats', () => api.put(`/sheetd/sheets/${s.id}/conditionalformats`, { rules: [{ format: ',,1,,,,,,,,,,,,,,', query: { criteria: [{ columnId: s.col.N!.id, operator: 'IS_NOT_BLANK' }] } }] }));
  assert.deepEqual(formats.changed, ['conditionalFormats']);
  assert.equal(formats.filterIds, undefined);
  const sorted = await updated('sort', () => api.post(`/sheets/${s.id}/sort`, { sortCriteria: [{ columnId: s.col.N!.id, direction: 'ASCENDING' }] }));
  assert.ok(sorted.changed.includes('rowOrder'), JSON.stringify(sorted));
  es.close();
});

test('a viewer sees the rows as a viewer; a user without access gets the catalogued error and no stream', async () => {
  const s = await sheetWithFormula('stream access');
  const viewer = await makeUser(t, api, `stream-viewer-${randomString(6).toLowerCase()}@example.com`);
  const stranger = await makeUser(t, api, `stream-stranger-${randomString(6).toLowerCase()}@example.com`);
  const email = (await api.get(`/users/${viewer.id}`)).body.email;
  assert.equal((await api.post(`/sheets/${s.id}/shares`, [{ email, accessLevel: 'VIEWER' }])).status, 200);

  const none = await stream(s.id, stranger.token);
  assertError({ status: none.status, body: none.body }, 404, 1006);
  const noToken = await openStream(`${t.base}/sheetd/sheets/${s.id}/changes`);
  assertError({ status: noToken.status, body: noToken.body }, 401, 1001);
  const bad = await stream(s.id, t.adminToken, {}, '?after=abc');
  assertError({ status: bad.status, body: bad.body }, 400, 1018);

  const es = await stream(s.id, viewer.token);
  await es.next((e) => e.event === 'hello');
  const strangerHome = await stream(s.id, stranger.token);
  assert.equal(strangerHome.status, 404);
  await api.post(`/sheets/${s.id}/rows`, [{ toBottom: true, cells: [{ columnId: s.col.N!.id, value: 5 }] }]);
  const ev = await es.next((e) => e.event === 'rows-added');
  assert.equal(cell(ev.data.rows[0], s.col.Double!.id), 10);
  assert.equal(ev.data.rows[0].accessLevel, 'VIEWER');
  es.close();
});

test('a resumed stream that read further than the process had sends the rest of a run, not the run again', { skip: notInCluster('writes through the service of this process, without the request that wakes its streams') }, async () => {
  const s = await sheetWithFormula('stream resume overlap');
  const watching = await stream(s.id);
  const hello = await watching.next((e) => e.event === 'hello');
  // a row written without a request of this process: its streams have not read the log since
  const actor = await authenticate(t.server.store.db, `Bearer ${t.adminToken}`, undefined);
  await addRows(t.server.store, actor, s.id, [{ toBottom: true, cells: [{ columnId: s.col.Name!.id, value: 'quiet' }] }], { allowPartialSuccess: false, overrideValidation: false, numericDates: false, level: 2 });
  // a stream resumed from before it reads the sheet's log to its end: it sends that row
  const resumed = await stream(s.id, t.adminToken, { 'last-event-id': hello.id! });
  const rowsOf = (e: SseEvent) => (e.data.rows as Array<{ cells: Array<{ value?: unknown }> }>).map((r) => r.cells[0]!.value);
  const names = (ev: SseEvent[]) => ev.filter((e) => e.event === 'rows-added').flatMap(rowsOf);
  await resumed.until((ev) => names(ev).length >= 1, 10_000, 'the quiet row');
  // a request's add wakes the process, which reads the log from before the quiet row: both adds
  // are one run, and the resumed stream has sent its first part already
  assert.equal((await api.post(`/sheets/${s.id}/rows`, [{ toBottom: true, cells: [{ columnId: s.col.Name!.id, value: 'loud' }] }])).status, 200);
  await resumed.until((ev) => names(ev).includes('loud'), 10_000, 'the loud row');
  await watching.until((ev) => names(ev).includes('loud'), 10_000, 'the loud row, first stream');
  await new Promise((r) => setTimeout(r, 200));
  assert.deepEqual(names(resumed.events), ['quiet', 'loud'], 'each row once on the resumed stream');
  assert.deepEqual(names(watching.events), ['quiet', 'loud'], 'each row once on the stream that watched');
  watching.close();
  resumed.close();
});

test('resuming with Last-Event-ID (or ?after=) sends exactly what came after that event', async () => {
  const s = await sheetWithFormula('stream resume');
  const es = await stream(s.id);
  await es.next((e) => e.event === 'hello');
  const add = (v: string) => api.post(`/sheets/${s.id}/rows`, [{ toBottom: true, cells: [{ columnId: s.col.Name!.id, value: v }] }]);
  for (const v of ['a', 'b', 'c']) assert.equal((await add(v)).status, 200);
  // adds read from the log at once come as one rows-added (its id the last one's position)
  const rowsOf = (e: SseEvent) => (e.data.rows as Array<{ cells: Array<{ value?: unknown }> }>).map((r) => r.cells[0]!.value);
  const names = (ev: SseEvent[]) => ev.filter((e) => e.event === 'rows-added').flatMap(rowsOf);
  await es.until((ev) => names(ev).length === 3, 10_000, 'three adds');
  const adds = es.events.filter((e) => e.event === 'rows-added');
  const first = adds[0]!;
  const last = adds[adds.length - 1]!;
  es.close();
  for (const v of ['d', 'e']) assert.equal((await add(v)).status, 200);

  const again = await stream(s.id, t.adminToken, { 'last-event-id': first.id! });
  const rest = ['a', 'b', 'c', 'd', 'e'].slice(rowsOf(first).length);
  await again.until((ev) => names(ev).length >= rest.length, 10_000, 'the later adds');
  await new Promise((r) => setTimeout(r, 200));
  assert.deepEqual(names(again.events), rest);
  assert.equal(again.events.some((e) => e.event === 'reset'), false);
  again.close();

  const byQuery = await stream(s.id, t.adminToken, {}, `?after=${last.id}`);
  await byQuery.until((ev) => names(ev).length >= 2, 10_000, 'the two later adds');
  await new Promise((r) => setTimeout(r, 200));
  assert.deepEqual(names(byQuery.events), ['d', 'e']);
  byQuery.close();
});

test('resuming from inside one write of several rows sends the rows after that position', async () => {
  const s = await sheetWithFormula('stream resume inside a write');
  const es = await stream(s.id);
  const hello = await es.next((e) => e.event === 'hello');
  const from = Number(hello.id);
  const names = ['a', 'b', 'c', 'd', 'e'];
  const added = await api.post(`/sheets/${s.id}/rows`, names.map((v) => ({ toBottom: true, cells: [{ columnId: s.col.Name!.id, value: v }] })));
  assert.equal(added.status, 200);
  const whole = await es.next((e) => e.event === 'rows-added');
  // the write's five events take five positions in a row (other writes of a cluster may come
  // between the hello and the write), the last of them the change's id
  const last = Number(whole.id);
  assert.ok(last >= from + 5);
  es.close();
  const rowsOf = (ev: SseEvent[]) => ev.filter((e) => e.event === 'rows-added').flatMap((e) => (e.data.rows as Array<{ cells: Array<{ value?: unknown }> }>).map((r) => r.cells[0]!.value));
  for (const seen of [1, 3, 4]) {
    const again = await stream(s.id, t.adminToken, {}, `?after=${last - names.length + seen}`);
    await again.until((ev) => rowsOf(ev).length >= names.length - seen, 10_000, 'the rows after the position');
    await new Promise((r) => setTimeout(r, 200));
    assert.deepEqual(rowsOf(again.events), names.slice(seen));
    assert.equal(again.events.some((e) => e.event === 'reset'), false);
    again.close();
  }
});

test('a position the log never gave answers reset, then the stream goes on from now', async () => {
  const s = await sheetWithFormula('stream reset');
  const es = await stream(s.id, t.adminToken, { 'last-event-id': '9007199254740000' });
  const reset = await es.next((e) => e.event === 'reset');
  assert.equal(reset.data.sheetId, s.id);
  await api.post(`/sheets/${s.id}/rows`, [{ toBottom: true, cells: [{ columnId: s.col.Name!.id, value: 'after reset' }] }]);
  const ev = await es.next((e) => e.event === 'rows-added');
  assert.ok(Number(ev.id) > Number(reset.id));
  es.close();
});

test('removing the share ends the viewer stream with access-lost', async () => {
  const s = await sheetWithFormula('stream access lost');
  const viewer = await makeUser(t, api, `stream-lost-${randomString(6).toLowerCase()}@example.com`);
  const email = (await api.get(`/users/${viewer.id}`)).body.email;
  const share = (await api.post(`/sheets/${s.id}/shares`, [{ email, accessLevel: 'VIEWER' }])).body.result[0];
  const es = await stream(s.id, viewer.token);
  await es.next((e) => e.event === 'hello');
  assert.equal((await api.del(`/sheets/${s.id}/shares/${share.id}`)).status, 200);
  await es.next((e) => e.event === 'access-lost');
  await es.ended;
  // what came after is not sent to them
  assert.equal(es.events.filter((e) => e.event === 'shares').length, 0);
});

test('deleting the sheet ends the stream with sheet-deleted', async () => {
  const s = await sheetWithFormula('stream deleted');
  const es = await stream(s.id);
  await es.next((e) => e.event === 'hello');
  assert.equal((await api.del(`/sheets/${s.id}`)).status, 200);
  const ev = await es.next((e) => e.event === 'sheet-deleted');
  assert.equal(ev.data.sheetId, s.id);
  await es.ended;
});

test('idle streams hold no database connection: more streams than the pool has connections, and requests still go through', async () => {
  const s = await sheetWithFormula('stream many');
  const many = await Promise.all(Array.from({ length: 16 }, () => stream(s.id)));
  await Promise.all(many.map((es) => es.next((e) => e.event === 'hello')));
  assert.equal((await api.get(`/sheets/${s.id}`)).status, 200);
  await api.post(`/sheets/${s.id}/rows`, [{ toBottom: true, cells: [{ columnId: s.col.Name!.id, value: 'to all' }] }]);
  await Promise.all(many.map((es) => es.next((e) => e.event === 'rows-added')));
  for (const es of many) es.close();
});

test('presence: who has the sheet open and which cell each has focused; gone when the stream ends', async () => {
  const s = await sheetWithFormula('stream presence');
  const row = (await api.post(`/sheets/${s.id}/rows`, [{ toBottom: true, cells: [{ columnId: s.col.Name!.id, value: 'x' }] }])).body.result[0];
  const other = await makeUser(t, api, `stream-presence-${randomString(6).toLowerCase()}@example.com`);
  const otherEmail = (await api.get(`/users/${other.id}`)).body.email;
  await api.post(`/sheets/${s.id}/shares`, [{ email: otherEmail, accessLevel: 'EDITOR' }]);
  const me = (await api.get('/users/me')).body;

  const a = await stream(s.id);
  const aHello = await a.next((e) => e.event === 'hello');
  const b = await stream(s.id, other.token);
  const bHello = await b.next((e) => e.event === 'hello');
  const ids = (e: SseEvent) => (e.data.viewers as Array<{ id: string }>).map((v) => v.id).sort();
  const both = [aHello.data.presenceId, bHello.data.presenceId].sort();
  await a.next((e) => e.event === 'presence' && JSON.stringify(ids(e)) === JSON.stringify(both), 10_000);

  const focus = await api.post(`/sheetd/sheets/${s.id}/presence`, { presenceId: aHello.data.presenceId, rowId: row.id, columnId: s.col.N!.id });
  assert.equal(focus.status, 200, focus.text);
  const seen = await b.next((e) => e.event === 'presence' && e.data.viewers.some((v: { id: string; rowId: number }) => v.id === aHello.data.presenceId && v.rowId === row.id), 10_000)
    .catch((err: Error) => { throw new Error(`${err.message}: ${JSON.stringify(b.events.filter((e) => e.event === 'presence').map((e) => e.data))}`); });
  const mine = seen.data.viewers.find((v: { id: string }) => v.id === aHello.data.presenceId);
  assert.deepEqual(mine, { id: aHello.data.presenceId, userId: me.id, name: `${me.firstName ?? ''} ${me.lastName ?? ''}`.trim() || me.email, email: me.email, rowId: row.id, columnId: s.col.N!.id });

  const listed = await api.get(`/sheetd/sheets/${s.id}/presence`);
  assert.equal(listed.status, 200);
  assert.deepEqual((listed.body.viewers as Array<{ id: string }>).map((v) => v.id).sort(), both);

  // gone once the server sees the stream closed: at once on one process; behind a balancer, which
  // may notice the closed client only at the next heartbeat it forwards, within the 30 s promised
  a.close();
  await b.next((e) => e.event === 'presence' && JSON.stringify(ids(e)) === JSON.stringify([bHello.data.presenceId]), 32_000);

  // bad input, and no presence on a sheet one cannot see
  assertError(await api.post(`/sheetd/sheets/${s.id}/presence`, { rowId: 'x' }), 400, 1018);
  const stranger = await makeUser(t, api, `stream-nopresence-${randomString(6).toLowerCase()}@example.com`);
  assertError(await client(t.base, stranger.token).post(`/sheetd/sheets/${s.id}/presence`, { rowId: row.id }), 404, 1006);
  b.close();
});

test("the page's session opens a stream with its CSRF token as ?csrf= (EventSource sends no headers); the cookie alone does not", async () => {
  const email = `stream-page-${randomString(6).toLowerCase()}@example.com`;
  const user = await makeUser(t, api, email);
  const u = (await findUserByEmail(t.server.store.db, email))!;
  const author: EventAuthor = { orgId: u.org_id, userId: null, requestUserId: null, accessTokenName: null, source: 'TEST' };
  await setPassword(t.server.store, author, email, 'a stream test password');
  const s = await sheetWithFormula('stream page');
  await api.post(`/sheets/${s.id}/shares`, [{ email, accessLevel: 'EDITOR' }]);
  const b = browser(t.url);
  assert.equal((await signIn(b, email, 'a stream test password')).status, 303);
  const home = await b.get('/');
  const csrf = /<meta name="sheetd-csrf" content="([^"]+)">/.exec(home.text)![1]!;
  const cookie = [...b.jar].map(([k, v]) => `${k}=${v}`).join('; ');

  const bare = await openStream(`${t.base}/sheetd/sheets/${s.id}/changes`, { cookie });
  assertError({ status: bare.status, body: bare.body }, 401, 1001);
  const es = await openStream(`${t.base}/sheetd/sheets/${s.id}/changes?csrf=${encodeURIComponent(csrf)}`, { cookie });
  open.push(es);
  assert.equal(es.status, 200);
  const hello = await es.next((e) => e.event === 'hello');
  // the page reports its focus with the session
  const r = await fetch(`${t.base}/sheetd/sheets/${s.id}/presence`, { method: 'POST', headers: { cookie, 'x-csrf-token': csrf, 'content-type': 'application/json' }, body: JSON.stringify({ presenceId: hello.data.presenceId, columnId: s.col.N!.id }) });
  assert.equal(r.status, 200);
  await es.next((e) => e.event === 'presence' && e.data.viewers.some((v: { userId: number; columnId: number }) => v.userId === user.id && v.columnId === s.col.N!.id));
  await api.post(`/sheets/${s.id}/rows`, [{ toBottom: true, cells: [{ columnId: s.col.N!.id, value: 3 }] }]);
  const ev = await es.next((e) => e.event === 'rows-added');
  assert.equal(cell(ev.data.rows[0], s.col.Double!.id), 6);
  es.close();
});

test('rows whose formula results another row\'s change altered come with that change, recomputed', async () => {
  const s = await makeSheet(api, 'stream recomputed', [
    { title: 'Name', type: 'TEXT_NUMBER', primary: true },
    { title: 'N', type: 'TEXT_NUMBER' },
    { title: 'Total', type: 'TEXT_NUMBER' },
  ]);
  const [Name, N, T] = [s.col.Name!.id, s.col.N!.id, s.col.Total!.id];
  const add = await api.post(`/sheets/${s.id}/rows`, [1, 2, 3].map((v) => ({ toBottom: true, cells: [{ columnId: Name, value: `r${v}` }, { columnId: N, value: v }] })));
  assert.equal(add.status, 200, add.text);
  const [r1, , r3] = (add.body.result as Array<{ id: number }>).map((r) => r.id) as [number, number, number];
  // a row summing N over rows 1 to 3, one doubling row 1's N, and one reading neither
  const more = await api.post(`/sheets/${s.id}/rows`, [
    { toBottom: true, cells: [{ columnId: Name, value: 'sum' }, { columnId: T, formula: '=SUM([N]1:[N]3)' }] },
    { toBottom: true, cells: [{ columnId: Name, value: 'double' }, { columnId: T, formula: '=[N]1 * 2' }] },
    { toBottom: true, cells: [{ columnId: Name, value: 'other' }, { columnId: T, formula: '=1 + 1' }] },
  ]);
  assert.equal(more.status, 200, more.text);
  const [sum, dbl, other] = (more.body.result as Array<{ id: number }>).map((r) => r.id) as [number, number, number];
  const es = await stream(s.id);
  await es.next((e) => e.event === 'hello');

  // row 1's N: the sum and the double are recomputed, in the same event; the other row is not sent
  assert.equal((await api.put(`/sheets/${s.id}/rows`, [{ id: r1, cells: [{ columnId: N, value: 10 }] }])).status, 200);
  const upd = await es.next((e) => e.event === 'rows-updated');
  assert.deepEqual(upd.data.rowIds, [r1]);
  assert.deepEqual(upd.data.rows.map((r: { id: number }) => r.id), [r1]);
  const re = new Map<number, unknown>((upd.data.recomputed as Array<{ id: number; cells: Array<{ columnId: number; value?: unknown }> }>).map((r) => [r.id, cell(r, T)]));
  assert.deepEqual([...re.keys()].sort(), [sum, dbl].sort());
  assert.equal(re.get(sum), 15);
  assert.equal(re.get(dbl), 20);
  assert.ok(!re.has(other!));
  // they are what Get Row answers
  assert.equal(cell((await api.get(`/sheets/${s.id}/rows/${sum}`)).body, T), 15);

  // row 3 deleted: the sum (its range ended there) changes with the deletion
  assert.equal((await api.del(`/sheets/${s.id}/rows?ids=${r3}`)).status, 200);
  const del = await es.next((e) => e.event === 'rows-deleted');
  assert.deepEqual(del.data.rowIds, [r3]);
  const after = (del.data.recomputed as Array<{ id: number; cells: Array<{ columnId: number; value?: unknown }> }>).find((r) => r.id === sum);
  assert.ok(after, 'the sum row comes with the deletion');
  assert.equal(cell(after, T), cell((await api.get(`/sheets/${s.id}/rows/${sum}`)).body, T));

  // a change no formula reads carries no recomputed rows
  assert.equal((await api.put(`/sheets/${s.id}/rows`, [{ id: other, cells: [{ columnId: Name, value: 'renamed' }] }])).status, 200);
  const plain = await es.next((e) => e.event === 'rows-updated');
  assert.equal(plain.data.recomputed, undefined);
  es.close();
  // the events API shows the writes' details without the stream's note of recomputed rows
  const listed = await allEvents<{ objectType: string; objectId: number; additionalDetails: Record<string, unknown> }>(api);
  const mine = listed.filter((e) => e.objectType === 'ROW' && [r1, r3, other].includes(e.objectId));
  assert.ok(mine.length >= 3);
  for (const e of mine) assert.deepEqual(Object.keys(e.additionalDetails ?? {}).filter((k) => k.startsWith('_')), []);
});
