import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverForFile } from '../helpers/setup.ts';
import { makeSheet } from '../helpers/sheets.ts';

// SHEETD_AUTOMATION=off: rules can be kept and read, but none runs. Test mode's clock advance
// runs every job that is due (and those they enqueue) before it answers, so "nothing sent" is
// read from the outbox once the queue has run dry, not after a wait.
const s0 = serverForFile({ SHEETD_AUTOMATION: 'off', SHEETD_TEST_MODE: 'true' });

test('with automation off every rule reads AUTOMATION_NOT_ENABLED_FOR_ORG and sends nothing', async () => {
  const s = await makeSheet(s0.api, 'Automation off', [{ title: 'Task', type: 'TEXT_NUMBER', primary: true }]);
  const r = await s0.api.post(`/sheetd/sheets/${s.id}/automationrules`, { name: 'Never', trigger: { type: 'ROWS_ADDED' }, action: { type: 'NOTIFICATION_ACTION', notifyAllSharedUsers: true } });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.result.enabled, false);
  assert.equal(r.body.result.disabledReason, 'AUTOMATION_NOT_ENABLED_FOR_ORG');
  assert.equal(typeof r.body.result.disabledReasonText, 'string');
  const list = await s0.api.get(`/sheets/${s.id}/automationrules`);
  assert.equal(list.body.data[0].disabledReason, 'AUTOMATION_NOT_ENABLED_FOR_ORG');
  assert.equal((await s0.api.post(`/sheets/${s.id}/rows`, [{ toBottom: true, cells: [{ columnId: s.col.Task!.id, value: 'x' }] }])).status, 200);
  // the write was answered after its commit: whatever it enqueued is in the queue; an hour on
  // covers the rule's batching and any retry
  const advanced = await s0.api.post('/sheetd/test/clock/advance', { by: 'PT1H' });
  assert.equal(advanced.status, 200, JSON.stringify(advanced.body));
  const outbox = await s0.api.get('/sheetd/test/outbox');
  assert.equal(outbox.status, 200);
  assert.deepEqual(outbox.body.data, []);
});
