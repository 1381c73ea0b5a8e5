import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';
import smartsheet from 'smartsheet';
import { clock } from '../../src/clock.ts';
import { startSuiteServer, type TestServer } from '../helpers/server.ts';
import { client, type Client, recorded } from '../helpers/http.ts';
import { browser, inputValue } from '../helpers/browser.ts';
import { assertError, makeSheet, makeUser } from '../helpers/sheets.ts';
import { closeAll } from '../helpers/setup.ts';

// Mail goes out through a real SMTP server in this process (SMTP_URL), each message parsed;
// schedules are driven by moving the clock the job worker goes by.
const received: ParsedMail[] = [];
let smtp: SMTPServer;
let t: TestServer;
let api: Client;
const realNow = clock.now;
let offset = 0;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

before(async () => {
  smtp = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    onData(stream, _session, cb) {
      simpleParser(stream).then((m) => { received.push(m); cb(); }, cb);
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const port = (smtp.server.address() as AddressInfo).port;
  clock.now = () => realNow() + offset;
  t = await startSuiteServer({ SMTP_URL: `smtp://127.0.0.1:${port}`, SHEETD_JOB_POLL_MS: '30', SHEETD_MAIL_FROM: 'Sheets <sheets@example.org>' });
  api = client(t.base, t.adminToken);
});

after(async () => {
  clock.now = realNow;
  await closeAll(() => t?.close(), () => new Promise<void>((resolve) => smtp.close(() => resolve())));
});

function to(m: ParsedMail): string {
  const one = Array.isArray(m.to) ? m.to[0] : m.to;
  return (one?.value ?? []).map((x) => x.address).join(',');
}

let taken = 0;
/** Waits for exactly `n` new messages (sorted by recipient). */
async function newMail(n: number): Promise<ParsedMail[]> {
  for (let i = 0; i < 300; i++) {
    if (received.length - taken >= n) {
      await new Promise((r) => setTimeout(r, 200));
      const got = received.slice(taken);
      taken = received.length;
      assert.equal(got.length, n, `exactly ${n} new messages: ${got.map((m) => `${to(m)} ${m.subject}`).join('; ')}`);
      return got.sort((a, b) => to(a).localeCompare(to(b)));
    }
    await new Promise((r) => setTimeout(r, 30));
  }
  assert.fail(`expected ${n} new messages, got ${received.length - taken}`);
}

async function noNewMail(ms = 500): Promise<void> {
  await new Promise((r) => setTimeout(r, ms));
  const stray = received.slice(taken);
  taken = received.length;
  assert.deepEqual(stray.map((m) => `${to(m)} ${m.subject}`), [], 'no message is sent');
}

async function taskSheet(name: string) {
  const s = await makeSheet(api, name, [
    { title: 'Task', type: 'TEXT_NUMBER', primary: true },
    { title: 'Hours', type: 'TEXT_NUMBER' },
    { title: 'Status', type: 'PICKLIST', options: ['New', 'Done'] },
    { title: 'Notes', type: 'TEXT_NUMBER' },
  ]);
  const add = await api.post(`/sheets/${s.id}/rows`, [
    { toBottom: true, cells: [{ columnId: s.col.Task!.id, value: 'Design' }, { columnId: s.col.Hours!.id, value: 12 }, { columnId: s.col.Status!.id, value: 'New' }, { columnId: s.col.Notes!.id, value: 'private' }] },
    { toBottom: true, cells: [{ columnId: s.col.Task!.id, value: 'Build' }, { columnId: s.col.Hours!.id, value: 30 }] },
  ]);
  assert.equal(add.status, 200, JSON.stringify(add.body));
  return { ...s, rowIds: add.body.result.map((r: { id: number }) => r.id) as number[] };
}

const linkOf = (m: ParsedMail) => {
  const link = /Update the rows: (\S+)/.exec(m.text ?? '')?.[1];
  assert.ok(link, m.text);
  return new URL(link);
};

async function cellValue(sheetId: number, rowId: number, columnId: number): Promise<unknown> {
  const r = await api.get(`/sheets/${sheetId}/rows/${rowId}`);
  return r.body.cells.find((c: { columnId: number }) => c.columnId === columnId)?.value;
}

describe('update requests sent at once', () => {
  test('each recipient gets a message with the rows, the asked columns and a link; the page edits only those cells, as the recipient, once', async () => {
    const s = await taskSheet('UR plan');
    const ann = await makeUser(t, api, 'ann@example.com');
    const disc = await api.post(`/sheets/${s.id}/rows/${s.rowIds[0]}/discussions`, { comment: { text: 'Is 12 enough?' } });
    assert.equal(disc.status, 200, JSON.stringify(disc.body));
    const res = await api.post(`/sheets/${s.id}/updaterequests`, {
      rowIds: s.rowIds, columnIds: [s.col.Task!.id, s.col.Hours!.id, s.col.Status!.id], sendTo: [{ email: 'ann@example.com' }, { email: 'outsider@example.org' }],
      subject: 'Hours please', message: 'Fill in your hours.', ccMe: true, includeDiscussions: true,
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual([res.body.message, res.body.resultCode], ['SUCCESS', 0]);
    const ur = res.body.result;
    assert.equal(typeof ur.id, 'number');
    assert.deepEqual(ur.rowIds, s.rowIds);
    assert.deepEqual(ur.columnIds, [s.col.Task!.id, s.col.Hours!.id, s.col.Status!.id]);
    assert.deepEqual(ur.sendTo, [{ email: 'ann@example.com' }, { email: 'outsider@example.org' }]);
    assert.equal(ur.subject, 'Hours please');
    assert.equal(ur.ccMe, true);
    assert.equal(ur.sentBy.email, 'admin@example.com');
    assert.equal(ur.schedule, undefined);

    const mail = await newMail(3);
    assert.deepEqual(mail.map(to), ['admin@example.com', 'ann@example.com', 'outsider@example.org']);
    for (const m of mail) {
      assert.equal(m.subject, 'Hours please');
      assert.match(m.text!, /Fill in your hours\./);
      assert.match(m.text!, /Design/);
      assert.match(m.text!, /Build/);
      assert.doesNotMatch(m.text!, /private/, 'a column not asked for is not in the message');
      assert.match(m.text!, /Is 12 enough\?/, 'includeDiscussions');
      assert.equal(m.from?.value[0]?.address, 'sheets@example.org');
    }
    const [copy, annMail, outMail] = mail as [ParsedMail, ParsedMail, ParsedMail];
    assert.doesNotMatch(copy.text!, /Update the rows:/, 'the sender\'s copy has no link');
    assert.match(copy.text!, /ann@example\.com/);
    assert.equal(annMail.replyTo?.text, 'admin@example.com');
    assert.match(annMail.html as string, /<a href="[^"]+\/updaterequests\/[^"]+">Update the rows<\/a>/);
    const annLink = linkOf(annMail);
    const outLink = linkOf(outMail);
    assert.notEqual(annLink.pathname, outLink.pathname, 'a link per recipient');

    // the sent update requests, one per recipient, PENDING
    const sent = await api.get(`/sheets/${s.id}/sentupdaterequests`);
    assert.equal(sent.status, 200);
    assert.equal(sent.body.totalCount, 2);
    const byEmail = Object.fromEntries(sent.body.data.map((x: { sentTo: { email: string } }) => [x.sentTo.email, x]));
    assert.equal(byEmail['ann@example.com'].status, 'PENDING');
    assert.equal(byEmail['ann@example.com'].updateRequestId, ur.id);
    assert.equal(byEmail['ann@example.com'].sentBy.email, 'admin@example.com');
    assert.match(byEmail['ann@example.com'].sentAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    // sent at once: not an update request with a send to come
    assert.equal((await api.get(`/sheets/${s.id}/updaterequests`)).body.totalCount, 0);
    assertError(await api.get(`/sheets/${s.id}/updaterequests/${ur.id}`), 404, 1006);

    // the page (no account, no session): the named cells, and nothing of the other column
    const b = browser(t.url);
    const pg = await b.get(annLink.pathname);
    assert.equal(pg.status, 200, pg.text);
    assert.match(pg.headers.get('content-type')!, /text\/html/);
    assert.match(pg.text, /UR plan/);
    assert.match(pg.text, /Fill in your hours\./);
    assert.doesNotMatch(pg.text, /private/);
    const [r1, r2] = s.rowIds as [number, number];
    const H = s.col.Hours!.id;
    assert.equal(inputValue(pg.text, `c.${r1}.${H}`), '12');
    // GET changed nothing
    assert.equal((await api.get(`/sheets/${s.id}/sentupdaterequests/${byEmail['ann@example.com'].id}`)).body.status, 'PENDING');

    // a post without the CSRF token is refused and changes nothing
    const forged = await b.post(annLink.pathname, { [`c.${r1}.${H}`]: '99' });
    assert.equal(forged.status, 403);
    assert.equal(await cellValue(s.id, r1, H), 12);
    // a field of a column not asked for is ignored
    const done = await b.post(annLink.pathname, {
      _csrf: inputValue(pg.text, '_csrf'), [`c.${r1}.${H}`]: '16', [`c.${r2}.${s.col.Status!.id}`]: 'Done', [`c.${r2}.${H}`]: '30',
      [`c.${r1}.${s.col.Notes!.id}`]: 'hacked', [`c.${r1}.${s.col.Task!.id}`]: 'Design',
    });
    assert.equal(done.status, 200, done.text);
    assert.match(done.text, /your changes were saved/);
    assert.equal(await cellValue(s.id, r1, H), 16);
    assert.equal(await cellValue(s.id, r2, s.col.Status!.id), 'Done');
    assert.equal(await cellValue(s.id, r1, s.col.Notes!.id), 'private');

    // theirs: cell history and the row's modifiedBy name ann (a user of the organization)
    const hist = await api.get(`/sheets/${s.id}/rows/${r1}/columns/${H}/history`);
    assert.equal(hist.status, 200);
    assert.equal(hist.body.data[0].value, 16);
    assert.equal(hist.body.data[0].modifiedBy.email, 'ann@example.com');
    const ev = await api.get('/events?since=2000-01-01T00:00:00Z&maxCount=10000');
    const rowEv = ev.body.data.map(recorded).filter((e: { objectType: string; action: string; objectId: number }) => e.objectType === 'ROW' && e.action === 'UPDATE' && e.objectId === r1).pop();
    assert.equal(rowEv.userId, ann.id);
    // a page a person filled in: WEB_APP, with sheetd's finer origin beside it
    assert.equal(rowEv.source, 'WEB_APP');
    assert.equal(rowEv.additionalDetails.origin, 'UPDATE_REQUEST');
    assert.ok(ev.body.data.map(recorded).some((e: { objectType: string; action: string; objectId: number }) => e.objectType === 'SENT_UPDATE_REQUEST' && e.action === 'UPDATE' && e.objectId === byEmail['ann@example.com'].id));

    // COMPLETE; the link works once
    const got = await api.get(`/sheets/${s.id}/sentupdaterequests/${byEmail['ann@example.com'].id}`);
    assert.equal(got.body.status, 'COMPLETE');
    assert.deepEqual(got.body.rowIds, s.rowIds);
    assert.deepEqual(got.body.columnIds, [s.col.Task!.id, s.col.Hours!.id, s.col.Status!.id]);
    assert.equal(got.body.message, 'Fill in your hours.');
    const again = await b.get(annLink.pathname);
    assert.match(again.text, /was completed/);
    assert.doesNotMatch(again.text, /type="submit">Submit/);
    const late = await b.post(annLink.pathname, { _csrf: inputValue(pg.text, '_csrf'), [`c.${r1}.${H}`]: '1' });
    assert.equal(late.status, 400);
    assert.equal(await cellValue(s.id, r1, H), 16);
    assertError(await api.del(`/sheets/${s.id}/sentupdaterequests/${byEmail['ann@example.com'].id}`), 403, 1004);

    // the outsider (no account): the change is written and completes their request too
    const b2 = browser(t.url);
    const p2 = await b2.get(outLink.pathname);
    const d2 = await b2.post(outLink.pathname, { _csrf: inputValue(p2.text, '_csrf'), [`c.${r2}.${H}`]: '31' });
    assert.equal(d2.status, 200, d2.text);
    assert.equal(await cellValue(s.id, r2, H), 31);
    const ev2 = await api.get('/events?since=2000-01-01T00:00:00Z&maxCount=10000');
    const outEv = ev2.body.data.map(recorded).filter((e: { objectType: string; action: string; objectId: number }) => e.objectType === 'ROW' && e.action === 'UPDATE' && e.objectId === r2).pop();
    assert.equal(outEv.source, 'WEB_APP');
    assert.equal(outEv.additionalDetails.origin, 'UPDATE_REQUEST');
    // no user of the organization wrote it: the event names the system admin who owns the
    // organization as its user (every event carries userId), and the history the address
    const admin = (await api.get('/users/me')).body as { id: number };
    assert.equal(outEv.userId, admin.id, 'a system event: the organization\'s system admin');
    const outHist = await api.get(`/sheets/${s.id}/rows/${r2}/columns/${H}/history`);
    assert.deepEqual(outHist.body.data[0].modifiedBy, { email: 'outsider@example.org' });
    assert.equal(outHist.body.data[0].value, 31);
    assert.equal(outHist.body.data[1].value, 30, 'the value before stays in the history');
    assert.equal(outHist.body.data[1].modifiedBy.email, 'admin@example.com');
    // a later write over the outsider's value keeps their address in the history
    assert.equal((await api.put(`/sheets/${s.id}/rows`, [{ id: r2, cells: [{ columnId: H, value: 32 }] }])).status, 200);
    const later = await api.get(`/sheets/${s.id}/rows/${r2}/columns/${H}/history`);
    assert.deepEqual(later.body.data.map((e: { value: unknown; modifiedBy?: { email: string } }) => [e.value, e.modifiedBy?.email]), [[32, 'admin@example.com'], [31, 'outsider@example.org'], [30, 'admin@example.com']]);
    assert.equal((await api.get(`/sheets/${s.id}/sentupdaterequests/${byEmail['outsider@example.org'].id}`)).body.status, 'COMPLETE');
  });

  test('a tampered or unknown link is a 404 page; a canceled request is shown as canceled and its form refused', async () => {
    const s = await taskSheet('UR cancel');
    const res = await api.post(`/sheets/${s.id}/updaterequests`, { rowIds: [s.rowIds[0]], columnIds: [s.col.Hours!.id], sendTo: [{ email: 'bob@example.org' }] });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const [m] = await newMail(1);
    assert.equal(m!.subject, 'Update Request: UR cancel', 'the default subject');
    assert.match(m!.text!, /Please update the following rows in my online sheet\./, 'the default message');
    const link = linkOf(m!);
    const b = browser(t.url);
    const bad = await b.get(link.pathname.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')));
    assert.equal(bad.status, 404);
    assert.equal((await b.get('/updaterequests/12345.nonsense')).status, 404);
    const pg = await b.get(link.pathname);
    const csrf = inputValue(pg.text, '_csrf');
    const sent = (await api.get(`/sheets/${s.id}/sentupdaterequests`)).body.data[0];
    const del = await api.del(`/sheets/${s.id}/sentupdaterequests/${sent.id}`);
    assert.equal(del.status, 200, JSON.stringify(del.body));
    assert.equal((await api.get(`/sheets/${s.id}/sentupdaterequests/${sent.id}`)).body.status, 'CANCELED');
    assert.match((await b.get(link.pathname)).text, /was canceled/);
    const post = await b.post(link.pathname, { _csrf: csrf, [`c.${s.rowIds[0]}.${s.col.Hours!.id}`]: '1' });
    assert.equal(post.status, 400);
    assert.equal(await cellValue(s.id, s.rowIds[0]!, s.col.Hours!.id), 12);
    assertError(await api.del(`/sheets/${s.id}/sentupdaterequests/${sent.id}`), 403, 1004);
  });

  test('a link older than 30 days has expired', async () => {
    const s = await taskSheet('UR expiry');
    assert.equal((await api.post(`/sheets/${s.id}/updaterequests`, { rowIds: [s.rowIds[0]], columnIds: [s.col.Hours!.id], sendTo: [{ email: 'late@example.org' }] })).status, 200);
    const link = linkOf((await newMail(1))[0]!);
    const b = browser(t.url);
    const csrf = inputValue((await b.get(link.pathname)).text, '_csrf');
    offset += 31 * DAY;
    try {
      const pg = await b.get(link.pathname);
      assert.match(pg.text, /has expired/);
      const post = await b.post(link.pathname, { _csrf: csrf, [`c.${s.rowIds[0]}.${s.col.Hours!.id}`]: '1' });
      assert.equal(post.status, 400);
      assert.equal(await cellValue(s.id, s.rowIds[0]!, s.col.Hours!.id), 12);
    } finally {
      offset -= 31 * DAY;
    }
  });

  test('bad input gets its catalogued error and changes nothing; an alternate address is refused (1159)', async () => {
    const s = await taskSheet('UR errors');
    const kim = await makeUser(t, api, 'kim@example.com');
    await t.server.store.db.insertInto('alternate_emails').values({ id: 777001, user_id: kim.id, email: 'kim.alt@example.com', confirmed: 1, created_at: Date.now() }).execute();
    const base = { rowIds: [s.rowIds[0]], columnIds: [s.col.Hours!.id], sendTo: [{ email: 'x@example.org' }] };
    const post = (b: unknown) => api.post(`/sheets/${s.id}/updaterequests`, b);
    const alt = await post({ ...base, sendTo: [{ email: 'kim.alt@example.com' }] });
    assertError(alt, 400, 1159);
    assert.match(alt.body.message, /kim@example\.com/);
    assertError(await post({ ...base, sendTo: [{ groupId: 12345 }] }), 400, 1031);
    assertError(await post({ ...base, sendTo: [] }), 400, 1012);
    assertError(await post({ ...base, sendTo: [{ email: 'not an address' }] }), 400, 1156);
    assertError(await post({ ...base, rowIds: undefined }), 400, 1012);
    assertError(await post({ ...base, rowIds: [123] }), 404, 1006);
    assertError(await post({ ...base, columnIds: [123] }), 400, 1036);
    assertError(await post({ ...base, ccMe: 'yes' }), 400, 1031);
    assertError(await post({ ...base, id: 5 }), 400, 1032);
    assertError(await post({ ...base, schedule: { type: 'HOURLY', startAt: '2030-01-01T10:00:00Z' } }), 400, 1031);
    assertError(await post({ ...base, schedule: { type: 'DAILY' } }), 400, 1012);
    assertError(await post({ ...base, schedule: { type: 'ONCE', startAt: '2001-01-01T10:00:00Z' } }), 400, 1031);
    assertError(await post({ ...base, schedule: { type: 'DAILY', startAt: '2030-01-01T10:30:00Z' } }), 400, 1031);
    assertError(await post({ ...base, schedule: { type: 'WEEKLY', startAt: '2030-01-01T10:00:00Z', dayDescriptors: ['WEEKEND'] } }), 400, 1031);
    assertError(await post({ ...base, schedule: { type: 'MONTHLY', startAt: '2030-01-01T10:00:00Z', dayOfMonth: 3, dayOrdinal: 'FIRST', dayDescriptors: ['MONDAY'] } }), 400, 1178);
    assertError(await post({ ...base, schedule: { type: 'DAILY', startAt: '2030-01-01T10:00:00Z', repeatEvery: 100 } }), 400, 1031);
    assertError(await post({ ...base, schedule: { type: 'DAILY', startAt: '2030-01-01T10:00:00Z', endAt: '2029-01-01T00:00:00Z' } }), 400, 1179);
    assertError(await api.post(`/sheets/999/updaterequests`, base), 404, 1006);
    const viewer = await makeUser(t, api, 'viewer@example.com');
    assert.equal((await api.post(`/sheets/${s.id}/shares`, { email: 'viewer@example.com', accessLevel: 'VIEWER' })).status, 200);
    assertError(await api.post(`/sheets/${s.id}/updaterequests`, base, { token: viewer.token }), 403, 1004);
    await noNewMail(300);
    assert.equal((await api.get(`/sheets/${s.id}/sentupdaterequests`)).body.totalCount, 0, 'nothing was sent');
  });
});

describe('scheduled update requests', () => {
  test('a schedule\'s times as the Python SDK writes an aware datetime (isoformat() + \'Z\', microseconds) mean the time with its offset', async () => {
    const s = await taskSheet('UR sdk times');
    const body = (startAt: string) => ({ rowIds: [s.rowIds[0]], columnIds: [s.col.Hours!.id], sendTo: [{ email: 'later@example.org' }], schedule: { type: 'DAILY', startAt, dayDescriptors: ['WEEKDAY'] } });
    for (const startAt of ['2031-01-06T09:00:00+00:00Z', '2031-01-06T11:00:00.123456+02:00Z']) {
      const res = await api.post(`/sheets/${s.id}/updaterequests`, body(startAt));
      assert.equal(res.status, 200, `${startAt}: ${res.text}`);
      assert.equal(Date.parse(res.body.result.schedule.startAt), Date.parse('2031-01-06T09:00:00Z'), JSON.stringify(res.body.result.schedule));
      assert.equal((await api.del(`/sheets/${s.id}/updaterequests/${res.body.result.id}`)).status, 200);
    }
    // a Z alone is the zone; two are not a time
    assertError(await api.post(`/sheets/${s.id}/updaterequests`, body('2031-01-06T09:00:00ZZ')), 400, 1031);
  });

  test('a schedule as the C# SDK writes it: every member, unset times as DateTime.MinValue, dayOrdinal FIRST, times without a zone', async () => {
    const s = await taskSheet('UR csharp');
    const min = '0001-01-01T00:00:00';
    const body = (schedule: Record<string, unknown>) => ({ rowIds: [s.rowIds[0]], columnIds: [s.col.Hours!.id], sendTo: [{ email: 'cs@example.org' }], schedule: { dayOrdinal: 'FIRST', endAt: min, lastSentAt: min, nextSendAt: min, ...schedule } });
    const weekly = await api.post(`/sheets/${s.id}/updaterequests`, body({ type: 'WEEKLY', startAt: '2031-01-06T09:00:00', dayDescriptors: ['MONDAY'], repeatEvery: 1 }));
    assert.equal(weekly.status, 200, weekly.text);
    const w = weekly.body.result.schedule;
    // no ordinal, no end; the time without a zone is UTC
    assert.equal(w.dayOrdinal, undefined, JSON.stringify(w));
    assert.equal(w.endAt, undefined, JSON.stringify(w));
    assert.equal(Date.parse(w.startAt), Date.parse('2031-01-06T09:00:00Z'));
    assert.equal(Date.parse(w.nextSendAt), Date.parse('2031-01-06T09:00:00Z'));
    // a monthly schedule by day of the month
    const monthly = await api.post(`/sheets/${s.id}/updaterequests`, body({ type: 'MONTHLY', startAt: '2031-01-01T08:00:00Z', dayOfMonth: 15 }));
    assert.equal(monthly.status, 200, monthly.text);
    assert.equal(monthly.body.result.schedule.dayOrdinal, undefined);
    assert.equal(Date.parse(monthly.body.result.schedule.nextSendAt), Date.parse('2031-01-15T08:00:00Z'));
    // an ordinal the SDK's user chose still means what it says
    const second = await api.post(`/sheets/${s.id}/updaterequests`, body({ type: 'MONTHLY', startAt: '2031-01-01T08:00:00Z', dayOrdinal: 'SECOND', dayDescriptors: ['TUESDAY'] }));
    assert.equal(second.status, 200, second.text);
    assert.equal(second.body.result.schedule.dayOrdinal, 'SECOND');
    assert.equal(Date.parse(second.body.result.schedule.nextSendAt), Date.parse('2031-01-14T08:00:00Z'));
    // and one where none applies is still refused, as is a start of MinValue (no start)
    assertError(await api.post(`/sheets/${s.id}/updaterequests`, body({ type: 'WEEKLY', startAt: '2031-01-06T09:00:00Z', dayDescriptors: ['MONDAY'], dayOrdinal: 'SECOND' })), 400, 1031);
    assertError(await api.post(`/sheets/${s.id}/updaterequests`, body({ type: 'MONTHLY', startAt: '2031-01-01T08:00:00Z', dayOfMonth: 15, dayOrdinal: 'LAST' })), 400, 1178);
    assertError(await api.post(`/sheets/${s.id}/updaterequests`, body({ type: 'DAILY', startAt: min })), 400, 1012);
    for (const id of [weekly, monthly, second].map((r) => r.body.result.id)) assert.equal((await api.del(`/sheets/${s.id}/updaterequests/${id}`)).status, 200);
  });

  test('a WEEKLY schedule sends on its days when the clock gets there; change and delete stop the old sends', async () => {
    const s = await taskSheet('UR weekly');
    // next Monday and Wednesday, 09:00 UTC, from a start on the coming Sunday
    const now = clock.now();
    const d = new Date(now + 2 * DAY);
    d.setUTCHours(9, 0, 0, 0);
    while (d.getUTCDay() !== 0) d.setTime(d.getTime() + DAY);
    const start = d.toISOString().replace(/\.\d{3}Z$/, 'Z');
    const res = await api.post(`/sheets/${s.id}/updaterequests`, {
      rowIds: [s.rowIds[0]], columnIds: [s.col.Hours!.id], sendTo: [{ email: 'weekly@example.org' }],
      schedule: { type: 'WEEKLY', startAt: start, dayDescriptors: ['MONDAY', 'WEDNESDAY'] },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const ur = res.body.result;
    assert.equal(ur.schedule.type, 'WEEKLY');
    assert.equal(ur.schedule.startAt, start);
    assert.deepEqual(ur.schedule.dayDescriptors, ['MONDAY', 'WEDNESDAY']);
    const monday = d.getTime() + DAY;
    assert.equal(ur.schedule.nextSendAt, new Date(monday).toISOString().replace(/\.\d{3}Z$/, 'Z'));
    const list = await api.get(`/sheets/${s.id}/updaterequests`);
    assert.equal(list.body.totalCount, 1);
    assert.equal(list.body.data[0].id, ur.id);
    assert.equal((await api.get(`/sheets/${s.id}/updaterequests/${ur.id}`)).body.schedule.nextSendAt, ur.schedule.nextSendAt);
    await noNewMail(300);

    offset += monday - now + 60_000;
    const [m1] = await newMail(1);
    assert.equal(to(m1!), 'weekly@example.org');
    const after1 = (await api.get(`/sheets/${s.id}/updaterequests/${ur.id}`)).body;
    assert.equal(after1.schedule.lastSentAt !== undefined, true);
    assert.equal(after1.schedule.nextSendAt, new Date(monday + 2 * DAY).toISOString().replace(/\.\d{3}Z$/, 'Z'));
    // change: a new subject; the Wednesday send carries it
    // with its own id in the body, as the Java SDK sends it; another id is 1029, the id alone changes nothing (1012)
    const upd = await api.put(`/sheets/${s.id}/updaterequests/${ur.id}`, { id: ur.id, subject: 'Wednesday check' });
    assert.equal(upd.status, 200, JSON.stringify(upd.body));
    assert.equal(upd.body.result.subject, 'Wednesday check');
    assertError(await api.put(`/sheets/${s.id}/updaterequests/${ur.id}`, { id: ur.id + 1, subject: 'other' }), 400, 1029);
    assertError(await api.put(`/sheets/${s.id}/updaterequests/${ur.id}`, { id: ur.id }), 400, 1012);
    assertError(await api.put(`/sheets/${s.id}/updaterequests/${ur.id}`, { rowIds: [1] }), 400, 1032);
    offset += 2 * DAY;
    const [m2] = await newMail(1);
    assert.equal(m2!.subject, 'Wednesday check');
    assert.equal((await api.get(`/sheets/${s.id}/sentupdaterequests`)).body.totalCount, 2);
    // delete: nothing more is sent, and the request is gone
    assert.equal((await api.del(`/sheets/${s.id}/updaterequests/${ur.id}`)).status, 200);
    assertError(await api.get(`/sheets/${s.id}/updaterequests/${ur.id}`), 404, 1006);
    offset += 7 * DAY;
    await noNewMail(500);
  });

  test('a ONCE schedule sends once, then the request has no send to come', async () => {
    const s = await taskSheet('UR once');
    const d = new Date(clock.now() + 3 * HOUR);
    d.setUTCMinutes(0, 0, 0);
    const res = await api.post(`/sheets/${s.id}/updaterequests`, {
      rowIds: [s.rowIds[1]], columnIds: [s.col.Hours!.id], sendTo: [{ email: 'once@example.org' }],
      schedule: { type: 'ONCE', startAt: d.toISOString().replace(/\.000Z$/, '+00:00') },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    await noNewMail(300);
    offset += d.getTime() - clock.now() + 1000;
    await newMail(1);
    assertError(await api.get(`/sheets/${s.id}/updaterequests/${res.body.result.id}`), 404, 1006);
    offset += 2 * DAY;
    await noNewMail(300);
  });
});

describe('SDK', () => {
  test('the smartsheet SDK creates, reads, changes and deletes update requests and sent update requests', async () => {
    const s = await taskSheet('UR sdk');
    const sdk: any = smartsheet.createClient({ accessToken: t.adminToken, baseUrl: `${t.base}/`, logLevel: 'error' }); // eslint-disable-line @typescript-eslint/no-explicit-any
    const start = new Date(clock.now() + 5 * DAY);
    start.setUTCHours(8, 0, 0, 0);
    const created = await sdk.sheets.createUpdateRequest({
      sheetId: s.id,
      body: { rowIds: s.rowIds, columnIds: [s.col.Hours!.id], sendTo: [{ email: 'sdk@example.org' }], schedule: { type: 'DAILY', startAt: start.toISOString().replace(/\.000Z$/, 'Z'), repeatEvery: 2 } },
    });
    assert.equal(created.message, 'SUCCESS');
    const id = created.result.id;
    assert.equal((await sdk.sheets.getUpdateRequest({ sheetId: s.id, updateRequestId: id })).schedule.repeatEvery, 2);
    assert.equal((await sdk.sheets.getAllUpdateRequests({ sheetId: s.id })).totalCount, 1);
    const changed = await sdk.sheets.changeUpdateRequest({ sheetId: s.id, updateRequestId: id, body: { message: 'Every other day' } });
    assert.equal(changed.result.message, 'Every other day');
    assert.equal((await sdk.sheets.deleteUpdateRequest({ sheetId: s.id, updateRequestId: id })).message, 'SUCCESS');
    assert.equal((await sdk.sheets.getAllUpdateRequests({ sheetId: s.id })).totalCount, 0);

    await sdk.sheets.createUpdateRequest({ sheetId: s.id, body: { rowIds: [s.rowIds[0]], columnIds: [s.col.Hours!.id], sendTo: [{ email: 'sdk2@example.org' }] } });
    await newMail(1);
    const sentList = await sdk.sheets.getAllSentUpdateRequests({ sheetId: s.id });
    assert.equal(sentList.totalCount, 1);
    const sentId = sentList.data[0].id;
    assert.equal((await sdk.sheets.getSentUpdateRequest({ sheetId: s.id, sentUpdateRequestId: sentId })).status, 'PENDING');
    assert.equal((await sdk.sheets.deleteSentUpdateRequest({ sheetId: s.id, sentUpdateRequestId: sentId })).message, 'SUCCESS');
    assert.equal((await sdk.sheets.getSentUpdateRequest({ sheetId: s.id, sentUpdateRequestId: sentId })).status, 'CANCELED');
  });
});
