import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { startSuiteServer, type TestServer } from '../helpers/server.ts';
import { browser, inputValue, signIn, type Browser } from '../helpers/browser.ts';
import { allEvents, assertError, client, type Client } from '../helpers/http.ts';
import { makeUser } from '../helpers/sheets.ts';
import { setPassword } from '../../src/services/identity/sessions.ts';
import type { EventAuthor } from '../../src/services/log/events.ts';
import { clock } from '../../src/clock.ts';

/**
 * Passwords without a shell, over HTTP as a browser and a client see them: the extension that
 * makes a one-time password link (system admins only, its input checked, the link mailed, only a
 * hash kept), the link's page (a CSRF token required, the two passwords checked, once only,
 * expiring, the person's sessions ended), Change password (CSRF, the current password, the
 * sign-in limits) and the People page's door. A refusal changes nothing.
 */
const PASSWORD = 'the first password';
let t: TestServer;
let api: Client;
let author: EventAuthor;

before(async () => {
  t = await startSuiteServer({ SHEETD_JOB_POLL_MS: '30', SHEETD_LOGIN_RATE_LIMIT: '5' });
  api = client(t.base, t.adminToken);
  author = { orgId: t.server.bootstrap.orgId, userId: null, requestUserId: null, accessTokenName: null, source: 'TEST' };
  await setPassword(t.server.store, author, 'admin@example.com', PASSWORD);
});
after(async () => t?.close());

let n = 0;
/** A new member of the organization with a token and the sign-in password PASSWORD. */
async function member(): Promise<{ id: number; email: string; token: string }> {
  const email = `pl${++n}@example.test`;
  const u = await makeUser(t, api, email);
  await setPassword(t.server.store, author, email, PASSWORD);
  return { ...u, email };
}

async function signedIn(email: string, password = PASSWORD): Promise<Browser> {
  const b = browser(t.url);
  const res = await signIn(b, email, password);
  assert.equal(res.status, 303, `${email} signs in with ${password}`);
  return b;
}

async function canSignIn(email: string, password: string): Promise<boolean> {
  return (await signIn(browser(t.url), email, password)).status === 303;
}

const linkRows = (userId: number) => t.server.store.db.selectFrom('password_links').selectAll().where('user_id', '=', userId).execute();

function secretOf(url: string): string {
  const m = /\/password\/([A-Za-z0-9_-]+)$/.exec(url);
  assert.ok(m, url);
  return m[1]!;
}

/** The outbox's messages to `email` (waits for the mail job when `wait`). */
async function mailsTo(email: string, wait = true): Promise<string[]> {
  const dir = path.join(t.dataDir, 'outbox');
  for (let i = 0; i < (wait ? 200 : 1); i++) {
    const texts = (fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.eml')) : []).map((f) => fs.readFileSync(path.join(dir, f), 'utf8')).filter((s) => s.includes(`To: ${email}`));
    if (texts.length > 0 || !wait) return texts;
    await new Promise((r) => setTimeout(r, 50));
  }
  return [];
}

test('Make Password Link: a system admin gets a one-time link, mailed to the person; only its hash is kept; the event is SEND_PASSWORD_RESET', async () => {
  const u = await member();
  const since = new Date(clock.now() - 1000).toISOString().replace(/\.\d+Z$/, 'Z');
  const res = await api.post(`/sheetd/users/${u.id}/passwordlink`);
  assert.equal(res.status, 200, res.text);
  const link = res.body.result;
  assert.equal(link.userId, u.id);
  assert.equal(link.email, u.email);
  assert.equal(link.emailed, true);
  assert.match(link.url, new RegExp(`^${t.url}/password/[A-Za-z0-9_-]{43}$`));
  const expires = Date.parse(link.expiresAt);
  assert.ok(Math.abs(expires - (clock.now() + 7 * 24 * 3_600_000)) < 60_000, link.expiresAt);
  // the database holds the SHA-256 of the secret, never the secret
  const rows = await linkRows(u.id);
  assert.equal(rows.length, 1);
  assert.equal(rows[0]!.id_hash, createHash('sha256').update(secretOf(link.url)).digest('hex'));
  assert.equal(rows[0]!.used_at, null);
  // the message to the person carries the link (quoted-printable may break its line)
  const [mail] = await mailsTo(u.email);
  assert.ok(mail);
  assert.match(mail.replace(/=\r\n/g, ''), new RegExp(`Choose your password: ${link.url.replace(/[.?*+^$[\]\\(){}|-]/g, '\\$&')}`));
  const events = await allEvents(api, since);
  const ev = events.find((e) => e.objectType === 'USER' && e.action === 'SEND_PASSWORD_RESET' && e.objectId === u.id);
  assert.ok(ev, JSON.stringify(events.map((e) => [e.objectType, e.action])));
  assert.doesNotMatch(JSON.stringify(ev), new RegExp(secretOf(link.url)), 'the event does not carry the link');

  // sendEmail=false: no message; a new link replaces the unused one
  const again = await api.post(`/sheetd/users/${u.id}/passwordlink`, { sendEmail: false });
  assert.equal(again.status, 200, again.text);
  assert.equal(again.body.result.emailed, false);
  assert.equal((await linkRows(u.id)).length, 1);
  assert.equal((await browser(t.url).get(`/password/${secretOf(link.url)}`)).status, 404);
  assert.equal((await browser(t.url).get(`/password/${secretOf(again.body.result.url)}`)).status, 200);
  assert.equal((await mailsTo(u.email, false)).length, 1);
});

test('Make Password Link refuses: not a system admin 1004, unknown user 1020, not active 1188, bad body 1031/1032/1008; nothing is made', async () => {
  const u = await member();
  const other = await member();
  assertError(await client(t.base, other.token).post(`/sheetd/users/${u.id}/passwordlink`), 403, 1004);
  assertError(await api.post('/sheetd/users/12345/passwordlink'), 404, 1020);
  assertError(await api.post(`/sheetd/users/${u.id}/passwordlink`, { sendEmail: 'yes please' }), 400, 1031);
  assertError(await api.post(`/sheetd/users/${u.id}/passwordlink`, { password: 'chosen by the admin' }), 400, 1032);
  assertError(await api.post(`/sheetd/users/${u.id}/passwordlink`, [1]), 400, 1008);
  assert.equal((await api.post(`/users/${u.id}/deactivate`)).status, 200);
  assertError(await api.post(`/sheetd/users/${u.id}/passwordlink`), 403, 1188);
  assert.equal((await linkRows(u.id)).length, 0);
  assert.deepEqual(await mailsTo(u.email, false), []);
  // the web app's session: its CSRF token is required, as for every API call
  const b = await signedIn('admin@example.com');
  const cookie = [...b.jar].map(([k, v]) => `${k}=${v}`).join('; ');
  assert.equal((await api.call('POST', `/sheetd/users/${other.id}/passwordlink`, { token: null, headers: { cookie } })).status, 401);
  assert.equal((await linkRows(other.id)).length, 0);
});

test('the link page: CSRF required, two equal passwords of the minimum length, then the password is set, the link used up and the sessions ended', async () => {
  const u = await member();
  const session = await signedIn(u.email);
  const url = (await api.post(`/sheetd/users/${u.id}/passwordlink`, { sendEmail: false })).body.result.url as string;
  const b = browser(t.url);
  const form = await b.get(url);
  assert.equal(form.status, 200);
  assert.match(form.text, new RegExp(`<strong id="link-email">${u.email}</strong>`));
  assert.match(form.text, /minlength="8"/);
  const csrf = inputValue(form.text, '_csrf');
  const p = `/password/${secretOf(url)}`;

  const noToken = await b.post(p, { password: 'a new password', repeat: 'a new password' });
  assert.equal(noToken.status, 403);
  const differ = await b.post(p, { _csrf: csrf, password: 'a new password', repeat: 'another password' });
  assert.equal(differ.status, 400);
  assert.match(differ.text, /The two new passwords are not the same/);
  const short = await b.post(p, { _csrf: csrf, password: 'short', repeat: 'short' });
  assert.equal(short.status, 400);
  assert.match(short.text, /too short: use at least 8 characters/);
  // refused, nothing changed: the old password signs in, the link is unused, the session lives
  assert.equal(await canSignIn(u.email, PASSWORD), true);
  assert.equal((await linkRows(u.id))[0]!.used_at, null);
  assert.equal((await session.get('/settings/api')).status, 200);

  const since = new Date(clock.now() - 1000).toISOString().replace(/\.\d+Z$/, 'Z');
  const ok = await b.post(p, { _csrf: csrf, password: 'a new password', repeat: 'a new password' });
  assert.equal(ok.status, 303);
  assert.equal(ok.location, '/login?done=password');
  assert.match((await b.get('/login?done=password')).text, /Your password is set/);
  assert.equal(await canSignIn(u.email, PASSWORD), false);
  assert.equal(await canSignIn(u.email, 'a new password'), true);
  // the person's sign-ins of before end
  assert.equal((await session.get('/settings/api')).status, 303);
  assert.notEqual((await linkRows(u.id))[0]!.used_at, null);
  const ev = (await allEvents(api, since)).find((e) => e.objectType === 'USER' && e.objectId === u.id && (e.additionalDetails as { passwordLink?: boolean } | undefined)?.passwordLink === true);
  assert.ok(ev, 'a USER UPDATE event: the password set through the link');
  assert.equal(ev.userId, u.id);

  // once only: the page and the form refuse it, and the password stays
  const twice = await b.get(p);
  assert.equal(twice.status, 404);
  assert.match(twice.text, /This link does not work any more/);
  const again = await b.post(p, { _csrf: csrf, password: 'a third password', repeat: 'a third password' });
  assert.equal(again.status, 404);
  assert.equal(await canSignIn(u.email, 'a third password'), false);
  assert.equal(await canSignIn(u.email, 'a new password'), true);
  assert.equal((await browser(t.url).get('/password/not-a-link')).status, 404);
});

test('a link past its seven days, or of a person deactivated since, is refused and changes nothing', async (tt) => {
  const u = await member();
  const url = (await api.post(`/sheetd/users/${u.id}/passwordlink`, { sendEmail: false })).body.result.url as string;
  const b = browser(t.url);
  const form = await b.get(url);
  assert.equal(form.status, 200);
  const real = clock.now;
  const late = real() + 7 * 24 * 3_600_000 + 1;
  clock.now = () => late;
  tt.after(() => (clock.now = real));
  const res = await b.post(`/password/${secretOf(url)}`, { _csrf: inputValue(form.text, '_csrf'), password: 'a late password', repeat: 'a late password' });
  assert.equal(res.status, 404);
  assert.match(res.text, /This link does not work any more/);
  assert.equal((await b.get(url)).status, 404);
  clock.now = real;
  assert.equal(await canSignIn(u.email, 'a late password'), false);
  assert.equal(await canSignIn(u.email, PASSWORD), true);

  const v = await member();
  const url2 = (await api.post(`/sheetd/users/${v.id}/passwordlink`, { sendEmail: false })).body.result.url as string;
  const form2 = await b.get(url2);
  assert.equal(form2.status, 200);
  assert.equal((await api.post(`/users/${v.id}/deactivate`)).status, 200);
  const res2 = await b.post(`/password/${secretOf(url2)}`, { _csrf: inputValue(form2.text, '_csrf'), password: 'a deactivated password', repeat: 'a deactivated password' });
  assert.equal(res2.status, 404);
  assert.equal((await api.post(`/users/${v.id}/reactivate`)).status, 200);
  assert.equal(await canSignIn(v.email, 'a deactivated password'), false);
  assert.equal(await canSignIn(v.email, PASSWORD), true);
});

test('Change password: CSRF required; a wrong current password 401, mismatched or short new ones 400, nothing changed; then it changes and other sessions end', async () => {
  const u = await member();
  const other = await signedIn(u.email);
  const b = await signedIn(u.email);
  const page = await b.get('/settings/password');
  assert.equal(page.status, 200);
  assert.match(page.text, /<label for="current">Current password<\/label>/);
  const csrf = inputValue(page.text, '_csrf');
  const change = (form: Record<string, string>) => b.post('/settings/password', form);

  assert.equal((await change({ current: PASSWORD, password: 'a changed password', repeat: 'a changed password' })).status, 403);
  const wrong = await change({ _csrf: csrf, current: 'not the password', password: 'a changed password', repeat: 'a changed password' });
  assert.equal(wrong.status, 401);
  assert.match(wrong.text, /Your current password is not right/);
  const differ = await change({ _csrf: csrf, current: PASSWORD, password: 'a changed password', repeat: 'a changed passwort' });
  assert.equal(differ.status, 400);
  assert.match(differ.text, /not the same/);
  assert.equal((await change({ _csrf: csrf, current: PASSWORD, password: 'short', repeat: 'short' })).status, 400);
  assert.equal(await canSignIn(u.email, 'a changed password'), false);
  assert.equal((await other.get('/settings/api')).status, 200);

  const done = await change({ _csrf: csrf, current: PASSWORD, password: 'a changed password', repeat: 'a changed password' });
  assert.equal(done.status, 303);
  assert.equal(done.location, '/settings/password?done=1');
  // this browser has a new session; the other one is signed out
  assert.match((await b.get('/settings/password?done=1')).text, /Your password is changed/);
  assert.equal((await other.get('/settings/api')).status, 303);
  assert.equal(await canSignIn(u.email, PASSWORD), false);
  assert.equal(await canSignIn(u.email, 'a changed password'), true);
  // signed out, the page sends to the sign-in page
  const anon = await browser(t.url).get('/settings/password');
  assert.equal(anon.status, 303);
  assert.equal(anon.location, '/login?next=%2Fsettings%2Fpassword');
});

test('Change password counts wrong current passwords against the sign-in limit: once it is used up even the right one waits', async (tt) => {
  // the limit is a rolling minute (GCRA): a clock held ten minutes ahead finds this address's
  // bucket full whatever the files' earlier failures, and stays still while the test counts
  const real = clock.now;
  const at = real() + 600_000;
  clock.now = () => at;
  tt.after(() => (clock.now = real));
  const u = await member();
  const b = await signedIn(u.email);
  const csrf = inputValue((await b.get('/settings/password')).text, '_csrf');
  for (let i = 0; i < 5; i++) assert.equal((await b.post('/settings/password', { _csrf: csrf, current: `wrong ${i}`, password: 'a limited password', repeat: 'a limited password' })).status, 401);
  const blocked = await b.post('/settings/password', { _csrf: csrf, current: PASSWORD, password: 'a limited password', repeat: 'a limited password' });
  assert.equal(blocked.status, 429);
  assert.match(blocked.text, /Too many wrong passwords/);
  assert.ok(Number(blocked.headers.get('retry-after')) >= 1);
  // the sign-in form shares the limit
  assert.equal((await signIn(browser(t.url), u.email, PASSWORD)).status, 429);
  clock.now = () => at + 61_000;
  assert.equal(await canSignIn(u.email, 'a limited password'), false);
  assert.equal(await canSignIn(u.email, PASSWORD), true);
});

test('People: signed out to the sign-in page, a member who is not an admin 403 and no link, a system admin the page', async () => {
  const anon = await browser(t.url).get('/people');
  assert.equal(anon.status, 303);
  assert.equal(anon.location, '/login?next=%2Fpeople');
  const u = await member();
  const plain = await signedIn(u.email);
  const home = await plain.get('/');
  assert.doesNotMatch(home.text, /href="\/people"/);
  assert.match(home.text, /href="\/settings\/password">Change password</);
  const refused = await plain.get('/people');
  assert.equal(refused.status, 403);
  assert.match(refused.text, /for the system admins of your organization/);
  const adminB = await signedIn('admin@example.com');
  assert.match((await adminB.get('/')).text, /<a href="\/people">People<\/a>/);
  const page = await adminB.get('/people');
  assert.equal(page.status, 200);
  assert.match(page.text, /data-page="people"/);
  assert.match(page.text, /data-mail="outbox"/);
});
