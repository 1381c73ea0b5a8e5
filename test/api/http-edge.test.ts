import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startSuiteServer, type TestServer } from '../helpers/server.ts';
import { assertError, client, type Client } from '../helpers/http.ts';
import { parseRawResponse, parseRawResponses, rawConnect, rawRequest } from '../helpers/raw.ts';

// Short limits so that the slow-client tests finish quickly; each stays far above the pauses of
// the trickling clients (100 ms), and the idle cut-off (tested in connection-limits.test.ts) is
// far above the others, so each test shows the one limit it names at work.
const IDLE_MS = 30_000;
const HEADERS_MS = 1000;
const REQUEST_MS = 2000;
const KEEPALIVE_MS = 500;

let t: TestServer;
let api: Client;

before(async () => {
  t = await startSuiteServer({
    SHEETD_IDLE_TIMEOUT_MS: String(IDLE_MS),
    SHEETD_HEADERS_TIMEOUT_MS: String(HEADERS_MS),
    SHEETD_REQUEST_TIMEOUT_MS: String(REQUEST_MS),
    SHEETD_KEEPALIVE_TIMEOUT_MS: String(KEEPALIVE_MS),
  });
  api = client(t.base, t.adminToken);
});
after(() => t.close());

async function sheetCount(): Promise<number> {
  const r = await api.get('/sheets?includeAll=true');
  assert.equal(r.status, 200);
  return r.body.totalCount as number;
}

/** Asserts the Error object with a 1008 code and the given HTTP status on a raw response. */
function assertProtocolError(res: { status: number; body: unknown }, status: number): void {
  assertError(res, status, 1008);
}

describe('malformed requests answer the Error object', () => {
  test('headers larger than the limit: 431/1008', async () => {
    const res = await rawRequest(t.url, `GET /2.0/users/me HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    assertProtocolError(res, 431);
    assert.match(res.headers['content-type']!, /^application\/json/);
  });

  test('a URI longer than 12 KiB: 414/1008, whether or not it overflows the header limit', async () => {
    const long = await rawRequest(t.url, `GET /2.0/sheets?x=${'a'.repeat(13_000)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer ${t.adminToken}\r\n\r\n`);
    assertProtocolError(long, 414);
    const huge = await rawRequest(t.url, `GET /2.0/sheets?x=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    assertProtocolError(huge, 414);
    // at the limit it is served (Delete Rows of 500 rows sends about 8.5 KB of ids)
    const path = '/2.0/sheets?x=';
    const atLimit = await rawRequest(t.url, `GET ${path}${'a'.repeat(12 * 1024 - path.length)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer ${t.adminToken}\r\n\r\n`);
    assert.equal(atLimit.status, 200);
  });

  test('control characters in the request line: 400/1008', async () => {
    assertProtocolError(await rawRequest(t.url, 'GET /2.0/users/me\x01 HTTP/1.1\r\nHost: x\r\n\r\n'), 400);
    assertProtocolError(await rawRequest(t.url, 'G\x01T /2.0/users/me HTTP/1.1\r\nHost: x\r\n\r\n'), 400);
    assertProtocolError(await rawRequest(t.url, 'GET /2.0/users/me HTTP/1.1\x7f\r\nHost: x\r\n\r\n'), 400);
  });

  test('a bad Content-Length: 400/1008, and nothing is created', async () => {
    const before = await sheetCount();
    const body = JSON.stringify({ name: 'edge', columns: [{ title: 'A', primary: true, type: 'TEXT_NUMBER' }] });
    const head = `POST /2.0/sheets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.adminToken}\r\nContent-Type: application/json\r\n`;
    for (const cl of ['abc', '-1', `${body.length}\r\nContent-Length: ${body.length + 1}`, `${body.length}\r\nTransfer-Encoding: chunked`]) {
      assertProtocolError(await rawRequest(t.url, `${head}Content-Length: ${cl}\r\n\r\n${body}`), 400);
    }
    assert.equal(await sheetCount(), before);
  });
});

// Node's parser reports bytes that cannot start a request while the request before them may still
// be in its handler: that request is answered first, the error after it (issue 34).
describe('a request read in full is answered before the error on what follows it', () => {
  const sheetBody = (name: string) => JSON.stringify({ name, columns: [{ title: 'A', primary: true, type: 'TEXT_NUMBER' }] });
  const head = (path: string, type: string, length: number, extra = '') =>
    `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.adminToken}\r\nContent-Type: ${type}\r\nContent-Length: ${length}\r\n${extra}\r\n`;

  /** Sends `data` on a new connection; returns every response, the last of which is the 400/1008 on what followed. */
  async function sendThenGarbage(data: string): Promise<Array<{ status: number; body: unknown }>> {
    const c = await rawConnect(t.url);
    c.write(data);
    const responses = parseRawResponses(await c.closed);
    assert.equal(responses.length, 2, JSON.stringify(responses));
    assertProtocolError(responses[1]!, 400);
    return responses;
  }

  test('JSON: Create Sheet followed by bytes that are no request gets its 200, and the sheet exists once', async () => {
    const name = `followed-${Date.now()}`;
    const body = sheetBody(name);
    const [created] = await sendThenGarbage(head('/2.0/sheets', 'application/json', Buffer.byteLength(body)) + body + 'XYZ');
    assert.equal(created!.status, 200, JSON.stringify(created!.body));
    const id = (created!.body as { result: { id: number } }).result.id;
    const all = (await api.get('/sheets?includeAll=true')).body.data as Array<{ id: number; name: string }>;
    assert.deepEqual(all.filter((s) => s.name === name).map((s) => s.id), [id]);
  });

  test('pipelined: two requests then garbage: both answered in order, then the error', async () => {
    const names = [`piped-a-${Date.now()}`, `piped-b-${Date.now()}`];
    const data = names.map((n) => { const b = sheetBody(n); return head('/2.0/sheets', 'application/json', Buffer.byteLength(b)) + b; }).join('') + 'XYZ';
    const c = await rawConnect(t.url);
    c.write(data);
    const responses = parseRawResponses(await c.closed);
    assert.deepEqual(responses.map((r) => r.status), [200, 200, 400]);
    assertProtocolError(responses[2]!, 400);
    assert.deepEqual(responses.slice(0, 2).map((r) => (r.body as { result: { name: string } }).result.name), names);
    const all = (await api.get('/sheets?includeAll=true')).body.data as Array<{ name: string }>;
    for (const n of names) assert.equal(all.filter((s) => s.name === n).length, 1, n);
  });

  test('upload: a multipart attachment followed by garbage gets its 200, and the file is stored once, whole', async () => {
    const sheet = (await api.post('/sheets', JSON.parse(sheetBody(`uploads-${Date.now()}`)))).body.result as { id: number };
    const boundary = 'b0undary';
    const content = 'the whole file\n'.repeat(50);
    const multipart = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="notes.txt"\r\nContent-Type: text/plain\r\n\r\n${content}\r\n--${boundary}--\r\n`;
    const [attached] = await sendThenGarbage(
      head(`/2.0/sheets/${sheet.id}/attachments`, `multipart/form-data; boundary=${boundary}`, Buffer.byteLength(multipart)) + multipart + 'XYZ',
    );
    assert.equal(attached!.status, 200, JSON.stringify(attached!.body));
    const list = (await api.get(`/sheets/${sheet.id}/attachments`)).body.data as Array<{ id: number; name: string; sizeInKb: number }>;
    assert.deepEqual(list.map((a) => [a.id, a.name]), [[(attached!.body as { result: { id: number } }).result.id, 'notes.txt']]);
    const file = await api.get(`/sheets/${sheet.id}/attachments/${list[0]!.id}`);
    const got = await fetch(file.body.url as string);
    assert.equal(await got.text(), content);
  });

  test('upload: a chunked upload whose body turns malformed half-way answers 400/1008 and stores nothing', async () => {
    const sheet = (await api.post('/sheets', JSON.parse(sheetBody(`chunked-${Date.now()}`)))).body.result as { id: number };
    const c = await rawConnect(t.url);
    c.write(`POST /2.0/sheets/${sheet.id}/attachments HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.adminToken}\r\nContent-Type: text/plain\r\n` +
      'Content-Disposition: attachment; filename="half.txt"\r\nTransfer-Encoding: chunked\r\n\r\n' + `400\r\n${'a'.repeat(1024)}\r\n`);
    // the first chunk is on its way to the blob store when the next one is no chunk
    await new Promise((r) => setTimeout(r, 200));
    c.write('zz-not-a-chunk-size\r\n');
    const responses = parseRawResponses(await c.closed);
    assert.equal(responses.length, 1, JSON.stringify(responses));
    assertProtocolError(responses[0]!, 400);
    // the handler's failure follows the answer: give it a moment before looking
    await new Promise((r) => setTimeout(r, 300));
    const list = await api.get(`/sheets/${sheet.id}/attachments`);
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.data, []);
  });

  test('upload: a simple upload whose body runs past its Content-Length stores what the length says, and answers 200 for it', async () => {
    const sheet = (await api.post('/sheets', JSON.parse(sheetBody(`simple-${Date.now()}`)))).body.result as { id: number };
    const content = 'declared part';
    const [attached] = await sendThenGarbage(
      head(`/2.0/sheets/${sheet.id}/attachments`, 'text/plain', Buffer.byteLength(content), 'Content-Disposition: attachment; filename="a.txt"\r\n') + content + ' and what runs past it',
    );
    assert.equal(attached!.status, 200, JSON.stringify(attached!.body));
    const list = (await api.get(`/sheets/${sheet.id}/attachments`)).body.data as Array<{ id: number }>;
    assert.equal(list.length, 1);
    const file = await api.get(`/sheets/${sheet.id}/attachments/${list[0]!.id}`);
    assert.equal(await (await fetch(file.body.url as string)).text(), content);
  });
});

// A limit that no longer works makes a test fail at its own timeout instead of hanging the suite.
describe('slow clients are cut off; others are served meanwhile', { timeout: 60_000 }, () => {
  test('headers trickled too slowly to trip the idle cut-off: 408/1008 once the headers timeout passes', async () => {
    const slow = await rawConnect(t.url);
    slow.write('GET /2.0/users/me HTTP/1.1\r\nHost: x\r\n');
    const timer = setInterval(() => slow.write('X-Slow: a\r\n'), 100);
    try {
      assert.equal((await api.get('/users/me')).status, 200);
      assertProtocolError(parseRawResponse(await slow.closed), 408);
    } finally {
      clearInterval(timer);
    }
  });

  test('a body trickled too slowly: 408/1008 once the request timeout passes, and nothing is created', async () => {
    const before = await sheetCount();
    const body = JSON.stringify({ name: 'trickled', columns: [{ title: 'A', primary: true, type: 'TEXT_NUMBER' }] });
    const slow = await rawConnect(t.url);
    slow.write(`POST /2.0/sheets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.adminToken}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
    let sent = 0;
    // the body would take far longer than the request timeout at one byte per 100 ms
    const timer = setInterval(() => {
      if (sent < body.length - 1) slow.write(body[sent++]!);
    }, 100);
    try {
      assert.equal((await api.get('/users/me')).status, 200);
      assertProtocolError(parseRawResponse(await slow.closed), 408);
    } finally {
      clearInterval(timer);
    }
    assert.equal(await sheetCount(), before);
  });

  test('an idle keep-alive connection is closed after its response', async () => {
    const c = await rawConnect(t.url);
    c.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
    const raw = await c.closed;
    assert.equal(parseRawResponse(raw).status, 200);
  });
});
