import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import smartsheet from 'smartsheet';
import { startSuiteServer, type TestServer } from '../helpers/server.ts';

// The official JavaScript SDK, unchanged but for the base URL.
let t: TestServer;
before(async () => {
  t = await startSuiteServer();
});
after(() => t.close());

function sdk(accessToken: string) {
  return smartsheet.createClient({ accessToken, baseUrl: t.base + '/', logLevel: 'error' });
}

test('Get Current User through the SDK', async () => {
  const me = await sdk(t.adminToken).users.getCurrentUser({});
  assert.equal(me.email, t.config.adminEmail);
  assert.equal(me.admin, true);
  assert.equal(typeof me.id, 'number');
  assert.equal(typeof me.account.id, 'number');
});

test('Server Info through the SDK', async () => {
  const info = await sdk(t.adminToken).server.getInfo();
  assert.deepEqual(info.formats.bold, ['none', 'on']);
  assert.equal(info.formats.color.length, 42);
  assert.ok(Array.isArray(info.supportedLocales));
});

test('SDK sees the Error object of a refused token', async () => {
  await assert.rejects(sdk('invalidtoken00000000000000000000000000').users.getCurrentUser({}), (e: { statusCode?: number; errorCode?: number; message?: string; refId?: string }) => {
    assert.equal(e.statusCode, 401);
    assert.equal(e.errorCode, 1002);
    assert.equal(typeof e.message, 'string');
    assert.equal(typeof e.refId, 'string');
    return true;
  });
});

test('List and Add Users through the SDK', async () => {
  const c = sdk(t.adminToken);
  // the SDK's typings ask for fields a client need not send; the body is what clients send
  const body = { email: 'sdk.user@example.org', firstName: 'Sdk', lastName: 'User' } as unknown as Parameters<typeof c.users.addUser>[0]['body'];
  const added = await c.users.addUser({ body });
  assert.equal(added.message, 'SUCCESS');
  assert.equal(added.result.email, 'sdk.user@example.org');
  const list = await c.users.listAllUsers({ queryParameters: { email: 'sdk.user@example.org' } });
  assert.equal(list.totalCount, 1);
  assert.equal(list.data?.[0]?.id, added.result.id);
});
