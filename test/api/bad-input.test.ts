/**
 * Bad input of any kind gets the catalogued error and changes nothing: bulk bodies with
 * elements that are not objects, text no database can store (NUL, unpaired surrogates), and
 * ids that are not ids (1.5, -1, 2^63, 1e400), on SQLite and PostgreSQL alike.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { serverForFile } from '../helpers/setup.ts';
import { assertError, type Res } from '../helpers/http.ts';
import { makeSheet, makeUser } from '../helpers/sheets.ts';
import { jobsCreatedSince, snapshotDatabase, snapshotDiff } from '../helpers/snapshot.ts';

const s = serverForFile();
const JSON_TYPE = { 'content-type': 'application/json' };
let sheet: Awaited<ReturnType<typeof makeSheet>>;
let source: Awaited<ReturnType<typeof makeSheet>>;
let rowId: number;
let groupId: number;
let wsId: number;
let other: { id: number; token: string };

// node 20 may run a file's root hooks together: the fixture is made once, by the first suite
let ready: Promise<void> | null = null;
const fixture = () => (ready ??= (async () => {
  const api = s.api;
  sheet = await makeSheet(api, 'Bad input', [{ title: 'Name', type: 'TEXT_NUMBER', primary: true }, { title: 'Other', type: 'TEXT_NUMBER' }]);
  source = await makeSheet(api, 'Link source', [{ title: 'Key', type: 'TEXT_NUMBER', primary: true }]);
  rowId = (await api.post(`/sheets/${sheet.id}/rows`, { toBottom: true, cells: [{ columnId: sheet.col.Name!.id, value: 'a' }] })).body.result.id;
  other = await makeUser(s.t, api, 'other@example.org');
  groupId = (await api.post('/groups', { name: 'Existing' })).body.result.id;
  wsId = (await api.post('/workspaces', { name: 'WS' })).body.result.id;
})());

/** Sends the request and asserts the catalogued error and an unchanged database. */
async function refused(send: () => Promise<Res>, status: number, code: number): Promise<void> {
  const before = await snapshotDatabase(s.t.server.store);
  const sentAt = Date.now();
  const res = await send();
  assertError(res, status, code);
  const after = await snapshotDatabase(s.t.server.store);
  assert.ok(after === before, `the refused request changed the database:\n${snapshotDiff(before, after)}`);
  assert.equal(await jobsCreatedSince(s.t.server.store, sentAt), 0, 'the refused request created a job');
}

const raw = (method: string, path: string, text: string) => () => s.api.call(method, path, { raw: text, headers: JSON_TYPE });

describe('bulk bodies', () => {
  before(fixture);

  test('the database snapshot the refusals are checked with sees a change', async () => {
    const before = await snapshotDatabase(s.t.server.store);
    assert.equal((await s.api.put(`/groups/${groupId}`, { description: 'changed' })).status, 200);
    assert.notEqual(await snapshotDatabase(s.t.server.store), before);
  });
  const bulk = () => [
    ['POST', `/sheets/${sheet.id}/columns`],
    ['POST', `/sheets/${sheet.id}/rows`],
    ['PUT', `/sheets/${sheet.id}/rows`],
    ['POST', `/sheets/${sheet.id}/shares`],
    ['POST', `/workspaces/${wsId}/shares`],
    ['POST', `/groups/${groupId}/members`],
    ['POST', '/favorites'],
    ['POST', '/imageurls'],
  ] as const;

  test('a null element is 400/1177', async () => {
    for (const [method, path] of bulk()) await refused(raw(method, path, '[null]'), 400, 1177);
    await refused(raw('POST', `/sheets/${sheet.id}/columns`, '[{"title":"New","type":"TEXT_NUMBER","index":1},null]'), 400, 1177);
  });

  test('an element that is not an object (number, string, array) is 400/1008', async () => {
    for (const [method, path] of bulk()) {
      for (const text of ['[1]', '["x"]', '[[]]', '[true]']) await refused(raw(method, path, text), 400, 1008);
    }
  });

  test('a body that is not an object nor an array of them is 400/1008', async () => {
    for (const [method, path] of bulk().filter(([, p]) => p !== '/imageurls')) {
      for (const text of ['1', '"x"', 'true']) await refused(raw(method, path, text), 400, 1008);
    }
    await refused(raw('PUT', `/sheets/${sheet.id}/columns/${sheet.col.Other!.id}`, '[]'), 400, 1008);
    await refused(raw('PUT', `/sheets/${sheet.id}/columns/${sheet.col.Other!.id}`, '[{"title":"x"}]'), 400, 1008);
  });

  test('array attributes with a null element are 400/1176, with other elements 400/1031', async () => {
    await refused(raw('POST', '/groups', '{"name":"G","members":[null]}'), 400, 1176);
    await refused(raw('POST', '/groups', '{"name":"G","members":[1]}'), 400, 1031);
    await refused(raw('POST', '/groups', '{"name":"G","members":{}}'), 400, 1031);
  });
});

describe('text that no database can store', () => {
  before(fixture);
  test('a name with an unpaired surrogate is 400/1008, the second time too (was 500 on the duplicate)', async () => {
    for (let i = 0; i < 2; i++) await refused(() => s.api.post('/groups', { name: 'Team \ud800' }), 400, 1008);
    await refused(() => s.api.post('/groups', { name: 'Team \udc00 low' }), 400, 1008);
    await refused(() => s.api.post('/sheets', { name: 'x\udfff', columns: [{ title: 'A', type: 'TEXT_NUMBER', primary: true }] }), 400, 1008);
    await refused(() => s.api.post(`/sheets/${sheet.id}/rows`, [{ toTop: true, cells: [{ columnId: sheet.col.Name!.id, value: '\ud83d' }] }]), 400, 1008);
  });

  test('NUL in a name, an email, an object key or a cell is 400/1008', async () => {
    await refused(() => s.api.post('/groups', { name: 'a\u0000b' }), 400, 1008);
    await refused(() => s.api.post('/users', { email: 'nul\u0000@example.org' }), 400, 1008);
    await refused(() => s.api.post(`/sheets/${sheet.id}/shares`, { email: 'x\u0000@example.org', accessLevel: 'VIEWER' }), 400, 1008);
    await refused(() => s.api.post(`/sheets/${sheet.id}/rows`, { toTop: true, cells: [{ columnId: sheet.col.Name!.id, value: '\u0000' }] }), 400, 1008);
    await refused(raw('POST', '/groups', '{"name":"k","\\u0000":1}'), 400, 1008);
  });

  test('the error names where the bad text is', async () => {
    const res = await s.api.post(`/sheets/${sheet.id}/rows`, [{ toTop: true }, { toTop: true, cells: [{ columnId: sheet.col.Name!.id, value: 'a\u0000' }] }]);
    assertError(res, 400, 1008);
    assert.match(res.body.message, /\[1\]\.cells\[0\]\.value/);
  });

  test('NUL in a query value is 400/1018; in a path parameter 404/1006; in Assume-User 401/1030', async () => {
    await refused(() => s.api.get('/users?email=a%00b%40example.org'), 400, 1018);
    await refused(() => s.api.del(`/sheets/${sheet.id}/rows?ids=${rowId}&x=%00`), 400, 1018);
    await refused(() => s.api.get('/contacts/a%00b'), 404, 1006);
    await refused(() => s.api.del('/validateddomains/a%00b.example'), 404, 1006);
    await refused(() => s.api.get(`/sheets/${sheet.id}/shares/x%00`), 404, 1006);
    await refused(() => s.api.get('/users/me', { headers: { 'assume-user': 'other%00%40example.org' } }), 401, 1030);
    // a path that does not decode at all: the catalogued 404, not Fastify's own error shape
    await refused(() => s.api.get('/contacts/%ED%A0%80'), 404, 1006);
  });

  test('paired surrogates (emoji) are ordinary text: stored and read back exactly', async () => {
    const name = 'Team \ud83d\ude00 \u{1f468}\u200d\u{1f469}';
    const res = await s.api.post('/groups', { name });
    assert.equal(res.status, 200, res.text);
    assert.equal((await s.api.get(`/groups/${res.body.result.id}`)).body.name, name);
    const row = await s.api.post(`/sheets/${sheet.id}/rows`, { toBottom: true, cells: [{ columnId: sheet.col.Name!.id, value: '\ud83d\ude00' }] });
    assert.equal(row.status, 200, row.text);
    assert.equal(row.body.result.cells.find((c: { columnId: number }) => c.columnId === sheet.col.Name!.id).value, '\ud83d\ude00');
  });
});

describe('ids', () => {
  before(fixture);
  const notIds = ['1.5', '-1', '0', '9223372036854775808', '1e400', '"12"', 'true', '{}'];

  test('ownerId that is not an id is 400/1031 (was 500 on PostgreSQL)', async () => {
    for (const v of notIds) await refused(raw('PUT', `/groups/${groupId}`, `{"ownerId":${v}}`), 400, 1031);
    await refused(raw('PUT', `/groups/${groupId}`, `{"ownerId":${other.id + 1}}`), 400, 1031);
  });

  test('hyperlink.sheetId and linkInFromCell.sheetId that are not ids are 400/1031 (were 500 on PostgreSQL)', async () => {
    const cell = (attr: string) => `{"columnId":${sheet.col.Other!.id},"value":null,"${attr}":{"sheetId":VALUE,"rowId":${rowId},"columnId":${source.col.Key!.id}}}`;
    for (const v of notIds) {
      await refused(raw('PUT', `/sheets/${sheet.id}/rows`, `[{"id":${rowId},"cells":[${cell('hyperlink').replace('VALUE', v).replace(/,"rowId":\d+,"columnId":\d+/, '')}]}]`), 400, 1031);
      await refused(raw('PUT', `/sheets/${sheet.id}/rows`, `[{"id":${rowId},"cells":[${cell('linkInFromCell').replace('VALUE', v)}]}]`), 400, 1031);
    }
  });

  test('ids in other bodies: group members, favorites, shares, row copy, cross-sheet references', async () => {
    for (const v of notIds) {
      await refused(raw('POST', `/groups/${groupId}/members`, `{"id":${v}}`), 400, 1031);
      await refused(raw('POST', '/favorites', `{"type":"sheet","objectId":${v}}`), 400, 1031);
      await refused(raw('POST', `/sheets/${sheet.id}/shares`, `{"groupId":${v},"accessLevel":"VIEWER"}`), 400, 1031);
      await refused(raw('POST', `/sheets/${sheet.id}/rows/copy`, `{"rowIds":[${rowId}],"to":{"sheetId":${v}}}`), 400, 1031);
      await refused(raw('POST', `/sheets/${sheet.id}/rows/copy`, `{"rowIds":[${v}],"to":{"sheetId":${source.id}}}`), 400, 1031);
      await refused(raw('POST', `/sheets/${sheet.id}/crosssheetreferences`, `{"sourceSheetId":${v},"startColumnId":${source.col.Key!.id},"endColumnId":${source.col.Key!.id}}`), 400, 1031);
    }
  });

  test('path ids that are not ids are 404/1006', async () => {
    for (const v of ['1.5', '-1', '0', '9223372036854775808', '18446744073709551616', '1e400', '99999999999999999999', 'abc']) {
      await refused(() => s.api.get(`/sheets/${v}`), 404, 1006);
      // a well-formed id the organization has no group for is Group not found
      await refused(() => s.api.put(`/groups/${v}`, { name: 'x' }), 404, v === '0' ? 1106 : 1006);
      await refused(() => s.api.del(`/sheets/${sheet.id}/columns/${v}`), 404, 1006);
      await refused(() => s.api.get(`/sheets/${sheet.id}/rows/${v}`), 404, 1006);
    }
  });
});
