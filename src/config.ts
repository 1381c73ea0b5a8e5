import os from 'node:os';
import fs from 'node:fs';
import path from 'node:path';

/** Everything sheetd reads from its environment, in one place (see README "Configuration"). */
export interface Config {
  host: string;
  port: number;
  dataDir: string;
  /** postgres://... when set; otherwise SQLite in dataDir/sheetd.db */
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  /** Prefix of every Redis key sheetd writes (several deployments may share one Redis). */
  redisPrefix: string;
  adminEmail: string;
  tlsCert: string | undefined;
  tlsKey: string | undefined;
  /** Requests per minute per access token. */
  rateLimitPerMinute: number;
  /** Sign-in attempts per minute for one account, and from one client address. */
  loginRateLimitPerMinute: number;
  loginRateLimitPerAddress: number;
  /** How long a sign-in to the pages lasts. */
  sessionTtlMs: number;
  /** How long a write waits for another write to the same sheet before answering 4004 (PostgreSQL). */
  lockTimeoutMs: number;
  /** Largest JSON request body accepted, in bytes. */
  bodyLimit: number;
  logLevel: string;
  /** Path segments of API versions that are retired (410/4005); any other unknown version is 404/1007. */
  retiredVersions: string[];
  /** Base URL clients see (used in permalinks); when unset, the address the server listens on. */
  publicUrl: string;
  /** How often the job worker looks for due jobs when nothing wakes it, in ms. */
  jobPollMs: number;
  /** Whether the search index is caught up on a thread of its own (SHEETD_INDEX_THREAD; services/log/indexThread.ts). */
  indexThread: boolean;
  /** Where uploaded files are kept (see "Files and mail" below). */
  blobs: BlobsConfig;
  mail: MailConfig;
  /** A socket on which nothing arrives (or leaves) for this long is closed: a client that stops sending. */
  idleTimeoutMs: number;
  /** The whole request (headers and body) must have arrived within this (408 beyond). */
  requestTimeoutMs: number;
  /** The request headers must have arrived within this (408 beyond); at most requestTimeoutMs. */
  headersTimeoutMs: number;
  /** How long an idle keep-alive connection waits for its next request. */
  keepAliveTimeoutMs: number;
  /** Open connections at most; further ones are closed as they arrive. */
  maxConnections: number;
  /** Whether automation rules run (SHEETD_AUTOMATION); off, every rule reads AUTOMATION_NOT_ENABLED_FOR_ORG. */
  automation: boolean;
  /** Who published sheets and reports may reach (SHEETD_PUBLISH): all (links open to anyone), org (members only), off. */
  publish: PublishPolicy;
  /** Bytes of large Get Sheet bodies (1 MB or more) in memory at once; more large reads wait (http/present/sheetBodies.ts). */
  bodyMemory: number;
  /** Webhook callbacks (see "Webhooks" in docs/operations.md). */
  webhooks: WebhookConfig;
  /** Change streams and presence (docs/changes-stream.md). */
  live: {
    /** A comment line on every change stream this often (SHEETD_STREAM_HEARTBEAT_MS, 15 s), which is also the slow poll of the change log. */
    heartbeatMs: number;
    /** How often a stream asks again whether its caller may still read the sheet, at least (SHEETD_STREAM_ACCESS_CHECK_MS, 60 s). */
    accessCheckMs: number;
    /** A stream resumes over at most this many events of its sheet; further back it answers reset (SHEETD_STREAM_REPLAY, 10,000). */
    replayMax: number;
    /** Someone who closed the sheet is gone from presence within this (SHEETD_PRESENCE_TTL_MS, 30 s). */
    presenceTtlMs: number;
  };
  /** Test mode (SHEETD_TEST_MODE or `sheetd serve --test-mode`; docs/testing.md): the /2.0/sheetd/test controls. Off by default. */
  testMode: boolean;
  /** A fixture (JSON) loaded at start in test mode (SHEETD_TEST_SEED or `serve --seed FILE`). */
  testSeedFile: string | undefined;
}

export type PublishPolicy = 'all' | 'org' | 'off';

function publishPolicy(v: string | undefined): PublishPolicy {
  if (v === undefined || v === '') return 'all';
  if (v === 'all' || v === 'org' || v === 'off') return v;
  throw new Error(`SHEETD_PUBLISH must be all, org or off, not ${v}`);
}

function onOff(v: string | undefined, dflt: boolean, name: string): boolean {
  if (v === undefined || v === '') return dflt;
  if (v === 'on' || v === 'true' || v === '1') return true;
  if (v === 'off' || v === 'false' || v === '0') return false;
  throw new Error(`${name} must be on or off, not ${v}`);
}

function int(v: string | undefined, dflt: number, name: string): number {
  if (v === undefined || v === '') return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got ${JSON.stringify(v)}`);
  return n;
}

function positive(v: string | undefined, dflt: number, name: string): number {
  const n = int(v, dflt, name);
  if (n === 0) throw new Error(`${name} must be a positive integer, got ${JSON.stringify(v)}`);
  return n;
}

/**
 * Three quarters of the process's open-file limit, at most 10,000: each connection holds a
 * descriptor, and the rest is left for the database, Redis, uploads and logs. Node raises the soft
 * limit to the hard one at start, so /proc/self/limits shows what this process may open; where it
 * cannot be read, 768 (three quarters of the usual 1,024).
 */
function defaultMaxConnections(): number {
  let limit = 1024;
  try {
    const m = /^Max open files\s+(\d+)/m.exec(fs.readFileSync('/proc/self/limits', 'utf8'));
    if (m) limit = Number(m[1]);
  } catch {
    // not Linux: keep the usual limit
  }
  return Math.max(1, Math.min(10_000, Math.floor(limit * 0.75)));
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const host = env.HOST || '127.0.0.1';
  const port = int(env.PORT, 8080, 'PORT');
  const tlsCert = env.SHEETD_TLS_CERT || undefined;
  const tlsKey = env.SHEETD_TLS_KEY || undefined;
  if ((tlsCert && !tlsKey) || (!tlsCert && tlsKey)) {
    throw new Error('SHEETD_TLS_CERT and SHEETD_TLS_KEY must be set together');
  }
  const requestTimeoutMs = positive(env.SHEETD_REQUEST_TIMEOUT_MS, 300_000, 'SHEETD_REQUEST_TIMEOUT_MS');
  return {
    host,
    port,
    dataDir: path.resolve(env.SHEETD_DATA_DIR || './data'),
    databaseUrl: env.DATABASE_URL || undefined,
    redisUrl: env.REDIS_URL || undefined,
    redisPrefix: env.SHEETD_REDIS_PREFIX || 'sheetd:',
    adminEmail: (env.SHEETD_ADMIN_EMAIL || 'admin@example.com').trim().toLowerCase(),
    tlsCert,
    tlsKey,
    rateLimitPerMinute: int(env.SHEETD_RATE_LIMIT, 300, 'SHEETD_RATE_LIMIT'),
    loginRateLimitPerMinute: positive(env.SHEETD_LOGIN_RATE_LIMIT, 10, 'SHEETD_LOGIN_RATE_LIMIT'),
    loginRateLimitPerAddress: positive(env.SHEETD_LOGIN_RATE_LIMIT_ADDRESS, 50, 'SHEETD_LOGIN_RATE_LIMIT_ADDRESS'),
    sessionTtlMs: positive(env.SHEETD_SESSION_HOURS, 12, 'SHEETD_SESSION_HOURS') * 3_600_000,
    lockTimeoutMs: int(env.SHEETD_LOCK_TIMEOUT_MS, 10_000, 'SHEETD_LOCK_TIMEOUT_MS'),
    bodyLimit: int(env.SHEETD_BODY_LIMIT, 10 * 1024 * 1024, 'SHEETD_BODY_LIMIT'),
    logLevel: env.SHEETD_LOG_LEVEL || env.LOG_LEVEL || 'info',
    retiredVersions: (env.SHEETD_RETIRED_VERSIONS ?? '1.1').split(',').map((s) => s.trim()).filter(Boolean),
    publicUrl: (env.SHEETD_PUBLIC_URL || '').replace(/\/+$/, ''),
    jobPollMs: int(env.SHEETD_JOB_POLL_MS, 1000, 'SHEETD_JOB_POLL_MS'),
    indexThread: onOff(env.SHEETD_INDEX_THREAD, true, 'SHEETD_INDEX_THREAD'),
    blobs: blobsConfig(env),
    mail: mailConfig(env),
    idleTimeoutMs: positive(env.SHEETD_IDLE_TIMEOUT_MS, 30_000, 'SHEETD_IDLE_TIMEOUT_MS'),
    requestTimeoutMs,
    // Node refuses a headers timeout longer than the request timeout
    headersTimeoutMs: Math.min(requestTimeoutMs, positive(env.SHEETD_HEADERS_TIMEOUT_MS, 30_000, 'SHEETD_HEADERS_TIMEOUT_MS')),
    keepAliveTimeoutMs: positive(env.SHEETD_KEEPALIVE_TIMEOUT_MS, 5_000, 'SHEETD_KEEPALIVE_TIMEOUT_MS'),
    maxConnections: env.SHEETD_MAX_CONNECTIONS ? positive(env.SHEETD_MAX_CONNECTIONS, 0, 'SHEETD_MAX_CONNECTIONS') : defaultMaxConnections(),
    automation: onOff(env.SHEETD_AUTOMATION, true, 'SHEETD_AUTOMATION'),
    publish: publishPolicy(env.SHEETD_PUBLISH),
    bodyMemory: int(env.SHEETD_BODY_MEMORY, 96 * 1024 * 1024, 'SHEETD_BODY_MEMORY'),
    webhooks: webhookConfig(env),
    live: {
      heartbeatMs: positive(env.SHEETD_STREAM_HEARTBEAT_MS, 15_000, 'SHEETD_STREAM_HEARTBEAT_MS'),
      accessCheckMs: positive(env.SHEETD_STREAM_ACCESS_CHECK_MS, 60_000, 'SHEETD_STREAM_ACCESS_CHECK_MS'),
      replayMax: positive(env.SHEETD_STREAM_REPLAY, 10_000, 'SHEETD_STREAM_REPLAY'),
      presenceTtlMs: positive(env.SHEETD_PRESENCE_TTL_MS, 30_000, 'SHEETD_PRESENCE_TTL_MS'),
    },
    testMode: onOff(env.SHEETD_TEST_MODE, false, 'SHEETD_TEST_MODE'),
    testSeedFile: env.SHEETD_TEST_SEED || undefined,
  };
}

// ---- Files and mail -------------------------------------------------------------------------

/** The filesystem under the data directory (the default), or an S3-compatible bucket. */
export type BlobsConfig =
  | { backend: 'fs' }
  | {
    backend: 's3';
    bucket: string;
    /** e.g. http://minio.internal:9000; unset for AWS itself. */
    endpoint: string | undefined;
    region: string;
    /** bucket in the path (http://host/bucket/key) rather than the host name; most S3-compatible servers want it */
    forcePathStyle: boolean;
    /** Prepended to every object key, so sheetd can share a bucket. */
    prefix: string;
  };

export interface MailConfig {
  /** smtp(s)://user:pass@host:port: send through it; unset: write .eml files to <dataDir>/outbox/ */
  smtpUrl: string | undefined;
  /** The From address of every message. */
  from: string;
}

function flag(v: string | undefined, name: string): boolean {
  if (v === undefined || v === '') return false;
  if (/^(1|true|yes)$/i.test(v)) return true;
  if (/^(0|false|no)$/i.test(v)) return false;
  throw new Error(`${name} must be true or false, got ${JSON.stringify(v)}`);
}

function blobsConfig(env: NodeJS.ProcessEnv): BlobsConfig {
  const backend = env.SHEETD_BLOB_STORE || 'fs';
  if (backend === 'fs') return { backend };
  if (backend !== 's3') throw new Error(`SHEETD_BLOB_STORE must be fs or s3, got ${JSON.stringify(backend)}`);
  const bucket = env.SHEETD_S3_BUCKET;
  if (!bucket) throw new Error('SHEETD_BLOB_STORE=s3 needs SHEETD_S3_BUCKET');
  return {
    backend,
    bucket,
    endpoint: env.SHEETD_S3_ENDPOINT || undefined,
    region: env.SHEETD_S3_REGION || env.AWS_REGION || 'us-east-1',
    forcePathStyle: flag(env.SHEETD_S3_FORCE_PATH_STYLE, 'SHEETD_S3_FORCE_PATH_STYLE'),
    prefix: env.SHEETD_S3_PREFIX || '',
  };
}

function mailConfig(env: NodeJS.ProcessEnv): MailConfig {
  const smtpUrl = env.SMTP_URL || undefined;
  if (smtpUrl !== undefined && !/^smtps?:\/\//.test(smtpUrl)) throw new Error('SMTP_URL must be an smtp:// or smtps:// URL');
  let host = os.hostname();
  if (env.SHEETD_PUBLIC_URL) host = new URL(env.SHEETD_PUBLIC_URL).hostname;
  return { smtpUrl, from: env.SHEETD_MAIL_FROM || `sheetd@${host}` };
}

// ---- Webhooks -------------------------------------------------------------------------------

export interface WebhookConfig {
  /** Ports a callbackUrl may name: inclusive ranges. */
  ports: Array<[number, number]>;
  /** Networks callbacks are never sent to (CIDR), checked on the address actually connected to. */
  denyNetworks: string[];
  /** A callback (connection, request and response) must finish within this. */
  timeoutMs: number;
  /** Bytes of a subscriber's response read at most; a longer one fails the attempt. */
  maxResponseBytes: number;
  /** A PEM file of CA certificates trusted for callbacks besides the bundled roots and NODE_EXTRA_CA_CERTS. */
  caFile: string | undefined;
  /** Waits before each retry of a failed callback, in ms; after the last the webhook is disabled. */
  retryMs: number[];
  /** Events committed within this window after the first go out in one callback. */
  batchMs: number;
}

/** 30 s, then doubling for 7 retries, then every 3 hours: 14 retries (the reference's retry logic). */
const DEFAULT_RETRY_MS = [30, 60, 120, 240, 480, 960, 1920].map((s) => s * 1000).concat(Array(7).fill(3 * 3600 * 1000) as number[]);

function portRanges(v: string, name: string): Array<[number, number]> {
  return v.split(',').map((s) => s.trim()).filter(Boolean).map((part) => {
    const m = /^(\d{1,5})(?:-(\d{1,5}))?$/.exec(part);
    const lo = m ? Number(m[1]) : NaN;
    const hi = m ? Number(m[2] ?? m[1]) : NaN;
    if (!(lo >= 1 && hi <= 65535 && lo <= hi)) throw new Error(`${name} must list ports or ranges (443,8000-8100), got ${JSON.stringify(v)}`);
    return [lo, hi] as [number, number];
  });
}

function webhookConfig(env: NodeJS.ProcessEnv): WebhookConfig {
  const retry = env.SHEETD_WEBHOOK_RETRY_MS;
  let retryMs = DEFAULT_RETRY_MS;
  if (retry !== undefined && retry !== '') {
    retryMs = retry.split(',').map((s) => int(s.trim(), 0, 'SHEETD_WEBHOOK_RETRY_MS'));
  }
  const caFile = env.SHEETD_WEBHOOK_CA_FILE || undefined;
  if (caFile !== undefined && !fs.existsSync(caFile)) throw new Error(`SHEETD_WEBHOOK_CA_FILE ${caFile} does not exist`);
  return {
    ports: portRanges(env.SHEETD_WEBHOOK_PORTS || '443,8000,8008,8080,8443', 'SHEETD_WEBHOOK_PORTS'),
    denyNetworks: (env.SHEETD_WEBHOOK_DENY_NETWORKS ?? '169.254.0.0/16,fe80::/10').split(',').map((s) => s.trim()).filter(Boolean),
    timeoutMs: positive(env.SHEETD_WEBHOOK_TIMEOUT_MS, 10_000, 'SHEETD_WEBHOOK_TIMEOUT_MS'),
    maxResponseBytes: positive(env.SHEETD_WEBHOOK_MAX_RESPONSE_BYTES, 64 * 1024, 'SHEETD_WEBHOOK_MAX_RESPONSE_BYTES'),
    caFile,
    retryMs,
    batchMs: int(env.SHEETD_WEBHOOK_BATCH_MS, 200, 'SHEETD_WEBHOOK_BATCH_MS'),
  };
}
