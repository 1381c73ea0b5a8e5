import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { SMTPServer } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';
import { loadConfig } from '../../src/config.ts';
import { createBlobStore, newBlobKey, type BlobStore } from '../../src/blobs/index.ts';
import { createMailer, mailJobHandler, type MailPayload } from '../../src/mail/index.ts';
import { pngBytes } from '../helpers/images.ts';

const PNG = pngBytes(4, 4, 50);
const REPORT = Buffer.from('id,name\n1,Åsa\n', 'utf8');

/** A message with text, HTML, a bcc and two attachments (one from the blob store). */
function payload(reportKey: string): MailPayload {
  return {
    to: ['Ann Reader <ann@example.org>', 'bob@example.org'],
    cc: ['carol@example.org'],
    bcc: ['dave@example.org'],
    replyTo: 'owner@example.org',
    subject: 'Sheet "Plans" was shared with you — ünïcode',
    text: 'Open it at https://sheets.example.org/sheets/1\n',
    html: '<p>Open <a href="https://sheets.example.org/sheets/1">Plans</a></p>',
    attachments: [{ filename: 'report.csv', contentType: 'text/csv', blobKey: reportKey }],
  };
}

function assertDelivered(mail: ParsedMail, from: { name: string; address: string }): void {
  assert.deepEqual(mail.from?.value.map((v) => ({ name: v.name, address: v.address })), [from]);
  const to = Array.isArray(mail.to) ? mail.to : [mail.to!];
  assert.deepEqual(to.flatMap((a) => a.value.map((v) => v.address)), ['ann@example.org', 'bob@example.org']);
  assert.equal(to[0]!.value[0]!.name, 'Ann Reader');
  assert.equal((Array.isArray(mail.cc) ? mail.cc[0] : mail.cc)?.text, 'carol@example.org');
  assert.equal(mail.replyTo?.text, 'owner@example.org');
  assert.equal(mail.subject, 'Sheet "Plans" was shared with you — ünïcode');
  assert.equal(mail.text, 'Open it at https://sheets.example.org/sheets/1\n');
  assert.equal(mail.html, '<p>Open <a href="https://sheets.example.org/sheets/1">Plans</a></p>');
  assert.equal(mail.attachments.length, 1);
  const [csv] = mail.attachments;
  assert.equal(csv!.filename, 'report.csv');
  assert.equal(csv!.contentType, 'text/csv');
  assert.deepEqual(csv!.content, REPORT);
  assert.ok(mail.messageId, 'a Message-ID');
  assert.ok(mail.date instanceof Date);
}

let dataDir: string;
let blobs: BlobStore;
let reportKey: string;

before(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetd-mail-'));
  blobs = await createBlobStore({ backend: 'fs' }, dataDir);
  reportKey = newBlobKey();
  await blobs.put(reportKey, Readable.from([REPORT]), { contentType: 'text/csv', maxBytes: 1000 });
});
after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

describe('SMTP (SMTP_URL)', () => {
  const received: Array<{ from: string; rcpt: string[]; user: string | undefined; mail: ParsedMail }> = [];
  let server: SMTPServer;
  let port: number;
  before(async () => {
    server = new SMTPServer({
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      onAuth(auth, _session, cb) {
        if (auth.username === 'sheetd' && auth.password === 's3cret:/@') cb(null, { user: auth.username });
        else cb(new Error('bad credentials'));
      },
      onData(stream, session, cb) {
        simpleParser(stream).then((mail) => {
          received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            rcpt: session.envelope.rcptTo.map((r) => r.address),
            user: session.user as string | undefined,
            mail,
          });
          cb();
        }, cb);
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.server.address() as AddressInfo).port;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  test('a mail job goes out through the SMTP server of SMTP_URL (credentials from the URL): recipients, subject, text, HTML, attachment', async () => {
    const config = loadConfig({ SMTP_URL: `smtp://sheetd:${encodeURIComponent('s3cret:/@')}@127.0.0.1:${port}`, SHEETD_MAIL_FROM: 'Sheets <sheets@example.org>' });
    const mailer = createMailer(config.mail, dataDir);
    try {
      await mailJobHandler(mailer, blobs)(payload(reportKey));
    } finally {
      mailer.close();
    }
    assert.equal(received.length, 1);
    const r = received[0]!;
    assert.equal(r.user, 'sheetd');
    assert.equal(r.from, 'sheets@example.org');
    // the envelope has every recipient, the bcc too, which the message itself does not show
    assert.deepEqual(r.rcpt.sort(), ['ann@example.org', 'bob@example.org', 'carol@example.org', 'dave@example.org']);
    assert.equal(r.mail.bcc, undefined);
    assertDelivered(r.mail, { name: 'Sheets', address: 'sheets@example.org' });
    assert.equal(fs.existsSync(path.join(dataDir, 'outbox')), false, 'nothing in the outbox');
  });

  test('a refused message rejects (the job retries)', async () => {
    const mailer = createMailer(loadConfig({ SMTP_URL: `smtp://sheetd:wrong@127.0.0.1:${port}` }).mail, dataDir);
    try {
      await assert.rejects(mailer.send({ to: ['x@example.org'], subject: 's', text: 't' }));
    } finally {
      mailer.close();
    }
  });
});

describe('outbox (no SMTP_URL)', () => {
  test('each message is an .eml file under <data dir>/outbox/, 0600, that parses back to what was sent (Bcc kept)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetd-outbox-'));
    try {
      const config = loadConfig({ SHEETD_DATA_DIR: dir, SHEETD_PUBLIC_URL: 'https://sheets.example.org/' });
      assert.equal(config.mail.from, 'sheetd@sheets.example.org');
      const mailer = createMailer(config.mail, dir);
      await mailJobHandler(mailer, blobs)(payload(reportKey));
      await mailer.send({ to: ['second@example.org'], subject: 'second', text: 'two', attachments: [{ filename: 'dot.png', content: PNG }] });
      mailer.close();

      const outbox = path.join(dir, 'outbox');
      const files = fs.readdirSync(outbox).sort();
      assert.equal(files.length, 2, files.join());
      for (const f of files) {
        assert.match(f, /^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z-[0-9a-f]{12}\.eml$/);
        assert.equal(fs.statSync(path.join(outbox, f)).mode & 0o777, 0o600);
      }
      assert.equal(fs.statSync(outbox).mode & 0o777, 0o700);
      const mails = await Promise.all(files.map((f) => simpleParser(fs.createReadStream(path.join(outbox, f)))));
      const first = mails.find((m) => m.subject !== 'second')!;
      assertDelivered(first, { name: '', address: 'sheetd@sheets.example.org' });
      assert.equal((Array.isArray(first.bcc) ? first.bcc[0] : first.bcc)?.text, 'dave@example.org');
      const second = mails.find((m) => m.subject === 'second')!;
      assert.equal(second.text?.trimEnd(), 'two');
      assert.equal(second.attachments.length, 1);
      assert.equal(second.attachments[0]!.contentType, 'image/png');
      assert.deepEqual(second.attachments[0]!.content, PNG);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('configuration: SMTP_URL must be smtp:// or smtps://', () => {
    assert.throws(() => loadConfig({ SMTP_URL: 'http://mail.example.org' }), /SMTP_URL/);
    assert.equal(loadConfig({ SMTP_URL: 'smtps://u:p@mail.example.org:465' }).mail.smtpUrl, 'smtps://u:p@mail.example.org:465');
    assert.match(loadConfig({}).mail.from, /^sheetd@\S+$/);
  });
});
