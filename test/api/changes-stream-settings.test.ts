import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startSuiteServer, type TestServer } from '../helpers/server.ts';
import { client, type Client } from '../helpers/http.ts';
import { makeSheet } from '../helpers/sheets.ts';
import { openStream, type SseStream } from '../helpers/sse.ts';

/**
 * The change stream's settings, on a server of its own: a short heartbeat, a replay window of
 * three events and a short presence lifetime (test/cluster-excluded.mjs).
 */
let t: TestServer;
let api: Client;
const open: SseStream[] = [];

before(async () => {
  t = await startSuiteServer({ SHEETD_STREAM_HEARTBEAT_MS: '200', SHEETD_STREAM_REPLAY: '3', SHEETD_PRESENCE_TTL_MS: '1000' });
  api = client(t.base, t.adminToken);
});
after(async () => {
  for (const s of open) s.close();
  await t.close();
});

async function stream(sheetId: number, headers: Record<string, string> = {}): Promise<SseStream> {
  const s = await openStream(`${t.base}/sheetd/sheets/${sheetId}/changes`, { authorization: `Bearer ${t.adminToken}`, ...headers });
  open.push(s);
  return s;
}

test('an idle stream gets a comment line every heartbeat', async () => {
  const s = await makeSheet(api, 'heartbeat', [{ title: 'Name', type: 'TEXT_NUMBER', primary: true }]);
  const es = await stream(s.id);
  await es.next((e) => e.event === 'hello');
  const before = es.comments;
  await new Promise((r) => setTimeout(r, 700));
  assert.ok(es.comments - before >= 2, `comments: ${es.comments - before}`);
  es.close();
});

test('a position further back than the stream replays answers reset; within it, the stream resumes', async () => {
  const s = await makeSheet(api, 'replay window', [{ title: 'Name', type: 'TEXT_NUMBER', primary: true }]);
  const es = await stream(s.id);
  const hello = await es.next((e) => e.event === 'hello');
  es.close();
  // four writes: one more than the window
  for (const v of ['a', 'b', 'c', 'd']) await api.post(`/sheets/${s.id}/rows`, [{ toBottom: true, cells: [{ columnId: s.col.Name!.id, value: v }] }]);
  const old = await stream(s.id, { 'last-event-id': hello.id! });
  const reset = await old.next((e) => e.event === 'reset');
  assert.ok(Number(reset.id) > Number(hello.id));
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(old.events.filter((e) => e.event === 'rows-added').length, 0, 'nothing replayed after a reset');
  old.close();

  // three back is within the window
  const rows = (await api.get(`/sheets/${s.id}`)).body.rows as Array<{ id: number }>;
  const recent = await stream(s.id, { 'last-event-id': String(Number(reset.id) - 3) });
  await recent.until((e) => e.filter((x) => x.event === 'rows-added').flatMap((x) => x.data.rowIds).length === 3, 5000, 'three rows replayed');
  assert.equal(recent.events.some((e) => e.event === 'reset'), false);
  assert.deepEqual(recent.events.filter((x) => x.event === 'rows-added').flatMap((x) => x.data.rowIds), rows.slice(1).map((r) => r.id));
  recent.close();
});

test('the window counts the events of one write of several rows one by one', async () => {
  const s = await makeSheet(api, 'replay window, one write', [{ title: 'Name', type: 'TEXT_NUMBER', primary: true }]);
  const es = await stream(s.id);
  const hello = await es.next((e) => e.event === 'hello');
  es.close();
  // one write of four rows: four events, one more than the window
  const added = await api.post(`/sheets/${s.id}/rows`, ['a', 'b', 'c', 'd'].map((v) => ({ toBottom: true, cells: [{ columnId: s.col.Name!.id, value: v }] })));
  assert.equal(added.status, 200);
  const ids = (added.body.result as Array<{ id: number }>).map((r) => r.id);
  const old = await stream(s.id, { 'last-event-id': hello.id! });
  const reset = await old.next((e) => e.event === 'reset');
  assert.equal(Number(reset.id), Number(hello.id) + 4);
  old.close();
  // from inside the write, three back: within the window, the write's last three rows
  const recent = await stream(s.id, { 'last-event-id': String(Number(hello.id) + 1) });
  await recent.until((e) => e.filter((x) => x.event === 'rows-added').flatMap((x) => x.data.rowIds).length === 3, 5000, 'three rows replayed');
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(recent.events.some((e) => e.event === 'reset'), false);
  assert.deepEqual(recent.events.filter((x) => x.event === 'rows-added').flatMap((x) => x.data.rowIds), ids.slice(1));
  recent.close();
});

test('a focus reported without a stream is gone once it is not reported again', async () => {
  const s = await makeSheet(api, 'presence ttl', [{ title: 'Name', type: 'TEXT_NUMBER', primary: true }]);
  const r = await api.post(`/sheetd/sheets/${s.id}/presence`, { rowId: null, columnId: s.col.Name!.id });
  assert.equal(r.status, 200, r.text);
  const listed = await api.get(`/sheetd/sheets/${s.id}/presence`);
  assert.deepEqual(listed.body.viewers.map((v: { id: string; columnId: number }) => [v.id, v.columnId]), [[r.body.result.presenceId, s.col.Name!.id]]);
  const deadline = Date.now() + 3000;
  let viewers = listed.body.viewers as unknown[];
  while (viewers.length > 0 && Date.now() < deadline) {
    await new Promise((res) => setTimeout(res, 100));
    viewers = (await api.get(`/sheetd/sheets/${s.id}/presence`)).body.viewers;
  }
  assert.deepEqual(viewers, []);
});
