import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { simpleParser, type ParsedMail } from 'mailparser';
import { serverForFile } from '../helpers/setup.ts';
import { notInCluster } from '../helpers/server.ts';
import type { Client } from '../helpers/http.ts';
import { assertError, makeSheet, makeUser } from '../helpers/sheets.ts';
import { gifBytes, pngBytes } from '../helpers/images.ts';
import { blobCount } from '../helpers/blobs.ts';
import { browser, inputValue } from '../helpers/browser.ts';
import { allEvents } from '../helpers/http.ts';

const s0 = serverForFile({ SHEETD_RATE_LIMIT: '100000', SHEETD_JOB_POLL_MS: '50' });
const COLUMNS = [{ title: 'Task', type: 'TEXT_NUMBER', primary: true }, { title: 'Notes', type: 'TEXT_NUMBER' }];
const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');
let n = 0;

async function fixture(api: Client = s0.api) {
  const s = await makeSheet(api, `proofs ${++n}`, COLUMNS);
  const add = await api.post(`/sheets/${s.id}/rows`, [
    { toBottom: true, cells: [{ columnId: s.col.Task!.id, value: 'Poster' }] },
    { toBottom: true, cells: [{ columnId: s.col.Task!.id, value: 'Flyer' }] },
  ]);
  assert.equal(add.status, 200, JSON.stringify(add.body));
  const [r1, r2] = add.body.result.map((r: { id: number }) => r.id) as number[];
  return { id: s.id, rowId: r1!, otherRowId: r2! };
}

function raw(path: string, bytes: Buffer | string, fileName: string, contentType = 'application/octet-stream', token?: string) {
  return s0.api.call('POST', path, { raw: bytes, headers: { 'content-type': contentType, 'content-disposition': `attachment; filename="${fileName}"` }, ...(token ? { token } : {}) });
}

async function multipart(path: string, parts: Array<[string, Blob | string, string?]>, token = s0.t.adminToken) {
  const form = new FormData();
  for (const [name, value, fileName] of parts) {
    if (typeof value === 'string') form.append(name, value);
    else form.append(name, value, fileName);
  }
  const res = await fetch(s0.t.base + path, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  return { status: res.status, body: await res.json() as any }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

const blob = (b: Buffer, type: string) => new Blob([new Uint8Array(b)], { type });

async function proofOn(sheetId: number, rowId: number) {
  const r = await raw(`/sheets/${sheetId}/rows/${rowId}/proofs`, pngBytes(4, 4, 1), 'poster.png', 'image/png');
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.result as { id: number; attachments: Array<{ id: number }> };
}

async function download(url: string) {
  const res = await fetch(url);
  return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()) };
}

describe('proofs: create, read, status, delete', () => {
  test('a raw-body upload makes a proof on a row: named by its primary value, IMAGE, version 1, its file an attachment with parent PROOF', async () => {
    const s = await fixture();
    const png = pngBytes(6, 6, 2);
    const r = await raw(`/sheets/${s.id}/rows/${s.rowId}/proofs`, png, 'poster.png', 'image/png');
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const p = r.body.result;
    assert.equal(p.originalId, p.id);
    assert.equal(p.name, 'Poster');
    assert.equal(p.proofType, 'IMAGE');
    assert.equal(p.version, 1);
    assert.equal(p.isCompleted, false);
    assert.equal(p.lastUpdatedBy.email, 'admin@example.com');
    assert.equal(p.attachments.length, 1);
    assert.equal(p.attachments[0].parentType, 'PROOF');
    assert.equal(p.attachments[0].parentId, p.id);
    assert.equal(p.attachments[0].mimeType, 'image/png');

    const list = await s0.api.get(`/sheets/${s.id}/proofs`);
    assert.equal(list.status, 200);
    assert.equal(list.body.totalCount, 1);
    assert.equal(list.body.data[0].id, p.id);
    assert.equal(list.body.data[0].attachments, undefined, 'attachments only when asked for');

    const got = await s0.api.get(`/sheets/${s.id}/proofs/${p.id}?include=attachments,discussions`);
    assert.equal(got.status, 200);
    assert.equal(got.body.attachments.length, 1);
    assert.deepEqual(got.body.discussions, []);
    const plain = await s0.api.get(`/sheets/${s.id}/proofs/${p.id}`);
    assert.equal(plain.body.attachments, undefined);

    // the file is served as any attachment's: a temporary URL with the bytes
    const a = await s0.api.get(`/sheets/${s.id}/attachments/${p.attachments[0].id}`);
    assert.equal(a.status, 200);
    assert.deepEqual((await download(a.body.url)).bytes, png);

    // a proof's files are the proof's: the sheet's and the row's lists leave them out
    assert.equal((await s0.api.get(`/sheets/${s.id}/attachments`)).body.totalCount, 0);
    assert.equal((await s0.api.get(`/sheets/${s.id}/proofs/${p.id}/attachments`)).body.totalCount, 1);

    // numericDates
    const nd = await s0.api.get(`/sheets/${s.id}/proofs/${p.id}?numericDates=true`);
    assert.equal(typeof nd.body.lastUpdatedAt, 'number');
  });

  test('a PDF is a DOCUMENT proof; several images in one multipart request make one IMAGE proof', async () => {
    const s = await fixture();
    const doc = await raw(`/sheets/${s.id}/rows/${s.rowId}/proofs`, PDF, 'brief.pdf', 'application/pdf');
    assert.equal(doc.status, 200, JSON.stringify(doc.body));
    assert.equal(doc.body.result.proofType, 'DOCUMENT');

    const multi = await multipart(`/sheets/${s.id}/rows/${s.otherRowId}/proofs`, [
      ['file', blob(pngBytes(3, 3, 1), 'image/png'), 'a.png'],
      ['file', blob(gifBytes(2, 2), 'image/gif'), 'b.gif'],
    ]);
    assert.equal(multi.status, 200, JSON.stringify(multi.body));
    assert.equal(multi.body.result.proofType, 'IMAGE');
    assert.equal(multi.body.result.name, 'Flyer');
    assert.deepEqual(multi.body.result.attachments.map((a: { name: string }) => a.name), ['a.png', 'b.gif']);
  });

  test("a row's proof (sheetd's GET /sheets/{id}/rows/{rowId}/proofs): that row's only; none for a row without one; 1006 for a row not in the sheet, 1006 for a sheet not shared", async () => {
    const s = await fixture();
    const p = await proofOn(s.id, s.rowId);
    const mine = await s0.api.get(`/sheets/${s.id}/rows/${s.rowId}/proofs`);
    assert.equal(mine.status, 200, JSON.stringify(mine.body));
    assert.equal(mine.body.totalCount, 1);
    assert.equal(mine.body.data[0].id, p.id);
    assert.equal(mine.body.data[0].name, 'Poster');
    const other = await s0.api.get(`/sheets/${s.id}/rows/${s.otherRowId}/proofs`);
    assert.equal(other.status, 200);
    assert.deepEqual(other.body.data, []);
    assertError(await s0.api.get(`/sheets/${s.id}/rows/123456789/proofs`), 404, 1006);
    const stranger = await makeUser(s0.t, s0.api, `row-proof-stranger-${n}@example.com`);
    assertError(await s0.api.get(`/sheets/${s.id}/rows/${s.rowId}/proofs`, { token: stranger.token }), 404, 1006);
  });

  test('1307: a PDF cannot be one of several files; 1281: a file type or extension a proof does not take; nothing is stored', async () => {
    const s = await fixture();
    const before = blobCount(s0.t.dataDir);
    const mixed = await multipart(`/sheets/${s.id}/rows/${s.rowId}/proofs`, [
      ['file', blob(pngBytes(3, 3, 1), 'image/png'), 'a.png'],
      ['file', blob(PDF, 'application/pdf'), 'b.pdf'],
    ]);
    assertError(mixed, 400, 1307);
    assertError(await raw(`/sheets/${s.id}/rows/${s.rowId}/proofs`, 'plain words', 'notes.txt', 'text/plain'), 400, 1281);
    // PNG bytes under a name a proof does not take
    assertError(await raw(`/sheets/${s.id}/rows/${s.rowId}/proofs`, pngBytes(2, 2), 'poster.exe'), 400, 1281);
    assert.equal(blobCount(s0.t.dataDir), before, 'no blob is left behind');
    assert.equal((await s0.api.get(`/sheets/${s.id}/proofs`)).body.totalCount, 0);
  });

  test('1280: a row has one proof; 1006 for a row or proof not in the sheet; 1004 for a viewer; multipart parts other than files are 1147', async () => {
    const s = await fixture();
    await proofOn(s.id, s.rowId);
    assertError(await raw(`/sheets/${s.id}/rows/${s.rowId}/proofs`, pngBytes(2, 2), 'again.png'), 400, 1280);
    assertError(await raw(`/sheets/${s.id}/rows/123456789/proofs`, pngBytes(2, 2), 'x.png'), 404, 1006);
    assertError(await s0.api.get(`/sheets/${s.id}/proofs/987654321`), 404, 1006);
    assertError(await multipart(`/sheets/${s.id}/rows/${s.otherRowId}/proofs`, [['other', 'x'], ['file', blob(pngBytes(2, 2), 'image/png'), 'a.png']]), 400, 1147);
    assertError(await multipart(`/sheets/${s.id}/rows/${s.otherRowId}/proofs`, [['name', 'x']]), 400, 1127);

    const viewer = await makeUser(s0.t, s0.api, `proof.viewer${++n}@example.com`);
    const share = await s0.api.post(`/sheets/${s.id}/shares`, [{ email: `proof.viewer${n}@example.com`, accessLevel: 'VIEWER' }]);
    assert.equal(share.status, 200, JSON.stringify(share.body));
    assertError(await raw(`/sheets/${s.id}/rows/${s.otherRowId}/proofs`, pngBytes(2, 2), 'x.png', 'image/png', viewer.token), 403, 1004);
    const seen = await s0.api.get(`/sheets/${s.id}/proofs`, { token: viewer.token });
    assert.equal(seen.status, 200);
    assert.equal(seen.body.totalCount, 1);

    // at the same time, on a row without one: exactly one proof is made
    const both = await Promise.all([1, 2, 3].map((i) => raw(`/sheets/${s.id}/rows/${s.otherRowId}/proofs`, pngBytes(2, 2, i), `race${i}.png`, 'image/png')));
    assert.deepEqual(both.map((r) => r.status).sort(), [200, 400, 400], JSON.stringify(both.map((r) => r.body)));
    both.filter((r) => r.status === 400).forEach((r) => assertError(r, 400, 1280));
    assert.equal((await s0.api.get(`/sheets/${s.id}/proofs`)).body.totalCount, 2, 'one proof on each row');
  });

  test('Update Proof Status: isCompleted both ways; 1315 on an older version or an empty proof; bad bodies change nothing', async () => {
    const s = await fixture();
    const p = await proofOn(s.id, s.rowId);
    assertError(await s0.api.put(`/sheets/${s.id}/proofs/${p.id}`, {}), 400, 1012);
    assertError(await s0.api.put(`/sheets/${s.id}/proofs/${p.id}`, { isCompleted: 'yes' }), 400, 1031);
    const done = await s0.api.put(`/sheets/${s.id}/proofs/${p.id}`, { isCompleted: true });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    assert.equal(done.body.result.isCompleted, true);
    assert.equal((await s0.api.get(`/sheets/${s.id}/proofs/${p.id}`)).body.isCompleted, true);
    const reopened = await s0.api.put(`/sheets/${s.id}/proofs/${p.id}`, { isCompleted: false });
    assert.equal(reopened.body.result.isCompleted, false);

    const v2 = await raw(`/sheets/${s.id}/proofs/${p.id}/versions`, pngBytes(5, 5, 9), 'poster-2.png', 'image/png');
    assert.equal(v2.status, 200, JSON.stringify(v2.body));
    assertError(await s0.api.put(`/sheets/${s.id}/proofs/${p.id}`, { isCompleted: true }), 400, 1315);

    // the current version loses its only file: an empty proof
    const file = v2.body.result.attachments[0].id;
    assert.equal((await s0.api.del(`/sheets/${s.id}/attachments/${file}`)).status, 200);
    assertError(await s0.api.put(`/sheets/${s.id}/proofs/${v2.body.result.id}`, { isCompleted: true }), 400, 1315);
    assertError(await s0.api.post(`/sheets/${s.id}/proofs/${p.id}/requests`, { sendTo: [{ email: 'reviewer@example.org' }] }), 400, 1295);
    assertError(await raw(`/sheets/${s.id}/proofs/${p.id}/versions`, pngBytes(2, 2), 'v3.png', 'image/png'), 400, 1298);
  });

  test('Delete Proof: by the original id (1006 for a later version), every version goes; the id then answers 1294; a row with a proof does not move (1286); a deleted row takes its proof', async () => {
    const s = await fixture();
    const p = await proofOn(s.id, s.rowId);
    const v2 = (await raw(`/sheets/${s.id}/proofs/${p.id}/versions`, pngBytes(5, 5, 3), 'p2.png', 'image/png')).body.result;
    assertError(await s0.api.del(`/sheets/${s.id}/proofs/${v2.id}`), 404, 1006);
    assert.equal((await s0.api.del(`/sheets/${s.id}/proofs/${p.id}`)).status, 200);
    assertError(await s0.api.get(`/sheets/${s.id}/proofs/${p.id}`), 400, 1294);
    assertError(await s0.api.get(`/sheets/${s.id}/proofs/${v2.id}/versions`), 400, 1294);
    assertError(await s0.api.get(`/sheets/${s.id}/attachments/${p.attachments[0]!.id}`), 404, 1006);
    assert.equal((await s0.api.get(`/sheets/${s.id}/proofs`)).body.totalCount, 0);
    // the row takes a new proof
    await proofOn(s.id, s.rowId);

    const q = await proofOn(s.id, s.otherRowId);
    // 1286: a row with a proof does not move to another sheet (the proof would go with the source row); it copies
    const dest = await fixture();
    assertError(await s0.api.post(`/sheets/${s.id}/rows/move`, { rowIds: [s.otherRowId], to: { sheetId: dest.id } }), 400, 1286);
    assert.equal((await s0.api.get(`/sheets/${s.id}/proofs/${q.id}`)).status, 200);
    assert.equal((await s0.api.post(`/sheets/${s.id}/rows/copy`, { rowIds: [s.otherRowId], to: { sheetId: dest.id } })).status, 200);
    assert.equal((await s0.api.del(`/sheets/${s.id}/rows?ids=${s.otherRowId}`)).status, 200);
    assertError(await s0.api.get(`/sheets/${s.id}/proofs/${q.id}`), 400, 1294);
  });
});

describe('proofs: versions', () => {
  test('Create Proof Version on the original; list newest first; Delete Proof Version of the current brings back the previous (1298, 1299)', async () => {
    const s = await fixture();
    const p = await proofOn(s.id, s.rowId);
    const v2 = await raw(`/sheets/${s.id}/proofs/${p.id}/versions`, PDF, 'poster.pdf', 'application/pdf');
    assert.equal(v2.status, 200, JSON.stringify(v2.body));
    const v = v2.body.result;
    assert.equal(v.version, 2);
    assert.equal(v.originalId, p.id);
    assert.equal(v.proofType, 'DOCUMENT');
    assertError(await raw(`/sheets/${s.id}/proofs/${v.id}/versions`, pngBytes(2, 2), 'x.png', 'image/png'), 400, 1298);

    const list = await s0.api.get(`/sheets/${s.id}/proofs/${p.id}/versions`);
    assert.deepEqual(list.body.data.map((x: { version: number }) => x.version), [2, 1]);
    const current = await s0.api.get(`/sheets/${s.id}/proofs`);
    assert.equal(current.body.data[0].id, v.id, 'the sheet lists the current version');

    // multipart version with two images
    assertError(await s0.api.del(`/sheets/${s.id}/proofs/${p.id}/versions`), 400, 1299);
    assert.equal((await s0.api.del(`/sheets/${s.id}/proofs/${v.id}/versions`)).status, 200);
    assertError(await s0.api.get(`/sheets/${s.id}/proofs/${v.id}`), 404, 1006);
    assert.equal((await s0.api.get(`/sheets/${s.id}/proofs`)).body.data[0].id, p.id);
    assertError(await s0.api.del(`/sheets/${s.id}/proofs/${p.id}/versions`), 400, 1299);

    const v3 = await multipart(`/sheets/${s.id}/proofs/${p.id}/versions`, [
      ['file', blob(pngBytes(3, 3, 1), 'image/png'), 'a.png'], ['file', blob(pngBytes(3, 3, 2), 'image/png'), 'b.png'],
    ]);
    assert.equal(v3.status, 200, JSON.stringify(v3.body));
    assert.equal(v3.body.result.version, 2);
    assert.equal(v3.body.result.attachments.length, 2);

    // a completed proof takes no version
    assert.equal((await s0.api.put(`/sheets/${s.id}/proofs/${v3.body.result.id}`, { isCompleted: true })).status, 200);
    assertError(await raw(`/sheets/${s.id}/proofs/${p.id}/versions`, pngBytes(2, 2), 'x.png', 'image/png'), 400, 1298);
  });
});

describe('proofs: attachments and discussions', () => {
  test('Attach File to Proof: images join an image proof; 1307 for a PDF, 1306 on an older or completed version, 1309 deleting from either, 1296 for a new version of a proof file', async () => {
    const s = await fixture();
    const p = await proofOn(s.id, s.rowId);
    const more = await raw(`/sheets/${s.id}/proofs/${p.id}/attachments`, gifBytes(3, 3), 'more.gif', 'image/gif');
    assert.equal(more.status, 200, JSON.stringify(more.body));
    assert.equal(more.body.result.parentType, 'PROOF');
    assert.equal((await s0.api.get(`/sheets/${s.id}/proofs/${p.id}/attachments`)).body.totalCount, 2);
    assertError(await raw(`/sheets/${s.id}/proofs/${p.id}/attachments`, PDF, 'x.pdf', 'application/pdf'), 400, 1307);
    assertError(await raw(`/sheets/${s.id}/proofs/${p.id}/attachments`, 'words', 'x.txt', 'text/plain'), 400, 1281);
    assertError(await raw(`/sheets/${s.id}/attachments/${p.attachments[0]!.id}/versions`, pngBytes(2, 2), 'y.png', 'image/png'), 400, 1296);

    const v2 = (await raw(`/sheets/${s.id}/proofs/${p.id}/versions`, pngBytes(5, 5, 7), 'v2.png', 'image/png')).body.result;
    assertError(await raw(`/sheets/${s.id}/proofs/${p.id}/attachments`, gifBytes(2, 2), 'late.gif', 'image/gif'), 400, 1306);
    assertError(await s0.api.del(`/sheets/${s.id}/attachments/${p.attachments[0]!.id}`), 400, 1309);
    assert.equal((await s0.api.put(`/sheets/${s.id}/proofs/${v2.id}`, { isCompleted: true })).status, 200);
    assertError(await raw(`/sheets/${s.id}/proofs/${v2.id}/attachments`, gifBytes(2, 2), 'late.gif', 'image/gif'), 400, 1306);
    assertError(await s0.api.del(`/sheets/${s.id}/attachments/${v2.attachments[0].id}`), 400, 1309);
    assert.equal((await s0.api.put(`/sheets/${s.id}/proofs/${v2.id}`, { isCompleted: false })).status, 200);
    assert.equal((await s0.api.del(`/sheets/${s.id}/attachments/${v2.attachments[0].id}`)).status, 200);
  });

  test('Proof discussions: JSON and multipart; listed on the proof, not the sheet; 1316 once the proof is complete or the version is older (discussion, comment, comment attachment)', async () => {
    const s = await fixture();
    const p = await proofOn(s.id, s.rowId);
    const d = await s0.api.post(`/sheets/${s.id}/proofs/${p.id}/discussions`, { comment: { text: 'Make the logo larger' } });
    assert.equal(d.status, 200, JSON.stringify(d.body));
    assert.equal(d.body.result.parentType, 'PROOF');
    assert.equal(d.body.result.parentId, p.id);
    const withFile = await multipart(`/sheets/${s.id}/proofs/${p.id}/discussions`, [
      ['discussion', JSON.stringify({ comment: { text: 'see the marked-up copy' } })],
      ['file', blob(Buffer.from('markup'), 'text/plain'), 'markup.txt'],
    ]);
    assert.equal(withFile.status, 200, JSON.stringify(withFile.body));
    assert.equal(withFile.body.result.commentAttachments.length, 1);

    const list = await s0.api.get(`/sheets/${s.id}/proofs/${p.id}/discussions?include=comments`);
    assert.equal(list.body.totalCount, 2);
    assert.ok(list.body.data.every((x: { comments: unknown[] }) => x.comments.length === 1));
    const got = await s0.api.get(`/sheets/${s.id}/proofs/${p.id}?include=discussions`);
    assert.equal(got.body.discussions.length, 2);
    assert.equal((await s0.api.get(`/sheets/${s.id}/discussions`)).body.totalCount, 0, 'the sheet lists its own discussions only');
    assert.equal((await s0.api.get(`/sheets/${s.id}/attachments`)).body.totalCount, 0, 'nor the proof discussions\' files');

    const commentId = d.body.result.comments[0].id;
    assert.equal((await s0.api.post(`/sheets/${s.id}/discussions/${d.body.result.id}/comments`, { text: 'ok' })).status, 200);
    assert.equal((await s0.api.put(`/sheets/${s.id}/proofs/${p.id}`, { isCompleted: true })).status, 200);
    assertError(await s0.api.post(`/sheets/${s.id}/proofs/${p.id}/discussions`, { comment: { text: 'late' } }), 400, 1316);
    assertError(await s0.api.post(`/sheets/${s.id}/discussions/${d.body.result.id}/comments`, { text: 'late' }), 400, 1316);
    assertError(await raw(`/sheets/${s.id}/comments/${commentId}/attachments`, 'late', 'late.txt', 'text/plain'), 400, 1316);
    assert.equal((await s0.api.put(`/sheets/${s.id}/proofs/${p.id}`, { isCompleted: false })).status, 200);
    await raw(`/sheets/${s.id}/proofs/${p.id}/versions`, pngBytes(5, 5, 8), 'v2.png', 'image/png');
    assertError(await s0.api.post(`/sheets/${s.id}/proofs/${p.id}/discussions`, { comment: { text: 'on the old one' } }), 400, 1316);
    assertError(await s0.api.post(`/sheets/${s.id}/proofs/${p.id}/discussions`, { comment: {} }), 400, 1012);
  });
});

describe('proofs: the sheet\'s proofing switches (sheetd extension)', () => {
  test('multiImage off: one file per proof (1308); enabled off: no new proof, version, file or request (1279), and not while proofs exist (1289); admins only', async () => {
    const s = await fixture();
    const base = `/sheetd/sheets/${s.id}/proofing`;
    assert.deepEqual((await s0.api.get(base)).body, { enabled: true, multiImage: true });
    assertError(await s0.api.put(base, { multiImage: 'no' }), 400, 1031);
    assertError(await s0.api.put(base, { other: true }), 400, 1032);
    assertError(await s0.api.put(base, {}), 400, 1012);
    const off = await s0.api.put(base, { multiImage: false });
    assert.equal(off.status, 200, JSON.stringify(off.body));
    assert.deepEqual(off.body.result, { enabled: true, multiImage: false });
    const two = [['file', blob(pngBytes(3, 3, 1), 'image/png'), 'a.png'], ['file', blob(pngBytes(3, 3, 2), 'image/png'), 'b.png']] as Array<[string, Blob, string]>;
    assertError(await multipart(`/sheets/${s.id}/rows/${s.rowId}/proofs`, two), 400, 1308);
    const p = await proofOn(s.id, s.rowId);
    assertError(await raw(`/sheets/${s.id}/proofs/${p.id}/attachments`, gifBytes(2, 2), 'more.gif', 'image/gif'), 400, 1308);

    assertError(await s0.api.put(base, { enabled: false }), 400, 1289);
    assert.equal((await s0.api.get(base)).body.enabled, true, 'a refused change changes nothing');
    assert.equal((await s0.api.del(`/sheets/${s.id}/proofs/${p.id}`)).status, 200);
    assert.deepEqual((await s0.api.put(base, { enabled: false })).body.result, { enabled: false, multiImage: false });
    assertError(await raw(`/sheets/${s.id}/rows/${s.rowId}/proofs`, pngBytes(2, 2), 'p.png', 'image/png'), 400, 1279);

    const editor = await makeUser(s0.t, s0.api, `proof.editor${++n}@example.com`);
    assert.equal((await s0.api.post(`/sheets/${s.id}/shares`, [{ email: `proof.editor${n}@example.com`, accessLevel: 'EDITOR' }])).status, 200);
    assertError(await s0.api.put(base, { enabled: true }, { token: editor.token }), 403, 1004);
    assert.equal((await s0.api.get(base, { token: editor.token })).status, 200);
    assert.equal((await s0.api.put(base, { enabled: true })).status, 200);
    await proofOn(s.id, s.rowId);
  });
});

describe('proofs: requests', { skip: notInCluster("reads its own server's outbox (test/cluster/delivery.test.ts covers mail)") }, () => {
  const outbox = () => path.join(s0.t.dataDir, 'outbox');
  const seen = new Set<string>();
  async function newMail(count: number): Promise<ParsedMail[]> {
    for (let i = 0; i < 300; i++) {
      const files = fs.existsSync(outbox()) ? fs.readdirSync(outbox()).filter((f) => f.endsWith('.eml') && !seen.has(f)) : [];
      if (files.length >= count) {
        files.forEach((f) => seen.add(f));
        return Promise.all(files.map(async (f) => simpleParser(fs.readFileSync(path.join(outbox(), f)))));
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.fail(`expected ${count} new messages`);
  }

  test('Create Proof Request mails each reviewer (groups expanded) and lists PENDING actions; Delete Proof Requests removes them (1327 when none); 1300 for nobody to send to', async () => {
    const s = await fixture();
    const p = await proofOn(s.id, s.rowId);
    await makeUser(s0.t, s0.api, `proof.reviewer${++n}@example.com`);
    const reviewer = `proof.reviewer${n}@example.com`;
    const req = await s0.api.post(`/sheets/${s.id}/proofs/${p.id}/requests`, { sendTo: [{ email: reviewer }, { email: 'outside@example.org' }], subject: 'Please review', message: 'Due Friday', isDownloadable: true });
    assert.equal(req.status, 200, JSON.stringify(req.body));
    const r = req.body.result;
    assert.equal(r.proofId, p.id);
    assert.equal(r.status, 'ACTIVE');
    assert.equal(r.isDownloadable, true);
    assert.equal(r.subject, 'Please review');
    assert.equal(r.sentBy.email, 'admin@example.com');

    const mail = await newMail(2);
    assert.deepEqual(mail.map((m) => (Array.isArray(m.to) ? m.to[0] : m.to)!.value[0]!.address).sort(), ['outside@example.org', reviewer].sort());
    assert.ok(mail.every((m) => m.subject === 'Please review'));
    assert.match(mail[0]!.text ?? '', /Poster/);
    assert.match(mail[0]!.text ?? '', /Due Friday/);
    // each reviewer's own link to the review page
    assert.ok(mail.every((m) => /\/proofreviews\/\d+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}\n/.test(m.text ?? '')));

    const actions = await s0.api.get(`/sheets/${s.id}/proofs/${p.id}/requestactions`);
    assert.equal(actions.status, 200);
    assert.equal(actions.body.totalCount, 2);
    assert.ok(actions.body.data.every((a: { actionStatus: string }) => a.actionStatus === 'PENDING'));
    const mine = actions.body.data.find((a: { user: { email: string } }) => a.user.email === reviewer);
    assert.equal(mine.user.name, `proof.reviewer${n} Tester`);

    assertError(await s0.api.post(`/sheets/${s.id}/proofs/${p.id}/requests`, { subject: 'x' }), 400, 1012);
    assertError(await s0.api.post(`/sheets/${s.id}/proofs/${p.id}/requests`, { sendTo: [{ email: 'not an address' }] }), 400, 1156);
    const group = await s0.api.post('/groups', { name: `empty reviewers ${n}` });
    assert.equal(group.status, 200, JSON.stringify(group.body));
    assertError(await s0.api.post(`/sheets/${s.id}/proofs/${p.id}/requests`, { sendTo: [{ groupId: group.body.result.id }] }), 400, 1300);

    assert.equal((await s0.api.del(`/sheets/${s.id}/proofs/${p.id}/requests`)).status, 200);
    assert.equal((await s0.api.get(`/sheets/${s.id}/proofs/${p.id}/requestactions`)).body.totalCount, 0);
    assertError(await s0.api.del(`/sheets/${s.id}/proofs/${p.id}/requests`), 400, 1327);
  });

  test('each reviewer\'s link opens the proof (GET changes nothing) and approves or rejects it; the sender is told; List Proof Request Actions shows it; closed once the proof is complete or deleted', async () => {
    const s = await fixture();
    const png = pngBytes(5, 5, 3);
    const up = await raw(`/sheets/${s.id}/rows/${s.rowId}/proofs`, png, 'poster.png', 'image/png');
    assert.equal(up.status, 200, JSON.stringify(up.body));
    const p = up.body.result as { id: number; attachments: Array<{ id: number }> };
    const ann = `proof.ann${++n}@example.com`;
    const bob = `proof.bob${n}@example.org`;
    const req = await s0.api.post(`/sheets/${s.id}/proofs/${p.id}/requests`, { sendTo: [{ email: ann }, { email: bob }], message: 'Colours OK?', ccMe: true });
    assert.equal(req.status, 200, JSON.stringify(req.body));
    const mail = await newMail(3);
    const to = (m: ParsedMail) => (Array.isArray(m.to) ? m.to[0] : m.to)!.value[0]!.address!;
    const linkIn = (m: ParsedMail) => /(https?:\/\/\S+\/proofreviews\/\S+)/.exec(m.text ?? '')?.[1];
    const annMail = mail.find((m) => to(m) === ann)!;
    const bobMail = mail.find((m) => to(m) === bob)!;
    const copy = mail.find((m) => to(m) === 'admin@example.com')!;
    assert.ok(annMail && bobMail && copy, mail.map(to).join());
    const annLink = new URL(linkIn(annMail)!);
    const bobLink = new URL(linkIn(bobMail)!);
    assert.notEqual(annLink.pathname, bobLink.pathname);
    // the sender's copy links the proof, not anyone's review
    assert.equal(linkIn(copy), undefined);
    assert.match(copy.text ?? '', new RegExp(`/sheets/${s.id}/proofs/${p.id}`));

    const b = browser(s0.t.url);
    const page = await b.get(annLink.pathname);
    assert.equal(page.status, 200, page.text);
    assert.match(page.headers.get('content-type')!, /text\/html/);
    assert.match(page.text, /Poster/);
    assert.match(page.text, /Colours OK\?/);
    assert.match(page.text, new RegExp(ann.replace(/[.]/g, '\\.')));
    const src = /<img src="([^"]+)"/.exec(page.text)?.[1];
    assert.ok(src, page.text);
    const file = await fetch(s0.t.url + src);
    assert.equal(file.status, 200);
    assert.equal(file.headers.get('content-type'), 'image/png');
    assert.match(file.headers.get('content-disposition')!, /^inline/);
    assert.deepEqual(Buffer.from(await file.arrayBuffer()), png);
    // not downloadable: no download link, and a download is refused
    assert.doesNotMatch(page.text, /download=true/);
    assert.equal((await b.get(`${src}?download=true`)).status, 403);
    // another attachment of the sheet is not served through the review link
    const other = await raw(`/sheets/${s.id}/rows/${s.otherRowId}/attachments`, 'notes', 'notes.txt', 'text/plain');
    assert.equal(other.status, 200, JSON.stringify(other.body));
    assert.equal((await b.get(`${annLink.pathname}/files/${other.body.result.id}`)).status, 404);
    const actions = async () => Object.fromEntries(((await s0.api.get(`/sheets/${s.id}/proofs/${p.id}/requestactions`)).body.data as Array<{ user: { email: string }; actionStatus: string }>).map((a) => [a.user.email, a.actionStatus]));
    assert.deepEqual(await actions(), { [ann]: 'PENDING', [bob]: 'PENDING' });

    // a tampered link, a forged post and a decision that is not one are refused and change nothing
    assert.equal((await b.get(annLink.pathname.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')))).status, 404);
    assert.equal((await b.get(annLink.pathname.replace(/\/proofreviews\/\d+/, `/proofreviews/${Number(/\/proofreviews\/(\d+)/.exec(annLink.pathname)![1]) + 1}`))).status, 404);
    assert.equal((await b.post(annLink.pathname, { decision: 'APPROVED' })).status, 403);
    assert.equal((await b.post(annLink.pathname, { _csrf: inputValue(page.text, '_csrf'), decision: 'MAYBE' })).status, 400);
    assert.deepEqual(await actions(), { [ann]: 'PENDING', [bob]: 'PENDING' });

    const approved = await b.post(annLink.pathname, { _csrf: inputValue(page.text, '_csrf'), decision: 'APPROVED' });
    assert.equal(approved.status, 200, approved.text);
    assert.match(approved.text, /You approved this proof/);
    assert.deepEqual(await actions(), { [ann]: 'APPROVED', [bob]: 'PENDING' });
    const told = await newMail(1);
    assert.equal(to(told[0]!), 'admin@example.com');
    // the reviewer's link is the reviewer's: the sender's notice does not carry it
    assert.equal(linkIn(told[0]!), undefined);
    assert.match(told[0]!.subject ?? '', new RegExp(`${ann.replace(/[.]/g, '\\.')} approved "Poster"`));
    const events = await allEvents<{ objectType: string; action: string; additionalDetails?: Record<string, unknown> }>(s0.api);
    assert.ok(events.some((e) => e.objectType === 'PROOF_REQUEST' && e.action === 'UPDATE' && e.additionalDetails?.email === ann && e.additionalDetails?.actionStatus === 'APPROVED'));

    // bob rejects; ann changes her mind
    const b2 = browser(s0.t.url);
    const bobPage = await b2.get(bobLink.pathname);
    assert.equal((await b2.post(bobLink.pathname, { _csrf: inputValue(bobPage.text, '_csrf'), decision: 'REJECTED' })).status, 200);
    const again = await b.get(annLink.pathname);
    assert.match(again.text, /You approved this proof/);
    assert.equal((await b.post(annLink.pathname, { _csrf: inputValue(again.text, '_csrf'), decision: 'REJECTED' })).status, 200);
    assert.deepEqual(await actions(), { [ann]: 'REJECTED', [bob]: 'REJECTED' });
    await newMail(2);

    // complete: the page says so and takes no decision
    assert.equal((await s0.api.put(`/sheets/${s.id}/proofs/${p.id}`, { isCompleted: true })).status, 200);
    const closed = await b.get(annLink.pathname);
    assert.match(closed.text, /This proof is complete/);
    assert.doesNotMatch(closed.text, /name="decision"/);
    const closedPost = await b.post(annLink.pathname, { _csrf: inputValue(again.text, '_csrf'), decision: 'APPROVED' });
    assert.equal(closedPost.status, 400);
    assert.match(closedPost.text, /This proof is complete/);
    assert.deepEqual(await actions(), { [ann]: 'REJECTED', [bob]: 'REJECTED' });
    // deleted: the page says so; its files are gone
    assert.equal((await s0.api.del(`/sheets/${s.id}/proofs/${p.id}`)).status, 200);
    const gone = await b.get(annLink.pathname);
    assert.match(gone.text, /This proof was deleted/);
    assert.equal((await b.get(src)).status, 404);
  });

  test('a downloadable request offers each file as a download', async () => {
    const s = await fixture();
    const p = await proofOn(s.id, s.rowId);
    const reviewer = `proof.dl${++n}@example.com`;
    assert.equal((await s0.api.post(`/sheets/${s.id}/proofs/${p.id}/requests`, { sendTo: [{ email: reviewer }], isDownloadable: true })).status, 200);
    const [m] = await newMail(1);
    const link = new URL(/(https?:\/\/\S+\/proofreviews\/\S+)/.exec(m!.text ?? '')![1]!);
    const b = browser(s0.t.url);
    const page = await b.get(link.pathname);
    const dl = /href="([^"]+\?download=true)"/.exec(page.text)?.[1];
    assert.ok(dl, page.text);
    const res = await b.get(dl);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-disposition')!, /^attachment; filename="poster\.png"/);
  });
});
