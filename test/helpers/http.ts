import assert from 'node:assert/strict';
/** A small HTTP client for black-box tests: returns status, headers and the parsed JSON body. */
export interface Res<T = any> { // eslint-disable-line @typescript-eslint/no-explicit-any
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface ReqOpts {
  token?: string | null;
  body?: unknown;
  /** Sent as-is (no JSON encoding). */
  raw?: string | Buffer;
  headers?: Record<string, string>;
}

export function client(base: string, defaultToken: string) {
  async function call(method: string, path: string, o: ReqOpts = {}): Promise<Res> {
    const headers: Record<string, string> = { ...(o.headers ?? {}) };
    const token = o.token === undefined ? defaultToken : o.token;
    if (token !== null) headers.authorization = `Bearer ${token}`;
    let body: string | Buffer | undefined;
    if (o.raw !== undefined) body = o.raw;
    else if (o.body !== undefined) {
      body = JSON.stringify(o.body);
      if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
    }
    let res: Response;
    let text: string;
    try {
      res = await fetch(base + path, { method, headers, body }).catch((e: unknown) => {
        // a kept-alive connection the server closed (its keep-alive timeout) just as it was
        // reused, before any answer: a read is sent again once, as HTTP clients do
        if (method !== 'GET' || !staleConnection(e)) throw e;
        return fetch(base + path, { method, headers, body });
      });
      text = await res.text();
    } catch (e) {
      // fetch says only "fetch failed": name the request and the socket's own error
      const cause = (e as { cause?: unknown }).cause;
      throw new Error(`${method} ${path}: ${(e as Error).message}${cause ? `: ${String(cause)}` : ''}`, { cause: e });
    }
    let parsed: unknown = undefined;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  }
  return {
    call,
    get: (p: string, o?: ReqOpts) => call('GET', p, o),
    post: (p: string, body?: unknown, o?: ReqOpts) => call('POST', p, { ...o, body }),
    put: (p: string, body?: unknown, o?: ReqOpts) => call('PUT', p, { ...o, body }),
    del: (p: string, o?: ReqOpts) => call('DELETE', p, o),
  };
}

export type Client = ReturnType<typeof client>;

/**
 * A socket the other side closed before it answered: undici's own error when the close was
 * seen, ECONNRESET when the request was written onto a connection the server had just closed.
 * undici's idle timer (4 s against the server's 5 s) runs on a clock that advances by a fixed
 * step per tick of a busy event loop, not by the time that passed, so on a slow machine it can
 * still hand out a connection the server has closed.
 */
function staleConnection(e: unknown): boolean {
  const cause = (e as { cause?: { code?: string } }).cause;
  return cause?.code === 'UND_ERR_SOCKET' || cause?.code === 'ECONNRESET';
}

/** The catalogued Error object with this status and code. */
export function assertError(res: { status: number; body: unknown }, status: number, code: number): void {
  assert.equal(res.status, status, JSON.stringify(res.body));
  const b = res.body as { errorCode?: number; message?: string; refId?: string };
  assert.equal(b.errorCode, code, JSON.stringify(res.body));
  assert.equal(typeof b.message, 'string');
  assert.ok((b.message ?? '').length > 0);
  assert.equal(typeof b.refId, 'string');
}

/** Every item of a list (read whole with includeAll). */
async function listAll(api: Client, listPath: string): Promise<Array<{ id: number; name?: string }>> {
  const r = await api.get(`${listPath}${listPath.includes('?') ? '&' : '?'}includeAll=true`);
  if (r.status !== 200) throw new Error(`${listPath}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.data as Array<{ id: number; name?: string }>;
}

/** The ids of a list's items now: the `before` of createdSince. */
export async function listedIds(api: Client, listPath: string): Promise<Set<number>> {
  return new Set((await listAll(api, listPath)).map((x) => x.id));
}

/**
 * "Refused input created nothing", told by names rather than counts: the items of a list that
 * are not in `before` and carry one of `names` (or none). Against a cluster, the files running
 * beside a test add items of their own to the same lists.
 */
export async function createdSince(api: Client, listPath: string, before: Set<number>, names: string[]): Promise<unknown[]> {
  return (await listAll(api, listPath)).filter((x) => !before.has(x.id) && (!x.name || names.includes(x.name)));
}

/**
 * Every event from `since` on, the first page and every page after it (nextStreamPosition while
 * moreAvailable). Against a cluster every test file writes to one change log, which soon holds
 * more than a page of events.
 */
/**
 * An event of Get Events under the name sheetd recorded it: Get Events names every event in the
 * public service's vocabulary (a row's change is an UPDATE of its sheet) and keeps sheetd's own
 * name in additionalDetails.sheetdEvent (test/api/event-stream.test.ts checks the public names).
 */
export function recorded<T>(e: T): T {
  const own = (e as { additionalDetails?: { sheetdEvent?: object } }).additionalDetails?.sheetdEvent;
  return own === undefined ? e : { ...e, ...own };
}

/** Every event since `since`, each under the name sheetd recorded it (recorded()). */
export async function allEvents<T = Record<string, unknown>>(api: Client, since = '2000-01-01T00:00:00Z', o: ReqOpts = {}): Promise<T[]> {
  let r = await api.get(`/events?since=${encodeURIComponent(since)}&maxCount=10000`, o);
  assert.equal(r.status, 200, r.text);
  const out: T[] = [...(r.body.data as T[])];
  while (r.body.moreAvailable) {
    r = await api.get(`/events?streamPosition=${encodeURIComponent(r.body.nextStreamPosition)}&maxCount=10000`, o);
    assert.equal(r.status, 200, r.text);
    out.push(...(r.body.data as T[]));
  }
  return out.map(recorded);
}
