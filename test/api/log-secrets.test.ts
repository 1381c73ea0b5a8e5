import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { serverForFile } from '../helpers/setup.ts';
import { spawnServer } from '../helpers/process.ts';
import { client } from '../helpers/http.ts';
import { makeSheet } from '../helpers/sheets.ts';

// A sheetd process at the default log level (info) on the same data as this file's server: each
// kind of request that carries a secret is sent to it, and its log is read (issue 34).
const s0 = serverForFile();
let proc: Awaited<ReturnType<typeof spawnServer>> | undefined;
after(() => proc?.close());

/** A sheetd process at the default log level on this file's data, its log kept. */
async function loggingProcess() {
  const env: Record<string, string> = { SHEETD_DATA_DIR: s0.t.dataDir, ...(s0.t.config.databaseUrl ? { DATABASE_URL: s0.t.config.databaseUrl } : {}) };
  // the default level: what `sheetd serve` logs when nothing is set (an empty setting is none)
  env.SHEETD_LOG_LEVEL = '';
  env.LOG_LEVEL = '';
  return spawnServer(env, { keepLog: true });
}

/** Each line of the log, parsed. */
function lines(): Array<Record<string, unknown>> {
  return proc!.log().split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** The log once the process has logged the completion of `n` more requests than `before`. */
async function settled(before: number, n: number): Promise<string> {
  const deadline = Date.now() + 10_000;
  const completed = () => lines().filter((l) => l.msg === 'request completed').length;
  while (completed() < before + n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  return proc!.log();
}

test('at the default log level no line carries a secret; the lines keep the route and the ids', async () => {
  proc = await loggingProcess();
  const origin = new URL(proc.base).origin;
  const secrets: string[] = [s0.t.adminToken];
  const sheet = await makeSheet(client(s0.t.base, s0.t.adminToken), 'log secrets', [{ title: 'A', type: 'TEXT_NUMBER', primary: true }]);
  const startCount = lines().filter((l) => l.msg === 'request completed').length;
  let sent = 0;
  /** A request with the admin's token, or the headers given (authorization: null for none). */
  const send = async (path: string, init: Omit<RequestInit, 'headers'> & { headers?: Record<string, string | null> } = {}) => {
    sent++;
    const headers: Record<string, string> = { authorization: `Bearer ${s0.t.adminToken}` };
    for (const [k, v] of Object.entries(init.headers ?? {})) {
      if (v === null) delete headers[k];
      else headers[k] = v;
    }
    const res = await fetch(origin + path, { ...init, headers });
    await res.clone().arrayBuffer();
    return res;
  };

  // an attachment's download link (usable without a token while it lasts)
  const up = await send(`/2.0/sheets/${sheet.id}/attachments`, { method: 'POST', body: 'secret file', headers: { 'content-type': 'text/plain', 'content-disposition': 'attachment; filename="s.txt"' } });
  assert.equal(up.status, 200);
  const attachmentId = ((await up.json()) as { result: { id: number } }).result.id;
  const got = (await (await send(`/2.0/sheets/${sheet.id}/attachments/${attachmentId}`)).json()) as { url: string };
  const download = new URL(got.url);
  secrets.push(download.pathname.split('/').pop()!);
  assert.equal((await send(download.pathname, { headers: { authorization: null } })).status, 200);

  // a token in the query (refused, but it is the client's real token)
  const queryToken = 'qs' + 'x'.repeat(24);
  secrets.push(queryToken);
  await send(`/2.0/sheets/${sheet.id}?access_token=${queryToken}&include=format`, { headers: { authorization: null } });

  // cookies and credentials in headers
  const cookie = 'cookiesecret' + 'y'.repeat(20);
  secrets.push(cookie);
  await send('/2.0/users/me', { headers: { cookie: `sid=${cookie}` } });
  const basic = Buffer.from('user:basicsecretpassword').toString('base64');
  secrets.push(basic);
  await send('/2.0/users/me', { headers: { authorization: `Basic ${basic}` } });

  // OAuth: an authorization code, a client secret, its hash and a refresh token in the query
  const code = 'oauthcode' + 'z'.repeat(20);
  const clientSecret = 'clientsecret' + 'w'.repeat(20);
  const hash = 'a1b2'.repeat(16);
  const refresh = 'refreshtok' + 'v'.repeat(20);
  secrets.push(code, clientSecret, hash, refresh);
  await send(`/2.0/token?grant_type=authorization_code&code=${code}&client_id=app1&client_secret=${clientSecret}&hash=${hash}`, { method: 'POST', headers: { authorization: null } });
  await send(`/2.0/token?grant_type=refresh_token&refresh_token=${refresh}&client_id=app1&hash=${hash}`, { method: 'POST', headers: { authorization: null } });

  // a webhook's shared secret, as created and as reset
  const hook = await send('/2.0/webhooks', {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'h', callbackUrl: 'https://hooks.example.com/in', scope: 'sheet', scopeObjectId: sheet.id, events: ['*.*'], version: 1 }),
  });
  assert.equal(hook.status, 200);
  const h = ((await hook.json()) as { result: { id: number; sharedSecret: string } }).result;
  secrets.push(h.sharedSecret);
  const reset = await send(`/2.0/webhooks/${h.id}/resetsharedsecret`, { method: 'POST' });
  assert.equal(reset.status, 200);
  secrets.push(((await reset.json()) as { result: { sharedSecret: string } }).result.sharedSecret);

  // signed links: approval, update request, proof review, image URLs, published pages, password links (their
  // signatures need not be valid: the request line is what is logged)
  const signature = 'sig' + 'Q'.repeat(40);
  secrets.push(signature);
  const published = 'pub' + 'P'.repeat(20);
  secrets.push(published);
  for (const path of [
    `/2.0/sheetd/approvals/4242.${signature}`, `/updaterequests/4343.${signature}`, `/proofreviews/4444.${signature}`,
    `/proofreviews/4444.${signature}/files/4545`, `/2.0/imageurls/${signature}`, `/published/${published}`, `/published/sights/${published}`,
    `/password/${signature}`,
  ]) await send(path, { headers: { authorization: null } });

  const log = await settled(startCount, sent);
  for (const s of secrets) assert.ok(!log.includes(s), `the log carries a secret (${s.slice(0, 12)}...):\n${log.split('\n').filter((l) => l.includes(s)).join('\n')}`);

  // the lines are still useful: each request's route and ids are there
  const urls = lines().map((l) => (l.req as { url?: string } | undefined)?.url).filter((u): u is string => u !== undefined);
  for (const u of [
    `/2.0/sheets/${sheet.id}/attachments/${attachmentId}`, `/2.0/sheets/${sheet.id}?access_token=[redacted]&include=format`,
    '/2.0/token?grant_type=authorization_code&code=[redacted]&client_id=app1&client_secret=[redacted]&hash=[redacted]',
    `/2.0/webhooks/${h.id}/resetsharedsecret`, '/2.0/sheetd/approvals/4242.[redacted]', '/updaterequests/4343.[redacted]',
    '/proofreviews/4444.[redacted]/files/4545', '/2.0/imageurls/[redacted]', '/published/[redacted]', '/published/sights/[redacted]',
    '/password/[redacted]',
  ]) assert.ok(urls.includes(u), `no line with ${u} in ${JSON.stringify(urls)}`);
  // the download link keeps the sheet's and the attachment's ids and its expiry, not its signature
  const downloadLine = urls.find((u) => u.startsWith('/2.0/attachmentfiles/'));
  assert.match(downloadLine ?? '', new RegExp(`^/2\\.0/attachmentfiles/${sheet.id}\\.${attachmentId}\\.\\d+\\.\\[redacted\\]$`));
});
