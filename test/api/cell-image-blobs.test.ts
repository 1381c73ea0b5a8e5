import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { serverForFile } from '../helpers/setup.ts';
import { client, type Client } from '../helpers/http.ts';
import { assertError, cellOf, makeSheet, makeUser } from '../helpers/sheets.ts';
import { pngBytes } from '../helpers/images.ts';
import { startSuiteServer, type TestServer } from '../helpers/server.ts';
import { startTestS3, type TestS3 } from '../helpers/s3.ts';
import { orphanedBlobKeys } from '../../src/services/platform/blobs.ts';

// Cell image bytes live on the blob store, not in the database: these tests look for them
// where an operator would (the data directory, the bucket).
const BODY_LIMIT = 64 * 1024;
const s0 = serverForFile({ SHEETD_BODY_LIMIT: String(BODY_LIMIT), SHEETD_RATE_LIMIT: '100000' });

const COLUMNS = [{ title: 'Task', type: 'TEXT_NUMBER', primary: true }, { title: 'Pic', type: 'TEXT_NUMBER' }];

/** Blob files under the data directory: key -> bytes. */
function blobFiles(dataDir: string): Map<string, Buffer> {
  const root = path.join(dataDir, 'blobs');
  const out = new Map<string, Buffer>();
  if (!fs.existsSync(root)) return out;
  for (const f of fs.readdirSync(root, { recursive: true }) as string[]) {
    const name = path.basename(f);
    if (/^[0-9a-f]{32}$/.test(name) && !f.startsWith('tmp')) out.set(name, fs.readFileSync(path.join(root, f)));
  }
  return out;
}

async function fixture(api: Client, name: string) {
  const s = await makeSheet(api, name, COLUMNS);
  const add = await api.post(`/sheets/${s.id}/rows`, { toBottom: true, cells: [{ columnId: s.col.Task!.id, value: 'first' }] });
  assert.equal(add.status, 200, JSON.stringify(add.body));
  return { ...s, rowId: add.body.result.id as number, pic: s.col.Pic!.id };
}

async function upload(api: Client, sheetId: number, rowId: number, columnId: number, bytes: Buffer, token?: string) {
  return api.call('POST', `/sheets/${sheetId}/rows/${rowId}/columns/${columnId}/cellimages`, {
    raw: bytes, headers: { 'content-type': 'image/png', 'content-disposition': 'attachment; filename="p.png"' }, ...(token ? { token } : {}),
  });
}

/** The bytes the public URL of an image serves (404 -> null). */
async function served(api: Client, imageId: string): Promise<Buffer | null> {
  const urls = await api.post('/imageurls', [{ imageId }]);
  assert.equal(urls.status, 200, JSON.stringify(urls.body));
  const url = urls.body.imageUrls[0].url as string | undefined;
  if (url === undefined) return null;
  const got = await fetch(url);
  if (got.status === 404) return null;
  assert.equal(got.status, 200);
  const bytes = Buffer.from(await got.arrayBuffer());
  assert.equal(got.headers.get('content-length'), String(bytes.length));
  return bytes;
}

describe('cell images on the filesystem blob store', () => {
  test('an uploaded image is a file under <data dir>/blobs/, served from there; the database keeps no bytes', async () => {
    const s = await fixture(s0.api, 'on disk');
    const png = pngBytes(5, 4, 9);
    const before = blobFiles(s0.t.dataDir);
    const up = await upload(s0.api, s.id, s.rowId, s.pic, png);
    assert.equal(up.status, 200, JSON.stringify(up.body));
    const imageId = (cellOf(up.body.result, s.pic).image as { id: string }).id;
    const added = [...blobFiles(s0.t.dataDir)].filter(([k]) => !before.has(k));
    assert.equal(added.length, 1);
    assert.deepEqual(added[0]![1], png);
    // the key is random, not the file name or the image id
    assert.notEqual(added[0]![0], imageId);
    const row = await s0.t.server.store.db.selectFrom('images').selectAll().where('id', '=', imageId).executeTakeFirstOrThrow();
    assert.equal(row.bytes, null);
    assert.equal(row.blob_key, added[0]![0]);

    const got = await served(s0.api, imageId);
    assert.deepEqual(got, png);
  });

  test('refused uploads leave no blob: not an image (1091), no access (1004), a streamed body past the limit (1074)', async () => {
    const s = await fixture(s0.api, 'refused');
    const viewer = await makeUser(s0.t, s0.api, 'blob-viewer@images.example.org');
    const sh = await s0.api.post(`/sheets/${s.id}/shares`, { email: 'blob-viewer@images.example.org', accessLevel: 'VIEWER' });
    assert.equal(sh.status, 200, JSON.stringify(sh.body));
    const before = [...blobFiles(s0.t.dataDir).keys()].sort();

    assertError(await upload(s0.api, s.id, s.rowId, s.pic, Buffer.from('plain text, no image at all')), 400, 1091);
    assertError(await upload(s0.api, s.id, s.rowId, s.pic, pngBytes(3, 2), viewer.token), 403, 1004);
    assertError(await upload(s0.api, s.id, 1234567, s.pic, pngBytes(3, 2)), 404, 1006);

    // no Content-Length: the limit is found while the body streams in
    const chunks = [pngBytes(3, 2), ...Array.from({ length: 8 }, () => Buffer.alloc(16 * 1024, 7))];
    const body = new ReadableStream({
      pull(c) {
        const next = chunks.shift();
        if (next === undefined) c.close();
        else c.enqueue(next);
      },
    });
    const res = await fetch(`${s0.t.base}/sheets/${s.id}/rows/${s.rowId}/columns/${s.pic}/cellimages`, {
      method: 'POST', body, duplex: 'half', headers: { authorization: `Bearer ${s0.t.adminToken}`, 'content-type': 'image/png' },
    } as RequestInit);
    assertError({ status: res.status, body: await res.json() }, 400, 1074);

    assert.deepEqual([...blobFiles(s0.t.dataDir).keys()].sort(), before);
    assert.equal(fs.readdirSync(path.join(s0.t.dataDir, 'blobs', 'tmp')).length, 0);
    const row = await s0.api.get(`/sheets/${s.id}/rows/${s.rowId}`);
    assert.equal(cellOf(row.body, s.pic).image, undefined);
  });

  test('a sheet copy shares the blob: the copy still shows the image once the original is deleted; its blob goes once both are deleted', async () => {
    const s = await fixture(s0.api, 'copied');
    const png = pngBytes(6, 6, 3);
    const up = await upload(s0.api, s.id, s.rowId, s.pic, png);
    assert.equal(up.status, 200, JSON.stringify(up.body));
    const imageId = (cellOf(up.body.result, s.pic).image as { id: string }).id;
    const files = blobFiles(s0.t.dataDir).size;

    const copy = await s0.api.post(`/sheets/${s.id}/copy?include=data`, { destinationType: 'home', newName: 'the copy' });
    assert.equal(copy.status, 200, JSON.stringify(copy.body));
    const copyId = copy.body.result.id as number;
    assert.equal(blobFiles(s0.t.dataDir).size, files, 'the copy stores no second blob');

    assert.equal((await s0.api.del(`/sheets/${s.id}`)).status, 200);
    assert.deepEqual(await served(s0.api, imageId), png);
    const key = (await s0.t.server.store.db.selectFrom('images').select('blob_key').where('id', '=', imageId).executeTakeFirstOrThrow()).blob_key!;
    const orphans = async () => {
      const out: string[] = [];
      for await (const k of orphanedBlobKeys(s0.t.server.store.db, s0.t.server.blobs, Date.now() + 1000)) out.push(k);
      return out;
    };
    assert.ok(!(await orphans()).includes(key));

    // a blob written just now is not an orphan yet: its upload may not have committed
    const recent: string[] = [];
    for await (const k of orphanedBlobKeys(s0.t.server.store.db, s0.t.server.blobs, 0)) recent.push(k);
    assert.deepEqual(recent, []);

    // deleting the last sheet that shows it queues the blob's removal: the job worker removes the file
    assert.equal((await s0.api.del(`/sheets/${copyId}`)).status, 200);
    assert.equal(await served(s0.api, imageId), null);
    for (let i = 0; i < 300 && blobFiles(s0.t.dataDir).has(key); i++) await new Promise((r) => setTimeout(r, 100));
    assert.ok(!blobFiles(s0.t.dataDir).has(key), 'the blob of the deleted sheets is removed');
    assert.ok(!(await orphans()).includes(key));
  });
});

describe('cell images on an S3-compatible blob store', () => {
  let s3: TestS3;
  let t: TestServer;
  let api: Client;
  before(async () => {
    s3 = await startTestS3();
    t = await startSuiteServer({ ...s3.env, SHEETD_RATE_LIMIT: '100000' });
    api = client(t.base, t.adminToken);
  });
  after(async () => {
    await t.close();
    await s3.close();
  });

  test('an uploaded image is an object of the bucket, served from there; nothing under the data directory', async () => {
    const s = await fixture(api, 'in the bucket');
    const png = pngBytes(7, 3, 1);
    const up = await upload(api, s.id, s.rowId, s.pic, png);
    assert.equal(up.status, 200, JSON.stringify(up.body));
    const imageId = (cellOf(up.body.result, s.pic).image as { id: string }).id;
    const key = (await t.server.store.db.selectFrom('images').select('blob_key').where('id', '=', imageId).executeTakeFirstOrThrow()).blob_key!;
    // s3rver keeps each object as <directory>/<bucket>/<key>._S3rver_object
    assert.deepEqual(fs.readFileSync(path.join(s3.directory, s3.bucket, `${key}._S3rver_object`)), png);
    assert.equal(blobFiles(t.dataDir).size, 0);
    assert.deepEqual(await served(api, imageId), png);
  });
});
