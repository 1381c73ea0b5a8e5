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
