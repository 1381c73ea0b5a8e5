import { execFileSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';

/**
 * A webhook subscriber for tests: a real HTTPS server on 127.0.0.1 whose certificate is signed
 * by a CA made here with openssl (sheetd trusts it through SHEETD_WEBHOOK_CA_FILE). It answers
 * verification requests by echoing the challenge (or as `verify` says) and event callbacks with
 * 200 (or as `answer` says), and keeps every request it got.
 */
export interface Received {
  headers: Record<string, string | string[] | undefined>;
  body: string;
  json: Record<string, unknown>;
  at: number;
}

export interface Receiver {
  /** https://127.0.0.1:PORT/hook */
  url: string;
  port: number;
  /** PEM file of the CA that signed the server's certificate. */
  caFile: string;
  requests: Received[];
  /**
   * Verification requests answered: 'header' (default), 'body', 'wrong', 'slow' (no answer for
   * 5 s), 'big' (the echo with 100 KB of body), or an HTTP status.
   */
  verify: 'header' | 'body' | 'wrong' | 'slow' | 'big' | number;
  /** The status for each callback (called with the callback), 200 by default. */
  answer: (r: Received) => number | Promise<number>;
  callbacks(webhookId?: number): Received[];
  verifications(webhookId?: number): Received[];
  /** Waits until `pred` holds (polling), or fails after `ms`. */
  waitFor(pred: () => boolean, ms?: number, what?: string): Promise<void>;
  close(): Promise<void>;
}

export function makeCa(dir: string): { caFile: string; certFile: string; keyFile: string } {
  const p = (f: string) => path.join(dir, f);
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  execFileSync('openssl', ['req', '-x509', ...ec, '-keyout', p('ca.key'), '-out', p('ca.pem'), '-days', '2', '-subj', '/CN=sheetd test CA',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'], { stdio: 'ignore' });
  execFileSync('openssl', ['req', ...ec, '-keyout', p('srv.key'), '-out', p('srv.csr'), '-subj', '/CN=127.0.0.1'], { stdio: 'ignore' });
  fs.writeFileSync(p('ext.cnf'), 'subjectAltName=IP:127.0.0.1,IP:::1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n');
  execFileSync('openssl', ['x509', '-req', '-in', p('srv.csr'), '-CA', p('ca.pem'), '-CAkey', p('ca.key'), '-CAcreateserial', '-out', p('srv.pem'), '-days', '2', '-extfile', p('ext.cnf')], { stdio: 'ignore' });
  return { caFile: p('ca.pem'), certFile: p('srv.pem'), keyFile: p('srv.key') };
}

export async function startReceiver(host = '127.0.0.1'): Promise<Receiver> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetd-hook-'));
  const { caFile, certFile, keyFile } = makeCa(dir);
  const requests: Received[] = [];
  const r = {} as Receiver;
  const server = https.createServer({ cert: fs.readFileSync(certFile), key: fs.readFileSync(keyFile) }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks).toString('utf8');
        let json: Record<string, unknown> = {};
        try {
          json = JSON.parse(body) as Record<string, unknown>;
        } catch {
          // kept as text
        }
        const got: Received = { headers: req.headers, body, json, at: Date.now() };
        requests.push(got);
        const challenge = req.headers['smartsheet-hook-challenge'];
        if (typeof challenge === 'string') {
          if (typeof r.verify === 'number') return res.writeHead(r.verify).end();
          if (r.verify === 'slow') return void setTimeout(() => res.writeHead(200, { 'smartsheet-hook-response': challenge }).end(), 5000);
          if (r.verify === 'big') return res.writeHead(200, { 'smartsheet-hook-response': challenge }).end('x'.repeat(100_000));
          if (r.verify === 'body') return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ smartsheetHookResponse: challenge }));
          return res.writeHead(200, { 'smartsheet-hook-response': r.verify === 'wrong' ? 'nope' : challenge }).end();
        }
        const status = await r.answer(got);
        res.writeHead(status).end();
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as { port: number }).port;
  const isCallback = (x: Received) => x.headers['smartsheet-hook-challenge'] === undefined;
  Object.assign(r, {
    url: `https://${host.includes(':') ? `[${host}]` : host}:${port}/hook`,
    port,
    caFile,
    requests,
    verify: 'header',
    answer: () => 200,
    callbacks: (id?: number) => requests.filter((x) => isCallback(x) && (id === undefined || x.json.webhookId === id)),
    verifications: (id?: number) => requests.filter((x) => !isCallback(x) && (id === undefined || x.json.webhookId === id)),
    async waitFor(pred: () => boolean, ms = 15_000, what = 'condition') {
      const end = Date.now() + ms;
      while (!pred()) {
        if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
        await new Promise((res) => setTimeout(res, 25));
      }
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => {
        fs.rmSync(dir, { recursive: true, force: true });
        resolve();
      });
    }),
  });
  return r;
}

/** The hex HMAC-SHA256 of a callback body with the webhook's shared secret, as Smartsheet-Hmac-SHA256 carries it. */
export function hmac(secret: string, body: string): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}
