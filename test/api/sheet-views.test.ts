import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { serverForFile } from '../helpers/setup.ts';
import { makeSheet, makeUser } from '../helpers/sheets.ts';

const s = serverForFile();

interface Row {
  id: number;
  cells: Array<Record<string, unknown>>;
}

/**
 * The text of a sheet's cells is kept between whole-sheet reads for one presentation at a time
 * (src/http/present/sheetContents.ts); callers who read the same sheet with other presentations
 * (another access level, other include values, some columns) in turn, across writes, must each
 * get their own view as it is now. The oracle is Get Row, which presents every row afresh.
 */
describe('Get Sheet read by callers with different views in turn', () => {
  let sheetId = 0;
  let col: Record<string, { id: number }> = {};
  let viewer = { id: 0, token: '' };
  const views: Array<{ name: string; token?: () => string; query: string }> = [
    { name: 'owner', query: '' },
    { name: 'viewer', token: () => viewer.token, query: '' },
    { name: 'owner, objectValue and format', query: 'include=objectValue,format' },
    { name: 'viewer, columnType', token: () => viewer.token, query: 'include=columnType' },
    { name: 'owner, two columns', query: '' },
    { name: 'owner, again', query: '' },
  ];

  /** Every view in turn: each row's cells as Get Sheet gives them equal the row's cells by Get Row with the same options. */
  async function checkViews(expect: (rows: Row[]) => void): Promise<void> {
    for (const v of views) {
      const columnIds = v.name.includes('two columns') ? `columnIds=${col.Name!.id},${col.Count!.id}` : '';
      const query = [v.query, columnIds].filter((x) => x !== '').join('&');
      const token = v.token?.();
      const sheet = await s.api.get(`/sheets/${sheetId}${query ? `?${query}` : ''}`, token === undefined ? {} : { token });
      assert.equal(sheet.status, 200, sheet.text);
      const rows = sheet.body.rows as Row[];
      assert.equal(rows.length, 3, v.name);
      for (const r of rows) {
        const one = await s.api.get(`/sheets/${sheetId}/rows/${r.id}${query ? `?${query}` : ''}`, token === undefined ? {} : { token });
        assert.equal(one.status, 200, one.text);
        // Get Row has no columnIds: the columns asked for are picked from all of its cells
        const wanted = columnIds === '' ? undefined : [col.Name!.id, col.Count!.id];
        const expected = (one.body as Row).cells.filter((c) => wanted === undefined || wanted.includes(c.columnId as number));
        assert.deepEqual(r.cells, expected, `${v.name}: row ${r.id}`);
        if (wanted !== undefined) assert.deepEqual(r.cells.map((c) => c.columnId), wanted, v.name);
        if (v.query.includes('objectValue')) assert.ok(r.cells.some((c) => c.objectValue !== undefined), v.name);
        if (v.query.includes('columnType')) assert.ok(r.cells.every((c) => typeof c.columnType === 'string'), v.name);
      }
      expect(rows);
    }
  }

  const valuesOf = (rows: Row[], columnId: number) => rows.map((r) => r.cells.find((c) => c.columnId === columnId)?.value);

  test('setup: a sheet shared with a viewer', async () => {
    const made = await makeSheet(s.api, 'views in turn', [
      { title: 'Name', type: 'TEXT_NUMBER', primary: true },
      { title: 'Count', type: 'TEXT_NUMBER' },
      { title: 'Status', type: 'TEXT_NUMBER' },
    ]);
    sheetId = made.id;
    col = made.col;
    const add = await s.api.post(`/sheets/${sheetId}/rows`, ['a', 'b', 'c'].map((name, i) => ({
      toBottom: true,
      cells: [
        { columnId: col.Name!.id, value: name },
        { columnId: col.Count!.id, value: i + 1 },
        { columnId: col.Status!.id, value: 'open', format: ',,1,,,,,,,,,,,,,,' },
      ],
    })));
    assert.equal(add.status, 200, add.text);
    viewer = await makeUser(s.t, s.api, 'views-in-turn@example.com');
    assert.equal((await s.api.post(`/sheets/${sheetId}/shares`, [{ email: 'views-in-turn@example.com', accessLevel: 'VIEWER' }])).status, 200);
  });

  test('each view is its own, and stays so across cell writes, a column change and a formula', async () => {
    await checkViews((rows) => assert.deepEqual(valuesOf(rows, col.Count!.id), [1, 2, 3]));
    await checkViews(() => undefined);

    const rows = (await s.api.get(`/sheets/${sheetId}`)).body.rows as Row[];
    const put = await s.api.put(`/sheets/${sheetId}/rows`, [{ id: rows[1]!.id, cells: [{ columnId: col.Count!.id, value: 20 }] }]);
    assert.equal(put.status, 200, put.text);
    await checkViews((r) => assert.deepEqual(valuesOf(r, col.Count!.id), [1, 20, 3]));

    const change = await s.api.put(`/sheets/${sheetId}/columns/${col.Status!.id}`, { type: 'PICKLIST', options: ['open', 'closed'] });
    assert.equal(change.status, 200, change.text);
    await checkViews(() => undefined);
    const typed = await s.api.get(`/sheets/${sheetId}?include=columnType`, { token: viewer.token });
    assert.ok((typed.body.rows as Row[]).every((r) => r.cells.find((c) => c.columnId === col.Status!.id)?.columnType === 'PICKLIST'));

    const formula = await s.api.put(`/sheets/${sheetId}/rows`, [{ id: rows[2]!.id, cells: [{ columnId: col.Count!.id, formula: '=Count1 + Count2' }] }]);
    assert.equal(formula.status, 200, formula.text);
    await checkViews((r) => assert.deepEqual(valuesOf(r, col.Count!.id), [1, 20, 21]));
    const again = await s.api.put(`/sheets/${sheetId}/rows`, [{ id: rows[0]!.id, cells: [{ columnId: col.Count!.id, value: 5 }] }]);
    assert.equal(again.status, 200, again.text);
    await checkViews((r) => assert.deepEqual(valuesOf(r, col.Count!.id), [5, 20, 25]));
    // the formula's text names rows by number: moving a row changes it, not the cells it is in
    const move = await s.api.put(`/sheets/${sheetId}/rows`, [{ id: rows[0]!.id, toBottom: true }]);
    assert.equal(move.status, 200, move.text);
    await checkViews((r) => assert.ok(r.some((row) => row.cells.some((c) => /^=\[?Count\]?3 \+ \[?Count\]?1$/.test(String(c.formula)))), JSON.stringify(r.map((x) => x.cells.map((c) => c.formula)))));
  });
});
