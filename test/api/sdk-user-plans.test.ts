import { test } from 'node:test';
import assert from 'node:assert/strict';
import smartsheet from 'smartsheet';
import { serverForFile } from '../helpers/setup.ts';
import { makeSheet, makeUser } from '../helpers/sheets.ts';
import { client } from '../helpers/http.ts';

// User plans through the SDK's own methods: a sheetd organization is one plan (its id is the
// organization's), a user's seat type follows their license.
const s = serverForFile();
const sdk = (token: string) => smartsheet.createClient({ accessToken: token, baseUrl: `${s.t.base}/`, logLevel: 'error' });
const failsWith = (status: number, code: number) => (e: { statusCode?: number; errorCode?: number }) => {
  assert.equal(e.statusCode, status, JSON.stringify(e));
  assert.equal(e.errorCode, code, JSON.stringify(e));
  return true;
};

test('listUserPlans, upgradeUser, downgradeUser over the organization\'s one plan', async () => {
  const c = sdk(s.t.adminToken);
  const u = await makeUser(s.t, s.api, 'plans-user@example.org');
  const org = (await s.api.get('/users/me')).body.account as { id: number; name: string };
  const plans = await c.users.listUserPlans({ userId: u.id });
  assert.deepEqual(plans, { data: [{ planId: org.id, seatType: 'MEMBER', isInternal: true }] });
  const named = await c.users.listUserPlans({ userId: u.id, queryParameters: { include: ['planName' as never] } });
  assert.equal(named.data[0]!.planName, org.name);

  const down = await c.users.downgradeUser({ userId: u.id, planId: org.id, body: { seatType: 'VIEWER' as never } });
  assert.equal(down.resultCode, 0);
  assert.equal((await c.users.listUserPlans({ userId: u.id })).data[0]!.seatType, 'VIEWER');
  assert.equal((await c.users.listUserPlans({ userId: u.id, queryParameters: { displayContributorSeatType: true } })).data[0]!.seatType, 'CONTRIBUTOR');
  assert.equal((await s.api.get(`/users/${u.id}`)).body.licensedSheetCreator, false);
  // the same seat type again is no error
  await c.users.downgradeUser({ userId: u.id, planId: org.id, body: { seatType: 'VIEWER' as never } });

  const up = await c.users.upgradeUser({ userId: u.id, planId: org.id, body: { seatType: 'MEMBER' as never } });
  assert.equal(up.resultCode, 0);
  assert.equal((await c.users.listUserPlans({ userId: u.id })).data[0]!.seatType, 'MEMBER');
  assert.equal((await s.api.get(`/users/${u.id}`)).body.licensedSheetCreator, true);
  await c.users.upgradeUser({ userId: u.id, planId: org.id, body: { seatType: 'MEMBER' as never } });

  // a user who owns sheets keeps the license (1076); a system admin stays a member (1031)
  await makeSheet(client(s.t.base, u.token), 'plans owned', [{ title: 'A', type: 'TEXT_NUMBER', primary: true }]);
  await assert.rejects(c.users.downgradeUser({ userId: u.id, planId: org.id, body: { seatType: 'VIEWER' as never } }), failsWith(403, 1076));
  const me = (await s.api.get('/users/me')).body.id as number;
  await assert.rejects(c.users.downgradeUser({ userId: me, planId: org.id, body: { seatType: 'VIEWER' as never } }), failsWith(400, 1031));
  assert.equal((await c.users.listUserPlans({ userId: u.id })).data[0]!.seatType, 'MEMBER');
});

test('what does not apply to a sheetd organization: the catalogue\'s errors, nothing changed', async () => {
  const c = sdk(s.t.adminToken);
  const u = await makeUser(s.t, s.api, 'plans-other@example.org');
  const org = (await s.api.get('/users/me')).body.account as { id: number };
  // no external users (GUEST), no provisional members
  await assert.rejects(c.users.upgradeUser({ userId: u.id, planId: org.id, body: { seatType: 'GUEST' as never } }), failsWith(400, 1031));
  await assert.rejects(c.users.upgradeUser({ userId: u.id, planId: org.id, body: { seatType: 'PROVISIONAL_MEMBER' as never } }), failsWith(400, 1031));
  await assert.rejects(c.users.downgradeUser({ userId: u.id, planId: org.id, body: { seatType: 'GUEST' as never } }), failsWith(400, 1031));
  await assert.rejects(c.users.downgradeUser({ userId: u.id, planId: org.id, body: {} as never }), failsWith(400, 1012));
  // no other plan; leaving the only plan is leaving the organization (Remove User)
  await assert.rejects(c.users.upgradeUser({ userId: u.id, planId: org.id + 1, body: { seatType: 'MEMBER' as never } }), failsWith(404, 1006));
  await assert.rejects(c.users.removeUserFromPlan({ userId: u.id, planId: org.id }), failsWith(403, 1013));
  await assert.rejects(c.users.listUserPlans({ userId: 12345 }), failsWith(404, 1020));
  await assert.rejects(c.users.listUserPlans({ userId: u.id, queryParameters: { include: 'seats' } }), failsWith(400, 1018));
  // system admins only
  await assert.rejects(sdk(u.token).users.listUserPlans({ userId: u.id }), failsWith(403, 1004));
  await assert.rejects(sdk(u.token).users.downgradeUser({ userId: u.id, planId: org.id, body: { seatType: 'VIEWER' as never } }), failsWith(403, 1004));
  assert.deepEqual((await c.users.listUserPlans({ userId: u.id })).data.map((p) => p.seatType), ['MEMBER']);
  assert.equal((await s.api.get(`/users/${u.id}`)).body.status, 'ACTIVE');
});
