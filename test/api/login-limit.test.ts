import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startSuiteServer, type TestServer } from '../helpers/server.ts';
import { browser, signIn } from '../helpers/browser.ts';
import { setPassword } from '../../src/services/identity/sessions.ts';
import { createUser } from '../../src/services/identity/users.ts';
import { clock } from '../../src/clock.ts';

let t: TestServer;
const PASSWORD = 'a long enough password';

before(async () => {
  t = await startSuiteServer({ SHEETD_LOGIN_RATE_LIMIT: '100', SHEETD_LOGIN_RATE_LIMIT_ADDRESS: '3' });
  const store = t.server.store;
  const org = await store.db.selectFrom('orgs').select('id').executeTakeFirstOrThrow();
  const author = { orgId: org.id, userId: null, requestUserId: null, accessTokenName: null, source: 'TEST' };
  for (const email of ['u1@example.test', 'u2@example.test']) {
    await store.db.transaction().execute((tx) => createUser(tx, author, org.id, { email, firstName: null, lastName: null, admin: false, licensedSheetCreator: false }));
    await setPassword(store, author, email, PASSWORD);
  }
});
after(() => t.close());

test('failed sign-ins are limited per client address, across accounts; successes do not count', async (tt) => {
  // the limit's window is a minute: hold the clock inside one
  const real = clock.now;
  const at = Math.floor(real() / 60_000) * 60_000 + 1_000;
  clock.now = () => at;
  tt.after(() => (clock.now = real));
  assert.equal((await signIn(browser(t.url), 'u1@example.test', PASSWORD)).status, 303);
  assert.equal((await signIn(browser(t.url), 'u1@example.test', PASSWORD)).status, 303);
  const statuses = [];
  for (const email of ['u1@example.test', 'u2@example.test', 'nobody@example.test']) statuses.push((await signIn(browser(t.url), email, 'wrong password')).status);
  assert.deepEqual(statuses, [401, 401, 401]);
  const blocked = await signIn(browser(t.url), 'u2@example.test', PASSWORD);
  assert.equal(blocked.status, 429);
  assert.match(blocked.text, /Too many failed sign-in attempts/);
  assert.ok(Number(blocked.headers.get('retry-after')) >= 1);
});
