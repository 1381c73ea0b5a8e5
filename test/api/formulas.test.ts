import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { serverForFile } from '../helpers/setup.ts';
import { createdSince, listedIds } from '../helpers/http.ts';
import { assertError, cellOf, makeSheet } from '../helpers/sheets.ts';

const s0 = serverForFile();

const COLUMNS = [
  { title: 'Item', type: 'TEXT_NUMBER', primary: true },
  { title: 'Unit Price', type: 'TEXT_NUMBER' },
  { title: 'Qty', type: 'TEXT_NUMBER' },
  { title: 'Total', type: 'TEXT_NUMBER' },
  { title: 'Due', type: 'DATE' },
];

async function rowsOf(id: number) {
  const res = await s0.api.get(`/sheets/${id}`);
  assert.equal(res.status, 200);
  return res.body.rows as Array<{ id: number; rowNumber: number; cells: Array<{ columnId: number; value?: unknown; formula?: string; displayValue?: string }> }>;
}

describe('formulas through Add and Update Rows', () => {
  test('a formula is computed, returned as `formula`, and recomputed when its inputs change', async () => {
    const s = await makeSheet(s0.api, 'f1', COLUMNS);
    const { Item, Qty, Total } = s.col;
    const price = s.col['Unit Price']!;
    const add = await s0.api.post(`/sheets/${s.id}/rows`, [
      { toBottom: true, cells: [{ columnId: Item!.id, value: 'a' }, { columnId: price.id, value: 2.5 }, { columnId: Qty!.id, value: 4 }, { columnId: Total!.id, formula: '=[Unit Price]@row * Qty@row' }] },
      { toBottom: true, cells: [{ columnId: Item!.id, value: 'b' }, { columnId: price.id, value: 10 }, { columnId: Qty!.id, value: 1 }, { columnId: Total!.id, formula: '=[Unit Price]@row * Qty@row' }] },
    ]);
    assert.equal(add.status, 200, JSON.stringify(add.body));
    assert.equal(cellOf(add.body.result[0], Total!.id).value, 10);
    assert.equal(cellOf(add.body.result[0], Total!.id).formula, '=[Unit Price]@row * [Qty]@row');
    let rows = await rowsOf(s.id);
    assert.equal(cellOf(rows[1]!, Total!.id).value, 10);
    // change an input: only its dependents change
    const upd = await s0.api.put(`/sheets/${s.id}/rows`, { id: rows[0]!.id, cells: [{ columnId: Qty!.id, value: 10 }] });
    assert.equal(upd.status, 200, JSON.stringify(upd.body));
    rows = await rowsOf(s.id);
    assert.equal(cellOf(rows[0]!, Total!.id).value, 25);
    assert.equal(cellOf(rows[1]!, Total!.id).value, 10);
    // a grand total over the column, by row numbers
    const sum = await s0.api.post(`/sheets/${s.id}/rows`, { toBottom: true, cells: [{ columnId: Item!.id, value: 'sum' }, { columnId: Total!.id, formula: '=SUM([Total]1:[Total]2)' }] });
    assert.equal(cellOf(sum.body.result, Total!.id).value, 35);
  });

  test('a formula must start with = (1162); calculation problems are values, not errors', async () => {
    const s = await makeSheet(s0.api, 'f2', COLUMNS);
    assertError(await s0.api.post(`/sheets/${s.id}/rows`, { cells: [{ columnId: s.col.Total!.id, formula: 'SUM(1,2)' }] }), 400, 1162);
    const res = await s0.api.post(`/sheets/${s.id}/rows`, [
      { toBottom: true, cells: [{ columnId: s.col.Item!.id, value: 'x' }, { columnId: s.col.Qty!.id, value: 0 }, { columnId: s.col.Total!.id, formula: '=10 / Qty@row' }] },
      { toBottom: true, cells: [{ columnId: s.col.Item!.id, value: 'y' }, { columnId: s.col.Total!.id, formula: '=SUM(1,' }] },
      { toBottom: true, cells: [{ columnId: s.col.Item!.id, value: 'z' }, { columnId: s.col.Total!.id, formula: '=Total@row + 1' }] },
      { toBottom: true, cells: [{ columnId: s.col.Item!.id, value: 'w' }, { columnId: s.col.Total!.id, formula: '=1 +' }] },
    ]);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const rows = await rowsOf(s.id);
    assert.equal(cellOf(rows[0]!, s.col.Total!.id).value, '#DIVIDE BY ZERO');
    assert.equal(cellOf(rows[1]!, s.col.Total!.id).value, '#IMBALANCED');
    assert.equal(cellOf(rows[2]!, s.col.Total!.id).value, '#CIRCULAR REFERENCE');
    assert.equal(cellOf(rows[3]!, s.col.Total!.id).value, '#UNPARSEABLE');
    assert.equal(cellOf(rows[3]!, s.col.Total!.id).formula, '=1 +');
  });

  test('structure changes keep formulas on the same cells and rewrite their text', async () => {
    const s = await makeSheet(s0.api, 'f3', COLUMNS);
    const { Item, Qty, Total } = s.col;
    const a = (await s0.api.post(`/sheets/${s.id}/rows`, { toBottom: true, cells: [{ columnId: Item!.id, value: 'a' }, { columnId: Qty!.id, value: 3 }] })).body.result.id;
    const b = (await s0.api.post(`/sheets/${s.id}/rows`, { toBottom: true, cells: [{ columnId: Item!.id, value: 'b' }, { columnId: Qty!.id, value: 4 }, { columnId: Total!.id, formula: '=[Qty]1 * 100' }] })).body.result.id;
    let rows = await rowsOf(s.id);
    assert.equal(cellOf(rows[1]!, Total!.id).value, 300);
    // a new row on top: the reference follows row a, now row 2
    assert.equal((await s0.api.post(`/sheets/${s.id}/rows`, { toTop: true, cells: [{ columnId: Item!.id, value: 'top' }, { columnId: Qty!.id, value: 9 }] })).status, 200);
    rows = await rowsOf(s.id);
    const rowB = rows.find((r) => r.id === b)!;
    assert.equal(cellOf(rowB, Total!.id).formula, '=[Qty]2 * 100');
    assert.equal(cellOf(rowB, Total!.id).value, 300);
    // renaming the column renames it in the formula text
    assert.equal((await s0.api.put(`/sheets/${s.id}/columns/${Qty!.id}`, { title: 'Quantity' })).status, 200);
    rows = await rowsOf(s.id);
    assert.equal(cellOf(rows.find((r) => r.id === b)!, Total!.id).formula, '=[Quantity]2 * 100');
    // sorting moves rows: the reference still points at row a
    assert.equal((await s0.api.post(`/sheets/${s.id}/sort`, { sortCriteria: [{ columnId: Item!.id, direction: 'DESCENDING' }] })).status, 200);
    rows = await rowsOf(s.id);
    const rowA = rows.find((r) => r.id === a)!;
    assert.equal(cellOf(rows.find((r) => r.id === b)!, Total!.id).formula, `=[Quantity]${rowA.rowNumber} * 100`);
    assert.equal(cellOf(rows.find((r) => r.id === b)!, Total!.id).value, 300);
    // deleting the referenced row turns the value into #REF
    assert.equal((await s0.api.del(`/sheets/${s.id}/rows?ids=${a}`)).status, 200);
    rows = await rowsOf(s.id);
    const after = cellOf(rows.find((r) => r.id === b)!, Total!.id);
    assert.equal(after.value, '#REF');
    assert.match(String(after.formula), /#REF/);
  });

  test('a column formula applies to every row, including rows added later; its cells refuse values (1302)', async () => {
    const s = await makeSheet(s0.api, 'f4', COLUMNS);
    const { Item, Qty, Total } = s.col;
    await s0.api.post(`/sheets/${s.id}/rows`, [1, 2].map((q) => ({ toBottom: true, cells: [{ columnId: Item!.id, value: `r${q}` }, { columnId: Qty!.id, value: q }] })));
    const set = await s0.api.put(`/sheets/${s.id}/columns/${Total!.id}`, { formula: '=Qty@row * 2' });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.equal(set.body.result.formula, '=[Qty]@row * 2');
    let rows = await rowsOf(s.id);
    assert.deepEqual(rows.map((r) => cellOf(r, Total!.id).value), [2, 4]);
    const added = await s0.api.post(`/sheets/${s.id}/rows`, { toBottom: true, cells: [{ columnId: Item!.id, value: 'r3' }, { columnId: Qty!.id, value: 7 }] });
    assert.equal(cellOf(added.body.result, Total!.id).value, 14);
    assertError(await s0.api.put(`/sheets/${s.id}/rows`, { id: rows[0]!.id, cells: [{ columnId: Total!.id, value: 1 }] }), 400, 1302);
    rows = await rowsOf(s.id);
    assert.deepEqual(rows.map((r) => cellOf(r, Total!.id).value), [2, 4, 14]);
  });

  test('a column formula given to Add Columns or Create Sheet follows renamed columns as one set by Update Column does', async () => {
    const s = await makeSheet(s0.api, 'f4-add', COLUMNS);
    const { Item, Qty } = s.col;
    await s0.api.post(`/sheets/${s.id}/rows`, [1, 2].map((q) => ({ toBottom: true, cells: [{ columnId: Item!.id, value: `r${q}` }, { columnId: Qty!.id, value: q }] })));
    const added = await s0.api.post(`/sheets/${s.id}/columns`, [
      { title: 'Double', type: 'TEXT_NUMBER', index: 5, formula: '=Qty@row * 2' },
      { title: 'Label', type: 'TEXT_NUMBER', index: 5, formula: '=Item@row + "/" + [Unit Price]@row' },
    ]);
    assert.equal(added.status, 200, JSON.stringify(added.body));
    // the same text Update Column answers for the same formula
    assert.deepEqual(added.body.result.map((c: { formula?: string }) => c.formula), ['=[Qty]@row * 2', '=[Item]@row + "/" + [Unit Price]@row']);
    const [double, label] = added.body.result as Array<{ id: number }>;
    const renamed = await s0.api.put(`/sheets/${s.id}/columns/${Qty!.id}`, { title: 'Quantity' });
    assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
    assert.equal((await s0.api.put(`/sheets/${s.id}/columns/${Item!.id}`, { title: 'Name' })).status, 200);
    const cols = (await s0.api.get(`/sheets/${s.id}/columns`)).body.data as Array<{ id: number; formula?: string }>;
    assert.equal(cols.find((c) => c.id === double!.id)!.formula, '=[Quantity]@row * 2');
    assert.equal(cols.find((c) => c.id === label!.id)!.formula, '=[Name]@row + "/" + [Unit Price]@row');
    // the values are still computed, for the rows there and rows added after the renames
    const more = await s0.api.post(`/sheets/${s.id}/rows`, { toBottom: true, cells: [{ columnId: Item!.id, value: 'r3' }, { columnId: Qty!.id, value: 7 }] });
    assert.equal(more.status, 200, JSON.stringify(more.body));
    const rows = await rowsOf(s.id);
    assert.deepEqual(rows.map((r) => cellOf(r, double!.id).value), [2, 4, 14]);
    assert.deepEqual(rows.map((r) => cellOf(r, label!.id).value), ['r1/', 'r2/', 'r3/']);
    // a copy's column formulas read the copy's columns (with and without its rows)
    for (const include of ['data', '']) {
      const copy = await s0.api.post(`/sheets/${s.id}/copy${include ? `?include=${include}` : ''}`, { destinationType: 'home', newName: `f4-add copy ${include}` });
      assert.equal(copy.status, 200, JSON.stringify(copy.body));
      const copied = (await s0.api.get(`/sheets/${copy.body.result.id}`)).body;
      const byTitle = Object.fromEntries((copied.columns as Array<{ id: number; title: string; formula?: string }>).map((c) => [c.title, c]));
      assert.equal(byTitle.Double!.formula, '=[Quantity]@row * 2');
      assert.equal(byTitle.Label!.formula, '=[Name]@row + "/" + [Unit Price]@row');
      if (include) assert.deepEqual(copied.rows.map((r: Parameters<typeof cellOf>[0]) => cellOf(r, byTitle.Double!.id).value), [2, 4, 14]);
      const row = await s0.api.post(`/sheets/${copied.id}/rows`, { toBottom: true, cells: [{ columnId: byTitle.Name!.id, value: 'n' }, { columnId: byTitle.Quantity!.id, value: 5 }] });
      assert.equal(row.status, 200, JSON.stringify(row.body));
      assert.equal(cellOf(row.body.result, byTitle.Double!.id).value, 10);
      assert.equal(cellOf(row.body.result, byTitle.Label!.id).value, 'n/');
    }

    // Create Sheet: the same for a formula among the new sheet's columns
    const created = await s0.api.post('/sheets', { name: 'f4-create', columns: [{ title: 'A', type: 'TEXT_NUMBER', primary: true }, { title: 'B', type: 'TEXT_NUMBER', formula: '=A@row + 1' }] });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const [a, b] = created.body.result.columns as Array<{ id: number; formula?: string }>;
    assert.equal(b!.formula, '=[A]@row + 1');
    assert.equal((await s0.api.put(`/sheets/${created.body.result.id}/columns/${a!.id}`, { title: 'Start' })).status, 200);
    const row = await s0.api.post(`/sheets/${created.body.result.id}/rows`, { toBottom: true, cells: [{ columnId: a!.id, value: 41 }] });
    assert.equal(cellOf(row.body.result, b!.id).value, 42);
    const col = await s0.api.get(`/sheets/${created.body.result.id}/columns/${b!.id}`);
    assert.equal(col.body.formula, '=[Start]@row + 1');
    // and refused as Add Columns refuses it: a row named by its number (1310), a system column (1303)
    const before = await listedIds(s0.api, '/sheets');
    assertError(await s0.api.post('/sheets', { name: 'f4-bad', columns: [{ title: 'A', type: 'TEXT_NUMBER', primary: true }, { title: 'B', type: 'TEXT_NUMBER', formula: '=A1 + 1' }] }), 400, 1310);
    assertError(await s0.api.post('/sheets', { name: 'f4-bad', columns: [{ title: 'A', type: 'TEXT_NUMBER', primary: true }, { title: 'B', type: 'TEXT_NUMBER', systemColumnType: 'AUTO_NUMBER', formula: '=1' }] }), 400, 1303);
    assertError(await s0.api.post(`/sheets/${s.id}/columns`, { title: 'Bad', type: 'TEXT_NUMBER', index: 1, formula: '=[Quantity]1 * 2' }), 400, 1310);
    assert.deepEqual(await createdSince(s0.api, '/sheets', before, ['f4-bad']), []);
  });

  test('date results follow the column type; functions over text and dates', async () => {
    const s = await makeSheet(s0.api, 'f5', COLUMNS);
    const res = await s0.api.post(`/sheets/${s.id}/rows`, [
      { toBottom: true, cells: [{ columnId: s.col.Item!.id, value: 'hello' }, { columnId: s.col.Due!.id, formula: '=DATE(2024, 2, 28) + 2' }, { columnId: s.col.Total!.id, formula: '=UPPER(Item@row) + "!"' }] },
    ]);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const rows = await rowsOf(s.id);
    assert.equal(cellOf(rows[0]!, s.col.Due!.id).value, '2024-03-01');
    assert.equal(cellOf(rows[0]!, s.col.Total!.id).value, 'HELLO!');
  });
});

describe('formulas over server-filled cells', () => {
  test('a formula in an added row reads that row\'s auto-number', async () => {
    const s = await makeSheet(s0.api, 'f-auto', [
      { title: 'Item', type: 'TEXT_NUMBER', primary: true },
      { title: 'No', type: 'TEXT_NUMBER', systemColumnType: 'AUTO_NUMBER', autoNumberFormat: { prefix: 'T-', fill: '000', startingNumber: 7 } },
      { title: 'Label', type: 'TEXT_NUMBER' },
    ]);
    const add = await s0.api.post(`/sheets/${s.id}/rows`, [
      { toBottom: true, cells: [{ columnId: s.col.Item!.id, value: 'a' }, { columnId: s.col.Label!.id, formula: '=No@row + "!"' }] },
      { toBottom: true, cells: [{ columnId: s.col.Item!.id, value: 'b' }, { columnId: s.col.Label!.id, formula: '=No@row + "!"' }] },
    ]);
    assert.equal(add.status, 200, JSON.stringify(add.body));
    // a later add, when the sheet's formulas are already loaded
    const more = await s0.api.post(`/sheets/${s.id}/rows`, { toBottom: true, cells: [{ columnId: s.col.Item!.id, value: 'c' }, { columnId: s.col.Label!.id, formula: '=No@row + "?"' }] });
    assert.equal(more.status, 200, JSON.stringify(more.body));
    const rows = await rowsOf(s.id);
    assert.equal(cellOf(rows[0]!, s.col.Label!.id).value, 'T-007!');
    assert.equal(cellOf(rows[1]!, s.col.Label!.id).value, 'T-008!');
    assert.equal(cellOf(rows[2]!, s.col.Label!.id).value, 'T-009?');
  });
});

describe('values beside formulas', () => {
  // a sheet's formulas must not change how the other cells of a write are kept: the formula
  // engine reads a contact as its address, a multi-picklist as its text, and so on, and those
  // readings were once written back over the values (what the Python SDK then read as strings)
  const objectOf = (row: unknown, columnId: number) => cellOf(row as { cells: Array<{ columnId: number }> }, columnId) as { value?: unknown; displayValue?: string; objectValue?: unknown };

  test('contacts, multi-contacts, multi-picklists, checkboxes and dates keep their kind on a sheet with formulas, added and updated', async () => {
    const s = await makeSheet(s0.api, 'kinds beside formulas', [
      { title: 'Name', type: 'TEXT_NUMBER', primary: true },
      { title: 'Owner', type: 'CONTACT_LIST' },
      { title: 'Team', type: 'MULTI_CONTACT_LIST' },
      { title: 'Tags', type: 'MULTI_PICKLIST', options: ['a', 'b', 'c'] },
      { title: 'Done', type: 'CHECKBOX' },
      { title: 'Due', type: 'DATE' },
      { title: 'Calc', type: 'TEXT_NUMBER' },
    ]);
    const c = (t: string) => s.col[t]!.id;
    const first = await s0.api.post(`/sheets/${s.id}/rows`, { toBottom: true, cells: [{ columnId: c('Name'), value: 'first' }, { columnId: c('Calc'), formula: '=1+1' }] });
    assert.equal(first.status, 200, first.text);
    const cells = (n: string, who: string) => [
      { columnId: c('Name'), value: n },
      { columnId: c('Owner'), objectValue: { objectType: 'CONTACT', email: `${who}@example.com`, name: who.toUpperCase() } },
      { columnId: c('Team'), objectValue: { objectType: 'MULTI_CONTACT', values: [{ objectType: 'CONTACT', email: `${who}@example.com`, name: who.toUpperCase() }, { objectType: 'CONTACT', email: 'yo@example.com' }] } },
      { columnId: c('Tags'), objectValue: { objectType: 'MULTI_PICKLIST', values: ['a', 'c'] } },
      { columnId: c('Done'), value: true },
      { columnId: c('Due'), value: '2030-05-06' },
    ];
    const check = async (rowId: number, who: string) => {
      const res = await s0.api.get(`/sheets/${s.id}/rows/${rowId}?include=objectValue&level=2`);
      assert.equal(res.status, 200, res.text);
      const owner = objectOf(res.body, c('Owner'));
      assert.equal(owner.displayValue, who.toUpperCase());
      assert.deepEqual(owner.objectValue, { objectType: 'CONTACT', email: `${who}@example.com`, name: who.toUpperCase() });
      assert.deepEqual(objectOf(res.body, c('Team')).objectValue, { objectType: 'MULTI_CONTACT', values: [{ objectType: 'CONTACT', email: `${who}@example.com`, name: who.toUpperCase() }, { objectType: 'CONTACT', email: 'yo@example.com' }] });
      assert.deepEqual(objectOf(res.body, c('Tags')).objectValue, { objectType: 'MULTI_PICKLIST', values: ['a', 'c'] });
      assert.equal(objectOf(res.body, c('Done')).value, true);
      assert.equal(objectOf(res.body, c('Due')).value, '2030-05-06');
    };
    const added = await s0.api.post(`/sheets/${s.id}/rows?level=2`, { toBottom: true, cells: cells('second', 'zed') });
    assert.equal(added.status, 200, added.text);
    // the answer of the add shows the contact's name, as on a sheet without formulas
    assert.equal(objectOf(added.body.result, c('Owner')).displayValue, 'ZED');
    await check(added.body.result.id, 'zed');
    // an update of the row, and of the row holding the formula
    for (const [rowId, who] of [[added.body.result.id, 'amy'], [first.body.result.id, 'bob']] as const) {
      const upd = await s0.api.put(`/sheets/${s.id}/rows?level=2`, { id: rowId, cells: cells('again', who).slice(1) });
      assert.equal(upd.status, 200, upd.text);
      await check(rowId, who);
    }
    // a formula reading them still computes from them
    const reads = await s0.api.post(`/sheets/${s.id}/rows`, { toBottom: true, cells: [{ columnId: c('Calc'), formula: '=COUNTIF(Done:Done, true)' }] });
    assert.equal(reads.status, 200, reads.text);
    assert.equal(objectOf(reads.body.result, c('Calc')).value, 2);
  });

  test('a project sheet with a formula keeps written durations and predecessors', async () => {
    const list = (await s0.api.get('/templates/public')).body.data as Array<{ id: number; globalTemplate?: string }>;
    const project = list.find((t) => t.globalTemplate === 'PROJECT_SHEET')!;
    const made = await s0.api.post('/sheets?include=data', { name: 'project beside formulas', fromId: project.id });
    assert.equal(made.status, 200, made.text);
    const sheet = (await s0.api.get(`/sheets/${made.body.result.id}?level=2`)).body as { columns: Array<{ id: number; title: string; type: string }>; rows: Array<{ id: number }> };
    const col = Object.fromEntries(sheet.columns.map((c) => [c.title, c.id])) as Record<string, number>;
    const textColumn = sheet.columns.find((c) => c.type === 'TEXT_NUMBER' && c.title !== 'Duration')!;
    const rows = sheet.rows.map((r) => r.id);
    assert.ok(rows.length >= 4);
    const fx = await s0.api.put(`/sheets/${made.body.result.id}/rows`, { id: rows[0], cells: [{ columnId: textColumn.id, formula: '=1+1' }] });
    assert.equal(fx.status, 200, fx.text);
    const upd = await s0.api.put(`/sheets/${made.body.result.id}/rows?level=2`, { id: rows[3], cells: [
      { columnId: col.Duration, objectValue: { objectType: 'DURATION', days: 2 } },
      { columnId: col.Predecessors, objectValue: { objectType: 'PREDECESSOR_LIST', predecessors: [{ rowId: rows[2], type: 'SS' }] } },
    ] });
    assert.equal(upd.status, 200, upd.text);
    const row = (await s0.api.get(`/sheets/${made.body.result.id}/rows/${rows[3]}?include=objectValue&level=2`)).body;
    const duration = objectOf(row, col.Duration!).objectValue as { objectType: string; days?: number };
    assert.equal(duration.objectType, 'DURATION');
    assert.equal(duration.days, 2);
    const preds = objectOf(row, col.Predecessors!);
    assert.equal(preds.value, '3SS');
    assert.equal((preds.objectValue as { objectType: string }).objectType, 'PREDECESSOR_LIST');
  });
});
