/**
 * The page's client of the /2.0 API. Every call is authenticated by the page's session cookie
 * (sent by the browser, HttpOnly) and the CSRF token the server put in
 * `<meta name="sheetd-csrf">`, sent back in the X-CSRF-Token header. No API token is ever in a
 * page. A refusal becomes an ApiError carrying the catalogue's code and message, which the page
 * shows in plain words (showError).
 */

export class ApiError extends Error {
  constructor(
    /** The HTTP status. */
    readonly status: number,
    /** The catalogue's errorCode (0 when the answer was not an API Error object). */
    readonly errorCode: number,
    message: string,
    readonly refId?: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface Page<T> {
  pageNumber: number;
  pageSize: number;
  totalPages: number;
  totalCount: number;
  data: T[];
}

/** What the answers of a mutating call look like (spec: Result object). */
export interface Result<T> {
  message: string;
  resultCode: number;
  result: T;
  version?: number;
}

function csrfToken(): string {
  return document.querySelector<HTMLMetaElement>('meta[name="sheetd-csrf"]')?.content ?? '';
}

export type Query = Record<string, string | number | boolean | undefined | null>;

function url(path: string, query?: Query): string {
  const u = `/2.0${path.startsWith('/') ? path : `/${path}`}`;
  if (!query) return u;
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null) q.set(k, String(v));
  const s = q.toString();
  return s ? `${u}?${s}` : u;
}

/** One API call. `body` is sent as JSON unless it is FormData or a Blob (uploads). */
export async function call<T = unknown>(method: string, path: string, opts: { query?: Query; body?: unknown; headers?: Record<string, string> } = {}): Promise<T> {
  const headers: Record<string, string> = { 'x-csrf-token': csrfToken(), accept: 'application/json', ...opts.headers };
  let body: BodyInit | undefined;
  if (opts.body instanceof FormData || opts.body instanceof Blob) body = opts.body;
  else if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] = 'application/json';
  }
  let res: Response;
  try {
    res = await fetch(url(path, opts.query), { method, headers, body, credentials: 'same-origin' });
  } catch {
    throw new ApiError(0, 0, 'The server cannot be reached. Check the connection and try again.');
  }
  const text = await res.text();
  let json: unknown = undefined;
  if (text) {
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
  }
  if (!res.ok) {
    const e = json as { errorCode?: number; message?: string; refId?: string } | undefined;
    if (e && typeof e.message === 'string') throw new ApiError(res.status, e.errorCode ?? 0, e.message, e.refId);
    throw new ApiError(res.status, 0, res.status >= 500 ? 'Something went wrong on the server. Try again.' : `The server refused the request (${res.status}).`);
  }
  return json as T;
}

export const api = {
  get: <T = unknown>(path: string, query?: Query) => call<T>('GET', path, { query }),
  post: <T = unknown>(path: string, body?: unknown, query?: Query) => call<T>('POST', path, { body, query }),
  put: <T = unknown>(path: string, body?: unknown, query?: Query) => call<T>('PUT', path, { body, query }),
  del: <T = unknown>(path: string, query?: Query) => call<T>('DELETE', path, { query }),
  /** Uploads a file as the request body (Attach File): name in Content-Disposition. */
  upload: <T = unknown>(path: string, file: File | Blob, name: string, query?: Query) =>
    call<T>('POST', path, {
      body: file,
      query,
      headers: { 'content-type': file.type || 'application/octet-stream', 'content-disposition': `attachment; filename="${encodeURIComponent(name)}"` },
    }),
};

/** The message to show for any failure: the catalogue's words for an ApiError, never a stack trace. */
export function messageOf(e: unknown): string {
  if (e instanceof ApiError) return e.message;
  return 'Something went wrong in this page. Reload it and try again.';
}

let toastHost: HTMLElement | null = null;

/**
 * Shows a message in the page's status area (role=alert, so screen readers announce it). Errors
 * stay until dismissed or replaced; notes fade after a few seconds.
 */
export function showMessage(text: string, kind: 'error' | 'note' = 'error'): void {
  if (!toastHost) {
    toastHost = document.createElement('div');
    toastHost.className = 'toasts';
    document.body.append(toastHost);
  }
  const t = document.createElement('div');
  t.className = `toast toast-${kind}`;
  t.setAttribute('role', kind === 'error' ? 'alert' : 'status');
  const span = document.createElement('span');
  span.textContent = text;
  const close = document.createElement('button');
  close.type = 'button';
  close.className = 'toast-close';
  close.setAttribute('aria-label', 'Dismiss');
  close.textContent = '×';
  close.addEventListener('click', () => t.remove());
  t.append(span, close);
  toastHost.replaceChildren(t);
  if (kind === 'note') setTimeout(() => t.remove(), 4000);
}

export function showError(e: unknown): void {
  showMessage(messageOf(e), 'error');
}

/** The page's context from its mount point (#app): its object id and the signed-in user. */
export function pageContext(): { root: HTMLElement; id: number | null; userId: number; userEmail: string } {
  const root = document.getElementById('app');
  if (!root) throw new Error('no #app');
  const id = root.dataset.id ? Number(root.dataset.id) : null;
  return { root, id, userId: Number(root.dataset.userId), userEmail: root.dataset.userEmail ?? '' };
}

/** Any error a page did not catch is shown in plain words too (never a blank page). */
export function installErrorReporting(): void {
  window.addEventListener('unhandledrejection', (ev) => {
    showError(ev.reason);
  });
  window.addEventListener('error', (ev) => {
    if (ev.error) showError(ev.error);
  });
}
