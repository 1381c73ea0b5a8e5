/**
 * The error catalogue, cell and row family: each refusal of a cell value or row operation that
 * no other test file makes sheetd answer, with its status, code and message, and nothing changed.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, test } from 'node:test';
import { serverForFile } from '../helpers/setup.ts';
import { client, type Client } from '../helpers/http.ts';
import { makeSheet, makeUser } from '../helpers/sheets.ts';
import { refusedUnchanged } from '../helpers/refusals.ts';

const s = serverForFile();
let sheet: Awaited<ReturnType<typeof makeSheet>>;
let rowId: number;
let editor: Client;
const sheetNow = async () => (await s.api.get(`/sheets/${sheet.id}`)).body;
const addRow = (cells: Array<Record<string, unknown>>, api?: Client) => () => (api ?? s.api).post(`/sheets/${sheet.id}/rows`, { toBottom: true, cells });
const updateRow = (cells: Array<Record<string, unknown>>, query = '', api?: Client) => () => (api ?? s.api).put(`/sheets/${sheet.id}/rows${query}`, [{ id: rowId, cells }]);
const col = (title: string) => sheet.col[title]!.id;

describe('cells and rows', () => {
  before(async () => {
    sheet = await makeSheet(s.api, 'Cell refusals', [
      { title: 'Name', type: 'TEXT_NUMBER', primary: true },
      { title: 'Due', type: 'DATE' },
      { title: 'Status', type: 'PICKLIST', options: ['Open', 'Done'], validation: true },
      { title: 'Tags', type: 'MULTI_PICKLIST', options: ['a', 'b'] },
      { title: 'People', type: 'MULTI_CONTACT_LIST' },
    ]);
    const r = await s.api.post(`/sheets/${sheet.id}/rows`, { toBottom: true, cells: [{ columnId: col('Name'), value: 'first' }] });
    assert.equal(r.status, 200, r.text);
    rowId = r.body.result.id;
    const email = `cells-${randomUUID().slice(0, 8)}@example.org`;
    const user = await makeUser(s.t, s.api, email);
    editor = client(s.t.base, user.token);
    const share = await s.api.post(`/sheets/${sheet.id}/shares?sendEmail=false`, { email, accessLevel: 'EDITOR' });
    assert.equal(share.status, 200, share.text);
  });

  test('value and objectValue together are 400/1130', async () => {
    await refusedUnchanged(sheetNow, updateRow([{ columnId: col('Name'), value: 'x', objectValue: 'y' }]), 400, 1130);
  });

  test('an objectValue of a type the column does not take is 400/1131', async () => {
    await refusedUnchanged(sheetNow, updateRow([{ columnId: col('Due'), objectValue: { objectType: 'CONTACT', email: 'a@example.org' } }]), 400, 1131, 'objectValue', col('Due'), 'DATE');
  });

  test('the same row twice in one update is 400/1137', async () => {
    const send = () => s.api.put(`/sheets/${sheet.id}/rows`, [
      { id: rowId, cells: [{ columnId: col('Name'), value: 'one' }] },
      { id: rowId, cells: [{ columnId: col('Name'), value: 'two' }] },
    ]);
    await refusedUnchanged(sheetNow, send, 400, 1137);
  });

  test('a number outside the exact range, strictly, is 400/1148', async () => {
    await refusedUnchanged(sheetNow, updateRow([{ columnId: col('Name'), value: 1e300 }]), 400, 1148, -9007199254740992, 9007199254740992);
    await refusedUnchanged(sheetNow, addRow([{ columnId: col('Name'), value: -(2 ** 60) }]), 400, 1148, -9007199254740992, 9007199254740992);
  });

  test('an image beside a value is 400/1163', async () => {
    await refusedUnchanged(sheetNow, updateRow([{ columnId: col('Name'), value: 'x', image: { altText: 'pic' } }]), 400, 1163);
  });

  test('overrideValidation by someone who is not a sheet admin is 403/1212', async () => {
    await refusedUnchanged(sheetNow, updateRow([{ columnId: col('Status'), value: 'Elsewhere', strict: false, overrideValidation: true }], '', editor), 403, 1212);
    await refusedUnchanged(sheetNow, updateRow([{ columnId: col('Status'), value: 'Elsewhere', strict: false }], '?overrideValidation=true', editor), 403, 1212);
  });

  test('a value outside a validated column\'s options is 400/1235', async () => {
    await refusedUnchanged(sheetNow, updateRow([{ columnId: col('Status'), value: 'Elsewhere', strict: false }]), 400, 1235);
    await refusedUnchanged(sheetNow, addRow([{ columnId: col('Status'), value: 'Elsewhere', strict: false }], editor), 400, 1235);
    // the sheet admin may override it
    const ok = await s.api.put(`/sheets/${sheet.id}/rows`, [{ id: rowId, cells: [{ columnId: col('Status'), value: 'Elsewhere', strict: false, overrideValidation: true }] }]);
    assert.equal(ok.status, 200, ok.text);
    await s.api.put(`/sheets/${sheet.id}/rows`, [{ id: rowId, cells: [{ columnId: col('Status'), value: null }] }]);
  });

  test('more contacts than a cell holds is 400/1240', async () => {
    const emails = Array.from({ length: 21 }, (_, i) => `p${i}@example.org`);
    await refusedUnchanged(sheetNow, updateRow([{ columnId: col('People'), value: emails.join(', ') }], '?level=2'), 400, 1240);
    const values = emails.map((email) => ({ objectType: 'CONTACT', email }));
    await refusedUnchanged(sheetNow, updateRow([{ columnId: col('People'), objectValue: { objectType: 'MULTI_CONTACT', values } }]), 400, 1240);
  });

  test('a contact name that is not a string is 400/1241', async () => {
    const values = [{ objectType: 'CONTACT', email: 'a@example.org', name: 42 }];
    await refusedUnchanged(sheetNow, updateRow([{ columnId: col('People'), objectValue: { objectType: 'MULTI_CONTACT', values } }]), 400, 1241);
  });

  test('more values than a multi-picklist cell holds is 400/1277', async () => {
    const values = Array.from({ length: 101 }, (_, i) => `v${i}`);
    await refusedUnchanged(sheetNow, updateRow([{ columnId: col('Tags'), objectValue: { objectType: 'MULTI_PICKLIST', values }, strict: false }]), 400, 1277);
  });

  test('sorting a sheet that holds a locked row is 400/1223, whoever asks', async () => {
    const sort = { sortCriteria: [{ columnId: col('Name'), direction: 'DESCENDING' }] };
    const lock = await s.api.put(`/sheets/${sheet.id}/rows`, [{ id: rowId, locked: true }]);
    assert.equal(lock.status, 200, lock.text);
    try {
      await refusedUnchanged(sheetNow, () => editor.post(`/sheets/${sheet.id}/sort`, sort), 400, 1223);
      await refusedUnchanged(sheetNow, () => s.api.post(`/sheets/${sheet.id}/sort`, sort), 400, 1223);
    } finally {
      await s.api.put(`/sheets/${sheet.id}/rows`, [{ id: rowId, locked: false }]);
    }
    const unlocked = await editor.post(`/sheets/${sheet.id}/sort`, sort);
    assert.equal(unlocked.status, 200, unlocked.text);
  });
});
