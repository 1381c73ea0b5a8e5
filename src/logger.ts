import pino from 'pino';

/**
 * The server's logger: pino at the configured level, with every line scrubbed of secrets (issue
 * 34). A log is read by more people than the API's clients, and kept longer: what would let a
 * reader act as a client stays out of it, while the route and the ids stay in, so that lines can
 * still be followed.
 *
 * - URLs whose path carries a capability (attachment downloads, image URLs, approval, update
 *   request and proof review links, published sheets and dashboards, password links) keep the route and the ids
 *   the token starts with (`approvals/123.[redacted]`); the signature or token is gone.
 * - Query values of secret names (access_token, code, client_secret, hash, refresh_token, ...).
 * - Authorization (Bearer and Basic credentials anywhere in a line), cookies, and fields named
 *   like secrets (sharedSecret, clientSecret, password, ...) in what a line logs.
 *
 * The request serializer logs the scrubbed URL (Fastify's own logs the raw one), the error
 * serializer scrubs messages and stacks, and a hook scrubs each line's message and plain fields.
 */

export const REDACTED = '[redacted]';

/** Path segments after which the next segment is a capability, not an id. */
const TOKEN_ROUTES = ['attachmentfiles', 'imageurls', 'approvals', 'updaterequests', 'proofreviews', 'published/sights', 'published', 'password'];

const tokenPath = new RegExp(`(/(?:${TOKEN_ROUTES.join('|')})/)([^/?#\\s"'<>]+)`, 'g');

/** Query parameters (and form fields) whose values are secrets. */
const SECRET_PARAMS = [
  'access_token', 'refresh_token', 'id_token', 'code', 'client_secret', 'clientsecret', 'hash', 'token', 'secret',
  'sharedsecret', 'password', 'signature', 'sig', 'key', 'api_key', 'apikey', 'session',
];

const secretParam = new RegExp(`((?:^|[?&;\\s])(?:${SECRET_PARAMS.join('|')})=)([^&;#\\s"'<>]*)`, 'gi');

/** A JSON member of a secret's name inside a text (a body quoted in an error message). */
const secretMember = new RegExp(`("(?:${SECRET_PARAMS.join('|')}|authorization|cookie|client_?secret|shared_?secret)"\\s*:\\s*)"(?:[^"\\\\]|\\\\.)*"`, 'gi');

const credentials = /\b(Bearer|Basic)(\s+)[A-Za-z0-9._~+/=-]+/gi;

/** Field names whose values never go into a line, at any depth of what is logged. */
const SECRET_FIELDS = new Set([
  'authorization', 'cookie', 'set-cookie', 'sharedsecret', 'shared_secret', 'secret', 'clientsecret', 'client_secret',
  'password', 'access_token', 'accesstoken', 'refresh_token', 'refreshtoken', 'token', 'hash',
]);

/** A text with the secrets it may carry replaced by [redacted]. */
export function redactText(s: string): string {
  if (s.length === 0) return s;
  return s
    .replace(tokenPath, (_m, route: string, token: string) => {
      // a route word followed by a number is an id (e.g. /sheets/1/updaterequests/2): kept
      if (/^\d+$/.test(token) || token === 'sights') return route + token;
      // signed tokens are ids and an expiry, then the signature: the numbers stay
      const ids = /^(?:\d+\.)+/.exec(token);
      return `${route}${ids ? ids[0] : ''}${REDACTED}`;
    })
    .replace(secretParam, (_m, name: string, value: string) => (value === '' ? name : name + REDACTED))
    .replace(secretMember, (_m, name: string) => `${name}"${REDACTED}"`)
    .replace(credentials, (_m, scheme: string, space: string) => `${scheme}${space}${REDACTED}`);
}

function isPlain(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object') return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** Plain objects and arrays with their strings scrubbed and secret fields replaced; others as they are (their serializers scrub them). */
export function redactValue(v: unknown, depth = 0): unknown {
  if (typeof v === 'string') return redactText(v);
  if (depth > 6) return v;
  if (Array.isArray(v)) return v.map((x) => redactValue(x, depth + 1));
  if (!isPlain(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    out[k] = SECRET_FIELDS.has(k.toLowerCase()) && x !== null && x !== undefined && x !== '' ? REDACTED : redactValue(x, depth + 1);
  }
  return out;
}

/** What of a request a line shows: method, route with the URL scrubbed, where it came from. */
function requestSerializer(req: { method?: string; url?: string; host?: string; ip?: string; socket?: { remotePort?: number } }) {
  return {
    method: req.method,
    url: typeof req.url === 'string' ? redactText(req.url) : req.url,
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}

function errorSerializer(err: Error) {
  return redactValue({ ...pino.stdSerializers.err(err) });
}

/** The server's logger at `level`, writing to `destination` (stdout when none). */
export function createLogger(level: string, destination?: pino.DestinationStream): pino.Logger {
  const options: pino.LoggerOptions = {
    level,
    serializers: { req: requestSerializer, err: errorSerializer },
    hooks: {
      logMethod(args, method) {
        method.apply(this, args.map((a) => redactValue(a)) as Parameters<pino.LogFn>);
      },
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
