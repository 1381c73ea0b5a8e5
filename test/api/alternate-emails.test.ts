import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import smartsheet from 'smartsheet';
import { startSuiteServer, type TestServer } from '../helpers/server.ts';
import { assertError, client, type Client } from '../helpers/http.ts';
import { tokenFor } from '../helpers/tokens.ts';
import { assertPrimaryEmail } from '../../src/services/identity/alternateEmails.ts';

let t: TestServer;
let api: Client;
const ids: Record<string, number> = {};
const tokens: Record<string, string> = {};


const tokenOf = (email: string) => tokenFor(t, email);

const alternates = async (userId: number) => (await api.get(`/users/${userId}/alternateemails?includeAll=true`)).body.data as Array<{ id: number; email: string; confirmed: boolean }>;

const sheetd = path.resolve(import.meta.dirname, '../../bin/sheetd.js');
async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { ...process.env, SHEETD_DATA_DIR: t.dataDir, DATABASE_URL: t.config.databaseUrl ?? '', SHEETD_ADMIN_EMAIL: t.config.adminEmail, SHEETD_LOG_LEVEL: 'silent' };
  try {
    const r = await promisify(execFile)(process.execPath, [sheetd, ...args], { env });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

before(async () => {
  t = await startSuiteServer();
  api = client(t.base, t.adminToken);
  for (const email of ['kim@corp.example', 'lee@corp.example', 'max@other.example', 'sam@corp.example']) {
    const res = await api.post('/users', { email });
    assert.equal(res.status, 200);
    ids[email] = res.body.result.id;
    tokens[email] = await tokenOf(email);
  }
});
after(() => t.close());

describe('validated domains', () => {
  test('CLI: add, list, remove', async () => {
    const add = await cli('domain', 'add', 'Corp.Example');
    assert.equal(add.code, 0, add.stderr);
    assert.equal(add.stdout.trim(), 'corp.example');
    assert.equal((await cli('domain', 'add', 'corp.example')).code, 2);
    assert.equal((await cli('domain', 'add', 'not a domain')).code, 2);
    assert.equal((await cli('domain', 'add', 'tmp.example')).code, 0);
    assert.deepEqual((await cli('domain', 'list')).stdout.trim().split('\n'), ['corp.example', 'tmp.example']);
    assert.equal((await cli('domain', 'remove', 'tmp.example')).code, 0);
    assert.equal((await cli('domain', 'remove', 'tmp.example')).code, 2);
    assert.deepEqual((await cli('domain', 'list')).stdout.trim().split('\n'), ['corp.example']);
  });
  test('API: system admins list, add and remove', async () => {
    const list = await api.get('/validateddomains');
    assert.deepEqual(list.body.data.map((d: { domain: string }) => d.domain), ['corp.example']);
    const add = await api.post('/validateddomains', { domain: 'extra.example' });
    assert.equal(add.status, 200, JSON.stringify(add.body));
    assert.equal(add.body.result.domain, 'extra.example');
    assertError(await api.post('/validateddomains', { domain: 'extra.example' }), 400, 1129);
    assertError(await api.post('/validateddomains', { domain: 'bad domain' }), 400, 1031);
    assertError(await api.post('/validateddomains', { domain: 'x.example' }, { token: tokens['kim@corp.example'] }), 403, 1004);
    assertError(await api.get('/validateddomains', { token: tokens['kim@corp.example'] }), 403, 1004);
    assert.equal((await api.del('/validateddomains/extra.example')).status, 200);
    assertError(await api.del('/validateddomains/extra.example'), 404, 1006);
    assert.equal((await api.get('/validateddomains')).body.totalCount, 1);
  });
});

describe('alternate emails', () => {
  test('add: a validated domain is confirmed at once, another waits unconfirmed', async () => {
    const kim = ids['kim@corp.example']!;
    const res = await api.post(`/users/${kim}/alternateemails`, [{ email: 'Kim.Alt@corp.example' }, { email: 'kim@personal.example' }]);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.message, 'SUCCESS');
    assert.deepEqual(res.body.data.map((a: { email: string; confirmed: boolean }) => [a.email, a.confirmed]), [['kim.alt@corp.example', true], ['kim@personal.example', false]]);
    // the same list as `result`, where the Java and C# SDKs read it
    assert.deepEqual(res.body.result, res.body.data);
    const list = await api.get(`/users/${kim}/alternateemails`);
    assert.equal(list.body.totalCount, 2);
    const one = await api.get(`/users/${kim}/alternateemails/${res.body.data[0].id}`);
    assert.deepEqual(one.body, res.body.data[0]);
    const profile = await api.get(`/users/${kim}`);
    assert.equal(profile.body.alternateEmails.length, 2);
    // the user reads their own; another member may not
    assert.equal((await api.get(`/users/${kim}/alternateemails`, { token: tokens['kim@corp.example'] })).status, 200);
    assertError(await api.get(`/users/${kim}/alternateemails`, { token: tokens['lee@corp.example'] }), 403, 1004);
  });
  test('refused additions change nothing', async () => {
    const kim = ids['kim@corp.example']!;
    const lee = ids['lee@corp.example']!;
    const before = await alternates(kim);
    const beforeLee = await alternates(lee);
    assertError(await api.post(`/users/${kim}/alternateemails`, [{ email: 'another@corp.example' }]), 400, 1360);
    assertError(await api.post(`/users/${lee}/alternateemails`, [{ email: 'max@other.example' }]), 400, 1157);
    assertError(await api.post(`/users/${lee}/alternateemails`, [{ email: 'kim.alt@corp.example' }]), 403, 1180);
    assertError(await api.post(`/users/${lee}/alternateemails`, [{ email: 'bad address' }]), 400, 1156);
    assertError(await api.post(`/users/${lee}/alternateemails`, [{ email: 'dup@corp.example' }, { email: 'DUP@corp.example' }]), 400, 1160);
    assertError(await api.post(`/users/${lee}/alternateemails`, []), 400, 1160);
    assertError(await api.post(`/users/${lee}/alternateemails`, [{ email: 'lee@corp.example' }]), 400, 1160);
    assertError(await api.post(`/users/${lee}/alternateemails`, [{ email: 'lee2@corp.example' }], { token: tokens['lee@corp.example'] }), 403, 1004);
    assertError(await api.post('/users/1234567890123/alternateemails', [{ email: 'x@corp.example' }]), 404, 1020);
    const many = Array.from({ length: 11 }, (_, i) => ({ email: `lee.${i}@corp.example` }));
    const limit = await api.post(`/users/${lee}/alternateemails`, many);
    assertError(limit, 400, 1330);
    assert.match(limit.body.message, /10/);
    assert.deepEqual(await alternates(kim), before);
    assert.deepEqual(await alternates(lee), beforeLee);
  });
  test('an alternate address is refused where a primary one is needed (1159)', async () => {
    const res = await api.post('/users', { email: 'kim.alt@corp.example' });
    assertError(res, 400, 1159);
    assert.match(res.body.message, /kim@corp\.example/);
    assertError(await api.post('/groups', { name: 'G', members: [{ email: 'kim.alt@corp.example' }] }), 400, 1159);
    await assert.rejects(assertPrimaryEmail(t.server.store.db, 'KIM.ALT@corp.example'), (e: { errorCode?: number }) => e.errorCode === 1159);
    await assertPrimaryEmail(t.server.store.db, 'kim@corp.example');
    await assertPrimaryEmail(t.server.store.db, 'nobody@anywhere.example');
  });
  test('make primary swaps the addresses when the rules allow it', async () => {
    const kim = ids['kim@corp.example']!;
    const list = await alternates(kim);
    const confirmed = list.find((a) => a.email === 'kim.alt@corp.example');
    const unconfirmed = list.find((a) => a.email === 'kim@personal.example');
    assertError(await api.post(`/users/${kim}/alternateemails/${unconfirmed!.id}/makeprimary`), 400, 1158);
    assertError(await api.post(`/users/${kim}/alternateemails/${confirmed!.id}/makeprimary`, undefined, { token: tokens['kim@corp.example'] }), 403, 1004);
    assertError(await api.post(`/users/${kim}/alternateemails/1234567890123/makeprimary`), 404, 1006);
    // a primary address outside the validated domains cannot be swapped
    const max = ids['max@other.example']!;
    const maxAlt = await api.post(`/users/${max}/alternateemails`, [{ email: 'max@corp.example' }]);
    assert.equal(maxAlt.status, 200);
    assertError(await api.post(`/users/${max}/alternateemails/${maxAlt.body.data[0].id}/makeprimary`), 403, 1186);
    // only enterprise organizations change primary addresses
    const db = t.server.store.db;
    await db.updateTable('orgs').set({ plan: 'BUSINESS' }).execute();
    assertError(await api.post(`/users/${kim}/alternateemails/${confirmed!.id}/makeprimary`), 400, 1189);
    await db.updateTable('orgs').set({ plan: 'ENTERPRISE' }).execute();
    assert.equal((await api.get(`/users/${kim}`)).body.email, 'kim@corp.example');
    const res = await api.post(`/users/${kim}/alternateemails/${confirmed!.id}/makeprimary`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body.data, [{ id: confirmed!.id, email: 'kim@corp.example', confirmed: true }]);
    assert.deepEqual(res.body.result, res.body.data[0]);
    assert.equal((await api.get(`/users/${kim}`)).body.email, 'kim.alt@corp.example');
    assert.equal((await api.get('/users/me', { token: tokens['kim@corp.example'] })).body.email, 'kim.alt@corp.example');
    // the former primary is now an alternate address
    assertError(await api.post('/users', { email: 'kim@corp.example' }), 400, 1159);
  });
  test('validating a domain confirms its waiting addresses; delete removes one', async () => {
    const kim = ids['kim@corp.example']!;
    assert.equal((await api.post('/validateddomains', { domain: 'personal.example' })).status, 200);
    const list = await alternates(kim);
    assert.ok(list.every((a) => a.confirmed));
    const personal = list.find((a) => a.email === 'kim@personal.example')!;
    assertError(await api.del(`/users/${kim}/alternateemails/${personal.id}`, { token: tokens['lee@corp.example'] }), 403, 1004);
    assert.equal((await api.del(`/users/${kim}/alternateemails/${personal.id}`, { token: tokens['kim@corp.example'] })).status, 200);
    assertError(await api.get(`/users/${kim}/alternateemails/${personal.id}`), 404, 1006);
    assertError(await api.del(`/users/${kim}/alternateemails/${personal.id}`), 404, 1006);
    assert.equal((await alternates(kim)).length, list.length - 1);
  });
  test('through the SDK', async () => {
    const c = smartsheet.createClient({ accessToken: t.adminToken, baseUrl: t.base + '/', logLevel: 'error' });
    const sam = ids['sam@corp.example']!;
    const added = await c.users.addAlternateEmail({ userId: sam, body: [{ email: 'sam.b@corp.example' }] });
    const altId = added.data[0]!.id as number;
    const listed = await c.users.listAlternateEmails({ userId: sam });
    assert.equal(listed.totalCount, 1);
    const got = await c.users.getAlternateEmail({ userId: sam, alternateEmailId: altId });
    assert.equal(got.email, 'sam.b@corp.example');
    await c.users.makeAlternateEmailPrimary({ userId: sam, alternateEmailId: altId });
    assert.equal((await c.users.getUser({ userId: sam })).email, 'sam.b@corp.example');
    await c.users.deleteAlternateEmail({ userId: sam, alternateEmailId: altId });
    assert.equal((await c.users.listAlternateEmails({ userId: sam })).totalCount, 0);
  });
});
