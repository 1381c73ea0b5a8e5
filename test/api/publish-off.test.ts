import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverForFile } from '../helpers/setup.ts';
import { assertError, makeSheet } from '../helpers/sheets.ts';

// SHEETD_PUBLISH=off: nothing can be published; reading the status and unpublishing still work.
const s = serverForFile({ SHEETD_PUBLISH: 'off' });

test('SHEETD_PUBLISH=off refuses every publish option with 1175', async () => {
  const sh = await makeSheet(s.api, 'never published', [{ title: 'A', type: 'TEXT_NUMBER', primary: true }]);
  for (const body of [{ readOnlyLiteEnabled: true }, { readOnlyFullEnabled: true }, { readWriteEnabled: true }, { icalEnabled: true }]) {
    assertError(await s.api.put(`/sheets/${sh.id}/publish`, body), 403, 1175);
  }
  const off = await s.api.put(`/sheets/${sh.id}/publish`, { readOnlyLiteEnabled: false, readOnlyFullEnabled: false, readWriteEnabled: false, icalEnabled: false });
  assert.equal(off.status, 200, off.text);
  assert.deepEqual((await s.api.get(`/sheets/${sh.id}/publish`)).body, { readOnlyLiteEnabled: false, readOnlyFullEnabled: false, readWriteEnabled: false, icalEnabled: false });
  const rep = (await s.api.post('/sheetd/reports', { name: 'off report', scope: { sheets: [{ id: sh.id }] }, columns: [{ title: 'A', type: 'TEXT_NUMBER', primary: true }] })).body.result;
  assertError(await s.api.put(`/reports/${rep.id}/publish`, { readOnlyFullEnabled: true }), 403, 1175);
});
