import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { serverForFile } from '../helpers/setup.ts';
import { notInCluster } from '../helpers/server.ts';
import { blobCount } from '../helpers/blobs.ts';
import { client, type Client, allEvents } from '../helpers/http.ts';
import { assertError, makeUser } from '../helpers/sheets.ts';

const s0 = serverForFile({ SHEETD_RATE_LIMIT: '100000', SHEETD_JOB_POLL_MS: '20' });
const COLUMNS = [{ title: 'Task', type: 'TEXT_NUMBER', primary: true }];

async function fixture(api: Client, name: string, path = '/sheets') {
  const res = await api.post(path, { name, columns: COLUMNS });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const id = res.body.result.id as number;
  const colId = res.body.result.columns[0].id as number;
  const add = await api.post(`/sheets/${id}/rows`, [{ toBottom: true, cells: [{ columnId: colId, value: 'a' }] }, { toBottom: true, cells: [{ columnId: colId, value: 'b' }] }]);
  assert.equal(add.status, 200, JSON.stringify(add.body));
  return { id, rowIds: (add.body.result as Array<{ id: number }>).map((r) => r.id) };
}

async function multipart(base: string, token: string, p: string, parts: Array<[string, Blob, string?]>) {
  const form = new FormData();
  for (const [name, value, fileName] of parts) form.append(name, value, fileName);
  const res = await fetch(base + p, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  return { status: res.status, body: await res.json() as any }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

const json = (v: unknown) => new Blob([JSON.stringify(v)], { type: 'application/json' });


async function until(what: string, ok: () => boolean, refresh: () => Promise<void> = async () => {}): Promise<void> {
  await refresh();
  for (let i = 0; i < 500 && !ok(); i++) {
    await new Promise((r) => setTimeout(r, 20));
    await refresh();
  }
  assert.ok(ok(), what);
}

async function fileTo(api: Client, p: string, name: string) {
  const r = await api.call('POST', p, { raw: `contents of ${name}`, headers: { 'content-type': 'text/plain', 'content-disposition': `attachment; filename="${name}"` } });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.result;
}

describe('discussions and comments', () => {
  test('create on the sheet (JSON) and on a row (multipart with a file), list with include, get, add comment', async () => {
    const s = await fixture(s0.api, 'talk');
    const d1 = await s0.api.post(`/sheets/${s.id}/discussions`, { comment: { text: 'Sheet-level question' } });
    assert.equal(d1.status, 200, JSON.stringify(d1.body));
    assert.equal(d1.body.result.title, 'Sheet-level question');
    assert.equal(d1.body.result.parentType, 'SHEET');
    assert.equal(d1.body.result.comments[0].text, 'Sheet-level question');

    const d2 = await multipart(s0.t.base, s0.t.adminToken, `/sheets/${s.id}/rows/${s.rowIds[0]}/discussions`, [
      ['discussion', json({ title: 'Row talk', comment: { text: 'see file' } })],
      ['file', new Blob(['%PDF-1.4 x'], { type: 'application/pdf' }), 'spec.pdf'],
    ]);
    assert.equal(d2.status, 200, JSON.stringify(d2.body));
    assert.equal(d2.body.result.parentType, 'ROW');
    assert.equal(d2.body.result.comments[0].attachments[0].name, 'spec.pdf');
    assert.equal(d2.body.result.comments[0].attachments[0].parentType, 'COMMENT');

    const c2 = await s0.api.post(`/sheets/${s.id}/discussions/${d2.body.result.id}/comments`, { text: 'second' });
    assert.equal(c2.status, 200, JSON.stringify(c2.body));
    assert.equal(c2.body.result.discussionId, d2.body.result.id);

    const list = await s0.api.get(`/sheets/${s.id}/discussions?include=comments,attachments`);
    assert.equal(list.body.totalCount, 2);
    const row = list.body.data.find((d: { id: number }) => d.id === d2.body.result.id);
    assert.equal(row.commentCount, 2);
    assert.deepEqual(row.comments.map((c: { text: string }) => c.text), ['see file', 'second']);
    assert.equal(row.commentAttachments.length, 1);
    const plain = await s0.api.get(`/sheets/${s.id}/rows/${s.rowIds[0]}/discussions`);
    assert.equal(plain.body.totalCount, 1);
    assert.equal(plain.body.data[0].comments, undefined);

    const one = await s0.api.get(`/sheets/${s.id}/discussions/${d1.body.result.id}`);
    assert.equal(one.status, 200);
    assert.equal(one.body.comments.length, 1);
    const atts = await s0.api.get(`/sheets/${s.id}/discussions/${d2.body.result.id}/attachments`);
    assert.equal(atts.body.totalCount, 1);
    const rowAtts = await s0.api.get(`/sheets/${s.id}/rows/${s.rowIds[0]}/attachments`);
    assert.equal(rowAtts.body.totalCount, 1);
    // a comment attachment added afterwards, by its author
    const more = await fileTo(s0.api, `/sheets/${s.id}/comments/${c2.body.result.id}/attachments`, 'more.txt');
    assert.equal(more.parentType, 'COMMENT');
    const comment = await s0.api.get(`/sheets/${s.id}/comments/${c2.body.result.id}`);
    assert.equal(comment.body.attachments.length, 1);
    assertError(await s0.api.call('POST', `/sheets/${s.id}/attachments/${more.id}/versions`, { raw: 'v2', headers: { 'content-type': 'text/plain', 'content-disposition': 'attachment; filename="more.txt"' } }), 400, 1100);
  });

  test('access: viewers read, commenters comment, only the author edits, admins delete; bad input changes nothing', async () => {
    const s = await fixture(s0.api, 'access');
    const viewer = await makeUser(s0.t, s0.api, 'd-viewer@example.com');
    const commenter = await makeUser(s0.t, s0.api, 'd-commenter@example.com');
    const share = await s0.api.post(`/sheets/${s.id}/shares?accessApiLevel=1`, [
      { email: 'd-viewer@example.com', accessLevel: 'VIEWER' }, { email: 'd-commenter@example.com', accessLevel: 'COMMENTER' },
    ]);
    assert.equal(share.status, 200, JSON.stringify(share.body));
    const v = client(s0.t.base, viewer.token);
    const c = client(s0.t.base, commenter.token);
    const d = (await s0.api.post(`/sheets/${s.id}/discussions`, { comment: { text: 'admin says' } })).body.result;
    assertError(await v.post(`/sheets/${s.id}/discussions/${d.id}/comments`, { text: 'no' }), 403, 1004);
    assert.equal((await v.get(`/sheets/${s.id}/discussions/${d.id}`)).status, 200);
    const mine = await c.post(`/sheets/${s.id}/discussions/${d.id}/comments`, { text: 'commenter says' });
    assert.equal(mine.status, 200, JSON.stringify(mine.body));
    const withLevel = await c.get(`/sheets/${s.id}/discussions/${d.id}?accessApiLevel=1`);
    assert.equal(withLevel.body.accessLevel, 'COMMENTER');
    // only the author edits, not even the owner
    assertError(await s0.api.put(`/sheets/${s.id}/comments/${mine.body.result.id}`, { text: 'edited by owner' }), 403, 1081);
    assertError(await c.put(`/sheets/${s.id}/comments/${d.comments[0].id}`, { text: 'edited by commenter' }), 403, 1081);
    const edited = await c.put(`/sheets/${s.id}/comments/${mine.body.result.id}`, { text: 'commenter edited' });
    assert.equal(edited.status, 200, JSON.stringify(edited.body));
    assert.equal(edited.body.result.text, 'commenter edited');
    assertError(await c.put(`/sheets/${s.id}/comments/${mine.body.result.id}`, { text: 42 }), 400, 1031);
    assertError(await c.post(`/sheets/${s.id}/discussions`, { comment: {} }), 400, 1012);
    assertError(await c.post(`/sheets/${s.id}/discussions`, { title: 'x' }), 400, 1012);
    // another commenter's comment: not theirs to delete; the admin deletes it
    assertError(await c.del(`/sheets/${s.id}/comments/${d.comments[0].id}`), 403, 1081);
    assert.equal((await s0.api.del(`/sheets/${s.id}/comments/${mine.body.result.id}`)).status, 200);
    assert.equal((await s0.api.get(`/sheets/${s.id}/discussions/${d.id}`)).body.commentCount, 1);
    assert.equal((await s0.api.del(`/sheets/${s.id}/discussions/${d.id}`)).status, 200);
    assertError(await s0.api.get(`/sheets/${s.id}/discussions/${d.id}`), 404, 1006);
    assert.equal((await s0.api.get(`/sheets/${s.id}/discussions`)).body.totalCount, 0);
  });

  test('every mutation appears in /events', async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    const s = await fixture(s0.api, 'events');
    const d = (await s0.api.post(`/sheets/${s.id}/discussions`, { comment: { text: 'e1' } })).body.result;
    const c = (await s0.api.post(`/sheets/${s.id}/discussions/${d.id}/comments`, { text: 'e2' })).body.result;
    await s0.api.put(`/sheets/${s.id}/comments/${c.id}`, { text: 'e2!' });
    const a = await fileTo(s0.api, `/sheets/${s.id}/attachments`, 'e.txt');
    await s0.api.del(`/sheets/${s.id}/attachments/${a.id}`);
    await s0.api.del(`/sheets/${s.id}/comments/${c.id}`);
    await s0.api.del(`/sheets/${s.id}/discussions/${d.id}`);
    const seen = (await allEvents<{ objectType: string; action: string; objectId: number }>(s0.api, since)).map((e) => `${e.objectType} ${e.action} ${e.objectId}`);
    for (const want of [`DISCUSSION CREATE ${d.id}`, `COMMENT CREATE ${c.id}`, `COMMENT UPDATE ${c.id}`, `ATTACHMENT CREATE ${a.id}`, `ATTACHMENT DELETE ${a.id}`, `COMMENT DELETE ${c.id}`, `DISCUSSION DELETE ${d.id}`]) {
      assert.ok(seen.includes(want), `${want} in ${JSON.stringify(seen)}`);
    }
  });

  test('deleting rows, a sheet or a workspace removes their files from disk (by a job): nothing stays orphaned', { skip: notInCluster('counts the files of its own data directory') }, async () => {
    const dir = s0.t.dataDir;
    const ws = (await s0.api.post('/workspaces', { name: 'Doomed' })).body.result;
    const s = await fixture(s0.api, 'files', `/workspaces/${ws.id}/sheets`);
    const other = await fixture(s0.api, 'other');
    // blob deletions other tests of this file queued run first: the count below is this test's own
    const pendingDeletions = async () => (await s0.t.server.store.db.selectFrom('jobs').select('id').where('type', '=', 'blobs.delete').execute()).length;
    for (let i = 0; i < 300 && (await pendingDeletions()) > 0; i++) await new Promise((r) => setTimeout(r, 50));
    const start = blobCount(dir);
    await fileTo(s0.api, `/sheets/${s.id}/rows/${s.rowIds[0]}/attachments`, 'r1.txt');
    const d = await multipart(s0.t.base, s0.t.adminToken, `/sheets/${s.id}/rows/${s.rowIds[0]}/discussions`, [
      ['discussion', json({ comment: { text: 'with file' } })], ['file', new Blob(['x']), 'c.txt'],
    ]);
    assert.equal(d.status, 200, JSON.stringify(d.body));
    await fileTo(s0.api, `/sheets/${s.id}/rows/${s.rowIds[1]}/attachments`, 'r2.txt');
    await fileTo(s0.api, `/sheets/${s.id}/attachments`, 'sheet.txt');
    await fileTo(s0.api, `/sheets/${other.id}/attachments`, 'other.txt');
    assert.equal(blobCount(dir), start + 5);

    const del = await s0.api.del(`/sheets/${s.id}/rows?ids=${s.rowIds[0]}`);
    assert.equal(del.status, 200, JSON.stringify(del.body));
    await until('the files of the deleted row go', () => blobCount(dir) === start + 3);
    assert.equal((await s0.api.get(`/sheets/${s.id}/attachments`)).body.totalCount, 2);
    assert.equal((await s0.api.get(`/sheets/${s.id}/discussions`)).body.totalCount, 0);

    assert.equal((await s0.api.del(`/workspaces/${ws.id}`)).status, 200);
    await until('the files of the workspace\'s sheet go', () => blobCount(dir) === start + 1);
    const sheetGone = await fixture(s0.api, 'gone');
    await fileTo(s0.api, `/sheets/${sheetGone.id}/attachments`, 'g.txt');
    assert.equal((await s0.api.del(`/sheets/${sheetGone.id}`)).status, 200);
    await until('the files of the deleted sheet go', () => blobCount(dir) === start + 1);
    // the other sheet's file is still served
    const list = await s0.api.get(`/sheets/${other.id}/attachments`);
    const got = await s0.api.get(`/sheets/${other.id}/attachments/${list.body.data[0].id}`);
    assert.equal(await (await fetch(got.body.url)).text(), 'contents of other.txt');
  });

  test('copy and move rows with include=attachments,discussions carry them along; a moved file stays on disk and is served from its new sheet', { skip: notInCluster('counts the files of its own data directory') }, async () => {
    const dir = s0.t.dataDir;
    const src = await fixture(s0.api, 'from');
    const dest = await fixture(s0.api, 'to');
    const file = await fileTo(s0.api, `/sheets/${src.id}/rows/${src.rowIds[0]}/attachments`, 'carry.txt');
    const d = await multipart(s0.t.base, s0.t.adminToken, `/sheets/${src.id}/rows/${src.rowIds[0]}/discussions`, [
      ['discussion', json({ comment: { text: 'carried' } })], ['file', new Blob(['cc']), 'cc.txt'],
    ]);
    assert.equal(d.status, 200, JSON.stringify(d.body));
    const copy = await s0.api.post(`/sheets/${src.id}/rows/copy?include=attachments,discussions`, { rowIds: [src.rowIds[0]], to: { sheetId: dest.id } });
    assert.equal(copy.status, 200, JSON.stringify(copy.body));
    const copied = copy.body.rowMappings[0].to;
    assert.equal((await s0.api.get(`/sheets/${dest.id}/rows/${copied}/attachments`)).body.totalCount, 2);
    const talks = await s0.api.get(`/sheets/${dest.id}/rows/${copied}/discussions?include=comments,attachments`);
    assert.equal(talks.body.data[0].comments[0].text, 'carried');
    assert.equal(talks.body.data[0].commentAttachments[0].name, 'cc.txt');
    // without include, nothing comes along
    const bare = await s0.api.post(`/sheets/${src.id}/rows/copy`, { rowIds: [src.rowIds[0]], to: { sheetId: dest.id } });
    assert.equal((await s0.api.get(`/sheets/${dest.id}/rows/${bare.body.rowMappings[0].to}/attachments`)).body.totalCount, 0);

    const before = blobCount(dir);
    const move = await s0.api.post(`/sheets/${src.id}/rows/move?include=attachments,discussions`, { rowIds: [src.rowIds[0]], to: { sheetId: dest.id } });
    assert.equal(move.status, 200, JSON.stringify(move.body));
    const moved = move.body.rowMappings[0].to;
    assert.equal((await s0.api.get(`/sheets/${src.id}/attachments`)).body.totalCount, 0);
    const atts = await s0.api.get(`/sheets/${dest.id}/rows/${moved}/attachments`);
    assert.equal(atts.body.totalCount, 2);
    const own = atts.body.data.find((a: { name: string }) => a.name === file.name);
    // the deletion job of the source rows' files has run, and kept the blobs the copies share
    let pending = 1;
    await until('the blob deletion jobs have run', () => pending === 0 && blobCount(dir) === before, async () => {
      pending = (await s0.t.server.store.db.selectFrom('jobs').select('id').where('type', '=', 'blobs.delete').where('dead_at', 'is', null).execute()).length;
    });
    const got = await s0.api.get(`/sheets/${dest.id}/attachments/${own.id}`);
    assert.equal(await (await fetch(got.body.url)).text(), 'contents of carry.txt');
  });

  test('filters with HAS_ATTACHMENTS, NO_ATTACHMENTS, HAS_COMMENTS and NO_COMMENTS match the rows that have them', async () => {
    const s = await fixture(s0.api, 'filters');
    await fileTo(s0.api, `/sheets/${s.id}/rows/${s.rowIds[0]}/attachments`, 'f.txt');
    assert.equal((await s0.api.post(`/sheets/${s.id}/rows/${s.rowIds[1]}/discussions`, { comment: { text: 'c' } })).status, 200);
    const hiddenBy = async (operator: string) => {
      const f = await s0.api.post(`/sheetd/sheets/${s.id}/filters`, { name: operator, query: { criteria: [{ operator }] } });
      assert.equal(f.status, 200, JSON.stringify(f.body));
      const sheet = await s0.api.get(`/sheets/${s.id}?filterId=${f.body.result.id}`);
      return (sheet.body.rows as Array<{ id: number; filteredOut: boolean }>).filter((r) => r.filteredOut).map((r) => r.id);
    };
    assert.deepEqual(await hiddenBy('HAS_ATTACHMENTS'), [s.rowIds[1]]);
    assert.deepEqual(await hiddenBy('NO_ATTACHMENTS'), [s.rowIds[0]]);
    assert.deepEqual(await hiddenBy('HAS_COMMENTS'), [s.rowIds[0]]);
    assert.deepEqual(await hiddenBy('NO_COMMENTS'), [s.rowIds[1]]);
  });

  test('Copy Sheet with include=data,attachments,discussions copies the sheet\'s and its rows\' attachments and discussions', async () => {
    const s = await fixture(s0.api, 'copy me');
    await fileTo(s0.api, `/sheets/${s.id}/attachments`, 'top.txt');
    await fileTo(s0.api, `/sheets/${s.id}/rows/${s.rowIds[1]}/attachments`, 'row.txt');
    assert.equal((await s0.api.post(`/sheets/${s.id}/discussions`, { comment: { text: 'sheet' } })).status, 200);
    assert.equal((await s0.api.post(`/sheets/${s.id}/rows/${s.rowIds[0]}/discussions`, { comment: { text: 'row' } })).status, 200);
    const copy = await s0.api.post(`/sheets/${s.id}/copy?include=data,attachments,discussions`, { destinationType: 'home', newName: 'the copy' });
    assert.equal(copy.status, 200, JSON.stringify(copy.body));
    const got = await s0.api.get(`/sheets/${copy.body.result.id}?include=attachments,discussions`);
    assert.deepEqual(got.body.attachments.map((a: { name: string }) => a.name), ['top.txt']);
    assert.deepEqual(got.body.discussions.map((d: { title: string }) => d.title), ['sheet']);
    assert.deepEqual(got.body.rows[1].attachments.map((a: { name: string }) => a.name), ['row.txt']);
    assert.deepEqual(got.body.rows[0].discussions.map((d: { title: string }) => d.title), ['row']);
    const file = await s0.api.get(`/sheets/${copy.body.result.id}/attachments/${got.body.attachments[0].id}`);
    assert.equal(await (await fetch(file.body.url)).text(), 'contents of top.txt');
    const plain = await s0.api.post(`/sheets/${s.id}/copy?include=data`, { destinationType: 'home', newName: 'bare copy' });
    assert.equal((await s0.api.get(`/sheets/${plain.body.result.id}/attachments`)).body.totalCount, 0);
  });

  test('a multipart JSON part without a file name, as the Python SDK sends it, is read as JSON', async () => {
    const s = await fixture(s0.api, 'python-style');
    const body = [
      '--BB', 'Content-Disposition: form-data; name="discussion"', 'Content-Type: application/json', '', JSON.stringify({ comment: { text: 'from python' } }),
      '--BB', 'Content-Disposition: form-data; name="file"; filename="p.txt"', 'Content-Type: text/plain', '', 'python file',
      '--BB--', '',
    ].join('\r\n');
    const res = await fetch(`${s0.t.base}/sheets/${s.id}/discussions`, {
      method: 'POST', headers: { authorization: `Bearer ${s0.t.adminToken}`, 'content-type': 'multipart/form-data; boundary=BB' }, body,
    });
    const out = await res.json() as any; // eslint-disable-line @typescript-eslint/no-explicit-any
    assert.equal(res.status, 200, JSON.stringify(out));
    assert.equal(out.result.comments[0].text, 'from python');
    assert.equal(out.result.comments[0].attachments[0].name, 'p.txt');
  });
});
