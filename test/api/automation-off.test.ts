import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { serverForFile } from '../helpers/setup.ts';
import { makeSheet } from '../helpers/sheets.ts';

// SHEETD_AUTOMATION=off: rules can be kept and read, but none runs.
const s0 = serverForFile({ SHEETD_JOB_POLL_MS: '30', SHEETD_AUTOMATION: 'off' });

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
  await new Promise((res) => setTimeout(res, 600));
  const outbox = path.join(s0.t.dataDir, 'outbox');
  assert.deepEqual(fs.existsSync(outbox) ? fs.readdirSync(outbox) : [], []);
});
