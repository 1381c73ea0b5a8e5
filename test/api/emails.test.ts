import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { simpleParser, type ParsedMail } from 'mailparser';
import smartsheet from 'smartsheet';
import { unzipSync, strFromU8 } from 'fflate';
import { serverForFile } from '../helpers/setup.ts';
import { assertError, makeSheet, makeUser } from '../helpers/sheets.ts';
import { blobCount } from '../helpers/blobs.ts';

// Mail goes out through the job worker into the outbox (no SMTP_URL): each test reads the
// messages that arrived after it started.
const s0 = serverForFile({ SHEETD_JOB_POLL_MS: '50' });
const outbox = () => path.join(s0.t.dataDir, 'outbox');
const seen = new Set<string>();

/** Waits for `n` new messages in the outbox and parses them (sorted by first recipient). */
async function newMail(n: number): Promise<ParsedMail[]> {
  for (let i = 0; i < 300; i++) {
    const files = fs.existsSync(outbox()) ? fs.readdirSync(outbox()).filter((f) => f.endsWith('.eml') && !seen.has(f)) : [];
    if (files.length >= n) {
      await new Promise((r) => setTimeout(r, 100));
      const all = fs.readdirSync(outbox()).filter((f) => f.endsWith('.eml') && !seen.has(f));
      all.forEach((f) => seen.add(f));
      const parsed = await Promise.all(all.map(async (f) => simpleParser(fs.readFileSync(path.join(outbox(), f)))));
      return parsed.sort((a, b) => addr(a.to).localeCompare(addr(b.to)));
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`expected ${n} new messages in the outbox`);
}

function addr(v: ParsedMail['to'] | ParsedMail['cc']): string {
  const one = Array.isArray(v) ? v[0] : v;
  return (one?.value ?? []).map((x) => x.address).join(',');
}

async function noNewMail(): Promise<void> {
  await new Promise((r) => setTimeout(r, 400));
  const files = fs.existsSync(outbox()) ? fs.readdirSync(outbox()).filter((f) => f.endsWith('.eml') && !seen.has(f)) : [];
  assert.deepEqual(files, [], 'no message is sent');
}

async function sheetWithRows(name: string) {
  const s = await makeSheet(s0.api, name, [
    { title: 'Task', type: 'TEXT_NUMBER', primary: true },
    { title: 'Hours', type: 'TEXT_NUMBER' },
    { title: 'Internal', type: 'TEXT_NUMBER', hidden: true },
  ]);
  const add = await s0.api.post(`/sheets/${s.id}/rows`, [
    { toBottom: true, cells: [{ columnId: s.col.Task!.id, value: 'Design <b>' }, { columnId: s.col.Hours!.id, value: 12 }, { columnId: s.col.Internal!.id, value: 'secret' }] },
    { toBottom: true, cells: [{ columnId: s.col.Task!.id, value: 'Build' }, { columnId: s.col.Hours!.id, value: 30 }] },
  ]);
  assert.equal(add.status, 200);
  return { ...s, rowIds: add.body.result.map((r: { id: number }) => r.id) as number[] };
}

describe('Send Sheet via Email', () => {
  test('each recipient, and the members of a group, get their own message with the sheet as a PDF; ccMe copies the sender', async () => {
    const s = await sheetWithRows('Budget 2027');
    await makeUser(s0.t, s0.api, 'gm1@example.com');
    await makeUser(s0.t, s0.api, 'gm2@example.com');
    const g = await s0.api.post('/groups', { name: 'Mail group', members: [{ email: 'gm1@example.com' }, { email: 'gm2@example.com' }] });
    assert.equal(g.status, 200, JSON.stringify(g.body));
    const res = await s0.api.post(`/sheets/${s.id}/emails`, {
      sendTo: [{ email: 'outside@example.org' }, { groupId: g.body.result.id }],
      subject: 'The budget', message: 'Please review.', ccMe: true, format: 'PDF', formatDetails: { paperSize: 'A4' },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual([res.body.message, res.body.resultCode], ['SUCCESS', 0]);
    const mail = await newMail(4);
    assert.deepEqual(mail.map((m) => addr(m.to)), ['admin@example.com', 'gm1@example.com', 'gm2@example.com', 'outside@example.org']);
    for (const m of mail) {
      assert.equal(m.subject, 'The budget');
      assert.match(m.text ?? '', /Please review\./);
      assert.equal(addr(m.replyTo), 'admin@example.com');
      assert.equal(m.attachments.length, 1);
      const a = m.attachments[0]!;
      assert.equal(a.filename, 'Budget 2027.pdf');
      assert.equal(a.contentType, 'application/pdf');
      assert.equal(a.content.subarray(0, 5).toString(), '%PDF-');
      assert.match(a.content.toString('latin1'), /\/MediaBox \[0 0 841\.89 595\.28\]/, 'A4, landscape');
    }
  });

  test('EXCEL attaches a workbook of the sheet; the file made for the message is removed once it is sent', async () => {
    const s = await sheetWithRows('Hours');
    const blobsBefore = blobCount(s0.t.dataDir);
    const res = await s0.api.post(`/sheets/${s.id}/emails`, { sendTo: [{ email: 'x@example.org' }], format: 'EXCEL' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const [m] = await newMail(1);
    const me = (await s0.api.get('/users/me')).body;
    const name = [me.firstName, me.lastName].filter((x: unknown) => x).join(' ') || me.email;
    assert.equal(m!.subject, `${name} sent you "Hours"`, 'the default subject names the sender and the sheet');
    const a = m!.attachments[0]!;
    assert.equal(a.filename, 'Hours.xlsx');
    const files = unzipSync(new Uint8Array(a.content));
    assert.match(strFromU8(files['xl/sharedStrings.xml']!), /Design &lt;b&gt;/);
    for (let i = 0; i < 100 && blobCount(s0.t.dataDir) !== blobsBefore; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(blobCount(s0.t.dataDir), blobsBefore, 'no file is left behind');
  });

  test('bad requests are refused with their codes and send nothing', async () => {
    const s = await sheetWithRows('Refusals');
    const send = (body: unknown) => s0.api.post(`/sheets/${s.id}/emails`, body);
    assertError(await send({ format: 'PDF' }), 400, 1012);
    assertError(await send({ sendTo: [], format: 'PDF' }), 400, 1012);
    assertError(await send({ sendTo: 'a@example.org', format: 'PDF' }), 400, 1031);
    assertError(await send({ sendTo: [{ email: 'a@example.org' }] }), 400, 1012);
    assertError(await send({ sendTo: [{ email: 'a@example.org' }], format: 'WORD' }), 400, 1031);
    assertError(await send({ sendTo: [{ email: 'not an address' }], format: 'PDF' }), 400, 1156);
    assertError(await send({ sendTo: [{ email: 'a@example.org', groupId: 5 }], format: 'PDF' }), 400, 1178);
    assertError(await send({ sendTo: [{}], format: 'PDF' }), 400, 1012);
    assertError(await send({ sendTo: [null], format: 'PDF' }), 400, 1176);
    assertError(await send({ sendTo: [{ groupId: 1.5 }], format: 'PDF' }), 400, 1031);
    assertError(await send({ sendTo: [{ groupId: 4503599627370495 }], format: 'PDF' }), 404, 1106);
    assertError(await send({ sendTo: [{ email: 'a@example.org' }], format: 'PDF', formatDetails: { paperSize: 'B5' } }), 400, 1053);
    assertError(await send({ sendTo: [{ email: 'a@example.org' }], format: 'PDF', ccMe: 'yes' }), 400, 1031);
    assertError(await send([{ sendTo: [{ email: 'a@example.org' }], format: 'PDF' }]), 400, 1008);
    assertError(await s0.api.post('/sheets/4503599627370495/emails', { sendTo: [{ email: 'a@example.org' }], format: 'PDF' }), 404, 1006);
    await noNewMail();
  });

  test('a viewer may send; someone without access may not; the token needs SHARE_SHEETS', async () => {
    const s = await sheetWithRows('Shared read-only');
    const viewer = await makeUser(s0.t, s0.api, 'mail-viewer@example.com');
    const stranger = await makeUser(s0.t, s0.api, 'mail-stranger@example.com');
    const narrow = await makeUser(s0.t, s0.api, 'mail-narrow@example.com', ['READ_SHEETS']);
    for (const email of ['mail-viewer@example.com', 'mail-narrow@example.com']) {
      assert.equal((await s0.api.post(`/sheets/${s.id}/shares`, { email, accessLevel: 'VIEWER' })).status, 200);
    }
    const body = { sendTo: [{ email: 'boss@example.org' }], format: 'PDF' };
    assert.equal((await s0.api.post(`/sheets/${s.id}/emails`, body, { token: viewer.token })).status, 200);
    const [m] = await newMail(1);
    assert.equal(addr(m!.replyTo), 'mail-viewer@example.com');
    assertError(await s0.api.post(`/sheets/${s.id}/emails`, body, { token: stranger.token }), 404, 1006);
    assertError(await s0.api.post(`/sheets/${s.id}/emails`, body, { token: narrow.token }), 403, 1004);
    await noNewMail();
  });
});

describe('Send Rows via Email', () => {
  test('several rows as a grid of the visible columns (hidden ones left out), with attachments and discussions', async () => {
    const s = await sheetWithRows('Sprint');
    const [r1, r2] = s.rowIds;
    const link = await s0.api.post(`/sheets/${s.id}/rows/${r1}/attachments`, { attachmentType: 'LINK', url: 'https://example.org/spec', name: 'Spec' });
    assert.equal(link.status, 200, JSON.stringify(link.body));
    const up = await fetch(`${s0.t.base}/sheets/${s.id}/rows/${r2}/attachments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${s0.t.adminToken}`, 'content-type': 'text/plain', 'content-disposition': 'attachment; filename="notes.txt"' },
      body: 'the notes',
    });
    assert.equal(up.status, 200);
    const d = await s0.api.post(`/sheets/${s.id}/rows/${r1}/discussions`, { comment: { text: 'Looks good to me' } });
    assert.equal(d.status, 200, JSON.stringify(d.body));
    const res = await s0.api.post(`/sheets/${s.id}/rows/emails`, {
      sendTo: [{ email: 'team@example.org' }], rowIds: [r2, r1], includeAttachments: true, includeDiscussions: true, message: 'For Monday',
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const [m] = await newMail(1);
    assert.match(m!.subject!, /sent you 2 rows from "Sprint"/);
    const text = m!.text!;
    assert.match(text, /For Monday/);
    assert.match(text, /Task \| Hours\nDesign <b> \| 12\nBuild \| 30/, 'rows in sheet order as a grid');
    assert.doesNotMatch(text, /secret|Internal/);
    assert.match(text, /Spec <https:\/\/example\.org\/spec>/);
    assert.match(text, /notes\.txt \(attached\)/);
    assert.match(text, /Looks good to me/);
    assert.match(m!.html as string, /Design &lt;b&gt;/, 'cell text is escaped in HTML');
    assert.deepEqual(m!.attachments.map((a) => [a.filename, a.content.toString()]), [['notes.txt', 'the notes']]);
  });

  test('one row as a card of the columns asked for; the SDK sends rows and sheets', async () => {
    const s = await sheetWithRows('Cards');
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const sdk: any = smartsheet.createClient({ accessToken: s0.t.adminToken, baseUrl: `${s0.t.base}/`, logLevel: 'error' });
    const r = await sdk.sheets.sendRows({ sheetId: s.id, body: { sendTo: [{ email: 'card@example.org' }], rowIds: [s.rowIds[1]], columnIds: [s.col.Hours!.id, s.col.Internal!.id] } });
    assert.equal(r.message, 'SUCCESS');
    const [m] = await newMail(1);
    assert.match(m!.text!, /Hours: 30\nInternal: \n/, 'the columns asked for, hidden or not, as a card');
    assert.doesNotMatch(m!.text!, /Task:/);
    const r2 = await sdk.sheets.sendSheetViaEmail({ sheetId: s.id, body: { sendTo: [{ email: 'pdf@example.org' }], format: 'PDF' } });
    assert.equal(r2.message, 'SUCCESS');
    const [m2] = await newMail(1);
    assert.equal(m2!.attachments[0]!.filename, 'Cards.pdf');
  });

  test('bad requests are refused with their codes and send nothing', async () => {
    const s = await sheetWithRows('Rows refusals');
    const send = (body: Record<string, unknown>) => s0.api.post(`/sheets/${s.id}/rows/emails`, { sendTo: [{ email: 'a@example.org' }], ...body });
    assertError(await send({}), 400, 1012);
    assertError(await send({ rowIds: [] }), 400, 1012);
    assertError(await send({ rowIds: 'x' }), 400, 1031);
    assertError(await send({ rowIds: [-1] }), 400, 1031);
    assertError(await send({ rowIds: [4503599627370495] }), 404, 1006);
    assertError(await send({ rowIds: [s.rowIds[0]], columnIds: [4503599627370495] }), 404, 1006);
    assertError(await send({ rowIds: [s.rowIds[0]], columnIds: [] }), 400, 1012);
    assertError(await send({ rowIds: [s.rowIds[0]], layout: 'DIAGONAL' }), 400, 1031);
    assertError(await send({ rowIds: [s.rowIds[0]], includeAttachments: 'true' }), 400, 1031);
    await noNewMail();
    // no columns, but discussions: allowed
    assert.equal((await send({ rowIds: [s.rowIds[0]], columnIds: [], includeDiscussions: true })).status, 200);
    await newMail(1);
  });
});

describe('Send Row via Email (POST /sheets/{id}/rows/{rowId}/emails, the Java SDK\'s deprecated sendRow)', () => {
  test('the row in the path is sent as Send Rows sends one row: a card of the visible columns, a SEND_ROW event', async () => {
    const s = await sheetWithRows('One row');
    const before = (await s0.api.get('/events?since=2000-01-01T00:00:00Z&maxCount=10000')).body.nextStreamPosition as string;
    // the body as that method writes it: a RowEmail (no rowIds)
    const res = await s0.api.post(`/sheets/${s.id}/rows/${s.rowIds[1]}/emails`, { sendTo: [{ email: 'one.row@example.org' }], subject: 'Row for you', message: 'See this', ccMe: false, includeAttachments: false, includeDiscussions: false });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { message: 'SUCCESS', resultCode: 0 });
    const [m] = await newMail(1);
    assert.equal(addr(m!.to), 'one.row@example.org');
    assert.equal(m!.subject, 'Row for you');
    assert.match(m!.text!, /See this/);
    assert.match(m!.text!, /Task: Build\nHours: 30\n/, 'the row as a card');
    assert.doesNotMatch(m!.text!, /Design|secret/, 'only that row, only visible columns');
    let pos = before;
    const events: Array<{ action: string; objectId: number; additionalDetails?: { rowIds?: number[] } }> = [];
    for (let more = true; more;) {
      const page = (await s0.api.get(`/events?streamPosition=${pos}&maxCount=10000`)).body;
      events.push(...page.data);
      pos = page.nextStreamPosition;
      more = page.moreAvailable;
    }
    const sent = events.find((e) => e.action === 'SEND_ROW' && e.objectId === s.id);
    assert.ok(sent, JSON.stringify(events));
    assert.deepEqual(sent.additionalDetails?.rowIds, [s.rowIds[1]]);
  });

  test('Send Rows\' refusals, and rowIds in the body, refused with their codes; nothing is sent', async () => {
    const s = await sheetWithRows('One row refusals');
    const send = (rowId: number | string, body: Record<string, unknown>) => s0.api.post(`/sheets/${s.id}/rows/${rowId}/emails`, body);
    assertError(await send(s.rowIds[0]!, {}), 400, 1012);
    assertError(await send(s.rowIds[0]!, { sendTo: [{ email: 'not an address' }] }), 400, 1156);
    assertError(await send(s.rowIds[0]!, { sendTo: [{ email: 'a@example.org' }], rowIds: [s.rowIds[1]] }), 400, 1032);
    assertError(await send(4503599627370495, { sendTo: [{ email: 'a@example.org' }] }), 404, 1006);
    assertError(await send('x', { sendTo: [{ email: 'a@example.org' }] }), 404, 1006);
    assertError(await send(s.rowIds[0]!, { sendTo: [{ email: 'a@example.org' }], layout: 'DIAGONAL' }), 400, 1031);
    assertError(await s0.api.post(`/sheets/${s.id}/rows/${s.rowIds[0]}/emails`, [1]), 400, 1008);
    const stranger = await makeUser(s0.t, s0.api, 'one.row.stranger@example.com');
    assertError(await s0.api.post(`/sheets/${s.id}/rows/${s.rowIds[0]}/emails`, { sendTo: [{ email: 'a@example.org' }] }, { token: stranger.token }), 404, 1006);
    await noNewMail();
  });
});

describe('Share notices', () => {
  test('sendEmail=true mails the person or each group member with the share\'s subject and message; without it nothing is sent', async () => {
    const s = await sheetWithRows('Shared plan');
    assert.equal((await s0.api.post(`/sheets/${s.id}/shares`, { email: 'quiet@example.org', accessLevel: 'VIEWER' })).status, 200);
    await noNewMail();
    await makeUser(s0.t, s0.api, 'sg1@example.com');
    const g = await s0.api.post('/groups', { name: 'Share notice group', members: [{ email: 'sg1@example.com' }] });
    const res = await s0.api.post(`/sheets/${s.id}/shares?sendEmail=True`, [
      { email: 'new.person@example.org', accessLevel: 'EDITOR', subject: 'Your plan', message: 'Have a look', ccMe: true },
      { groupId: g.body.result.id, accessLevel: 'VIEWER' },
    ]);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const mail = await newMail(3);
    assert.deepEqual(mail.map((m) => addr(m.to)), ['admin@example.com', 'new.person@example.org', 'sg1@example.com']);
    const personal = mail[1]!;
    assert.equal(personal.subject, 'Your plan');
    assert.match(personal.text!, /shared the sheet "Shared plan" with you \(Editor\)/);
    assert.match(personal.text!, /Have a look/);
    assert.match(personal.text!, new RegExp(`Open it: ${s0.t.url}/sheets/${s.id.toString(36)}`));
    assert.match(mail[2]!.text!, /\(Viewer\)/);
    assert.match(mail[2]!.subject!, /shared "Shared plan" with you$/);
    // a refused share sends nothing
    assertError(await s0.api.post(`/sheets/${s.id}/shares?sendEmail=true`, { email: 'bad address', accessLevel: 'VIEWER', message: 'x' }), 400, 1156);
    await noNewMail();
  });
});
