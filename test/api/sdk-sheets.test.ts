import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import smartsheet from 'smartsheet';
import { startSuiteServer, type TestServer } from '../helpers/server.ts';

// The important sheet paths through the official JavaScript SDK, unchanged but for the base URL.
let t: TestServer;
before(async () => {
  t = await startSuiteServer();
});
after(() => t.close());

// The SDK's typings demand fields real clients leave out; these tests send what clients send.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = any;

test('create sheet, add, update and delete rows, get sheet and cell history through the SDK', async () => {
  const c: Loose = smartsheet.createClient({ accessToken: t.adminToken, baseUrl: t.base + '/', logLevel: 'error' });
  const created = await c.sheets.createSheet({ body: { name: 'SDK sheet', columns: [{ title: 'Item', type: 'TEXT_NUMBER', primary: true }, { title: 'Qty', type: 'TEXT_NUMBER' }] } });
  assert.equal(created.message, 'SUCCESS');
  const sheetId = created.result.id;
  const [item, qty] = created.result.columns.map((col: { id: number }) => col.id);

  const added = await c.sheets.addRows({ sheetId, body: [{ toBottom: true, cells: [{ columnId: item, value: 'apples' }, { columnId: qty, value: 3 }] }, { toBottom: true, cells: [{ columnId: item, value: 'pears' }] }] });
  assert.equal(added.result.length, 2);
  const [r1, r2] = added.result.map((r: { id: number }) => r.id);

  const updated = await c.sheets.updateRow({ sheetId, body: [{ id: r1, cells: [{ columnId: qty, value: 5 }] }] });
  assert.equal(updated.message, 'SUCCESS');

  const sheet = await c.sheets.getSheet({ id: sheetId });
  assert.equal(sheet.name, 'SDK sheet');
  assert.equal(sheet.rows.length, 2);
  assert.equal(sheet.rows[0].cells.find((x: { columnId: number }) => x.columnId === qty).value, 5);

  const history = await c.sheets.getCellHistory({ sheetId, rowId: r1, columnId: qty });
  assert.deepEqual(history.data.map((h: { value: number }) => h.value), [5, 3]);

  const row = await c.sheets.getRow({ sheetId, rowId: r2 });
  assert.equal(row.rowNumber, 2);

  const deleted = await c.sheets.deleteRows({ sheetId, queryParameters: { ids: String(r2) } });
  assert.deepEqual(deleted.result, [r2]);
  const after = await c.sheets.getSheet({ id: sheetId });
  assert.equal(after.rows.length, 1);

  const cols = await c.sheets.getColumns({ sheetId });
  assert.equal(cols.totalCount, 2);
});
