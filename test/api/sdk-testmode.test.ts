import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import smartsheet from 'smartsheet';
import { startTestServer, type RunningTestServer } from 'sheetd/testing';

// The recipe of docs/testing.md, end to end with the official JavaScript SDK: an in-process test
// server, reset between tests, a seeded fixture, a provoked 429 the SDK retries, the journal,
// an expired token, a sent mail. (On PostgreSQL runs too: the in-process server is SQLite.)
let s: RunningTestServer;
let startMs = 0;
before(async () => {
  const started = Date.now();
  s = await startTestServer();
  startMs = Date.now() - started;
});
after(() => s.close());
beforeEach(() => s.reset());

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = any;
const sdk = (opts: Record<string, unknown> = {}): Loose => smartsheet.createClient({ accessToken: s.token, baseUrl: s.baseUrl, logLevel: 'error', ...opts });

const FIXTURE = {
  users: [{ key: 'ann', email: 'ann@example.com', firstName: 'Ann', licensedSheetCreator: true }],
  groups: [{ key: 'team', name: 'Team', members: ['ann'] }],
  workspaces: [{ key: 'ws', name: 'Projects' }],
  folders: [{ key: 'q1', name: 'Q1', workspace: 'ws' }],
  sheets: [{
    key: 'tasks', name: 'Tasks', folder: 'q1',
    columns: [{ key: 'task', title: 'Task', type: 'TEXT_NUMBER', primary: true }, { key: 'done', title: 'Done', type: 'CHECKBOX' }],
    rows: [{ key: 'r1', cells: { task: 'Write tests', done: true } }, { key: 'r2', cells: { Task: 'Ship' } }],
  }],
  shares: [{ sheet: 'tasks', group: 'team', accessLevel: 'EDITOR' }, { workspace: 'ws', user: 'ann', accessLevel: 'VIEWER' }],
};

test('the in-process server starts quickly', (t) => {
  // under a second on an idle machine; the bound is loose because test files share the CPU
  t.diagnostic(`started in ${startMs} ms`);
  assert.ok(startMs < 20_000);
});

test('seed a fixture and read it back through the SDK', async () => {
  const ids = await s.seed(FIXTURE) as Loose;
  const c = sdk();
  const sheet = await c.sheets.getSheet({ id: ids.sheets.tasks.id });
  assert.equal(sheet.name, 'Tasks');
  assert.deepEqual(sheet.rows.map((r: Loose) => r.id), [ids.sheets.tasks.rows.r1, ids.sheets.tasks.rows.r2]);
  assert.equal(sheet.rows[0].cells.find((x: Loose) => x.columnId === ids.sheets.tasks.columns.done).value, true);
  assert.equal(sheet.rows[1].cells[0].value, 'Ship');
  // (this SDK version lists shares only through /shares?assetType=: plain HTTP here)
  const shares = await (await fetch(`${s.url}/sheets/${ids.sheets.tasks.id}/shares`, { headers: { authorization: `Bearer ${s.token}` } })).json() as Loose;
  assert.ok(shares.data.some((x: Loose) => x.groupId === ids.groups.team && x.accessLevel === 'EDITOR'));
  const children = await c.folders.getFolderChildren({ folderId: ids.folders.q1 });
  assert.deepEqual(children.data.map((x: Loose) => x.id), [ids.sheets.tasks.id]);
  const users = await c.users.listAllUsers({});
  assert.ok(users.data.some((u: Loose) => u.id === ids.users.ann && u.email === 'ann@example.com'));
});

test('a failing fixture answers the step\'s error and leaves nothing behind', async () => {
  const bad = { ...FIXTURE, sheets: [{ ...FIXTURE.sheets[0], rows: [{ cells: { Nope: 1 } }] }] };
  await assert.rejects(s.seed(bad), (e: Loose) => e.statusCode === 400 && e.body.errorCode === 1031);
  const bad2 = { users: [{ email: 'b@example.com' }], sheets: [{ name: 'x', columns: [{ title: 'A', type: 'NOPE', primary: true }] }] };
  await assert.rejects(s.seed(bad2), (e: Loose) => e.statusCode === 400 && e.body.detail.step === 'sheets[0]');
  const c = sdk();
  assert.equal((await c.users.listAllUsers({})).totalCount, 1);
  assert.equal((await c.sheets.listSheets({})).totalCount, 0);
});

test('reset between tests: the previous test\'s data is gone, the token still works', async () => {
  const c = sdk();
  assert.equal((await c.sheets.listSheets({})).totalCount, 0);
  assert.equal((await c.users.getCurrentUser()).email, 'admin@example.com');
});

test('a provoked 429 is retried by the SDK, and the journal shows both requests', async () => {
  const c = sdk({ maxRetryDurationSeconds: 10, calcRetryBackoff: () => 50 });
  await s.control('POST', '/faults', { method: 'GET', path: '/sheets', status: 429, count: 2, retryAfter: 1 });
  const list = await c.sheets.listSheets({});
  assert.equal(list.totalCount, 0);
  const j = (await s.control('GET', '/journal?path=/sheets')) as Loose;
  assert.deepEqual(j.data.map((e: Loose) => [e.status, e.errorCode]), [[429, 4003], [429, 4003], [200, null]]);
  // without retries the SDK reports the error
  await s.control('POST', '/faults', { path: '/sheets', status: 500 });
  await assert.rejects(sdk({ maxRetryDurationSeconds: 0.001 }).sheets.listSheets({}), (e: Loose) => e.statusCode === 500 && e.errorCode === 4000);
});

test('advancing the clock expires a temporary attachment URL', async () => {
  const c = sdk();
  const sheet = (await c.sheets.createSheet({ body: { name: 'files', columns: [{ title: 'A', type: 'TEXT_NUMBER', primary: true }] } })).result;
  const att = await c.sheets.addFileAttachment({ sheetId: sheet.id, fileSize: 5, fileName: 'a.txt', fileStream: (await import('node:stream')).Readable.from([Buffer.from('hello')]) });
  const got = await c.sheets.getAttachment({ sheetId: sheet.id, attachmentId: att.result.id });
  assert.equal((await fetch(got.url)).status, 200);
  await s.clock.advance('P1D');
  assert.equal((await fetch(got.url)).status, 404);
});

test('a sent mail is in the outbox', async () => {
  const ids = await s.seed({ sheets: [{ key: 'm', name: 'Mailed', columns: [{ title: 'A', type: 'TEXT_NUMBER', primary: true }] }] }) as Loose;
  // plain HTTP, as any language would (this SDK version shares through /shares?assetType=)
  const r = await fetch(`${s.url}/sheets/${ids.sheets.m.id}/shares?sendEmail=true`, {
    method: 'POST', headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
    body: JSON.stringify([{ email: 'pat@example.com', accessLevel: 'VIEWER' }]),
  });
  assert.equal(r.status, 200);
  let mails: Loose[] = [];
  for (let i = 0; i < 100 && mails.length === 0; i++) {
    mails = ((await s.control('GET', '/outbox')) as Loose).data;
    if (mails.length === 0) await new Promise((r) => setTimeout(r, 50));
  }
  assert.deepEqual(mails.map((m) => m.to), [['pat@example.com']]);
});
