import dns from 'node:dns';
import fs from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import type { WebhookConfig } from '../config.ts';

/**
 * Outgoing webhook requests (callbacks and verification requests): HTTPS only, to the ports
 * the operator allows, never to an address in a denied network (checked on the address the
 * socket connects to, after DNS, so a name cannot be pointed at a denied address later), within
 * a time and response-size budget. TLS trusts Node's bundled root CAs, the file named by
 * NODE_EXTRA_CA_CERTS and the operator's SHEETD_WEBHOOK_CA_FILE, read when the server starts
 * (Node reads NODE_EXTRA_CA_CERTS only at process start, so a server started in a process,
 * like a test's, names its CA file in its configuration).
 */
export interface CallbackResponse {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  /** At most maxResponseBytes of the response body, as text. */
  body: string;
  latencyMs: number;
}

/** A callback that got no HTTP answer (refused, denied address, TLS, timeout, oversized response). */
export class CallbackFailure extends Error {
  constructor(message: string, readonly latencyMs: number, readonly timeout = false) {
    super(message);
    this.name = 'CallbackFailure';
  }
}

export interface CallbackSender {
  /** Whether a callbackUrl names an allowed port (443 when none is given). */
  portAllowed(url: URL): boolean;
  post(url: string, body: string, headers: Record<string, string>): Promise<CallbackResponse>;
  close(): void;
}

function readPem(file: string | undefined): string[] {
  if (!file) return [];
  try {
    return [fs.readFileSync(file, 'utf8')];
  } catch {
    return [];
  }
}

export function createCallbackSender(cfg: WebhookConfig): CallbackSender {
  const ca = [...tls.rootCertificates, ...readPem(process.env.NODE_EXTRA_CA_CERTS), ...readPem(cfg.caFile)];
  const deny = new net.BlockList();
  for (const cidr of cfg.denyNetworks) {
    const [addr, bits] = cidr.split('/');
    const type = net.isIPv6(addr!) ? 'ipv6' : 'ipv4';
    if (!net.isIP(addr!)) throw new Error(`SHEETD_WEBHOOK_DENY_NETWORKS: ${cidr} is not a network`);
    deny.addSubnet(addr!, bits === undefined ? (type === 'ipv6' ? 128 : 32) : Number(bits), type);
  }
  const denied = (address: string) => deny.check(address, net.isIPv6(address) ? 'ipv6' : 'ipv4');
  // every address a name resolves to must be allowed, and the socket connects to one of them
  const lookup: net.LookupFunction = (hostname, options, cb) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return cb(err, '', 4);
      const list = addresses as dns.LookupAddress[];
      const bad = list.find((a) => denied(a.address));
      if (bad) return cb(Object.assign(new Error(`${hostname} resolves to ${bad.address}, in a network callbacks may not reach`), { code: 'EDENIED' }), '', 4);
      if ((options as { all?: boolean }).all) return (cb as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      cb(null, list[0]!.address, list[0]!.family);
    });
  };
  const agent = new https.Agent({ keepAlive: true, maxSockets: 8, ca, lookup });

  return {
    portAllowed(url) {
      const port = url.port === '' ? 443 : Number(url.port);
      return cfg.ports.some(([lo, hi]) => port >= lo && port <= hi);
    },
    post(url, body, headers) {
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      return new Promise<CallbackResponse>((resolve, reject) => {
        let u: URL;
        try {
          u = new URL(url);
        } catch {
          return reject(new CallbackFailure('invalid callback URL', 0));
        }
        if (u.protocol !== 'https:') return reject(new CallbackFailure('callback URL is not HTTPS', 0));
        if (!this.portAllowed(u)) return reject(new CallbackFailure(`port ${u.port || 443} is not allowed for callbacks`, 0));
        const host = u.hostname.replace(/^\[|\]$/g, '');
        if (net.isIP(host) && denied(host)) return reject(new CallbackFailure(`${host} is in a network callbacks may not reach`, 0));
        let done = false;
        const fail = (msg: string, timeout = false) => {
          if (done) return;
          done = true;
          req.destroy();
          reject(new CallbackFailure(msg, elapsed(), timeout));
        };
        const req = https.request(u, {
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'user-agent': 'sheetd-webhooks/1', ...headers },
        }, (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            size += c.length;
            if (size > cfg.maxResponseBytes) return fail(`response larger than ${cfg.maxResponseBytes} bytes`);
            chunks.push(c);
          });
          res.on('error', (e) => fail(e.message));
          res.on('end', () => {
            if (done) return;
            done = true;
            clearTimeout(timer);
            resolve({ statusCode: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8'), latencyMs: elapsed() });
          });
        });
        const timer = setTimeout(() => fail(`no answer within ${cfg.timeoutMs} ms`, true), cfg.timeoutMs);
        req.on('error', (e) => {
          clearTimeout(timer);
          fail(e.message);
        });
        req.on('close', () => clearTimeout(timer));
        req.end(body);
      });
    },
    close() {
      agent.destroy();
    },
  };
}
