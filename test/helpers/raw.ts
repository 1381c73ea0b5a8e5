import net from 'node:net';

/**
 * A raw TCP client for what fetch cannot send (malformed request lines, bad Content-Length,
 * huge headers) or will not do (stall half-way through a request).
 */
export interface RawConnection {
  socket: net.Socket;
  /** Resolves when the server closes the connection, with every byte it sent. */
  closed: Promise<string>;
  write(data: string): void;
}

export function rawConnect(url: string): Promise<RawConnection> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    let received = '';
    const closed = new Promise<string>((done) => {
      socket.on('data', (c: Buffer) => (received += c.toString('latin1')));
      socket.on('close', () => done(received));
    });
    // a reset after the server answered (it closes while the client still sends) is expected
    socket.on('error', () => undefined);
    socket.once('connect', () => resolve({ socket, closed, write: (d) => socket.write(d, 'latin1') }));
    socket.once('error', reject);
  });
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** Parses the one response on a connection the server closed. */
export function parseRawResponse(raw: string): RawResponse {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) throw new Error(`no HTTP response in ${JSON.stringify(raw.slice(0, 200))}`);
  const [statusLine, ...lines] = raw.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const l of lines) {
    const i = l.indexOf(':');
    headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
  }
  const text = raw.slice(end + 4);
  return { status: Number(statusLine!.split(' ')[1]), headers, body: text === '' ? undefined : JSON.parse(text) };
}

/** Sends `data` on a new connection and waits for the server to answer and close. */
export async function rawRequest(url: string, data: string): Promise<RawResponse> {
  const c = await rawConnect(url);
  c.write(data);
  return parseRawResponse(await c.closed);
}

/**
 * The size in characters of the first response in `raw` (read as latin1) when all of it is
 * there; undefined when its head or body is still coming. Every response needs a Content-Length.
 */
function firstResponseSize(raw: string): number | undefined {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(raw.slice(0, end));
  if (!length) throw new Error(`a response without Content-Length: ${JSON.stringify(raw.slice(0, 200))}`);
  // Content-Length counts bytes: the text was read as latin1, one character a byte
  const size = end + 4 + Number(length[1]);
  return raw.length < size ? undefined : size;
}

/** How many whole responses `raw` (read as latin1 so far on a connection) holds. */
export function completeResponses(raw: string): number {
  let count = 0;
  let rest = raw;
  for (let size = firstResponseSize(rest); size !== undefined; size = firstResponseSize(rest)) {
    rest = rest.slice(size);
    count++;
  }
  return count;
}

/** Parses every response on a connection the server closed, in order (each has a Content-Length). */
export function parseRawResponses(raw: string): RawResponse[] {
  const out: RawResponse[] = [];
  let rest = raw;
  while (rest.length > 0) {
    const size = firstResponseSize(rest);
    if (size === undefined) throw new Error(`no whole HTTP response in ${JSON.stringify(rest.slice(0, 200))}`);
    out.push(parseRawResponse(Buffer.from(rest.slice(0, size), 'latin1').toString('utf8')));
    rest = rest.slice(size);
  }
  return out;
}
