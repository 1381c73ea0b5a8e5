import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import { enqueue } from '../../src/store/jobs.ts';
import { startSuiteServer, type TestServer } from '../helpers/server.ts';

// A running server sends the mail that a transaction enqueued: the `mail` job is handled by
// the worker of every sheetd process, here into the outbox (no SMTP_URL).
let ts: TestServer;
before(async () => {
  ts = await startSuiteServer({ SHEETD_JOB_POLL_MS: '50' });
});
after(async () => ts.close());

async function waitForOutbox(dir: string): Promise<string[]> {
  for (let i = 0; i < 200; i++) {
    const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.eml')) : [];
    if (files.length > 0) return files;
    await new Promise((r) => setTimeout(r, 50));
  }
  return [];
}

test('a mail job committed with a change is written to the outbox by the worker', async () => {
  const outbox = path.join(ts.dataDir, 'outbox');
  await ts.server.store.db.transaction().execute(async (tx) => {
    await enqueue(tx, 'mail', { to: ['ann@example.org'], subject: 'Rows changed', text: 'Two rows changed.\n' });
  });
  const files = await waitForOutbox(outbox);
  assert.equal(files.length, 1);
  const mail = await simpleParser(fs.readFileSync(path.join(outbox, files[0]!)));
  assert.equal(mail.subject, 'Rows changed');
  assert.equal(mail.text, 'Two rows changed.\n');
  assert.deepEqual((Array.isArray(mail.to) ? mail.to[0] : mail.to)?.value.map((v) => v.address), ['ann@example.org']);
  const left = await ts.server.store.db.selectFrom('jobs').select('id').execute();
  assert.equal(left.length, 0, 'the job is gone once sent');
});

test('a mail job enqueued in a transaction that rolls back sends nothing', async () => {
  const outbox = path.join(ts.dataDir, 'outbox');
  const before = fs.existsSync(outbox) ? fs.readdirSync(outbox).length : 0;
  await assert.rejects(ts.server.store.db.transaction().execute(async (tx) => {
    await enqueue(tx, 'mail', { to: ['bob@example.org'], subject: 'Never', text: 'x' });
    throw new Error('rolled back');
  }));
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(fs.existsSync(outbox) ? fs.readdirSync(outbox).length : 0, before);
});
