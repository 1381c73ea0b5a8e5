import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import path from 'node:path';
import smartsheet from 'smartsheet';
import { startSuiteServer, type TestServer } from '../helpers/server.ts';
import { assertError, client, recorded } from '../helpers/http.ts';
import { browser, inputValue, signIn, type Browser } from '../helpers/browser.ts';
import { clock } from '../../src/clock.ts';

const BIN = path.resolve(import.meta.dirname, '../../bin/sheetd.js');
const REDIRECT = 'https://app.example.test/callback?from=sheetd';
const PASSWORD = 'correct horse battery';

let t: TestServer;

/** `sheetd ...` against the test server's database, with optional standard input. */
function cli(args: string[], input = ''): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const env = { ...process.env, SHEETD_DATA_DIR: t.dataDir, SHEETD_LOG_LEVEL: 'silent', ...(t.config.databaseUrl ? { DATABASE_URL: t.config.databaseUrl } : {}) };
    const p = spawn(process.execPath, [BIN, ...args], { env });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    p.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    p.stdin.end(input);
  });
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** Posts a token request form-encoded, as the Python SDK does. */
async function tokenForm(form: Record<string, string>) {
  const res = await fetch(t.base + '/token', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() });
  return { status: res.status, body: await res.json() as Record<string, unknown> };
}

function sdk(accessToken?: string) {
  return smartsheet.createClient({ accessToken, baseUrl: t.base + '/', logLevel: 'error' });
}

interface App { clientId: string; clientSecret: string }
let app: App;
const users = { alice: 'alice@example.test', bob: 'bob@example.test' };

function authorizeUrl(params: Record<string, string>): string {
  return `/b/authorize?${new URLSearchParams(params).toString()}`;
}

/** Sign-in (if needed), consent, and the redirect's parameters. */
async function consent(b: Browser, params: Record<string, string>, decision: 'allow' | 'deny' = 'allow'): Promise<URL> {
  const page = await b.get(authorizeUrl(params));
  assert.equal(page.status, 200, page.text);
  const form: Record<string, string> = { _csrf: inputValue(page.text, '_csrf'), decision };
  for (const k of ['client_id', 'response_type', 'scope', 'state', 'redirect_uri']) {
    if (page.text.includes(`name="${k}"`)) form[k] = inputValue(page.text, k);
  }
  const res = await b.post('/b/consent', form);
  assert.equal(res.status, 303, res.text);
  return new URL(res.location!);
}

async function signedIn(email: string): Promise<Browser> {
  const b = browser(t.url);
  const res = await signIn(b, email, PASSWORD);
  assert.equal(res.status, 303, res.text);
  return b;
}

/** The whole flow for a user: a code exchanged through the npm SDK. */
async function tokensFor(email: string, scope: string, a: App = app) {
  const b = await signedIn(email);
  const back = await consent(b, { client_id: a.clientId, response_type: 'code', scope, state: 's' });
  const code = back.searchParams.get('code')!;
  return sdk().tokens.getAccessToken({
    queryParameters: { client_id: a.clientId, code, hash: sha256(`${a.clientSecret}|${code}`) },
    contentType: 'application/x-www-form-urlencoded',
  }) as Promise<{ access_token: string; refresh_token: string; expires_in: number; token_type: string }>;
}

before(async () => {
  t = await startSuiteServer({ SHEETD_LOGIN_RATE_LIMIT: '4', SHEETD_LOGIN_RATE_LIMIT_ADDRESS: '1000' });
  for (const email of Object.values(users)) {
    const r = await cli(['user', 'add', '--email', email, '--licensed', '--password-stdin'], `${PASSWORD}\n`);
    assert.equal(r.code, 0, r.stderr);
  }
  const r = await cli(['app', 'create', '--name', 'Report Robot', '--redirect-url', REDIRECT, '--json']);
  assert.equal(r.code, 0, r.stderr);
  app = JSON.parse(r.stdout) as App;
  assert.match(app.clientId, /^[a-z0-9]{10,}$/);
  assert.match(app.clientSecret, /^[a-z0-9]{20,}$/);
});

after(async () => {
  await t?.close();
});

describe('sign-in', () => {
  test('the login form signs in with a signed HttpOnly SameSite session cookie; the pages show the user; sign-out ends the session', async () => {
    const b = browser(t.url);
    const form = await b.get('/login');
    assert.equal(form.status, 200);
    assert.match(form.headers.get('content-type')!, /text\/html/);
    assert.match(form.text, /<label for="email">/);
    assert.match(form.text, /href="\/static\/sheetd.css"/);
    const css = await b.get('/static/sheetd.css');
    assert.equal(css.status, 200);
    assert.match(css.headers.get('content-type')!, /text\/css/);
    // the pages name their icon, and a browser that asks /favicon.ico gets the same picture
    assert.match(form.text, /<link rel="icon" href="\/static\/favicon.svg"/);
    for (const url of ['/static/favicon.svg', '/favicon.ico']) {
      const icon = await b.get(url);
      assert.equal(icon.status, 200, url);
      assert.match(icon.headers.get('content-type')!, /^image\/svg\+xml/, url);
      assert.match(icon.text, /^<svg /, url);
    }

    const wrong = await b.post('/login', { _csrf: inputValue(form.text, '_csrf'), email: users.bob, password: 'not the password', next: '/' });
    assert.equal(wrong.status, 401);
    assert.match(wrong.text, /not right/);

    const ok = await signIn(b, users.bob, PASSWORD, '/settings/api');
    assert.equal(ok.status, 303);
    assert.equal(ok.location, '/settings/api');
    const session = b.setCookies.find((c) => c.startsWith('sheetd_session='))!;
    assert.ok(session, b.setCookies.join('\n'));
    assert.match(session, /HttpOnly/i);
    assert.match(session, /SameSite=Lax/i);
    // signed: the value carries a signature after a dot
    assert.match(decodeURIComponent(session.split(';')[0]!), /^sheetd_session=[^.]+\.[^.]+$/);

    const home = await b.get('/');
    assert.match(home.text, new RegExp(users.bob.replace('.', '\\.')));
    const settings = await b.get('/settings/api');
    assert.equal(settings.status, 200);

    // a tampered cookie is no session
    const forged = browser(t.url);
    forged.jar.set('sheetd_session', b.jar.get('sheetd_session')!.replace(/^./, (c) => (c === 'a' ? 'b' : 'a')));
    assert.equal((await forged.get('/settings/api')).status, 303);

    const copy = browser(t.url);
    copy.jar.set('sheetd_session', b.jar.get('sheetd_session')!);
    const out = await b.post('/logout', { _csrf: inputValue(home.text, '_csrf') });
    assert.equal(out.status, 303);
    assert.equal((await b.get('/settings/api')).location, '/login?next=%2Fsettings%2Fapi');
    // the session is gone on the server, not only from this browser
    assert.equal((await copy.get('/settings/api')).status, 303);
  });

  test('every form needs its CSRF token', async () => {
    const b = browser(t.url);
    await b.get('/login');
    const res = await b.post('/login', { email: users.bob, password: PASSWORD, next: '/' });
    assert.equal(res.status, 403);
    assert.ok(!b.jar.has('sheetd_session'));
    const other = browser(t.url);
    const form = await other.get('/login');
    // a token from another browser's form does not fit this browser's secret
    const res2 = await b.post('/login', { _csrf: inputValue(form.text, '_csrf'), email: users.bob, password: PASSWORD, next: '/' });
    assert.equal(res2.status, 403);
  });

  test('only local paths are followed after sign-in', async () => {
    for (const next of ['https://evil.example/', '//evil.example/x', '/\\evil.example']) {
      const b = browser(t.url);
      const res = await signIn(b, users.bob, PASSWORD, next);
      assert.equal(res.status, 303);
      assert.equal(res.location, '/');
    }
  });

  test('sheetd user set-password replaces the password and ends the user\'s sessions', async () => {
    const email = 'carol@example.test';
    assert.equal((await cli(['user', 'add', '--email', email])).code, 0);
    const short = await cli(['user', 'set-password', '--email', email], 'short\n');
    assert.notEqual(short.code, 0);
    assert.equal((await cli(['user', 'set-password', '--email', email], 'first password\n')).code, 0);
    const b = browser(t.url);
    assert.equal((await signIn(b, email, 'first password')).status, 303);
    assert.equal((await b.get('/settings/api')).status, 200);
    assert.equal((await cli(['user', 'set-password', '--email', email], 'second password\n')).code, 0);
    assert.equal((await b.get('/settings/api')).status, 303);
    assert.equal((await signIn(browser(t.url), email, 'first password')).status, 401);
    assert.equal((await signIn(browser(t.url), email, 'second password')).status, 303);
    const none = await cli(['user', 'set-password', '--email', 'nobody@example.test'], 'whatever password\n');
    assert.notEqual(none.code, 0);
    assert.match(none.stderr, /no user/);
  });

  test('failed sign-ins are limited per account', async (tt) => {
    // the limit's window is a minute: hold the clock inside one
    const real = clock.now;
    const at = Math.floor(real() / 60_000) * 60_000 + 1_000;
    clock.now = () => at;
    tt.after(() => (clock.now = real));
    const email = 'dave@example.test';
    assert.equal((await cli(['user', 'add', '--email', email, '--password-stdin'], `${PASSWORD}\n`)).code, 0);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await signIn(browser(t.url), email, 'wrong password')).status);
    assert.deepEqual(statuses, [401, 401, 401, 401]);
    const blocked = await signIn(browser(t.url), email, PASSWORD);
    assert.equal(blocked.status, 429);
    assert.ok(Number(blocked.headers.get('retry-after')) > 0);
    // another account is not affected (one without failures of its own: the clock held at the
    // minute's start would place an earlier test's failed sign-in of Bob in its future)
    const other = 'erin@example.test';
    assert.equal((await cli(['user', 'add', '--email', other, '--password-stdin'], `${PASSWORD}\n`)).code, 0);
    assert.equal((await signIn(browser(t.url), other, PASSWORD)).status, 303);
  });
});

describe('the three-legged flow', () => {
  test('authorize -> login -> consent -> code -> token (npm SDK, hash) -> API calls within the scopes', async () => {
    const b = browser(t.url);
    const params = { client_id: app.clientId, response_type: 'code', scope: 'READ_SHEETS WRITE_SHEETS', state: 'st@te/1 2' };
    const first = await b.get(authorizeUrl(params));
    assert.equal(first.status, 303);
    const loginUrl = new URL(first.location!, t.url);
    assert.equal(loginUrl.pathname, '/login');
    const form = await b.get(loginUrl.pathname + loginUrl.search);
    const signed = await b.post('/login', { _csrf: inputValue(form.text, '_csrf'), email: users.alice, password: PASSWORD, next: inputValue(form.text, 'next') });
    assert.equal(signed.status, 303);
    assert.equal(signed.location, authorizeUrl(params));

    const page = await b.get(signed.location!);
    assert.equal(page.status, 200);
    assert.match(page.text, /Report Robot/);
    assert.match(page.text, /See your sheets and everything in them/);
    assert.match(page.text, /Add and change the data of your sheets/);
    assert.equal(page.headers.get('x-frame-options'), 'DENY');

    const back = await consent(b, params);
    assert.equal(`${back.origin}${back.pathname}`, 'https://app.example.test/callback');
    assert.equal(back.searchParams.get('from'), 'sheetd');
    assert.equal(back.searchParams.get('state'), params.state);
    assert.equal(back.searchParams.get('expires_in'), '599135');
    const code = back.searchParams.get('code')!;
    assert.ok(code);

    const tok = await sdk().tokens.getAccessToken({
      queryParameters: { client_id: app.clientId, code, hash: sha256(`${app.clientSecret}|${code}`) },
      contentType: 'application/x-www-form-urlencoded',
    }) as { access_token: string; refresh_token: string; expires_in: number; token_type: string };
    assert.equal(tok.token_type, 'bearer');
    assert.equal(tok.expires_in, 604799);
    assert.ok(tok.access_token && tok.refresh_token && tok.access_token !== tok.refresh_token);

    const api = client(t.base, tok.access_token);
    const me = await api.get('/users/me');
    assert.equal(me.status, 200);
    assert.equal(me.body.email, users.alice);
    assert.equal((await api.get('/sheets')).status, 200);
    // not granted: CREATE_SHEETS, READ_USERS
    assertError(await api.post('/sheets', { name: 'x', columns: [{ title: 'A', primary: true, type: 'TEXT_NUMBER' }] }), 403, 1004);
    assertError(await api.get('/users'), 403, 1004);
    // the SDK with the token
    const viaSdk = await sdk(tok.access_token).users.getCurrentUser({}) as { email: string };
    assert.equal(viaSdk.email, users.alice);

    // a code is used once
    const again = await tokenForm({ grant_type: 'authorization_code', client_id: app.clientId, code, hash: sha256(`${app.clientSecret}|${code}`) });
    assert.equal(again.status, 400);
    assert.equal(again.body.errorCode, 1071);
    assert.equal(again.body.error, 'invalid_grant');
  });

  test('scopes never override access levels: WRITE_SHEETS on a sheet shared as VIEWER is refused', async () => {
    const admin = client(t.base, t.adminToken);
    const sheet = await admin.post('/sheets', { name: 'Shared', columns: [{ title: 'A', primary: true, type: 'TEXT_NUMBER' }] });
    assert.equal(sheet.status, 200, sheet.text);
    const id = sheet.body.result.id as number;
    const colId = sheet.body.result.columns[0].id as number;
    assert.equal((await admin.post(`/sheets/${id}/shares`, { email: users.alice, accessLevel: 'VIEWER' })).status, 200);
    const tok = await tokensFor(users.alice, 'READ_SHEETS WRITE_SHEETS');
    const api = client(t.base, tok.access_token);
    assert.equal((await api.get(`/sheets/${id}`)).status, 200);
    const write = await api.post(`/sheets/${id}/rows`, [{ cells: [{ columnId: colId, value: 'x' }] }]);
    assert.equal(write.status, 403, write.text);
  });

  test('an app asking for no scope can only read the current user', async () => {
    const tok = await tokensFor(users.alice, '');
    const api = client(t.base, tok.access_token);
    assert.equal((await api.get('/users/me')).status, 200);
    assertError(await api.get('/sheets'), 403, 1004);
  });

  test('Deny sends access_denied with the state', async () => {
    const b = await signedIn(users.alice);
    const back = await consent(b, { client_id: app.clientId, response_type: 'code', scope: 'READ_SHEETS', state: 'no-thanks' }, 'deny');
    assert.equal(back.searchParams.get('error'), 'access_denied');
    assert.equal(back.searchParams.get('state'), 'no-thanks');
    assert.equal(back.searchParams.get('code'), null);
  });

  test('POST /b/authorize works like GET, and consent without a CSRF token issues nothing', async () => {
    const b = await signedIn(users.alice);
    const page = await b.post('/b/authorize', { client_id: app.clientId, response_type: 'code', scope: 'READ_SHEETS', state: 'p' });
    assert.equal(page.status, 200);
    assert.match(page.text, /Report Robot/);
    const forged = await b.post('/b/consent', { client_id: app.clientId, response_type: 'code', scope: 'READ_SHEETS', state: 'p', decision: 'allow' });
    assert.equal(forged.status, 403);
    assert.equal(forged.location, null);
  });

  test('errors of the authorization request: no redirect without a known client and its own redirect URL; OAuth error types otherwise', async () => {
    const b = await signedIn(users.alice);
    for (const params of <Array<Record<string, string>>>[
      { response_type: 'code', scope: 'READ_SHEETS' },
      { client_id: 'nosuchclient', response_type: 'code', scope: 'READ_SHEETS', state: 'x' },
      { client_id: app.clientId, response_type: 'code', scope: 'READ_SHEETS', redirect_uri: 'https://evil.example/steal' },
    ]) {
      const res = await b.get(authorizeUrl(params));
      assert.equal(res.status, 400, JSON.stringify(params));
      assert.equal(res.location, null);
      assert.match(res.headers.get('content-type')!, /text\/html/);
    }
    const cases: Array<[Record<string, string>, string]> = [
      [{ client_id: app.clientId, response_type: 'token', scope: 'READ_SHEETS', state: 'a' }, 'unsupported_response_type'],
      [{ client_id: app.clientId, scope: 'READ_SHEETS', state: 'a' }, 'invalid_request'],
      [{ client_id: app.clientId, response_type: 'code', scope: 'READ_SHEETS NOT_A_SCOPE', state: 'a' }, 'invalid_scope'],
      [{ client_id: app.clientId, response_type: 'code', state: 'a' }, 'invalid_request'],
    ];
    for (const [params, error] of cases) {
      const res = await b.get(authorizeUrl(params));
      assert.equal(res.status, 303, JSON.stringify(params));
      const u = new URL(res.location!);
      assert.equal(`${u.origin}${u.pathname}`, 'https://app.example.test/callback');
      assert.equal(u.searchParams.get('error'), error);
      assert.equal(u.searchParams.get('state'), 'a');
    }
    // the registered redirect URL given explicitly is fine
    const ok = await b.get(authorizeUrl({ client_id: app.clientId, response_type: 'code', scope: 'READ_SHEETS', redirect_uri: REDIRECT }));
    assert.equal(ok.status, 200);
  });
});

describe('POST and DELETE /2.0/token', () => {
  async function freshCode(scope = 'READ_SHEETS'): Promise<string> {
    const b = await signedIn(users.bob);
    const back = await consent(b, { client_id: app.clientId, response_type: 'code', scope });
    return back.searchParams.get('code')!;
  }

  test('client_secret in a form body (and redirect_uri / redirect_url that match) also works', async () => {
    const code = await freshCode();
    const res = await tokenForm({ grant_type: 'authorization_code', client_id: app.clientId, code, client_secret: app.clientSecret, redirect_uri: REDIRECT });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.token_type, 'bearer');
    const code2 = await freshCode();
    const res2 = await tokenForm({ grant_type: 'authorization_code', client_id: app.clientId, code: code2, hash: sha256(`${app.clientSecret}|${code2}`), redirect_url: REDIRECT });
    assert.equal(res2.status, 200, JSON.stringify(res2.body));
  });

  test('every error of the token endpoint, with its OAuth error type; a refused request leaves the code usable', async () => {
    const code = await freshCode();
    const h = sha256(`${app.clientSecret}|${code}`);
    const cases: Array<[Record<string, string>, number, number, string]> = [
      [{ client_id: app.clientId, code, hash: h }, 400, 1070, 'invalid_request'],
      [{ grant_type: 'password', client_id: app.clientId, code, hash: h }, 400, 1068, 'unsupported_grant_type'],
      [{ grant_type: 'authorization_code', code, hash: h }, 400, 1070, 'invalid_request'],
      [{ grant_type: 'authorization_code', client_id: app.clientId, hash: h }, 400, 1070, 'invalid_request'],
      [{ grant_type: 'refresh_token', client_id: app.clientId, hash: h }, 400, 1070, 'invalid_request'],
      [{ grant_type: 'authorization_code', client_id: 'nosuchclient', code, hash: h }, 401, 1067, 'invalid_client'],
      [{ grant_type: 'authorization_code', client_id: app.clientId, code }, 400, 1236, 'invalid_client'],
      [{ grant_type: 'authorization_code', client_id: app.clientId, code, hash: h, client_secret: app.clientSecret }, 400, 1237, 'invalid_request'],
      [{ grant_type: 'authorization_code', client_id: app.clientId, code, client_secret: 'wrong' }, 400, 1238, 'invalid_client'],
      [{ grant_type: 'authorization_code', client_id: app.clientId, code, hash: sha256(`wrong|${code}`) }, 400, 1072, 'invalid_grant'],
      [{ grant_type: 'authorization_code', client_id: app.clientId, code, hash: h, redirect_url: 'https://evil.example/' }, 400, 1073, 'invalid_grant'],
      [{ grant_type: 'authorization_code', client_id: app.clientId, code: 'nosuchcode', hash: sha256(`${app.clientSecret}|nosuchcode`) }, 400, 1071, 'invalid_grant'],
      [{ grant_type: 'refresh_token', client_id: app.clientId, refresh_token: 'nosuch', hash: sha256(`${app.clientSecret}|nosuch`) }, 400, 1071, 'invalid_grant'],
    ];
    for (const [form, status, code_, error] of cases) {
      const res = await tokenForm(form);
      assert.equal(res.status, status, JSON.stringify([form, res.body]));
      assert.equal(res.body.errorCode, code_, JSON.stringify(res.body));
      assert.equal(res.body.error, error);
      assert.equal(res.body.error_code, code_);
      assert.equal(typeof res.body.message, 'string');
      assert.equal(typeof res.body.error_description, 'string');
    }
    const ok = await tokenForm({ grant_type: 'authorization_code', client_id: app.clientId, code, hash: h });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
  });

  test('a code from one app does not work for another', async () => {
    const r = await cli(['app', 'create', '--name', 'Other', '--redirect-url', 'https://other.example.test/cb', '--json']);
    const other = JSON.parse(r.stdout) as App;
    const code = await freshCode();
    const res = await tokenForm({ grant_type: 'authorization_code', client_id: other.clientId, code, client_secret: other.clientSecret });
    assert.equal(res.status, 400);
    assert.equal(res.body.errorCode, 1071);
  });

  test('codes expire after 599135 ms and access tokens after 604799 s (clock moved)', async () => {
    const code = await freshCode();
    const real = clock.now;
    const start = real();
    try {
      clock.now = () => start + 599_136;
      const late = await tokenForm({ grant_type: 'authorization_code', client_id: app.clientId, code, client_secret: app.clientSecret });
      assert.equal(late.status, 400);
      assert.equal(late.body.errorCode, 1069);
      assert.equal(late.body.error, 'invalid_grant');
      clock.now = () => start + 599_000;
      const inTime = await tokenForm({ grant_type: 'authorization_code', client_id: app.clientId, code, client_secret: app.clientSecret });
      assert.equal(inTime.status, 200);
      const api = client(t.base, inTime.body.access_token as string);
      clock.now = () => start + 599_000 + 604_798_000;
      assert.equal((await api.get('/users/me')).status, 200);
      clock.now = () => start + 599_000 + 604_800_000;
      assertError(await api.get('/users/me'), 401, 1003);
      // an expired access token is refreshed with its refresh token
      const refreshed = await tokenForm({ grant_type: 'refresh_token', client_id: app.clientId, refresh_token: inTime.body.refresh_token as string, client_secret: app.clientSecret });
      assert.equal(refreshed.status, 200);
      assert.equal((await client(t.base, refreshed.body.access_token as string).get('/users/me')).status, 200);
    } finally {
      clock.now = real;
    }
  });

  test('refresh (npm SDK) rotates: new pair works, the old access and refresh tokens stop', async () => {
    const tok = await tokensFor(users.bob, 'READ_SHEETS');
    const next = await sdk().tokens.refreshAccessToken({
      queryParameters: { client_id: app.clientId, refresh_token: tok.refresh_token, hash: sha256(`${app.clientSecret}|${tok.refresh_token}`) },
      contentType: 'application/x-www-form-urlencoded',
    }) as { access_token: string; refresh_token: string; expires_in: number };
    assert.equal(next.expires_in, 604799);
    assert.notEqual(next.access_token, tok.access_token);
    assert.notEqual(next.refresh_token, tok.refresh_token);
    assertError(await client(t.base, tok.access_token).get('/users/me'), 401, 1002);
    const api = client(t.base, next.access_token);
    assert.equal((await api.get('/sheets')).status, 200);
    // the refreshed token keeps the scopes
    assertError(await api.get('/users'), 403, 1004);
    const reuse = await tokenForm({ grant_type: 'refresh_token', client_id: app.clientId, refresh_token: tok.refresh_token, hash: sha256(`${app.clientSecret}|${tok.refresh_token}`) });
    assert.equal(reuse.status, 400);
    assert.equal(reuse.body.errorCode, 1071);
    // a refresh hash made with the code's value instead of the refresh token does not match
    const bad = await tokenForm({ grant_type: 'refresh_token', client_id: app.clientId, refresh_token: next.refresh_token, hash: sha256(`${app.clientSecret}|x`) });
    assert.equal(bad.body.errorCode, 1072);
  });

  test('DELETE /token (npm SDK) revokes the token of the request; deleteAllForApiClient every token of that app and user', async () => {
    const one = await tokensFor(users.bob, 'READ_SHEETS');
    const revoked = await sdk(one.access_token).tokens.revokeAccessToken({}) as { message: string; resultCode: number };
    assert.equal(revoked.message, 'SUCCESS');
    assertError(await client(t.base, one.access_token).get('/users/me'), 401, 1002);
    // its refresh token went with it
    const r = await tokenForm({ grant_type: 'refresh_token', client_id: app.clientId, refresh_token: one.refresh_token, client_secret: app.clientSecret });
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.equal(r.body.errorCode, 1132);
    assert.equal(r.body.message, 'Token was previously revoked.');
    assert.equal(r.body.error, 'invalid_grant');

    const a = await tokensFor(users.bob, 'READ_SHEETS');
    const b = await tokensFor(users.bob, 'READ_SHEETS');
    const aliceTok = await tokensFor(users.alice, 'READ_SHEETS');
    const raw = await client(t.base, t.adminToken).get('/users/me');
    assert.equal(raw.status, 200);
    const res = await client(t.base, a.access_token).del('/token?deleteAllForApiClient=true');
    assert.equal(res.status, 200, res.text);
    assertError(await client(t.base, a.access_token).get('/users/me'), 401, 1002);
    assertError(await client(t.base, b.access_token).get('/users/me'), 401, 1002);
    assert.equal((await tokenForm({ grant_type: 'refresh_token', client_id: app.clientId, refresh_token: b.refresh_token, client_secret: app.clientSecret })).body.errorCode, 1132);
    // another user's tokens for the app are untouched
    assert.equal((await client(t.base, aliceTok.access_token).get('/users/me')).status, 200);

    // the webhooks an app made for a user stop for good when that user's access for the app is
    // withdrawn (DISABLED_APP_REVOKED); enabling them again is 403/1153
    const c = await tokensFor(users.bob, 'READ_SHEETS WRITE_SHEETS CREATE_SHEETS ADMIN_WEBHOOKS');
    const bobApp = client(t.base, c.access_token);
    const sheet = await bobApp.post('/sheets', { name: 'Hooked by app', columns: [{ title: 'A', type: 'TEXT_NUMBER', primary: true }] });
    assert.equal(sheet.status, 200, sheet.text);
    const hook = await bobApp.post('/webhooks', { name: 'app hook', callbackUrl: 'https://hooks.example.test/cb', scope: 'sheet', scopeObjectId: sheet.body.result.id, events: ['*.*'], version: 1 });
    assert.equal(hook.status, 200, hook.text);
    assert.ok(hook.body.result.apiClientId, 'the webhook names the app that made it');
    const d = await tokensFor(users.bob, 'ADMIN_WEBHOOKS');
    assert.equal((await bobApp.del('/token?deleteAllForApiClient=true')).status, 200);
    const after = await client(t.base, d.access_token);
    assertError(await after.get(`/webhooks/${hook.body.result.id}`), 401, 1002);
    const e = await tokensFor(users.bob, 'ADMIN_WEBHOOKS');
    const seen = await client(t.base, e.access_token).get(`/webhooks/${hook.body.result.id}`);
    assert.equal(seen.status, 200, seen.text);
    assert.equal(seen.body.status, 'DISABLED_APP_REVOKED');
    assert.equal(seen.body.enabled, false);
    assertError(await client(t.base, e.access_token).put(`/webhooks/${hook.body.result.id}`, { enabled: true }), 403, 1153);
    assertError(await client(t.base, null as unknown as string).del('/token'), 401, 1001);
  });
});

describe('pages: apps and API access', () => {
  test('an app registered on the page gets a secret shown once; a new secret replaces the old one', async () => {
    const b = await signedIn(users.alice);
    const page = await b.get('/apps');
    assert.equal(page.status, 200);
    const bad = await b.post('/apps', { _csrf: inputValue(page.text, '_csrf'), name: 'Broken', redirectUrl: 'not a url' });
    assert.equal(bad.status, 400);
    assert.match(bad.text, /role="alert"/);
    const made = await b.post('/apps', { _csrf: inputValue(page.text, '_csrf'), name: 'Page App <b>', description: 'Made on the page', redirectUrl: 'https://page.example.test/cb', contact: 'ops@page.example.test' });
    assert.equal(made.status, 201, made.text);
    assert.ok(!made.text.includes('<b>'), 'names are escaped');
    const clientId = /<code id="client-id">([^<]+)<\/code>/.exec(made.text)![1]!;
    const secret1 = /<code id="client-secret">([^<]+)<\/code>/.exec(made.text)![1]!;
    const list = await b.get('/apps');
    assert.match(list.text, new RegExp(clientId));
    assert.ok(!list.text.includes(secret1), 'the secret is not shown again');

    const pageApp = { clientId, clientSecret: secret1 };
    const tok = await tokensFor(users.bob, 'READ_SHEETS', pageApp);
    assert.equal((await client(t.base, tok.access_token).get('/users/me')).status, 200);

    const appId = /action="\/apps\/(\d+)\/secret"/.exec(list.text)![1]!;
    const regen = await b.post(`/apps/${appId}/secret`, { _csrf: inputValue(list.text, '_csrf') });
    assert.equal(regen.status, 200);
    const secret2 = /<code id="client-secret">([^<]+)<\/code>/.exec(regen.text)![1]!;
    assert.notEqual(secret2, secret1);
    const old = await tokenForm({ grant_type: 'refresh_token', client_id: clientId, refresh_token: tok.refresh_token, client_secret: secret1 });
    assert.equal(old.body.errorCode, 1238);
    const now = await tokenForm({ grant_type: 'refresh_token', client_id: clientId, refresh_token: tok.refresh_token, client_secret: secret2 });
    assert.equal(now.status, 200, JSON.stringify(now.body));

    // someone else cannot regenerate it
    const other = await signedIn(users.bob);
    const otherPage = await other.get('/apps');
    const refused = await other.post(`/apps/${appId}/secret`, { _csrf: inputValue(otherPage.text, '_csrf') });
    assert.equal(refused.status, 404);
  });

  test('the API access page creates (shown once) and revokes raw tokens, and withdraws an app\'s access', async () => {
    const b = await signedIn(users.alice);
    const page = await b.get('/settings/api');
    const made = await b.post('/settings/api/tokens', { _csrf: inputValue(page.text, '_csrf'), name: 'laptop' });
    assert.equal(made.status, 201);
    const raw = /<code id="new-token">([^<]+)<\/code>/.exec(made.text)![1]!;
    const api = client(t.base, raw);
    assert.equal((await api.get('/users/me')).body.email, users.alice);
    const again = await b.get('/settings/api');
    assert.ok(!again.text.includes(raw));
    assert.match(again.text, /laptop/);
    const tokenId = /action="\/settings\/api\/tokens\/(\d+)\/revoke"/.exec(again.text)![1]!;
    const rev = await b.post(`/settings/api/tokens/${tokenId}/revoke`, { _csrf: inputValue(again.text, '_csrf') });
    assert.equal(rev.status, 303);
    assertError(await api.get('/users/me'), 401, 1002);

    const tok = await tokensFor(users.alice, 'READ_SHEETS');
    const listed = await b.get('/settings/api');
    assert.match(listed.text, /Report Robot/);
    const appId = /action="\/settings\/api\/apps\/(\d+)\/revoke"/.exec(listed.text)![1]!;
    const withdraw = await b.post(`/settings/api/apps/${appId}/revoke`, { _csrf: inputValue(listed.text, '_csrf') });
    assert.equal(withdraw.status, 303);
    assertError(await client(t.base, tok.access_token).get('/users/me'), 401, 1002);
    assert.equal((await tokenForm({ grant_type: 'refresh_token', client_id: app.clientId, refresh_token: tok.refresh_token, client_secret: app.clientSecret })).body.errorCode, 1132);
    assert.ok(!(await b.get('/settings/api')).text.includes('Report Robot'));
  });

  test('a system admin also sees the organization\'s users on the API access page; others do not', async () => {
    assert.equal((await cli(['user', 'add', '--email', 'root@example.test', '--admin', '--password-stdin'], `${PASSWORD}\n`)).code, 0);
    const adminPage = await (await signedIn('root@example.test')).get('/settings/api');
    assert.match(adminPage.text, /Users of your organization/);
    assert.match(adminPage.text, /alice@example\.test/);
    const userPage = await (await signedIn(users.bob)).get('/settings/api');
    assert.doesNotMatch(userPage.text, /Users of your organization/);
  });

  test('sheetd app regenerate-secret prints a new secret; the old one stops working', async () => {
    const r = await cli(['app', 'create', '--name', 'Regen', '--redirect-url', 'https://regen.example.test/cb']);
    assert.equal(r.code, 0, r.stderr);
    const clientId = /clientId: (\S+)/.exec(r.stdout)![1]!;
    const secret = /clientSecret: (\S+)/.exec(r.stdout)![1]!;
    const r2 = await cli(['app', 'regenerate-secret', '--client-id', clientId, '--json']);
    const next = JSON.parse(r2.stdout) as App;
    assert.equal(next.clientId, clientId);
    assert.notEqual(next.clientSecret, secret);
    const bad = await cli(['app', 'create', '--name', 'NoRedirect']);
    assert.notEqual(bad.code, 0);
  });
});

describe('events of OAuth apps', () => {
  test('Get Events names sources as the public service does: API_INTEGRATED_APP for an app\'s token, API_UNDEFINED_APP for a raw token; every source is one the SDKs know', async () => {
    const columns = [{ title: 'A', type: 'TEXT_NUMBER', primary: true }];
    const tok = await tokensFor(users.alice, 'CREATE_SHEETS');
    const viaApp = await client(t.base, tok.access_token).post('/sheets', { name: 'made by the app', columns });
    assert.equal(viaApp.status, 200, viaApp.text);
    const admin = client(t.base, t.adminToken);
    const viaRaw = await admin.post('/sheets', { name: 'made with a raw token', columns });
    assert.equal(viaRaw.status, 200, viaRaw.text);
    const ev = await admin.get('/events?since=2000-01-01T00:00:00Z&maxCount=10000');
    assert.equal(ev.status, 200, ev.text);
    type Ev = { objectType: string; action: string; objectId: number; source: string; accessTokenName?: string; additionalDetails: { origin?: string } };
    const data = (ev.body.data as Ev[]).map(recorded);
    const created = (id: number) => data.find((e) => e.objectType === 'SHEET' && e.action === 'CREATE' && e.objectId === id)!;
    assert.equal(created(viaApp.body.result.id).source, 'API_INTEGRATED_APP');
    assert.equal(created(viaApp.body.result.id).accessTokenName, 'Report Robot');
    assert.equal(created(viaRaw.body.result.id).source, 'API_UNDEFINED_APP');
    // the app's token itself was issued by the app
    assert.ok(data.some((e) => e.objectType === 'ACCESS_TOKEN' && e.source === 'API_INTEGRATED_APP'), JSON.stringify(data.filter((e) => e.objectType === 'ACCESS_TOKEN')));
    // the users added with the command line, and the bootstrap: no client of the public
    // vocabulary, so UNKNOWN, with sheetd's own origin beside it
    const byCli = data.filter((e) => e.additionalDetails.origin === 'CLI');
    assert.ok(byCli.length >= 2, 'the users added with the CLI');
    for (const e of byCli) assert.equal(e.source, 'UNKNOWN');
    const known = new Set(['WEB_APP', 'MOBILE_IOS', 'MOBILE_ANDROID', 'API_INTEGRATED_APP', 'API_UNDEFINED_APP', 'UNKNOWN']);
    for (const e of data) assert.ok(known.has(e.source), JSON.stringify(e));
  });
});
