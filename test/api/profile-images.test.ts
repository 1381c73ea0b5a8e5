import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverForFile } from '../helpers/setup.ts';
import { blobCount } from '../helpers/blobs.ts';
import { client } from '../helpers/http.ts';
import { assertError, makeUser } from '../helpers/sheets.ts';
import { pngBytes, gifBytes } from '../helpers/images.ts';

const s0 = serverForFile({ SHEETD_RATE_LIMIT: '100000', SHEETD_JOB_POLL_MS: '20' });


test('profile images: a user\'s own or any as a system admin; shown on the user; replaced ones leave the disk', async () => {
  const u = await makeUser(s0.t, s0.api, 'pic@example.com');
  const other = await makeUser(s0.t, s0.api, 'other-pic@example.com');
  const api = client(s0.t.base, u.token);
  const upload = (who: number, bytes: Buffer | string, type: string, token = u.token) => api.call('POST', `/users/${who}/profileimage`, { raw: bytes, token, headers: { 'content-type': type, 'content-disposition': 'attachment; filename="me.png"' } });
  const start = blobCount(s0.t.dataDir);
  const up = await upload(u.id, pngBytes(12, 10, 2), 'image/png');
  assert.equal(up.status, 200, JSON.stringify(up.body));
  assert.deepEqual({ width: up.body.result.profileImage.width, height: up.body.result.profileImage.height }, { width: 12, height: 10 });
  const me = await api.get('/users/me');
  assert.equal(me.body.profileImage.imageId, up.body.result.profileImage.imageId);
  assert.equal(blobCount(s0.t.dataDir), start + 1);

  assertError(await upload(other.id, pngBytes(2, 2), 'image/png'), 403, 1004);
  assertError(await upload(u.id, 'not an image', 'image/png'), 400, 1091);
  const byAdmin = await upload(other.id, gifBytes(3, 3), 'image/gif', s0.t.adminToken);
  assert.equal(byAdmin.status, 200, JSON.stringify(byAdmin.body));
  assert.equal((await s0.api.get(`/users/${other.id}`)).body.profileImage.width, 3);

  // a new image replaces the old, whose file goes by a job
  const again = await upload(u.id, pngBytes(4, 4, 7), 'image/png');
  assert.equal(again.status, 200);
  assert.notEqual(again.body.result.profileImage.imageId, up.body.result.profileImage.imageId);
  for (let i = 0; i < 500 && blobCount(s0.t.dataDir) !== start + 2; i++) await new Promise((r) => setTimeout(r, 20));
  assert.equal(blobCount(s0.t.dataDir), start + 2);
});

test('a profile image\'s imageId gets a URL from POST /imageurls (anyone of the organization); the URL serves its bytes; a replaced image\'s id gets none', async () => {
  const u = await makeUser(s0.t, s0.api, 'url-pic@example.com');
  const viewer = await makeUser(s0.t, s0.api, 'url-viewer@example.com');
  const png = pngBytes(9, 7, 5);
  const up = await client(s0.t.base, u.token).call('POST', `/users/${u.id}/profileimage`, { raw: png, headers: { 'content-type': 'image/png', 'content-disposition': 'attachment; filename="me.png"' } });
  assert.equal(up.status, 200, JSON.stringify(up.body));
  const imageId = up.body.result.profileImage.imageId as string;
  // another member of the organization, who shares no sheet with the owner
  const urls = await client(s0.t.base, viewer.token).post('/imageurls', [{ imageId }, { imageId: 'no-such-image' }]);
  assert.equal(urls.status, 200, JSON.stringify(urls.body));
  assert.equal(urls.body.urlExpiresInMillis > 0, true);
  const [mine, missing] = urls.body.imageUrls as Array<{ imageId: string; url?: string; error?: { errorCode: number } }>;
  assert.equal(mine!.imageId, imageId);
  assert.ok(mine!.url, JSON.stringify(urls.body));
  assert.equal(missing!.error?.errorCode, 1006);
  const got = await fetch(mine!.url!);
  assert.equal(got.status, 200);
  assert.equal(got.headers.get('content-type'), 'image/png');
  assert.deepEqual(Buffer.from(await got.arrayBuffer()), png);
  // a URL whose signature or expiry was changed serves nothing
  const forged = mine!.url!.replace(/\.(\d+)\.([A-Za-z0-9_-]+)$/, (_m, exp: string, sig: string) => `.${Number(exp) + 1000}.${sig}`);
  assert.equal((await fetch(forged)).status, 404);
  // replaced: the old id is no image any more
  const again = await client(s0.t.base, u.token).call('POST', `/users/${u.id}/profileimage`, { raw: pngBytes(3, 3, 1), headers: { 'content-type': 'image/png', 'content-disposition': 'attachment; filename="me.png"' } });
  assert.equal(again.status, 200);
  const stale = await s0.api.post('/imageurls', [{ imageId }]);
  assert.equal(stale.body.imageUrls[0].error?.errorCode, 1006);
  assert.equal((await fetch(mine!.url!)).status, 404);
});
