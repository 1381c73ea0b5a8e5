import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import smartsheet from 'smartsheet';
import { serverForFile } from '../helpers/setup.ts';
import { client, type Client, recorded } from '../helpers/http.ts';
import { assertError, cellOf, makeSheet, makeUser } from '../helpers/sheets.ts';

const s0 = serverForFile();

interface ApiRow {
  id: number;
  rowNumber: number;
  parentId?: number;
  expanded?: boolean;
  format?: string;
  createdBy?: { email: string };
  modifiedBy?: { email: string };
  cells: Array<{ columnId: number; value?: unknown; displayValue?: string; formula?: string; format?: string; hyperlink?: { url?: string } }>;
}

async function stateOf(id: number, query = '') {
  const res = await s0.api.get(`/sheets/${id}${query}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body as { version: number; totalRowCount: number; rows: ApiRow[] };
}

async function addRows(id: number, rows: Array<Record<string, unknown>>): Promise<number[]> {
  const res = await s0.api.post(`/sheets/${id}/rows`, rows);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return (res.body.result as ApiRow[]).map((r) => r.id);
}

/** A sheet with one text column and rows named as given (a name "A.1" goes under "A", and so on). */
async function tree(name: string, names: string[], api: Client = s0.api) {
  const s = await makeSheet(api, name, [{ title: 'Task', type: 'TEXT_NUMBER', primary: true }]);
  const ids: Record<string, number> = {};
  for (const n of names) {
    const parent = n.includes('.') ? ids[n.slice(0, n.lastIndexOf('.'))] : undefined;
    const res = await api.post(`/sheets/${s.id}/rows`, { ...(parent ? { parentId: parent, toBottom: true } : { toBottom: true }), cells: [{ columnId: s.col.Task!.id, value: n }] });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    ids[n] = res.body.result.id;
  }
  return { ...s, ids };
}

/** Each row as "name" or "name<parent name" for a compact picture of the hierarchy. */
function outline(state: { rows: ApiRow[] }, taskCol: number): string[] {
  const byId = new Map(state.rows.map((r) => [r.id, String(cellOf(r, taskCol).value)]));
  return state.rows.map((r) => byId.get(r.id)! + (r.parentId !== undefined ? `<${byId.get(r.parentId)}` : ''));
}

const SOURCE_COLUMNS = [
  { title: 'Task', type: 'TEXT_NUMBER', primary: true },
  { title: 'Qty', type: 'TEXT_NUMBER' },
  { title: 'Due', type: 'DATE' },
  { title: 'Done', type: 'CHECKBOX' },
  { title: 'When', type: 'TEXT_NUMBER' },
  { title: 'Notes', type: 'TEXT_NUMBER' },
];

const DEST_COLUMNS = [
  { title: 'Task', type: 'TEXT_NUMBER', primary: true },
  { title: 'No', type: 'TEXT_NUMBER', systemColumnType: 'AUTO_NUMBER', autoNumberFormat: { prefix: 'T-', fill: '000' } },
  { title: 'Created', type: 'DATETIME', systemColumnType: 'CREATED_DATE' },
  { title: 'QTY', type: 'TEXT_NUMBER' },
  { title: 'Due', type: 'TEXT_NUMBER' },
  { title: 'Done', type: 'TEXT_NUMBER' },
  { title: 'When', type: 'DATE' },
];

describe('copy rows to another sheet', () => {
  test('rows go to the bottom of the destination in source order with new ids; cells follow the column titles and types; the source is unchanged', async () => {
    const src = await makeSheet(s0.api, 'copy-src', SOURCE_COLUMNS);
    const dest = await makeSheet(s0.api, 'copy-dest', DEST_COLUMNS);
    const c = src.col;
    const [r1, r2, r3] = await addRows(src.id, [
      { toBottom: true, format: ',,1,,,,,,,,,,,,,,', cells: [{ columnId: c.Task!.id, value: 'alpha', hyperlink: { url: 'https://example.org/a' } }, { columnId: c.Qty!.id, value: 3, format: ',,1,,,,,,,,,,,,,,' }, { columnId: c.Due!.id, value: '2025-02-03' }, { columnId: c.Done!.id, value: true }, { columnId: c.When!.id, value: 'March 4, 2025' }, { columnId: c.Notes!.id, value: 'dropped' }] },
      { toBottom: true, cells: [{ columnId: c.Task!.id, value: 'beta' }, { columnId: c.Qty!.id, value: 'five' }] },
      { toBottom: true, cells: [{ columnId: c.Task!.id, value: 'gamma' }] },
    ]);
    const [existing] = await addRows(dest.id, [{ cells: [{ columnId: dest.col.Task!.id, value: 'already here' }] }]);
    const srcBefore = await stateOf(src.id);
    const destBefore = await stateOf(dest.id);

    // named out of order: they still arrive in source display order
    const res = await s0.api.post(`/sheets/${src.id}/rows/copy`, { rowIds: [r3, r1], to: { sheetId: dest.id } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    // the CopyOrMoveRowResult itself, not wrapped in a Result
    assert.deepEqual(Object.keys(res.body).sort(), ['destinationSheetId', 'rowMappings']);
    assert.equal(res.body.destinationSheetId, dest.id);
    const mappings = res.body.rowMappings as Array<{ from: number; to: number }>;
    assert.deepEqual(mappings.map((m) => m.from), [r1, r3]);
    for (const m of mappings) assert.ok(![r1, r2, r3, existing].includes(m.to));

    const after = await stateOf(dest.id, '?include=format');
    assert.equal(after.version, destBefore.version + 1);
    assert.deepEqual(after.rows.map((r) => r.id), [existing, mappings[0]!.to, mappings[1]!.to]);
    const copied = after.rows[1]!;
    const d = dest.col;
    assert.equal(cellOf(copied, d.Task!.id).value, 'alpha');
    assert.deepEqual(cellOf(copied, d.Task!.id).hyperlink, { url: 'https://example.org/a' });
    assert.equal(copied.format, ',,1,,,,,,,,,,,,,,');
    assert.equal(cellOf(copied, d.QTY!.id).value, 3); // matched case-insensitively
    assert.equal(cellOf(copied, d.QTY!.id).format, ',,1,,,,,,,,,,,,,,');
    // DATE -> TEXT_NUMBER becomes the date's text; CHECKBOX -> TEXT_NUMBER its text; text -> DATE a date
    assert.equal(cellOf(copied, d.Due!.id).value, '2025-02-03');
    assert.equal(cellOf(copied, d.Done!.id).value, 'true');
    assert.equal(cellOf(copied, d.When!.id).value, '2025-03-04');
    assert.equal(cellOf(after.rows[2]!, d.Task!.id).value, 'gamma');
    // system columns are filled by the destination
    assert.deepEqual([cellOf(after.rows[0]!, d.No!.id).value, cellOf(copied, d.No!.id).value, cellOf(after.rows[2]!, d.No!.id).value], ['T-001', 'T-002', 'T-003']);
    assert.ok(cellOf(copied, d.Created!.id).value);
    // the "Notes" cell had no destination column
    for (const r of after.rows) for (const cell of r.cells) assert.notEqual(cell.value, 'dropped');

    const srcAfter = await stateOf(src.id);
    assert.deepEqual(srcAfter, srcBefore);
  });

  test('values of source system columns go into ordinary destination columns of the same title', async () => {
    const src = await makeSheet(s0.api, 'sys-src', [
      { title: 'Task', type: 'TEXT_NUMBER', primary: true },
      { title: 'By', type: 'CONTACT_LIST', systemColumnType: 'CREATED_BY' },
      { title: 'Created', type: 'DATETIME', systemColumnType: 'CREATED_DATE' },
    ]);
    const dest = await makeSheet(s0.api, 'sys-dest', [
      { title: 'Task', type: 'TEXT_NUMBER', primary: true },
      { title: 'By', type: 'CONTACT_LIST' },
      { title: 'Created', type: 'DATE' },
    ]);
    const [r] = await addRows(src.id, [{ cells: [{ columnId: src.col.Task!.id, value: 'x' }] }]);
    const res = await s0.api.post(`/sheets/${src.id}/rows/copy`, { rowIds: [r], to: { sheetId: dest.id } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const row = (await stateOf(dest.id)).rows[0]!;
    assert.equal(cellOf(row, dest.col.By!.id).value, s0.t.config.adminEmail);
    assert.match(String(cellOf(row, dest.col.Created!.id).value), /^\d{4}-\d{2}-\d{2}$/);
  });

  test('cell history stays in the source: copied cells start a new history', async () => {
    const src = await makeSheet(s0.api, 'hist-src', [{ title: 'Task', type: 'TEXT_NUMBER', primary: true }]);
    const dest = await makeSheet(s0.api, 'hist-dest', [{ title: 'Task', type: 'TEXT_NUMBER', primary: true }]);
    const [r] = await addRows(src.id, [{ cells: [{ columnId: src.col.Task!.id, value: 'v1' }] }]);
    assert.equal((await s0.api.put(`/sheets/${src.id}/rows`, { id: r, cells: [{ columnId: src.col.Task!.id, value: 'v2' }] })).status, 200);
    const res = await s0.api.post(`/sheets/${src.id}/rows/copy`, { rowIds: [r], to: { sheetId: dest.id } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const to = res.body.rowMappings[0].to;
    const h = await s0.api.get(`/sheets/${dest.id}/rows/${to}/columns/${dest.col.Task!.id}/history`);
    assert.equal(h.status, 200, JSON.stringify(h.body));
    assert.deepEqual(h.body.data.map((x: { value: unknown }) => x.value), ['v2']);
  });

  test('bad requests: same sheet 1136, rowIds or to missing 1012, unknown destination or row 1006; nothing changes', async () => {
    const src = await tree('err-src', ['A', 'B']);
    const dest = await tree('err-dest', ['X']);
    const before = [await stateOf(src.id), await stateOf(dest.id)];
    for (const op of ['copy', 'move']) {
      const url = `/sheets/${src.id}/rows/${op}`;
      assertError(await s0.api.post(url, { rowIds: [src.ids.A], to: { sheetId: src.id } }), 400, 1136);
      assertError(await s0.api.post(url, { to: { sheetId: dest.id } }), 400, 1012);
      assertError(await s0.api.post(url, { rowIds: [], to: { sheetId: dest.id } }), 400, 1012);
      assertError(await s0.api.post(url, { rowIds: [src.ids.A] }), 400, 1012);
      assertError(await s0.api.post(url, { rowIds: [src.ids.A], to: {} }), 400, 1012);
      assertError(await s0.api.post(url, { rowIds: ['x'], to: { sheetId: dest.id } }), 400, 1031);
      assertError(await s0.api.post(url), 400, 1024);
      assertError(await s0.api.post(url, { rowIds: [src.ids.A], to: { sheetId: 123456789 } }), 404, 1006);
      // an unknown row among known ones: nothing is copied or moved
      assertError(await s0.api.post(url, { rowIds: [src.ids.A, 987654321], to: { sheetId: dest.id } }), 404, 1006);
      assertError(await s0.api.post(`${url}?ignoreRowsNotFound=false`, { rowIds: [dest.ids.X], to: { sheetId: dest.id } }), 404, 1006);
      assertError(await s0.api.post(`/sheets/123456789/rows/${op}`, { rowIds: [src.ids.A], to: { sheetId: dest.id } }), 404, 1006);
      assertError(await s0.api.post(url, { rowIds: Array.from({ length: 501 }, (_, i) => i + 1), to: { sheetId: dest.id } }), 400, 1061);
      assertError(await s0.api.post(`${url}?ignoreRowsNotFound=maybe`, { rowIds: [src.ids.A], to: { sheetId: dest.id } }), 400, 1018);
    }
    assert.deepEqual([await stateOf(src.id), await stateOf(dest.id)], before);
  });

  test('ignoreRowsNotFound=true skips unknown row ids', async () => {
    const src = await tree('ign-src', ['A', 'B']);
    const dest = await tree('ign-dest', []);
    const res = await s0.api.post(`/sheets/${src.id}/rows/copy?ignoreRowsNotFound=true`, { rowIds: [987654321, src.ids.B], to: { sheetId: dest.id } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body.rowMappings.map((m: { from: number }) => m.from), [src.ids.B]);
    assert.deepEqual(outline(await stateOf(dest.id), dest.col.Task!.id), ['B']);
    // only unknown ids: an empty mapping and no change
    const v = (await stateOf(dest.id)).version;
    const none = await s0.api.post(`/sheets/${src.id}/rows/copy?ignoreRowsNotFound=true`, { rowIds: [987654321], to: { sheetId: dest.id } });
    assert.equal(none.status, 200, JSON.stringify(none.body));
    assert.deepEqual(none.body, { destinationSheetId: dest.id, rowMappings: [] });
    assert.equal((await stateOf(dest.id)).version, v);
  });

  test('hierarchy: only the named rows without include=children; with it, descendants come along keeping parent and child', async () => {
    const src = await tree('h-src', ['A', 'A.1', 'A.1.a', 'A.2', 'B']);
    const before = await stateOf(src.id);
    const plain = await tree('h-plain', []);
    let res = await s0.api.post(`/sheets/${src.id}/rows/copy`, { rowIds: [src.ids.A], to: { sheetId: plain.id } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.rowMappings.length, 1);
    assert.deepEqual(outline(await stateOf(plain.id), plain.col.Task!.id), ['A']);

    const kids = await tree('h-kids', ['Z']);
    res = await s0.api.post(`/sheets/${src.id}/rows/copy?include=children`, { rowIds: [src.ids.A], to: { sheetId: kids.id } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body.rowMappings.map((m: { from: number }) => m.from), [src.ids.A, src.ids['A.1'], src.ids['A.1.a'], src.ids['A.2']]);
    const k = await stateOf(kids.id);
    assert.deepEqual(outline(k, kids.col.Task!.id), ['Z', 'A', 'A.1<A', 'A.1.a<A.1', 'A.2<A']);
    const newA = res.body.rowMappings[0].to;
    assert.equal(k.rows[2]!.parentId, newA);

    // include=all includes children too
    const all = await tree('h-all', []);
    res = await s0.api.post(`/sheets/${src.id}/rows/copy?include=all`, { rowIds: [src.ids['A.1']], to: { sheetId: all.id } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(outline(await stateOf(all.id), all.col.Task!.id), ['A.1', 'A.1.a<A.1']);

    // named rows keep their relation to the nearest named ancestor
    const named = await tree('h-named', []);
    res = await s0.api.post(`/sheets/${src.id}/rows/copy`, { rowIds: [src.ids['A.1.a'], src.ids.A, src.ids.B], to: { sheetId: named.id } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(outline(await stateOf(named.id), named.col.Task!.id), ['A', 'A.1.a<A', 'B']);

    // attachments and discussions are accepted (nothing to carry yet)
    const att = await tree('h-att', []);
    res = await s0.api.post(`/sheets/${src.id}/rows/copy?include=attachments,discussions`, { rowIds: [src.ids.B], to: { sheetId: att.id } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(outline(await stateOf(att.id), att.col.Task!.id), ['B']);

    assert.deepEqual(await stateOf(src.id), before);
  });

  test('the destination limit of 500,000 cells applies (1061) and nothing changes', async () => {
    const cols = Array.from({ length: 400 }, (_, i) => ({ title: i === 0 ? 'Task' : `C${i}`, type: 'TEXT_NUMBER', ...(i === 0 ? { primary: true } : {}) }));
    const dest = await makeSheet(s0.api, 'full', cols);
    for (let i = 0; i < 3; i++) await addRows(dest.id, Array.from({ length: i < 2 ? 500 : 250 }, () => ({ cells: [] })));
    const src = await tree('to-full', ['A']);
    const before = [await stateOf(src.id), (await stateOf(dest.id)).version];
    assertError(await s0.api.post(`/sheets/${src.id}/rows/copy`, { rowIds: [src.ids.A], to: { sheetId: dest.id } }), 400, 1061);
    assertError(await s0.api.post(`/sheets/${src.id}/rows/move`, { rowIds: [src.ids.A], to: { sheetId: dest.id } }), 400, 1061);
    const destAfter = await stateOf(dest.id);
    assert.deepEqual([await stateOf(src.id), destAfter.version], before);
    assert.equal(destAfter.totalRowCount, 1250);
  });
});

describe('move rows to another sheet', () => {
  test('rows leave the source with their children and arrive with new ids at the bottom of the destination', async () => {
    // the change log since just before this test (other test files may share the server's log)
    const since = new Date(Date.now() - 2000).toISOString().replace(/\.\d+Z$/, 'Z');
    const src = await tree('mv-src', ['A', 'A.1', 'A.1.a', 'B', 'C']);
    const dest = await tree('mv-dest', ['Z']);
    const vSrc = (await stateOf(src.id)).version;
    const vDest = (await stateOf(dest.id)).version;
    const res = await s0.api.post(`/sheets/${src.id}/rows/move`, { rowIds: [src.ids.C, src.ids.A], to: { sheetId: dest.id } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.destinationSheetId, dest.id);
    const mappings = res.body.rowMappings as Array<{ from: number; to: number }>;
    assert.deepEqual(mappings.map((m) => m.from), [src.ids.A, src.ids['A.1'], src.ids['A.1.a'], src.ids.C]);
    for (const m of mappings) assert.notEqual(m.to, m.from);
    const s = await stateOf(src.id);
    assert.deepEqual(outline(s, src.col.Task!.id), ['B']);
    assert.equal(s.version, vSrc + 1);
    const d = await stateOf(dest.id);
    assert.deepEqual(outline(d, dest.col.Task!.id), ['Z', 'A', 'A.1<A', 'A.1.a<A.1', 'C']);
    assert.deepEqual(d.rows.slice(1).map((r) => r.id), mappings.map((m) => m.to));
    assert.equal(d.version, vDest + 1);
    // the old ids are gone from the source
    assertError(await s0.api.get(`/sheets/${src.id}/rows/${src.ids.A}`), 404, 1006);

    // the change log: ROW CREATE in the destination, ROW DELETE in the source
    const ev = await s0.api.get(`/events?since=${since}&maxCount=10000`);
    assert.equal(ev.status, 200, JSON.stringify(ev.body));
    const events = (ev.body.data as Array<{ objectType: string; action: string; objectId: number }>).map(recorded);
    for (const m of mappings) {
      assert.ok(events.some((e) => e.objectType === 'ROW' && e.action === 'CREATE' && e.objectId === m.to), `CREATE ${m.to}`);
      assert.ok(events.some((e) => e.objectType === 'ROW' && e.action === 'DELETE' && e.objectId === m.from), `DELETE ${m.from}`);
    }
  });

  test('a source formula reading a moved row shows #REF; formulas in moved rows recompute in the destination', async () => {
    const cols = [{ title: 'Task', type: 'TEXT_NUMBER', primary: true }, { title: 'Qty', type: 'TEXT_NUMBER' }, { title: 'Total', type: 'TEXT_NUMBER' }];
    const src = await makeSheet(s0.api, 'ref-src', cols);
    const dest = await makeSheet(s0.api, 'ref-dest', cols);
    const { Task, Qty, Total } = src.col;
    const [a, b] = await addRows(src.id, [
      { toBottom: true, cells: [{ columnId: Task!.id, value: 'a' }, { columnId: Qty!.id, value: 5 }, { columnId: Total!.id, formula: '=Qty@row * 2' }] },
      { toBottom: true, cells: [{ columnId: Task!.id, value: 'b' }, { columnId: Total!.id, formula: '=[Qty]1 + 1' }] },
    ]);
    let s = await stateOf(src.id);
    assert.equal(cellOf(s.rows[1]!, Total!.id).value, 6);
    await addRows(dest.id, [{ cells: [{ columnId: dest.col.Task!.id, value: 'z' }] }]);
    const res = await s0.api.post(`/sheets/${src.id}/rows/move`, { rowIds: [a], to: { sheetId: dest.id } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    s = await stateOf(src.id);
    assert.deepEqual(s.rows.map((r) => r.id), [b]);
    assert.equal(cellOf(s.rows[0]!, Total!.id).value, '#REF');
    assert.match(String(cellOf(s.rows[0]!, Total!.id).formula), /#REF/);
    let d = await stateOf(dest.id);
    const moved = d.rows[1]!;
    assert.equal(cellOf(moved, dest.col.Total!.id).formula, '=[Qty]@row * 2');
    assert.equal(cellOf(moved, dest.col.Total!.id).value, 10);
    // live in the destination: changing its input recomputes it there
    const upd = await s0.api.put(`/sheets/${dest.id}/rows`, { id: moved.id, cells: [{ columnId: dest.col.Qty!.id, value: 7 }] });
    assert.equal(upd.status, 200, JSON.stringify(upd.body));
    d = await stateOf(dest.id);
    assert.equal(cellOf(d.rows[1]!, dest.col.Total!.id).value, 14);
  });

  test('a locked row needs ADMIN on the source to move: 1092 and neither sheet changes (atomic)', async () => {
    const src = await tree('lock-src', ['A', 'B', 'C']);
    const dest = await tree('lock-dest', ['Z']);
    assert.equal((await s0.api.put(`/sheets/${src.id}/rows`, { id: src.ids.B, locked: true })).status, 200);
    const editor = await makeUser(s0.t, s0.api, 'lock.editor@example.org');
    for (const id of [src.id, dest.id]) {
      assert.equal((await s0.api.post(`/sheets/${id}/shares`, { email: 'lock.editor@example.org', accessLevel: 'EDITOR' })).status, 200);
    }
    const as = client(s0.t.base, editor.token);
    const before = [await stateOf(src.id), await stateOf(dest.id)];
    // A is processed (and placed in the destination) before the locked B is met
    assertError(await as.post(`/sheets/${src.id}/rows/move`, { rowIds: [src.ids.A, src.ids.B], to: { sheetId: dest.id } }), 403, 1092);
    assert.deepEqual([await stateOf(src.id), await stateOf(dest.id)], before);
    // copying a locked row is fine, and the owner (ADMIN) may move it
    assert.equal((await as.post(`/sheets/${src.id}/rows/copy`, { rowIds: [src.ids.B], to: { sheetId: dest.id } })).status, 200);
    assert.equal((await s0.api.post(`/sheets/${src.id}/rows/move`, { rowIds: [src.ids.B], to: { sheetId: dest.id } })).status, 200);
    assert.deepEqual(outline(await stateOf(src.id), src.col.Task!.id), ['A', 'C']);
    assert.deepEqual(outline(await stateOf(dest.id), dest.col.Task!.id), ['Z', 'B', 'B']);
  });
});

describe('access', () => {
  test('copy needs VIEWER on the source, move EDITOR; the destination needs EDITOR (1004, or 1006 when it is not shared at all)', async () => {
    const user = await makeUser(s0.t, s0.api, 'copier@example.org');
    const as = client(s0.t.base, user.token);
    const src = await tree('acc-src', ['A', 'B']);
    const destEditor = await tree('acc-dest-editor', []);
    const destViewer = await tree('acc-dest-viewer', []);
    const hidden = await tree('acc-hidden', []);
    const share = async (id: number, accessLevel: string) => {
      const r = await s0.api.post(`/sheets/${id}/shares`, { email: 'copier@example.org', accessLevel });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body.result.id as string;
    };
    const srcShare = await share(src.id, 'VIEWER');
    await share(destEditor.id, 'EDITOR');
    await share(destViewer.id, 'VIEWER');
    const before = await stateOf(src.id);

    assertError(await as.post(`/sheets/${src.id}/rows/copy`, { rowIds: [src.ids.A], to: { sheetId: destViewer.id } }), 403, 1004);
    assertError(await as.post(`/sheets/${src.id}/rows/copy`, { rowIds: [src.ids.A], to: { sheetId: hidden.id } }), 404, 1006);
    assertError(await as.post(`/sheets/${src.id}/rows/move`, { rowIds: [src.ids.A], to: { sheetId: destEditor.id } }), 403, 1004);
    assert.equal((await stateOf(destViewer.id)).totalRowCount, 0);
    assert.equal((await stateOf(destEditor.id)).totalRowCount, 0);
    assert.deepEqual(await stateOf(src.id), before);

    // a viewer of the source may copy; the copies are the caller's
    const copy = await as.post(`/sheets/${src.id}/rows/copy`, { rowIds: [src.ids.A], to: { sheetId: destEditor.id } });
    assert.equal(copy.status, 200, JSON.stringify(copy.body));
    const d = await stateOf(destEditor.id, '?include=writerInfo');
    assert.deepEqual(outline(d, destEditor.col.Task!.id), ['A']);
    assert.equal(d.rows[0]!.createdBy?.email, 'copier@example.org');
    assert.equal(d.rows[0]!.modifiedBy?.email, 'copier@example.org');
    assert.deepEqual(await stateOf(src.id), before);

    // as EDITOR of the source the move goes through
    assert.equal((await s0.api.put(`/sheets/${src.id}/shares/${srcShare}`, { accessLevel: 'EDITOR' })).status, 200);
    const move = await as.post(`/sheets/${src.id}/rows/move`, { rowIds: [src.ids.B], to: { sheetId: destEditor.id } });
    assert.equal(move.status, 200, JSON.stringify(move.body));
    assert.deepEqual(outline(await stateOf(src.id), src.col.Task!.id), ['A']);
    assert.deepEqual(outline(await stateOf(destEditor.id), destEditor.col.Task!.id), ['A', 'B']);
  });

  test('a token without WRITE_SHEETS is refused (1004)', async () => {
    const user = await makeUser(s0.t, s0.api, 'readonly.copier@example.org', ['READ_SHEETS']);
    const src = await tree('scope-src', ['A']);
    const dest = await tree('scope-dest', []);
    for (const id of [src.id, dest.id]) {
      assert.equal((await s0.api.post(`/sheets/${id}/shares`, { email: 'readonly.copier@example.org', accessLevel: 'EDITOR' })).status, 200);
    }
    const as = client(s0.t.base, user.token);
    assertError(await as.post(`/sheets/${src.id}/rows/copy`, { rowIds: [src.ids.A], to: { sheetId: dest.id } }), 403, 1004);
    assertError(await as.post(`/sheets/${src.id}/rows/move`, { rowIds: [src.ids.A], to: { sheetId: dest.id } }), 403, 1004);
    assert.equal((await stateOf(dest.id)).totalRowCount, 0);
    assert.equal((await stateOf(src.id)).totalRowCount, 1);
  });
});

describe('formulas and columns in the destination', () => {
  test('formulas are re-read with destination titles and rows; references to rows left behind are #REF, to missing columns #UNPARSEABLE; column formula cells are filled by the destination', async () => {
    const src = await makeSheet(s0.api, 'fx-src', [
      { title: 'Task', type: 'TEXT_NUMBER', primary: true },
      { title: 'Qty', type: 'TEXT_NUMBER' },
      { title: 'Price', type: 'TEXT_NUMBER' },
      { title: 'Total', type: 'TEXT_NUMBER' },
      { title: 'Double', type: 'TEXT_NUMBER' },
    ]);
    const dest = await makeSheet(s0.api, 'fx-dest', [
      { title: 'Task', type: 'TEXT_NUMBER', primary: true },
      { title: 'qty', type: 'TEXT_NUMBER' },
      { title: 'Total', type: 'TEXT_NUMBER' },
      { title: 'Double', type: 'TEXT_NUMBER' },
    ]);
    const { Task, Qty, Total, Double } = src.col;
    const [base, r1, r2, r3] = await addRows(src.id, [
      { toBottom: true, cells: [{ columnId: Task!.id, value: 'base' }, { columnId: Qty!.id, value: 100 }] },
      { toBottom: true, cells: [{ columnId: Task!.id, value: 'r1' }, { columnId: Qty!.id, value: 2 }, { columnId: Total!.id, formula: '=Qty@row * 3' }, { columnId: Double!.id, value: 99 }] },
      { toBottom: true, cells: [{ columnId: Task!.id, value: 'r2' }, { columnId: Total!.id, formula: '=[Total]2 * 10 + [Qty]1' }] },
      { toBottom: true, cells: [{ columnId: Task!.id, value: 'r3' }, { columnId: Qty!.id, value: 1 }, { columnId: Total!.id, formula: '=Price@row + 1' }] },
    ]);
    assert.ok(base);
    const setCol = await s0.api.put(`/sheets/${dest.id}/columns/${dest.col.Double!.id}`, { formula: '=qty@row * 2' });
    assert.equal(setCol.status, 200, JSON.stringify(setCol.body));
    await addRows(dest.id, [{ cells: [{ columnId: dest.col.Task!.id, value: 'd0' }] }, { cells: [{ columnId: dest.col.Task!.id, value: 'd1' }, { columnId: dest.col.qty!.id, value: 50 }] }]);
    const srcBefore = await stateOf(src.id);

    const res = await s0.api.post(`/sheets/${src.id}/rows/copy`, { rowIds: [r1, r2, r3], to: { sheetId: dest.id } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    let d = await stateOf(dest.id);
    const T = dest.col.Total!.id;
    assert.deepEqual(d.rows.map((r) => cellOf(r, dest.col.Task!.id).value), ['d0', 'd1', 'r1', 'r2', 'r3']);
    // same-row formula, re-read against the destination's "qty"
    assert.equal(cellOf(d.rows[2]!, T).formula, '=[qty]@row * 3');
    assert.equal(cellOf(d.rows[2]!, T).value, 6);
    // [Total]2 was copied along (row 3 of the destination now); [Qty]1 was not: #REF
    assert.equal(cellOf(d.rows[3]!, T).formula, '=[Total]3 * 10 + #REF');
    assert.equal(cellOf(d.rows[3]!, T).value, '#REF');
    // no Price column in the destination: the text stays, the value is the error
    assert.equal(cellOf(d.rows[4]!, T).formula, '=[Price]@row + 1');
    assert.equal(cellOf(d.rows[4]!, T).value, '#UNPARSEABLE');
    // the destination's column formula fills its cells (blank qty counts as 0); the source's 99 is not copied
    assert.deepEqual(d.rows.map((r) => cellOf(r, dest.col.Double!.id).value), [0, 100, 4, 0, 2]);

    // formulas in the destination follow its data
    const upd = await s0.api.put(`/sheets/${dest.id}/rows`, { id: d.rows[2]!.id, cells: [{ columnId: dest.col.qty!.id, value: 4 }] });
    assert.equal(upd.status, 200, JSON.stringify(upd.body));
    d = await stateOf(dest.id);
    assert.equal(cellOf(d.rows[2]!, T).value, 12);
    assert.equal(cellOf(d.rows[2]!, dest.col.Double!.id).value, 8);
    assert.equal(cellOf(d.rows[3]!, T).formula, '=[Total]3 * 10 + #REF');

    assert.deepEqual(await stateOf(src.id), srcBefore);
  });
});

// The SDK's typings demand fields real clients leave out; these tests send what clients send.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = any;

test('the official SDK copies and moves rows unchanged', async () => {
  const c: Loose = smartsheet.createClient({ accessToken: s0.t.adminToken, baseUrl: s0.t.base + '/', logLevel: 'error' });
  const src = await tree('sdk-src', ['A', 'A.1', 'B']);
  const dest = await tree('sdk-dest', []);
  const copied = await c.sheets.copyRowToAnotherSheet({ sheetId: src.id, body: { rowIds: [src.ids.A], to: { sheetId: dest.id } }, queryParameters: { include: 'children' } });
  assert.equal(copied.destinationSheetId, dest.id);
  assert.deepEqual(copied.rowMappings.map((m: { from: number }) => m.from), [src.ids.A, src.ids['A.1']]);
  const moved = await c.sheets.moveRowToAnotherSheet({ sheetId: src.id, body: { rowIds: [src.ids.B], to: { sheetId: dest.id } } });
  assert.deepEqual(moved.rowMappings.map((m: { from: number }) => m.from), [src.ids.B]);
  const sheet = await c.sheets.getSheet({ id: dest.id });
  assert.deepEqual(outline(sheet, dest.col.Task!.id), ['A', 'A.1<A', 'B']);
  assert.deepEqual(outline(await stateOf(src.id), src.col.Task!.id), ['A', 'A.1<A']);
  await assert.rejects(c.sheets.moveRowToAnotherSheet({ sheetId: src.id, body: { rowIds: [src.ids.A], to: { sheetId: src.id } } }), (e: Loose) => e.errorCode === 1136 && e.statusCode === 400);
});
