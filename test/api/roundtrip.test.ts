import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { serverForFile } from '../helpers/setup.ts';
import { makeSheet } from '../helpers/sheets.ts';

// Export a sheet with a column of every type a sheet takes through the API (DATETIME is the
// system columns' type; ABSTRACT_DATETIME, DURATION and PREDECESSOR are for project sheets, 1142) (CSV and XLSX, as Get Sheet gives them), import
// the file as a new sheet: every cell shows what it showed before.
const s0 = serverForFile();
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

type Cell = { columnId: number; value?: unknown; displayValue?: string };
type Sheet = { id: number; columns: Array<{ id: number; title: string; type: string }>; rows: Array<{ cells: Cell[] }> };

const COLUMNS = [
  { title: 'Name', type: 'TEXT_NUMBER', primary: true },
  { title: 'Amount', type: 'TEXT_NUMBER' },
  { title: 'Due', type: 'DATE' },
  { title: 'Done', type: 'CHECKBOX' },
  { title: 'Priority', type: 'PICKLIST', options: ['High', 'Low'] },
  { title: 'Tags', type: 'MULTI_PICKLIST', options: ['red', 'green', 'blue'] },
  { title: 'Owner', type: 'CONTACT_LIST' },
  { title: 'Team', type: 'MULTI_CONTACT_LIST' },
  { title: 'Number', type: 'TEXT_NUMBER', systemColumnType: 'AUTO_NUMBER', autoNumberFormat: { prefix: 'T-', fill: '000', startingNumber: 7 } },
  { title: 'Created', type: 'DATETIME', systemColumnType: 'CREATED_DATE' },
  { title: 'Creator', type: 'CONTACT_LIST', systemColumnType: 'CREATED_BY' },
];

/** What each cell shows (its displayValue, else its value as text; '' when blank), row by row. */
function shown(s: Sheet): string[][] {
  return s.rows.map((r) => s.columns.map((c) => {
    const cell = r.cells.find((x) => x.columnId === c.id);
    const v = cell?.displayValue ?? cell?.value;
    return v === undefined || v === null ? '' : String(v);
  }));
}

async function sheetWithEveryType(): Promise<Sheet> {
  const s = await makeSheet(s0.api, 'Every type', COLUMNS);
  const c = s.col;
  const add = await s0.api.post(`/sheets/${s.id}/rows`, [
    {
      toBottom: true, cells: [
        { columnId: c.Name!.id, value: 'alpha, "quoted"' }, { columnId: c.Amount!.id, value: 1500.25 }, { columnId: c.Due!.id, value: '2026-02-03' },
        { columnId: c.Done!.id, value: true }, { columnId: c.Priority!.id, value: 'High' },
        { columnId: c.Tags!.id, objectValue: { objectType: 'MULTI_PICKLIST', values: ['red', 'blue'] } },
        { columnId: c.Owner!.id, objectValue: { objectType: 'CONTACT', email: 'ann@example.com', name: 'Ann Lee' } },
        { columnId: c.Team!.id, objectValue: { objectType: 'MULTI_CONTACT', values: [{ objectType: 'CONTACT', email: 'bo@example.com', name: 'Bo' }, { objectType: 'CONTACT', email: 'cy@example.com' }] } }
      ],
    },
    {
      toBottom: true, cells: [
        { columnId: c.Name!.id, value: 'beta\nsecond line' }, { columnId: c.Amount!.id, value: 'text 007' }, { columnId: c.Done!.id, value: false },
        { columnId: c.Priority!.id, value: 'Low' },
      ],
    },
  ]);
  assert.equal(add.status, 200, JSON.stringify(add.body));
  const got = await s0.api.get(`/sheets/${s.id}`);
  assert.equal(got.status, 200);
  // every column of the first row shows something (the comparison below is not of blanks)
  assert.deepEqual(shown(got.body as Sheet)[0]!.filter((x) => x === ''), []);
  return got.body as Sheet;
}

async function exported(id: number, accept: string): Promise<Buffer> {
  const res = await fetch(`${s0.t.base}/sheets/${id}`, { headers: { authorization: `Bearer ${s0.t.adminToken}`, accept } });
  assert.equal(res.status, 200);
  return Buffer.from(await res.arrayBuffer());
}

async function imported(file: Buffer, type: string, name: string): Promise<Sheet> {
  const res = await s0.api.call('POST', `/sheets/import?sheetName=${encodeURIComponent(name)}&headerRowIndex=0`, { raw: file, headers: { 'content-type': type, 'content-disposition': 'attachment' } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const got = await s0.api.get(`/sheets/${res.body.result.id}`);
  assert.equal(got.status, 200);
  return got.body as Sheet;
}

describe('export, then import: same values', () => {
  test('CSV: titles and what every cell of every column type shows', async () => {
    const s = await sheetWithEveryType();
    const back = await imported(await exported(s.id, 'text/csv'), 'text/csv', 'Every type (CSV)');
    assert.deepEqual(back.columns.map((c) => c.title), s.columns.map((c) => c.title));
    assert.deepEqual(shown(back), shown(s));
  });

  test('XLSX: titles and what every cell of every column type shows; numbers, dates and checkboxes keep their kind', async () => {
    const s = await sheetWithEveryType();
    const back = await imported(await exported(s.id, XLSX), XLSX, 'Every type (XLSX)');
    assert.deepEqual(back.columns.map((c) => c.title), s.columns.map((c) => c.title));
    assert.deepEqual(shown(back), shown(s));
    const type = (title: string) => back.columns.find((c) => c.title === title)!.type;
    assert.equal(type('Due'), 'DATE');
    assert.equal(type('Done'), 'CHECKBOX');
    const amount = back.rows[0]!.cells.find((x) => x.columnId === back.columns[1]!.id)!;
    assert.equal(amount.value, 1500.25);
  });
});
