import { test } from 'node:test';
import assert from 'node:assert/strict';
import smartsheet from 'smartsheet';
import { AssetType, AccessLevel } from 'smartsheet/dist/lib/sharing/index.js';
import { serverForFile } from '../helpers/setup.ts';
import { makeSheet, makeUser } from '../helpers/sheets.ts';

// The official SDK's reports and sharing methods against sheetd, unchanged but for the base URL.
const s = serverForFile();

async function fixture(tag: string) {
  const sh = await makeSheet(s.api, `${tag} source`, [{ title: 'Task', type: 'TEXT_NUMBER', primary: true }, { title: 'Points', type: 'TEXT_NUMBER' }]);
  await s.api.post(`/sheets/${sh.id}/rows`, Array.from({ length: 3 }, (_, i) => ({ toBottom: true, cells: [{ columnId: sh.col.Task!.id, value: `${tag} t${i}` }, { columnId: sh.col.Points!.id, value: i }] })));
  const rep = (await s.api.post('/sheetd/reports', { name: `${tag} report`, scope: { sheets: [{ id: sh.id }] }, columns: [{ sheetNameColumn: true }, { title: 'Task', primary: true }, { title: 'Points', type: 'TEXT_NUMBER' }], sortingCriteria: [{ column: { title: 'Points', type: 'TEXT_NUMBER' }, sortingDirection: 'DESCENDING' }] })).body.result;
  return { sheet: sh, report: rep as { id: number; name: string } };
}

const sdk = (token: string) => smartsheet.createClient({ accessToken: token, baseUrl: `${s.t.base}/`, logLevel: 'error' });

test('reports.listReports and reports.getReport (paged, include=scope)', async () => {
  const f = await fixture('sdk1');
  const c = sdk(s.t.adminToken);
  const list = await c.reports.listReports({});
  const mine = list.data.find((r) => r.id === f.report.id)!;
  assert.equal(mine.name, 'sdk1 report');
  assert.equal(mine.accessLevel, 'OWNER');
  const r = await c.reports.getReport({ reportId: f.report.id, queryParameters: { include: 'scope', pageSize: 2, page: 1 } as never });
  assert.equal(r.totalRowCount, 3);
  assert.equal(r.rows.length, 2);
  const taskCol = r.columns.find((x) => x.title === 'Task') as unknown as { virtualId: number };
  const tasks = r.rows.map((row) => (row.cells as Array<{ virtualColumnId?: number; value?: unknown }>).find((cell) => cell.virtualColumnId === taskCol.virtualId)?.value);
  assert.deepEqual(tasks, ['sdk1 t2', 'sdk1 t1']);
  assert.ok(r.rows.every((row) => row.sheetId === f.sheet.id));
  assert.deepEqual(r.scope.sheets.map((x) => x.id), [f.sheet.id]);
});

test('reports.getReportAsCSV and reports.sendReportViaEmail', async () => {
  const f = await fixture('sdk2');
  const c = sdk(s.t.adminToken);
  const csv = await c.reports.getReportAsCSV({ reportId: f.report.id });
  assert.deepEqual(String(csv).split('\r\n').slice(0, 2), ['Sheet Name,Task,Points', 'sdk2 source,sdk2 t2,2']);
  const sent = await c.reports.sendReportViaEmail({ reportId: f.report.id, body: { sendTo: [{ email: 'someone@example.org' }], subject: 'Hi', message: 'See attached', ccMe: false, format: 'EXCEL' } } as never);
  assert.equal(sent.resultCode, 0);
});

test('sharing.shareAsset / listAssetShares / updateAssetShare / deleteAssetShare with assetType report', async () => {
  const f = await fixture('sdk3');
  const u = await makeUser(s.t, s.api, 'sdk-share@example.org');
  const c = sdk(s.t.adminToken);
  const created = await c.sharing.shareAsset({ queryParameters: { assetType: AssetType.REPORT, assetId: f.report.id }, body: [{ email: 'sdk-share@example.org', accessLevel: AccessLevel.VIEWER }] });
  const shareId = created.result[0]!.id;
  assert.equal(created.result[0]!.userId, u.id);
  const list = await c.sharing.listAssetShares({ queryParameters: { assetType: AssetType.REPORT, assetId: f.report.id } });
  assert.deepEqual(list.items.map((x) => x.accessLevel), ['OWNER', 'VIEWER']);
  const upd = await c.sharing.updateAssetShare({ shareId, queryParameters: { assetType: AssetType.REPORT, assetId: f.report.id }, body: { accessLevel: AccessLevel.EDITOR } });
  assert.equal(upd.accessLevel, 'EDITOR');
  const theirs = await sdk(u.token).reports.getReport({ reportId: f.report.id });
  assert.equal(theirs.accessLevel, 'EDITOR');
  assert.equal(theirs.rows.length, 0, 'the source sheet is not shared to them');
  await c.sharing.deleteAssetShare({ shareId, queryParameters: { assetType: AssetType.REPORT, assetId: f.report.id } });
  await assert.rejects(sdk(u.token).reports.getReport({ reportId: f.report.id }), (e: { errorCode?: number; statusCode?: number }) => e.errorCode === 1006 && e.statusCode === 404);
});
