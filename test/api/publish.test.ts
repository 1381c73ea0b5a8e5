import { test } from 'node:test';
import assert from 'node:assert/strict';
import smartsheet from 'smartsheet';
import { serverForFile } from '../helpers/setup.ts';
import { assertError, makeSheet, makeUser } from '../helpers/sheets.ts';
import { browser, inputValue, signIn } from '../helpers/browser.ts';
import { setPassword } from '../../src/services/identity/sessions.ts';
import { findUserByEmail } from '../../src/store/users.ts';
import { allEvents } from '../helpers/http.ts';

// Publishing sheets and reports: the status through the API, the published pages and iCal feeds
// at the root, fetched as a visitor would, and the smartsheet SDK's publish methods.
const s = serverForFile();
const PASSWORD = 'published pages password';

const COLS = [
  { title: 'Task', type: 'TEXT_NUMBER', primary: true },
  { title: 'Start', type: 'DATE' },
  { title: 'Due', type: 'DATE' },
  { title: 'Cost', type: 'TEXT_NUMBER', format: ',,,,,,,,,,,22,2,1,2,,' },
];

async function fixture(tag: string) {
  const sh = await makeSheet(s.api, `${tag} plan`, COLS);
  const c = sh.col;
  const rows = await s.api.post(`/sheets/${sh.id}/rows`, [
    { toBottom: true, cells: [{ columnId: c.Task!.id, value: `${tag} design <b>`, format: ',,1,,,,,,,,,,,,,,' }, { columnId: c.Start!.id, value: '2026-03-02' }, { columnId: c.Due!.id, value: '2026-03-06' }, { columnId: c.Cost!.id, value: 1234.5 }] },
    { toBottom: true, cells: [{ columnId: c.Task!.id, value: `${tag} build` }, { columnId: c.Start!.id, value: '2026-03-09' }] },
    { toBottom: true, cells: [{ columnId: c.Task!.id, value: `${tag} no dates`, hyperlink: { url: 'https://example.com/no-dates' } }] },
  ]);
  assert.equal(rows.status, 200, rows.text);
  return { ...sh, rows: rows.body.result as Array<{ id: number }> };
}

const page = (url: string, headers: Record<string, string> = {}) => fetch(url, { redirect: 'manual', headers });

/** The VEVENTs of an iCalendar text (lines unfolded), each as its properties by name. */
function vevents(text: string): Array<Record<string, string>> {
  const lines = text.replace(/\r\n[ \t]/g, '').split('\r\n');
  const out: Array<Record<string, string>> = [];
  let cur: Record<string, string> | undefined;
  for (const line of lines) {
    if (line === 'BEGIN:VEVENT') cur = {};
    else if (line === 'END:VEVENT') {
      out.push(cur!);
      cur = undefined;
    } else if (cur) {
      const i = line.indexOf(':');
      cur[line.slice(0, i)] = line.slice(i + 1);
    }
  }
  return out;
}

test('a new sheet is not published; publishing returns working URLs at the root, the same on every read', async () => {
  const f = await fixture('p1');
  const none = await s.api.get(`/sheets/${f.id}/publish`);
  assert.equal(none.status, 200);
  assert.deepEqual(none.body, { readOnlyLiteEnabled: false, readOnlyFullEnabled: false, readWriteEnabled: false, icalEnabled: false });

  const put = await s.api.put(`/sheets/${f.id}/publish`, { readOnlyLiteEnabled: true, readOnlyFullEnabled: true, readOnlyFullAccessibleBy: 'ALL', icalEnabled: true });
  assert.equal(put.status, 200, put.text);
  assert.equal(put.body.message, 'SUCCESS');
  const r = put.body.result;
  assert.equal(r.readOnlyLiteEnabled, true);
  assert.equal(r.readOnlyFullEnabled, true);
  assert.equal(r.readOnlyFullAccessibleBy, 'ALL');
  assert.equal(r.readWriteEnabled, false);
  assert.equal(r.icalEnabled, true);
  for (const k of ['readOnlyLiteUrl', 'readOnlyLiteSslUrl', 'readOnlyFullUrl', 'icalUrl']) assert.ok(String(r[k]).startsWith(`${s.t.url}/published/`), `${k}: ${r[k]}`);
  assert.notEqual(r.readOnlyLiteUrl, r.readOnlyFullUrl);
  assert.match(r.icalUrl, /\.ics$/);
  // tokens are long and random
  assert.match(new URL(r.readOnlyLiteUrl).pathname, /^\/published\/[a-z0-9]{32}$/);

  const again = (await s.api.get(`/sheets/${f.id}/publish`)).body;
  assert.deepEqual(again, r);

  // the lite page: a table of what each cell shows, escaped, with simple formats
  const lite = await page(r.readOnlyLiteUrl);
  assert.equal(lite.status, 200);
  assert.match(lite.headers.get('content-type')!, /text\/html/);
  const html = await lite.text();
  assert.match(html, /<th scope="col">Task<\/th>/);
  assert.match(html, /p1 design &lt;b&gt;/);
  assert.ok(!html.includes('p1 design <b>'));
  assert.match(html, /<td class="b">p1 design/);
  assert.match(html, /\$1,234\.50/, 'display value of a currency-formatted number');
  assert.match(html, /<a href="https:\/\/example.com\/no-dates" rel="noopener noreferrer nofollow">p1 no dates<\/a>/);
  const css = await page(`${s.t.url}/static/published.css`);
  assert.equal(css.status, 200);
  assert.match(await css.text(), /\.pub td\.b \{ font-weight: 700; \}/);
});

test('the full view shows row comments and link attachments; the lite view does not', async () => {
  const f = await fixture('p2');
  const row = f.rows[0]!.id;
  assert.equal((await s.api.post(`/sheets/${f.id}/rows/${row}/discussions`, { comment: { text: 'Looks good to me' } })).status, 200);
  assert.equal((await s.api.post(`/sheets/${f.id}/rows/${row}/attachments`, { attachmentType: 'LINK', url: 'https://example.com/spec', name: 'The spec' })).status, 200);
  const r = (await s.api.put(`/sheets/${f.id}/publish`, { readOnlyLiteEnabled: true, readOnlyFullEnabled: true })).body.result;
  assert.equal(r.readOnlyFullAccessibleBy, 'ALL', 'the default when not given');
  const full = await (await page(r.readOnlyFullUrl)).text();
  assert.match(full, /Looks good to me/);
  assert.match(full, /<a href="https:\/\/example.com\/spec"[^>]*>The spec<\/a>/);
  const lite = await (await page(r.readOnlyLiteUrl)).text();
  assert.ok(!lite.includes('Looks good to me'));
  assert.ok(!lite.includes('The spec'));
});

test('iCal: one all-day VEVENT per row per date column, text/calendar', async () => {
  const f = await fixture('p3');
  const r = (await s.api.put(`/sheets/${f.id}/publish`, { icalEnabled: true })).body.result;
  const res = await page(r.icalUrl);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type')!, /^text\/calendar/);
  const text = await res.text();
  assert.match(text, /^BEGIN:VCALENDAR\r\n/);
  const evs = vevents(text);
  assert.equal(evs.length, 3, 'design has Start and Due, build has Start, the third row no date');
  const byDate = Object.fromEntries(evs.map((e) => [e['DTSTART;VALUE=DATE'], e.SUMMARY]));
  assert.deepEqual(byDate, { '20260302': 'p3 design <b> (Start)', '20260306': 'p3 design <b> (Due)', '20260309': 'p3 build (Start)' });
  assert.equal(new Set(evs.map((e) => e.UID)).size, 3);
  // the iCal token serves only the calendar, and the page tokens no calendar
  assert.equal((await page(r.icalUrl.replace(/\.ics$/, ''))).status, 404);
  const lite = (await s.api.put(`/sheets/${f.id}/publish`, { readOnlyLiteEnabled: true })).body.result.readOnlyLiteUrl;
  assert.equal((await page(`${lite}.ics`)).status, 404);
});

test('unpublishing makes the URL 404 at once; publishing again issues a new URL; deleting the sheet ends them all', async () => {
  const f = await fixture('p4');
  const r = (await s.api.put(`/sheets/${f.id}/publish`, { readOnlyLiteEnabled: true, icalEnabled: true })).body.result;
  assert.equal((await page(r.readOnlyLiteUrl)).status, 200);
  const off = (await s.api.put(`/sheets/${f.id}/publish`, { readOnlyLiteEnabled: false })).body.result;
  assert.equal(off.readOnlyLiteEnabled, false);
  assert.equal(off.readOnlyLiteUrl, undefined);
  assert.equal(off.icalEnabled, true, 'flags not given keep their state');
  assert.equal(off.icalUrl, r.icalUrl);
  const gone = await page(r.readOnlyLiteUrl);
  assert.equal(gone.status, 404);
  assert.equal(gone.headers.get('cache-control'), 'no-store', 'no cache may keep serving an unpublished view');
  assert.match(await gone.text(), /Nothing is published at this address/);
  assert.equal((await page(r.icalUrl)).status, 200);
  const back = (await s.api.put(`/sheets/${f.id}/publish`, { readOnlyLiteEnabled: true })).body.result;
  assert.notEqual(back.readOnlyLiteUrl, r.readOnlyLiteUrl);
  assert.equal((await page(back.readOnlyLiteUrl)).status, 200);
  assert.equal((await page(r.readOnlyLiteUrl)).status, 404);
  // a guessed token is nothing
  assert.equal((await page(`${s.t.url}/published/${'a'.repeat(32)}`)).status, 404);
  assert.equal((await s.api.del(`/sheets/${f.id}`)).status, 200);
  assert.equal((await page(back.readOnlyLiteUrl)).status, 404);
  assert.equal((await page(r.icalUrl)).status, 404);
});

test('only owners and admins publish; viewers read the flags without URLs; bad input changes nothing', async () => {
  const f = await fixture('p5');
  const viewer = await makeUser(s.t, s.api, 'pub-viewer@example.com');
  const admin = await makeUser(s.t, s.api, 'pub-admin@example.com');
  const stranger = await makeUser(s.t, s.api, 'pub-stranger@example.com');
  assert.equal((await s.api.post(`/sheets/${f.id}/shares`, [{ email: 'pub-viewer@example.com', accessLevel: 'EDITOR' }, { email: 'pub-admin@example.com', accessLevel: 'ADMIN' }])).status, 200);
  assert.equal((await s.api.put(`/sheets/${f.id}/publish`, { readOnlyLiteEnabled: true })).status, 200);

  const seen = await s.api.get(`/sheets/${f.id}/publish`, { token: viewer.token });
  assert.equal(seen.status, 200);
  assert.equal(seen.body.readOnlyLiteEnabled, true);
  assert.equal(seen.body.readOnlyLiteUrl, undefined, 'an editor is not handed the URL');
  assertError(await s.api.put(`/sheets/${f.id}/publish`, { icalEnabled: true }, { token: viewer.token }), 403, 1004);
  assertError(await s.api.get(`/sheets/${f.id}/publish`, { token: stranger.token }), 404, 1006);
  assertError(await s.api.put(`/sheets/${f.id}/publish`, { icalEnabled: true }, { token: stranger.token }), 404, 1006);
  assertError(await s.api.get('/sheets/123456789/publish'), 404, 1006);

  const byAdmin = await s.api.put(`/sheets/${f.id}/publish`, { icalEnabled: true }, { token: admin.token });
  assert.equal(byAdmin.status, 200, byAdmin.text);
  assert.ok(byAdmin.body.result.icalUrl);

  const before = (await s.api.get(`/sheets/${f.id}/publish`)).body;
  assertError(await s.api.put(`/sheets/${f.id}/publish`, { readOnlyFullEnabled: 'yes' }), 400, 1031);
  assertError(await s.api.put(`/sheets/${f.id}/publish`, { readOnlyFullEnabled: true, readOnlyFullAccessibleBy: 'EVERYONE' }), 400, 1031);
  assertError(await s.api.put(`/sheets/${f.id}/publish`, { readOnlyFullEnabled: true, readOnlyFullDefaultView: 'GANTT' }), 400, 1031);
  assertError(await s.api.put(`/sheets/${f.id}/publish`, { readOnlyFullEnabled: true, colour: 'blue' }), 400, 1032);
  assertError(await s.api.put(`/sheets/${f.id}/publish`, { readWriteEnabled: true, readWriteAccessibleBy: 'NOBODY' }), 400, 1031);
  assertError(await s.api.put(`/sheets/${f.id}/publish`, [true]), 400, 1008);
  assertError(await s.api.put(`/sheets/${f.id}/publish`), 400, 1024);
  assert.deepEqual((await s.api.get(`/sheets/${f.id}/publish`)).body, before);
});

test('ORG views need a signed-in member; SHARED views a member the sheet is shared with', async () => {
  const f = await fixture('p6');
  await makeUser(s.t, s.api, 'pub-member@example.com');
  await makeUser(s.t, s.api, 'pub-shared@example.com');
  const member = await findUserByEmail(s.t.server.store.db, 'pub-member@example.com');
  const author = { orgId: member!.org_id, userId: null, requestUserId: null, accessTokenName: null, source: 'TEST' };
  await setPassword(s.t.server.store, author, 'pub-member@example.com', PASSWORD);
  await setPassword(s.t.server.store, author, 'pub-shared@example.com', PASSWORD);
  assert.equal((await s.api.post(`/sheets/${f.id}/shares`, { email: 'pub-shared@example.com', accessLevel: 'VIEWER' })).status, 200);

  const r = (await s.api.put(`/sheets/${f.id}/publish`, { readOnlyFullEnabled: true, readOnlyFullAccessibleBy: 'ORG' })).body.result;
  assert.equal(r.readOnlyFullAccessibleBy, 'ORG');
  const anon = await page(r.readOnlyFullUrl);
  assert.equal(anon.status, 303);
  const path = new URL(r.readOnlyFullUrl).pathname;
  assert.equal(anon.headers.get('location'), `/login?next=${encodeURIComponent(path)}`);
  const b = browser(s.t.url);
  const signed = await signIn(b, 'pub-member@example.com', PASSWORD, path);
  assert.equal(signed.status, 303);
  assert.equal(signed.location, path);
  const seen = await b.get(path);
  assert.equal(seen.status, 200);
  assert.match(seen.text, /p6 design/);

  const shared = (await s.api.put(`/sheets/${f.id}/publish`, { readOnlyFullEnabled: true, readOnlyFullAccessibleBy: 'SHARED' })).body.result;
  assert.equal(shared.readOnlyFullUrl, r.readOnlyFullUrl, 'changing who may see it keeps the URL');
  assert.equal((await b.get(path)).status, 403);
  const sharee = browser(s.t.url);
  await signIn(sharee, 'pub-shared@example.com', PASSWORD);
  const ok = await sharee.get(path);
  assert.equal(ok.status, 200);
  assert.match(ok.text, /p6 build/);
});

test('reports: readOnlyFullEnabled required; the published report shows its rows; unpublished it is gone', async () => {
  const f = await fixture('p7');
  const rep = await s.api.post('/sheetd/reports', { name: 'p7 report', scope: { sheets: [{ id: f.id }] }, columns: [{ sheetNameColumn: true }, { title: 'Task', type: 'TEXT_NUMBER', primary: true }] });
  assert.equal(rep.status, 200, rep.text);
  const id = rep.body.result.id as number;
  assert.deepEqual((await s.api.get(`/reports/${id}/publish`)).body, { readOnlyFullEnabled: false });
  assertError(await s.api.put(`/reports/${id}/publish`, { readOnlyFullAccessibleBy: 'ALL' }), 400, 1012);
  assertError(await s.api.put(`/reports/${id}/publish`, { readOnlyFullEnabled: true, readOnlyLiteEnabled: true }), 400, 1032);
  const r = (await s.api.put(`/reports/${id}/publish`, { readOnlyFullEnabled: true })).body.result;
  assert.equal(r.readOnlyFullEnabled, true);
  assert.equal(r.readOnlyFullAccessibleBy, 'ALL');
  assert.ok(r.readOnlyFullUrl.startsWith(`${s.t.url}/published/`));
  const html = await (await page(r.readOnlyFullUrl)).text();
  assert.match(html, /<th scope="col">Sheet Name<\/th>/);
  assert.match(html, /p7 plan/);
  assert.match(html, /p7 design/);
  assert.match(html, /p7 no dates/);
  assert.equal((await s.api.put(`/reports/${id}/publish`, { readOnlyFullEnabled: false })).status, 200);
  assert.equal((await page(r.readOnlyFullUrl)).status, 404);
  assertError(await s.api.get('/reports/123456789/publish'), 404, 1006);
});

test('smartsheet SDK: sheets.getPublishStatus / setPublishStatus and reports.getReportPublishStatus / setReportPublishStatus', async () => {
  const f = await fixture('p8');
  const c = smartsheet.createClient({ accessToken: s.t.adminToken, baseUrl: `${s.t.base}/`, logLevel: 'error' });
  const set = await c.sheets.setPublishStatus({ sheetId: f.id, body: { readOnlyLiteEnabled: true, readOnlyFullEnabled: false, readWriteEnabled: false, icalEnabled: true } });
  assert.equal(set.resultCode, 0);
  assert.equal(set.result.readOnlyLiteEnabled, true);
  const got = await c.sheets.getPublishStatus({ sheetId: f.id });
  assert.equal(got.icalEnabled, true);
  assert.equal(got.readOnlyLiteUrl, set.result.readOnlyLiteUrl);
  assert.equal((await page(got.icalUrl)).status, 200);

  const rep = (await s.api.post('/sheetd/reports', { name: 'p8 report', scope: { sheets: [{ id: f.id }] }, columns: [{ title: 'Task', type: 'TEXT_NUMBER', primary: true }] })).body.result;
  const rset = await c.reports.setReportPublishStatus({ reportId: rep.id, body: { readOnlyFullEnabled: true, readOnlyFullAccessibleBy: 'ALL' } } as never);
  assert.equal((rset as { result: { readOnlyFullEnabled: boolean } }).result.readOnlyFullEnabled, true);
  const rget = await c.reports.getReportPublishStatus({ reportId: rep.id });
  assert.equal(rget.readOnlyFullEnabled, true);
  assert.equal((await page(rget.readOnlyFullUrl!)).status, 200);
  await assert.rejects(c.sheets.setPublishStatus({ sheetId: f.id, body: { readOnlyFullEnabled: true, readOnlyFullAccessibleBy: 'EVERYONE' } as never }), (e: { statusCode: number; errorCode: number }) => e.statusCode === 400 && e.errorCode === 1031);
});

test('concurrent publish requests take turns: one URL, no failure', async () => {
  const f = await fixture('p9');
  const all = await Promise.all(Array.from({ length: 6 }, () => s.api.put(`/sheets/${f.id}/publish`, { readOnlyLiteEnabled: true, icalEnabled: true })));
  assert.deepEqual(all.map((r) => r.status), [200, 200, 200, 200, 200, 200]);
  assert.equal(new Set(all.map((r) => r.body.result.readOnlyLiteUrl)).size, 1);
  assert.equal((await page(all[0]!.body.result.readOnlyLiteUrl)).status, 200);
});

test('a client may send back the status it read with a flag changed (as the Python SDK completes a partial SheetPublish): URLs are ignored', async () => {
  const f = await fixture('p10');
  const first = (await s.api.put(`/sheets/${f.id}/publish`, { readOnlyLiteEnabled: true })).body.result;
  const read = (await s.api.get(`/sheets/${f.id}/publish`)).body;
  const merged = { ...read, icalEnabled: true, readOnlyLiteUrl: 'http://elsewhere.example/x' };
  const res = await s.api.put(`/sheets/${f.id}/publish`, merged);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.result.icalEnabled, true);
  assert.equal(res.body.result.readOnlyLiteUrl, first.readOnlyLiteUrl, 'a URL sent is not taken');
  // a report's status sent back with its URL too
  const rep = (await s.api.post('/sheetd/reports', { name: 'p10 report', scope: { sheets: [{ id: f.id }] }, columns: [{ title: 'Task', type: 'TEXT_NUMBER', primary: true }] })).body.result;
  const on = (await s.api.put(`/reports/${rep.id}/publish`, { readOnlyFullEnabled: true })).body.result;
  const again = await s.api.put(`/reports/${rep.id}/publish`, { ...on, readOnlyFullAccessibleBy: 'ORG' });
  assert.equal(again.status, 200, again.text);
  assert.equal(again.body.result.readOnlyFullUrl, on.readOnlyFullUrl);
  assert.equal(again.body.result.readOnlyFullAccessibleBy, 'ORG');
});

test('a publish change is a SHEET UPDATE event naming the flags that changed; a request that changes nothing records none', async () => {
  const f = await fixture('p11');
  const since = new Date(Date.now() - 3600_000).toISOString().replace(/\.\d+Z$/, 'Z');
  assert.equal((await s.api.put(`/sheets/${f.id}/publish`, { readOnlyLiteEnabled: true, icalEnabled: false })).status, 200);
  assert.equal((await s.api.put(`/sheets/${f.id}/publish`, { readOnlyLiteEnabled: true })).status, 200);
  const evs = await allEvents<{ objectType: string; action: string; objectId: number; additionalDetails: Record<string, unknown> }>(s.api, since);
  const mine = evs.filter((e) => e.objectId === f.id && e.objectType === 'SHEET' && e.action === 'UPDATE');
  assert.equal(mine.length, 1);
  assert.deepEqual(mine[0]!.additionalDetails.publish, { readOnlyLiteEnabled: true });
  assert.equal(mine[0]!.additionalDetails.sheetName, 'p11 plan');
});

test('read-write (Edit by Anyone): a visitor edits a row through its form; the write is the publisher\'s; unpublished or without CSRF nothing changes', async () => {
  const f = await fixture('p12');
  const editorEmail = 'pub-rw-admin@example.com';
  const publisher = await makeUser(s.t, s.api, editorEmail);
  const share = await s.api.post(`/sheets/${f.id}/shares`, { email: editorEmail, accessLevel: 'ADMIN' });
  assert.equal(share.status, 200, share.text);
  const r = await s.api.put(`/sheets/${f.id}/publish`, { readWriteEnabled: true }, { token: publisher.token });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.result.readWriteEnabled, true);
  assert.equal(r.body.result.readWriteAccessibleBy, 'ALL');
  const url = r.body.result.readWriteUrl as string;
  const path = new URL(url).pathname;
  const row = f.rows[1]!.id;
  const c = f.col;

  const visitor = browser(s.t.url);
  const form = await visitor.get(path);
  assert.equal(form.status, 200);
  const cellInput = (html: string, rowId: number, colId: number) => new RegExp(`<input form="row-${rowId}" name="c${colId}" value="([^"]*)"`).exec(html)?.[1];
  assert.equal(cellInput(form.text, row, c.Task!.id), 'p12 build');
  assert.equal(cellInput(form.text, row, c.Start!.id), '2026-03-09');
  assert.match(form.text, new RegExp(`action="${path}/rows/${row}"`));
  const since = new Date(Date.now() - 3600_000).toISOString().replace(/\.\d+Z$/, 'Z');
  const saved = await visitor.post(`${path}/rows/${row}`, { _csrf: inputValue(form.text, '_csrf'), [`c${c.Task!.id}`]: 'p12 build (edited)', [`c${c.Start!.id}`]: '2026-04-01', [`c${c.Due!.id}`]: '', [`c${c.Cost!.id}`]: '' });
  assert.equal(saved.status, 303, saved.text);
  assert.equal(saved.location, path);
  const got = (await s.api.get(`/sheets/${f.id}/rows/${row}`)).body as { cells: Array<{ columnId: number; value?: unknown }> };
  const v = (id: number) => got.cells.find((x) => x.columnId === id)?.value;
  assert.equal(v(c.Task!.id), 'p12 build (edited)');
  assert.equal(v(c.Start!.id), '2026-04-01');
  assert.equal(v(c.Cost!.id), undefined);
  // the change log names the publisher, through the published view
  const evs = await allEvents<{ objectType: string; action: string; objectId: number; userId: number; accessTokenName?: string; additionalDetails: { columnIds?: number[] } }>(s.api, since);
  const upd = evs.filter((e) => e.objectType === 'ROW' && e.action === 'UPDATE' && e.objectId === row);
  assert.deepEqual(upd.flatMap((e) => e.additionalDetails.columnIds ?? []).sort(), [c.Task!.id, c.Start!.id].sort(), 'only the cells that changed');
  assert.ok(upd.length >= 1, JSON.stringify(evs.slice(-3)));
  assert.ok(upd.every((e) => e.userId === publisher.id && e.accessTokenName === 'published view'), JSON.stringify(upd));

  // without the form's CSRF token nothing is written
  const forged = await browser(s.t.url).post(`${path}/rows/${row}`, { [`c${c.Task!.id}`]: 'forged' });
  assert.equal(forged.status, 403);
  // a publisher who can no longer edit the sheet: the write is refused, nothing changes
  const shareId = (await s.api.get(`/sheets/${f.id}/shares`)).body.data.find((x: { email: string }) => x.email === editorEmail).id;
  assert.equal((await s.api.put(`/sheets/${f.id}/shares/${shareId}`, { accessLevel: 'VIEWER' })).status, 200);
  const again = await visitor.get(path);
  const refused = await visitor.post(`${path}/rows/${row}`, { _csrf: inputValue(again.text, '_csrf'), [`c${c.Task!.id}`]: 'not allowed' });
  assert.equal(refused.status, 403);
  // unpublished: the form goes with the view
  assert.equal((await s.api.put(`/sheets/${f.id}/publish`, { readWriteEnabled: false })).status, 200);
  const gone = await visitor.post(`${path}/rows/${row}`, { _csrf: inputValue(again.text, '_csrf'), [`c${c.Task!.id}`]: 'too late' });
  assert.equal(gone.status, 404);
  assert.equal((await visitor.get(path)).status, 404);
  const final = (await s.api.get(`/sheets/${f.id}/rows/${row}`)).body as { cells: Array<{ columnId: number; value?: unknown }> };
  assert.equal(final.cells.find((x) => x.columnId === c.Task!.id)?.value, 'p12 build (edited)');
});
