import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import smartsheet from 'smartsheet';
import { serverForFile } from '../helpers/setup.ts';
import { client } from '../helpers/http.ts';
import { assertError, makeSheet, makeUser } from '../helpers/sheets.ts';

// The asset-sharing form (/shares?assetType=…&assetId=…) that the SDK's `sharing` module uses.
const s0 = serverForFile();

describe('/shares by asset', () => {
  test('through the official SDK: share, list, get, update and delete a sheet share', async () => {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the SDK's typings demand fields clients leave out
    const sdk: any = smartsheet.createClient({ accessToken: s0.t.adminToken, baseUrl: `${s0.t.base}/`, logLevel: 'error' });
    const s = await makeSheet(s0.api, 'shared by asset', [{ title: 'A', type: 'TEXT_NUMBER', primary: true }]);
    const u = await makeUser(s0.t, s0.api, 'asset-share@example.com');
    const q = { assetType: 'sheet', assetId: s.id };
    const created = await sdk.sharing.shareAsset({ queryParameters: q, body: [{ email: 'asset-share@example.com', accessLevel: 'VIEWER' }] });
    assert.equal(created.resultCode, 0);
    const shareId = created.result[0].id as string;
    assert.equal(created.result[0].accessLevel, 'VIEWER');
    // the share is real: the user can read the sheet now
    assert.equal((await client(s0.t.base, u.token).get(`/sheets/${s.id}`)).status, 200);

    const list = await sdk.sharing.listAssetShares({ queryParameters: q });
    assert.deepEqual(list.items.map((x: { email?: string }) => x.email).sort(), ['admin@example.com', 'asset-share@example.com'].sort());
    const one = await sdk.sharing.getAssetShare({ shareId, queryParameters: q });
    assert.equal(one.email, 'asset-share@example.com');
    const upd = await sdk.sharing.updateAssetShare({ shareId, queryParameters: q, body: { accessLevel: 'EDITOR' } });
    assert.equal(upd.accessLevel, 'EDITOR');
    assert.equal((await s0.api.get(`/sheets/${s.id}/shares/${shareId}`)).body.accessLevel, 'EDITOR');
    await sdk.sharing.deleteAssetShare({ shareId, queryParameters: q });
    assertError(await client(s0.t.base, u.token).get(`/sheets/${s.id}`), 404, 1006);
  });

  test('paging with maxItems and lastKey; asset errors', async () => {
    const s = await makeSheet(s0.api, 'paged shares', [{ title: 'A', type: 'TEXT_NUMBER', primary: true }]);
    for (const n of [1, 2, 3]) await makeUser(s0.t, s0.api, `pg${n}@example.com`);
    const add = await s0.api.post(`/shares?assetType=sheet&assetId=${s.id}`, [1, 2, 3].map((n) => ({ email: `pg${n}@example.com`, accessLevel: 'VIEWER' })));
    assert.equal(add.status, 200, JSON.stringify(add.body));
    const seen: string[] = [];
    let lastKey: string | undefined;
    for (let i = 0; i < 5; i++) {
      const page = await s0.api.get(`/shares?assetType=sheet&assetId=${s.id}&maxItems=3${lastKey ? `&lastKey=${lastKey}` : ''}`);
      assert.equal(page.status, 200, JSON.stringify(page.body));
      seen.push(...page.body.items.map((x: { id: string }) => x.id));
      lastKey = page.body.lastKey;
      if (!lastKey) break;
    }
    assert.equal(seen.length, 4);
    assert.equal(new Set(seen).size, 4);
    assertError(await s0.api.get('/shares?assetType=sheet'), 400, 1009);
    assertError(await s0.api.get(`/shares?assetId=${s.id}`), 400, 1009);
    assertError(await s0.api.get(`/shares?assetType=report&assetId=${s.id}`), 404, 1006);
    assertError(await s0.api.get(`/shares?assetType=banana&assetId=${s.id}`), 400, 1018);
    assertError(await s0.api.get(`/shares?assetType=sheet&assetId=12345`), 404, 1006);
  });

  test('a token without SHARE_SHEETS cannot share a sheet (1004)', async () => {
    const s = await makeSheet(s0.api, 'scoped', [{ title: 'A', type: 'TEXT_NUMBER', primary: true }]);
    const u = await makeUser(s0.t, s0.api, 'scoped-sharer@example.com', ['READ_SHEETS']);
    await s0.api.post(`/sheets/${s.id}/shares`, { email: 'scoped-sharer@example.com', accessLevel: 'ADMIN' });
    const as = client(s0.t.base, u.token);
    assertError(await as.post(`/shares?assetType=sheet&assetId=${s.id}`, [{ email: 'pg1@example.com', accessLevel: 'VIEWER' }]), 403, 1004);
    assert.equal((await as.get(`/shares?assetType=sheet&assetId=${s.id}`)).status, 200);
  });
});
