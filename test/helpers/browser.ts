import assert from 'node:assert/strict';

/**
 * A small cookie-keeping HTTP client for the pages: what a browser does for a form (cookies,
 * the CSRF token from the form, redirects left to the test to follow and inspect).
 */
export interface PageRes {
  status: number;
  headers: Headers;
  text: string;
  location: string | null;
}

export function browser(origin: string) {
  const jar = new Map<string, string>();
  const setCookies: string[] = [];
  async function request(method: string, pathOrUrl: string, form?: Record<string, string>): Promise<PageRes> {
    const headers: Record<string, string> = {};
    if (jar.size > 0) headers.cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    let body: string | undefined;
    if (form) {
      body = new URLSearchParams(form).toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
    }
    const res = await fetch(pathOrUrl.startsWith('http') ? pathOrUrl : origin + pathOrUrl, { method, headers, body, redirect: 'manual' });
    for (const c of res.headers.getSetCookie()) {
      setCookies.push(c);
      const [pair] = c.split(';');
      const i = pair!.indexOf('=');
      const name = pair!.slice(0, i);
      const value = pair!.slice(i + 1);
      if (value === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(c)) jar.delete(name);
      else jar.set(name, value);
    }
    return { status: res.status, headers: res.headers, text: await res.text(), location: res.headers.get('location') };
  }
  return {
    jar,
    setCookies,
    get: (p: string) => request('GET', p),
    post: (p: string, form: Record<string, string>) => request('POST', p, form),
  };
}

export type Browser = ReturnType<typeof browser>;

/** The value of a hidden (or any) input of a page's form. */
export function inputValue(html: string, name: string): string {
  const m = new RegExp(`<input[^>]*name="${name}"[^>]*value="([^"]*)"`).exec(html);
  assert.ok(m, `no input ${name} in ${html.slice(0, 2000)}`);
  return unescapeHtml(m[1]!);
}

export function unescapeHtml(s: string): string {
  return s.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

/** Signs in through the login form; returns the response to the form's POST. */
export async function signIn(b: Browser, email: string, password: string, next = '/'): Promise<PageRes> {
  const form = await b.get(`/login?next=${encodeURIComponent(next)}`);
  assert.equal(form.status, 200, form.text);
  return b.post('/login', { _csrf: inputValue(form.text, '_csrf'), email, password, next: inputValue(form.text, 'next') });
}
