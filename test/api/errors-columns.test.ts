/**
 * The error catalogue, column family: each refusal of a column definition that no other test
 * file makes sheetd answer, with its status, code and message, and nothing changed.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { serverForFile } from '../helpers/setup.ts';
import { makeSheet } from '../helpers/sheets.ts';
import { refusedUnchanged } from '../helpers/refusals.ts';

const s = serverForFile();
let sheet: Awaited<ReturnType<typeof makeSheet>>;
const sheetNow = async () => (await s.api.get(`/sheets/${sheet.id}?include=format`)).body;
const addColumn = (col: Record<string, unknown>) => () => s.api.post(`/sheets/${sheet.id}/columns`, { index: 1, ...col });
const updateColumn = (id: number, col: Record<string, unknown>) => () => s.api.put(`/sheets/${sheet.id}/columns/${id}`, col);

describe('column definitions', () => {
  before(async () => {
    sheet = await makeSheet(s.api, 'Column refusals', [
      { title: 'Name', type: 'TEXT_NUMBER', primary: true },
      { title: 'Notes', type: 'TEXT_NUMBER' },
      { title: 'Number', type: 'TEXT_NUMBER', systemColumnType: 'AUTO_NUMBER', autoNumberFormat: { prefix: 'N-' } },
    ]);
  });

  test('a symbol the column type does not have is 400/1058', async () => {
    await refusedUnchanged(sheetNow, addColumn({ title: 'Flag', type: 'TEXT_NUMBER', symbol: 'STAR' }), 400, 1058, 'STAR', 'TEXT_NUMBER');
    await refusedUnchanged(sheetNow, addColumn({ title: 'Flag', type: 'CHECKBOX', symbol: 'RYG' }), 400, 1058, 'RYG', 'CHECKBOX');
  });

  test('options beside a symbol are 400/1059', async () => {
    await refusedUnchanged(sheetNow, addColumn({ title: 'Status', type: 'PICKLIST', symbol: 'RYG', options: ['Red', 'Green'] }), 400, 1059);
  });

  test('a second column of a system column type the sheet has is 400/1077', async () => {
    await refusedUnchanged(sheetNow, addColumn({ title: 'Again', type: 'TEXT_NUMBER', systemColumnType: 'AUTO_NUMBER' }), 400, 1077, 'AUTO_NUMBER');
    await refusedUnchanged(sheetNow, updateColumn(sheet.col.Notes!.id, { type: 'TEXT_NUMBER', systemColumnType: 'AUTO_NUMBER' }), 400, 1077, 'AUTO_NUMBER');
  });

  test('one system column type twice among the new columns is 400/1134', async () => {
    const by = (title: string) => ({ title, type: 'CONTACT_LIST', systemColumnType: 'CREATED_BY', index: 1 });
    await refusedUnchanged(sheetNow, () => s.api.post(`/sheets/${sheet.id}/columns`, [by('By one'), by('By two')]), 400, 1134);
  });

  test('an auto number format longer than 40 characters in all is 400/1088', async () => {
    const id = sheet.col.Number!.id;
    const format = { prefix: 'P'.repeat(25), fill: '0000000000', suffix: 'S'.repeat(6) };
    await refusedUnchanged(sheetNow, updateColumn(id, { type: 'TEXT_NUMBER', systemColumnType: 'AUTO_NUMBER', autoNumberFormat: format }), 400, 1088, format.prefix + format.fill + format.suffix, 41);
    const add = { title: 'Code', type: 'TEXT_NUMBER', systemColumnType: 'AUTO_NUMBER', autoNumberFormat: { prefix: 'x'.repeat(41) } };
    const two = await makeSheet(s.api, 'Auto number length', [{ title: 'Key', type: 'TEXT_NUMBER', primary: true }]);
    const read = async () => (await s.api.get(`/sheets/${two.id}`)).body;
    await refusedUnchanged(read, () => s.api.post(`/sheets/${two.id}/columns`, { index: 1, ...add }), 400, 1088, 'x'.repeat(41), 41);
  });

  test('a system column type on the primary column is 400/1078', async () => {
    const id = sheet.col.Name!.id;
    await refusedUnchanged(sheetNow, updateColumn(id, { type: 'TEXT_NUMBER', systemColumnType: 'AUTO_NUMBER' }), 400, 1078, 'AUTO_NUMBER', 'primary column', id);
  });

  test('a system column type on a column of another type is 400/1079', async () => {
    await refusedUnchanged(sheetNow, addColumn({ title: 'Made', type: 'TEXT_NUMBER', systemColumnType: 'CREATED_DATE' }), 400, 1079, 'TEXT_NUMBER', 'CREATED_DATE');
    await refusedUnchanged(sheetNow, addColumn({ title: 'Maker', type: 'DATE', systemColumnType: 'CREATED_BY' }), 400, 1079, 'DATE', 'CREATED_BY');
  });

  test('options written to a column that is not a picklist, without a type, are 400/1082', async () => {
    const id = sheet.col.Notes!.id;
    await refusedUnchanged(sheetNow, updateColumn(id, { options: ['a', 'b'] }), 400, 1082, id);
  });

  test('an auto number format on a column that is not AUTO_NUMBER is 400/1083', async () => {
    await refusedUnchanged(sheetNow, addColumn({ title: 'Code', type: 'TEXT_NUMBER', autoNumberFormat: { prefix: 'C-' } }), 400, 1083, 'Code');
    const id = sheet.col.Notes!.id;
    await refusedUnchanged(sheetNow, updateColumn(id, { type: 'TEXT_NUMBER', autoNumberFormat: { prefix: 'C-' } }), 400, 1083, id);
  });

  test('an auto number format that is not one is 400/1084', async () => {
    const id = sheet.col.Number!.id;
    for (const format of [{ prefix: 5 }, { fill: 'abc' }, 'N-{n}']) {
      await refusedUnchanged(sheetNow, updateColumn(id, { type: 'TEXT_NUMBER', systemColumnType: 'AUTO_NUMBER', autoNumberFormat: format }), 400, 1084);
    }
  });

  test('DATETIME without a system column type is 400/1089', async () => {
    await refusedUnchanged(sheetNow, addColumn({ title: 'When', type: 'DATETIME' }), 400, 1089);
    await refusedUnchanged(sheetNow, updateColumn(sheet.col.Notes!.id, { type: 'DATETIME' }), 400, 1089);
  });

  test('a project column type on a sheet without dependencies is 400/1142', async () => {
    for (const type of ['DURATION', 'PREDECESSOR', 'ABSTRACT_DATETIME']) {
      await refusedUnchanged(sheetNow, addColumn({ title: 'Project', type }), 400, 1142, type);
    }
  });

  test('validation on a column type whose values it does not restrict is 400/1210', async () => {
    await refusedUnchanged(sheetNow, addColumn({ title: 'Free', type: 'TEXT_NUMBER', validation: true }), 400, 1210, 'TEXT_NUMBER');
    await refusedUnchanged(sheetNow, addColumn({ title: 'Made', type: 'DATETIME', systemColumnType: 'CREATED_DATE', validation: true }), 400, 1210, 'CREATED_DATE');
    await refusedUnchanged(sheetNow, updateColumn(sheet.col.Notes!.id, { validation: true }), 400, 1210, 'TEXT_NUMBER');
    // the types it restricts take it, and keep it through a type change that writes it
    const ok = await s.api.post(`/sheets/${sheet.id}/columns`, [{ index: 1, title: 'Choice', type: 'PICKLIST', options: ['a'], validation: true }]);
    assert.equal(ok.status, 200, ok.text);
    const id = ok.body.result[0].id as number;
    assert.equal(ok.body.result[0].validation, true);
    const retyped = await s.api.put(`/sheets/${sheet.id}/columns/${id}`, { type: 'DATE', validation: true });
    assert.equal(retyped.status, 200, retyped.text);
    assert.equal(retyped.body.result.validation, true);
    await refusedUnchanged(sheetNow, updateColumn(id, { type: 'TEXT_NUMBER', validation: true }), 400, 1210, 'TEXT_NUMBER');
    const plain = await s.api.put(`/sheets/${sheet.id}/columns/${id}`, { type: 'TEXT_NUMBER' });
    assert.equal(plain.status, 200, plain.text);
    assert.equal(plain.body.result.validation, false, 'a type change that does not write validation drops it');
    assert.equal((await s.api.del(`/sheets/${sheet.id}/columns/${id}`)).status, 200);
  });

  test('a column formula on a system column is 400/1303', async () => {
    await refusedUnchanged(sheetNow, updateColumn(sheet.col.Number!.id, { formula: '=1 + 1' }), 400, 1303);
  });

  test('a column formula naming a row by a number that is not absolute is 400/1310', async () => {
    const id = sheet.col.Notes!.id;
    for (const formula of ['=Name1', '=[Name]2 + Name@row', '=SUM(Name1:Name@row)', '=COUNT([Name]$1:[Name]3)']) {
      await refusedUnchanged(sheetNow, updateColumn(id, { formula }), 400, 1310);
    }
    // @row, absolute rows and whole columns stand for every row
    for (const formula of ['=Name@row + "!"', '=SUM([Name]$1:[Name]@row)', '=COUNT(Name:Name)']) {
      const ok = await s.api.put(`/sheets/${sheet.id}/columns/${id}`, { formula });
      assert.equal(ok.status, 200, ok.text);
      assert.equal(typeof ok.body.result.formula, 'string', ok.text);
    }
    const cleared = await s.api.put(`/sheets/${sheet.id}/columns/${id}`, { formula: null });
    assert.equal(cleared.status, 200, cleared.text);
  });

  test('deleting the last visible column is 400/1260', async () => {
    const two = await makeSheet(s.api, 'Last visible', [
      { title: 'Key', type: 'TEXT_NUMBER', primary: true },
      { title: 'Shown', type: 'TEXT_NUMBER' },
    ]);
    const hide = await s.api.put(`/sheets/${two.id}/columns/${two.col.Key!.id}`, { hidden: true });
    assert.equal(hide.status, 200, hide.text);
    const read = async () => (await s.api.get(`/sheets/${two.id}`)).body;
    await refusedUnchanged(read, () => s.api.del(`/sheets/${two.id}/columns/${two.col.Shown!.id}`), 400, 1260);
  });
});
