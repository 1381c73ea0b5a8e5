import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { simpleParser, type ParsedMail } from 'mailparser';
import smartsheet from 'smartsheet';
import { clock } from '../../src/clock.ts';
import { serverForFile } from '../helpers/setup.ts';
import { client, allEvents } from '../helpers/http.ts';
import { assertError, makeSheet, makeUser } from '../helpers/sheets.ts';
import { browser, inputValue } from '../helpers/browser.ts';

// Rules run in the job worker and mail lands in the outbox (no SMTP_URL); time-based triggers
// and digests are driven by moving the clock the worker goes by.
const s0 = serverForFile({ SHEETD_JOB_POLL_MS: '30' });
const outbox = () => path.join(s0.t.dataDir, 'outbox');
const seen = new Set<string>();
const realNow = clock.now;
let offset = 0;
clock.now = () => realNow() + offset;
after(() => { clock.now = realNow; });

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

function pending(): string[] {
  return fs.existsSync(outbox()) ? fs.readdirSync(outbox()).filter((f) => f.endsWith('.eml') && !seen.has(f)) : [];
}

/** Waits for `n` new messages in the outbox and parses them (sorted by recipient). */
async function newMail(n: number): Promise<ParsedMail[]> {
  for (let i = 0; i < 300; i++) {
    if (pending().length >= n) {
      await new Promise((r) => setTimeout(r, 200));
      const all = pending();
      all.forEach((f) => seen.add(f));
      assert.equal(all.length, n, `exactly ${n} new messages`);
      const parsed = await Promise.all(all.map(async (f) => simpleParser(fs.readFileSync(path.join(outbox(), f)))));
      return parsed.sort((a, b) => to(a).localeCompare(to(b)));
    }
    await new Promise((r) => setTimeout(r, 30));
  }
  assert.fail(`expected ${n} new messages in the outbox, found ${pending().length}`);
}

async function noNewMail(ms = 600): Promise<void> {
  await new Promise((r) => setTimeout(r, ms));
  const stray = pending();
  stray.forEach((f) => seen.add(f));
  const heads = stray.map((f) => fs.readFileSync(path.join(outbox(), f), 'utf8').split('\n').filter((l) => /^(To|Subject):/.test(l)).join(' '));
  assert.deepEqual(heads, [], 'no message is sent');
}

function to(m: ParsedMail): string {
  const one = Array.isArray(m.to) ? m.to[0] : m.to;
  return (one?.value ?? []).map((x) => x.address).join(',');
}

async function taskSheet(name: string) {
  return makeSheet(s0.api, name, [
    { title: 'Task', type: 'TEXT_NUMBER', primary: true },
    { title: 'Status', type: 'PICKLIST', options: ['New', 'Done'] },
    { title: 'Owner', type: 'CONTACT_LIST' },
    { title: 'Hours', type: 'TEXT_NUMBER' },
    { title: 'Due', type: 'DATE' },
    { title: 'Approval', type: 'PICKLIST', options: ['Pending', 'Approved', 'Declined'] },
  ]);
}

type Sheet = Awaited<ReturnType<typeof taskSheet>>;

async function createRule(sheetId: number, body: Record<string, unknown>, token?: string) {
  return s0.api.post(`/sheetd/sheets/${sheetId}/automationrules`, body, token ? { token } : {});
}

async function addRows(s: Sheet, rows: Array<Record<string, unknown>>): Promise<number[]> {
  const res = await s0.api.post(`/sheets/${s.id}/rows`, rows.map((cells) => ({
    toBottom: true,
    cells: Object.entries(cells).map(([title, value]) => ({ columnId: s.col[title]!.id, value })),
  })));
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.result.map((r: { id: number }) => r.id);
}

async function share(sheetId: number, email: string, accessLevel = 'EDITOR') {
  const r = await s0.api.post(`/sheets/${sheetId}/shares`, { email, accessLevel });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.result[0]?.id ?? r.body.result.id;
}

describe('automation rules: create, list, get, update, delete', () => {
  test('a rule is created through the extension and read back by List and Get (and the SDK) with its action', async () => {
    const s = await taskSheet('Rules CRUD');
    const res = await createRule(s.id, {
      name: 'Tell the team', trigger: { type: 'ROWS_ADDED' },
      action: { type: 'NOTIFICATION_ACTION', recipients: [{ email: 'admin@example.com' }], includedColumnIds: [s.col.Hours!.id], subject: 'New work', message: 'Have a look' },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual([res.body.message, res.body.resultCode], ['SUCCESS', 0]);
    const rule = res.body.result;
    assert.equal(typeof rule.id, 'number');
    assert.equal(rule.name, 'Tell the team');
    assert.equal(rule.enabled, true);
    assert.equal(rule.userCanModify, true);
    assert.equal(rule.disabledReason, undefined);
    assert.deepEqual(rule.action, {
      type: 'NOTIFICATION_ACTION', frequency: 'IMMEDIATELY', recipients: [{ email: 'admin@example.com' }], includeAllColumns: false,
      includedColumnIds: [s.col.Hours!.id], includeAttachments: false, includeDiscussions: false, subject: 'New work', message: 'Have a look',
    });
    assert.match(rule.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.equal(rule.createdBy.email, 'admin@example.com');

    const list = await s0.api.get(`/sheets/${s.id}/automationrules`);
    assert.equal(list.status, 200);
    assert.deepEqual([list.body.pageNumber, list.body.totalPages, list.body.totalCount], [1, 1, 1]);
    assert.deepEqual(list.body.data[0], rule);
    const one = await s0.api.get(`/sheets/${s.id}/automationrules/${rule.id}?numericDates=true`);
    assert.equal(one.status, 200);
    assert.equal(typeof one.body.createdAt, 'number');

    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const sdk: any = smartsheet.createClient({ accessToken: s0.t.adminToken, baseUrl: `${s0.t.base}/`, logLevel: 'error' });
    const viaSdk = await sdk.sheets.getAutomationRule({ sheetId: s.id, automationRuleId: rule.id });
    assert.equal(viaSdk.name, 'Tell the team');
    const listed = await sdk.sheets.listAutomationRules({ sheetId: s.id });
    assert.equal(listed.totalCount, 1);
    const upd = await sdk.sheets.updateAutomationRule({ sheetId: s.id, automationRuleId: rule.id, body: { name: 'Renamed', enabled: false, action: { type: 'NOTIFICATION_ACTION', frequency: 'DAILY' } } });
    assert.equal(upd.result.name, 'Renamed');
    assert.equal(upd.result.enabled, false);
    assert.equal(upd.result.action.frequency, 'DAILY');
    assert.deepEqual(upd.result.action.recipients, [{ email: 'admin@example.com' }], 'attributes not given are kept');
    // a recipient group given replaces the stored one
    const upd2 = await s0.api.put(`/sheets/${s.id}/automationrules/${rule.id}`, { action: { type: 'NOTIFICATION_ACTION', notifyAllSharedUsers: true, includeAllColumns: true } });
    assert.equal(upd2.status, 200, JSON.stringify(upd2.body));
    assert.equal(upd2.body.result.action.recipients, undefined);
    assert.equal(upd2.body.result.action.notifyAllSharedUsers, true);
    assert.equal(upd2.body.result.action.includedColumnIds, undefined);
    const del = await sdk.sheets.deleteAutomationRule({ sheetId: s.id, automationRuleId: rule.id });
    assert.equal(del.message, 'SUCCESS');
    assertError(await s0.api.get(`/sheets/${s.id}/automationrules/${rule.id}`), 404, 1006);
    assert.equal((await s0.api.get(`/sheets/${s.id}/automationrules`)).body.totalCount, 0);
  });

  test('every catalogued error, and a refused request changes nothing', async () => {
    const s = await taskSheet('Rules errors');
    const other = await taskSheet('Rules errors other');
    const notify = { type: 'NOTIFICATION_ACTION', recipients: [{ email: 'admin@example.com' }] };
    const base = { name: 'R', trigger: { type: 'ROWS_ADDED' } };
    assertError(await createRule(s.id, { ...base, action: { ...notify, notifyAllSharedUsers: true } }), 400, 1218);
    assertError(await createRule(s.id, { ...base, action: { type: 'NOTIFICATION_ACTION', recipientColumnIds: [s.col.Owner!.id], recipients: [{ email: 'a@example.com' }] } }), 400, 1218);
    assertError(await createRule(s.id, { ...base, action: { ...notify, includeAllColumns: true, includedColumnIds: [s.col.Hours!.id] } }), 400, 1218);
    const r1221 = await createRule(s.id, { ...base, action: { type: 'NOTIFICATION_ACTION', recipientColumnIds: [s.col.Hours!.id] } });
    assertError(r1221, 400, 1221);
    assert.match(r1221.body.message, new RegExp(String(s.col.Hours!.id)));
    assertError(await createRule(s.id, { ...base, actions: [notify, { ...notify, type: 'UPDATE_REQUEST_ACTION' }] }), 400, 1266);
    assertError(await createRule(s.id, { ...base, action: { recipients: notify.recipients } }), 400, 1012);
    assertError(await createRule(s.id, { ...base, action: { ...notify, type: 'SLACK_ACTION' } }), 400, 1031);
    assertError(await createRule(s.id, { ...base, action: { type: 'NOTIFICATION_ACTION' } }), 400, 1012);
    assertError(await createRule(s.id, { ...base, action: { ...notify, frequency: 'MONTHLY' } }), 400, 1031);
    assertError(await createRule(s.id, { ...base, action: { ...notify, includedColumnIds: [123] } }), 400, 1036);
    assertError(await createRule(s.id, { ...base, action: { ...notify, recipients: [{ email: 'not an address' }] } }), 400, 1156);
    assertError(await createRule(s.id, { name: 'R', action: notify }), 400, 1012);
    assertError(await createRule(s.id, { ...base, trigger: { type: 'WHENEVER' }, action: notify }), 400, 1031);
    assertError(await createRule(s.id, { ...base, trigger: { type: 'DATE_REACHED', columnId: s.col.Hours!.id }, action: notify }), 400, 1031);
    assertError(await createRule(s.id, { ...base, conditions: { criteria: [{ columnId: 5, operator: 'EQUAL', values: ['x'] }] }, action: notify }), 400, 1036);
    assertError(await createRule(s.id, { ...base, action: { ...notify, type: 'APPROVAL_REQUEST_ACTION' } }), 400, 1012);
    assertError(await createRule(s.id, { ...base, action: { ...notify, type: 'APPROVAL_REQUEST_ACTION', approvalColumnId: s.col.Hours!.id } }), 400, 1031);
    assertError(await createRule(s.id, { ...base, action: notify, createdAt: 5 }), 400, 1032);
    assertError(await createRule(999, { ...base, action: notify }), 404, 1006);
    assert.equal((await s0.api.get(`/sheets/${s.id}/automationrules`)).body.totalCount, 0, 'nothing was created');

    const ok = await createRule(s.id, { ...base, action: notify });
    const id = ok.body.result.id;
    const rulePath = `/sheets/${s.id}/automationrules/${id}`;
    assertError(await s0.api.put(rulePath, { action: { type: 'UPDATE_REQUEST_ACTION' } }), 400, 1220);
    assertError(await s0.api.put(rulePath, { name: 'No action' }), 400, 1012);
    assertError(await s0.api.put(rulePath, { action: { type: 'NOTIFICATION_ACTION', recipients: [{ email: 'x@example.com' }], notifyAllSharedUsers: true } }), 400, 1218);
    assertError(await s0.api.put(rulePath, { action: { type: 'NOTIFICATION_ACTION', recipientColumnIds: [s.col.Task!.id] } }), 400, 1221);
    assertError(await s0.api.put(rulePath, { action: { type: 'NOTIFICATION_ACTION' }, actions: [notify, notify] }), 400, 1266);
    assertError(await s0.api.put(`/sheets/${other.id}/automationrules/${id}`, { action: notify }), 404, 1006);
    assertError(await s0.api.del(`/sheets/${other.id}/automationrules/${id}`), 404, 1006);
    assertError(await s0.api.get(`/sheets/${other.id}/automationrules/${id}`), 404, 1006);
    const after = await s0.api.get(rulePath);
    assert.deepEqual(after.body, ok.body.result, 'refused updates changed nothing');
    // a rule read and sent back whole, changed (as the Python SDK's update_automation_rule does):
    // its read-only attributes are left as they are
    const whole = await s0.api.put(rulePath, { ...after.body, name: 'Sent back whole', createdAt: '2001-01-01T00:00:00Z', userCanModify: false });
    assert.equal(whole.status, 200, whole.text);
    assert.equal(whole.body.result.name, 'Sent back whole');
    assert.equal(whole.body.result.createdAt, after.body.createdAt);
    assert.deepEqual(whole.body.result.createdBy, after.body.createdBy);
    assert.equal(whole.body.result.userCanModify, true);
  });

  test('userCanModify: the creator and sheet admins may change a rule; other editors read it; viewers cannot', async () => {
    const s = await taskSheet('Rules permissions');
    const ed = await makeUser(s0.t, s0.api, 'rule-editor@example.com');
    const ed2 = await makeUser(s0.t, s0.api, 'rule-editor2@example.com');
    const viewer = await makeUser(s0.t, s0.api, 'rule-viewer@example.com');
    await share(s.id, 'rule-editor@example.com', 'EDITOR');
    await share(s.id, 'rule-editor2@example.com', 'EDITOR');
    await share(s.id, 'rule-viewer@example.com', 'VIEWER');
    const mine = await createRule(s.id, { name: 'Editor rule', trigger: { type: 'ROWS_ADDED' }, action: { type: 'NOTIFICATION_ACTION', notifyAllSharedUsers: true } }, ed.token);
    assert.equal(mine.status, 200, JSON.stringify(mine.body));
    const id = mine.body.result.id;
    const p = `/sheets/${s.id}/automationrules/${id}`;
    const api2 = client(s0.t.base, ed2.token);
    assert.equal((await api2.get(p)).body.userCanModify, false);
    assert.equal((await s0.api.get(p)).body.userCanModify, true, 'the owner is a sheet admin');
    assert.equal((await client(s0.t.base, ed.token).get(p)).body.userCanModify, true);
    assertError(await api2.put(p, { name: 'Mine now', action: { type: 'NOTIFICATION_ACTION' } }), 403, 1004);
    assertError(await api2.del(p), 403, 1004);
    const v = client(s0.t.base, viewer.token);
    assertError(await v.get(p), 403, 1004);
    assertError(await v.get(`/sheets/${s.id}/automationrules`), 403, 1004);
    assertError(await createRule(s.id, { name: 'Viewer rule', trigger: { type: 'ROWS_ADDED' }, action: { type: 'NOTIFICATION_ACTION', notifyAllSharedUsers: true } }, viewer.token), 403, 1004);
    const stranger = await makeUser(s0.t, s0.api, 'rule-stranger@example.com');
    assertError(await client(s0.t.base, stranger.token).get(p), 404, 1006);
    assert.equal((await client(s0.t.base, ed.token).put(p, { name: 'Still mine', action: { type: 'NOTIFICATION_ACTION' } })).status, 200);
    assert.equal((await s0.api.del(p)).status, 200);
  });

  test('disabledReason follows the sheet: deleted and retyped columns, approval columns, recipients without access', async () => {
    const s = await taskSheet('Rules reasons');
    const ruleOf = async (id: number) => (await s0.api.get(`/sheets/${s.id}/automationrules/${id}`)).body;
    const mk = async (name: string, trigger: Record<string, unknown>, action: Record<string, unknown>) => {
      const r = await createRule(s.id, { name, trigger, action });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(r.body.result.enabled, true);
      return r.body.result.id as number;
    };
    const extra = await s0.api.post(`/sheets/${s.id}/columns`, [{ title: 'Notes', type: 'TEXT_NUMBER', index: 6 }, { title: 'Flag', type: 'TEXT_NUMBER', index: 6 }]);
    assert.equal(extra.status, 200, JSON.stringify(extra.body));
    const [notes, flag] = extra.body.result.map((c: { id: number }) => c.id);
    const byColumn = await mk('On hours', { type: 'COLUMN_CHANGED', columnId: s.col.Hours!.id }, { type: 'NOTIFICATION_ACTION', notifyAllSharedUsers: true });
    const byContacts = await mk('To owners', { type: 'ROWS_ADDED' }, { type: 'NOTIFICATION_ACTION', recipientColumnIds: [s.col.Owner!.id] });
    const selected = await mk('Selected', { type: 'ROWS_ADDED' }, { type: 'NOTIFICATION_ACTION', notifyAllSharedUsers: true, includedColumnIds: [notes, flag] });
    const approval = await mk('Approve', { type: 'ROWS_ADDED' }, { type: 'APPROVAL_REQUEST_ACTION', notifyAllSharedUsers: true, approvalColumnId: s.col.Approval!.id });
    await makeUser(s0.t, s0.api, 'leaver@example.com');
    const shareId = await share(s.id, 'leaver@example.com', 'VIEWER');
    const toLeaver = await mk('To leaver', { type: 'ROWS_ADDED' }, { type: 'NOTIFICATION_ACTION', recipients: [{ email: 'leaver@example.com' }] });

    assert.equal((await s0.api.del(`/sheets/${s.id}/columns/${s.col.Hours!.id}`)).status, 200);
    let r = await ruleOf(byColumn);
    assert.deepEqual([r.enabled, r.disabledReason], [false, 'COLUMN_MISSING']);
    assert.match(r.disabledReasonText, /deleted/);

    assert.equal((await s0.api.put(`/sheets/${s.id}/columns/${s.col.Owner!.id}`, { type: 'TEXT_NUMBER' })).status, 200);
    assert.equal((await ruleOf(byContacts)).disabledReason, 'COLUMN_TYPE_INCOMPATIBLE');

    assert.equal((await s0.api.del(`/sheets/${s.id}/columns/${notes}`)).status, 200);
    assert.equal((await ruleOf(selected)).disabledReason, undefined, 'one selected column is left');
    assert.equal((await s0.api.del(`/sheets/${s.id}/columns/${flag}`)).status, 200);
    assert.equal((await ruleOf(selected)).disabledReason, 'NO_VALID_SELECTED_COLUMNS');

    assert.equal((await s0.api.put(`/sheets/${s.id}/columns/${s.col.Approval!.id}`, { type: 'TEXT_NUMBER' })).status, 200);
    assert.equal((await ruleOf(approval)).disabledReason, 'APPROVAL_COLUMN_WRONG_TYPE');
    assert.equal((await s0.api.del(`/sheets/${s.id}/columns/${s.col.Approval!.id}`)).status, 200);
    assert.equal((await ruleOf(approval)).disabledReason, 'APPROVAL_COLUMN_MISSING');

    assert.equal((await ruleOf(toLeaver)).disabledReason, undefined);
    assert.equal((await s0.api.del(`/sheets/${s.id}/shares/${shareId}`)).status, 200);
    r = await ruleOf(toLeaver);
    assert.deepEqual([r.enabled, r.disabledReason], [false, 'NO_POTENTIAL_RECIPIENTS']);
    // sharing again brings it back
    await share(s.id, 'leaver@example.com', 'VIEWER');
    assert.deepEqual([(await ruleOf(toLeaver)).enabled, (await ruleOf(toLeaver)).disabledReason], [true, undefined]);

    // a disabled rule does not run
    await noNewMail(100);
    await addRows(s, [{ Task: 'after the changes' }]);
    const mail = await newMail(1);
    assert.equal(to(mail[0]!), 'leaver@example.com', 'only the rule that can still run sent mail');
  });
});

describe('automation rules switched off by column changes', () => {
  test('the column write switches the rules it stops off, with an AUTOMATION_RULE UPDATE event naming the reason; they stay off until enabled again', async () => {
    const s = await taskSheet('Rules off');
    const ruleOf = async (id: number) => (await s0.api.get(`/sheets/${s.id}/automationrules/${id}`)).body;
    const mk = async (name: string, trigger: Record<string, unknown>, action: Record<string, unknown>) => {
      const r = await createRule(s.id, { name, trigger, action });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body.result.id as number;
    };
    const extra = await s0.api.post(`/sheets/${s.id}/columns`, [{ title: 'Notes', type: 'TEXT_NUMBER', index: 6 }]);
    const notes = extra.body.result[0].id as number;
    const byColumn = await mk('On hours', { type: 'COLUMN_CHANGED', columnId: s.col.Hours!.id }, { type: 'NOTIFICATION_ACTION', notifyAllSharedUsers: true });
    const byContacts = await mk('To owners', { type: 'ROWS_ADDED' }, { type: 'NOTIFICATION_ACTION', recipientColumnIds: [s.col.Owner!.id] });
    const selected = await mk('Selected', { type: 'ROWS_ADDED' }, { type: 'NOTIFICATION_ACTION', notifyAllSharedUsers: true, includedColumnIds: [notes] });
    const approval = await mk('Approve', { type: 'ROWS_ADDED' }, { type: 'APPROVAL_REQUEST_ACTION', notifyAllSharedUsers: true, approvalColumnId: s.col.Approval!.id });
    const untouched = await mk('Untouched', { type: 'ROWS_ADDED' }, { type: 'NOTIFICATION_ACTION', notifyAllSharedUsers: true });
    const ruleEvents = async () => (await allEvents<{ objectType: string; action: string; objectId: number; additionalDetails: { disabledReason?: string; enabled?: boolean } }>(s0.api))
      .filter((e) => e.objectType === 'AUTOMATION_RULE' && e.action === 'UPDATE' && e.additionalDetails.disabledReason !== undefined);
    const reasonEvent = async (id: number) => (await ruleEvents()).filter((e) => e.objectId === id).map((e) => e.additionalDetails.disabledReason);

    assert.equal((await s0.api.del(`/sheets/${s.id}/columns/${s.col.Hours!.id}`)).status, 200);
    assert.deepEqual(await reasonEvent(byColumn), ['COLUMN_MISSING']);
    assert.equal((await s0.api.put(`/sheets/${s.id}/columns/${s.col.Owner!.id}`, { type: 'TEXT_NUMBER' })).status, 200);
    assert.deepEqual(await reasonEvent(byContacts), ['COLUMN_TYPE_INCOMPATIBLE']);
    assert.equal((await s0.api.put(`/sheets/${s.id}/columns/${s.col.Approval!.id}`, { type: 'TEXT_NUMBER' })).status, 200);
    assert.deepEqual(await reasonEvent(approval), ['APPROVAL_COLUMN_WRONG_TYPE']);
    assert.equal((await s0.api.del(`/sheets/${s.id}/columns/${notes}`)).status, 200);
    assert.deepEqual(await reasonEvent(selected), ['NO_VALID_SELECTED_COLUMNS']);
    // a rule already off records nothing more when the approval column then goes
    assert.equal((await s0.api.del(`/sheets/${s.id}/columns/${s.col.Approval!.id}`)).status, 200);
    assert.deepEqual(await reasonEvent(approval), ['APPROVAL_COLUMN_WRONG_TYPE']);
    assert.equal((await ruleOf(approval)).disabledReason, 'APPROVAL_COLUMN_MISSING');
    assert.deepEqual(await reasonEvent(untouched), []);
    assert.equal((await ruleOf(untouched)).enabled, true);

    // the cause gone (Owner a contact column again), the rule stays off, without a reason, until enabled
    assert.equal((await s0.api.put(`/sheets/${s.id}/columns/${s.col.Owner!.id}`, { type: 'CONTACT_LIST' })).status, 200);
    let r = await ruleOf(byContacts);
    assert.deepEqual([r.enabled, r.disabledReason], [false, undefined]);
    assert.equal((await s0.api.put(`/sheets/${s.id}/automationrules/${byContacts}`, { enabled: true, action: { type: 'NOTIFICATION_ACTION' } })).status, 200);
    r = await ruleOf(byContacts);
    assert.deepEqual([r.enabled, r.disabledReason], [true, undefined]);
  });

  test('an approval column deleted outright: APPROVAL_COLUMN_MISSING', async () => {
    const s = await taskSheet('Approval gone');
    const r = await createRule(s.id, { name: 'Approve', trigger: { type: 'ROWS_ADDED' }, action: { type: 'APPROVAL_REQUEST_ACTION', notifyAllSharedUsers: true, approvalColumnId: s.col.Approval!.id } });
    const id = r.body.result.id as number;
    assert.equal((await s0.api.del(`/sheets/${s.id}/columns/${s.col.Approval!.id}`)).status, 200);
    const events = (await allEvents<{ objectType: string; action: string; objectId: number; additionalDetails: { disabledReason?: string } }>(s0.api)).filter((e) => e.objectType === 'AUTOMATION_RULE' && e.objectId === id && e.action === 'UPDATE');
    assert.deepEqual(events.map((e) => e.additionalDetails.disabledReason), ['APPROVAL_COLUMN_MISSING']);
    const got = (await s0.api.get(`/sheets/${s.id}/automationrules/${id}`)).body;
    assert.deepEqual([got.enabled, got.disabledReason], [false, 'APPROVAL_COLUMN_MISSING']);
    assert.match(got.disabledReasonText, /deleted/);
  });
});

describe('automation rules run', () => {
  test('NOTIFICATION_ACTION IMMEDIATELY: one message per recipient and commit, with the included columns, subject and message; conditions filter rows', async () => {
    const s = await taskSheet('Run notify');
    await makeUser(s0.t, s0.api, 'watcher@example.com');
    await share(s.id, 'watcher@example.com', 'VIEWER');
    const r = await createRule(s.id, {
      name: 'Big tasks', trigger: { type: 'ROWS_ADDED' },
      conditions: { operator: 'AND', criteria: [{ columnId: s.col.Hours!.id, operator: 'GREATER_THAN', values: ['10'] }] },
      action: { type: 'NOTIFICATION_ACTION', recipients: [{ email: 'watcher@example.com' }, { email: 'admin@example.com' }], includedColumnIds: [s.col.Task!.id, s.col.Hours!.id], subject: 'Big work arrived', message: 'Please plan it.' },
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    await addRows(s, [{ Task: 'Design', Hours: 12, Status: 'New' }, { Task: 'Tiny', Hours: 1 }, { Task: 'Build', Hours: 30 }]);
    const mail = await newMail(2);
    assert.deepEqual(mail.map(to), ['admin@example.com', 'watcher@example.com']);
    for (const m of mail) {
      assert.equal(m.subject, 'Big work arrived');
      assert.match(m.text!, /Please plan it\./);
      assert.match(m.text!, /Design \| 12/);
      assert.match(m.text!, /Build \| 30/);
      assert.doesNotMatch(m.text!, /Tiny/, 'the row that fails the conditions is left out');
      assert.doesNotMatch(m.text!, /New/, 'a column not included is left out');
      assert.match(m.html as string, /<td[^>]*>Design<\/td>/);
    }
    // the firing is in the change log
    const events = await allEvents<{ objectType: string; action: string; objectId: number }>(s0.api);
    assert.ok(events.some((e) => e.objectType === 'AUTOMATION_RULE' && e.action === 'RUN' && e.objectId === r.body.result.id));
  });

  test('COLUMN_CHANGED to a value mails the contacts of the row (recipientColumnIds), with attachments and discussions; other changes do not', async () => {
    const s = await taskSheet('Run contacts');
    await makeUser(s0.t, s0.api, 'owner1@example.com');
    await makeUser(s0.t, s0.api, 'owner2@example.com');
    await share(s.id, 'owner1@example.com', 'EDITOR');
    await share(s.id, 'owner2@example.com', 'EDITOR');
    const [a, b] = await addRows(s, [{ Task: 'Alpha', Owner: 'owner1@example.com', Status: 'New' }, { Task: 'Beta', Owner: 'owner2@example.com', Status: 'New' }]);
    const d = await s0.api.post(`/sheets/${s.id}/rows/${a}/discussions`, { comment: { text: 'Looks good to me' } });
    assert.equal(d.status, 200, JSON.stringify(d.body));
    const up = await fetch(`${s0.t.base}/sheets/${s.id}/rows/${a}/attachments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${s0.t.adminToken}`, 'content-type': 'text/plain', 'content-disposition': 'attachment; filename="notes.txt"' },
      body: 'the notes',
    });
    assert.equal(up.status, 200);
    const r = await createRule(s.id, {
      name: 'Done', trigger: { type: 'COLUMN_CHANGED', columnId: s.col.Status!.id, when: { operator: 'EQUAL', values: ['Done'] } },
      action: { type: 'NOTIFICATION_ACTION', recipientColumnIds: [s.col.Owner!.id], includeDiscussions: true, includeAttachments: true },
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const upd = (cells: Array<[number | undefined, string]>) => s0.api.put(`/sheets/${s.id}/rows`, cells.map(([id, v]) => ({ id: id!, cells: [{ columnId: s.col.Status!.id, value: v }] })));
    assert.equal((await s0.api.put(`/sheets/${s.id}/rows`, [{ id: b, cells: [{ columnId: s.col.Hours!.id, value: 3 }] }])).status, 200);
    await noNewMail(400);
    assert.equal((await upd([[a, 'Done'], [b, 'New']])).status, 200);
    const [m] = await newMail(1);
    assert.equal(to(m!), 'owner1@example.com', 'only the row that changed to Done; its contact');
    assert.match(m!.text!, /Alpha/);
    assert.match(m!.text!, /Looks good to me/);
    assert.deepEqual(m!.attachments.map((x) => [x.filename, x.content.toString()]), [['notes.txt', 'the notes']]);
    assert.doesNotMatch(m!.text!, /Beta/);
    // writing the same value again is no change
    assert.equal((await upd([[a, 'Done']])).status, 200);
    await noNewMail(400);
  });

  test('a DAILY digest collects rows until the clock reaches the next day, each row once', async () => {
    const s = await taskSheet('Run digest');
    const r = await createRule(s.id, { name: 'Daily digest', trigger: { type: 'ROWS_CHANGED', columnIds: [s.col.Hours!.id] }, action: { type: 'NOTIFICATION_ACTION', notifyAllSharedUsers: true, frequency: 'DAILY' } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const [x, y] = await addRows(s, [{ Task: 'Xray', Hours: 1 }, { Task: 'Yankee', Hours: 2 }]);
    await s0.api.put(`/sheets/${s.id}/rows`, [{ id: x, cells: [{ columnId: s.col.Hours!.id, value: 5 }] }]);
    await s0.api.put(`/sheets/${s.id}/rows`, [{ id: y, cells: [{ columnId: s.col.Hours!.id, value: 6 }] }]);
    await s0.api.put(`/sheets/${s.id}/rows`, [{ id: x, cells: [{ columnId: s.col.Hours!.id, value: 7 }] }]);
    await noNewMail(500);
    offset += DAY;
    const [m] = await newMail(1);
    assert.equal(to(m!), 'admin@example.com');
    assert.match(m!.text!, /Xray \| [^\n]*7/);
    assert.match(m!.text!, /Yankee \| [^\n]*6/);
    assert.match(m!.subject!, /2 rows/, 'a row changed twice is listed once');
    offset += DAY;
    await noNewMail(300);
  });

  /** A task sheet shared with `approver`, whose rule asks them to approve rows on `trigger`. */
  async function approvalSheet(name: string, approver: string, trigger: string) {
    const s = await taskSheet(name);
    await makeUser(s0.t, s0.api, approver);
    await share(s.id, approver, 'VIEWER');
    const r = await createRule(s.id, {
      name: `Approve (${name})`, trigger: { type: trigger },
      action: { type: 'APPROVAL_REQUEST_ACTION', recipients: [{ email: approver }], approvalColumnId: s.col.Approval!.id },
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return s;
  }

  test('APPROVAL_REQUEST_ACTION mails signed links; the page decides once and sets the approval column; the rule does not fire on its own write', async () => {
    const s = await approvalSheet('Run approval', 'approver@example.com', 'ROWS_CHANGED');
    const [row] = await addRows(s, [{ Task: 'Purchase', Hours: 4 }]);
    assert.equal((await s0.api.put(`/sheets/${s.id}/rows`, [{ id: row, cells: [{ columnId: s.col.Hours!.id, value: 8 }] }])).status, 200);
    const [m] = await newMail(1);
    assert.equal(to(m!), 'approver@example.com');
    assert.match(m!.subject!, /Approval request/);
    const link = /Approve: (\S+)\?decision=APPROVED/.exec(m!.text!)?.[1];
    assert.ok(link, m!.text);
    assert.match(m!.text!, /Decline: \S+\?decision=DECLINED/);
    const url = new URL(link);
    const rel = url.pathname.replace(/^\/2\.0/, '');
    const anon = client(s0.t.base, '');
    // a page that only shows (mail scanners open links) and a button that decides
    const page = await anon.get(`${rel}?decision=APPROVED`, { token: null, headers: { accept: 'text/html' } });
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type')!, /text\/html/);
    assert.match(page.text, /Purchase/);
    assert.match(page.text, /<form method="post"/);
    const before = await s0.api.get(`/sheets/${s.id}/rows/${row}`);
    assert.equal(before.body.cells.find((c: { columnId: number }) => c.columnId === s.col.Approval!.id).value, undefined);
    assertError(await anon.get(`${rel}x`, { token: null }), 404, 1006);
    assertError(await anon.post(rel.replace(/\.[^.]+$/, '.' + 'A'.repeat(43)), { decision: 'APPROVED' }, { token: null }), 404, 1006);
    assertError(await anon.post(rel, { decision: 'MAYBE' }, { token: null }), 400, 1018);
    const form = await anon.call('POST', rel, { token: null, raw: 'decision=APPROVED', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' } });
    assert.equal(form.status, 200, form.text);
    assert.match(form.text, /Approved by approver@example\.com/);
    const cell = (await s0.api.get(`/sheets/${s.id}/rows/${row}`)).body.cells.find((c: { columnId: number }) => c.columnId === s.col.Approval!.id);
    assert.equal(cell.value, 'Approved');
    // decided once: a later answer changes nothing
    const again = await anon.post(rel, { decision: 'DECLINED' }, { token: null });
    assert.equal(again.status, 200);
    assert.equal(again.body.decision, 'APPROVED');
    assert.equal((await s0.api.get(`/sheets/${s.id}/rows/${row}`)).body.cells.find((c: { columnId: number }) => c.columnId === s.col.Approval!.id).value, 'Approved');
    await noNewMail(600);
  });

  test('APPROVAL_REQUEST_ACTION: Approve and Decline sent at once decide once; every answer and the approval column agree', async () => {
    const s = await approvalSheet('Run approval race', 'racer@example.com', 'ROWS_ADDED');
    const [row] = await addRows(s, [{ Task: 'Race me' }]);
    const [m] = await newMail(1);
    const link = /Approve: (\S+)\?decision=APPROVED/.exec(m!.text!)?.[1];
    assert.ok(link, m!.text);
    const rel = new URL(link).pathname.replace(/^\/2\.0/, '');
    const anon = client(s0.t.base, '');
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => anon.post(rel, { decision: i % 2 ? 'DECLINED' : 'APPROVED' }, { token: null })));
    for (const a of answers) assert.equal(a.status, 200, a.text);
    const decided = new Set(answers.map((a) => a.body.decision as string));
    assert.equal(decided.size, 1, JSON.stringify(answers.map((a) => a.body)));
    const [decision] = [...decided];
    const cell = (await s0.api.get(`/sheets/${s.id}/rows/${row}`)).body.cells.find((c: { columnId: number }) => c.columnId === s.col.Approval!.id);
    assert.equal(cell.value, decision === 'APPROVED' ? 'Approved' : 'Declined');
    await noNewMail(300);
  });

  test('UPDATE_REQUEST_ACTION sends a real update request: the link\'s page edits the rule\'s columns of the row and completes its sent update request', async () => {
    const s = await taskSheet('Run update request');
    const r = await createRule(s.id, { name: 'Please update', trigger: { type: 'ROWS_ADDED' }, action: { type: 'UPDATE_REQUEST_ACTION', notifyAllSharedUsers: true, includeAllColumns: false, includedColumnIds: [s.col.Task!.id, s.col.Hours!.id], message: 'Fill in the hours.' } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const [row] = await addRows(s, [{ Task: 'Estimate me' }]);
    const [m] = await newMail(1);
    assert.equal(to(m!), 'admin@example.com');
    assert.match(m!.subject!, /Update request/);
    assert.match(m!.text!, /asks you to update a row of the sheet "Run update request"/);
    assert.match(m!.text!, /Fill in the hours\./);
    assert.match(m!.text!, /Estimate me/);
    const link = /Update the rows: (\S+)/.exec(m!.text!)?.[1];
    assert.ok(link, m!.text);
    const sent = (await s0.api.get(`/sheets/${s.id}/sentupdaterequests`)).body.data;
    assert.equal(sent.length, 1);
    assert.equal(sent[0].status, 'PENDING');
    assert.equal(sent[0].updateRequestId, undefined, 'sent by a rule, not by an update request');
    const b = browser(s0.t.url);
    const pg = await b.get(new URL(link).pathname);
    assert.equal(pg.status, 200, pg.text);
    assert.equal(inputValue(pg.text, `c.${row}.${s.col.Hours!.id}`), '');
    assert.doesNotMatch(pg.text, /name="c\.\d+\.\d+"[^>]*>\s*<label[^>]*>Due/, 'only the rule\'s columns');
    const done = await b.post(new URL(link).pathname, { _csrf: inputValue(pg.text, '_csrf'), [`c.${row}.${s.col.Hours!.id}`]: '8' });
    assert.equal(done.status, 200, done.text);
    const got = await s0.api.get(`/sheets/${s.id}/rows/${row}`);
    assert.equal(got.body.cells.find((c: { columnId: number }) => c.columnId === s.col.Hours!.id).value, 8);
    assert.equal((await s0.api.get(`/sheets/${s.id}/sentupdaterequests/${sent[0].id}`)).body.status, 'COMPLETE');
    await noNewMail(400);
  });

  test('an HOURLY digest collects rows until the clock reaches the next hour', async () => {
    const s = await taskSheet('Run hourly digest');
    const r = await createRule(s.id, { name: 'Hourly digest', trigger: { type: 'ROWS_ADDED' }, action: { type: 'NOTIFICATION_ACTION', notifyAllSharedUsers: true, frequency: 'HOURLY' } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    await addRows(s, [{ Task: 'Alpha' }]);
    await addRows(s, [{ Task: 'Bravo' }]);
    await noNewMail(500);
    offset += HOUR;
    const [m] = await newMail(1);
    assert.match(m!.text!, /Alpha/);
    assert.match(m!.text!, /Bravo/);
    assert.match(m!.subject!, /2 rows/);
    await addRows(s, [{ Task: 'Charlie' }]);
    await noNewMail(400);
    offset += HOUR;
    const [m2] = await newMail(1);
    assert.match(m2!.text!, /Charlie/);
    assert.doesNotMatch(m2!.text!, /Alpha/, 'a row is in one digest');
  });

  test('a WEEKLY digest waits for the next Monday', async () => {
    const s = await taskSheet('Run weekly digest');
    const r = await createRule(s.id, { name: 'Weekly digest', trigger: { type: 'ROWS_ADDED' }, action: { type: 'NOTIFICATION_ACTION', notifyAllSharedUsers: true, frequency: 'WEEKLY' } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    await addRows(s, [{ Task: 'Weekly one' }]);
    const now = clock.now();
    const untilMonday = (() => {
      const d = new Date(now);
      const days = ((8 - d.getUTCDay()) % 7) || 7;
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + days) - now;
    })();
    // a day before the Monday: nothing yet (unless Monday is tomorrow: then half of the wait)
    offset += untilMonday > DAY ? untilMonday - DAY : Math.floor(untilMonday / 2);
    await noNewMail(500);
    offset += clock.now() < now + untilMonday ? now + untilMonday - clock.now() + 60_000 : 60_000;
    const [m] = await newMail(1);
    assert.match(m!.text!, /Weekly one/);
    assert.match(m!.subject!, /a row/);
  });

  test('DATE_REACHED and SCHEDULE fire when the clock gets there, once per firing', async () => {
    const s = await taskSheet('Run timers');
    const now = clock.now();
    const tomorrow = new Date(now + DAY).toISOString().slice(0, 10);
    await addRows(s, [{ Task: 'Due tomorrow', Due: tomorrow }, { Task: 'Due later', Due: new Date(now + 5 * DAY).toISOString().slice(0, 10) }]);
    const hhmm = new Date(now + HOUR).toISOString().slice(11, 16);
    const r1 = await createRule(s.id, { name: 'Reminder', trigger: { type: 'DATE_REACHED', columnId: s.col.Due!.id, offsetDays: -1, time: hhmm }, action: { type: 'NOTIFICATION_ACTION', notifyAllSharedUsers: true, subject: 'Due soon' } });
    assert.equal(r1.status, 200, JSON.stringify(r1.body));
    const start = new Date(now + 2 * HOUR).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const r2 = await createRule(s.id, { name: 'Weekly', trigger: { type: 'SCHEDULE', startAt: start, repeat: 'WEEKLY' }, conditions: { criteria: [{ columnId: s.col.Task!.id, operator: 'CONTAINS', values: ['later'] }] }, action: { type: 'NOTIFICATION_ACTION', notifyAllSharedUsers: true, subject: 'Weekly' } });
    assert.equal(r2.status, 200, JSON.stringify(r2.body));
    assert.equal(r2.body.result.trigger.startAt, start);
    await noNewMail(300);
    offset += HOUR + 60_000;
    const [m1] = await newMail(1);
    assert.equal(m1!.subject, 'Due soon');
    assert.match(m1!.text!, /Due tomorrow/);
    assert.doesNotMatch(m1!.text!, /Due later/);
    offset += HOUR;
    const [m2] = await newMail(1);
    assert.equal(m2!.subject, 'Weekly');
    assert.match(m2!.text!, /Due later/);
    assert.doesNotMatch(m2!.text!, /Due tomorrow/);
    await noNewMail(300);
  });
});
