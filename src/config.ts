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
  /** How long a write waits for another write to the same sheet before answering 4004 (PostgreSQL). */
  lockTimeoutMs: number;
  /** Largest JSON request body accepted, in bytes. */
  bodyLimit: number;
  logLevel: string;
  /** Path segments of API versions that are retired (410/4005); any other unknown version is 404/1007. */
  retiredVersions: string[];
  /** Base URL clients see (used in permalinks); when unset, the address the server listens on. */
  publicUrl: string;
  /** Bytes of large Get Sheet bodies (1 MB or more) in memory at once; more large reads wait (http/present/sheetBodies.ts). */
  bodyMemory: number;
}

function int(v: string | undefined, dflt: number, name: string): number {
  if (v === undefined || v === '') return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got ${JSON.stringify(v)}`);
  return n;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const host = env.HOST || '127.0.0.1';
  const port = int(env.PORT, 8080, 'PORT');
  const tlsCert = env.SHEETD_TLS_CERT || undefined;
  const tlsKey = env.SHEETD_TLS_KEY || undefined;
  if ((tlsCert && !tlsKey) || (!tlsCert && tlsKey)) {
    throw new Error('SHEETD_TLS_CERT and SHEETD_TLS_KEY must be set together');
  }
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
    lockTimeoutMs: int(env.SHEETD_LOCK_TIMEOUT_MS, 10_000, 'SHEETD_LOCK_TIMEOUT_MS'),
    bodyLimit: int(env.SHEETD_BODY_LIMIT, 10 * 1024 * 1024, 'SHEETD_BODY_LIMIT'),
    logLevel: env.SHEETD_LOG_LEVEL || env.LOG_LEVEL || 'info',
    retiredVersions: (env.SHEETD_RETIRED_VERSIONS ?? '1.1').split(',').map((s) => s.trim()).filter(Boolean),
    publicUrl: (env.SHEETD_PUBLIC_URL || '').replace(/\/+$/, ''),
    bodyMemory: int(env.SHEETD_BODY_MEMORY, 96 * 1024 * 1024, 'SHEETD_BODY_MEMORY'),
  };
}
