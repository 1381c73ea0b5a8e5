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

/** Parses every response on a connection the server closed, in order (each has a Content-Length). */
export function parseRawResponses(raw: string): RawResponse[] {
  const out: RawResponse[] = [];
  let rest = raw;
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) throw new Error(`no HTTP response in ${JSON.stringify(rest.slice(0, 200))}`);
    const length = /\r\ncontent-length:\s*(\d+)/i.exec(rest.slice(0, end));
    if (!length) throw new Error(`a response without Content-Length: ${JSON.stringify(rest.slice(0, 200))}`);
    const size = end + 4 + Number(length[1]);
    // Content-Length counts bytes: the text was read as latin1, one character a byte
    out.push(parseRawResponse(Buffer.from(rest.slice(0, size), 'latin1').toString('utf8')));
    rest = rest.slice(size);
  }
  return out;
}
