import { test } from 'node:test';
import assert from 'node:assert/strict';
import smartsheet from 'smartsheet';
import { AssetType, AccessLevel } from 'smartsheet/dist/lib/sharing/index.js';
import { serverForFile } from '../helpers/setup.ts';
import { makeSheet, makeUser } from '../helpers/sheets.ts';

// The official SDK's sights (dashboards) and sharing methods against sheetd, unchanged but for
// the base URL. Dashboards are defined through sheetd's extension (/sheetd/sights).
const s = serverForFile();

const sdk = (token: string) => smartsheet.createClient({ accessToken: token, baseUrl: `${s.t.base}/`, logLevel: 'error' });

async function fixture(tag: string) {
  const sh = await makeSheet(s.api, `${tag} source`, [{ title: 'Task', type: 'TEXT_NUMBER', primary: true }, { title: 'Points', type: 'TEXT_NUMBER' }]);
  const rows = (await s.api.post(`/sheets/${sh.id}/rows`, [{ toBottom: true, cells: [{ columnId: sh.col.Task!.id, value: `${tag} task` }, { columnId: sh.col.Points!.id, value: 8 }] }])).body.result as Array<{ id: number }>;
  const created = await s.api.post('/sheetd/sights', {
    name: `${tag} dashboard`,
    widgets: [
      { type: 'TITLE', width: 12, contents: { htmlContent: `<p>${tag}</p>` } },
      { type: 'METRIC', yPosition: 1, title: 'Points', contents: { sheetId: sh.id, cellData: [{ rowId: rows[0]!.id, columnId: sh.col.Points!.id, label: 'Points' }] } },
    ],
  });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  return { sheet: sh, sight: created.body.result as { id: number; name: string } };
}

test('sights.listSights, getSight (live METRIC cell), updateSight', async () => {
  const f = await fixture('sdk1');
  const c = sdk(s.t.adminToken);
  const list = await c.sights.listSights({});
  const mine = list.data.find((x) => x.id === f.sight.id)!;
  assert.equal(mine.name, 'sdk1 dashboard');
  assert.equal(mine.accessLevel, 'OWNER');
  const got = await c.sights.getSight({ sightId: f.sight.id, queryParameters: { level: 4 } as never });
  assert.equal(got.widgets.length, 2);
  const metric = got.widgets.find((w) => w.type === 'METRIC')!;
  const cellData = (metric.contents as unknown as { cellData: Array<{ label: string; cell: { value: unknown } }> }).cellData;
  assert.deepEqual(cellData.map((d) => [d.label, d.cell.value]), [['Points', 8]]);
  const upd = await c.sights.updateSight({ sightId: f.sight.id, body: { name: 'sdk1 renamed' } });
  assert.equal(upd.result.name, 'sdk1 renamed');
  assert.equal((await c.sights.getSight({ sightId: f.sight.id })).name, 'sdk1 renamed');
});

test('sights.copySight, moveSight, getSightPath and deleteSight', async () => {
  const f = await fixture('sdk2');
  const c = sdk(s.t.adminToken);
  const ws = (await s.api.post('/workspaces', { name: 'sdk2 ws' })).body.result.id as number;
  const copy = await c.sights.copySight({ sightId: String(f.sight.id), body: { destinationType: 'workspace', destinationId: ws, newName: 'sdk2 copy' } } as never);
  assert.equal(copy.result.name, 'sdk2 copy');
  const folder = (await s.api.post('/home/folders', { name: 'sdk2 folder' })).body.result.id as number;
  const moved = await c.sights.moveSight({ sightId: f.sight.id, body: { destinationType: 'folder', destinationId: folder } } as never);
  assert.equal(moved.result.id, f.sight.id);
  const path = await c.sights.getSightPath({ sightId: f.sight.id });
  assert.equal(path.id, folder);
  assert.deepEqual(path.sights?.map((x) => x.id), [f.sight.id]);
  const wsPath = await c.sights.getSightPath({ sightId: copy.result.id! });
  assert.equal(wsPath.id, ws);
  const res = await c.sights.deleteSight({ sightId: copy.result.id! });
  assert.equal(res.resultCode, 0);
  await assert.rejects(c.sights.getSight({ sightId: copy.result.id! }), (e: { errorCode?: number; statusCode?: number }) => e.errorCode === 1006 && e.statusCode === 404);
});

test('sights.getSightPublishStatus and setSightPublishStatus; the published page works until unpublished', async () => {
  const f = await fixture('sdk3');
  const c = sdk(s.t.adminToken);
  assert.equal((await c.sights.getSightPublishStatus({ sightId: f.sight.id })).readOnlyFullEnabled, false);
  const on = await c.sights.setSightPublishStatus({ sightId: f.sight.id, body: { readOnlyFullEnabled: true } });
  assert.equal(on.result.readOnlyFullEnabled, true);
  const url = on.result.readOnlyFullUrl!;
  const page = await fetch(s.t.server.url + new URL(url).pathname);
  assert.equal(page.status, 200);
  assert.match(await page.text(), /sdk3 dashboard/);
  await c.sights.setSightPublishStatus({ sightId: f.sight.id, body: { readOnlyFullEnabled: false } });
  assert.equal((await fetch(s.t.server.url + new URL(url).pathname)).status, 404);
});

test('sharing.shareAsset / listAssetShares / updateAssetShare / deleteAssetShare with assetType sight', async () => {
  const f = await fixture('sdk4');
  const u = await makeUser(s.t, s.api, 'sdk-sight-share@example.org');
  const c = sdk(s.t.adminToken);
  const created = await c.sharing.shareAsset({ queryParameters: { assetType: AssetType.SIGHT, assetId: f.sight.id }, body: [{ email: 'sdk-sight-share@example.org', accessLevel: AccessLevel.VIEWER }] });
  const shareId = created.result[0]!.id;
  const list = await c.sharing.listAssetShares({ queryParameters: { assetType: AssetType.SIGHT, assetId: f.sight.id } });
  assert.deepEqual(list.items.map((x) => x.accessLevel), ['OWNER', 'VIEWER']);
  const theirs = await sdk(u.token).sights.getSight({ sightId: f.sight.id });
  assert.equal(theirs.accessLevel, 'VIEWER');
  const metric = theirs.widgets.find((w) => w.type === 'METRIC')!;
  assert.equal((metric.contents as unknown as { cellData: Array<{ cell?: unknown }> }).cellData[0]!.cell, undefined, 'the sheet is not shared to them');
  const upd = await c.sharing.updateAssetShare({ shareId, queryParameters: { assetType: AssetType.SIGHT, assetId: f.sight.id }, body: { accessLevel: AccessLevel.ADMIN } });
  assert.equal(upd.accessLevel, 'ADMIN');
  await c.sharing.deleteAssetShare({ shareId, queryParameters: { assetType: AssetType.SIGHT, assetId: f.sight.id } });
  await assert.rejects(sdk(u.token).sights.getSight({ sightId: f.sight.id }), (e: { errorCode?: number; statusCode?: number }) => e.errorCode === 1006 && e.statusCode === 404);
});

test('sights.getSight: each widget\'s contents.type is the contents type the SDKs read (SHORTCUT for shortcut lists and icons)', async () => {
  const f = await fixture('sdk-ct');
  const put = await s.api.put(`/sheetd/sights/${f.sight.id}`, {
    widgets: [
      { type: 'SHORTCUTLIST', contents: { shortcutData: [{ label: 'Source', hyperlink: { sheetId: f.sheet.id } }, { label: 'Site', hyperlink: { url: 'https://example.com/' } }] } },
      { type: 'SHORTCUTICON', yPosition: 4, contents: { shortcutData: [{ label: 'Site', hyperlink: { url: 'https://example.com/' } }] } },
    ],
  });
  assert.equal(put.status, 200, put.text);
  const got = await sdk(s.t.adminToken).sights.getSight({ sightId: f.sight.id });
  const contents = (type: string) => got.widgets.find((w) => w.type === type)!.contents as unknown as { type: string; shortcutData: Array<{ label: string }> };
  assert.equal(contents('SHORTCUTLIST').type, 'SHORTCUT');
  assert.deepEqual(contents('SHORTCUTLIST').shortcutData.map((x) => x.label), ['Source', 'Site']);
  assert.equal(contents('SHORTCUTICON').type, 'SHORTCUT');
});
