import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverForFile } from '../helpers/setup.ts';
import { assertError, makeSheet } from '../helpers/sheets.ts';

// SHEETD_PUBLISH=org: only views for signed-in members of the organization can be published.
const s = serverForFile({ SHEETD_PUBLISH: 'org' });

test('SHEETD_PUBLISH=org refuses lite, iCal and views open to ALL; a full view defaults to ORG and asks visitors to sign in', async () => {
  const sh = await makeSheet(s.api, 'org only', [{ title: 'A', type: 'TEXT_NUMBER', primary: true }]);
  assertError(await s.api.put(`/sheets/${sh.id}/publish`, { readOnlyLiteEnabled: true }), 403, 1175);
  assertError(await s.api.put(`/sheets/${sh.id}/publish`, { icalEnabled: true }), 403, 1175);
  assertError(await s.api.put(`/sheets/${sh.id}/publish`, { readOnlyFullEnabled: true, readOnlyFullAccessibleBy: 'ALL' }), 403, 1174);
  assertError(await s.api.put(`/sheets/${sh.id}/publish`, { readWriteEnabled: true, readWriteAccessibleBy: 'ALL' }), 403, 1174);
  assert.equal((await s.api.get(`/sheets/${sh.id}/publish`)).body.readOnlyFullEnabled, false);
  const r = await s.api.put(`/sheets/${sh.id}/publish`, { readOnlyFullEnabled: true });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.result.readOnlyFullAccessibleBy, 'ORG');
  const rw = await s.api.put(`/sheets/${sh.id}/publish`, { readWriteEnabled: true });
  assert.equal(rw.status, 200, rw.text);
  assert.equal(rw.body.result.readWriteAccessibleBy, 'ORG');
  // opening it up later is refused too
  assertError(await s.api.put(`/sheets/${sh.id}/publish`, { readOnlyFullAccessibleBy: 'ALL' }), 403, 1174);
  const res = await fetch(r.body.result.readOnlyFullUrl, { redirect: 'manual' });
  assert.equal(res.status, 303);
  assert.match(res.headers.get('location')!, /^\/login\?next=/);
  const rep = (await s.api.post('/sheetd/reports', { name: 'org report', scope: { sheets: [{ id: sh.id }] }, columns: [{ title: 'A', type: 'TEXT_NUMBER', primary: true }] })).body.result;
  assertError(await s.api.put(`/reports/${rep.id}/publish`, { readOnlyFullEnabled: true, readOnlyFullAccessibleBy: 'ALL' }), 403, 1174);
  assert.equal((await s.api.put(`/reports/${rep.id}/publish`, { readOnlyFullEnabled: true, readOnlyFullAccessibleBy: 'SHARED' })).status, 200);
});
