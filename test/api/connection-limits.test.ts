import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startSuiteServer, type TestServer } from '../helpers/server.ts';
import { rawConnect, type RawConnection } from '../helpers/raw.ts';

// Its own server: a small connection cap, keep-alive connections that outlive the test, and an
// idle cut-off far below the headers and request timeouts (30 s and 300 s by default, beyond
// the tests' own time limit), so only the idle cut-off can end a stalled client here.
const CAP = 3;
let t: TestServer;

before(async () => {
  t = await startSuiteServer({ SHEETD_MAX_CONNECTIONS: String(CAP), SHEETD_IDLE_TIMEOUT_MS: '1000', SHEETD_KEEPALIVE_TIMEOUT_MS: '60000' });
});
after(() => t.close());

/** A keep-alive connection the server has accepted and answered once, then left open. */
async function held(): Promise<RawConnection> {
  const c = await rawConnect(t.url);
  const answered = new Promise<void>((resolve) => c.socket.once('data', () => resolve()));
  c.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
  await answered;
  return c;
}

function health(): Promise<number> {
  return fetch(`${t.url}/health`, { headers: { connection: 'close' } }).then((r) => r.status, () => 0);
}

test('connections beyond SHEETD_MAX_CONNECTIONS are refused; once some close, clients are served again', { timeout: 20_000 }, async () => {
  const conns: RawConnection[] = [];
  for (let i = 0; i < CAP; i++) conns.push(await held());

  // the server closes a connection over the cap as it arrives, before reading a request
  const extra = await rawConnect(t.url);
  extra.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
  assert.equal(await extra.closed, '');
  assert.equal(await health(), 0);

  conns[0]!.socket.destroy();
  await conns[0]!.closed;
  // the server notices the close asynchronously: ask until it serves
  let status = 0;
  while (status !== 200) {
    await new Promise((r) => setTimeout(r, 20));
    status = await health();
  }
  assert.equal(status, 200);
  for (const c of conns) {
    c.socket.destroy();
    await c.closed;
  }
});

test('a client that sends part of a body and stops is disconnected; others are served meanwhile', { timeout: 20_000 }, async () => {
  const slow = await rawConnect(t.url);
  slow.write(`POST /2.0/sheets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.adminToken}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"name":`);
  assert.equal(await health(), 200);
  await slow.closed;
});

test('a client that sends part of its headers and stops is disconnected; others are served meanwhile', { timeout: 20_000 }, async () => {
  const slow = await rawConnect(t.url);
  slow.write('GET /2.0/users/me HTTP/1.1\r\nHost: x\r\nX-Slow: ');
  assert.equal(await health(), 200);
  await slow.closed;
});

test('open change streams count toward SHEETD_MAX_CONNECTIONS, and a closed one frees its place', { timeout: 20_000 }, async () => {
  const created = await fetch(`${t.base}/sheets`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': 'application/json', connection: 'close' },
    body: JSON.stringify({ name: 'streams and the cap', columns: [{ title: 'A', type: 'TEXT_NUMBER', primary: true }] }),
  });
  const sheetId = ((await created.json()) as { result: { id: number } }).result.id;
  const streams: RawConnection[] = [];
  for (let i = 0; i < CAP; i++) {
    const c = await rawConnect(t.url);
    const hello = new Promise<void>((resolve) => {
      let got = '';
      c.socket.on('data', (d: Buffer) => {
        got += d.toString();
        if (got.includes('event: hello')) resolve();
      });
    });
    c.write(`GET /2.0/sheetd/sheets/${sheetId}/changes HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\nAuthorization: Bearer ${t.adminToken}\r\n\r\n`);
    await hello;
    streams.push(c);
  }
  // the streams hold every place: a further connection is refused
  assert.equal(await health(), 0);
  streams[0]!.socket.destroy();
  await streams[0]!.closed;
  let status = 0;
  while (status !== 200) {
    await new Promise((r) => setTimeout(r, 20));
    status = await health();
  }
  for (const c of streams) {
    c.socket.destroy();
    await c.closed;
  }
});
