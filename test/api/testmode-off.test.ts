import assert from 'node:assert/strict';
import { test } from 'node:test';
import { serverForFile } from '../helpers/setup.ts';
import { assertError } from '../helpers/http.ts';

// Test mode is off by default: its controls do not exist and nothing is journaled.
const s = serverForFile();

const CONTROLS: Array<[string, string, unknown?]> = [
  ['POST', '/sheetd/test/reset'],
  ['GET', '/sheetd/test/snapshots'],
  ['POST', '/sheetd/test/snapshots', { name: 'x' }],
  ['POST', '/sheetd/test/snapshots/x/restore'],
  ['DELETE', '/sheetd/test/snapshots/x'],
  ['GET', '/sheetd/test/clock'],
  ['PUT', '/sheetd/test/clock', { now: '2030-01-01T00:00:00Z' }],
  ['POST', '/sheetd/test/clock/advance', { by: 'PT1H' }],
  ['GET', '/sheetd/test/faults'],
  ['POST', '/sheetd/test/faults', { path: '/**', status: 500 }],
  ['DELETE', '/sheetd/test/faults'],
  ['DELETE', '/sheetd/test/faults/1'],
  ['GET', '/sheetd/test/journal'],
  ['DELETE', '/sheetd/test/journal'],
  ['GET', '/sheetd/test/outbox'],
  ['GET', '/sheetd/test/webhookdeliveries'],
  ['POST', '/sheetd/test/seed', { users: [] }],
];

test('every control answers 404/1006 with the admin token, and changes nothing', async () => {
  const before = (await s.api.get('/users')).body.totalCount;
  for (const [method, path, body] of CONTROLS) {
    assertError(await s.api.call(method, path, body === undefined ? {} : { body }), 404, 1006);
  }
  assert.equal((await s.api.get('/users')).body.totalCount, before);
  assert.equal((await s.api.get('/users/me')).status, 200, 'no fault was installed');
  const id = (await s.api.post('/sheets', { name: 'now', columns: [{ title: 'A', type: 'TEXT_NUMBER', primary: true }] })).body.result.id;
  const created = (await s.api.get(`/sheets/${id}`)).body.createdAt;
  assert.ok(Math.abs(Date.parse(created) - Date.now()) < 60_000, `the clock was not moved: ${created}`);
});

test('no journal is kept and no control is routed in the server', async () => {
  assert.equal(s.t.server.testMode, undefined);
  assert.equal(s.t.config.testMode, false);
  assert.ok(!s.t.server.app.routeTable.some((r) => r.url.includes('/sheetd/test')));
});
