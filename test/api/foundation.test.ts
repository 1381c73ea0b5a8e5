import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import http from 'node:http';
import { startSuiteServer, type TestServer } from '../helpers/server.ts';
import { client, type Client, recorded } from '../helpers/http.ts';
import { createToken } from '../../src/services/identity/tokens.ts';
import { revokeToken } from '../../src/store/tokens.ts';
import { findUserByEmail } from '../../src/store/users.ts';
import type { EventAuthor } from '../../src/services/log/events.ts';

let t: TestServer;
let api: Client;

function assertError(res: { status: number; body: unknown }, status: number, code: number) {
  assert.equal(res.status, status, JSON.stringify(res.body));
  const b = res.body as Record<string, unknown>;
  assert.equal(b.errorCode, code);
  assert.equal(typeof b.message, 'string');
  assert.ok((b.message as string).length > 0);
  assert.equal(typeof b.refId, 'string');
}

async function tokenFor(email: string, opts: Parameters<typeof createToken>[3]) {
  const db = t.server.store.db;
  const u = await findUserByEmail(db, email);
  assert.ok(u);
  const author: EventAuthor = { orgId: u.org_id, userId: null, requestUserId: null, accessTokenName: null, source: 'TEST' };
  return createToken(db, author, u.id, opts);
}

before(async () => {
  t = await startSuiteServer();
  api = client(t.base, t.adminToken);
});
after(() => t.close());

describe('error catalogue for requests the server cannot route', () => {
  test('unknown URL is 404/1006', async () => {
    assertError(await api.get('/nothing/here'), 404, 1006);
    assertError(await api.get('/nothing/here', { token: null }), 404, 1006);
  });
  test('wrong verb on a known path is 405/1010 with an Allow header', async () => {
    const res = await api.del('/users/me');
    assertError(res, 405, 1010);
    const allow = res.headers.get('allow') ?? '';
    assert.ok(allow.split(/,\s*/).includes('GET'), allow);
    assert.ok(!allow.includes('DELETE'));
    const res2 = await api.put('/users', { a: 1 });
    assertError(res2, 405, 1010);
    assert.deepEqual(res2.headers.get('allow')!.split(/,\s*/).sort(), ['GET', 'HEAD', 'POST']);
  });
  test('unsupported version /1.0 is 404/1007; a retired version is 410/4005', async () => {
    const r1 = await fetch(t.url + '/1.0/sheets');
    assertError({ status: r1.status, body: await r1.json() }, 404, 1007);
    const r2 = await fetch(t.url + '/1.1/users/me');
    assertError({ status: r2.status, body: await r2.json() }, 410, 4005);
  });
  test('unacceptable Accept is 406/1052; JSON, wildcards and no Accept are fine', async () => {
    assertError(await api.get('/users/me', { headers: { accept: 'text/csv' } }), 406, 1052);
    assertError(await api.get('/serverinfo', { headers: { accept: 'image/png, text/html' } }), 406, 1052);
    assert.equal((await api.get('/users/me', { headers: { accept: 'application/json' } })).status, 200);
    assert.equal((await api.get('/users/me', { headers: { accept: '*/*' } })).status, 200);
    assert.equal((await api.get('/users/me', { headers: { accept: 'application/*;q=0.9, text/html' } })).status, 200);
  });
  test('unsupported request Content-Type is 415/1124 and changes nothing', async () => {
    const before = (await api.get('/users?includeAll=true')).body.totalCount;
    const res = await api.call('POST', '/users', { raw: 'email=a@b.co', headers: { 'content-type': 'text/plain' } });
    assertError(res, 415, 1124);
    const res2 = await api.call('POST', '/users', { raw: '<x/>', headers: { 'content-type': 'application/xml' } });
    assertError(res2, 415, 1124);
    assert.equal((await api.get('/users?includeAll=true')).body.totalCount, before);
  });
  test('unparsable JSON is 400/1008', async () => {
    const res = await api.call('POST', '/users', { raw: '{"email": ', headers: { 'content-type': 'application/json' } });
    assertError(res, 400, 1008);
  });
  test('missing body is 400/1024', async () => {
    assertError(await api.call('POST', '/users', {}), 400, 1024);
    assertError(await api.call('POST', '/users', { headers: { 'content-type': 'application/json' }, raw: '' }), 400, 1024);
  });
  test('a body over the configured limit answers the Error object, not another shape', async () => {
    const big = JSON.stringify({ email: 'x@y.co', pad: 'x'.repeat(t.config.bodyLimit + 10) });
    const res = await api.call('POST', '/users', { raw: big, headers: { 'content-type': 'application/json' } });
    assertError(res, 400, 1008);
  });
});

describe('authentication', () => {
  test('no Authorization is 401/1001', async () => {
    assertError(await api.get('/users/me', { token: null }), 401, 1001);
    assertError(await api.get('/users/me', { token: null, headers: { authorization: 'Bearer ' } }), 401, 1001);
  });
  test('unknown token is 401/1002', async () => {
    assertError(await api.get('/users/me', { token: 'nosuchtoken0000000000000000000000000' }), 401, 1002);
  });
  test('revoked token is 401/1002', async () => {
    const tok = await tokenFor(t.config.adminEmail, { name: 'to-revoke' });
    assert.equal((await api.get('/users/me', { token: tok.raw })).status, 200);
    await revokeToken(t.server.store.db, tok.id, Date.now());
    assertError(await api.get('/users/me', { token: tok.raw }), 401, 1002);
  });
  test('expired token is 401/1003', async () => {
    const tok = await tokenFor(t.config.adminEmail, { name: 'expired', expiresAt: Date.now() - 1000 });
    assertError(await api.get('/users/me', { token: tok.raw }), 401, 1003);
  });
  test('a token without the route scope is refused 403/1004; Get Current User needs none', async () => {
    const tok = await tokenFor(t.config.adminEmail, { name: 'narrow', scopes: ['READ_SHEETS'] });
    assertError(await api.get('/users', { token: tok.raw }), 403, 1004);
    const me = await api.get('/users/me', { token: tok.raw });
    assert.equal(me.status, 200);
    assert.equal(me.body.email, t.config.adminEmail);
  });
});

describe('first endpoints', () => {
  test('GET /users/me returns the UserProfile of the token owner', async () => {
    const res = await api.get('/users/me');
    assert.equal(res.status, 200);
    assert.equal(res.body.email, t.config.adminEmail);
    assert.equal(res.body.admin, true);
    assert.equal(typeof res.body.id, 'number');
    assert.ok(res.body.id < 2 ** 53 && res.body.id > 0);
    assert.equal(typeof res.body.account.id, 'number');
    assert.equal(res.body.locale, 'en_US');
  });
  test('GET /serverinfo returns the FormatTables of spec 2.1 in order, without a token', async () => {
    const res = await api.get('/serverinfo', { token: null });
    assert.equal(res.status, 200);
    const f = res.body.formats;
    assert.equal(typeof f.defaults, 'string');
    assert.equal(f.defaults.split(',').length, 17);
    for (const k of ['bold', 'italic', 'strikethrough', 'textWrap', 'thousandsSeparator', 'underline']) assert.deepEqual(f[k], ['none', 'on']);
    assert.equal(f.color.length, 42);
    assert.deepEqual(f.color.slice(0, 3), ['none', 'transparent', '#000000']);
    assert.equal(f.color[41], '#FFFFFF');
    assert.deepEqual(f.currency[0], { code: 'none', symbol: 'none' });
    assert.deepEqual(f.currency.map((c: { code: string }) => c.code).slice(1), ['ARS', 'AUD', 'BRL', 'CAD', 'CHF', 'CLP', 'CNY', 'DKK', 'EUR', 'GBP', 'HKD', 'ILS', 'INR', 'JPY', 'KRW', 'MXN', 'NOK', 'NZD', 'RUB', 'SEK', 'SGD', 'USD', 'ZAR']);
    assert.deepEqual(f.dateFormat, ['LOCALE_BASED', 'MMMM_D_YYYY', 'MMM_D_YYYY', 'D_MMM_YYYY', 'YYYY_MM_DD_HYPHEN', 'YYYY_MM_DD_DOT', 'DWWWW_MMMM_D_YYYY', 'DWWW_DD_MMM_YYYY', 'DWWW_MM_DD_YYYY', 'MMMM_D', 'D_MMMM']);
    assert.deepEqual(f.decimalCount, [['0', '1', '2', '3', '4', '5']]);
    assert.deepEqual(f.fontFamily.map((x: { name: string }) => x.name), ['Arial', 'Roboto', 'Tahoma', 'Times New Roman', 'Verdana']);
    assert.deepEqual(f.fontFamily[3].traits, ['serif']);
    assert.deepEqual(f.fontFamily[0].traits, ['sans-serif']);
    assert.deepEqual(f.fontSize, ['8', '9', '10', '12', '14', '16', '18', '20', '24', '28', '32', '36']);
    assert.deepEqual(f.horizontalAlign, ['default', 'left', 'center', 'right']);
    assert.deepEqual(f.verticalAlign, ['default', 'top', 'middle', 'bottom']);
    assert.deepEqual(f.numberFormat, ['none', 'NUMBER', 'CURRENCY', 'PERCENT']);
    assert.ok(res.body.supportedLocales.includes('en_US'));
    assert.equal(typeof res.body.featureInfo, 'object');
  });
  test('GET /health answers without a token', async () => {
    const res = await fetch(t.url + '/health');
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { status: 'ok' });
  });
});

describe('paging (IndexResult)', () => {
  const emails = Array.from({ length: 7 }, (_, i) => `pager${i}@example.org`);
  before(async () => {
    for (const email of emails) assert.equal((await api.post('/users', { email, firstName: 'P', lastName: String(emails.indexOf(email)) })).status, 200);
  });
  test('default page size is 100 and page 1', async () => {
    const res = await api.get('/users');
    assert.equal(res.body.pageNumber, 1);
    assert.equal(res.body.pageSize, 100);
    assert.equal(res.body.totalCount, 8);
    assert.equal(res.body.totalPages, 1);
    assert.equal(res.body.data.length, 8);
  });
  test('pages cover every item once, in a stable order', async () => {
    const seen: string[] = [];
    for (let page = 1; page <= 3; page++) {
      const res = await api.get(`/users?pageSize=3&page=${page}`);
      assert.equal(res.body.pageNumber, page);
      assert.equal(res.body.pageSize, 3);
      assert.equal(res.body.totalPages, 3);
      assert.equal(res.body.totalCount, 8);
      seen.push(...res.body.data.map((u: { email: string }) => u.email));
    }
    assert.equal(seen.length, 8);
    assert.equal(new Set(seen).size, 8);
  });
  test('a page past the end returns the last page', async () => {
    const res = await api.get('/users?pageSize=3&page=99');
    assert.equal(res.body.pageNumber, 3);
    assert.equal(res.body.data.length, 2);
  });
  test('includeAll omits pageSize and returns everything, ignoring page and pageSize', async () => {
    const res = await api.get('/users?includeAll=true&pageSize=2&page=2');
    assert.equal(res.body.pageNumber, 1);
    assert.equal('pageSize' in res.body, false);
    assert.equal(res.body.totalPages, 1);
    assert.equal(res.body.data.length, 8);
  });
  test('a filter that matches nothing is an empty first page', async () => {
    const res = await api.get('/users?email=nobody@example.org');
    assert.deepEqual({ ...res.body, data: undefined }, { pageNumber: 1, pageSize: 100, totalPages: 0, totalCount: 0, data: undefined });
  });
  test('bad paging values are 400/1018', async () => {
    assertError(await api.get('/users?page=0'), 400, 1018);
    assertError(await api.get('/users?pageSize=abc'), 400, 1018);
    assertError(await api.get('/users?includeAll=yes'), 400, 1018);
  });
});

describe('events and numericDates', () => {
  test('GET /events needs since or streamPosition (1228), not both (1227)', async () => {
    assertError(await api.get('/events'), 400, 1228);
    assertError(await api.get('/events?since=2020-01-01T00:00:00Z&streamPosition=sp1'), 400, 1227);
    assertError(await api.get('/events?since=2020-01-01T00:00:00Z&maxCount=0'), 400, 1229);
    assertError(await api.get('/events?since=yesterday'), 400, 1018);
  });
  test('events record the user add, in ISO dates by default and epoch ms with numericDates', async () => {
    const start = Date.now();
    assert.equal((await api.post('/users', { email: 'evented@example.org' })).status, 200);
    const iso = await api.get('/events?since=' + encodeURIComponent(new Date(start - 3_600_000).toISOString()));
    assert.equal(iso.status, 200);
    const ev = iso.body.data.find((e: { objectType: string; additionalDetails: { email?: string } }) => e.objectType === 'USER' && e.additionalDetails.email === 'evented@example.org');
    assert.ok(ev, JSON.stringify(iso.body));
    assert.match(ev.eventTimeStamp, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    assert.equal(typeof ev.eventId, 'string');
    const num = await api.get(`/events?numericDates=true&since=${start - 3_600_000}`);
    const ev2 = num.body.data.find((e: { eventId: string }) => e.eventId === ev.eventId);
    assert.equal(typeof ev2.eventTimeStamp, 'number');
    assert.equal(new Date(ev2.eventTimeStamp).toISOString().replace(/\.\d{3}Z$/, 'Z'), ev.eventTimeStamp);
    assert.ok(ev2.eventTimeStamp >= start - 1000);
    // epoch milliseconds without numericDates too (the C# SDK's ListEvents(since: 0) sends
    // since=0 alone); the answer's times stay ISO
    const ms = await api.get(`/events?since=${start - 3_600_000}`);
    assert.equal(ms.status, 200, ms.text);
    assert.equal(ms.body.data.find((e: { eventId: string }) => e.eventId === ev.eventId)?.eventTimeStamp, ev.eventTimeStamp);
    const zero = await api.get('/events?since=0&maxCount=10');
    assert.equal(zero.status, 200, zero.text);
    assert.ok(zero.body.data.length > 0 && zero.body.data.length <= 10);
    assertError(await api.get(`/events?since=${start}.5`), 400, 1018);
    assertError(await api.get('/events?since=-1'), 400, 1018);
    // the same time as the Python SDK writes a datetime given to list_events (str(): a space for
    // the T, microseconds) and as isoformat() + 'Z': the same events
    const sdkTime = new Date(start - 3_600_000).toISOString().replace('T', ' ').replace('Z', '123+00:00');
    for (const since of [sdkTime, sdkTime.replace(' ', 'T') + 'Z']) {
      const same = await api.get('/events?since=' + encodeURIComponent(since));
      assert.equal(same.status, 200, `${since}: ${same.text}`);
      assert.ok(same.body.data.some((e: { eventId: string }) => e.eventId === ev.eventId), since);
    }
    assertError(await api.get('/events?since=' + encodeURIComponent(new Date(start).toISOString() + 'Z')), 400, 1018);
    // an impossible time is not a time (it is not rolled over into the next month or day)
    for (const since of ['2020-02-30T00:00:00Z', '2020-01-01T24:00:00Z', '2020-13-01']) assertError(await api.get('/events?since=' + encodeURIComponent(since)), 400, 1018);
    assertError(await api.get('/users/sheets?modifiedSince=2021-04-31'), 400, 1018);
  });
  test('streamPosition continues where the previous call stopped', async () => {
    const first = await api.get('/events?since=2000-01-01T00:00:00Z&maxCount=2');
    assert.equal(first.body.data.length, 2);
    assert.equal(first.body.moreAvailable, true);
    const next = await api.get('/events?maxCount=10000&streamPosition=' + first.body.nextStreamPosition);
    const ids = new Set(first.body.data.map((e: { eventId: string }) => e.eventId));
    assert.ok(next.body.data.length > 0);
    for (const e of next.body.data) assert.ok(!ids.has(e.eventId));
    assert.equal(next.body.moreAvailable, false);
    const tail = await api.get('/events?streamPosition=' + next.body.nextStreamPosition);
    assert.deepEqual(tail.body.data, []);
    assert.equal(tail.body.nextStreamPosition, next.body.nextStreamPosition);
  });
  test('event ids are 24 characters of [a-z0-9], distinct within a write of many rows and across writes', async () => {
    const since = new Date(Date.now() - 3_600_000).toISOString();
    const sheet = await api.post('/sheets', { name: 'event ids', columns: [{ title: 'A', type: 'TEXT_NUMBER', primary: true }] });
    assert.equal(sheet.status, 200);
    const columnId = sheet.body.result.columns[0].id;
    const rowIds: number[] = [];
    for (let w = 0; w < 2; w++) {
      const added = await api.post(`/sheets/${sheet.body.result.id}/rows`, Array.from({ length: 100 }, (_, i) => ({ cells: [{ columnId, value: `${w}-${i}` }] })));
      assert.equal(added.status, 200);
      rowIds.push(...added.body.result.map((r: { id: number }) => r.id));
    }
    const res = await api.get(`/events?maxCount=10000&since=${encodeURIComponent(since)}`);
    const created = res.body.data.map(recorded).filter((e: { objectType: string; action: string; objectId: number }) => e.objectType === 'ROW' && e.action === 'CREATE' && rowIds.includes(e.objectId));
    assert.equal(created.length, 200);
    for (const e of created) assert.match(e.eventId, /^[a-z0-9]{24}$/);
    assert.equal(new Set(created.map((e: { eventId: string }) => e.eventId)).size, 200);
  });
  test('each row event of a write carries its own columns, equal or not to the one before', async () => {
    const since = new Date(Date.now() - 3_600_000).toISOString();
    const sheet = await api.post('/sheets', { name: 'event details', columns: [{ title: 'A', type: 'TEXT_NUMBER', primary: true }, { title: 'B', type: 'TEXT_NUMBER' }] });
    const [a, b] = sheet.body.result.columns.map((c: { id: number }) => c.id) as [number, number];
    const path = `/sheets/${sheet.body.result.id}/rows`;
    const added = await api.post(path, [[a], [a, b], [a, b], [b], [a]].map((cols) => ({ cells: cols.map((columnId) => ({ columnId, value: 'x' })) })));
    assert.equal(added.status, 200);
    const ids = added.body.result.map((r: { id: number }) => r.id) as number[];
    const updated = await api.put(path, [[b], [b], [a], [a, b], [b, a]].map((cols, i) => ({ id: ids[i], cells: cols.map((columnId) => ({ columnId, value: 'y' })) })));
    assert.equal(updated.status, 200);
    const res = await api.get(`/events?maxCount=10000&since=${encodeURIComponent(since)}`);
    const columnsOf = (action: string) => ids.map((id) => res.body.data.map(recorded).find((e: { objectType: string; action: string; objectId: number }) => e.objectType === 'ROW' && e.action === action && e.objectId === id)?.additionalDetails.columnIds);
    assert.deepEqual(columnsOf('CREATE'), [[a], [a, b], [a, b], [b], [a]]);
    assert.deepEqual(columnsOf('UPDATE'), [[b], [b], [a], [a, b], [b, a]]);
  });
  test('non-admins cannot read the organization events', async () => {
    const tok = await tokenFor('pager0@example.org', { name: 'plain' });
    assertError(await api.get('/events?since=2020-01-01T00:00:00Z', { token: tok.raw }), 403, 1004);
  });
});

describe('compression', () => {
  /** A request whose answer is read as sent (fetch would decompress it). */
  function rawHttp(method: string, path: string, headers: Record<string, string>, body?: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
    return new Promise((resolve, reject) => {
      const req = http.request(t.base + path, { method, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      });
      req.on('error', reject);
      req.end(body);
    });
  }
  const rawGet = (path: string, headers: Record<string, string>) => rawHttp('GET', path, headers);
  test('large bodies are gzip- or deflate-compressed when the client allows it', async () => {
    const gz = await rawGet('/serverinfo', { 'accept-encoding': 'gzip' });
    assert.equal(gz.headers['content-encoding'], 'gzip');
    const info = JSON.parse(zlib.gunzipSync(gz.body).toString('utf8'));
    assert.equal(info.formats.color.length, 42);
    const df = await rawGet('/serverinfo', { 'accept-encoding': 'deflate' });
    assert.equal(df.headers['content-encoding'], 'deflate');
    assert.equal(JSON.parse(zlib.inflateSync(df.body).toString('utf8')).formats.fontSize.length, 12);
    const plain = await rawGet('/serverinfo', {});
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.equal(JSON.parse(plain.body.toString('utf8')).formats.bold.length, 2);
  });
  test('an add of 500 rows is answered compressed in one piece, with its length; a larger answer is streamed compressed', async () => {
    const columns = Array.from({ length: 10 }, (_, i) => ({ title: `C${i}`, type: 'TEXT_NUMBER', ...(i === 0 ? { primary: true } : {}) }));
    const sheet = await api.post('/sheets', { name: 'compressed adds', columns });
    assert.equal(sheet.status, 200, JSON.stringify(sheet.body));
    const colIds = (sheet.body.result.columns as Array<{ id: number }>).map((c) => c.id);
    const add = async (value: (r: number, c: number) => string) => {
      const rows = Array.from({ length: 500 }, (_, r) => ({ toBottom: true, cells: colIds.map((columnId, c) => ({ columnId, value: value(r, c) })) }));
      const res = await rawHttp('POST', `/sheets/${sheet.body.result.id as number}/rows`, { authorization: `Bearer ${t.adminToken}`, 'content-type': 'application/json', 'accept-encoding': 'gzip' }, JSON.stringify(rows));
      assert.equal(res.status, 200);
      return res;
    };
    // about 400 KB of JSON: one gzip member of known length
    const small = await add((r, c) => `r${r}c${c}`);
    assert.equal(small.headers['content-encoding'], 'gzip');
    assert.equal(small.headers['transfer-encoding'], undefined);
    assert.equal(Number(small.headers['content-length']), small.body.length);
    const smallJson = zlib.gunzipSync(small.body).toString('utf8');
    assert.ok(smallJson.length > 100_000 && smallJson.length < 1024 * 1024, String(smallJson.length));
    const smallRows = JSON.parse(smallJson).result as Array<{ cells: Array<{ value: string }> }>;
    assert.equal(smallRows.length, 500);
    assert.equal(smallRows[499]!.cells[3]!.value, 'r499c3');
    // over 1 MB: compressed as a stream, without a length
    const large = await add((r, c) => `${'x'.repeat(300)} r${r}c${c}`);
    assert.equal(large.headers['content-encoding'], 'gzip');
    assert.equal(large.headers['content-length'], undefined);
    const largeJson = zlib.gunzipSync(large.body).toString('utf8');
    assert.ok(largeJson.length > 1024 * 1024, String(largeJson.length));
    assert.equal((JSON.parse(largeJson).result as Array<{ cells: Array<{ value: string }> }>)[7]!.cells[2]!.value, `${'x'.repeat(300)} r7c2`);
  });
  test('small bodies are sent as they are', async () => {
    const r = await rawGet('/users/me', { 'accept-encoding': 'gzip', authorization: `Bearer ${t.adminToken}` });
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-encoding'], undefined);
  });
});
