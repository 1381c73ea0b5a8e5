import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { startSuiteServer, type TestServer } from '../helpers/server.ts';
import { CHROMIUM, launchChromium } from '../helpers/chromium.ts';
import { createApp } from '../../src/services/identity/oauth.ts';
import { setPassword } from '../../src/services/identity/sessions.ts';
import type { EventAuthor } from '../../src/services/log/events.ts';

/**
 * The three-legged OAuth flow in a real browser: Debian's chromium driven by playwright-core
 * signs in on sheetd's page and consents; the test, as the app, exchanges the code and calls
 * the API. .ci/run installs chromium; elsewhere the test is skipped when no browser is found
 * (SHEETD_CHROMIUM names another binary).
 */
const REDIRECT = 'https://app.example.test/callback';
const PASSWORD = 'a browser test password';

let t: TestServer;
let browser: Browser | undefined;
let app: { clientId: string; clientSecret: string };

before(async () => {
  if (!CHROMIUM) return;
  t = await startSuiteServer();
  const author: EventAuthor = { orgId: t.server.bootstrap.orgId, userId: null, requestUserId: null, accessTokenName: null, source: 'TEST' };
  await setPassword(t.server.store, author, 'admin@example.com', PASSWORD);
  const made = await createApp(t.server.store, author, null, { name: 'Browser Robot', redirectUrl: REDIRECT });
  app = { clientId: made.app.client_id, clientSecret: made.clientSecret };
  // playwright gives every launch a new empty profile of its own
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await t?.close();
});

test('sign in, consent, and the app exchanges the code and calls the API with the token', { skip: CHROMIUM ? false : 'no chromium on this machine' }, async () => {
  const page = await browser!.newPage();
  // the app's redirect URL: the browser lands there with the code (nothing real answers it)
  let landed: URL | undefined;
  await page.route(`${REDIRECT}**`, async (route) => {
    landed = new URL(route.request().url());
    await route.fulfill({ status: 200, contentType: 'text/html', body: '<p>the app got the code</p>' });
  });
  await page.goto(`${t.url}/b/authorize?client_id=${app.clientId}&response_type=code&scope=READ_SHEETS%20CREATE_SHEETS&state=st-42`);

  // not signed in: the sign-in page first
  await page.getByLabel('Email address').fill('admin@example.com');
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();

  // the consent page names the app and the scopes in words
  await page.getByRole('button', { name: 'Allow' }).waitFor();
  const consent = await page.textContent('body');
  assert.match(consent ?? '', /Browser Robot/);
  await page.getByRole('button', { name: 'Allow' }).click();
  await page.waitForURL(`${REDIRECT}**`);
  assert.ok(landed, 'the browser was sent to the app');
  assert.equal(landed.searchParams.get('state'), 'st-42');
  const code = landed.searchParams.get('code');
  assert.ok(code);

  // the app, server to server: the code for tokens, then an API call within the scopes
  const hash = createHash('sha256').update(`${app.clientSecret}|${code}`).digest('hex');
  const tok = await fetch(`${t.base}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', client_id: app.clientId, code, hash }).toString(),
  });
  assert.equal(tok.status, 200);
  const tokens = await tok.json() as { access_token: string; token_type: string; expires_in: number };
  assert.equal(tokens.token_type, 'bearer');
  const me = await fetch(`${t.base}/users/me`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
  assert.equal(me.status, 200);
  assert.equal(((await me.json()) as { email: string }).email, 'admin@example.com');
  const sheets = await fetch(`${t.base}/sheets`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
  assert.equal(sheets.status, 200, 'READ_SHEETS was granted');
  const users = await fetch(`${t.base}/users`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
  assert.equal(users.status, 403, 'READ_USERS was not');
  await page.close();
});
