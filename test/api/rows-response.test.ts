import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { serverForFile } from '../helpers/setup.ts';
import { notInCluster } from '../helpers/server.ts';
import { makeSheet } from '../helpers/sheets.ts';
import { client } from '../helpers/http.ts';
import { spawnServer } from '../helpers/process.ts';

// many reads of cell history, compared across two processes: above the default rate limit
const s0 = serverForFile({ SHEETD_RATE_LIMIT: '100000' });

const COLUMNS = [
  { title: 'Task', type: 'TEXT_NUMBER', primary: true },
  { title: 'Done', type: 'CHECKBOX' },
  { title: 'Due', type: 'DATE' },
  { title: 'Status', type: 'PICKLIST', options: ['Open', 'Closed'] },
  { title: 'Who', type: 'CONTACT_LIST' },
  { title: 'Tags', type: 'MULTI_PICKLIST', options: ['a', 'b'] },
  { title: 'Total', type: 'TEXT_NUMBER' },
  { title: 'No', type: 'TEXT_NUMBER', systemColumnType: 'AUTO_NUMBER', autoNumberFormat: { prefix: 'T-', fill: '000' } },
  { title: 'Created', type: 'DATETIME', systemColumnType: 'CREATED_DATE' },
  { title: 'By', type: 'CONTACT_LIST', systemColumnType: 'CREATED_BY' },
];

/** The same query strings for the write and for the reads it is compared with. */
const QUERIES = [
  '',
  '?include=format,objectValue,writerInfo,rowPermalink,discussions,attachments,columnType',
  '?exclude=nonexistentCells&numericDates=true',
  '?level=3&include=objectValue',
];

/**
 * A response of several rows is written as JSON text straight from the model (writeRowsJson);
 * each of its rows must read byte for byte as that row's own Get Row presents it.
 */
describe('rows responses', () => {
  for (const q of QUERIES) {
    test(`add and update many rows: each row as Get Row presents it (${q || 'no query'})`, async () => {
      const s = await makeSheet(s0.api, 'resp', COLUMNS);
      const c = (t: string) => s.col[t]!.id;
      const cells = (i: number) => [
        { columnId: c('Task'), value: i % 2 === 0 ? `task ${i}` : i * 1.5 },
        { columnId: c('Done'), value: i % 3 === 0 },
        ...(i % 2 === 0 ? [{ columnId: c('Due'), value: '2025-02-03' }] : []),
        { columnId: c('Status'), value: i % 2 === 0 ? 'Open' : 'Elsewhere', strict: false },
        ...(i % 3 === 1 ? [{ columnId: c('Who'), value: 'someone@example.org' }] : []),
        ...(i % 4 === 2 ? [{ columnId: c('Tags'), objectValue: { objectType: 'MULTI_PICKLIST', values: ['a', 'b'] } }] : []),
        { columnId: c('Total'), ...(i === 3 ? { formula: '=SUM([Total]1:[Total]2)' } : { value: i, format: ',,1,,,,,,,,,,,,,,' }) },
      ];
      const added = await s0.api.post(`/sheets/${s.id}/rows${q}`, [0, 1, 2, 3, 4, 5].map((i) => ({ toBottom: true, cells: cells(i), ...(i === 5 ? { format: ',,1,,,,,,,,,,,,,,' } : {}) })));
      assert.equal(added.status, 200, added.text);
      const ids = (added.body.result as Array<{ id: number }>).map((r) => r.id);
      // a child row (parentId, siblingId in the response) and a locked one
      const child = await s0.api.post(`/sheets/${s.id}/rows${q}`, [{ parentId: ids[0], toBottom: true, cells: cells(6) }, { parentId: ids[0], toBottom: true, locked: true, cells: cells(7) }]);
      assert.equal(child.status, 200, child.text);
      const all = [...ids, ...(child.body.result as Array<{ id: number }>).map((r) => r.id)];
      const rowText = async (id: number) => {
        const r = await s0.api.get(`/sheets/${s.id}/rows/${id}${q}`);
        assert.equal(r.status, 200, r.text);
        return JSON.stringify(r.body);
      };
      const check = async (res: typeof added, rowIds: number[]) => {
        const result = res.body.result as unknown[];
        assert.equal(result.length, rowIds.length);
        for (let i = 0; i < rowIds.length; i++) assert.equal(JSON.stringify(result[i]), await rowText(rowIds[i]!));
        // the envelope around the rows: the same keys, in the same order, as before
        assert.deepEqual(Object.keys(res.body), ['message', 'resultCode', 'result', 'version']);
      };
      await check(child, all.slice(6));
      const updated = await s0.api.put(`/sheets/${s.id}/rows${q}`, all.map((id, i) => ({ id, cells: [{ columnId: c('Task'), value: `u${i}` }], ...(i === 1 ? { expanded: false } : {}) })));
      assert.equal(updated.status, 200, updated.text);
      await check(updated, all);
      // every row read whole (the sheet) matches its row in the update response
      const sheet = await s0.api.get(`/sheets/${s.id}${q}`);
      const byId = new Map((sheet.body.rows as Array<{ id: number }>).map((r) => [r.id, JSON.stringify(r)]));
      for (const r of updated.body.result as Array<{ id: number }>) assert.equal(JSON.stringify(r), byId.get(r.id));
    });
  }

  test('writers (createdBy, modifiedBy) shown with include=writerInfo or a Modified By column, and only then', async () => {
    const me = (await s0.api.get('/users/me')).body as { email: string; firstName?: string; lastName?: string };
    const name = [me.firstName, me.lastName].filter(Boolean).join(' ') || me.email;
    const writer = { email: me.email, name };
    const plain = await makeSheet(s0.api, 'writers', [{ title: 'Task', type: 'TEXT_NUMBER', primary: true }]);
    const task = plain.col.Task!.id;
    for (const q of ['', '?include=writerInfo']) {
      const added = await s0.api.post(`/sheets/${plain.id}/rows${q}`, [1, 2].map((i) => ({ toBottom: true, cells: [{ columnId: task, value: `t${i}` }] })));
      assert.equal(added.status, 200, added.text);
      const updated = await s0.api.put(`/sheets/${plain.id}/rows${q}`, (added.body.result as Array<{ id: number }>).map((r) => ({ id: r.id, cells: [{ columnId: task, value: 'u' }] })));
      assert.equal(updated.status, 200, updated.text);
      const id = (added.body.result as Array<{ id: number }>)[0]!.id;
      const row = await s0.api.get(`/sheets/${plain.id}/rows/${id}${q}`);
      const sheet = await s0.api.get(`/sheets/${plain.id}${q}`);
      for (const r of [...added.body.result, ...updated.body.result, row.body, ...sheet.body.rows] as Array<Record<string, unknown>>) {
        if (q === '') {
          assert.equal(r.createdBy, undefined);
          assert.equal(r.modifiedBy, undefined);
        } else {
          assert.deepEqual(r.createdBy, writer);
          assert.deepEqual(r.modifiedBy, writer);
        }
      }
    }
    // no writerInfo, but a Modified By column: its cells name the writer
    const system = await makeSheet(s0.api, 'writer column', [{ title: 'Task', type: 'TEXT_NUMBER', primary: true }, { title: 'Editor', type: 'CONTACT_LIST', systemColumnType: 'MODIFIED_BY' }]);
    const added = await s0.api.post(`/sheets/${system.id}/rows`, [1, 2].map((i) => ({ toBottom: true, cells: [{ columnId: system.col.Task!.id, value: `t${i}` }] })));
    assert.equal(added.status, 200, added.text);
    for (const r of added.body.result as Array<{ createdBy?: unknown; cells: Array<{ columnId: number; value?: unknown; displayValue?: unknown }> }>) {
      assert.equal(r.createdBy, undefined);
      const cell = r.cells.find((c) => c.columnId === system.col.Editor!.id)!;
      assert.equal(cell.value, me.email);
      assert.equal(cell.displayValue, name);
    }
  });

  test('partial success: failedItems after the rows, as before', async () => {
    const s = await makeSheet(s0.api, 'partial', COLUMNS);
    const res = await s0.api.post(`/sheets/${s.id}/rows?allowPartialSuccess=true`, [
      { toBottom: true, cells: [{ columnId: s.col.Task!.id, value: 'ok' }] },
      { toBottom: true, cells: [{ columnId: s.col.Done!.id, value: 'not a boolean' }] },
    ]);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(Object.keys(res.body), ['message', 'resultCode', 'result', 'version', 'failedItems']);
    assert.equal(res.body.message, 'PARTIAL_SUCCESS');
    assert.equal(res.body.resultCode, 3);
    assert.equal(res.body.result.length, 1);
    assert.equal(res.body.failedItems[0].index, 1);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json; charset=utf-8$/);
    const none = await s0.api.post(`/sheets/${s.id}/rows?allowPartialSuccess=true`, [{ toBottom: true, cells: [{ columnId: s.col.Done!.id, value: 'no' }] }]);
    assert.equal(none.status, 200, none.text);
    assert.deepEqual(none.body.result, []);
    assert.deepEqual(Object.keys(none.body), ['message', 'resultCode', 'result', 'version', 'failedItems']);
  });

  test('who wrote each cell and when (cell meta) reads the same from a second process after adds and updates of many rows', { skip: notInCluster('starts a process of its own (test/cluster reads across processes)') }, async () => {
    const s = await makeSheet(s0.api, 'meta', COLUMNS);
    const c = (t: string) => s.col[t]!.id;
    const added = await s0.api.post(`/sheets/${s.id}/rows`, [0, 1, 2].map((i) => ({ toBottom: true, cells: [{ columnId: c('Task'), value: `t${i}` }, ...(i === 1 ? [] : [{ columnId: c('Done'), value: true }])] })));
    assert.equal(added.status, 200, added.text);
    const ids = (added.body.result as Array<{ id: number }>).map((r) => r.id);
    const pause = () => new Promise((r) => setTimeout(r, 5));
    // rows of the same columns as the last rows written, a moment later
    await pause();
    const more = await s0.api.post(`/sheets/${s.id}/rows`, [3, 4].map((i) => ({ toBottom: true, cells: [{ columnId: c('Task'), value: `t${i}` }, { columnId: c('Done'), value: true }] })));
    assert.equal(more.status, 200, more.text);
    await pause();
    const updated = await s0.api.put(`/sheets/${s.id}/rows`, [{ id: ids[0], cells: [{ columnId: c('Done'), value: false }] }, { id: ids[2], cells: [{ columnId: c('Done'), value: false }] }]);
    assert.equal(updated.status, 200, updated.text);
    await pause();
    const again = await s0.api.put(`/sheets/${s.id}/rows`, [{ id: ids[1], cells: [{ columnId: c('Done'), value: false }] }, { id: ids[2], cells: [{ columnId: c('Total'), value: 3 }] }]);
    assert.equal(again.status, 200, again.text);
    const all = [...ids, ...(more.body.result as Array<{ id: number }>).map((r) => r.id)];
    const second = await spawnServer({ SHEETD_DATA_DIR: s0.t.dataDir, ...(s0.t.config.databaseUrl ? { DATABASE_URL: s0.t.config.databaseUrl } : {}) });
    try {
      const api2 = client(second.base, s0.t.adminToken);
      for (const id of all) {
        for (const col of ['Task', 'Done', 'Total']) {
          const path = `/sheets/${s.id}/rows/${id}/columns/${c(col)}/history?include=columnType&numericDates=true`;
          const a = await s0.api.get(path);
          const b = await api2.get(path);
          assert.equal(a.status, 200, a.text);
          assert.equal(b.text, a.text);
        }
      }
      const a = await s0.api.get(`/sheets/${s.id}?include=writerInfo`);
      const b = await api2.get(`/sheets/${s.id}?include=writerInfo`);
      // (the sheet's permalink names each server's own address)
      assert.equal(JSON.stringify(b.body.rows), JSON.stringify(a.body.rows));
    } finally {
      await second.close();
    }
  });

  test('rows whose cells all share one writer and time are stored with that pair once, and read back the same by a second process, in the sheet and in its copy', { skip: notInCluster('starts a process of its own (test/cluster reads across processes)') }, async () => {
    const s = await makeSheet(s0.api, 'shared meta', [{ title: 'A', type: 'TEXT_NUMBER', primary: true }, { title: 'B', type: 'TEXT_NUMBER' }, { title: 'C', type: 'CHECKBOX' }]);
    const c = (t: string) => s.col[t]!.id;
    const added = await s0.api.post(`/sheets/${s.id}/rows`, [0, 1, 2, 3].map((i) => ({ toBottom: true, cells: [{ columnId: c('A'), value: `a${i}` }, ...(i === 1 ? [] : [{ columnId: c('B'), value: i }]), { columnId: c('C'), value: i % 2 === 0 }] })));
    assert.equal(added.status, 200, added.text);
    const ids = (added.body.result as Array<{ id: number }>).map((r) => r.id);
    await new Promise((r) => setTimeout(r, 5));
    // row 2: one cell written again later, one cleared: two stamps, and meta for a cell with no content
    const updated = await s0.api.put(`/sheets/${s.id}/rows`, [{ id: ids[2], cells: [{ columnId: c('B'), value: 'later' }, { columnId: c('C'), value: null }] }]);
    assert.equal(updated.status, 200, updated.text);
    const stored = await s0.t.server.store.db.selectFrom('rows').select(['id', 'cell_meta']).where('sheet_id', '=', s.id).execute();
    const metaOf = new Map(stored.map((r) => [Number(r.id), r.cell_meta]));
    assert.match(metaOf.get(ids[0]!)!, /^\{"\*":\[\d+,\d+\]\}$/);
    assert.match(metaOf.get(ids[1]!)!, /^\{"\*":\[\d+,\d+\]\}$/);
    assert.doesNotMatch(metaOf.get(ids[2]!)!, /"\*"/);
    const copied = await s0.api.post(`/sheets/${s.id}/copy?include=data`, { destinationType: 'home', newName: 'shared meta copy' });
    assert.equal(copied.status, 200, copied.text);
    const copyId = copied.body.result.id as number;
    const copyRows = ((await s0.api.get(`/sheets/${copyId}`)).body.rows as Array<{ id: number; cells: Array<{ columnId: number }> }>);
    const second = await spawnServer({ SHEETD_DATA_DIR: s0.t.dataDir, ...(s0.t.config.databaseUrl ? { DATABASE_URL: s0.t.config.databaseUrl } : {}) });
    try {
      const api2 = client(second.base, s0.t.adminToken);
      const histories: Array<[number, number, number]> = [];
      for (const id of ids) for (const col of ['A', 'B', 'C']) histories.push([s.id, id, c(col)]);
      for (const row of copyRows) for (const cell of row.cells) histories.push([copyId, row.id, cell.columnId]);
      let current = 0;
      for (const [sheetId, rowId, columnId] of histories) {
        const path = `/sheets/${sheetId}/rows/${rowId}/columns/${columnId}/history?include=columnType&numericDates=true`;
        const a = await s0.api.get(path);
        const b = await api2.get(path);
        assert.equal(a.status, 200, a.text);
        assert.equal(b.text, a.text, path);
        if ((a.body.data as unknown[]).length > 0) current++;
      }
      // every cell written has a current entry: 4 rows x 3 columns but row 1's B, in both sheets (the copy's rows have no earlier states)
      assert.ok(current >= 11 + 10, `cells with history: ${current}`);
      for (const sheetId of [s.id, copyId]) {
        const a = await s0.api.get(`/sheets/${sheetId}?include=writerInfo`);
        const b = await api2.get(`/sheets/${sheetId}?include=writerInfo`);
        assert.equal(JSON.stringify(b.body.rows), JSON.stringify(a.body.rows));
      }
    } finally {
      await second.close();
    }
  });

  test('adding rows to a sheet without formulas: a formula among many cells is computed; cells of a column formula refuse values (1302)', async () => {
    const s = await makeSheet(s0.api, 'fx', [{ title: 'Item', type: 'TEXT_NUMBER', primary: true }, { title: 'Qty', type: 'TEXT_NUMBER' }, { title: 'Total', type: 'TEXT_NUMBER' }]);
    const c = (t: string) => s.col[t]!.id;
    // read first: the sheet is known to have no formulas
    assert.equal((await s0.api.get(`/sheets/${s.id}`)).status, 200);
    const plain = await s0.api.post(`/sheets/${s.id}/rows`, [1, 2].map((q) => ({ toBottom: true, cells: [{ columnId: c('Item'), value: `r${q}` }, { columnId: c('Qty'), value: q }] })));
    assert.equal(plain.status, 200, plain.text);
    const withFormula = await s0.api.post(`/sheets/${s.id}/rows`, [3, 4].map((q) => ({ toBottom: true, cells: [{ columnId: c('Item'), value: `r${q}` }, { columnId: c('Qty'), value: q }, ...(q === 4 ? [{ columnId: c('Total'), formula: '=SUM(Qty:Qty)' }] : [])] })));
    assert.equal(withFormula.status, 200, withFormula.text);
    const total = (withFormula.body.result[1].cells as Array<{ columnId: number; value?: unknown; formula?: string }>).find((x) => x.columnId === c('Total'))!;
    assert.equal(total.value, 10);
    assert.equal(total.formula, '=SUM([Qty]:[Qty])');
    const set = await s0.api.put(`/sheets/${s.id}/columns/${c('Qty')}`, { formula: '=2' });
    assert.equal(set.status, 200, set.text);
    const refused = await s0.api.post(`/sheets/${s.id}/rows`, [{ toBottom: true, cells: [{ columnId: c('Item'), value: 'x' }] }, { toBottom: true, cells: [{ columnId: c('Qty'), value: 5 }] }]);
    assert.equal(refused.status, 400, refused.text);
    assert.equal(refused.body.errorCode, 1302);
  });

  test('deleting rows of a sheet without formulas, then writing a formula: computed over the rows left', async () => {
    const s = await makeSheet(s0.api, 'delfx', [{ title: 'Item', type: 'TEXT_NUMBER', primary: true }, { title: 'Qty', type: 'TEXT_NUMBER' }]);
    const c = (t: string) => s.col[t]!.id;
    const added = await s0.api.post(`/sheets/${s.id}/rows`, [1, 2, 3, 4].map((q) => ({ toBottom: true, cells: [{ columnId: c('Item'), value: `r${q}` }, { columnId: c('Qty'), value: q }] })));
    assert.equal(added.status, 200, added.text);
    const ids = (added.body.result as Array<{ id: number }>).map((r) => r.id);
    assert.equal((await s0.api.get(`/sheets/${s.id}`)).status, 200);
    assert.equal((await s0.api.del(`/sheets/${s.id}/rows?ids=${ids[1]},${ids[3]}`)).status, 200);
    const put = await s0.api.put(`/sheets/${s.id}/rows`, { id: ids[2], cells: [{ columnId: c('Item'), formula: '=SUM(Qty1:Qty2)' }] });
    assert.equal(put.status, 200, put.text);
    const sheet = await s0.api.get(`/sheets/${s.id}`);
    const rows = sheet.body.rows as Array<{ id: number; rowNumber: number; cells: Array<{ columnId: number; value?: unknown }> }>;
    assert.deepEqual(rows.map((r) => r.rowNumber), [1, 2]);
    assert.equal(rows[1]!.cells.find((x) => x.columnId === c('Item'))!.value, 4);
  });
});
