import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import smartsheet from 'smartsheet';
import { serverForFile } from '../helpers/setup.ts';
import { client, type Client, type Res, allEvents } from '../helpers/http.ts';
import { assertError, cellOf, makeSheet, makeUser } from '../helpers/sheets.ts';
import { gifBytes, pngBytes } from '../helpers/images.ts';

// A small body limit, so that "too large" is cheap to reach; uploads cost 10 toward the rate
// limit, so this file's many uploads get a high one.
const BODY_LIMIT = 64 * 1024;
const s0 = serverForFile({ SHEETD_BODY_LIMIT: String(BODY_LIMIT), SHEETD_RATE_LIMIT: '100000' });

const COLUMNS = [
  { title: 'Task', type: 'TEXT_NUMBER', primary: true },
  { title: 'Pic', type: 'TEXT_NUMBER' },
  { title: 'Guarded', type: 'TEXT_NUMBER', locked: true },
  { title: 'No', type: 'TEXT_NUMBER', systemColumnType: 'AUTO_NUMBER' },
  { title: 'Qty', type: 'TEXT_NUMBER' },
];

interface Cell { columnId: number; value?: unknown; displayValue?: string; hyperlink?: unknown; image?: { id: string; width?: number; height?: number; altText?: string } }
interface Row { id: number; cells: Cell[]; locked?: boolean }

const cellAt = (row: { cells: Array<{ columnId: number }> }, columnId: number): Cell => cellOf(row, columnId) as unknown as Cell;

let editor: { id: number; token: string; email: string };
let viewer: { id: number; token: string; email: string };
let outsider: { id: number; token: string; email: string };
let usersMade: Promise<void> | undefined;

/** The editor, viewer and outsider users, made once (on first use: the server starts in a before hook). */
function makeUsers(): Promise<void> {
  usersMade ??= (async () => {
    const mk = async (name: string) => {
      const email = `${name}@images.example.org`;
      return { ...(await makeUser(s0.t, s0.api, email)), email };
    };
    editor = await mk('editor');
    viewer = await mk('viewer');
    outsider = await mk('outsider');
  })();
  return usersMade;
}

/** A sheet with one row (Task "first", Pic "old value" with a hyperlink), shared with editor and viewer. */
async function fixture(name: string) {
  await makeUsers();
  const s = await makeSheet(s0.api, name, COLUMNS);
  const add = await s0.api.post(`/sheets/${s.id}/rows`, {
    toBottom: true,
    cells: [{ columnId: s.col.Task!.id, value: 'first' }, { columnId: s.col.Pic!.id, value: 'old value', hyperlink: { url: 'https://example.org/x' } }],
  });
  assert.equal(add.status, 200, JSON.stringify(add.body));
  for (const [u, level] of [[editor, 'EDITOR'], [viewer, 'VIEWER']] as const) {
    const sh = await s0.api.post(`/sheets/${s.id}/shares`, { email: u.email, accessLevel: level });
    assert.equal(sh.status, 200, JSON.stringify(sh.body));
  }
  return { ...s, rowId: add.body.result.id as number };
}

interface UploadOpts { token?: string; contentType?: string; fileName?: string | null; query?: string }

function upload(path: string, bytes: Buffer | string, o: UploadOpts = {}): Promise<Res> {
  const headers: Record<string, string> = { 'content-type': o.contentType ?? 'image/png' };
  if (o.fileName !== null) headers['content-disposition'] = `attachment; filename="${o.fileName ?? 'dot.png'}"`;
  return s0.api.call('POST', path + (o.query ? `?${o.query}` : ''), { raw: bytes, headers, ...(o.token ? { token: o.token } : {}) });
}

const cellPath = (sheetId: number, rowId: number, columnId: number) => `/sheets/${sheetId}/rows/${rowId}/columns/${columnId}/cellimages`;

async function rowOf(api: Client, sheetId: number, rowId: number): Promise<Row> {
  const res = await api.get(`/sheets/${sheetId}/rows/${rowId}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body as Row;
}

async function versionOf(sheetId: number): Promise<number> {
  return (await s0.api.get(`/sheets/${sheetId}`)).body.version as number;
}

async function imageUrls(ids: string[], token?: string): Promise<Res> {
  return s0.api.post('/imageurls', ids.map((imageId) => ({ imageId })), token ? { token } : {});
}

describe('add image to cell', () => {
  test('a PNG becomes the cell image (id, width, height, altText), replacing value and hyperlink; the row is the result', async () => {
    const s = await fixture('upload');
    const v0 = await versionOf(s.id);
    const png = pngBytes(3, 2);
    const res = await upload(cellPath(s.id, s.rowId, s.col.Pic!.id), png, { query: 'altText=' + encodeURIComponent('A tiny picture') });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.message, 'SUCCESS');
    assert.equal(res.body.resultCode, 0);
    assert.equal(res.body.version, v0 + 1);
    assert.equal(res.body.result.id, s.rowId);
    const cell = cellAt(res.body.result, s.col.Pic!.id);
    assert.ok(cell.image);
    assert.match(cell.image.id, /^[A-Za-z0-9_-]{10,}$/);
    assert.deepEqual(cell.image, { id: cell.image.id, width: 3, height: 2, altText: 'A tiny picture' });
    assert.equal(cell.value, undefined);
    assert.equal(cell.hyperlink, undefined);

    const read = cellAt(await rowOf(s0.api, s.id, s.rowId), s.col.Pic!.id);
    assert.deepEqual(read.image, cell.image);
    assert.equal(read.value, undefined);
    assert.equal(read.hyperlink, undefined);
    assert.equal(cellOf(await rowOf(s0.api, s.id, s.rowId), s.col.Task!.id).value, 'first');
    assert.equal(await versionOf(s.id), v0 + 1);

    // without altText, a GIF sent as application/octet-stream: sized from its header
    const gif = await upload(cellPath(s.id, s.rowId, s.col.Qty!.id), gifBytes(640, 480), { contentType: 'application/octet-stream', fileName: 'anim.gif' });
    assert.equal(gif.status, 200, JSON.stringify(gif.body));
    const g = cellAt(gif.body.result, s.col.Qty!.id).image!;
    assert.deepEqual(g, { id: g.id, width: 640, height: 480 });
    assert.notEqual(g.id, cell.image.id);
  });

  test('cell history keeps the previous value; the upload is a ROW UPDATE event', async () => {
    const s = await fixture('history');
    const since = new Date(Date.now() - 60_000).toISOString();
    const res = await upload(cellPath(s.id, s.rowId, s.col.Pic!.id), pngBytes(3, 2));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const hist = await s0.api.get(`/sheets/${s.id}/rows/${s.rowId}/columns/${s.col.Pic!.id}/history`);
    assert.equal(hist.status, 200, JSON.stringify(hist.body));
    const entries = hist.body.data as Cell[];
    assert.equal(entries.length, 2);
    assert.equal(entries[0]!.image?.id, cellAt(res.body.result, s.col.Pic!.id).image!.id);
    assert.equal(entries[1]!.value, 'old value');
    assert.equal(entries[1]!.image, undefined);

    const events = await allEvents<{ objectType: string; action: string; objectId: number }>(s0.api, since);
    const updates = events.filter((e) => e.objectType === 'ROW' && e.action === 'UPDATE' && e.objectId === s.rowId);
    assert.equal(updates.length, 1, JSON.stringify(updates));
  });

  test('alt text over 100 characters (1165), not an image (1091), wrong media types (1124), empty body (1024): nothing changes', async () => {
    const s = await fixture('bad');
    const path = cellPath(s.id, s.rowId, s.col.Pic!.id);
    const v0 = await versionOf(s.id);
    assertError(await upload(path, pngBytes(3, 2), { query: 'altText=' + 'x'.repeat(101) }), 400, 1165);
    assertError(await upload(path, Buffer.from('this is plain text pretending to be a PNG')), 400, 1091);
    assertError(await upload(path, Buffer.from('%PDF-1.4 not an image'), { contentType: 'application/octet-stream', fileName: 'doc.pdf' }), 400, 1091);
    assertError(await upload(path, pngBytes(3, 2), { contentType: 'text/plain' }), 415, 1124);
    assertError(await s0.api.post(path, { image: 'no' }), 415, 1124);
    assertError(await upload(path, Buffer.alloc(0)), 400, 1024);
    assert.equal(await versionOf(s.id), v0);
    const cell = cellAt(await rowOf(s0.api, s.id, s.rowId), s.col.Pic!.id);
    assert.equal(cell.value, 'old value');
    assert.equal(cell.image, undefined);
    // exactly 100 characters is fine
    const ok = await upload(path, pngBytes(3, 2), { query: 'altText=' + 'y'.repeat(100) });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(cellAt(ok.body.result, s.col.Pic!.id).image!.altText, 'y'.repeat(100));
    // a PNG sent as application/json with its file name (the npm SDK's type for a name without an
    // extension) is the image; JSON without a Content-Disposition stays refused (above)
    const asJson = await upload(path, pngBytes(2, 2), { contentType: 'application/json', fileName: 'photo' });
    assert.equal(asJson.status, 200, JSON.stringify(asJson.body));
    assert.equal(cellAt(asJson.body.result, s.col.Pic!.id).image!.width, 2);
  });

  test('a body over SHEETD_BODY_LIMIT is refused as too large (1074)', async () => {
    const s = await fixture('large');
    const big = Buffer.concat([pngBytes(3, 2), Buffer.alloc(BODY_LIMIT)]);
    assertError(await upload(cellPath(s.id, s.rowId, s.col.Pic!.id), big), 400, 1074);
    assert.equal(cellAt(await rowOf(s0.api, s.id, s.rowId), s.col.Pic!.id).value, 'old value');
  });

  test('unknown sheet, row or column: 1006 (404)', async () => {
    const s = await fixture('unknown');
    assertError(await upload(cellPath(s.id, 1234567, s.col.Pic!.id), pngBytes(3, 2)), 404, 1006);
    assertError(await upload(cellPath(s.id, s.rowId, 7654321), pngBytes(3, 2)), 404, 1006);
    assertError(await upload(cellPath(999999999, s.rowId, s.col.Pic!.id), pngBytes(3, 2)), 404, 1006);
    assertError(await upload(cellPath(s.id, s.rowId, s.col.Pic!.id), pngBytes(3, 2), { token: outsider.token }), 404, 1006);
  });

  test('a viewer cannot upload (1004); an editor can, but not into locked columns (1039), locked rows (1050), system columns (1046) or column formula cells (1302)', async () => {
    const s = await fixture('rules');
    const ed = client(s0.t.base, editor.token);
    assertError(await upload(cellPath(s.id, s.rowId, s.col.Pic!.id), pngBytes(3, 2), { token: viewer.token }), 403, 1004);
    assertError(await upload(cellPath(s.id, s.rowId, s.col.Guarded!.id), pngBytes(3, 2), { token: editor.token }), 403, 1039);
    assertError(await upload(cellPath(s.id, s.rowId, s.col.No!.id), pngBytes(3, 2)), 400, 1046);
    // the owner may write a locked column
    const own = await upload(cellPath(s.id, s.rowId, s.col.Guarded!.id), pngBytes(3, 2));
    assert.equal(own.status, 200, JSON.stringify(own.body));
    const byEditor = await upload(cellPath(s.id, s.rowId, s.col.Pic!.id), pngBytes(3, 2), { token: editor.token });
    assert.equal(byEditor.status, 200, JSON.stringify(byEditor.body));

    const lock = await s0.api.put(`/sheets/${s.id}/rows`, { id: s.rowId, locked: true });
    assert.equal(lock.status, 200, JSON.stringify(lock.body));
    assertError(await upload(cellPath(s.id, s.rowId, s.col.Qty!.id), pngBytes(3, 2), { token: editor.token }), 403, 1050);
    assert.equal(cellAt(await rowOf(ed, s.id, s.rowId), s.col.Qty!.id).image, undefined);

    const formula = await s0.api.put(`/sheets/${s.id}/columns/${s.col.Qty!.id}`, { formula: '=1 + 1' });
    assert.equal(formula.status, 200, JSON.stringify(formula.body));
    const v0 = await versionOf(s.id);
    assertError(await upload(cellPath(s.id, s.rowId, s.col.Qty!.id), pngBytes(3, 2)), 400, 1302);
    assert.equal(await versionOf(s.id), v0);
  });

  test('a column that validates its values (PICKLIST, DATE) takes an image only with overrideValidation=true (a sheet admin\'s); without it 400/1235 and nothing changes', async () => {
    await makeUsers();
    const s = await makeSheet(s0.api, 'validated', [
      { title: 'Task', type: 'TEXT_NUMBER', primary: true },
      { title: 'Status', type: 'PICKLIST', options: ['Open', 'Done'], validation: true },
      { title: 'Due', type: 'DATE', validation: true },
      { title: 'Loose', type: 'PICKLIST', options: ['Open', 'Done'] },
    ]);
    const add = await s0.api.post(`/sheets/${s.id}/rows`, { cells: [{ columnId: s.col.Task!.id, value: 't' }, { columnId: s.col.Status!.id, value: 'Open' }, { columnId: s.col.Due!.id, value: '2026-01-05' }] });
    assert.equal(add.status, 200, add.text);
    const rowId = add.body.result.id as number;
    await s0.api.post(`/sheets/${s.id}/shares`, { email: editor.email, accessLevel: 'EDITOR' });
    for (const col of [s.col.Status!, s.col.Due!]) {
      const before = await versionOf(s.id);
      assertError(await upload(cellPath(s.id, rowId, col.id), pngBytes(2, 2)), 400, 1235);
      assertError(await upload(cellPath(s.id, rowId, col.id), pngBytes(2, 2), { query: 'overrideValidation=false' }), 400, 1235);
      // overriding validation is a sheet admin's (1212)
      assertError(await upload(cellPath(s.id, rowId, col.id), pngBytes(2, 2), { query: 'overrideValidation=true', token: editor.token }), 403, 1212);
      assert.equal(await versionOf(s.id), before);
      const kept = cellAt(await rowOf(s0.api, s.id, rowId), col.id);
      assert.equal(kept.image, undefined);
      assert.ok(kept.value !== undefined);
      const ok = await upload(cellPath(s.id, rowId, col.id), pngBytes(2, 2), { query: 'overrideValidation=true' });
      assert.equal(ok.status, 200, ok.text);
      assert.equal(cellAt(ok.body.result, col.id).image?.width, 2);
    }
    // a PICKLIST column that does not validate takes an image as any other
    const loose = await upload(cellPath(s.id, rowId, s.col.Loose!.id), pngBytes(2, 2), { token: editor.token });
    assert.equal(loose.status, 200, loose.text);
  });

  test('Update Rows: image.altText changes the alt text of the cell image and keeps the image; 1161 where there is no image', async () => {
    const s = await fixture('alt');
    const up = await upload(cellPath(s.id, s.rowId, s.col.Pic!.id), pngBytes(3, 2), { query: 'altText=first' });
    const img = cellAt(up.body.result, s.col.Pic!.id).image!;
    const res = await s0.api.put(`/sheets/${s.id}/rows`, { id: s.rowId, cells: [{ columnId: s.col.Pic!.id, image: { altText: 'second' } }] });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(cellAt(await rowOf(s0.api, s.id, s.rowId), s.col.Pic!.id).image, { ...img, altText: 'second' });
    assertError(await s0.api.put(`/sheets/${s.id}/rows`, { id: s.rowId, cells: [{ columnId: s.col.Task!.id, image: { altText: 'nothing here' } }] }), 400, 1161);
    assertError(await s0.api.put(`/sheets/${s.id}/rows`, { id: s.rowId, cells: [{ columnId: s.col.Pic!.id, image: { altText: 'z'.repeat(101) } }] }), 400, 1165);
    assert.equal(cellAt(await rowOf(s0.api, s.id, s.rowId), s.col.Pic!.id).image!.altText, 'second');
  });
});

describe('image URLs', () => {
  test('POST /imageurls gives a temporary URL that serves the same bytes, without Authorization, with the image type', async () => {
    const s = await fixture('urls');
    const png = pngBytes(3, 2, 77);
    const up = await upload(cellPath(s.id, s.rowId, s.col.Pic!.id), png, { fileName: 'my picture.png' });
    const id = cellAt(up.body.result, s.col.Pic!.id).image!.id;
    const res = await s0.api.post('/imageurls', [{ imageId: id, height: 40, width: 20 }]);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.urlExpiresInMillis, 30 * 60 * 1000);
    assert.equal(res.body.imageUrls.length, 1);
    const item = res.body.imageUrls[0];
    assert.equal(item.imageId, id);
    assert.equal(item.error, undefined);
    assert.ok(item.url.startsWith(s0.t.url + '/'), item.url);

    const got = await fetch(item.url);
    assert.equal(got.status, 200);
    assert.equal(got.headers.get('content-type'), 'image/png');
    assert.match(got.headers.get('cache-control') ?? '', /^private, max-age=\d+$/);
    const maxAge = Number(/max-age=(\d+)/.exec(got.headers.get('cache-control')!)![1]);
    assert.ok(maxAge > 0 && maxAge <= 1800, String(maxAge));
    assert.equal(got.headers.get('x-content-type-options'), 'nosniff');
    assert.match(got.headers.get('content-disposition') ?? '', /^inline; filename="my picture.png"/);
    assert.deepEqual(Buffer.from(await got.arrayBuffer()), png);

    // the viewer may see it too
    const v = await imageUrls([id], viewer.token);
    assert.equal(v.status, 200);
    assert.equal((await fetch(v.body.imageUrls[0].url)).status, 200);
  });

  test('unknown and expired URLs answer 404 with the Error body', async () => {
    const s = await fixture('expiry');
    const up = await upload(cellPath(s.id, s.rowId, s.col.Pic!.id), pngBytes(3, 2));
    const id = cellAt(up.body.result, s.col.Pic!.id).image!.id;
    const url = (await imageUrls([id])).body.imageUrls[0].url as string;
    const bad = await fetch(url.replace(/[^/]+$/, 'A'.repeat(32)));
    assert.equal(bad.status, 404);
    const badBody = await bad.json() as { errorCode: number; message: string };
    assert.equal(badBody.errorCode, 1006);
    assert.equal(typeof badBody.message, 'string');
    assert.equal((await fetch(url.replace(/[^/]+$/, 'not a token!'))).status, 404);

    // the URL's expiry passes (moved into the past in the database: no waiting in tests)
    const token = url.split('/').pop()!;
    await s0.t.server.store.db.updateTable('image_urls').set({ expires_at: Date.now() - 1 }).where('token', '=', token).execute();
    const expired = await fetch(url);
    assert.equal(expired.status, 404);
    assert.equal(((await expired.json()) as { errorCode: number }).errorCode, 1006);
  });

  test('images of sheets the caller cannot see (and unknown ids) are error items, not a failed request', async () => {
    const s = await fixture('private');
    const up = await upload(cellPath(s.id, s.rowId, s.col.Pic!.id), pngBytes(3, 2));
    const id = cellAt(up.body.result, s.col.Pic!.id).image!.id;
    const res = await imageUrls([id, 'noSuchImageId123'], outsider.token);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.imageUrls.length, 2);
    for (const [i, want] of [[0, id], [1, 'noSuchImageId123']] as const) {
      const item = res.body.imageUrls[i];
      assert.equal(item.imageId, want);
      assert.equal(item.url, undefined);
      assert.equal(item.error.errorCode, 1006);
      assert.equal(typeof item.error.message, 'string');
    }
    const mixed = await imageUrls([id, 'noSuchImageId123']);
    assert.equal(typeof mixed.body.imageUrls[0].url, 'string');
    assert.equal(mixed.body.imageUrls[1].error.errorCode, 1006);
  });

  test('bad List Image URLs bodies: not an array (1008), an item without imageId (1012); no token (1001)', async () => {
    assertError(await s0.api.post('/imageurls', { imageId: 'x' }), 400, 1008);
    assertError(await s0.api.post('/imageurls', [{ height: 3 }]), 400, 1012);
    assertError(await s0.api.post('/imageurls', [{ imageId: 'x' }], { token: null }), 401, 1001);
  });

  test('a sheet copy (include=data) keeps the image ids; its images still resolve after the source is deleted', async () => {
    const s = await fixture('copy-src');
    const png = pngBytes(3, 2, 5);
    const up = await upload(cellPath(s.id, s.rowId, s.col.Pic!.id), png, { query: 'altText=kept' });
    const img = cellAt(up.body.result, s.col.Pic!.id).image!;
    const copy = await s0.api.post(`/sheets/${s.id}/copy?include=data`, { destinationType: 'home', newName: 'copy of images' });
    assert.equal(copy.status, 200, JSON.stringify(copy.body));
    const copyId = copy.body.result.id as number;
    const sheet = await s0.api.get(`/sheets/${copyId}`);
    const pic = sheet.body.columns.find((c: { title: string }) => c.title === 'Pic').id as number;
    assert.deepEqual(cellAt(sheet.body.rows[0], pic).image, img);

    assert.equal((await s0.api.del(`/sheets/${s.id}`)).status, 200);
    const res = await imageUrls([img.id]);
    assert.equal(typeof res.body.imageUrls[0].url, 'string', JSON.stringify(res.body));
    const got = await fetch(res.body.imageUrls[0].url);
    assert.equal(got.status, 200);
    assert.deepEqual(Buffer.from(await got.arrayBuffer()), png);
  });
});

describe('rows copied or moved to another sheet', () => {
  test('keep their images, which resolve in the destination after the source is deleted (copied twice: no clash)', async () => {
    const s = await fixture('rows-src');
    const png = pngBytes(4, 4, 9);
    const up = await upload(cellPath(s.id, s.rowId, s.col.Pic!.id), png);
    const img = cellAt(up.body.result, s.col.Pic!.id).image!;
    const dest = await makeSheet(s0.api, 'rows-dest', [{ title: 'Task', type: 'TEXT_NUMBER', primary: true }, { title: 'Pic', type: 'TEXT_NUMBER' }]);
    for (let i = 0; i < 2; i++) {
      const copy = await s0.api.post(`/sheets/${s.id}/rows/copy`, { rowIds: [s.rowId], to: { sheetId: dest.id } });
      assert.equal(copy.status, 200, JSON.stringify(copy.body));
    }
    const sheet = await s0.api.get(`/sheets/${dest.id}`);
    assert.equal(sheet.body.rows.length, 2);
    for (const r of sheet.body.rows) assert.deepEqual(cellAt(r, dest.col.Pic!.id).image, img);
    assert.equal((await s0.api.del(`/sheets/${s.id}`)).status, 200);
    const res = await imageUrls([img.id]);
    const got = await fetch(res.body.imageUrls[0].url);
    assert.equal(got.status, 200);
    assert.deepEqual(Buffer.from(await got.arrayBuffer()), png);
  });
});

describe('through the official SDK', () => {
  // The SDK's typings demand fields real clients leave out; these tests send what clients send.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  type Loose = any;

  test('sheets.addImageToCell uploads a file stream; images.listImageUrls gives its URL', async () => {
    const s = await fixture('sdk');
    const c: Loose = smartsheet.createClient({ accessToken: s0.t.adminToken, baseUrl: s0.t.base + '/', logLevel: 'error' });
    const png = pngBytes(3, 2, 9);
    const up = await c.sheets.addImageToCell({
      sheetId: s.id, rowId: s.rowId, columnId: s.col.Pic!.id,
      fileSize: png.length, fileName: 'sdk.png', fileStream: Readable.from([png]),
      queryParameters: { altText: 'from the SDK' },
    });
    assert.equal(up.message, 'SUCCESS');
    const img = up.result.cells.find((x: Cell) => x.columnId === s.col.Pic!.id).image;
    assert.equal(img.width, 3);
    assert.equal(img.height, 2);
    assert.equal(img.altText, 'from the SDK');

    const urls = await c.images.listImageUrls({ body: [{ imageId: img.id }] });
    assert.equal(urls.urlExpiresInMillis, 1_800_000);
    const got = await fetch(urls.imageUrls[0].url);
    assert.equal(got.status, 200);
    assert.deepEqual(Buffer.from(await got.arrayBuffer()), png);
  });
});
