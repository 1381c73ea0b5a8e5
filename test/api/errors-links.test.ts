/**
 * The error catalogue, references to other objects: a webhook subscope naming columns the sheet
 * does not have (404/1293) and a summary field hyperlink to a sheet the caller cannot see
 * (404/1204); each with its status, code and message, and nothing changed.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, test } from 'node:test';
import { serverForFile } from '../helpers/setup.ts';
import { client } from '../helpers/http.ts';
import { makeSheet, makeUser } from '../helpers/sheets.ts';
import { refusedUnchanged } from '../helpers/refusals.ts';

const s = serverForFile();
let sheet: Awaited<ReturnType<typeof makeSheet>>;

describe('references', () => {
  before(async () => {
    sheet = await makeSheet(s.api, 'Reference refusals', [
      { title: 'Name', type: 'TEXT_NUMBER', primary: true },
      { title: 'Notes', type: 'TEXT_NUMBER' },
    ]);
  });

  test('a webhook subscope with a column the sheet does not have is 404/1293', async () => {
    const hooks = async () => (await s.api.get('/webhooks?includeAll=true')).body.data.filter((h: { scopeObjectId: number }) => h.scopeObjectId === sheet.id);
    const other = await makeSheet(s.api, 'Other columns', [{ title: 'Key', type: 'TEXT_NUMBER', primary: true }]);
    const body = (columnIds: unknown[]) => ({
      name: 'subscoped', callbackUrl: 'https://hooks.example.test/cb', scope: 'sheet', scopeObjectId: sheet.id,
      events: ['*.*'], version: 1, subscope: { columnIds },
    });
    await refusedUnchanged(hooks, () => s.api.post('/webhooks', body([424242])), 404, 1293);
    // a column of another sheet, beside one of this sheet
    await refusedUnchanged(hooks, () => s.api.post('/webhooks', body([sheet.col.Notes!.id, other.col.Key!.id])), 404, 1293);
    await refusedUnchanged(hooks, () => s.api.post('/webhooks', body([String(other.col.Key!.id)])), 404, 1293);
    // an id that is not an id is bad input, not an unknown column
    await refusedUnchanged(hooks, () => s.api.post('/webhooks', body([1.5])), 400, 1031, '1.5', 'subscope.columnIds');
    const ok = await s.api.post('/webhooks', body([sheet.col.Notes!.id]));
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual(ok.body.result.subscope, { columnIds: [sheet.col.Notes!.id] });
  });

  test('a summary field hyperlink to a sheet the caller cannot see is 404/1204', async () => {
    const fields = async () => (await s.api.get(`/sheets/${sheet.id}/summary/fields?includeAll=true`)).body;
    const stranger = await makeUser(s.t, s.api, `links-${randomUUID().slice(0, 8)}@example.org`);
    const theirs = await makeSheet(client(s.t.base, stranger.token), 'Not shared', [{ title: 'K', type: 'TEXT_NUMBER', primary: true }]);
    const add = (hyperlink: Record<string, unknown>) => () => s.api.post(`/sheets/${sheet.id}/summary/fields`, [{ title: 'Link', type: 'TEXT_NUMBER', hyperlink }]);
    await refusedUnchanged(fields, add({ sheetId: 424242 }), 404, 1204);
    await refusedUnchanged(fields, add({ sheetId: theirs.id }), 404, 1204);
    await refusedUnchanged(fields, add({ reportId: 424242 }), 404, 1204);
    const made = await s.api.post(`/sheets/${sheet.id}/summary/fields`, [{ title: 'Plain', type: 'TEXT_NUMBER' }]);
    assert.equal(made.status, 200, made.text);
    const id = made.body.result[0].id as number;
    await refusedUnchanged(fields, () => s.api.put(`/sheets/${sheet.id}/summary/fields`, [{ id, hyperlink: { sheetId: theirs.id } }]), 404, 1204);
  });
});
