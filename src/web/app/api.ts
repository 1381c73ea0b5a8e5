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

const UNREACHABLE = 'The server cannot be reached. Check the connection and try again.';

/** An answer's JSON; a refusal (not 2xx) becomes an ApiError with the catalogue's code and words. */
function answerOf<T>(status: number, text: string): T {
  let json: unknown = undefined;
  if (text) {
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
  }
  if (status < 200 || status > 299) throw refusalOf(status, json);
  return json as T;
}

function refusalOf(status: number, json: unknown): ApiError {
  const e = json as { errorCode?: number; message?: string; refId?: string } | undefined;
  if (e && typeof e.message === 'string') return new ApiError(status, e.errorCode ?? 0, e.message, e.refId);
  return new ApiError(status, 0, status >= 500 ? 'Something went wrong on the server. Try again.' : `The server refused the request (${status}).`);
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
    throw new ApiError(0, 0, UNREACHABLE);
  }
  return answerOf<T>(res.status, await res.text());
}

/**
 * POSTs a file as the request body (Import Sheet) with XMLHttpRequest, which tells how much of
 * an upload has gone (fetch does not): `onProgress` hears the bytes sent, `onSent` that all of
 * them are (the server is at work then). `signal` stops the upload: the promise then rejects with
 * an AbortError. Refusals are ApiErrors, as call()'s.
 */
export function sendFile<T = unknown>(path: string, file: Blob, contentType: string, opts: { query?: Query; onProgress?: (sent: number, total: number) => void; onSent?: () => void; signal?: AbortSignal } = {}): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', url(path, opts.query));
    xhr.setRequestHeader('x-csrf-token', csrfToken());
    xhr.setRequestHeader('accept', 'application/json');
    xhr.setRequestHeader('content-type', contentType);
    xhr.upload.addEventListener('progress', (e) => opts.onProgress?.(e.loaded, e.lengthComputable ? e.total : file.size));
    xhr.upload.addEventListener('load', () => opts.onSent?.());
    xhr.addEventListener('load', () => {
      try {
        resolve(answerOf<T>(xhr.status, xhr.responseText));
      } catch (e) {
        reject(e);
      }
    });
    xhr.addEventListener('error', () => reject(new ApiError(0, 0, UNREACHABLE)));
    xhr.addEventListener('abort', () => reject(new DOMException('The upload was stopped.', 'AbortError')));
    if (opts.signal?.aborted) {
      reject(new DOMException('The upload was stopped.', 'AbortError'));
      return;
    }
    opts.signal?.addEventListener('abort', () => xhr.abort(), { once: true });
    xhr.send(file);
  });
}

/**
 * A file the API answers for an Accept header (Get Sheet as Excel, CSV or PDF): its bytes and the
 * name its Content-Disposition gives (null when none). A refusal is an ApiError, as call()'s.
 */
export async function getFile(path: string, accept: string, query?: Query): Promise<{ blob: Blob; fileName: string | null }> {
  let res: Response;
  try {
    res = await fetch(url(path, query), { headers: { 'x-csrf-token': csrfToken(), accept }, credentials: 'same-origin' });
  } catch {
    throw new ApiError(0, 0, UNREACHABLE);
  }
  if (!res.ok) return answerOf<never>(res.status, await res.text());
  return { blob: await res.blob(), fileName: fileNameOf(res.headers.get('content-disposition')) };
}

/** The file name of a Content-Disposition: its UTF-8 `filename*` (the server always sends one), else `filename`. */
function fileNameOf(header: string | null): string | null {
  if (!header) return null;
  const star = /filename\*\s*=\s*UTF-8''([^;\s]+)/i.exec(header);
  if (star) {
    try {
      return decodeURIComponent(star[1]!);
    } catch {
      // not percent-encoded as it should be: the plain name below
    }
  }
  const plain = /filename\s*=\s*"((?:[^"\\]|\\.)*)"/i.exec(header) ?? /filename\s*=\s*([^;"\s]+)/i.exec(header);
  return plain ? plain[1]!.replace(/\\(.)/g, '$1') : null;
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
