import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { serverForFile } from '../helpers/setup.ts';
import { client, type Client } from '../helpers/http.ts';
import { assertError, makeSheet, makeUser } from '../helpers/sheets.ts';
import { pngBytes } from '../helpers/images.ts';
import { startSuiteServer, notInCluster } from '../helpers/server.ts';

const s0 = serverForFile({ SHEETD_RATE_LIMIT: '100000' });
const COLUMNS = [{ title: 'Task', type: 'TEXT_NUMBER', primary: true }];

async function fixture(api: Client, name: string) {
  const s = await makeSheet(api, name, COLUMNS);
  const add = await api.post(`/sheets/${s.id}/rows`, { toBottom: true, cells: [{ columnId: s.col.Task!.id, value: 'first' }] });
  assert.equal(add.status, 200, JSON.stringify(add.body));
  return { id: s.id, rowId: add.body.result.id as number };
}

function simple(api: Client, path: string, bytes: Buffer | string, fileName: string | null, contentType = 'application/octet-stream', token?: string) {
  const headers: Record<string, string> = { 'content-type': contentType };
  if (fileName !== null) headers['content-disposition'] = `attachment; filename="${encodeURIComponent(fileName)}"`;
  return api.call('POST', path, { raw: bytes, headers, ...(token ? { token } : {}) });
}

async function multipart(t: { base: string; adminToken: string }, path: string, parts: Array<[string, Blob | string, string?]>, token = t.adminToken) {
  const form = new FormData();
  for (const [name, value, fileName] of parts) {
    if (typeof value === 'string') form.append(name, value);
    else form.append(name, value, fileName);
  }
  const res = await fetch(t.base + path, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  return { status: res.status, body: await res.json() as any }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** The bytes at a temporary URL, fetched without a token. */
async function download(url: string) {
  const res = await fetch(url);
  return { status: res.status, type: res.headers.get('content-type'), disposition: res.headers.get('content-disposition'), bytes: Buffer.from(await res.arrayBuffer()) };
}

describe('attachments: upload, get, list, delete', () => {
  test('a simple upload to the sheet: mimeType from the content, sizeInKb, createdBy; Get Attachment gives a temporary URL that serves it without a token', async () => {
    const s = await fixture(s0.api, 'simple');
    const png = pngBytes(8, 8, 3);
    // named .bin and sent as octet-stream: the type comes from the bytes
    const up = await simple(s0.api, `/sheets/${s.id}/attachments`, png, 'picture one.bin');
    assert.equal(up.status, 200, JSON.stringify(up.body));
    const a = up.body.result;
    assert.equal(a.attachmentType, 'FILE');
    assert.equal(a.name, 'picture one.bin');
    assert.equal(a.mimeType, 'image/png');
    assert.equal(a.parentType, 'SHEET');
    assert.equal(a.parentId, s.id);
    assert.equal(a.sizeInKb, 1);
    assert.equal(a.createdBy.email, 'admin@example.com');

    const got = await s0.api.get(`/sheets/${s.id}/attachments/${a.id}`);
    assert.equal(got.status, 200, JSON.stringify(got.body));
    assert.equal(typeof got.body.url, 'string');
    assert.ok(got.body.urlExpiresInMillis > 0);
    const file = await download(got.body.url);
    assert.equal(file.status, 200);
    assert.equal(file.type, 'image/png');
    assert.deepEqual(file.bytes, png);
    assert.match(file.disposition ?? '', /picture one\.bin|picture%20one\.bin/);
    // a forged token serves nothing
    const forged = await download(got.body.url.replace(/.$/, (c: string) => (c === 'A' ? 'B' : 'A')));
    assert.equal(forged.status, 404);
  });

  test('a text file takes its type from its name; rows take attachments; lists are paged', async () => {
    const s = await fixture(s0.api, 'rows');
    const t1 = await simple(s0.api, `/sheets/${s.id}/rows/${s.rowId}/attachments`, 'hello, world\n', 'notes.txt', '');
    assert.equal(t1.status, 200, JSON.stringify(t1.body));
    assert.equal(t1.body.result.mimeType, 'text/plain');
    assert.equal(t1.body.result.parentType, 'ROW');
    assert.equal(t1.body.result.parentId, s.rowId);
    const t2 = await simple(s0.api, `/sheets/${s.id}/attachments`, 'b', 'b.csv', 'text/csv');
    assert.equal(t2.status, 200);
    const onRow = await s0.api.get(`/sheets/${s.id}/rows/${s.rowId}/attachments`);
    assert.deepEqual(onRow.body.data.map((x: { id: number }) => x.id), [t1.body.result.id]);
    const all = await s0.api.get(`/sheets/${s.id}/attachments?pageSize=1&page=2`);
    assert.equal(all.body.totalCount, 2);
    assert.equal(all.body.data.length, 1);
    // a list item has no temporary URL
    assert.equal(all.body.data[0].url, undefined);
    // a simple upload sent as application/json (what the npm SDK calls a file whose type it
    // cannot tell from its name) is still the file, not a URL attachment's JSON
    const readme = await simple(s0.api, `/sheets/${s.id}/attachments`, 'plain readme text\n', 'README', 'application/json');
    assert.equal(readme.status, 200, readme.text);
    assert.equal(readme.body.result.name, 'README');
    assert.equal(readme.body.result.attachmentType, 'FILE');
    const data = await simple(s0.api, `/sheets/${s.id}/rows/${s.rowId}/attachments`, '{"attachmentType":"LINK","url":"https://example.com"}', 'data.json', 'application/json; charset=utf-8');
    assert.equal(data.status, 200, data.text);
    assert.equal(data.body.result.name, 'data.json');
    assert.equal(data.body.result.attachmentType, 'FILE');
    assert.equal(data.body.result.mimeType, 'application/json');
    const got = await s0.api.get(`/sheets/${s.id}/attachments/${data.body.result.id}`);
    assert.equal((await download(got.body.url)).bytes.toString(), '{"attachmentType":"LINK","url":"https://example.com"}');
    // JSON without a Content-Disposition is still a URL attachment
    const link = await s0.api.post(`/sheets/${s.id}/attachments`, { attachmentType: 'LINK', url: 'https://example.com/x', name: 'x' });
    assert.equal(link.status, 200, link.text);
    assert.equal(link.body.result.attachmentType, 'LINK');
  });

  test('URL attachments: LINK and the providers, with their sub-type rules', async () => {
    const s = await fixture(s0.api, 'links');
    const link = await s0.api.post(`/sheets/${s.id}/attachments`, { attachmentType: 'LINK', url: 'https://example.com/a', name: 'A' });
    assert.equal(link.status, 200, JSON.stringify(link.body));
    assert.equal(link.body.result.attachmentType, 'LINK');
    assert.equal(link.body.result.url, 'https://example.com/a');
    const drive = await s0.api.post(`/sheets/${s.id}/rows/${s.rowId}/attachments`, { attachmentType: 'GOOGLE_DRIVE', attachmentSubType: 'SPREADSHEET', url: 'https://docs.google.com/x', name: 'D' });
    assert.equal(drive.status, 200, JSON.stringify(drive.body));
    assert.equal(drive.body.result.attachmentSubType, 'SPREADSHEET');
    const egnyte = await s0.api.post(`/sheets/${s.id}/attachments`, { attachmentType: 'EGNYTE', attachmentSubType: 'FOLDER', url: 'https://x.egnyte.com/f', name: 'F' });
    assert.equal(egnyte.status, 200, JSON.stringify(egnyte.body));
    assertError(await s0.api.post(`/sheets/${s.id}/attachments`, { attachmentType: 'DROPBOX', attachmentSubType: 'FOLDER', url: 'https://d/x' }), 400, 1031);
    assertError(await s0.api.post(`/sheets/${s.id}/attachments`, { attachmentType: 'FILE', url: 'https://d/x' }), 400, 1051);
    assertError(await s0.api.post(`/sheets/${s.id}/attachments`, { attachmentType: 'FTP', url: 'https://d/x' }), 400, 1255);
    assertError(await s0.api.post(`/sheets/${s.id}/attachments`, { attachmentType: 'LINK' }), 400, 1012);
    const list = await s0.api.get(`/sheets/${s.id}/attachments`);
    assert.equal(list.body.totalCount, 3);
  });

  test('multipart uploads, and the multipart errors 1125, 1126, 1127, 1147', async () => {
    const s = await fixture(s0.api, 'multipart');
    const up = await multipart(s0.t, `/sheets/${s.id}/attachments`, [['file', new Blob(['%PDF-1.4\n%...'], { type: 'application/pdf' }), 'doc.pdf']]);
    assert.equal(up.status, 200, JSON.stringify(up.body));
    assert.equal(up.body.result.name, 'doc.pdf');
    assert.equal(up.body.result.mimeType, 'application/pdf');
    const dup = await multipart(s0.t, `/sheets/${s.id}/attachments`, [['file', new Blob(['a']), 'a.txt'], ['file', new Blob(['b']), 'b.txt']]);
    assertError(dup, 400, 1126);
    assertError(await multipart(s0.t, `/sheets/${s.id}/attachments`, [['other', '{}']]), 400, 1147);
    assertError(await multipart(s0.t, `/sheets/${s.id}/attachments`, []), 400, 1127);
    const unnamed = await fetch(`${s0.t.base}/sheets/${s.id}/attachments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${s0.t.adminToken}`, 'content-type': 'multipart/form-data; boundary=XX' },
      body: '--XX\r\nContent-Disposition: form-data; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nabc\r\n--XX--\r\n',
    });
    assertError({ status: unnamed.status, body: await unnamed.json() }, 400, 1125);
    // nothing of the refused requests was kept
    assert.equal((await s0.api.get(`/sheets/${s.id}/attachments`)).body.totalCount, 1);
  });

  test('simple-upload errors: no file name (1338), larger than 30 MB streamed (1074), declared too large (1074); viewers cannot attach (1004)', { skip: notInCluster('HAProxy drops the connection of a streamed body that sheetd cuts off at the limit (docs/operations.md)') }, async () => {
    const s = await fixture(s0.api, 'errors');
    assertError(await simple(s0.api, `/sheets/${s.id}/attachments`, 'abc', null), 400, 1338);
    // streamed without a length: the limit is enforced as the bytes arrive
    const big = new ReadableStream({
      start(c) {
        const chunk = new Uint8Array(1024 * 1024);
        for (let i = 0; i < 31; i++) c.enqueue(chunk);
        c.close();
      },
    });
    const res = await fetch(`${s0.t.base}/sheets/${s.id}/attachments`, {
      method: 'POST', body: big, duplex: 'half',
      headers: { authorization: `Bearer ${s0.t.adminToken}`, 'content-type': 'application/octet-stream', 'content-disposition': 'attachment; filename="big.bin"' },
    } as RequestInit);
    assertError({ status: res.status, body: await res.json() }, 400, 1074);
    const declared = await fetch(`${s0.t.base}/sheets/${s.id}/attachments`, {
      method: 'POST', body: 'x',
      headers: { authorization: `Bearer ${s0.t.adminToken}`, 'content-type': 'text/plain', 'content-length': String(40 * 1024 * 1024), 'content-disposition': 'attachment; filename="x.txt"' },
    }).catch(() => null);
    if (declared !== null) assertError({ status: declared.status, body: await declared.json() }, 400, 1074);
    const viewer = await makeUser(s0.t, s0.api, 'att-viewer@example.com');
    const share = await s0.api.post(`/sheets/${s.id}/shares`, [{ email: 'att-viewer@example.com', accessLevel: 'VIEWER' }]);
    assert.equal(share.status, 200, JSON.stringify(share.body));
    assertError(await simple(s0.api, `/sheets/${s.id}/attachments`, 'abc', 'a.txt', 'text/plain', viewer.token), 403, 1004);
    // viewers read
    assert.equal((await client(s0.t.base, viewer.token).get(`/sheets/${s.id}/attachments`)).status, 200);
    assert.equal((await s0.api.get(`/sheets/${s.id}/attachments`)).body.totalCount, 0);
  });

  test('versions: a new version replaces the file in its parent\'s list, the versions list newest first, delete all versions removes it', async () => {
    const s = await fixture(s0.api, 'versions');
    const v1 = (await simple(s0.api, `/sheets/${s.id}/attachments`, 'one', 'v.txt', 'text/plain')).body.result;
    const v2res = await simple(s0.api, `/sheets/${s.id}/attachments/${v1.id}/versions`, 'two!', 'v.txt', 'text/plain');
    assert.equal(v2res.status, 200, JSON.stringify(v2res.body));
    const v2 = v2res.body.result;
    assert.notEqual(v2.id, v1.id);
    const list = await s0.api.get(`/sheets/${s.id}/attachments`);
    assert.deepEqual(list.body.data.map((x: { id: number }) => x.id), [v2.id]);
    const versions = await s0.api.get(`/sheets/${s.id}/attachments/${v1.id}/versions`);
    assert.deepEqual(versions.body.data.map((x: { id: number }) => x.id), [v2.id, v1.id]);
    const link = (await s0.api.post(`/sheets/${s.id}/attachments`, { attachmentType: 'LINK', url: 'https://e.com' })).body.result;
    assertError(await simple(s0.api, `/sheets/${s.id}/attachments/${link.id}/versions`, 'x', 'x.txt'), 400, 1101);
    // deleting the current version brings the previous one back
    assert.equal((await s0.api.del(`/sheets/${s.id}/attachments/${v2.id}`)).status, 200);
    const after1 = await s0.api.get(`/sheets/${s.id}/attachments`);
    assert.deepEqual(after1.body.data.map((x: { id: number }) => x.id).sort(), [v1.id, link.id].sort());
    assert.equal((await s0.api.del(`/sheets/${s.id}/attachments/${v1.id}/versions`)).status, 200);
    assertError(await s0.api.get(`/sheets/${s.id}/attachments/${v1.id}`), 404, 1006);
  });

  test('Get Sheet and Get Row with include=attachments,discussions show them where they hang', async () => {
    const s = await fixture(s0.api, 'include');
    const onSheet = (await simple(s0.api, `/sheets/${s.id}/attachments`, 'x', 'sheet.txt', 'text/plain')).body.result;
    const onRow = (await s0.api.post(`/sheets/${s.id}/rows/${s.rowId}/attachments`, { attachmentType: 'LINK', url: 'https://e.com/r' })).body.result;
    const d = (await s0.api.post(`/sheets/${s.id}/rows/${s.rowId}/discussions`, { comment: { text: 'row talk' } })).body.result;
    const sd = (await s0.api.post(`/sheets/${s.id}/discussions`, { comment: { text: 'sheet talk' } })).body.result;
    const sheet = await s0.api.get(`/sheets/${s.id}?include=attachments,discussions`);
    assert.equal(sheet.status, 200, JSON.stringify(sheet.body));
    assert.deepEqual(sheet.body.attachments.map((a: { id: number }) => a.id), [onSheet.id]);
    assert.deepEqual(sheet.body.discussions.map((x: { id: number }) => x.id), [sd.id]);
    assert.deepEqual(sheet.body.rows[0].attachments.map((a: { id: number }) => a.id), [onRow.id]);
    assert.deepEqual(sheet.body.rows[0].discussions.map((x: { id: number }) => x.id), [d.id]);
    const row = await s0.api.get(`/sheets/${s.id}/rows/${s.rowId}?include=attachments,discussions`);
    assert.deepEqual(row.body.attachments.map((a: { id: number }) => a.id), [onRow.id]);
    assert.deepEqual(row.body.discussions.map((x: { id: number }) => x.id), [d.id]);
    const without = await s0.api.get(`/sheets/${s.id}`);
    assert.equal(without.body.attachments, undefined);
    assert.equal(without.body.rows[0].attachments, undefined);
  });

  test('a temporary URL from one sheetd process is served by another on the same database', { skip: notInCluster('starts a second server on its data directory (test/cluster/consistency.test.ts reads across processes)') }, async () => {
    const s = await fixture(s0.api, 'two processes');
    const a = (await simple(s0.api, `/sheets/${s.id}/attachments`, 'shared bytes', 'shared.txt', 'text/plain')).body.result;
    const url = (await s0.api.get(`/sheets/${s.id}/attachments/${a.id}`)).body.url as string;
    const other = await startSuiteServer({ SHEETD_DATA_DIR: s0.t.dataDir }, { databaseUrl: s0.t.config.databaseUrl ?? '' });
    try {
      const got = await download(url.replace(s0.t.url, other.url));
      assert.equal(got.status, 200);
      assert.equal(got.bytes.toString(), 'shared bytes');
    } finally {
      await other.server.close();
    }
  });
});
