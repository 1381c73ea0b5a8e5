import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startSuiteServer, type TestServer } from '../helpers/server.ts';
import { browser, signIn } from '../helpers/browser.ts';
import { assertError, client } from '../helpers/http.ts';
import { makeUser } from '../helpers/sheets.ts';
import { setPassword } from '../../src/services/identity/sessions.ts';
import type { EventAuthor } from '../../src/services/log/events.ts';

/**
 * The web app calls the API with the page's session: the session cookie and the CSRF token the
 * page carries in <meta name="sheetd-csrf">. Without the token (what another site could make the
 * browser send) the cookie is no authentication; API tokens keep working beside it.
 */
const PASSWORD = 'a web app test password';
let t: TestServer;

before(async () => {
  t = await startSuiteServer();
  const author: EventAuthor = { orgId: t.server.bootstrap.orgId, userId: null, requestUserId: null, accessTokenName: null, source: 'TEST' };
  await setPassword(t.server.store, author, 'admin@example.com', PASSWORD);
});
after(async () => t?.close());

function metaCsrf(html: string): string {
  const m = /<meta name="sheetd-csrf" content="([^"]+)">/.exec(html);
  assert.ok(m, 'the page carries the API CSRF token');
  return m[1]!;
}

test('the page session with its CSRF token calls the API; the cookie alone does not', async () => {
  const b = browser(t.url);
  assert.equal((await signIn(b, 'admin@example.com', PASSWORD)).status, 303);
  const home = await b.get('/');
  assert.equal(home.status, 200);
  const token = metaCsrf(home.text);
  assert.doesNotMatch(home.text, new RegExp(t.adminToken), 'no API token in the page');
  const cookie = [...b.jar].map(([k, v]) => `${k}=${v}`).join('; ');

  const me = await fetch(`${t.base}/users/me`, { headers: { cookie, 'x-csrf-token': token } });
  assert.equal(me.status, 200);
  assert.equal(((await me.json()) as { email: string }).email, 'admin@example.com');

  // a write through the session records the web app as its source, with no token name
  const made = await fetch(`${t.base}/sheets`, { method: 'POST', headers: { cookie, 'x-csrf-token': token, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'From the page', columns: [{ title: 'A', type: 'TEXT_NUMBER', primary: true }] }) });
  assert.equal(made.status, 200);

  const bare = await fetch(`${t.base}/users/me`, { headers: { cookie } });
  assert.equal(bare.status, 401);
  assert.equal(((await bare.json()) as { errorCode: number }).errorCode, 1001);

  const wrong = await fetch(`${t.base}/users/me`, { headers: { cookie, 'x-csrf-token': token.replace(/^./, (c) => (c === 'a' ? 'b' : 'a')) } });
  assert.equal(wrong.status, 401);
  assert.equal(((await wrong.json()) as { errorCode: number }).errorCode, 1002);

  // another person's session does not take this token
  const other = browser(t.url);
  await signIn(other, 'admin@example.com', PASSWORD);
  const otherCookie = [...other.jar].map(([k, v]) => `${k}=${v}`).join('; ');
  assert.equal((await fetch(`${t.base}/users/me`, { headers: { cookie: otherCookie, 'x-csrf-token': token } })).status, 401);

  // an API token still works, with or without a cookie beside it
  assert.equal((await fetch(`${t.base}/users/me`, { headers: { authorization: `Bearer ${t.adminToken}`, cookie } })).status, 200);

  // after sign-out the token is worth nothing
  const out = await fetch(`${t.url}/logout`, { method: 'POST', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: `_csrf=${encodeURIComponent(/name="_csrf" value="([^"]+)"/.exec(home.text)![1]!)}`, redirect: 'manual' });
  assert.equal(out.status, 303);
  assert.equal((await fetch(`${t.base}/users/me`, { headers: { cookie, 'x-csrf-token': token } })).status, 401);
});

test('the app bundle is served with content-hashed names and a long cache lifetime', async () => {
  const b = browser(t.url);
  await signIn(b, 'admin@example.com', PASSWORD);
  const home = await b.get('/');
  const src = /<script type="module" src="(\/assets\/home-[A-Z0-9]+\.js)"><\/script>/.exec(home.text);
  assert.ok(src, home.text);
  const js = await fetch(t.url + src[1]);
  assert.equal(js.status, 200);
  assert.match(js.headers.get('content-type') ?? '', /javascript/);
  assert.match(js.headers.get('cache-control') ?? '', /max-age=31536000/);
  assert.match(js.headers.get('cache-control') ?? '', /immutable/);
  assert.ok((await js.text()).length > 100);
  assert.equal((await fetch(`${t.url}/assets/manifest.json`)).status, 404);
  // signed out, a sheet page asks to sign in first
  const anon = browser(t.url);
  const sheetPage = await anon.get('/sheets/123');
  assert.equal(sheetPage.status, 303);
  assert.equal(sheetPage.location, '/login?next=%2Fsheets%2F123');
});

test('signing in to the web app sets the user\'s lastLogin (include=lastLogin, admins); API calls do not', async () => {
  const api = async (path: string) => {
    const r = await fetch(`${t.base}${path}`, { headers: { authorization: `Bearer ${t.adminToken}` } });
    assert.equal(r.status, 200, path);
    return (await r.json()) as Record<string, unknown>;
  };
  const me = await api('/users/me');
  const lastLogin = async () => ((await api(`/users?email=admin%40example.com&include=lastLogin&numericDates=true`)).data as Array<{ lastLogin?: number }>)[0]!.lastLogin;
  const before = await lastLogin();
  const from = Date.now();
  const b = browser(t.url);
  assert.equal((await signIn(b, 'admin@example.com', PASSWORD)).status, 303);
  const signedIn = await lastLogin();
  assert.ok(signedIn !== undefined && signedIn >= from - 1000 && signedIn <= Date.now() + 1000, `lastLogin ${signedIn} is this sign-in (before: ${before})`);
  assert.equal((await api(`/users/${me.id}?include=lastLogin&numericDates=true`)).lastLogin, signedIn);
  // a refused sign-in does not count
  assert.notEqual((await signIn(browser(t.url), 'admin@example.com', 'not the password')).status, 303);
  await api('/users/me');
  assert.equal(await lastLogin(), signedIn);
});

test('deactivating or removing a person signs them out of the web app: reactivated or added again, they sign in anew', async () => {
  const admin = client(t.base, t.adminToken);
  const author: EventAuthor = { orgId: t.server.bootstrap.orgId, userId: null, requestUserId: null, accessTokenName: null, source: 'TEST' };
  const email = 'leaver@example.test';
  const { id, token } = await makeUser(t, admin, email);
  await setPassword(t.server.store, author, email, PASSWORD);
  const signedIn = async () => {
    const b = browser(t.url);
    assert.equal((await signIn(b, email, PASSWORD)).status, 303);
    assert.equal((await b.get('/settings/api')).status, 200);
    return b;
  };
  // a page of the web app: 200 signed in, a redirect to the sign-in form otherwise
  const page = async (b: ReturnType<typeof browser>) => (await b.get('/settings/api')).status;

  // deactivated: both of her browsers are signed out, and stay so once she is reactivated;
  // her API token is refused meanwhile and works again
  const laptop = await signedIn();
  const phone = await signedIn();
  assert.equal((await admin.post(`/users/${id}/deactivate`)).status, 200);
  assert.equal(await page(laptop), 303);
  assertError(await client(t.base, token).get('/users/me'), 401, 1002);
  assert.equal((await admin.post(`/users/${id}/reactivate`)).status, 200);
  assert.equal(await page(laptop), 303);
  assert.equal(await page(phone), 303);
  assert.equal((await client(t.base, token).get('/users/me')).status, 200);
  const again = await signedIn();

  // removed, then added again (the same account): the sign-in of before is over too
  assert.equal((await admin.del(`/users/${id}`)).status, 200);
  assert.equal((await admin.post('/users', { email, firstName: 'Leaver', lastName: 'Again' })).status, 200);
  assert.equal(await page(again), 303);
  await signedIn();

  // a refused deactivation (the caller's own account) signs nobody out
  const adminPage = browser(t.url);
  assert.equal((await signIn(adminPage, 'admin@example.com', PASSWORD)).status, 303);
  const me = (await admin.get('/users/me')).body as { id: number };
  assertError(await admin.post(`/users/${me.id}/deactivate`), 403, 1336);
  assert.equal(await page(adminPage), 200);
});
