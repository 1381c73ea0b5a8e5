import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { simpleParser, type ParsedMail } from 'mailparser';
import { unzipSync, strFromU8 } from 'fflate';
import { pdfText } from '../helpers/pdf.ts';
import { serverForFile } from '../helpers/setup.ts';
import { client, allEvents } from '../helpers/http.ts';
import { assertError, makeSheet, makeUser } from '../helpers/sheets.ts';

// Reports as objects: in folders, workspaces and Home, in children listings, copy, move and
// delete of their containers, in /events; their shares, CSV and Excel files, and mail.
const s = serverForFile({ SHEETD_JOB_POLL_MS: '50' });


const cols = [{ title: 'Task', type: 'TEXT_NUMBER', primary: true }, { title: 'Due', type: 'DATE' }, { title: 'Points', type: 'TEXT_NUMBER' }];

async function reportOn(sheetIds: number[], name: string, where: Record<string, unknown> = {}) {
  const res = await s.api.post('/sheetd/reports', { name, ...where, scope: { sheets: sheetIds.map((id) => ({ id })) }, columns: [{ sheetNameColumn: true }, { title: 'Task', primary: true }, { title: 'Due', type: 'DATE' }, { title: 'Points', type: 'TEXT_NUMBER' }] });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.result as { id: number; name: string };
}

async function filledSheet(name: string, where = '/sheets') {
  const res = await s.api.post(where, { name, columns: cols });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const id = res.body.result.id as number;
  const c = (await s.api.get(`/sheets/${id}`)).body.columns as Array<{ id: number }>;
  await s.api.post(`/sheets/${id}/rows`, [
    { toBottom: true, cells: [{ columnId: c[0]!.id, value: 'Write, "quoted"' }, { columnId: c[1]!.id, value: '2026-03-04' }, { columnId: c[2]!.id, value: 7 }] },
    { toBottom: true, cells: [{ columnId: c[0]!.id, value: 'Ship' }] },
  ]);
  return id;
}

describe('reports in containers', () => {
  test('a report shows in its folder, workspace and Home, in children and metadata-free listings', async () => {
    const ws = (await s.api.post('/workspaces', { name: 'RC WS' })).body.result;
    const folder = (await s.api.post(`/workspaces/${ws.id}/folders`, { name: 'RC F' })).body.result;
    const homeFolder = (await s.api.post('/home/folders', { name: 'RC home folder' })).body.result;
    const sh = await filledSheet('RC sheet');
    const inWs = await reportOn([sh], 'RC in ws', { destinationType: 'workspace', destinationId: ws.id });
    const inFolder = await reportOn([sh], 'RC in folder', { destinationType: 'folder', destinationId: folder.id });
    const inHomeFolder = await reportOn([sh], 'RC in home folder', { destinationType: 'folder', destinationId: homeFolder.id });
    const inHome = await reportOn([sh], 'RC in home');
    const w = (await s.api.get(`/workspaces/${ws.id}`)).body;
    assert.deepEqual(w.reports.map((r: { id: number }) => r.id), [inWs.id]);
    assert.equal(w.reports[0].accessLevel, 'OWNER');
    assert.match(w.reports[0].permalink, /\/reports\//);
    assert.deepEqual((await s.api.get(`/folders/${folder.id}`)).body.reports.map((r: { id: number }) => r.id), [inFolder.id]);
    const home = (await s.api.get('/folders/personal')).body;
    assert.ok(home.reports.some((r: { id: number }) => r.id === inHome.id));
    assert.ok(!home.reports.some((r: { id: number }) => r.id === inWs.id));
    assert.deepEqual(home.folders.find((f: { id: number }) => f.id === homeFolder.id).reports.map((r: { id: number }) => r.id), [inHomeFolder.id]);
    const children = (await s.api.get(`/workspaces/${ws.id}/children`)).body.data;
    assert.deepEqual(children.map((c: { resourceType: string; id: number }) => [c.resourceType, c.id]), [['folder', folder.id], ['report', inWs.id]]);
    const onlyReports = (await s.api.get(`/folders/${folder.id}/children?childrenResourceTypes=reports`)).body.data;
    assert.deepEqual(onlyReports.map((c: { resourceType: string; id: number }) => [c.resourceType, c.id]), [['report', inFolder.id]]);
    // a workspace member sees the workspace's reports with the workspace's level
    const u = await makeUser(s.t, s.api, 'rc-member@example.org');
    await s.api.post(`/workspaces/${ws.id}/shares`, { email: 'rc-member@example.org', accessLevel: 'EDITOR' });
    const mine = (await client(s.t.base, u.token).get('/reports')).body.data;
    assert.deepEqual(mine.map((r: { id: number; accessLevel: string }) => [r.id, r.accessLevel]).sort(), [[inFolder.id, 'EDITOR'], [inWs.id, 'EDITOR']].sort());
  });

  test('copy and move of folders and workspaces carry their reports; delete removes them', async () => {
    const ws = (await s.api.post('/workspaces', { name: 'CM WS' })).body.result;
    const folder = (await s.api.post(`/workspaces/${ws.id}/folders`, { name: 'CM F' })).body.result;
    const sh = await filledSheet('CM sheet', `/folders/${folder.id}/sheets`);
    const rep = await reportOn([sh], 'CM report', { destinationType: 'folder', destinationId: folder.id });
    const wsRep = (await s.api.post('/sheetd/reports', { name: 'CM ws report', destinationType: 'workspace', destinationId: ws.id, scope: { workspaces: [{ id: ws.id }] }, columns: [{ sheetNameColumn: true }] })).body.result;
    // a workspace copy: its report reads the copied sheet, and the workspace report the new workspace
    const copy = await s.api.post(`/workspaces/${ws.id}/copy?include=data`, { newName: 'CM WS copy' });
    assert.equal(copy.status, 200, JSON.stringify(copy.body));
    const wsCopy = (await s.api.get(`/workspaces/${copy.body.result.id}?loadAll=true`)).body;
    const fCopy = wsCopy.folders[0];
    const sheetCopy = fCopy.sheets[0].id;
    assert.notEqual(sheetCopy, sh);
    const repCopy = fCopy.reports[0];
    assert.equal(repCopy.name, 'CM report');
    assert.notEqual(repCopy.id, rep.id);
    const rc = (await s.api.get(`/reports/${repCopy.id}`)).body;
    assert.deepEqual([...new Set(rc.rows.map((r: { sheetId: number }) => r.sheetId))], [sheetCopy]);
    const wsRepCopy = wsCopy.reports[0];
    assert.deepEqual((await s.api.get(`/sheetd/reports/${wsRepCopy.id}`)).body.scope.workspaces, [{ id: copy.body.result.id }]);
    assert.deepEqual((await s.api.get(`/sheetd/reports/${wsRep.id}`)).body.scope.workspaces, [{ id: ws.id }]);
    // a folder moved home: its report goes along, out of the workspace
    assert.equal((await s.api.post(`/folders/${folder.id}/move`, { destinationType: 'home', destinationId: null })).status, 200);
    assert.deepEqual((await s.api.get(`/folders/${folder.id}`)).body.reports.map((r: { id: number }) => r.id), [rep.id]);
    assert.deepEqual((await s.api.get(`/workspaces/${ws.id}/children?childrenResourceTypes=reports`)).body.data.map((c: { id: number }) => c.id), [wsRep.id]);
    // deleting the folder and the workspace deletes their reports
    assert.equal((await s.api.del(`/folders/${folder.id}`)).status, 200);
    assertError(await s.api.get(`/reports/${rep.id}`), 404, 1006);
    assert.equal((await s.api.del(`/workspaces/${ws.id}`)).status, 200);
    assertError(await s.api.get(`/reports/${wsRep.id}`), 404, 1006);
  });

  test('report changes are events', async () => {
    const since = new Date(Date.now() - 3600_000).toISOString().replace(/\.\d+Z$/, 'Z');
    const sh = await filledSheet('Ev sheet');
    const rep = await reportOn([sh], 'Ev report');
    await s.api.put(`/sheetd/reports/${rep.id}`, { name: 'Ev report 2' });
    await s.api.post(`/reports/${rep.id}/shares`, { email: 'rc-member@example.org', accessLevel: 'VIEWER' });
    await s.api.del(`/sheetd/reports/${rep.id}`);
    const mine = (await allEvents<{ objectType: string; action: string; objectId: number }>(s.api, since)).filter((e) => e.objectId === rep.id);
    assert.deepEqual(mine.map((e) => [e.objectType.toUpperCase(), e.action]), [['REPORT', 'CREATE'], ['REPORT', 'RENAME'], ['REPORT', 'ADD_SHARE'], ['REPORT', 'DELETE']]);
  });
});

describe('report shares', () => {
  test('the five share operations, as for sheets', async () => {
    const sh = await filledSheet('Sh sheet');
    const rep = await reportOn([sh], 'Sh report');
    const u = await makeUser(s.t, s.api, 'share-target@example.org');
    const created = await s.api.post(`/reports/${rep.id}/shares`, [{ email: 'share-target@example.org', accessLevel: 'EDITOR' }]);
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const shareId = created.body.result[0].id;
    assert.equal(created.body.result[0].userId, u.id);
    assertError(await s.api.post(`/reports/${rep.id}/shares`, { email: 'share-target@example.org', accessLevel: 'VIEWER' }), 400, 1025);
    assertError(await s.api.post(`/reports/${rep.id}/shares`, { email: 'share-target@example.org', accessLevel: 'OWNER' }), 403, 1026);
    const list = (await s.api.get(`/reports/${rep.id}/shares`)).body;
    assert.deepEqual(list.data.map((x: { accessLevel: string }) => x.accessLevel), ['OWNER', 'EDITOR']);
    assert.equal((await s.api.get(`/reports/${rep.id}/shares/${shareId}`)).body.email, 'share-target@example.org');
    const upd = await s.api.put(`/reports/${rep.id}/shares/${shareId}`, { accessLevel: 'ADMIN' });
    assert.equal(upd.body.result.accessLevel, 'ADMIN');
    const api = client(s.t.base, u.token);
    assert.equal((await api.get(`/reports/${rep.id}`)).body.accessLevel, 'ADMIN');
    assert.equal((await api.put(`/sheetd/reports/${rep.id}`, { name: 'Renamed by admin' })).status, 200);
    // the same shares through the asset form
    const asset = (await s.api.get(`/shares?assetType=report&assetId=${rep.id}`)).body;
    assert.deepEqual(asset.items.map((x: { id: string }) => x.id), list.data.map((x: { id: string }) => x.id));
    assert.equal((await s.api.del(`/reports/${rep.id}/shares/${shareId}`)).status, 200);
    assertError(await api.get(`/reports/${rep.id}`), 404, 1006);
    assertError(await s.api.get(`/reports/${rep.id}/shares/${shareId}`), 404, 1027);
  });

  test('a token without SHARE_SHEETS cannot share; a viewer cannot share', async () => {
    const sh = await filledSheet('Sc sheet');
    const rep = await reportOn([sh], 'Sc report');
    const v = await makeUser(s.t, s.api, 'sc-viewer@example.org');
    await s.api.post(`/reports/${rep.id}/shares`, { email: 'sc-viewer@example.org', accessLevel: 'VIEWER' });
    assertError(await client(s.t.base, v.token).post(`/reports/${rep.id}/shares`, { email: 'x@example.org', accessLevel: 'VIEWER' }), 403, 1004);
    const r = await makeUser(s.t, s.api, 'sc-reader@example.org', ['READ_SHEETS']);
    await s.api.post(`/reports/${rep.id}/shares`, { email: 'sc-reader@example.org', accessLevel: 'ADMIN' });
    assertError(await client(s.t.base, r.token).post(`/reports/${rep.id}/shares`, { email: 'x@example.org', accessLevel: 'VIEWER' }), 403, 1004);
    assert.equal((await client(s.t.base, r.token).get(`/reports/${rep.id}`)).status, 200);
  });
});

describe('report files and mail', () => {
  test('CSV and Excel: every row, named after the report', async () => {
    const sh = await filledSheet('Csv sheet');
    const rep = await reportOn([sh], 'Quarterly/Plan é');
    const csv = await s.api.get(`/reports/${rep.id}`, { headers: { accept: 'text/csv' } });
    assert.equal(csv.status, 200);
    assert.match(csv.headers.get('content-type')!, /^text\/csv/);
    assert.match(csv.headers.get('content-disposition')!, /filename="Quarterly_Plan _\.csv"; filename\*=UTF-8''Quarterly_Plan%20%C3%A9\.csv/);
    assert.deepEqual(csv.text.split('\r\n'), ['Sheet Name,Task,Due,Points', 'Csv sheet,"Write, ""quoted""",2026-03-04,7', 'Csv sheet,Ship,,', '']);
    const x = await fetch(`${s.t.base}/reports/${rep.id}`, { headers: { authorization: `Bearer ${s.t.adminToken}`, accept: 'application/vnd.ms-excel' } });
    assert.equal(x.status, 200);
    assert.match(x.headers.get('content-disposition')!, /\.xlsx/);
    const files = unzipSync(new Uint8Array(await x.arrayBuffer()));
    const strings = strFromU8(files['xl/sharedStrings.xml']!);
    assert.ok(strings.includes('Sheet Name') && strings.includes('Ship'));
    assert.match(strFromU8(files['xl/worksheets/sheet1.xml']!), /<c r="D2"[^>]*><v>7<\/v>/);
  });

  /** Waits for `n` messages in the outbox not seen before, sorted by recipient. */
  async function newMail(n: number) {
    const outbox = path.join(s.t.dataDir, 'outbox');
    for (let i = 0; i < 200; i++) {
      const files = fs.existsSync(outbox) ? fs.readdirSync(outbox).filter((f) => f.endsWith('.eml') && !seen.has(f)) : [];
      if (files.length >= n) {
        await new Promise((r) => setTimeout(r, 100));
        const all = fs.readdirSync(outbox).filter((f) => f.endsWith('.eml') && !seen.has(f));
        for (const f of all) seen.add(f);
        const parsed = await Promise.all(all.map((f) => simpleParser(fs.readFileSync(path.join(outbox, f)))));
        return parsed.sort((x, y) => addr(x.to).localeCompare(addr(y.to)));
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    return assert.fail(`expected ${n} new messages`);
  }
  const seen = new Set<string>();
  const addr = (a: ParsedMail['to']) => (Array.isArray(a) ? a : a ? [a] : []).flatMap((x) => x.value.map((v) => v.address ?? '')).join(',');

  test('send report via email: each recipient and the sender (ccMe) get the workbook', async () => {
    const sh = await filledSheet('Mail sheet');
    const rep = await reportOn([sh], 'Mail report');
    assertError(await s.api.post(`/reports/${rep.id}/emails`, { subject: 'x', format: 'EXCEL' }), 400, 1012);
    assertError(await s.api.post(`/reports/${rep.id}/emails`, { sendTo: [{ email: 'a@example.org' }] }), 400, 1012);
    assertError(await s.api.post(`/reports/${rep.id}/emails`, { sendTo: [{ email: 'not an address' }], format: 'EXCEL' }), 400, 1156);
    assertError(await s.api.post(`/reports/${rep.id}/emails`, { sendTo: [{ email: 'a@example.org' }], format: 'WORD' }), 400, 1031);
    assertError(await s.api.post(`/reports/${rep.id}/emails`, { sendTo: [{ email: 'a@example.org' }], format: 'PDF', formatDetails: { paperSize: 'HUGE' } }), 400, 1053);
    const res = await s.api.post(`/reports/${rep.id}/emails`, { sendTo: [{ email: 'reader@example.org' }], subject: 'The report', message: 'Have a look', ccMe: true, format: 'EXCEL' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const mail = await newMail(2);
    assert.deepEqual(mail.map((m) => addr(m.to)), ['admin@example.com', 'reader@example.org']);
    for (const m of mail) {
      assert.equal(m.subject, 'The report');
      assert.match(m.text ?? '', /Have a look/);
      assert.equal(m.attachments.length, 1);
      assert.equal(m.attachments[0]!.filename, 'Mail report.xlsx');
      const book = unzipSync(new Uint8Array(m.attachments[0]!.content));
      assert.ok(strFromU8(book['xl/sharedStrings.xml']!).includes('Mail sheet'));
    }
  });

  test('send report via email as PDF: a landscape table on the paper size asked for', async () => {
    const sh = await filledSheet('Pdf sheet');
    const rep = await reportOn([sh], 'Pdf report');
    assert.equal((await s.api.post(`/reports/${rep.id}/emails`, { sendTo: [{ email: 'p@example.org' }], format: 'PDF', formatDetails: { paperSize: 'A4' } })).status, 200);
    const [mail] = await newMail(1);
    const pdf = mail!.attachments[0]!;
    assert.equal(pdf.filename, 'Pdf report.pdf');
    assert.equal(pdf.contentType, 'application/pdf');
    assert.match(pdf.content.toString('latin1'), /\/MediaBox \[0 0 841\.89 595\.28\]/, 'A4, landscape');
    const text = pdfText(pdf.content);
    if (text !== undefined) for (const t of ['Pdf report', 'Sheet Name', 'Pdf sheet', 'Ship']) assert.ok(text.includes(t), t);
  });
});

test('a sheet of another user in the scope needs access when the definition is written', async () => {
  const u = await makeUser(s.t, s.api, 'scope-owner@example.org');
  const theirs = await makeSheet(client(s.t.base, u.token), 'Theirs', cols);
  assertError(await s.api.post('/sheetd/reports', { name: 'x', scope: { sheets: [{ id: theirs.id }] }, columns: [{ title: 'Task' }] }), 404, 1006);
});

test('favorites: a report the caller can see, by name; an unknown report is 1006', async () => {
  const sh = await filledSheet('Fav sheet');
  const rep = await reportOn([sh], 'Fav report');
  assertError(await s.api.post('/favorites', { type: 'report', objectId: rep.id + 1 }), 404, 1006);
  assert.equal((await s.api.post('/favorites', { type: 'report', objectId: rep.id })).status, 200);
  const favs = (await s.api.get('/favorites?include=name&includeAll=true')).body.data;
  assert.ok(favs.some((f: { type: string; objectId: number; name?: string }) => f.type === 'report' && f.objectId === rep.id && f.name === 'Fav report'));
  const home = (await s.api.get('/folders/personal')).body;
  assert.equal(home.reports.find((r: { id: number }) => r.id === rep.id).favorite, true);
});

test('ownership moves with Update Share OWNER; a shared report shows in the recipient\'s Home; creating in a workspace needs ADMIN', async () => {
  const sh = await filledSheet('Own sheet');
  const f = (await s.api.post('/home/folders', { name: 'Own folder' })).body.result;
  const rep = await reportOn([sh], 'Own report', { destinationType: 'folder', destinationId: f.id });
  const u = await makeUser(s.t, s.api, 'new-owner@example.org');
  const api = client(s.t.base, u.token);
  const share = (await s.api.post(`/reports/${rep.id}/shares`, { email: 'new-owner@example.org', accessLevel: 'EDITOR' })).body.result;
  const home = (await api.get('/folders/personal')).body;
  assert.deepEqual(home.reports.filter((r: { id: number }) => r.id === rep.id).map((r: { accessLevel: string }) => r.accessLevel), ['EDITOR']);
  assert.equal((await s.api.put(`/reports/${rep.id}/shares/${share.id}`, { accessLevel: 'OWNER' })).status, 200);
  const def = (await api.get(`/sheetd/reports/${rep.id}`)).body;
  assert.equal(def.ownerId, u.id);
  assert.equal(def.accessLevel, 'OWNER');
  // it left the old owner's home folder for the new owner's home
  assert.deepEqual(def.location, { destinationType: 'home', destinationId: null });
  assert.equal((await s.api.get(`/reports/${rep.id}`)).body.accessLevel, 'ADMIN');
  assertError(await s.api.del(`/sheetd/reports/${rep.id}`), 403, 1004);
  // a workspace editor cannot create there; an admin can
  const ws = (await s.api.post('/workspaces', { name: 'Own WS' })).body.result;
  await s.api.post(`/workspaces/${ws.id}/shares`, { email: 'new-owner@example.org', accessLevel: 'EDITOR' });
  const body = { name: 'In WS', destinationType: 'workspace', destinationId: ws.id, columns: [{ title: 'Task' }] };
  assertError(await api.post('/sheetd/reports', body), 403, 1004);
  await s.api.put(`/workspaces/${ws.id}/shares/${(await s.api.get(`/workspaces/${ws.id}/shares`)).body.data[1].id}`, { accessLevel: 'ADMIN' });
  assert.equal((await api.post('/sheetd/reports', body)).status, 200);
});
