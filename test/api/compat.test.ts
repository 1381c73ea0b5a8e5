import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { serverForFile } from '../helpers/setup.ts';
import { assertError, makeSheet, makeUser } from '../helpers/sheets.ts';
import { tokenFor } from '../helpers/tokens.ts';

// Query parameters and headers as every official client spells them (the Python SDK sends
// `True`, others repeat parameters or put spaces in lists), on real endpoints.
const s = serverForFile();

async function sheets(n: number, tag: string): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < n; i++) ids.push((await makeSheet(s.api, `${tag} ${i}`, [{ title: 'A', type: 'TEXT_NUMBER', primary: true }])).id);
  return ids;
}

describe('boolean query parameters in any case', () => {
  test('includeAll=True, TRUE and true all lift paging; False and false keep it', async () => {
    await sheets(3, 'Bool');
    for (const v of ['True', 'TRUE', 'true', 'tRuE']) {
      const res = await s.api.get(`/sheets?includeAll=${v}&pageSize=1`);
      assert.equal(res.status, 200, v);
      assert.equal(res.body.pageSize, undefined, v);
      assert.equal(res.body.data.length, res.body.totalCount, v);
      assert.ok(res.body.totalCount >= 3);
    }
    for (const v of ['False', 'FALSE', 'false']) {
      const res = await s.api.get(`/sheets?includeAll=${v}&pageSize=1`);
      assert.equal(res.status, 200, v);
      assert.equal(res.body.pageSize, 1, v);
      assert.equal(res.body.data.length, 1, v);
    }
  });

  test('numericDates=True gives numbers; loadAll=TRUE loads nested folders', async () => {
    const res = await s.api.get('/sheets?numericDates=True');
    assert.equal(typeof res.body.data[0].createdAt, 'number');
    const ws = (await s.api.post('/workspaces', { name: 'Bool WS' })).body.result;
    const f = (await s.api.post(`/workspaces/${ws.id}/folders`, { name: 'Outer' })).body.result;
    await s.api.post(`/folders/${f.id}/folders`, { name: 'Inner' });
    const all = await s.api.get(`/workspaces/${ws.id}?loadAll=TRUE`);
    assert.equal(all.body.folders[0].folders[0].name, 'Inner');
    const top = await s.api.get(`/workspaces/${ws.id}?loadAll=False`);
    assert.equal(top.body.folders[0].folders, undefined);
  });

  test('anything but true or false is 400/1018', async () => {
    for (const v of ['yes', '1', 'truee', 'True ']) assertError(await s.api.get(`/sheets?includeAll=${encodeURIComponent(v)}`), 400, 1018);
  });
});

describe('lists and repeated parameters', () => {
  test('include with spaces after commas, and include repeated, name the same options', async () => {
    await sheets(1, 'List');
    for (const q of ['include=ownerInfo,sheetVersion', 'include=ownerInfo,%20sheetVersion', 'include=ownerInfo%20,%20sheetVersion', 'include=ownerInfo&include=sheetVersion']) {
      const res = await s.api.get(`/sheets?${q}`);
      assert.equal(res.status, 200, q);
      assert.equal(typeof res.body.data[0].ownerId, 'number', q);
      assert.equal(typeof res.body.data[0].version, 'number', q);
    }
  });

  test('id lists with spaces (Get Sheet rowIds, columnIds)', async () => {
    const sh = await makeSheet(s.api, 'Ids', [{ title: 'A', type: 'TEXT_NUMBER', primary: true }, { title: 'B', type: 'TEXT_NUMBER' }]);
    const rows = (await s.api.post(`/sheets/${sh.id}/rows`, [1, 2, 3].map((n) => ({ toBottom: true, cells: [{ columnId: sh.col.A!.id, value: n }] })))).body.result as Array<{ id: number }>;
    const res = await s.api.get(`/sheets/${sh.id}?rowIds=${rows[0]!.id},%20${rows[2]!.id}&columnIds=${sh.col.A!.id}`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.rows.map((r: { id: number }) => r.id), [rows[0]!.id, rows[2]!.id]);
    assert.deepEqual(res.body.columns.map((c: { id: number }) => c.id), [sh.col.A!.id]);
    assertError(await s.api.get(`/sheets/${sh.id}?rowIds=${rows[0]!.id},x`), 400, 1018);
  });

  test('a repeated scalar parameter counts by its first value', async () => {
    await sheets(2, 'Repeat');
    const paged = await s.api.get('/sheets?pageSize=1&pageSize=5');
    assert.equal(paged.body.pageSize, 1);
    assert.equal(paged.body.data.length, 1);
    const all = await s.api.get('/sheets?includeAll=true&includeAll=false&pageSize=1');
    assert.equal(all.body.pageSize, undefined);
    assert.ok(all.body.data.length >= 2);
    // a bad first value is refused even when a later one is good
    assertError(await s.api.get('/sheets?pageSize=x&pageSize=5'), 400, 1018);
  });
});

describe('headers', () => {
  test('the Authorization scheme in any case', async () => {
    for (const scheme of ['Bearer', 'bearer', 'BEARER']) {
      const res = await s.api.get('/users/me', { token: null, headers: { authorization: `${scheme} ${s.t.adminToken}` } });
      assert.equal(res.status, 200, scheme);
    }
    // another scheme carries no access token
    assertError(await s.api.get('/users/me', { token: null, headers: { authorization: `Basic ${s.t.adminToken}` } }), 401, 1001);
  });

  test('Content-Type and Accept with parameters and in any case', async () => {
    const body = JSON.stringify({ name: 'Typed', columns: [{ title: 'A', type: 'TEXT_NUMBER', primary: true }] });
    for (const ct of ['application/json', 'application/json; charset=UTF-8', 'Application/JSON;charset=utf-8']) {
      const res = await s.api.call('POST', '/sheets', { raw: body, headers: { 'content-type': ct, accept: 'Application/JSON; q=0.9, */*;q=0.1' } });
      assert.equal(res.status, 200, `${ct}: ${res.text}`);
    }
    assertError(await s.api.call('POST', '/sheets', { raw: body, headers: { 'content-type': 'text/plain' } }), 415, 1124);
    assertError(await s.api.get('/users/me', { headers: { accept: 'image/png' } }), 406, 1052);
  });
});

describe('exports are files named after the sheet', () => {
  const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
  test('CSV and both Excel types: attachment; filename="<sheet name>.<ext>" and the type asked for', async () => {
    const sh = await makeSheet(s.api, 'Budget 2026', [{ title: 'A', type: 'TEXT_NUMBER', primary: true }]);
    const csv = await s.api.get(`/sheets/${sh.id}`, { headers: { accept: 'text/csv' } });
    assert.equal(csv.status, 200);
    assert.match(csv.headers.get('content-type') ?? '', /^text\/csv; charset=utf-8$/);
    // filename* as well, always: the Python SDK reads the name only when a parameter follows it
    assert.equal(csv.headers.get('content-disposition'), 'attachment; filename="Budget 2026.csv"; filename*=UTF-8\'\'Budget%202026.csv');
    const ms = await s.api.get(`/sheets/${sh.id}`, { headers: { accept: 'application/vnd.ms-excel' } });
    assert.equal(ms.headers.get('content-type'), 'application/vnd.ms-excel');
    assert.equal(ms.headers.get('content-disposition'), 'attachment; filename="Budget 2026.xlsx"; filename*=UTF-8\'\'Budget%202026.xlsx');
    const ox = await s.api.get(`/sheets/${sh.id}`, { headers: { accept: XLSX } });
    assert.equal(ox.headers.get('content-type'), XLSX);
    assert.equal(ox.headers.get('content-disposition'), ms.headers.get('content-disposition'));
    // JSON stays JSON, with no disposition
    const json = await s.api.get(`/sheets/${sh.id}`);
    assert.equal(json.headers.get('content-disposition'), null);
  });

  test('quotes, slashes and non-ASCII names: an ASCII filename and the exact name in filename*', async () => {
    const quoted = await makeSheet(s.api, 'Plan "A"', [{ title: 'A', type: 'TEXT_NUMBER', primary: true }]);
    const r1 = await s.api.get(`/sheets/${quoted.id}`, { headers: { accept: 'text/csv' } });
    // no backslash-escaped quotes in the stand-in: clients that read it literally (the Python
    // SDK's /filename="(.+)";/) would name the file with the backslashes
    assert.equal(r1.headers.get('content-disposition'), 'attachment; filename="Plan _A_.csv"; filename*=UTF-8\'\'Plan%20%22A%22.csv');
    const slash = await makeSheet(s.api, 'Q1/Q2', [{ title: 'A', type: 'TEXT_NUMBER', primary: true }]);
    const r2 = await s.api.get(`/sheets/${slash.id}`, { headers: { accept: 'text/csv' } });
    assert.equal(r2.headers.get('content-disposition'), 'attachment; filename="Q1_Q2.csv"; filename*=UTF-8\'\'Q1_Q2.csv');
    const intl = await makeSheet(s.api, 'Café 日本', [{ title: 'A', type: 'TEXT_NUMBER', primary: true }]);
    const r3 = await s.api.get(`/sheets/${intl.id}`, { headers: { accept: 'application/vnd.ms-excel' } });
    const cd = r3.headers.get('content-disposition') ?? '';
    assert.equal(cd, `attachment; filename="Caf_ __.xlsx"; filename*=UTF-8''${encodeURIComponent('Café 日本.xlsx')}`);
    assert.equal(decodeURIComponent(/filename\*=UTF-8''(.*)$/.exec(cd)![1]!), 'Café 日本.xlsx');
  });
});

describe('Reset Shared Secret routes in both casings', () => {
  test('with ADMIN_WEBHOOKS: 404/1006 (no webhook exists yet); without it: 403/1004; no token: 401/1001', async () => {
    const limited = await tokenFor(s.t, s.t.config.adminEmail, { scopes: ['READ_SHEETS'] });
    for (const name of ['resetsharedsecret', 'resetSharedSecret']) {
      const path = `/webhooks/${2 ** 41}/${name}`;
      assertError(await s.api.post(path), 404, 1006);
      // an unregistered path would answer 1006 whatever the token: 1004 shows the route exists
      assertError(await s.api.post(path, undefined, { token: limited }), 403, 1004);
      assertError(await s.api.post(path, undefined, { token: null }), 401, 1001);
      assertError(await s.api.get(path), 405, 1010);
    }
    assertError(await s.api.post(`/webhooks/${2 ** 41}/RESETSHAREDSECRET`, undefined, { token: limited }), 404, 1006);
  });
});

describe('paths and bodies as the Java and C# SDKs write them', () => {
  test('a trailing slash names the same operation (deleteRows: DELETE /sheets/{id}/rows/?ids=, addFavorites: POST /favorites/)', async () => {
    const sh = await makeSheet(s.api, 'trailing slash', [{ title: 'A', type: 'TEXT_NUMBER', primary: true }]);
    const added = await s.api.post(`/sheets/${sh.id}/rows`, [1, 2].map((i) => ({ toBottom: true, cells: [{ columnId: sh.col.A!.id, value: `r${i}` }] })));
    assert.equal(added.status, 200, added.text);
    const ids = added.body.result.map((r: { id: number }) => r.id);
    const del = await s.api.del(`/sheets/${sh.id}/rows/?ids=${ids[0]}&ignoreRowsNotFound=true`);
    assert.equal(del.status, 200, del.text);
    assert.deepEqual(del.body.result, [ids[0]]);
    const left = await s.api.get(`/sheets/${sh.id}/`);
    assert.equal(left.status, 200, left.text);
    assert.deepEqual(left.body.rows.map((r: { id: number }) => r.id), [ids[1]]);
    // a user of its own: the admin's favorites are another file's in a cluster run (one server for all files)
    const user = await makeUser(s.t, s.api, 'trailing-slash@example.com');
    const mine = await s.api.post('/sheets', { name: 'my favorite', columns: [{ title: 'A', type: 'TEXT_NUMBER', primary: true }] }, { token: user.token });
    assert.equal(mine.status, 200, mine.text);
    const fav = await s.api.post('/favorites/', [{ type: 'sheet', objectId: mine.body.result.id }], { token: user.token });
    assert.equal(fav.status, 200, fav.text);
    const favs = await s.api.get('/favorites', { token: user.token });
    assert.deepEqual(favs.body.data.map((f: { objectId: number }) => f.objectId), [mine.body.result.id]);
    // the method still decides: a known path with another verb is 405, an unknown one 404
    assertError(await s.api.call('PATCH', '/favorites/'), 405, 1010);
    assertError(await s.api.get('/no-such-thing/'), 404, 1006);
  });

  test('destinationType in upper case (the SDKs write their DestinationType enum by name) copies and moves', async () => {
    const sh = await makeSheet(s.api, 'enum destination', [{ title: 'A', type: 'TEXT_NUMBER', primary: true }]);
    const folder = await s.api.post('/home/folders', { name: 'enum target' });
    assert.equal(folder.status, 200, folder.text);
    const copy = await s.api.post(`/sheets/${sh.id}/copy`, { destinationType: 'HOME', newName: 'enum copy' });
    assert.equal(copy.status, 200, copy.text);
    assert.equal(copy.body.result.name, 'enum copy');
    const move = await s.api.post(`/sheets/${sh.id}/move`, { destinationType: 'FOLDER', destinationId: folder.body.result.id });
    assert.equal(move.status, 200, move.text);
    const inFolder = await s.api.get(`/folders/${folder.body.result.id}`);
    assert.ok(inFolder.body.sheets.some((x: { id: number }) => x.id === sh.id), inFolder.text);
    const ws = await s.api.post('/workspaces', { name: 'enum ws' });
    const copied = await s.api.post(`/folders/${folder.body.result.id}/copy`, { destinationType: 'Workspace', destinationId: ws.body.result.id, newName: 'folder copy' });
    assert.equal(copied.status, 200, copied.text);
    assertError(await s.api.post(`/sheets/${sh.id}/copy`, { destinationType: 'SHEET', destinationId: sh.id }), 400, 1031);
  });
});

describe('values as the SDKs\' shared scenarios write them', () => {
  test('an empty string clears a checkbox (unchecked: false); blanks before a formula\'s equal sign are dropped', async () => {
    const sh = await makeSheet(s.api, 'clear checkbox', [{ title: 'A', type: 'TEXT_NUMBER', primary: true }, { title: 'Done', type: 'CHECKBOX' }]);
    const added = await s.api.post(`/sheets/${sh.id}/rows`, { cells: [{ columnId: sh.col.A!.id, value: 'a' }, { columnId: sh.col.Done!.id, value: true }] });
    assert.equal(added.status, 200, added.text);
    const rowId = added.body.result.id as number;
    const cleared = await s.api.put(`/sheets/${sh.id}/rows`, [{ id: rowId, cells: [{ columnId: sh.col.Done!.id, value: '' }] }]);
    assert.equal(cleared.status, 200, cleared.text);
    const row = (await s.api.get(`/sheets/${sh.id}/rows/${rowId}`)).body;
    assert.equal(row.cells.find((c: { columnId: number }) => c.columnId === sh.col.Done!.id).value, false);
    // other text is still refused by the strict checkbox
    assertError(await s.api.put(`/sheets/${sh.id}/rows`, [{ id: rowId, cells: [{ columnId: sh.col.Done!.id, value: 'maybe' }] }]), 400, 1042);
    // " = TODAY()" as a column formula (the C# SDK's test against the public service), "  =1+1" in a cell
    const col = await s.api.post(`/sheets/${sh.id}/columns`, [{ title: 'Today', index: 2, type: 'DATE', formula: ' = TODAY()' }]);
    assert.equal(col.status, 200, col.text);
    assert.match(col.body.result[0].formula, /^=\s*TODAY\(\)$/);
    const f = await s.api.put(`/sheets/${sh.id}/rows`, [{ id: rowId, cells: [{ columnId: sh.col.A!.id, formula: '  =1+1' }] }]);
    assert.equal(f.status, 200, f.text);
    const cell = f.body.result[0].cells.find((c: { columnId: number }) => c.columnId === sh.col.A!.id);
    assert.equal(cell.formula, '=1+1');
    assert.equal(cell.value, 2);
    assertError(await s.api.put(`/sheets/${sh.id}/rows`, [{ id: rowId, cells: [{ columnId: sh.col.A!.id, formula: ' 1+1' }] }]), 400, 1162);
  });
});

describe('include=ownerInfo: the owner\'s id and address on every list that shows owners', () => {
  type Item = { id: number; owner?: string; ownerId?: number };
  test('List Sheets, Reports and Dashboards; Home, Get Folder, Get Workspace and children: ownerId and owner of each item', async () => {
    const col = [{ title: 'A', type: 'TEXT_NUMBER', primary: true }];
    const admin = (await s.api.get('/users/me')).body as { id: number; email: string };
    // a user of its own owns a workspace and a folder of things, and sees the admin's shared ones
    const email = 'owner-info.user@example.com';
    const u = await makeUser(s.t, s.api, email);
    const as = { token: u.token };
    const ws = (await s.api.post('/workspaces', { name: 'oi ws' }, as)).body.result;
    const folder = (await s.api.post(`/workspaces/${ws.id}/folders`, { name: 'oi folder' }, as)).body.result;
    const inner = (await s.api.post(`/folders/${folder.id}/folders`, { name: 'oi inner' }, as)).body.result;
    const mySheet = (await s.api.post(`/folders/${folder.id}/sheets`, { name: 'oi mine', columns: col }, as)).body.result;
    const deepSheet = (await s.api.post(`/folders/${inner.id}/sheets`, { name: 'oi deep', columns: col }, as)).body.result;
    const myReport = await s.api.post('/sheetd/reports', { name: 'oi my report', destinationType: 'folder', destinationId: folder.id, scope: { sheets: [{ id: mySheet.id }] }, columns: [{ title: 'A', type: 'TEXT_NUMBER' }] }, as);
    assert.equal(myReport.status, 200, myReport.text);
    const mySight = await s.api.post('/sheetd/sights', { name: 'oi my dash', destinationType: 'folder', destinationId: folder.id }, as);
    assert.equal(mySight.status, 200, mySight.text);
    const theirSheet = await makeSheet(s.api, 'oi theirs', col);
    assert.equal((await s.api.post(`/sheets/${theirSheet.id}/shares`, { email, accessLevel: 'VIEWER' })).status, 200);
    const theirReport = (await s.api.post('/sheetd/reports', { name: 'oi their report', scope: { sheets: [{ id: theirSheet.id }] }, columns: [{ title: 'A', type: 'TEXT_NUMBER' }] })).body.result;
    assert.equal((await s.api.post(`/reports/${theirReport.id}/shares`, { email, accessLevel: 'VIEWER' })).status, 200);
    const theirSight = (await s.api.post('/sheetd/sights', { name: 'oi their dash' })).body.result;
    assert.equal((await s.api.post(`/sights/${theirSight.id}/shares`, { email, accessLevel: 'VIEWER' })).status, 200);

    const mine = { ownerId: u.id, owner: email };
    const theirs = { ownerId: admin.id, owner: admin.email };
    const check = (items: Item[], id: number, want: { ownerId: number; owner: string }, where: string) => {
      const x = items.find((i) => i.id === id);
      assert.ok(x, `${where}: ${id} listed`);
      assert.deepEqual({ ownerId: x.ownerId, owner: x.owner }, want, where);
    };
    const get = async (path: string) => {
      const r = await s.api.get(path, as);
      assert.equal(r.status, 200, `${path}: ${r.text}`);
      return r.body;
    };

    const sheets = (await get('/sheets?include=ownerInfo&includeAll=true')).data as Item[];
    check(sheets, mySheet.id, mine, 'List Sheets');
    check(sheets, deepSheet.id, mine, 'List Sheets');
    check(sheets, theirSheet.id, theirs, 'List Sheets');
    const reports = (await get('/reports?include=ownerInfo&includeAll=true')).data as Item[];
    check(reports, myReport.body.result.id, mine, 'List Reports');
    check(reports, theirReport.id, theirs, 'List Reports');
    const sights = (await get('/sights?include=ownerInfo&includeAll=true')).data as Item[];
    check(sights, mySight.body.result.id, mine, 'List Dashboards');
    check(sights, theirSight.id, theirs, 'List Dashboards');
    const paged = (await get('/sights?include=ownerInfo&maxItems=100')).data as Item[];
    check(paged, theirSight.id, theirs, 'List Dashboards (token paging)');

    for (const path of [`/folders/${folder.id}?include=ownerInfo`, `/workspaces/${ws.id}?include=ownerInfo&loadAll=true`]) {
      const body = await get(path);
      const f = path.startsWith('/folders') ? body : body.folders.find((x: Item) => x.id === folder.id);
      check(f.sheets, mySheet.id, mine, path);
      check(f.reports, myReport.body.result.id, mine, path);
      check(f.sights, mySight.body.result.id, mine, path);
      check(f.folders[0].sheets ?? (await get(`/folders/${inner.id}?include=ownerInfo`)).sheets, deepSheet.id, mine, `${path}, nested`);
    }
    for (const path of ['/folders/personal?include=ownerInfo', '/home?include=ownerInfo']) {
      const home = await get(path);
      check(home.sheets, theirSheet.id, theirs, path);
      check(home.reports, theirReport.id, theirs, path);
      check(home.sights, theirSight.id, theirs, path);
    }
    const children = (await get(`/folders/${folder.id}/children?include=ownerInfo`)).data as Array<Item & { resourceType: string }>;
    for (const [id, type] of [[mySheet.id, 'sheet'], [myReport.body.result.id, 'report'], [mySight.body.result.id, 'sight']] as const) {
      check(children.filter((c) => c.resourceType === type), id, mine, `folder children (${type})`);
    }
    assert.equal(children.find((c) => c.resourceType === 'folder')!.owner, undefined, 'a folder has no owner');

    // without ownerInfo: neither
    for (const x of [...(await get('/sheets?includeAll=true')).data, ...(await get(`/folders/${folder.id}`)).sheets] as Item[]) {
      assert.deepEqual([x.owner, x.ownerId], [undefined, undefined]);
    }
  });
});
