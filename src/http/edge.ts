import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionError, FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import { errorBody, protocolError } from './errors.ts';

/**
 * The HTTP edge: what happens on a connection before (or instead of) a route. Timeouts cut off
 * clients that stop sending, a cap keeps idle connections from using up the file descriptors, and
 * malformed requests get the Error object like every other failure (see docs/decisions.md).
 */

/** Longest request target (path and query) in bytes; beyond it 414. */
export const MAX_URI_LENGTH = 12 * 1024;

/** The last response a socket began (its request is `res.req`); see servingOn. */
const serving = new WeakMap<Socket, ServerResponse>();

/** The response a socket is working on, from its request's arrival until the response closes. */
function servingOn(socket: Socket): { req: IncomingMessage; res: ServerResponse } | undefined {
  const res = serving.get(socket);
  return res === undefined || res.closed ? undefined : { req: res.req, res };
}

/** Fastify server options for the timeouts; `node` also goes into https options (Fastify passes `http` only to http.createServer). */
export function edgeOptions(config: Config) {
  const node = {
    headersTimeout: config.headersTimeoutMs,
    requestTimeout: config.requestTimeoutMs,
    // Node checks the headers and request timeouts on this period (30 s by default, which would
    // let a trickling client live twice its limit).
    connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(config.headersTimeoutMs / 2))),
  };
  return {
    fastify: {
      connectionTimeout: config.idleTimeoutMs,
      keepAliveTimeout: config.keepAliveTimeoutMs,
      requestTimeout: config.requestTimeoutMs,
      clientErrorHandler,
    },
    node,
  };
}

/**
 * Connection cap, idle cut-off and the URI limit; call once right after creating the app.
 * `arrived`: what the app does first with every request within the limit (one hook for both).
 */
export function installEdge(app: FastifyInstance, config: Config, arrived: (req: FastifyRequest) => void): void {
  const server = app.server;
  server.maxConnections = config.maxConnections;
  let dropped = 0;
  let lastDropLog = 0;
  server.on('drop', () => {
    dropped++;
    const now = Date.now();
    if (now - lastDropLog < 60_000) return;
    app.log.warn({ dropped, maxConnections: config.maxConnections }, 'connections refused: the connection cap (SHEETD_MAX_CONNECTIONS) is reached');
    lastDropLog = now;
    dropped = 0;
  });
  // no listener on the response (a closure and a listener added and removed per request): a
  // closed response is simply no longer the one its socket works on
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    serving.set(req.socket, res);
  });
  // Node destroys a socket idle for connectionTimeout only when nobody listens to 'timeout'.
  // Listening lets a request that has fully arrived take as long as its handler needs: the idle
  // cut-off is for clients that stop sending (or stop reading what is written to them).
  server.on('timeout', (socket: Socket) => {
    const cur = servingOn(socket);
    if (cur && cur.req.complete && socket.writableLength === 0) return;
    socket.destroy();
  });
  // hooks of every request are callbacks, not async functions: a promise per hook and request
  app.addHook('onRequest', (req, _reply, done) => {
    if (req.url.length > MAX_URI_LENGTH) {
      done(protocolError(414, `the URI is longer than ${MAX_URI_LENGTH} bytes`));
      return;
    }
    arrived(req);
    done();
  });
}

/** Sockets whose parser error is answered already (or waits for the response before it). */
const failing = new WeakSet<Socket>();

/**
 * Errors of the HTTP parser and Node's request timeouts: the socket has no request object, so
 * the Error object is written by hand, with the status the protocol requires. A request read in
 * full before the bytes that failed is still in its handler (or being answered): its answer goes
 * out first and the error after it, so that nothing is applied whose answer the client never
 * gets. An error inside the request being read (its body) fails that request: the error is
 * written at once and the connection closed, and the unfinished body fails its handler.
 */
function clientErrorHandler(this: unknown, err: ConnectionError & { reason?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  // the parser reports again on every later chunk: one answer per connection
  if (failing.has(socket)) return;
  failing.add(socket);
  let e;
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    e = protocolError(408, 'the request did not arrive in time');
  } else if (err.code === 'HPE_HEADER_OVERFLOW') {
    e = uriOverflowed((err as { rawPacket?: unknown }).rawPacket)
      ? protocolError(414, `the URI is longer than ${MAX_URI_LENGTH} bytes`)
      : protocolError(431, 'the request headers are larger than this server accepts');
  } else {
    e = protocolError(400, `malformed HTTP request (${err.reason ?? err.code ?? 'unknown'})`);
  }
  // Fastify calls the handler with the instance as `this`
  (this as FastifyInstance).log.info({ errorCode: e.errorCode, status: e.statusCode, reason: err.code }, e.message);
  const body = JSON.stringify(errorBody(e));
  const answer = (): void => {
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    socket.end(
      `HTTP/1.1 ${e.statusCode} ${http.STATUS_CODES[e.statusCode]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
    );
    // read (and drop) what the client still sends, so that its close is seen and the socket goes
    socket.resume();
  };
  const cur = servingOn(socket);
  if (!cur) {
    answer();
    return;
  }
  if (cur.req.complete) {
    // the last request read (pipelined ones are answered in order) is answered first; nothing
    // more is read from this connection
    socket.pause();
    if (cur.res.writableFinished) answer();
    else cur.res.once('close', answer);
    return;
  }
  // a response already under way on this connection cannot be followed by another
  if (socket.writable && !cur.res.headersSent) answer();
  else socket.destroy();
}

/**
 * Node counts the request line toward its header limit and does not say which overflowed: when
 * the bytes it was parsing start with a request line whose target is over the URI limit (or
 * unfinished and already over it), the URI is what is too long.
 */
function uriOverflowed(raw: unknown): boolean {
  if (!Buffer.isBuffer(raw)) return false;
  const m = /^[A-Z]+ ([^\s]*)/.exec(raw.subarray(0, MAX_URI_LENGTH * 4).toString('latin1'));
  return m !== null && m[1]!.length > MAX_URI_LENGTH;
}
