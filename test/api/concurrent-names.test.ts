import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverForFile } from '../helpers/setup.ts';
import { makeSheet } from '../helpers/sheets.ts';
import type { Res } from '../helpers/http.ts';
import { pngBytes } from '../helpers/images.ts';
import { tokenFor } from '../helpers/tokens.ts';

// Requests that take a name or an address at the same moment: one takes it, the others get the
// catalogued answer a later request would, and nothing is made twice. Against the cluster the
// requests reach different processes; on PostgreSQL each would otherwise find the name free.
const s0 = serverForFile({ SHEETD_RATE_LIMIT: '100000' });
const run = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
const codes = (rs: Res[]) => rs.map((r) => (r.status === 200 ? 200 : `${r.status}/${(r.body as { errorCode?: number }).errorCode}`)).sort();
const many = <T>(n: number, f: (i: number) => Promise<T>) => Promise.all(Array.from({ length: n }, (_, i) => f(i)));

test('Add User with one new address six times at once: one user, five 1016', async () => {
  const email = `same.${run}@example.com`;
  const rs = await many(6, () => s0.api.post('/users', { email }));
  assert.deepEqual(codes(rs), [200, '403/1016', '403/1016', '403/1016', '403/1016', '403/1016']);
  assert.equal((await s0.api.get(`/users?email=${email}`)).body.totalCount, 1);
});

test('Add Group with one name in two cases six times at once: one group, five 1103', async () => {
  const rs = await many(6, (i) => s0.api.post('/groups', { name: i % 2 ? `Crew ${run}` : `crew ${run}` }));
  assert.deepEqual(codes(rs), [200, '400/1103', '400/1103', '400/1103', '400/1103', '400/1103']);
  const groups = (await s0.api.get('/groups?includeAll=true')).body.data as Array<{ name: string }>;
  assert.equal(groups.filter((g) => g.name.toLowerCase() === `crew ${run}`).length, 1);
});

test('the same member, favorite and shares added five times at once: each once, every request answered 200', async () => {
  const email = `member.${run}@example.com`;
  assert.equal((await s0.api.post('/users', { email })).status, 200);
  const group = await s0.api.post('/groups', { name: `Members ${run}` });
  assert.equal(group.status, 200, group.text);
  const gid = group.body.result.id as number;
  const s = await makeSheet(s0.api, `shared ${run}`, [{ title: 'A', type: 'TEXT_NUMBER', primary: true }]);
  const ws = await s0.api.post('/workspaces', { name: `ws ${run}` });
  assert.equal(ws.status, 200, ws.text);
  const wid = ws.body.result.id as number;
  const outside = `outside.${run}@example.org`;
  const all = await Promise.all([
    many(5, () => s0.api.post(`/groups/${gid}/members`, [{ email }])),
    many(5, () => s0.api.post(`/sheets/${s.id}/shares`, [{ email, accessLevel: 'EDITOR' }, { email: outside, accessLevel: 'VIEWER' }])),
    many(5, () => s0.api.post(`/workspaces/${wid}/shares`, [{ email, accessLevel: 'EDITOR' }])),
  ]);
  for (const rs of all) assert.deepEqual(codes(rs), [200, 200, 200, 200, 200], JSON.stringify(rs.map((r) => r.body)));
  const members = (await s0.api.get(`/groups/${gid}`)).body.members as Array<{ email: string }>;
  assert.equal(members.filter((m) => m.email === email).length, 1);
  // the member's favorites (the admin's are another file's to list, against the cluster)
  const as = { token: await tokenFor(s0.t, email) };
  const favs = await many(5, () => s0.api.post('/favorites', [{ type: 'sheet', objectId: s.id }], as));
  assert.deepEqual(codes(favs), [200, 200, 200, 200, 200], JSON.stringify(favs.map((r) => r.body)));
  const favorites = (await s0.api.get('/favorites?includeAll=true', as)).body.data as Array<{ objectId: number }>;
  assert.deepEqual(favorites.map((f) => f.objectId), [s.id]);
  const shares = (await s0.api.get(`/sheets/${s.id}/shares?includeAll=true`)).body.data as Array<{ email?: string }>;
  assert.equal(shares.filter((x) => x.email === email).length, 1);
  assert.equal(shares.filter((x) => x.email === outside).length, 1);
  const wshares = (await s0.api.get(`/workspaces/${wid}/shares?includeAll=true`)).body.data as Array<{ email?: string }>;
  assert.equal(wshares.filter((x) => x.email === email).length, 1);
});

test('one alternate address given to three users at once: one takes it, two get 1180', async () => {
  const ids = await many(3, async (i) => {
    const r = await s0.api.post('/users', { email: `alt.owner${i}.${run}@example.com` });
    assert.equal(r.status, 200, r.text);
    return r.body.result.id as number;
  });
  const rs = await Promise.all(ids.map((id) => s0.api.post(`/users/${id}/alternateemails`, [{ email: `alt.${run}@example.com` }])));
  assert.deepEqual(codes(rs), [200, '403/1180', '403/1180']);
  let holders = 0;
  for (const id of ids) holders += ((await s0.api.get(`/users/${id}/alternateemails`)).body.data as unknown[]).length;
  assert.equal(holders, 1);
});

test('one report\'s scope changed five times at once: every request answered 200, each source once', async () => {
  const a = await makeSheet(s0.api, `report a ${run}`, [{ title: 'Task', type: 'TEXT_NUMBER', primary: true }]);
  const b = await makeSheet(s0.api, `report b ${run}`, [{ title: 'Task', type: 'TEXT_NUMBER', primary: true }]);
  const created = await s0.api.post('/sheetd/reports', { name: `Report ${run}`, scope: { sheets: [{ id: a.id }] }, columns: [{ title: 'Task', primary: true }] });
  assert.equal(created.status, 200, created.text);
  const id = created.body.result.id as number;
  const rs = await many(5, () => s0.api.put(`/sheetd/reports/${id}`, { scope: { sheets: [{ id: a.id }, { id: b.id }] } }));
  assert.deepEqual(codes(rs), [200, 200, 200, 200, 200], JSON.stringify(rs.map((r) => r.body)));
  const def = await s0.api.get(`/sheetd/reports/${id}`);
  assert.deepEqual((def.body.scope.sheets as Array<{ id: number }>).map((x) => x.id).sort(), [a.id, b.id].sort());
});

test('five new versions of one attachment at once: all made, one of them current, the versions listed once each', async () => {
  const s = await makeSheet(s0.api, `versions ${run}`, [{ title: 'Task', type: 'TEXT_NUMBER', primary: true }]);
  const upload = (path: string, text: string) => s0.api.call('POST', path, { raw: text, headers: { 'content-type': 'text/plain', 'content-disposition': 'attachment; filename="v.txt"' } });
  const first = await upload(`/sheets/${s.id}/attachments`, 'v1');
  assert.equal(first.status, 200, first.text);
  const rs = await many(5, (i) => upload(`/sheets/${s.id}/attachments/${first.body.result.id}/versions`, `v${i + 2}`));
  assert.deepEqual(codes(rs), [200, 200, 200, 200, 200], JSON.stringify(rs.map((r) => r.body)));
  // the sheet lists the lineage once, by its current version
  const listed = (await s0.api.get(`/sheets/${s.id}/attachments`)).body.data as Array<{ id: number }>;
  assert.equal(listed.length, 1);
  const versions = (await s0.api.get(`/sheets/${s.id}/attachments/${first.body.result.id}/versions`)).body.data as Array<{ id: number }>;
  assert.equal(versions.length, 6);
  assert.equal(versions[0]!.id, listed[0]!.id);
});

test('five new versions of one proof at once: versions 2 to 6, one current', async () => {
  const s = await makeSheet(s0.api, `proof versions ${run}`, [{ title: 'Task', type: 'TEXT_NUMBER', primary: true }]);
  const row = await s0.api.post(`/sheets/${s.id}/rows`, { toBottom: true, cells: [{ columnId: s.col.Task!.id, value: 'Poster' }] });
  const upload = (path: string, seed: number) => s0.api.call('POST', path, { raw: pngBytes(3, 3, seed), headers: { 'content-type': 'image/png', 'content-disposition': 'attachment; filename="p.png"' } });
  const proof = await upload(`/sheets/${s.id}/rows/${row.body.result.id}/proofs`, 1);
  assert.equal(proof.status, 200, proof.text);
  const rs = await many(5, (i) => upload(`/sheets/${s.id}/proofs/${proof.body.result.id}/versions`, i + 2));
  assert.deepEqual(codes(rs), [200, 200, 200, 200, 200], JSON.stringify(rs.map((r) => r.body)));
  const versions = (await s0.api.get(`/sheets/${s.id}/proofs/${proof.body.result.id}/versions`)).body.data as Array<{ version: number }>;
  assert.deepEqual(versions.map((v) => v.version), [6, 5, 4, 3, 2, 1]);
  const listed = (await s0.api.get(`/sheets/${s.id}/proofs`)).body.data as Array<{ version: number }>;
  assert.deepEqual(listed.map((v) => v.version), [6]);
});

test('two folders moved into each other at once: one move is refused (1258), the other folder holds it', async () => {
  // a home of its own (the admin's is listed by other files, against the cluster)
  const owner = `folders.${run}@example.com`;
  assert.equal((await s0.api.post('/users', { email: owner, licensedSheetCreator: true })).status, 200);
  const as = { token: await tokenFor(s0.t, owner) };
  const a = await s0.api.post('/home/folders', { name: `loop a ${run}` }, as);
  const b = await s0.api.post('/home/folders', { name: `loop b ${run}` }, as);
  assert.equal(a.status, 200, a.text);
  assert.equal(b.status, 200, b.text);
  const [ida, idb] = [a.body.result.id as number, b.body.result.id as number];
  const rs = await Promise.all([
    s0.api.post(`/folders/${ida}/move`, { destinationType: 'folder', destinationId: idb }, as),
    s0.api.post(`/folders/${idb}/move`, { destinationType: 'folder', destinationId: ida }, as),
  ]);
  assert.deepEqual(codes(rs), [200, '400/1258']);
  const home = ((await s0.api.get('/home/folders?includeAll=true', as)).body.data as Array<{ id: number }>).map((f) => f.id);
  assert.equal(home.length, 1);
  const inner = home[0] === ida ? idb : ida;
  const outer = await s0.api.get(`/folders/${home[0]}`, as);
  assert.deepEqual((outer.body.folders as Array<{ id: number }>).map((f) => f.id), [inner]);
});

test('deleted while things are made in it: a folder, a workspace, a group, a sheet; no 500, and nothing left pointing at what is gone', async () => {
  const cols = [{ title: 'A', type: 'TEXT_NUMBER', primary: true }];
  const ok = (r: Res, ...refusals: string[]) => assert.ok(r.status === 200 || refusals.includes(`${r.status}/${r.body?.errorCode}`), `${r.status} ${r.text}`);
  // sheets made in a folder being deleted: made before (and deleted with it) or refused
  const f = (await s0.api.post('/home/folders', { name: `doomed ${run}` })).body.result.id as number;
  const [delF, ...inF] = await Promise.all([s0.api.del(`/folders/${f}`), ...Array.from({ length: 4 }, (_, i) => s0.api.post(`/folders/${f}/sheets`, { name: `in folder ${i}`, columns: cols }))]);
  assert.equal(delF!.status, 200, delF!.text);
  for (const r of inF) {
    ok(r, '404/1006');
    if (r.status === 200) assertGone(await s0.api.get(`/sheets/${r.body.result.id}`));
  }
  // folders made in a workspace being deleted
  const w = (await s0.api.post('/workspaces', { name: `doomed ws ${run}` })).body.result.id as number;
  const [delW, ...inW] = await Promise.all([s0.api.del(`/workspaces/${w}`), ...Array.from({ length: 4 }, (_, i) => s0.api.post(`/workspaces/${w}/folders`, { name: `in ws ${i}` }))]);
  assert.equal(delW!.status, 200, delW!.text);
  for (const r of inW) {
    ok(r, '404/1006');
    if (r.status === 200) assertGone(await s0.api.get(`/folders/${r.body.result.id}`));
  }
  // members added to, and a sheet shared with, a group being deleted
  const email = `doomed.member.${run}@example.com`;
  assert.equal((await s0.api.post('/users', { email })).status, 200);
  const g = (await s0.api.post('/groups', { name: `doomed group ${run}` })).body.result.id as number;
  const s = await makeSheet(s0.api, `shared with doomed ${run}`, cols);
  const [delG, ...withG] = await Promise.all([
    s0.api.del(`/groups/${g}`),
    s0.api.post(`/groups/${g}/members`, [{ email }]),
    s0.api.post(`/sheets/${s.id}/shares`, [{ groupId: g, accessLevel: 'VIEWER' }]),
    s0.api.post(`/sheets/${s.id}/shares`, [{ groupId: g, accessLevel: 'EDITOR' }]),
  ]);
  assert.equal(delG!.status, 200, delG!.text);
  for (const r of withG) ok(r, '404/1106');
  const shares = (await s0.api.get(`/sheets/${s.id}/shares?includeAll=true`)).body.data as Array<{ groupId?: number }>;
  assert.deepEqual(shares.filter((x) => x.groupId === g), []);
  // a discussion and rows on a sheet being deleted
  const d = await makeSheet(s0.api, `doomed sheet ${run}`, cols);
  const [delS, ...onS] = await Promise.all([
    s0.api.del(`/sheets/${d.id}`),
    s0.api.post(`/sheets/${d.id}/discussions`, { comment: { text: 'hello' } }),
    s0.api.post(`/sheets/${d.id}/discussions`, { comment: { text: 'again' } }),
    s0.api.post(`/sheets/${d.id}/rows`, [{ toBottom: true, cells: [{ columnId: d.col.A!.id, value: 1 }] }]),
  ]);
  assert.equal(delS!.status, 200, delS!.text);
  for (const r of onS) ok(r, '404/1006');
});

function assertGone(r: Res): void {
  assert.equal(r.status, 404, r.text);
}
