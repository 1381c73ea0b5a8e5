import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startSuiteServer, notInCluster } from '../helpers/server.ts';
import { serverForFile } from '../helpers/setup.ts';
import { client } from '../helpers/http.ts';
import { assertError, cellOf, makeSheet } from '../helpers/sheets.ts';

const s0 = serverForFile();

const BASE = [
  { title: 'Name', type: 'TEXT_NUMBER', primary: true },
  { title: 'Notes', type: 'TEXT_NUMBER' },
];

describe('create sheet column rules', () => {
  test('exactly one primary column, of type TEXT_NUMBER; unique titles; options rules', async () => {
    assertError(await s0.api.post('/sheets', { name: 'x', columns: [{ title: 'A', type: 'TEXT_NUMBER' }] }), 400, 1055);
    assertError(await s0.api.post('/sheets', { name: 'x', columns: [{ title: 'A', type: 'TEXT_NUMBER', primary: true }, { title: 'B', type: 'TEXT_NUMBER', primary: true }] }), 400, 1055);
    assertError(await s0.api.post('/sheets', { name: 'x', columns: [{ title: 'A', type: 'DATE', primary: true }] }), 400, 1057);
    assertError(await s0.api.post('/sheets', { name: 'x', columns: [{ title: 'A', type: 'TEXT_NUMBER', primary: true }, { title: 'A', type: 'TEXT_NUMBER' }] }), 400, 1133);
    assertError(await s0.api.post('/sheets', { name: 'x', columns: [{ title: 'A', type: 'TEXT_NUMBER', primary: true }, { title: 'B', type: 'DATE', options: ['x'] }] }), 400, 1060);
    assertError(await s0.api.post('/sheets', { name: 'x' }), 400, 1054);
    assertError(await s0.api.post('/sheets', { columns: BASE }), 400, 1012);
    const list = await s0.api.get('/sheets');
    // none of the refused sheets exist (GET /sheets may not be there yet: then 404 for the route is fine too)
    if (list.status === 200) assert.equal(list.body.data.filter((s: { name: string }) => s.name === 'x').length, 0);
  });
});

describe('columns', () => {
  test('list (IndexResult), get, add at an index, update, delete', async () => {
    const s = await makeSheet(s0.api, 'cols', BASE);
    const list = await s0.api.get(`/sheets/${s.id}/columns`);
    assert.equal(list.status, 200);
    assert.equal(list.body.totalCount, 2);
    assert.deepEqual(list.body.data.map((c: { title: string }) => c.title), ['Name', 'Notes']);
    const one = await s0.api.get(`/sheets/${s.id}/columns/${s.col.Notes!.id}`);
    assert.equal(one.body.title, 'Notes');
    assertError(await s0.api.get(`/sheets/${s.id}/columns/123`), 404, 1006);

    const added = await s0.api.post(`/sheets/${s.id}/columns`, [{ title: 'Due', type: 'DATE', index: 1 }, { title: 'Stage', type: 'PICKLIST', options: ['a', 'b'], index: 1 }]);
    assert.equal(added.status, 200, JSON.stringify(added.body));
    assert.equal(added.body.version, 2);
    const after = await s0.api.get(`/sheets/${s.id}/columns`);
    assert.deepEqual(after.body.data.map((c: { title: string; index: number }) => [c.title, c.index]), [['Name', 0], ['Due', 1], ['Stage', 2], ['Notes', 3]]);
    assertError(await s0.api.post(`/sheets/${s.id}/columns`, [{ title: 'X', type: 'TEXT_NUMBER', index: 1 }, { title: 'Y', type: 'TEXT_NUMBER', index: 2 }]), 400, 1135);
    assertError(await s0.api.post(`/sheets/${s.id}/columns`, [{ title: 'Notes', type: 'TEXT_NUMBER', index: 0 }]), 400, 1056);
    assert.equal((await s0.api.get(`/sheets/${s.id}/columns`)).body.totalCount, 4);

    const renamed = await s0.api.put(`/sheets/${s.id}/columns/${s.col.Notes!.id}`, { title: 'Comments', index: 1 });
    assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
    assert.equal(renamed.body.result.title, 'Comments');
    const afterMove = await s0.api.get(`/sheets/${s.id}/columns`);
    assert.deepEqual(afterMove.body.data.map((c: { title: string }) => c.title), ['Name', 'Comments', 'Due', 'Stage']);

    assertError(await s0.api.del(`/sheets/${s.id}/columns/${s.col.Name!.id}`), 400, 1065);
    const del = await s0.api.del(`/sheets/${s.id}/columns/${s.col.Notes!.id}`);
    assert.equal(del.status, 200);
    assert.deepEqual((await s0.api.get(`/sheets/${s.id}/columns`)).body.data.map((c: { title: string; index: number }) => [c.title, c.index]), [['Name', 0], ['Due', 1], ['Stage', 2]]);
  });

  test('changing a column type converts values that fit and keeps the rest as text', async () => {
    const s = await makeSheet(s0.api, 'retype', BASE);
    const rows = await s0.api.post(`/sheets/${s.id}/rows`, [
      { toBottom: true, cells: [{ columnId: s.col.Name!.id, value: 'a' }, { columnId: s.col.Notes!.id, value: 'true' }] },
      { toBottom: true, cells: [{ columnId: s.col.Name!.id, value: 'b' }, { columnId: s.col.Notes!.id, value: 'whatever' }] },
    ]);
    assert.equal(rows.status, 200);
    const res = await s0.api.put(`/sheets/${s.id}/columns/${s.col.Notes!.id}`, { type: 'CHECKBOX' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const sheet = await s0.api.get(`/sheets/${s.id}`);
    assert.equal(sheet.body.columns[1].type, 'CHECKBOX');
    assert.equal(cellOf(sheet.body.rows[0], s.col.Notes!.id).value, true);
    assert.equal(cellOf(sheet.body.rows[1], s.col.Notes!.id).value, 'whatever');
  });

  test('system columns are filled by the server and refuse writes (1046)', async () => {
    const s = await makeSheet(s0.api, 'sys', [
      ...BASE,
      { title: 'No', type: 'TEXT_NUMBER', systemColumnType: 'AUTO_NUMBER', autoNumberFormat: { prefix: 'T-', fill: '000', startingNumber: 7 } },
      { title: 'Created', type: 'DATETIME', systemColumnType: 'CREATED_DATE' },
      { title: 'By', type: 'CONTACT_LIST', systemColumnType: 'CREATED_BY' },
    ]);
    const res = await s0.api.post(`/sheets/${s.id}/rows`, [1, 2].map((i) => ({ toBottom: true, cells: [{ columnId: s.col.Name!.id, value: `r${i}` }] })));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const sheet = await s0.api.get(`/sheets/${s.id}`);
    assert.deepEqual(sheet.body.rows.map((r: { cells: Array<{ columnId: number }> }) => cellOf(r, s.col.No!.id).value), ['T-007', 'T-008']);
    assert.match(String(cellOf(sheet.body.rows[0], s.col.Created!.id).value), /^\d{4}-\d{2}-\d{2}T/);
    assert.equal(cellOf(sheet.body.rows[0], s.col.By!.id).value, s0.t.config.adminEmail);
    assertError(await s0.api.put(`/sheets/${s.id}/rows`, { id: sheet.body.rows[0].id, cells: [{ columnId: s.col.No!.id, value: 'X' }] }), 400, 1046);
    assertError(await s0.api.put(`/sheets/${s.id}/columns/${s.col.Created!.id}`, { systemColumnType: 'AUTO_NUMBER' }), 400, 1090);
  });

  test('an AUTO_NUMBER column added or changed to on a sheet with rows numbers them in display order, then new rows go on', async () => {
    const s = await makeSheet(s0.api, 'numbered later', BASE);
    const rows = await s0.api.post(`/sheets/${s.id}/rows`, ['a', 'b', 'c'].map((v) => ({ toBottom: true, cells: [{ columnId: s.col.Name!.id, value: v }, { columnId: s.col.Notes!.id, value: `old ${v}` }] })));
    assert.equal(rows.status, 200, JSON.stringify(rows.body));
    // 'c' moved to the top: display order is c, a, b
    const moved = await s0.api.put(`/sheets/${s.id}/rows`, { id: rows.body.result[2].id, toTop: true });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    const added = await s0.api.post(`/sheets/${s.id}/columns`, { title: 'No', type: 'TEXT_NUMBER', index: 1, systemColumnType: 'AUTO_NUMBER', autoNumberFormat: { prefix: 'A-', fill: '00', startingNumber: 5 } });
    assert.equal(added.status, 200, JSON.stringify(added.body));
    const noId = added.body.result.id as number;
    const more = await s0.api.post(`/sheets/${s.id}/rows`, { toBottom: true, cells: [{ columnId: s.col.Name!.id, value: 'd' }] });
    assert.equal(more.status, 200, JSON.stringify(more.body));
    let sheet = await s0.api.get(`/sheets/${s.id}`);
    const numbers = (): unknown[] => sheet.body.rows.map((r: { cells: Array<{ columnId: number }> }) => cellOf(r, noId).value);
    assert.deepEqual(sheet.body.rows.map((r: { cells: Array<{ columnId: number }> }) => cellOf(r, s.col.Name!.id).value), ['c', 'a', 'b', 'd']);
    assert.deepEqual(numbers(), ['A-05', 'A-06', 'A-07', 'A-08']);

    // a column changed to AUTO_NUMBER: its text is overwritten by numbers (after the other column is gone: one per sheet)
    assert.equal((await s0.api.del(`/sheets/${s.id}/columns/${noId}`)).status, 200);
    const changed = await s0.api.put(`/sheets/${s.id}/columns/${s.col.Notes!.id}`, { type: 'TEXT_NUMBER', systemColumnType: 'AUTO_NUMBER', autoNumberFormat: { prefix: 'N' } });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    sheet = await s0.api.get(`/sheets/${s.id}`);
    assert.deepEqual(sheet.body.rows.map((r: { cells: Array<{ columnId: number }> }) => cellOf(r, s.col.Notes!.id).value), ['N1', 'N2', 'N3', 'N4']);
    const next = await s0.api.post(`/sheets/${s.id}/rows`, { toTop: true, cells: [{ columnId: s.col.Name!.id, value: 'e' }] });
    assert.equal(next.status, 200, JSON.stringify(next.body));
    assert.equal(cellOf(next.body.result, s.col.Notes!.id).value, 'N5');
    // the number is the cell's newest history entry
    const history = await s0.api.get(`/sheets/${s.id}/rows/${rows.body.result[0].id}/columns/${s.col.Notes!.id}/history`);
    assert.equal(history.status, 200);
    assert.equal(history.body.data[0].value, 'N2');
  });

  test('without level, MULTI_PICKLIST columns read as TEXT_NUMBER; with level=2 as themselves', async () => {
    const s = await makeSheet(s0.api, 'levels', [...BASE, { title: 'Tags', type: 'MULTI_PICKLIST', options: ['x', 'y'] }]);
    const add = await s0.api.post(`/sheets/${s.id}/rows?level=2`, { cells: [{ columnId: s.col.Name!.id, value: 'r' }, { columnId: s.col.Tags!.id, objectValue: { objectType: 'MULTI_PICKLIST', values: ['x', 'y'] } }] });
    assert.equal(add.status, 200, JSON.stringify(add.body));
    const plain = await s0.api.get(`/sheets/${s.id}`);
    const tags = plain.body.columns.find((c: { title: string }) => c.title === 'Tags');
    assert.equal(tags.type, 'TEXT_NUMBER');
    assert.equal(tags.version, 2);
    assert.equal(typeof cellOf(plain.body.rows[0], tags.id).value, 'string');
    const leveled = await s0.api.get(`/sheets/${s.id}?level=2&include=objectValue`);
    const tags2 = leveled.body.columns.find((c: { title: string }) => c.title === 'Tags');
    assert.equal(tags2.type, 'MULTI_PICKLIST');
    assert.deepEqual(cellOf(leveled.body.rows[0], tags2.id).objectValue, { objectType: 'MULTI_PICKLIST', values: ['x', 'y'] });
    assertError(await s0.api.put(`/sheets/${s.id}/rows`, { id: plain.body.rows[0].id, cells: [{ columnId: tags.id, value: 'x' }] }), 400, 1239);
  });
});

describe('cell history', () => {
  test('every change is kept with modifiedAt and modifiedBy, newest first, paged', async () => {
    const s = await makeSheet(s0.api, 'hist', BASE);
    const row = (await s0.api.post(`/sheets/${s.id}/rows`, { cells: [{ columnId: s.col.Name!.id, value: 'one' }] })).body.result;
    for (const v of ['two', 'three']) {
      assert.equal((await s0.api.put(`/sheets/${s.id}/rows`, { id: row.id, cells: [{ columnId: s.col.Name!.id, value: v }] })).status, 200);
    }
    const h = await s0.api.get(`/sheets/${s.id}/rows/${row.id}/columns/${s.col.Name!.id}/history?include=columnType`);
    assert.equal(h.status, 200, JSON.stringify(h.body));
    assert.equal(h.body.totalCount, 3);
    assert.deepEqual(h.body.data.map((c: { value: string }) => c.value), ['three', 'two', 'one']);
    assert.equal(h.body.data[0].columnType, 'TEXT_NUMBER');
    assert.equal(h.body.data[0].modifiedBy.email, s0.t.config.adminEmail);
    assert.match(h.body.data[2].modifiedAt, /Z$/);
    const page2 = await s0.api.get(`/sheets/${s.id}/rows/${row.id}/columns/${s.col.Name!.id}/history?pageSize=2&page=2`);
    assert.deepEqual(page2.body.data.map((c: { value: string }) => c.value), ['one']);
    const untouched = await s0.api.get(`/sheets/${s.id}/rows/${row.id}/columns/${s.col.Notes!.id}/history`);
    assert.equal(untouched.body.totalCount, 0);
    assertError(await s0.api.get(`/sheets/${s.id}/rows/1/columns/${s.col.Name!.id}/history`), 404, 1006);
  });

  test('cell history costs 10 toward the rate limit', { skip: notInCluster('sets a rate limit of its own') }, async () => {
    const limited = await startSuiteServer({ SHEETD_RATE_LIMIT: '25' });
    try {
      const a = client(limited.base, limited.adminToken);
      // the limit is rolling (one unit back every 2.4 s): these requests take well under that
      const s = await makeSheet(a, 'h', BASE); // 1
      const row = (await a.post(`/sheets/${s.id}/rows`, { cells: [{ columnId: s.col.Name!.id, value: 'v' }] })).body.result; // 2
      const path = `/sheets/${s.id}/rows/${row.id}/columns/${s.col.Name!.id}/history`;
      assert.equal((await a.get(path)).status, 200); // 12
      assert.equal((await a.get(path)).status, 200); // 22
      assertError(await a.get(path), 429, 4003); // 32 > 25: refused
      assert.equal((await a.get('/users/me')).status, 200); // 23
    } finally {
      await limited.close();
    }
  });
});
